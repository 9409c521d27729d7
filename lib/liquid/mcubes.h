/* mcubes.h: marching cubes on a grid level set -> closed indexed mesh.
 *
 * Marching cubes (Lorensen and Cline 1987) over the lattice of a field's
 * samples (cell-centred, node or face samples alike: the cubes join sample
 * positions).  The case table is built at first use from one rule per
 * cube face, so neighbouring cubes always agree on their shared face and
 * the mesh has no cracks: on a face whose four corners alternate in sign
 * (the ambiguous face), the segments cut off the two outside corners, i.e.
 * the inside (phi < iso) diagonal stays connected.  Each closed loop of
 * face segments is triangulated without a diagonal between two points of
 * one cube face, so every mesh edge is shared by exactly two triangles.
 *
 * Beyond the grid the field is continued by reflection about the iso value
 * (a virtual layer of samples with value iso + |phi - iso| of the nearest
 * sample), which closes the surface half a sample outside the last samples:
 * the mesh is closed even where the liquid touches the domain walls.
 *
 * Vertices sit where the linear interpolant crosses iso, but never closer
 * than MC_SNAP_T (in units of the edge) to a sample: no edge of the mesh is
 * shorter than sqrt(2)*MC_SNAP_T*dx and no triangle is degenerate.  Shared
 * edge vertices are welded: the mesh is indexed.  Normals are the gradient
 * of the level set (central differences at the samples, interpolated along
 * the edge), pointing towards positive phi.
 *
 * Speed: the lattice is cut into blocks of MC_BLOCK^3 cubes; a block whose
 * samples do not straddle iso is skipped after one pass over its values.
 * Layers of blocks (k-slabs) are meshed in parallel (OpenMP) and merged in
 * slab order, so the output is the same bytes for any thread count.
 */
#ifndef SLC_MCUBES_H
#define SLC_MCUBES_H

#include "core/err.h"
#include "grid/field.h"
#include "liquid/surface.h"

#define MC_BLOCK 8                  /* cubes per block edge */
#define MC_SNAP_T 1e-3              /* nearest a vertex gets to a sample */

/* Mesh the surface phi = iso of f into m (m must be zeroed or freed; the
 * caller frees it with surf_mesh_free).  Samples must be finite.  Inside is
 * phi < iso; the triangles face towards phi >= iso.  0, or -1 with err (out
 * of memory, more than 2^32 vertices). */
int mc_mesh(const field *f, double iso, surf_mesh *m, slc_err *err);

/* Recompute m's normals as the normalized gradient of f at each vertex
 * position (trilinear interpolation of the central-difference gradients
 * at the samples, the same continuation beyond the grid as mc_mesh).  For
 * use after moving vertices, e.g. by surf_smooth. */
void mc_normals(const field *f, double iso, surf_mesh *m);

/* Check the generated case table: every case of the 256 has closed loops
 * of face segments, each loop triangulated without a diagonal on a cube
 * face.  Returns 0, or -1 with err naming the first bad case (for tests). */
int mc_table_check(slc_err *err);

#endif
