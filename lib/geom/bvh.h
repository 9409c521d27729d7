/* bvh.h: an axis-aligned bounding box hierarchy over a triangle mesh, for
 * closest-point and ray queries (selle2008 thesis §4.3: "a standard
 * axis-aligned box hierarchy is used for the triangulated surface").
 *
 * The hierarchy borrows the vertex and triangle arrays: they must outlive
 * it and must not change (after the vertices move, call bvh_refit).  All
 * queries are read-only and may run concurrently from several threads.
 */
#ifndef SLC_BVH_H
#define SLC_BVH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct bvh_node {
	double lo[3], hi[3];    /* box of everything below */
	uint32_t first;         /* leaf: first slot in perm; inner: left child */
	uint32_t count;         /* leaf: triangle count (> 0); inner: 0 */
} bvh_node;

typedef struct bvh {
	const double *P;        /* borrowed: nv*3 vertex coordinates */
	const uint32_t *tri;    /* borrowed: nt*3 vertex indices */
	size_t nv, nt;
	bvh_node *node;         /* node[0] is the root; right child = left + 1 */
	size_t nnode;
	uint32_t *perm;         /* triangle indices in leaf order */
} bvh;

/* Result of a closest-point query. */
typedef struct bvh_hit {
	int64_t tri;            /* triangle index, or -1 if none within range */
	double d;               /* distance, metres */
	double cp[3];           /* closest point */
	double w[3];            /* its barycentric weights on tri */
} bvh_hit;

/* Build the hierarchy over nt triangles (indices < nv, checked).  Leaves
 * hold at most a few triangles; splits are at the median centroid along
 * the longest axis, so the build is deterministic.  0 or -1 with err. */
int bvh_build(bvh *b, const double *P, size_t nv, const uint32_t *tri,
	      size_t nt, slc_err *err);

/* Recompute the boxes after the vertices (same array) moved. */
void bvh_refit(bvh *b);

/* Release what the hierarchy allocated (not the borrowed arrays). */
void bvh_free(bvh *b);

/* Closest point on the mesh to x among points closer than dmax (use
 * INFINITY for no limit).  Ties go to the lowest triangle index, so the
 * answer does not depend on the tree layout.  Returns 1 and fills *h, or
 * 0 (h->tri = -1) when nothing is within dmax. */
int bvh_closest(const bvh *b, const double x[3], double dmax, bvh_hit *h);

/* First triangle hit by the ray o + t*d with t in [tmin, tmax] (d need not
 * be unit; t is in units of |d|).  Returns the triangle index and sets *t,
 * or -1 when the ray hits nothing. */
int64_t bvh_ray(const bvh *b, const double o[3], const double d[3],
		double tmin, double tmax, double *t);

/* Every crossing of the infinite axis-aligned line through q along `axis`
 * (0 x, 1 y, 2 z), counted robustly: a line through a shared edge or
 * vertex crosses exactly one of the triangles there (tri_axis_line).
 * fn(ctx, tri, t) is called once per crossed triangle with the coordinate
 * t along the axis, in no particular order. */
void bvh_axis_line(const bvh *b, int axis, const double q[3],
		   void (*fn)(void *ctx, uint32_t tri, double t), void *ctx);

#endif
