/* test_bvh_box: the box hierarchy of lib/geom/bvh_box.h over boxes with
 * many equal centroids: every inner node splits its primitives at the
 * median of its longest axis (centroid, then index: the order of a full
 * sort), every leaf's primitives come in that order of its parent, and a
 * query finds exactly the boxes a brute-force test finds. */
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "geom/bvh_box.h"

#define N 3001

static double lo[3 * N], hi[3 * N];

/* A centroid key: coordinate ax of primitive i, then its index. */
static int
key_le(uint32_t i, uint32_t j, int ax)
{
	double ci = lo[3 * i + ax] + hi[3 * i + ax];
	double cj = lo[3 * j + ax] + hi[3 * j + ax];

	return ci < cj || (ci == cj && i <= j);
}

/* Longest axis of node nd's box, as the build picks it. */
static int
axis(const boxtree *t, uint32_t nd)
{
	const double *L = t->lo + 3 * nd, *H = t->hi + 3 * nd;
	int ax = 0;

	for (int k = 1; k < 3; k++)
		if (H[k] - L[k] > H[ax] - L[ax])
			ax = k;
	return ax;
}

/* Check node nd; its primitives' leaf-order range into *a, *b.  Counts
 * broken splits and leaves out of order into *bad. */
static void
walk(const boxtree *t, uint32_t nd, uint32_t *a, uint32_t *b, int *bad)
{
	if (t->count[nd]) {
		*a = t->first[nd];
		*b = t->first[nd] + t->count[nd];
		return;
	}
	uint32_t l = t->first[nd], a0, b0, a1, b1;
	int ax = axis(t, nd);

	walk(t, l, &a0, &b0, bad);
	walk(t, l + 1, &a1, &b1, bad);
	*a = a0;
	*b = b1;
	if (b0 != a1 || b0 - a0 != (b1 - a0) / 2)
		(*bad)++;
	/* every primitive left of every primitive right, along ax */
	for (uint32_t s = a0; s < b0; s++)
		for (uint32_t r = a1; r < b1; r++)
			if (!key_le(t->perm[s], t->perm[r], ax)) {
				(*bad)++;
				return;
			}
	/* a leaf child keeps its parent's sorted order */
	for (int c = 0; c < 2; c++) {
		uint32_t ch = l + (uint32_t)c;
		if (!t->count[ch])
			continue;
		for (uint32_t s = t->first[ch] + 1;
		     s < t->first[ch] + t->count[ch]; s++)
			if (!key_le(t->perm[s - 1], t->perm[s], ax))
				(*bad)++;
	}
}

typedef struct hits {
	uint8_t seen[N];
	int n, dup;
} hits;

static void
hit(void *ctx, uint32_t i)
{
	hits *h = ctx;

	if (h->seen[i])
		h->dup++;
	h->seen[i] = 1;
	h->n++;
}

int
main(void)
{
	boxtree t;
	slc_err err;
	unsigned r = 12345;

	/* centroids on a coarse lattice: many ties on every axis */
	for (int i = 0; i < N; i++) {
		for (int k = 0; k < 3; k++) {
			r = r * 1103515245u + 12345u;
			double c = (double)((r >> 16) % 17) * (k == 1 ? 0.5 : 1);
			r = r * 1103515245u + 12345u;
			double h = 0.1 + 0.05 * (double)((r >> 16) % 4);
			lo[3 * i + k] = c - h;
			hi[3 * i + k] = c + h;
		}
	}
	CHECK(boxtree_build(&t, N, lo, hi, &err) == 0, "built over %d boxes", N);
	uint32_t a, b;
	int bad = 0;
	walk(&t, 0, &a, &b, &bad);
	CHECK(bad == 0 && a == 0 && b == N,
	      "every split at the median of its longest axis, leaves in "
	      "their parent's order (%d wrong)", bad);
	int miss = 0, dup = 0;
	for (int q = 0; q < 200; q++) {
		hits h;
		double ql[3], qh[3];
		memset(&h, 0, sizeof h);
		for (int k = 0; k < 3; k++) {
			r = r * 1103515245u + 12345u;
			ql[k] = (double)((r >> 16) % 170) / 10 - 0.5;
			qh[k] = ql[k] + 0.3 * (double)(q % 7);
		}
		boxtree_query(&t, ql, qh, hit, &h);
		for (int i = 0; i < N; i++) {
			int over = 1;
			for (int k = 0; k < 3; k++)
				if (lo[3 * i + k] > qh[k] || hi[3 * i + k] < ql[k])
					over = 0;
			if (over != h.seen[i])
				miss++;
		}
		dup += h.dup;
	}
	CHECK(miss == 0 && dup == 0, "200 queries find exactly the overlapping "
	      "boxes, each once (%d wrong, %d twice)", miss, dup);
	boxtree_free(&t);
	return ctest_done();
}
