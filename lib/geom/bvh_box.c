/* bvh_box.c: box hierarchy over caller boxes (see bvh_box.h). */
#include "geom/bvh_box.h"

#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4

typedef struct build_ctx {
	boxtree *t;
	const double *plo, *phi;
	double *cen;            /* 3n centroids */
	struct cenkey *key;     /* n: split_half's work */
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

/* A primitive's centroid along the split axis, and its index: the key
 * of cmp_cen's total order. */
typedef struct cenkey {
	double c;
	uint32_t i;
} cenkey;

static inline int
key_less(const cenkey *a, const cenkey *b)
{
	return a->c < b->c || (a->c == b->c && a->i < b->i);
}

static inline void
key_swap(cenkey *a, cenkey *b)
{
	cenkey t = *a;
	*a = *b;
	*b = t;
}

/* Reorder perm[0, n) so that its first n / 2 are the n / 2 smallest in
 * cmp_cen's order along axis ax (each half in no particular order), by
 * selection in O(n) expected instead of a sort's O(n log n).  The keys
 * go to b->key first, so that the comparisons read them in order. */
static void
split_half(build_ctx *b, uint32_t *perm, uint32_t n, int ax)
{
	cenkey *k = b->key;
	uint32_t lo = 0, hi = n - 1, m = n / 2;

	for (uint32_t s = 0; s < n; s++) {
		k[s].c = b->cen[3 * (size_t)perm[s] + ax];
		k[s].i = perm[s];
	}
	/* Hoare selection of rank m, the pivot the median of three */
	while (hi > lo) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key_less(&k[mid], &k[lo]))
			key_swap(&k[mid], &k[lo]);
		if (key_less(&k[hi], &k[lo]))
			key_swap(&k[hi], &k[lo]);
		if (key_less(&k[hi], &k[mid]))
			key_swap(&k[hi], &k[mid]);
		cenkey piv = k[mid];
		uint32_t i = lo, j = hi;
		while (i <= j) {
			while (key_less(&k[i], &piv))
				i++;
			while (key_less(&piv, &k[j]))
				j--;
			if (i <= j) {
				key_swap(&k[i], &k[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* [lo, j] <= piv <= [i, hi] */
		if (m <= j)
			hi = j;
		else if (m >= i)
			lo = i;
		else
			break;
	}
	for (uint32_t s = 0; s < n; s++)
		perm[s] = k[s].i;
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
	if (n <= 2 * LEAF_SIZE + 1) {
		/* a child is a leaf, which keeps this order */
		sort_cen = b->cen;
		sort_axis = ax;
		qsort(t->perm + lo, n, sizeof *t->perm, cmp_cen);
	} else {
		/* both children sort again: only which half each primitive
		 * falls in matters, the same as a full sort's */
		split_half(b, t->perm + lo, n, ax);
	}
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
	b.key = slc_calloc(n + 1, sizeof *b.key, err);
	if (!t->lo || !t->hi || !t->first || !t->count || !t->perm || !b.cen ||
	    !b.key) {
		free(b.cen);
		free(b.key);
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
		free(b.key);
		return 0;
	}
	uint32_t next = 1;
	build(&b, 0, 0, (uint32_t)n, &next);
	t->nnode = next;
	/* leaves keep the primitive boxes, in leaf order */
	free(b.cen);
	free(b.key);
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
