/* spray.h: spray particles of a liquid.
 *
 * guendelman2005 §4.4.2 / Enright et al. 2002: negative marker particles
 * that escape far from the level set are removed from the particle level
 * set; the water they stand for is kept as spray (as Foster and Fedkiw
 * 2001 do in the free surface model the thesis §2.9 builds on): each
 * particle is a small ball of water with a radius, a mass (from the radius
 * and the density of water) and a velocity, moving ballistically under
 * gravity.  When it lands in the liquid (phi < 0 at its centre) it is
 * removed, its sphere is unioned into phi and its momentum is given back
 * to the grid velocity.
 */
#ifndef SLC_SPRAY_H
#define SLC_SPRAY_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "core/slc.h"

#define SPRAY_WATER_DENSITY 1000.0      /* kg/m^3 */

/* Spray particles, structure of arrays. */
typedef struct spray {
	size_t n, cap;
	float *x;       /* 3n positions, m */
	float *v;       /* 3n velocities, m/s */
	float *r;       /* n radii, m */
} spray;

void spray_init(spray *s);
void spray_free(spray *s);
/* Append one particle; 0 or -1 (out of memory). */
int spray_push(spray *s, const double x[3], const double v[3], double r,
	       slc_err *err);

/* Mass of a ball of water of radius r (m), kg. */
double spray_mass(double r);

/* One ballistic step of dt seconds under gravity g (m/s^2): v += g dt,
 * x += v dt (symplectic Euler).  The box of phi's cell grid is a wall: a
 * particle leaving it is put back on the face and loses its velocity
 * component along that axis.  With a solid level set (may be NULL) a
 * particle that enters it is pushed back out along its normal and loses
 * the velocity going into it (pls_solid.h, guendelman2005 §4.4.2).
 * Particles whose centre then lies in the liquid (phi < 0) land: their
 * sphere phi_p(y) = |y - x_p| - r_p is unioned into phi (phi = min(phi,
 * phi_p)) at the samples within r_p + dx of the centre, their momentum
 * m v_p goes to the MAC velocity vel (may be NULL) by an inelastic merge
 * with the water of the faces around them (spray_give_momentum), and
 * they are removed.  Returns the number landed. */
size_t spray_step(spray *s, field *phi, const field *solid, macgrid *vel,
		  const double g[3], double dt);

/* Whether a spray particle's move from a to b meets a thin shell: 0 no,
 * 1 yes (it is put back at a, at rest), 2 yes and a is no place to stay
 * either (a shell sweeps over it: the particle is removed). */
typedef int (*spray_cross_fn)(void *ctx, const double a[3], const double b[3]);

/* spray_step with thin shells: a particle whose move crosses one
 * (cross) is put back where it started, at rest, or removed
 * (guendelman2005 §4.4.2 does so with the marker particles), before it
 * can land.  Returns the number landed; *removed (may be NULL) gets the
 * number removed. */
size_t spray_step_shell(spray *s, field *phi, const field *solid, macgrid *vel,
			const double g[3], double dt, spray_cross_fn cross, void *ctx,
			size_t *removed);

/* A ball of water of mass m (kg) and velocity v (m/s) at x joins the
 * liquid: for each component, the faces of the 8 around x (trilinear
 * weights w_f) merge with their share w_f m of it inelastically,
 *   u_f <- (M u_f + w_f m v) / (M + w_f m),  M = rho dx^3,
 * so that sum_f (M + w_f m) u_f after = sum_f M u_f before + m v: the
 * momentum of the water of those faces plus the particle's is kept
 * (Foster and Fedkiw 2001 return spray to the liquid; the merge is how
 * its momentum goes with it). */
void spray_give_momentum(macgrid *vel, const double x[3], const double v[3],
			 double m);

/* Total volume of the spray balls, m^3. */
double spray_volume(const spray *s);

/* The particles record `name`: P (f32 x3), v (f32 x3), radius (f32),
 * mass (f32, kg; derived from radius).  0 or -1. */
int spray_to_rec(const spray *s, slc_rec *r, const char *name, double time,
		 slc_err *err);
/* Read P, v and radius from a particles record (mass is recomputed).
 * -1 with err on missing channels or non-finite values. */
int spray_from_rec(spray *s, const slc_rec *r, slc_err *err);

#endif
