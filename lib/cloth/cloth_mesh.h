/* cloth_mesh.h: triangle-mesh topology for cloth: unique edges, the pairs of
 * triangles that share an edge (bending elements), vertex normals and areas,
 * and a herring-bone sheet generator.
 *
 * selle2008 thesis §5.2: sheets are triangulated herring-bone so that the
 * bending directions are not biased; §5.3.3 / figure 5.1: edge springs on
 * every triangle edge and a bending element on every pair of triangles that
 * share an edge.  Vertex indices are uint32; positions are double x[3*i+c].
 */
#ifndef SLC_CLOTH_MESH_H
#define SLC_CLOTH_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct cloth_mesh {
	size_t np;              /* vertices */
	size_t nt;              /* triangles */
	uint32_t *tri;          /* 3*nt vertex indices (owned) */
	size_t ne;              /* unique edges */
	uint32_t *edge;         /* 2*ne, edge[2e] < edge[2e+1] */
	uint32_t *edge_tri;     /* 2*ne adjacent triangles; UINT32_MAX if none */
	size_t nb;              /* interior edges = bending elements */
	uint32_t *bend;         /* 4*nb: shared edge a,b then opposite c,d */
} cloth_mesh;

/* Build the topology of nt triangles over np vertices (tri is copied).
 * Fails on an index out of range, a degenerate triangle (repeated index)
 * or an edge shared by more than two triangles (non-manifold).  0 / -1. */
int cloth_mesh_build(cloth_mesh *m, size_t np, size_t nt, const uint32_t *tri,
		     slc_err *err);

void cloth_mesh_free(cloth_mesh *m);

/* A sheet of nu x nv quads (nu+1)*(nv+1) vertices in the plane spanned by
 * the unit axes eu and ev from corner o, size su x sv metres, triangulated
 * herring-bone (diagonals alternating by column).  Allocates *x (3*np
 * doubles) and *tri (3*nt); caller frees.  0 / -1. */
int cloth_sheet(int nu, int nv, const double o[3], const double eu[3],
		const double ev[3], double su, double sv, double **x,
		size_t *np, uint32_t **tri, size_t *nt, slc_err *err);

/* Area-weighted vertex normals (unit, zero for isolated vertices) and
 * vertex areas (a third of the adjacent triangle areas) at positions x.
 * n is 3*np, area np; either may be NULL. */
void cloth_mesh_normals(const cloth_mesh *m, const double *x, double *n,
			double *area);

#endif
