/* test_project_rigid: rigid balls coupled two ways with water through the
 * variational pressure solve (batty2007 §3).  A ball of 0.1 times the
 * water's density rises with the added-mass acceleration of a sphere and
 * settles floating with the submerged volume Archimedes gives; a ball of 3
 * times sinks with the added-mass acceleration.  Each step is the
 * time integration of batty2007 §3.2 without fluid advection: gravity on
 * fluid and body, the coupled pressure solve, the body moved with its new
 * velocity.  The free surface stays put (the tank is wide). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "pcg.h"
#include "pressure.h"
#include "rigid.h"

#define G 9.81
#define RHO 1000.0

enum { N = 20 };
static const double dx = 1.0 / N, level = 0.6, R = 0.16;

typedef struct tank {
	float *u[3], *w[3], *phi, *ball;
	ps_body body;
} tank;

static size_t
nface(int a)
{
	return (size_t)(N + (a == 0)) * (N + (a == 1)) * (N + (a == 2));
}

static void
tank_new(tank *t, double ratio, double y0)
{
	memset(t, 0, sizeof *t);
	for (int a = 0; a < 3; a++) {
		t->u[a] = calloc(nface(a), sizeof(float));
		t->w[a] = calloc(nface(a), sizeof(float));
	}
	t->phi = calloc((size_t)N * N * N, sizeof(float));
	t->ball = calloc((size_t)N * N * N, sizeof(float));
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++)
				t->phi[i + N * (j + N * k)] = (float)((j + 0.5) * dx - level);
	double m = ratio * RHO * 4.0 / 3 * M_PI * R * R * R;
	t->body.mass = m;
	t->body.inertia[0] = t->body.inertia[4] = t->body.inertia[8] = 0.4 * m * R * R;
	t->body.com[0] = 0.5, t->body.com[1] = y0, t->body.com[2] = 0.5;
}

static void
tank_free(tank *t)
{
	for (int a = 0; a < 3; a++)
		free(t->u[a]), free(t->w[a]);
	free(t->phi), free(t->ball);
}

/* One step: gravity, coupled projection, move the ball.  Returns the
 * iterations or -1. */
static int
step(tank *t, double dt)
{
	ps_body *b = &t->body;
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double x = (i + .5) * dx - b->com[0], y = (j + .5) * dx - b->com[1];
				double z = (k + .5) * dx - b->com[2];
				t->ball[i + N * (j + N * k)] = (float)(sqrt(x * x + y * y + z * z) - R);
			}
	const float *pb[1] = {t->ball};
	if (rigid_weights(NULL, pb, b, 1, N, N, N, 0, t->w[0], t->w[1], t->w[2], NULL))
		return -1;
	/* gravity on the fluid's interior faces and on the body */
	for (size_t f = 0; f < nface(1); f++) {
		int j = (int)(f / N % (N + 1));
		if (j > 0 && j < N)
			t->u[1][f] -= (float)(G * dt);
	}
	b->V[1] -= G * dt;
	psys ps;
	double o[3] = {0, 0, 0};
	if (psys_init(&ps, N, N, N, dx, o, RHO, t->w[0], t->w[1], t->w[2], t->phi, b, 1, NULL))
		return -1;
	double *rhs = calloc(ps.n, sizeof *rhs), *x = calloc(ps.n, sizeof *x);
	psys_rhs(&ps, t->u[0], t->u[1], t->u[2], NULL, rhs);
	pcg_opts po = {PCG_MG, 1e-7, 300};
	pcg_stats st;
	pcg_solve(&ps, rhs, x, &po, &st, NULL);
	psys_update(&ps, x, t->u[0], t->u[1], t->u[2], NULL);
	psys_free(&ps);
	rigid_free_fractions(b, 1);
	free(rhs), free(x);
	for (int a = 0; a < 3; a++)
		b->com[a] += b->V[a] * dt;
	return st.converged ? st.iters : -1;
}

/* Added-mass acceleration of a sphere from rest in unbounded fluid:
 * (rho_b - rho) g / (rho_b + rho/2), downward positive. */
static double
accel(double ratio)
{
	return (ratio - 1) * G / (ratio + 0.5);
}

static void
test_float(void)
{
	tank t;
	double dt = 0.015, y0 = 0.32;
	tank_new(&t, 0.1, y0);
	int ok = step(&t, dt) > 0;
	double a = -t.body.V[1] / dt;   /* downward acceleration of step 1 */
	CHECK(ok && a < 0 && fabs(a / accel(0.1) - 1) < 0.2,
	      "light ball: first acceleration %.3g m/s^2 up, added-mass sphere %.3g",
	      -a, -accel(0.1));
	double ymin = 1e9, ymax = -1e9, vmax = 0, wmax = 0;
	int steps = 200;
	for (int s = 1; s < steps && ok; s++) {
		ok &= step(&t, dt) > 0;
		if (s >= steps - 50) {
			ymin = fmin(ymin, t.body.com[1]), ymax = fmax(ymax, t.body.com[1]);
			vmax = fmax(vmax, fabs(t.body.V[1]));
		}
		wmax = fmax(wmax, fabs(t.body.V[3]) + fabs(t.body.V[4]) + fabs(t.body.V[5]));
	}
	/* Archimedes: a cap of height h with pi h^2 (3R - h)/3 = 0.1 * 4/3 pi R^3
	 * is under water: h = 0.3916 R (root of t^2 (3 - t) = 0.4) */
	double yeq = level + R - 0.3916 * R;
	CHECK(ok, "light ball: %d steps converged", steps);
	CHECK(fabs(0.5 * (ymin + ymax) - yeq) < 0.5 * dx,
	      "light ball floats at y = %.4f, Archimedes %.4f (dx %.4f)",
	      0.5 * (ymin + ymax), yeq, dx);
	CHECK(ymax - ymin < 0.25 * dx && vmax < 0.05,
	      "light ball settled: range %.3g m, speed %.3g m/s over the last 0.75 s",
	      ymax - ymin, vmax);
	CHECK(wmax < 1e-3, "light ball does not spin (|omega| <= %.3g)", wmax);
	tank_free(&t);
}

static void
test_sink(void)
{
	tank t;
	double dt = 0.01, y0 = 0.4;
	tank_new(&t, 3, y0);
	int ok = step(&t, dt) > 0;
	double a = -t.body.V[1] / dt;
	CHECK(ok && fabs(a / accel(3) - 1) < 0.2,
	      "heavy ball: first acceleration %.3g m/s^2 down, added-mass sphere %.3g",
	      a, accel(3));
	int down = 1, s = 1;
	for (; s < 100 && ok && t.body.com[1] > R + 2 * dx; s++) {
		double y = t.body.com[1];
		ok &= step(&t, dt) > 0;
		down &= t.body.com[1] < y;
	}
	CHECK(ok && down && t.body.com[1] <= R + 2 * dx,
	      "heavy ball sinks to the floor (y %.3f after %d steps)", t.body.com[1], s);
	tank_free(&t);
}

int
main(void)
{
	test_float();
	test_sink();
	return ctest_done();
}
