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
