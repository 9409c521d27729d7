/* cloth_split.c: the fixed blocks of the cloth's work per rank, and their
 * gather (cloth_split.h). */
#include "cloth/cloth_split.h"

#include <time.h>

static double
split_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void
cloth_split_blocks(const cloth_split *sp, int nb, int *b0, int *b1)
{
	if (!sp) {
		*b0 = 0;
		*b1 = nb;
		return;
	}
	*b0 = (int)((long long)nb * sp->rank / sp->size);
	*b1 = (int)((long long)nb * (sp->rank + 1) / sp->size);
}

/* Element n b / nb, the start of block b. */
static size_t
block_start(size_t n, int nb, int b)
{
	return (size_t)((unsigned long long)n * (unsigned)b / (unsigned)nb);
}

void
cloth_split_range(const cloth_split *sp, size_t n, int nb, size_t *e0, size_t *e1)
{
	int b0, b1;

	cloth_split_blocks(sp, nb, &b0, &b1);
	*e0 = block_start(n, nb, b0);
	*e1 = block_start(n, nb, b1);
}

int
cloth_split_gather_parts(cloth_split *sp, void *buf, const size_t *end, size_t esize)
{
	size_t off[CLOTH_SPLIT_MAX + 1];
	double t0;
	int q, rc;

	if (!sp || sp->size == 1)
		return 0;
	if (sp->failed)
		return -1;
	off[0] = 0;
	for (q = 0; q < sp->size; q++)
		off[q + 1] = end[q] * esize;
	t0 = split_clock();
	rc = sp->gather(sp->ctx, buf, off);
	sp->t_comm += split_clock() - t0;
	if (rc)
		sp->failed = 1;
	return rc;
}

int
cloth_split_gather(cloth_split *sp, void *buf, size_t n, size_t esize, int nb)
{
	size_t end[CLOTH_SPLIT_MAX];
	int q;

	if (!sp || sp->size == 1)
		return 0;
	for (q = 0; q < sp->size; q++)
		end[q] = block_start(n, nb, (int)((long long)nb * (q + 1) / sp->size));
	return cloth_split_gather_parts(sp, buf, end, esize);
}

/* Elements of u's units [0, k). */
static unsigned long long
units_cum(const cloth_units *u, int k)
{
	unsigned long long c = 0;

	for (int g = 0; g < u->nseg; g++) {
		const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
		c += st[k] - st[0];
	}
	return c;
}

/* The first unit of rank q of P: by unit count, or the unit boundary
 * nearest to q / P of the elements, the last rank ending at the last
 * unit. */
static int
units_first(const cloth_units *u, int q, int P)
{
	if (q >= P)
		return u->nunit;
	if (!u->balanced)
		return (int)((long long)u->nunit * q / P);
	const unsigned long long tot = units_cum(u, u->nunit);
	const unsigned long long want = tot * (unsigned)q;
	int k = 0;
	while (k < u->nunit && units_cum(u, k + 1) * (unsigned)P <= want)
		k++;
	/* k: the last boundary at or before q / P; the next may be nearer */
	if (k < u->nunit && units_cum(u, k + 1) * (unsigned)P - want <
	    want - units_cum(u, k) * (unsigned)P)
		k++;
	return k;
}

void
cloth_units_owned(const cloth_units *u, const cloth_split *sp, int q, int *u0,
		  int *u1)
{
	if (!sp) {
		*u0 = 0;
		*u1 = u->nunit;
		return;
	}
	*u0 = units_first(u, q, sp->size);
	*u1 = units_first(u, q + 1, sp->size);
	if (*u1 < *u0)
		*u1 = *u0;
}

int
cloth_units_share(cloth_split *sp, const cloth_units *u, double *a)
{
	size_t end[CLOTH_SPLIT_MAX];

	if (!sp || sp->size == 1)
		return 0;
	for (int g = 0; g < u->nseg; g++) {
		const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
		for (int q = 0; q < sp->size; q++)
			end[q] = st[units_first(u, q + 1, sp->size)] - st[0];
		if (cloth_split_gather_parts(sp, a + st[0], end, sizeof *a))
			return -1;
	}
	return 0;
}

int
cloth_units_gather(cloth_split *sp, const cloth_units *u, void *buf,
		   size_t esize)
{
	size_t end[CLOTH_SPLIT_MAX];

	if (!sp || sp->size == 1)
		return 0;
	for (int q = 0; q < sp->size; q++)
		end[q] = (size_t)units_first(u, q + 1, sp->size);
	return cloth_split_gather_parts(sp, buf, end, esize);
}
