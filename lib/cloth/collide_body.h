/* collide_body.h: collision bodies as level sets, and the cloth-object
 * collision and friction of selle2008 thesis §6.5.
 *
 * A body is anything that can report, at a point x and time t, the signed
 * distance phi (negative inside), the unit outward normal N = grad phi and
 * the body velocity vB: an analytic shape (plane, sphere, rotating
 * cylinder) or a sampled `solid` grid with its `solid_vel` velocity,
 * either one key moved by its velocity or two keys in time interpolated
 * both ways (selle2008 thesis §7.5.1).
 */
#ifndef SLC_COLLIDE_BODY_H
#define SLC_COLLIDE_BODY_H

#include "grid/field.h"

enum body_shape { BODY_PLANE, BODY_SPHERE, BODY_CYLINDER, BODY_GRID };

typedef struct cloth_body cloth_body;
struct cloth_body {
	int shape;              /* enum body_shape */
	double mu;              /* friction coefficient */
	/* plane: point c, unit normal a.  sphere: centre c (moving with
	 * velocity vel), radius r.  cylinder: a line through c along unit a,
	 * radius r, half length hl (capped by flat ends), spinning about its
	 * axis at omega rad/s (right hand around a). */
	double c[3], a[3], vel[3], r, hl, omega;
	/* grid: solid level set at time t_grid, velocity field per axis
	 * (cell-centred like phi; NULL for a still body).  Between samples
	 * the body is moved rigidly by its local velocity:
	 * phi(x, t) = phi_grid(x - (t - t_grid) vB(x)).  Set up by
	 * body_grid_init, which fills eval.  A two-key body (body_grid2_init)
	 * has its second key at time t_next in phi_next, vb_next. */
	const field *phi;
	const field *vb[3];
	double t_grid;
	const field *phi_next;
	const field *vb_next[3];
	double t_next;
	void (*eval)(const struct cloth_body *b, double t, const double x[3],
		     double *phi, double N[3], double vB[3]);
};

/* Make b a grid body (BODY_GRID) on the level set phi and optional
 * velocity fields vb (NULL entries: zero), valid at time t_grid. */
void body_grid_init(cloth_body *b, const field *phi, const field *const vb[3],
		    double t_grid, double mu);

/* Make b a grid body (BODY_GRID) between two keys: the level set phi0
 * with velocity fields vb0 at time t0 and phi1 with vb1 at time t1 > t0
 * (NULL entries: zero; the two keys may lie on different grids).  With
 * alpha = (t - t0)/(t1 - t0) in [0, 1] and dt = t1 - t0, selle2008
 * thesis §7.5.1's two-sided semi-Lagrangian interpolation
 *   phi(x, alpha) = (1 - alpha) phi0(x - dt alpha vbar)
 *                 + alpha phi1(x + dt (1 - alpha) vbar),
 *   vbar = (v0(x) + v1(x))/2,
 * which equals phi0 at t0 and phi1 at t1 exactly, so the body is
 * continuous in time.  The normal is the unit (1 - alpha) grad phi0 +
 * alpha grad phi1 and the body velocity (1 - alpha) v0 + alpha v1, both
 * taken at the same two back- and forward-traced points.  Before t0 and
 * after t1 the nearest key is moved by its own velocity, as a one-key
 * body.  0, or -1 with err unless t0 < t1 (both finite). */
int body_grid2_init(cloth_body *b, const field *phi0,
		    const field *const vb0[3], double t0, const field *phi1,
		    const field *const vb1[3], double t1, double mu,
		    slc_err *err);

/* Signed distance, unit normal and body velocity at x and time t. */
void body_eval(const cloth_body *b, double t, const double x[3], double *phi,
	       double N[3], double vB[3]);

/* The velocity function Gamma of §6.5: v_* = Gamma(v).  Removes the
 * normal velocity into the body (v_*N = max(v_N, v_BN)) and applies
 * Coulomb friction mu proportional to the normal change:
 * v_*T = v_BT + max(0, 1 - mu (v_*N - v_N)/|v_T,rel|) v_T,rel. */
void body_gamma(const double v[3], const double N[3], const double vB[3],
		double mu, double out[3]);

#endif
