/* collide_grid.c: collision bodies sampled from `solid` level-set grids
 * and their `solid_vel` velocities (see collide_body.h): one key moved
 * rigidly by its local velocity, or two keys interpolated both ways in
 * time (selle2008 thesis §7.5.1, fig. 7.7c). */
#include "cloth/collide_body.h"

#include <math.h>
#include <string.h>

#include "cloth/cloth_vec.h"

/* The velocity fields vb (NULL entries: zero) at x. */
static void
vel_at(const field *const vb[3], const double x[3], double v[3])
{
	for (int k = 0; k < 3; k++)
		v[k] = vb[k] ? field_sample(vb[k], x) : 0;
}

/* N made unit; a vanishing gradient (flat level set) gives +y. */
static void
unit_or_up(double N[3])
{
	double l = v3norm(N);

	if (l > 0) {
		v3scale(1 / l, N);
	} else {
		N[0] = 0;
		N[1] = 1;
		N[2] = 0;
	}
}

/* One key phi, vb at time tk seen at time t: the body moved rigidly by
 * its local velocity, phi(x - (t - tk) vB(x)). */
static void
key_eval(const field *phi_k, const field *const vb[3], double tk, double t,
	 const double x[3], double *phi, double N[3], double vB[3])
{
	double xs[3];

	vel_at(vb, x, vB);
	for (int k = 0; k < 3; k++)
		xs[k] = x[k] - (t - tk) * vB[k];
	*phi = field_sample(phi_k, xs);
	field_gradient(phi_k, xs, N);
	unit_or_up(N);
}

static void
grid_eval(const cloth_body *b, double t, const double x[3], double *phi,
	  double N[3], double vB[3])
{
	key_eval(b->phi, b->vb, b->t_grid, t, x, phi, N, vB);
}

/* Two keys, selle2008 thesis §7.5.1: trace back along the mean velocity
 * vbar to the first key and forward to the second, and blend both ways.
 * At alpha = 0 the second term has weight 0 and x0 = x, so phi = phi0(x)
 * exactly; likewise phi1(x) at alpha = 1. */
static void
grid2_eval(const cloth_body *b, double t, const double x[3], double *phi,
	   double N[3], double vB[3])
{
	double dt = b->t_next - b->t_grid, alpha, v0[3], v1[3], vbar[3];
	double x0[3], x1[3], g0[3], g1[3];

	if (t <= b->t_grid) {
		key_eval(b->phi, b->vb, b->t_grid, t, x, phi, N, vB);
		return;
	}
	if (t >= b->t_next) {
		key_eval(b->phi_next, b->vb_next, b->t_next, t, x, phi, N, vB);
		return;
	}
	alpha = (t - b->t_grid) / dt;
	vel_at(b->vb, x, v0);
	vel_at(b->vb_next, x, v1);
	for (int k = 0; k < 3; k++) {
		vbar[k] = 0.5 * (v0[k] + v1[k]);
		x0[k] = x[k] - dt * alpha * vbar[k];
		x1[k] = x[k] + dt * (1 - alpha) * vbar[k];
	}
	*phi = (1 - alpha) * field_sample(b->phi, x0) +
	       alpha * field_sample(b->phi_next, x1);
	field_gradient(b->phi, x0, g0);
	field_gradient(b->phi_next, x1, g1);
	/* the body's velocity where its two keys were sampled: the material
	 * point now at x was near x0 at t0 and will be near x1 at t1 */
	vel_at(b->vb, x0, v0);
	vel_at(b->vb_next, x1, v1);
	for (int k = 0; k < 3; k++) {
		N[k] = (1 - alpha) * g0[k] + alpha * g1[k];
		vB[k] = (1 - alpha) * v0[k] + alpha * v1[k];
	}
	unit_or_up(N);
}

void
body_grid_init(cloth_body *b, const field *phi, const field *const vb[3],
	       double t_grid, double mu)
{
	memset(b, 0, sizeof *b);
	b->shape = BODY_GRID;
	b->phi = phi;
	for (int k = 0; k < 3; k++)
		b->vb[k] = vb ? vb[k] : NULL;
	b->t_grid = t_grid;
	b->mu = mu;
	b->eval = grid_eval;
}

int
body_grid2_init(cloth_body *b, const field *phi0, const field *const vb0[3],
		double t0, const field *phi1, const field *const vb1[3],
		double t1, double mu, slc_err *err)
{
	body_grid_init(b, phi0, vb0, t0, mu);
	if (!(isfinite(t0) && isfinite(t1) && t0 < t1))
		return slc_fail(err, "body keys at times %g and %g: the second must come later",
				t0, t1);
	b->phi_next = phi1;
	for (int k = 0; k < 3; k++)
		b->vb_next[k] = vb1 ? vb1[k] : NULL;
	b->t_next = t1;
	b->eval = grid2_eval;
	return 0;
}
