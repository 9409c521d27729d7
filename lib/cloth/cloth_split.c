/* cloth_split.c: the fixed blocks of the cloth's work per rank, and their
 * gather (cloth_split.h). */
#include "cloth/cloth_split.h"

#include <stdlib.h>
#include <string.h>
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

void
cloth_halo_free(cloth_halo *h)
{
	free(h->soff);
	free(h->roff);
	free(h->sidx);
	free(h->ridx);
	free(h->sbuf);
	free(h->rbuf);
	memset(h, 0, sizeof *h);
}

/* One pass over the ranks q: mark q's rows, then its columns outside
 * them; scan the marks in particle order into the counts (idx NULL) or
 * the lists (at the running offsets so/ro).  mine, need: np zeros, left
 * zero. */
static void
halo_pass(const cloth_split *sp, size_t np, const size_t *rp,
	  const uint32_t *col, int nseg, const size_t *lo, const size_t *hi,
	  const uint8_t *owner, uint8_t *mine, uint8_t *need, size_t *scnt,
	  size_t *rcnt, uint32_t *sidx, uint32_t *ridx)
{
	for (int q = 0; q < sp->size; q++) {
		const size_t *ql = lo + (size_t)q * (size_t)nseg;
		const size_t *qh = hi + (size_t)q * (size_t)nseg;
		for (int g = 0; g < nseg; g++)
			for (size_t i = ql[g]; i < qh[g]; i++)
				mine[i] = 1;
		for (int g = 0; g < nseg; g++)
			for (size_t i = ql[g]; i < qh[g]; i++)
				for (size_t b = rp[i]; b < rp[i + 1]; b++)
					if (!mine[col[b]])
						need[col[b]] = 1;
		for (size_t j = 0; j < np; j++) {
			if (!need[j])
				continue;
			need[j] = 0;
			if (q == sp->rank) {
				if (ridx)
					ridx[rcnt[owner[j]]] = (uint32_t)j;
				rcnt[owner[j]]++;
			} else if (owner[j] == sp->rank) {
				if (sidx)
					sidx[scnt[q]] = (uint32_t)j;
				scnt[q]++;
			}
		}
		for (int g = 0; g < nseg; g++)
			for (size_t i = ql[g]; i < qh[g]; i++)
				mine[i] = 0;
	}
}

int
cloth_halo_build(cloth_halo *h, const cloth_split *sp, size_t np,
		 const size_t *rp, const uint32_t *col, int nseg,
		 const size_t *lo, const size_t *hi, const uint8_t *owner,
		 slc_err *err)
{
	size_t scnt[CLOTH_SPLIT_MAX] = { 0 }, rcnt[CLOTH_SPLIT_MAX] = { 0 };
	uint8_t *mine = slc_calloc(np + 1, 1, err);
	uint8_t *need = slc_calloc(np + 1, 1, err);
	int P = sp->size, k = 0;

	memset(h, 0, sizeof *h);
	if (!mine || !need) {
		free(mine);
		free(need);
		return -1;
	}
	halo_pass(sp, np, rp, col, nseg, lo, hi, owner, mine, need, scnt,
		  rcnt, NULL, NULL);
	h->soff = slc_calloc((size_t)P + 1, sizeof *h->soff, err);
	h->roff = slc_calloc((size_t)P + 1, sizeof *h->roff, err);
	if (!h->soff || !h->roff)
		goto fail;
	for (int q = 0; q < P; q++) {
		if (!scnt[q] && !rcnt[q])
			continue;
		h->peer[k] = q;
		h->soff[k + 1] = h->soff[k] + scnt[q];
		h->roff[k + 1] = h->roff[k] + rcnt[q];
		k++;
	}
	h->npeer = k;
	h->sidx = slc_calloc(h->soff[k] + 1, sizeof *h->sidx, err);
	h->ridx = slc_calloc(h->roff[k] + 1, sizeof *h->ridx, err);
	h->sbuf = slc_calloc(3 * h->soff[k] + 1, sizeof *h->sbuf, err);
	h->rbuf = slc_calloc(3 * h->roff[k] + 1, sizeof *h->rbuf, err);
	if (!h->sidx || !h->ridx || !h->sbuf || !h->rbuf)
		goto fail;
	/* the lists at each peer's offset (the counts run from there) */
	for (int j = 0; j < k; j++) {
		scnt[h->peer[j]] = h->soff[j];
		rcnt[h->peer[j]] = h->roff[j];
	}
	halo_pass(sp, np, rp, col, nseg, lo, hi, owner, mine, need, scnt,
		  rcnt, h->sidx, h->ridx);
	for (int j = 0; j < k; j++) {
		h->sp_[j] = h->sbuf + 3 * h->soff[j];
		h->rp_[j] = h->rbuf + 3 * h->roff[j];
		h->sb_[j] = 3 * (h->soff[j + 1] - h->soff[j]) * sizeof(double);
		h->rb_[j] = 3 * (h->roff[j + 1] - h->roff[j]) * sizeof(double);
	}
	free(mine);
	free(need);
	return 0;
fail:
	free(mine);
	free(need);
	cloth_halo_free(h);
	return -1;
}

int
cloth_halo_swap(cloth_split *sp, cloth_halo *h, double *a)
{
	const size_t ns = h->soff ? h->soff[h->npeer] : 0;
	const size_t nr = h->roff ? h->roff[h->npeer] : 0;
	double t0;
	int rc;

	if (!sp || sp->size == 1)
		return 0;
	if (sp->failed)
		return -1;
	for (size_t k = 0; k < ns; k++)
		memcpy(h->sbuf + 3 * k, a + 3 * (size_t)h->sidx[k], 3 * sizeof *a);
	t0 = split_clock();
	rc = sp->swap(sp->ctx, h->npeer, h->peer, h->sp_, h->sb_, h->rp_, h->rb_);
	sp->t_comm += split_clock() - t0;
	if (rc) {
		sp->failed = 1;
		return -1;
	}
	for (size_t k = 0; k < nr; k++)
		memcpy(a + 3 * (size_t)h->ridx[k], h->rbuf + 3 * k, 3 * sizeof *a);
	return 0;
}
