/* bvh_box.h: an axis-aligned box hierarchy over arbitrary primitive boxes
 * (points, edges, triangles; swept and thickened), for the repulsion and
 * collision pair searches of selle2008 thesis §6.3-6.4 and §8.2.2.
 *
 * lib/geom/bvh.h is a hierarchy over a fixed triangle mesh for distance and ray
 * queries; the cloth searches need boxes that the caller computes (swept
 * over a time step, grown by the repulsion thickness) over points and
 * edges as well, so they use this one.
 */
#ifndef SLC_BVH_BOX_H
#define SLC_BVH_BOX_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct boxtree {
	size_t n;               /* primitives */
	size_t nnode;
	double *lo, *hi;        /* 3*nnode node boxes */
	uint32_t *first, *count;/* leaf: perm range; inner: count 0, first =
				   left child, right child = first + 1 */
	uint32_t *perm;         /* primitive indices in leaf order */
	double *plo, *phi;      /* 3n primitive boxes in leaf order */
} boxtree;

/* Build a hierarchy over n boxes (lo, hi: 3n each, copied into the leaves)
 * by median splits along the longest axis (deterministic; not reentrant:
 * build one tree at a time).  0 / -1. */
int boxtree_build(boxtree *t, size_t n, const double *lo, const double *hi,
		  slc_err *err);

void boxtree_free(boxtree *t);

/* Call fn(ctx, i) for every primitive i whose box overlaps [lo, hi]. */
void boxtree_query(const boxtree *t, const double lo[3], const double hi[3],
		   void (*fn)(void *ctx, uint32_t i), void *ctx);

#endif
