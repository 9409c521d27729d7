/* vof_locate.h: which tet of a KDSM frame holds a point (lee2019 §3.2:
 * the tet each quadrature sample lies within), through the box tree of
 * geom/bvh_box.h over the tets, and the skin distance there (the node
 * `sdf` interpolated linearly inside the tet) for clamping moved nodes. */
#ifndef SLC_VOF_LOCATE_H
#define SLC_VOF_LOCATE_H

#include "core/err.h"
#include "geom/bvh_box.h"
#include "kdsm/kdsm.h"

/* Not from the paper: a point whose barycentrics are all above -this
 * lies in the tet (points on shared faces find one of the two). */
#define VOF_LOC_EPS 1e-10
/* Not from the paper: bisection steps that find where a moved node first
 * crosses the skin (§3.2 "clamped to that location"); 2^-30 of the move. */
#define VOF_CLAMP_ITERS 30

typedef struct vof_loc {
	const kdsm_mesh *m;
	boxtree bt;
} vof_loc;

/* Build the tree over every tet of m (vof_loc_find skips a tet of no
 * positive volume: a degenerate dead tet holds nothing).  m must outlive loc.  Not reentrant (the box
 * tree's build): build one at a time.  0, or -1 with err. */
int vof_loc_build(vof_loc *loc, const kdsm_mesh *m, slc_err *err);
void vof_loc_free(vof_loc *loc);

/* The tet holding x: a live one before a dead one, the lowest index
 * among equals; -1 outside the mesh.  b (may be NULL) receives its
 * barycentrics.  Safe to call from many threads. */
long vof_loc_find(const vof_loc *loc, const double x[3], double b[4]);

/* The skin's signed distance at x (m's sdf interpolated in the tet
 * holding x), or +INFINITY outside the mesh (the KDSM covers the skin). */
double vof_loc_sdf(const vof_loc *loc, const double x[3]);

/* Move p to p + d, stopping where the path first enters the skin (sdf
 * goes from >= 0 to < 0; VOF_CLAMP_ITERS bisections, the last point
 * outside kept); a start inside the skin moves freely.  Writes the end
 * into q; returns 1 if clamped, else 0. */
int vof_loc_move(const vof_loc *loc, const double p[3], const double d[3], double q[3]);

#endif
