/* macgrid.h: a MAC velocity (u, v, w on x, y and z faces) as three fields,
 * and the point velocity, speed bounds and consistency checks built on it.
 *
 * The three fields share one cell grid (cell dims, origin, dx); u has one
 * more sample along x, v along y, w along z.  A 2D grid is a grid with one
 * cell along z (w then has two layers, usually zero).
 */
#ifndef SLC_MACGRID_H
#define SLC_MACGRID_H

#include "core/err.h"
#include "grid/field.h"

typedef struct macgrid {
	field u, v, w;
} macgrid;

/* Allocate a zeroed MAC velocity on nci x ncj x nck cells. 0 or -1. */
int mac_alloc(macgrid *m, int nci, int ncj, int nck, const double origin[3],
	      double dx, slc_err *err);

/* Allocate a zeroed MAC velocity on the same cells as g. */
int mac_alloc_like(macgrid *m, const macgrid *g, slc_err *err);

/* Free the three fields (those that are owned). */
void mac_free(macgrid *m);

/* Copy the samples of src into dst (same placement, checked). */
int mac_copy(macgrid *dst, const macgrid *src, slc_err *err);

/* Check that u, v, w are staggered on x, y, z faces of one cell grid.
 * 0, or -1 with err naming the mismatch. */
int mac_check(const macgrid *m, slc_err *err);

/* The component a (0 = u, 1 = v, 2 = w) as a field. */
field *mac_comp(macgrid *m, int a);
const field *mac_ccomp(const macgrid *m, int a);

/* Velocity at world position x (m/s): each component trilinearly
 * interpolated from its faces, clamped to the grid box. */
void mac_velocity(const macgrid *m, const double x[3], double vel[3]);

/* An upper bound of the point speed: sqrt(max|u|^2 + max|v|^2 + max|w|^2)
 * over all faces (m/s).  Used to size CFL time steps.  NaN when any face
 * holds a NaN, Inf when one holds an Inf (and none a NaN). */
double mac_max_speed(const macgrid *m);

/* mac_max_speed over the faces the fluid can see when a solid level set
 * `solid` (negative inside) is given: those whose centre is less than
 * MAC_SEEN_CELLS cells inside it; all faces with solid NULL.  Faces deeper
 * in a solid are read by no stencil of a point in the fluid, so their
 * values move nothing and must not shorten the time step.  NaN or Inf on
 * any face (seen or not) as for mac_max_speed. */
double mac_max_speed_seen(const macgrid *m, const field *solid);

/* The largest |u|, |v|, |w| over the faces of mac_max_speed_seen into
 * mx: 0, 1 when a face holds an Inf (and none a NaN), -1 when one holds a
 * NaN (mx then partly set).  The parts an MPI build reduces over ranks
 * (the maximum is exact) before mac_speed_of. */
int mac_max_comps_seen(const macgrid *m, const field *solid, double mx[3]);

/* sqrt(mx[0]^2 + mx[1]^2 + mx[2]^2), summed in that order. */
double mac_speed_of(const double mx[3]);

/* The trilinear stencil of a point reads faces at most one cell diagonal
 * (sqrt 3 cells) away: the depth, for a signed distance, of the faces a
 * stencil of a point outside the solid reaches. */
#define MAC_SEEN_CELLS 1.7320508075688772

/* 0 when every face velocity is finite; else -1 with err naming the
 * first component (in the order u, v, w) holding a NaN or Inf and its
 * first such sample: "field 'u': NaN at cell (i,j,k)" (i, j, k the
 * sample's index on that component's grid). */
int mac_check_finite(const macgrid *m, slc_err *err);

#endif
