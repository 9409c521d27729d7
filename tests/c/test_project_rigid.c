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
#include "fluid/pcg.h"
#include "fluid/pressure.h"
#include "fluid/rigid.h"

#define G 9.81
#define RHO 1000.0

enum { N = 20 };
static const double dx = 1.0 / N, level = 0.6, R = 0.16;

typedef struct tank {
	float *u[3], *w[3], *phi, *ball;
	ps_body body;
	double div;     /* last step: largest divergence after over before */
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

/* One step: gravity g (m/s^2, down), coupled projection, move the ball.
 * Returns the iterations or -1. */
static int
step_g(tank *t, double dt, double g)
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
			t->u[1][f] -= (float)(g * dt);
	}
	b->V[1] -= g * dt;
	psys ps;
	double o[3] = {0, 0, 0};
	psys_in in = {.ni = N, .nj = N, .nk = N, .dx = dx, .origin = o, .rho = RHO,
		      .wx = t->w[0], .wy = t->w[1], .wz = t->w[2], .phi = t->phi,
		      .body = b, .nbody = 1};
	if (psys_init(&ps, &in, NULL))
		return -1;
	double *rhs = calloc(ps.n, sizeof *rhs), *x = calloc(ps.n, sizeof *x);
	double removed;
	psys_rhs(&ps, t->u[0], t->u[1], t->u[2], NULL, rhs, &removed, NULL);
	pcg_opts po = {PCG_MG, 1e-7, 300};
	pcg_stats st;
	pcg_solve(&ps, rhs, x, &po, &st, NULL);
	psys_update(&ps, x, t->u[0], t->u[1], t->u[2], NULL);
	/* batty2007 §3.1: fluid and body velocities updated with the same J
	 * that built the system leave no divergence but the solver's */
	double b0 = psys_maxabs(&ps, rhs);
	psys_rhs(&ps, t->u[0], t->u[1], t->u[2], NULL, rhs, &removed, NULL);
	t->div = b0 > 0 ? psys_maxabs(&ps, rhs) / b0 : 0;
	psys_free(&ps);
	rigid_free_fractions(b, 1);
	free(rhs), free(x);
	for (int a = 0; a < 3; a++)
		b->com[a] += b->V[a] * dt;
	return st.converged ? st.iters : -1;
}

static int
step(tank *t, double dt)
{
	return step_g(t, dt, G);
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

/* batty2007 §3.1: the coupled matrix A + J^T M^-1 J (here the grid part
 * plus kappa g M^-1 g^T) is symmetric positive semi-definite, rotational
 * columns included.  Checked on the rows and columns of the cells the
 * body touches, built by applying A to unit vectors, and by x^T A x >= 0
 * for vectors that excite the body's rotation. */
static void
test_matrix(void)
{
	tank t;
	tank_new(&t, 0.1, 0.3);
	ps_body *b = &t.body;
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double x = (i + .5) * dx - b->com[0], y = (j + .5) * dx - b->com[1];
				double z = (k + .5) * dx - b->com[2];
				t.ball[i + N * (j + N * k)] = (float)(sqrt(x * x + y * y + z * z) - R);
			}
	const float *pb[1] = {t.ball};
	psys ps;
	double o[3] = {0, 0, 0};
	int ok = !rigid_weights(NULL, pb, b, 1, N, N, N, 0, t.w[0], t.w[1], t.w[2], NULL) &&
		 !psys_init(&ps, &(psys_in){.ni = N, .nj = N, .nk = N, .dx = dx, .origin = o,
					    .rho = RHO, .wx = t.w[0], .wy = t.w[1], .wz = t.w[2],
					    .phi = t.phi, .body = b, .nbody = 1}, NULL);
	CHECK(ok && b->ncell > 0, "coupled system assembled (%zu body cells)", ok ? b->ncell : 0);
	if (!ok) {
		tank_free(&t);
		return;
	}
	size_t m = b->ncell;
	double *e = calloc(ps.n, sizeof *e), *y = calloc(ps.n, sizeof *y);
	double *col = calloc(m * m, sizeof *col), asym = 0, amax = 0;
	for (size_t q = 0; q < m; q++) {
		e[b->cell[q]] = 1;
		psys_apply(&ps, e, y);
		e[b->cell[q]] = 0;
		for (size_t r = 0; r < m; r++)
			col[q * m + r] = y[b->cell[r]];
	}
	for (size_t q = 0; q < m; q++)
		for (size_t r = 0; r < m; r++) {
			asym = fmax(asym, fabs(col[q * m + r] - col[r * m + q]));
			amax = fmax(amax, fabs(col[q * m + r]));
		}
	CHECK(asym <= 1e-12 * amax, "body rows of A symmetric: max |A_ij - A_ji| %.3g of %.3g",
	      asym, amax);
	/* pressures that push the body around each axis: p = (r x e_a).n-like
	 * patterns from the body's own rotational columns, and their mixtures */
	double worst = INFINITY;
	for (int a = 0; a < 8; a++) {
		for (size_t q = 0; q < m; q++) {
			const double *g6 = b->g + 6 * q;
			e[b->cell[q]] = a < 3 ? g6[3 + a] :
					a < 6 ? g6[3 + a - 3] - g6[a - 3] :
					(double)((q * 2654435761u) % 1000) / 500 - 1;
		}
		psys_apply(&ps, e, y);
		double xax = 0, xx = 0;
		for (size_t c = 0; c < ps.n; c++)
			xax += e[c] * y[c], xx += e[c] * e[c];
		if (xx > 0)
			worst = fmin(worst, xax / xx);
		memset(e, 0, ps.n * sizeof *e);
	}
	CHECK(worst >= 0, "x^T A x >= 0 for rotational pressure patterns (min Rayleigh %.3g)", worst);
	free(e), free(y), free(col);
	psys_free(&ps);
	rigid_free_fractions(b, 1);
	tank_free(&t);
}

