/* test_cloth_friction.c: cloth-object collisions and friction of
 * selle2008 thesis §6.5 against the analytic incline (figures 6.6-6.7):
 * a particle and a tetrahedron sliding on a plane tilted by theta = pi/5
 * under g = 9.8, accelerating (v0 = 0, mu = 0.6) and decelerating to a
 * stop (v0 = 1, mu = 0.9).  Position and velocity along the slope must
 * stay within 1% of v(t) = v0 + a t, x(t) = v0 t + a t^2 / 2,
 * a = (sin theta - mu cos theta) g (0 after stopping), for the whole run;
 * errors are relative to the largest analytic displacement and speed of
 * the run.  The tetrahedron also carries damped springs, so the projected CG solve
 * and the unprojected friction forces of §6.5 are exercised. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "cloth/cloth_vec.h"
#include "ctest.h"

#define G 9.8
#define THETA (M_PI / 5)
#define DT (1.0 / 240)
#define T_END 1.2
#define T_SETTLE 0.5
#define MU_HOLD 10.0
/* The tetrahedron: node mass and edge stiffness such that its springs
 * are resolved by the time step (omega dt ~ 0.4). */
#define MASS_TET 0.1
#define E_TET 40.0

static void
analytic(double v0, double mu, double t, double *x, double *v)
{
	double a = (sin(THETA) - mu * cos(THETA)) * G;
	if (a < 0 && t > -v0 / a)
		t = -v0 / a;            /* stopped: static friction holds */
	*v = v0 + a * t;
	*x = v0 * t + 0.5 * a * t * t;
}

/* Run np points (a particle, or a tetrahedron) down the incline;
 * returns the worst relative error of position and of velocity. */
static void
run(int tet, double v0, double mu, double *ex, double *ev)
{
	/* plane through the origin, normal N; downhill D; across Z */
	double N[3] = {-sin(THETA), cos(THETA), 0};
	double D[3] = {-cos(THETA), -sin(THETA), 0}, Z[3] = {0, 0, 1};
	double x[12], v[12], m[4];
	uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
	size_t np = tet ? 4 : 1, nt = tet ? 4 : 0;
	const double s = 0.1;
	cloth c;
	cloth_params par;
	cloth_body plane;
	slc_err err;

	memset(x, 0, sizeof x);
	for (int k = 0; k < 3; k++) {
		x[3 + k] = s * D[k];
		x[6 + k] = s * (0.5 * D[k] + Z[k]);
		x[9 + k] = s * (0.5 * D[k] + 0.4 * Z[k] + 0.8 * N[k]);
	}
	for (size_t i = 0; i < np; i++) {
		m[i] = MASS_TET;
		for (int k = 0; k < 3; k++)
			v[3 * i + k] = v0 * D[k];
	}
	cloth_params_default(&par);
	par.g[1] = -G;
	par.cg_tol = 1e-9;
	par.cg_max = 2000;
	par.spring.E_e = E_TET;
	par.spring.E_b = 0.1 * E_TET;
	memset(&plane, 0, sizeof plane);
	plane.shape = BODY_PLANE;
	memcpy(plane.a, N, sizeof N);
	plane.mu = mu;
	if (cloth_init(&c, np, nt, tri, x, v, NULL, m, &par, &err)) {
		CHECK(0, "init: %s", err.msg);
		return;
	}
	if (tet) {
		/* settle on the incline under static friction first, so
		 * that the springs carry the weight as in a rigid body */
		cloth_body hold = plane;
		hold.mu = MU_HOLD;
		for (int k = 0; k < (int)lround(T_SETTLE / DT); k++)
			cloth_step(&c, 0, DT, &hold, 1);
		memcpy(x, c.x, sizeof x);
		for (size_t i = 0; i < np; i++)
			for (int k = 0; k < 3; k++)
				c.v[3 * i + k] = v0 * D[k];
	}
	/* errors relative to the largest analytic displacement and speed
	 * of the run (pointwise relative errors blow up where the analytic
	 * curve crosses zero: at the start and where the body stops) */
	int n = (int)lround(T_END / DT);
	double xscale = 0, vscale = 0, dx = 0, dv = 0;
	for (int step = 1; step <= n; step++) {
		double t = step * DT, xa, va, xs = 0, vs = 0;
		cloth_step(&c, t - DT, DT, &plane, 1);
		for (size_t i = 0; i < np; i++) {
			double d[3];
			v3sub(c.x + 3 * i, x + 3 * i, d);
			xs += v3dot(d, D) / (double)np;
			vs += v3dot(c.v + 3 * i, D) / (double)np;
		}
		analytic(v0, mu, t, &xa, &va);
		xscale = fabs(xa) > xscale ? fabs(xa) : xscale;
		vscale = fabs(va) > vscale ? fabs(va) : vscale;
		dx = fabs(xs - xa) > dx ? fabs(xs - xa) : dx;
		dv = fabs(vs - va) > dv ? fabs(vs - va) : dv;
	}
	vscale = vscale > fabs(v0) ? vscale : fabs(v0);
	*ex = dx / xscale;
	*ev = dv / vscale;
	cloth_free(&c);
}

int
main(void)
{
	const char *what[2] = {"particle", "tetrahedron"};
	for (int tet = 0; tet < 2; tet++) {
		double ex, ev;
		run(tet, 0, 0.6, &ex, &ev);
		CHECK(ex < 0.01 && ev < 0.01, "%s accelerating (v0=0, mu=0.6): "
		      "worst error x %.2e, v %.2e", what[tet], ex, ev);
		run(tet, 1, 0.9, &ex, &ev);
		CHECK(ex < 0.01 && ev < 0.01, "%s decelerating to rest (v0=1, "
		      "mu=0.9): worst error x %.2e, v %.2e", what[tet], ex, ev);
	}
	return ctest_done();
}
