/* bvh.c: build and query the axis-aligned box hierarchy of bvh.h. */
#include "geom/bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/tri.h"

#define BVH_LEAF_MAX 4          /* triangles per leaf */
#define BVH_STACK 128           /* depth bound: median splits halve, 2^64 */

typedef struct build_ctx {
	bvh *b;
	double *cen;            /* nt*3 centroids */
	int axis;
} build_ctx;

static const double *
vtx(const bvh *b, uint32_t t, int c)
{
	return b->P + 3 * (size_t)b->tri[3 * (size_t)t + c];
}

static void
tri_box(const bvh *b, uint32_t t, double lo[3], double hi[3])
{
	int c, m;

	for (m = 0; m < 3; m++)
		lo[m] = hi[m] = vtx(b, t, 0)[m];
	for (c = 1; c < 3; c++)
		for (m = 0; m < 3; m++) {
			double x = vtx(b, t, c)[m];
			if (x < lo[m])
				lo[m] = x;
			if (x > hi[m])
				hi[m] = x;
		}
}

static void
node_box(bvh *b, bvh_node *n)
{
	int m;

	if (n->count) {
		uint32_t s;
		for (m = 0; m < 3; m++)
			n->lo[m] = INFINITY, n->hi[m] = -INFINITY;
		for (s = n->first; s < n->first + n->count; s++) {
			double lo[3], hi[3];
			tri_box(b, b->perm[s], lo, hi);
			for (m = 0; m < 3; m++) {
				if (lo[m] < n->lo[m])
					n->lo[m] = lo[m];
				if (hi[m] > n->hi[m])
					n->hi[m] = hi[m];
			}
		}
	} else {
		bvh_node *l = &b->node[n->first], *r = l + 1;
		for (m = 0; m < 3; m++) {
			n->lo[m] = fmin(l->lo[m], r->lo[m]);
			n->hi[m] = fmax(l->hi[m], r->hi[m]);
		}
	}
}

/* Partial sort of perm[lo..hi) so that the median (by centroid along
 * axis, ties by triangle index) is at mid: quickselect. */
static int
less(const build_ctx *c, uint32_t x, uint32_t y)
{
	double a = c->cen[3 * (size_t)x + c->axis];
	double bb = c->cen[3 * (size_t)y + c->axis];

	return a < bb || (a == bb && x < y);
}

