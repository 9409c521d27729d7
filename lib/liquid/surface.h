/* surface.h: indexed triangle meshes made by the surfacer: storage, the
 * mesh record, measures (area, enclosed volume), topology checks
 * (closed, 2-manifold, consistently oriented, no degenerate triangle) and
 * volume-keeping Taubin smoothing.
 *
 * Triangles are counter-clockwise seen from outside: the normal
 * (P1-P0)x(P2-P0) points towards positive phi (formats/slc.md, "Kinds").
 */
#ifndef SLC_SURFACE_H
#define SLC_SURFACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/slc.h"

typedef struct surf_mesh {
	size_t nv, nt;      /* vertices, triangles */
	float *P;           /* 3*nv positions, metres */
	float *N;           /* 3*nv unit normals, towards positive phi */
	uint32_t *tri;      /* 3*nt vertex indices */
} surf_mesh;

/* Measures and topology of a mesh (surf_check). */
typedef struct surf_stats {
	double area;        /* sum of triangle areas, m^2 */
	double volume;      /* signed enclosed volume (divergence theorem), m^3;
	                       positive for an outward-oriented closed mesh */
	double min_area;    /* smallest triangle area */
	double min_edge;    /* shortest edge length */
	size_t nedges;      /* undirected edges */
	size_t boundary;    /* edges used by one triangle */
	size_t nonmanifold; /* edges used by three or more triangles */
	size_t misoriented; /* edges whose two triangles traverse it the same way */
	size_t degenerate;  /* triangles with a repeated vertex or zero area */
	size_t unused;      /* vertices no triangle uses */
	long euler;         /* V - E + F over used vertices */
} surf_stats;

/* Free the arrays and zero the mesh. */
void surf_mesh_free(surf_mesh *m);

/* Grow the arrays to hold nv vertices and nt triangles (contents kept,
 * new memory zeroed is not promised).  0 or -1 with err. */
int surf_mesh_reserve(surf_mesh *m, size_t nv, size_t nt, slc_err *err);

/* Build a mesh record named `name` at time `time` with channels "P"
 * f32x3, "N" f32x3 (point) and "tri" u32x3 (prim).  r must be empty.  The
 * vertex count must fit in 32 bits. */
int surf_mesh_to_rec(const surf_mesh *m, slc_rec *r, const char *name,
		     double time, slc_err *err);

/* Area, signed volume and topology of m into st.  Edges are found by
 * sorting the 3*nt directed edges, so the check is exact and deterministic.
 * A mesh is a closed, consistently oriented 2-manifold without degenerate
 * triangles when boundary, nonmanifold, misoriented and degenerate are 0.
 * 0, or -1 with err (out of memory, index out of range). */
int surf_check(const surf_mesh *m, surf_stats *st, slc_err *err);

/* Volume-keeping smoothing: n passes of Taubin's lambda/mu umbrella
 * operator (Taubin 1995, "A signal processing approach to fair surface
 * design", lambda = 0.5, mu = -0.53), each followed by an offset of every
 * vertex along its area-weighted normal by (V0 - V)/A that restores the
 * enclosed volume V0 of the input (to second order; the residual is
 * reported in *vol_err as a fraction, when not NULL).  Normals N are
 * recomputed as area-weighted face normals; a caller with a level set
 * recomputes them from its gradient afterwards.  0 or -1 with err. */
int surf_smooth(surf_mesh *m, int n, double *vol_err, slc_err *err);

#endif
