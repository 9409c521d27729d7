/* rigid.h: rigid bodies in a frame, for the two-way coupled pressure solve
 * (batty2007 §3).
 *
 * A frame holds its dynamic rigid bodies as one particles record `rigid`,
 * one point per body:
 *   P        f32x3 or f64x3   centre of mass, m (world)
 *   mass     x1               kg
 *   inertia  x9               world-frame inertia tensor about P, kg m^2,
 *                             row-major (symmetric)
 *   v        x3               linear velocity, m/s
 *   omega    x3               angular velocity, rad/s (world)
 * (any numeric type; other channels, e.g. an orientation, pass through;
 * optional `scripted` x1: nonzero makes the body scripted, read with an
 * infinite mass: right-hand side only, velocity unchanged; rigid_move.h),
 * and their level sets as one cell-centred grid record `rigid_phi` on the
 * velocity's cells with one f32 channel per body, in point order, negative
 * inside the body.  Resting solids belong in `solid` (and `solid_vel`).
 */
#ifndef SLC_RIGID_H
#define SLC_RIGID_H

#include <stddef.h>

#include "fluid/pressure.h"
#include "core/slc.h"

/* Read the bodies of a `rigid` record into a new array (caller frees with
 * free()); fraction pointers are left NULL.  -1 with err on a missing
 * channel, a bad count, or a non-positive or non-finite mass. */
int rigid_read(const slc_rec *r, ps_body **body, int *nbody, slc_err *err);

/* Write each body's V back into the v and omega channels of r (in place,
 * in the channels' own type). */
int rigid_write(slc_rec *r, const ps_body *body, int nbody, slc_err *err);

/* Face weights with bodies: the fluid fractions wx, wy, wz are those of
 * min(solid, phi_0, ..., phi_{nbody-1}) (solid may be NULL), variational
 * or binary; each body's volume fractions (batty2007 §3.1: the volume of
 * the body in each face's control volume over dx^3) are allocated into
 * body[b].bx/by/bz (caller frees with rigid_free_fractions).  phib[b] is
 * body b's cell-centred level set, or NULL for a body shaped by a shell
 * (rigid_shell.h), whose fractions are left 0 for rigid_shells_cut.  0,
 * or -1 with err (memory). */
int rigid_weights(const float *solid, const float *const *phib, ps_body *body,
		  int nbody, int ni, int nj, int nk, int binary,
		  float *wx, float *wy, float *wz, slc_err *err);
void rigid_free_fractions(ps_body *body, int nbody);

/* The operator J of a body (batty2007 (10), (12)) on the cell grid, in
 * the per-cell columns g that psys_init builds (pressure.h): J x =
 * dx^2 sum_m g_m x_(cell m) and (J^T V)_(cell m) = dx^2 g_m . V.  Every
 * product of J and J^T in the pressure system goes through these three,
 * in this floating-point order. */

/* t += the terms m0 .. m1-1 of J x / dx^2 = sum over the body's cells m
 * of g_m x_(cell m), added one by one in order (six values; x over all
 * cells of the grid).  psys_init lists the cells in grid order, so the
 * cells of one k plane are one run m0 .. m1-1: the pressure system sums
 * J x from such plane partials, in plane order (pressure.c, bodies_J),
 * the same bits for any number of MPI ranks. */
void rigid_J_add(const ps_body *bd, const double *x, size_t m0, size_t m1, double t[6]);

/* V += kappa M^-1 t, row by row, each row adding its six terms in order:
 * the body's velocity change from J x (kappa = rho dx^3, batty2007 (2)),
 * or with V zero the M^-1 J x of the system's body term (§3.1). */
void rigid_minv_add(const ps_body *bd, double kappa, const double t[6], double V[6]);

/* (J^T U)_(cell m) / dx^2 = g_m . U for the body's m-th cell (U six
 * values: a velocity V, or M^-1 J x).  Inline: it runs once per surface
 * cell and body in every conjugate gradient iteration. */
static inline double
rigid_JT_cell(const ps_body *bd, size_t m, const double U[6])
{
	double d = 0;

	for (int r = 0; r < 6; r++)
		d += bd->g[6 * m + r] * U[r];
	return d;
}

#endif