static void
select_median(const build_ctx *c, uint32_t *p, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	/* Quickselect with Lomuto partitions; `less` is a strict total order
	 * (ties broken by index), so the result is unique. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, store = lo, i;
		uint32_t pivot = p[mid], tmp;
		p[mid] = p[hi];
		p[hi] = pivot;
		for (i = lo; i < hi; i++)
			if (less(c, p[i], pivot)) {
				tmp = p[i], p[i] = p[store], p[store] = tmp;
				store++;
			}
		p[hi] = p[store];
		p[store] = pivot;
		if (store == k)
			return;
		if (k < store)
			hi = store - 1;
		else
			lo = store + 1;
	}
}

/* Build node `ni` over perm[first .. first+count). */
static void
build_rec(build_ctx *c, size_t ni, uint32_t first, uint32_t count)
{
	bvh *b = c->b;
	bvh_node *n = &b->node[ni];
	double lo[3] = { INFINITY, INFINITY, INFINITY };
	double hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	uint32_t s, half;
	int m, axis = 0;
	size_t left;

	if (count <= BVH_LEAF_MAX) {
		n->first = first;
		n->count = count;
		node_box(b, n);
		return;
	}
	for (s = first; s < first + count; s++)
		for (m = 0; m < 3; m++) {
			double x = c->cen[3 * (size_t)b->perm[s] + m];
			lo[m] = fmin(lo[m], x);
			hi[m] = fmax(hi[m], x);
		}
	for (m = 1; m < 3; m++)
		if (hi[m] - lo[m] > hi[axis] - lo[axis])
			axis = m;
	c->axis = axis;
	half = count / 2;
	select_median(c, b->perm + first, count, half);
	left = b->nnode;
	b->nnode += 2;
	n->first = (uint32_t)left;
	n->count = 0;
	build_rec(c, left, first, half);
	build_rec(c, left + 1, first + half, count - half);
	node_box(b, &b->node[ni]);
}

int
bvh_build(bvh *b, const double *P, size_t nv, const uint32_t *tri,
	  size_t nt, slc_err *err)
{
	build_ctx c;
	size_t t;
	int m;

	memset(b, 0, sizeof *b);
	if (nt == 0)
		return slc_fail(err, "mesh has no triangles");
	if (nt > UINT32_MAX / 2)
		return slc_fail(err, "mesh has too many triangles (%zu)", nt);
	for (t = 0; t < 3 * nt; t++)
		if (tri[t] >= nv)
			return slc_fail(err,
					"triangle %zu: vertex index %u out of range (%zu vertices)",
					t / 3, tri[t], nv);
	for (t = 0; t < 3 * nv; t++)
		if (!isfinite(P[t]))
			return slc_fail(err, "vertex %zu is not finite", t / 3);
	b->P = P;
	b->tri = tri;
	b->nv = nv;
	b->nt = nt;
	b->node = slc_calloc(2 * nt, sizeof *b->node, err);
	b->perm = slc_calloc(nt, sizeof *b->perm, err);
	c.cen = slc_calloc(nt, 3 * sizeof(double), err);
	if (!b->node || !b->perm || !c.cen) {
		free(c.cen);
		bvh_free(b);
		return -1;
	}
	for (t = 0; t < nt; t++) {
		b->perm[t] = (uint32_t)t;
		for (m = 0; m < 3; m++)
			c.cen[3 * t + m] = (vtx(b, (uint32_t)t, 0)[m] +
					    vtx(b, (uint32_t)t, 1)[m] +
					    vtx(b, (uint32_t)t, 2)[m]) / 3;
	}
	c.b = b;
	b->nnode = 1;
	build_rec(&c, 0, 0, (uint32_t)nt);
	free(c.cen);
	return 0;
}

static void
refit_rec(bvh *b, size_t ni)
{
	bvh_node *n = &b->node[ni];

	if (!n->count) {
		refit_rec(b, n->first);
		refit_rec(b, n->first + 1);
	}
	node_box(b, n);
}

void
bvh_refit(bvh *b)
{
	if (b->nnode)
		refit_rec(b, 0);
}

void
bvh_free(bvh *b)
{
	free(b->node);
	free(b->perm);
	memset(b, 0, sizeof *b);
}

/* Squared distance from x to a box. */
static double
box_d2(const bvh_node *n, const double x[3])
{
	double d2 = 0;
	int m;

	for (m = 0; m < 3; m++) {
		double e = 0;
		if (x[m] < n->lo[m])
			e = n->lo[m] - x[m];
		else if (x[m] > n->hi[m])
			e = x[m] - n->hi[m];
		d2 += e * e;
	}
	return d2;
}

int
bvh_closest(const bvh *b, const double x[3], double dmax, bvh_hit *h)
{
	uint32_t stack[BVH_STACK];
	int sp = 0;
	double best = dmax * dmax;
	int found = 0;

	h->tri = -1;
	h->d = dmax;
	if (!b->nnode)
		return 0;
	stack[sp++] = 0;
	while (sp) {
		const bvh_node *n = &b->node[stack[--sp]];
		if (box_d2(n, x) > best)
			continue;
		if (n->count) {
			uint32_t s;
			for (s = n->first; s < n->first + n->count; s++) {
				uint32_t t = b->perm[s];
				double cp[3], w[3];
				double d2 = tri_closest(x, vtx(b, t, 0), vtx(b, t, 1),
							vtx(b, t, 2), cp, w);
				if (d2 < best || (d2 == best && found &&
						  (int64_t)t < h->tri) ||
				    (d2 == best && !found)) {
					best = d2;
					found = 1;
					h->tri = t;
					memcpy(h->cp, cp, sizeof cp);
					memcpy(h->w, w, sizeof w);
				}
			}
		} else {
			/* Visit the nearer child first: push it last. */
			const bvh_node *l = &b->node[n->first];
			double dl = box_d2(l, x), dr = box_d2(l + 1, x);
			if (dl <= dr) {
				stack[sp++] = n->first + 1;
				stack[sp++] = n->first;
			} else {
				stack[sp++] = n->first;
				stack[sp++] = n->first + 1;
			}
		}
	}
	if (found)
		h->d = sqrt(best);
	return found;
}

/* Slab test of the ray against a box; returns 1 if [t0, t1] overlaps. */
static int
ray_box(const bvh_node *n, const double o[3], const double inv[3],
	double t0, double t1)
{
	int m;

	for (m = 0; m < 3; m++) {
		double a = (n->lo[m] - o[m]) * inv[m];
		double c = (n->hi[m] - o[m]) * inv[m];
		if (isnan(a) || isnan(c)) {
			/* d[m] == 0 and o on a slab plane: inside iff within */
			if (o[m] < n->lo[m] || o[m] > n->hi[m])
				return 0;
			continue;
		}
		if (a > c) {
			double s = a;
			a = c;
			c = s;
		}
		if (a > t0)
			t0 = a;
		if (c < t1)
			t1 = c;
		if (t0 > t1)
			return 0;
	}
	return 1;
}

int64_t
bvh_ray(const bvh *b, const double o[3], const double d[3], double tmin,
	double tmax, double *t)
{
	uint32_t stack[BVH_STACK];
	int sp = 0, m;
	double inv[3], best = tmax;
	int64_t hit = -1;

	if (!b->nnode)
		return -1;
	for (m = 0; m < 3; m++)
		inv[m] = 1 / d[m];
	stack[sp++] = 0;
	while (sp) {
		const bvh_node *n = &b->node[stack[--sp]];
		if (!ray_box(n, o, inv, tmin, best))
			continue;
		if (n->count) {
			uint32_t s;
			for (s = n->first; s < n->first + n->count; s++) {
				uint32_t tr = b->perm[s];
				double tt;
				if (tri_ray(o, d, vtx(b, tr, 0), vtx(b, tr, 1),
					    vtx(b, tr, 2), tmin, best, &tt) &&
				    (tt < best || hit < 0 ||
				     (tt == best && (int64_t)tr < hit))) {
					best = tt;
					hit = tr;
				}
			}
		} else {
			stack[sp++] = n->first + 1;
			stack[sp++] = n->first;
		}
	}
	if (hit >= 0)
		*t = best;
	return hit;
}

void
bvh_axis_line(const bvh *b, int axis, const double q[3],
	      void (*fn)(void *ctx, uint32_t tri, double t), void *ctx)
{
	uint32_t stack[BVH_STACK];
	int sp = 0;
	int u = (axis + 1) % 3, v = (axis + 2) % 3;

	if (!b->nnode)
		return;
	stack[sp++] = 0;
	while (sp) {
		const bvh_node *n = &b->node[stack[--sp]];
		if (q[u] < n->lo[u] || q[u] > n->hi[u] || q[v] < n->lo[v] ||
		    q[v] > n->hi[v])
			continue;
		if (n->count) {
			uint32_t s;
			for (s = n->first; s < n->first + n->count; s++) {
				uint32_t tr = b->perm[s];
				double t;
				if (tri_axis_line(axis, q, vtx(b, tr, 0),
						  vtx(b, tr, 1), vtx(b, tr, 2),
						  &t))
					fn(ctx, tr, t);
			}
		} else {
			stack[sp++] = n->first + 1;
			stack[sp++] = n->first;
		}
	}
}
