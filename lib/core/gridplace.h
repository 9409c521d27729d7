/* gridplace.h: whether two grids lie on the same cells: the one test of
 * grid placement (cell dims, dx, origin) that the stages and writers share.
 *
 * A placement is compared either exactly, where both grids come from one
 * record or from one computation, or within SLC_PLACE_ROUNDED, where a
 * stage reads grids that other stages computed (their origins and cell
 * sizes may differ in the last bits of a double).
 */
#ifndef SLC_GRIDPLACE_H
#define SLC_GRIDPLACE_H

#include "core/slc.h"

/* How far two placements may differ and still be one: |dx_a - dx_b| <=
 * dx * dx_b, and on each axis |origin_a - origin_b| <= origin * dx_b
 * (b is the reference grid). */
typedef struct slc_place_tol {
	double dx;      /* relative to b's dx */
	double origin;  /* in cells of b */
} slc_place_tol;

/* Exact placement: dx and origin equal as doubles. */
extern const slc_place_tol slc_place_exact;

/* Grids from other stages: dx to 1e-9 relative (SLC_PLACE_DX_TOL) and the
 * origin to 1e-6 of a cell (SLC_PLACE_ORIGIN_TOL).  Both are far above the
 * rounding of a double origin or dx computed as a sum or quotient of a few
 * thousand cell sizes (about 1e-13 relative), and far below anything a
 * float sample could tell apart (2^-24 of a cell). */
#define SLC_PLACE_DX_TOL 1e-9
#define SLC_PLACE_ORIGIN_TOL 1e-6
extern const slc_place_tol slc_place_rounded;

/* The cell dims of g: its sample dims, less one on each axis on which its
 * samples are staggered (node: all three, face x: i, ...). */
void slc_grid_cells(const slc_grid *g, int32_t cells[3]);

/* Do a and b cover the same cells: equal cell dims, and dx and origin
 * within tol of b's (staggering is not compared)?  1 or 0. */
int slc_grid_same_cells(const slc_grid *a, const slc_grid *b, const slc_place_tol *tol);

/* The same samples: equal staggering and slc_grid_same_cells.  1 or 0. */
int slc_grid_same_place(const slc_grid *a, const slc_grid *b, const slc_place_tol *tol);

#endif