/* A stable coupling does not amplify spin: a light ball under water
 * spinning in still fluid, no gravity, no torque but the pressure's.  Each
 * projection is an orthogonal projection in the kinetic energy norm
 * (batty2007 §3: fluid and body energy together never grow), so the
 * body's rotational energy stays at or below its start, step after step,
 * and the updated fluid and body velocities together leave no divergence. */
static void
test_spin(void)
{
	tank t;
	double dt = 0.02, w0[3] = {0.5, 0.2, -0.3};
	tank_new(&t, 0.1, 0.3);
	memcpy(t.body.V + 3, w0, sizeof w0);
	double e0 = 0, emax = 0, div = 0;
	for (int a = 0; a < 3; a++)
		e0 += 0.5 * t.body.inertia[4 * a] * w0[a] * w0[a];
	int ok = 1;
	for (int s = 0; s < 6 && ok; s++) {
		ok &= step_g(&t, dt, 0) > 0;
		if (s == 0)
			div = t.div;
		double e = 0;
		for (int a = 0; a < 3; a++)
			e += 0.5 * t.body.inertia[4 * a] * t.body.V[3 + a] * t.body.V[3 + a];
		emax = fmax(emax, e);
	}
	CHECK(ok && div < 1e-5, "spinning ball: divergence after the update %.3g of before", div);
	CHECK(ok && emax <= e0 * (1 + 1e-6),
	      "spinning ball: rotational energy never above its start (max %.6g of %.6g J)",
	      emax, e0);
	tank_free(&t);
}

/* batty2007 (12): the torque part of J, J_rot p = int_solid grad p x
 * (x - X_com), on a box of half-extents (A, B, C) at the centre of the
 * grid for p = r_y r_z, r_z r_x and r_x r_y (r = x - X_com): each gives a
 * torque about one axis only, V (C^2 - B^2)/3, V (A^2 - C^2)/3 and
 * V (B^2 - A^2)/3.  A lever arm of the wrong sign or about the wrong
 * point shows here. */
static void
test_torque(void)
{
	static const double A = 0.3, B = 0.2, C = 0.1;
	tank t;
	tank_new(&t, 1, 0.5);
	ps_body *b = &t.body;
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double x = fabs((i + .5) * dx - 0.5) - A, y = fabs((j + .5) * dx - 0.5) - B;
				double z = fabs((k + .5) * dx - 0.5) - C;
				t.ball[i + N * (j + N * k)] = (float)fmax(x, fmax(y, z));
			}
	const float *pb[1] = {t.ball};
	psys ps;
	double o[3] = {0, 0, 0}, V = 8 * A * B * C;
	int ok = !rigid_weights(NULL, pb, b, 1, N, N, N, 0, t.w[0], t.w[1], t.w[2], NULL) &&
		 !psys_init(&ps, &(psys_in){.ni = N, .nj = N, .nk = N, .dx = dx, .origin = o,
					    .rho = RHO, .wx = t.w[0], .wy = t.w[1], .wz = t.w[2],
					    .body = b, .nbody = 1}, NULL);
	double want[3] = {V * (C * C - B * B) / 3, V * (A * A - C * C) / 3, V * (B * B - A * A) / 3};
	double err = 0, got[3][6];
	for (int a = 0; a < 3 && ok; a++) {
		memset(got[a], 0, sizeof got[a]);
		for (size_t m = 0; m < b->ncell; m++) {
			size_t c = b->cell[m];
			double r[3] = {(c % N + .5) * dx - 0.5, (c / N % N + .5) * dx - 0.5,
				       (c / N / N + .5) * dx - 0.5};
			double p = r[(a + 1) % 3] * r[(a + 2) % 3];
			for (int q = 0; q < 6; q++)
				got[a][q] += dx * dx * b->g[6 * m + q] * p;
		}
		for (int q = 0; q < 6; q++)
			err = fmax(err, fabs(got[a][q] - (q == 3 + a ? want[a] : 0)) / fabs(want[a]));
	}
	CHECK(ok && err < 0.1,
	      "box torques from p = r_y r_z, r_z r_x, r_x r_y: %.4g %.4g %.4g, exact %.4g %.4g %.4g "
	      "(largest error %.2g of each)", ok ? got[0][3] : 0, ok ? got[1][4] : 0,
	      ok ? got[2][5] : 0, want[0], want[1], want[2], err);
	if (ok)
		psys_free(&ps);
	rigid_free_fractions(b, 1);
	tank_free(&t);
}

int
main(void)
{
	test_torque();
	test_matrix();
	test_spin();
	test_float();
	test_sink();
	return ctest_done();
}
