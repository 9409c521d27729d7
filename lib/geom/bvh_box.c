/* bvh_box.c: box hierarchy over caller boxes (see bvh_box.h). */
#include "geom/bvh_box.h"

#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4

typedef struct build_ctx {
	boxtree *t;
	const double *plo, *phi;
	double *cen;            /* 3n centroids */
} build_ctx;

static const double *sort_cen;
static int sort_axis;

static int
cmp_cen(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	double ci = sort_cen[3 * i + sort_axis], cj = sort_cen[3 * j + sort_axis];

	if (ci != cj)
		return ci < cj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void
node_box(build_ctx *b, uint32_t node, uint32_t lo, uint32_t n)
{
	double *L = b->t->lo + 3 * node, *H = b->t->hi + 3 * node;

	for (int k = 0; k < 3; k++) {
		L[k] = 1e300;
		H[k] = -1e300;
	}
	for (uint32_t s = lo; s < lo + n; s++) {
		uint32_t p = b->t->perm[s];
		for (int k = 0; k < 3; k++) {
			if (b->plo[3 * p + k] < L[k])
				L[k] = b->plo[3 * p + k];
			if (b->phi[3 * p + k] > H[k])
				H[k] = b->phi[3 * p + k];
		}
	}
}

/* Build the subtree of node over perm[lo, lo+n); nodes are allocated in
 * pairs at *next. */
static void
build(build_ctx *b, uint32_t node, uint32_t lo, uint32_t n, uint32_t *next)
{
	boxtree *t = b->t;

	node_box(b, node, lo, n);
	if (n <= LEAF_SIZE) {
		t->first[node] = lo;
		t->count[node] = n;
		return;
	}
	const double *L = t->lo + 3 * node, *H = t->hi + 3 * node;
	int ax = 0;
	for (int k = 1; k < 3; k++)
		if (H[k] - L[k] > H[ax] - L[ax])
			ax = k;
	sort_cen = b->cen;
	sort_axis = ax;
	qsort(t->perm + lo, n, sizeof *t->perm, cmp_cen);
	uint32_t left = *next;
	*next += 2;
	t->first[node] = left;
	t->count[node] = 0;
	build(b, left, lo, n / 2, next);
	build(b, left + 1, lo + n / 2, n - n / 2, next);
}

void
boxtree_free(boxtree *t)
{
	free(t->lo);
	free(t->hi);
	free(t->first);
	free(t->count);
	free(t->perm);
	free(t->plo);
	free(t->phi);
	memset(t, 0, sizeof *t);
}

int
boxtree_build(boxtree *t, size_t n, const double *lo, const double *hi,
	      slc_err *err)
{
	build_ctx b;
	size_t nn = 2 * (n ? n : 1);

	memset(t, 0, sizeof *t);
	if (n >= UINT32_MAX / 2)
		return slc_fail(err, "too many boxes (%zu)", n);
	t->n = n;
	t->lo = slc_calloc(3 * nn, sizeof *t->lo, err);
	t->hi = slc_calloc(3 * nn, sizeof *t->hi, err);
	t->first = slc_calloc(nn, sizeof *t->first, err);
	t->count = slc_calloc(nn, sizeof *t->count, err);
	t->perm = slc_calloc(n + 1, sizeof *t->perm, err);
	b.cen = slc_calloc(3 * n + 1, sizeof *b.cen, err);
	if (!t->lo || !t->hi || !t->first || !t->count || !t->perm || !b.cen) {
		free(b.cen);
		boxtree_free(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		t->perm[i] = (uint32_t)i;
		for (int k = 0; k < 3; k++)
			b.cen[3 * i + k] = 0.5 * (lo[3 * i + k] + hi[3 * i + k]);
	}
	b.t = t;
	b.plo = lo;
	b.phi = hi;
	if (n == 0) {
		t->nnode = 0;
		free(b.cen);
		return 0;
	}
	uint32_t next = 1;
	build(&b, 0, 0, (uint32_t)n, &next);
	t->nnode = next;
	/* leaves keep the primitive boxes, in leaf order */
	free(b.cen);
	t->plo = slc_calloc(3 * n, sizeof *t->plo, err);
	t->phi = slc_calloc(3 * n, sizeof *t->phi, err);
	if (!t->plo || !t->phi) {
		boxtree_free(t);
		return -1;
	}
	for (size_t s = 0; s < n; s++)
		for (int k = 0; k < 3; k++) {
			t->plo[3 * s + k] = lo[3 * t->perm[s] + k];
			t->phi[3 * s + k] = hi[3 * t->perm[s] + k];
		}
	return 0;
}

void
boxtree_query(const boxtree *t, const double lo[3], const double hi[3],
	      void (*fn)(void *ctx, uint32_t i), void *ctx)
{
	uint32_t stack[128];    /* median splits: depth <= log2(n) + 1 */
	int sp = 0;

	if (!t->nnode)
		return;
	stack[sp++] = 0;
	while (sp) {
		uint32_t nd = stack[--sp];
		const double *L = t->lo + 3 * nd, *H = t->hi + 3 * nd;
		if (L[0] > hi[0] || H[0] < lo[0] || L[1] > hi[1] || H[1] < lo[1] ||
		    L[2] > hi[2] || H[2] < lo[2])
			continue;
		if (t->count[nd]) {
			for (uint32_t s = t->first[nd]; s < t->first[nd] + t->count[nd]; s++) {
				const double *l = t->plo + 3 * s, *h = t->phi + 3 * s;
				if (l[0] > hi[0] || h[0] < lo[0] || l[1] > hi[1] ||
				    h[1] < lo[1] || l[2] > hi[2] || h[2] < lo[2])
					continue;
				fn(ctx, t->perm[s]);
			}
		} else {
			stack[sp++] = t->first[nd];
			stack[sp++] = t->first[nd] + 1;
		}
	}
}
