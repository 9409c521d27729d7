/* test_pls_solid.c: liquid particles and solids, spray momentum
 * (lib/liquid/pls_solid.c, lib/liquid/spray.c).
 *   - marker particles carried straight at a solid box (the level set of
 *     a box, negative inside) stay outside it: negative ones are pushed
 *     out to their radius and kept, positive ones that reach it are
 *     deleted (guendelman2005 §4.4.2);
 *   - a spray particle thrown at the box stops at its face, keeps the
 *     velocity along the face and loses the velocity into it;
 *   - a spray particle landing in a still pool gives its momentum to the
 *     faces around it: the water of those faces plus the particle keep
 *     their momentum (sum of (M + w m) u after = sum M u before + m v),
 *     the local velocity moves towards the particle's, and a particle
 *     landing with the pool's own velocity changes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "liquid/pls_solid.h"
#include "liquid/pls_step.h"

#define N 16
static const double box_c[3] = { 0.75, 0.5, 0.5 }, box_h[3] = { 0.15, 0.25, 0.25 };

static double
box_sdf(const double x[3])
{
	double q[3], out = 0, in = -INFINITY;
	int a;

	for (a = 0; a < 3; a++) {
		q[a] = fabs(x[a] - box_c[a]) - box_h[a];
		out += q[a] > 0 ? q[a] * q[a] : 0;
		in = fmax(in, q[a]);
	}
	return in > 0 ? sqrt(out) : in;
}

static void
grid(field *f, int solid)
{
	double o[3] = { 0, 0, 0 };
	int i, j, k;

	field_alloc(f, N, N, N, SLC_CELL, o, 1.0 / N, NULL);
	for (k = 0; k < N; k++)
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++) {
				double x[3];

				field_pos(f, i, j, k, x);
				/* the solid box, or a pool 0.5 deep */
				f->a[FIELD_IDX(f, i, j, k)] = (float)(solid ? box_sdf(x) : x[1] - 0.5);
			}
}

static void
uniform(macgrid *vel, const double u[3])
{
	double o[3] = { 0, 0, 0 };
	size_t q;
	int a;

	mac_alloc(vel, N, N, N, o, 1.0 / N, NULL);
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);

		for (q = 0; q < field_count(f); q++)
			f->a[q] = (float)u[a];
	}
}

static void
test_markers(void)
{
	field solid;
	macgrid vel;
	pls_set pos, neg;
	slc_err err;
	double u[3] = { 1, 0, 0 }, dx = 1.0 / N, worst = INFINITY;
	size_t q, removed = 0;
	int i, step;

	grid(&solid, 1);
	uniform(&vel, u);
	pls_set_init(&pos, 1);
	pls_set_init(&neg, -1);
	for (i = 0; i < 20; i++) {      /* a column of each sign at x = 0.4 */
		double x[3] = { 0.4, 0.3 + 0.02 * i, 0.45 + 0.005 * i };

		pls_set_push(&pos, x, 0.3 * dx, &err);
		pls_set_push(&neg, x, 0.1 * dx + 0.02 * i * dx, &err);
	}
	for (step = 0; step < 40; step++) {     /* 0.4 m: far into the box */
		pls_advect(&pos, &vel, 0.01);
		pls_advect(&neg, &vel, 0.01);
		removed += pls_collide(&pos, &solid) + pls_collide(&neg, &solid);
	}
	for (q = 0; q < neg.n; q++) {
		double x[3] = { neg.x[3 * q], neg.x[3 * q + 1], neg.x[3 * q + 2] };

		worst = fmin(worst, field_sample(&solid, x) - neg.r[q]);
	}
	CHECK(neg.n == 20 && worst > -1e-3 * dx,
	      "negative particles stay out of the box, at least their radius away: %zu kept, "
	      "worst %.4f dx", neg.n, worst / dx);
	CHECK(pos.n == 0 && removed == 20, "positive particles that reach the box are deleted: %zu left",
	      pos.n);
	pls_set_free(&pos);
	pls_set_free(&neg);
	field_free(&solid);
	mac_free(&vel);
}

static void
test_spray_solid(void)
{
	field solid, phi;
	spray s;
	slc_err err;
	double x[3] = { 0.4, 0.5, 0.5 }, v[3] = { 2, 0.5, 0 }, g[3] = { 0, 0, 0 }, p[3];
	int step;

	grid(&solid, 1);
	field_alloc(&phi, N, N, N, SLC_CELL, x, 1.0 / N, NULL);
	for (size_t q = 0; q < field_count(&phi); q++)
		phi.a[q] = 1;   /* no liquid */
	spray_init(&s);
	spray_push(&s, x, v, 0.01, &err);
	for (step = 0; step < 20; step++)       /* 0.4 m towards the face at 0.6 */
		spray_step(&s, &phi, &solid, NULL, g, 0.01);
	p[0] = s.x[0], p[1] = s.x[1], p[2] = s.x[2];
	CHECK(s.n == 1 && field_sample(&solid, p) > -1e-3 / N && fabs(p[0] - 0.6) < 0.05 / N,
	      "spray stops at the face x = 0.6: x %.4f, solid %.5f", p[0], field_sample(&solid, p));
	CHECK(fabs(s.v[0]) < 1e-6 && fabs(s.v[1] - 0.5) < 1e-6,
	      "velocity into the face removed (%.3g), along it kept (%.3g)", s.v[0], s.v[1]);
	spray_free(&s);
	field_free(&solid);
	field_free(&phi);
}

/* momentum sum_f M u_f of component a over the whole grid */
static double
momentum(macgrid *vel, int a)
{
	field *f = mac_comp(vel, a);
	double sum = 0, M = SPRAY_WATER_DENSITY * f->dx * f->dx * f->dx;
	size_t q;

	for (q = 0; q < field_count(f); q++)
		sum += M * f->a[q];
	return sum;
}

static void
test_spray_momentum(void)
{
	field phi;
	macgrid vel, before;
	spray s;
	slc_err err;
	double x[3] = { 0.47, 0.45, 0.53 }, v[3] = { 1, -3, 0.5 }, g[3] = { 0, 0, 0 }, zero[3] = { 0, 0, 0 };
	double r = 0.3 / N, m = spray_mass(r), still[3] = { 0.2, 0, 0 }, u[3], worst = 0;
	size_t landed;
	int a;

	grid(&phi, 0);
	uniform(&vel, zero);
	mac_alloc_like(&before, &vel, &err);
	mac_copy(&before, &vel, &err);
	spray_init(&s);
	spray_push(&s, x, v, r, &err);
	landed = spray_step(&s, &phi, NULL, &vel, g, 1e-9);
	CHECK(landed == 1 && s.n == 0, "the particle lands in the pool");
	for (a = 0; a < 3; a++) {
		/* sum_f (M + w_f m) u_f = sum_f M u_f + m sum_f w_f u_f; the
		 * second sum is m times the interpolated velocity at x */
		double ui[3], got;

		mac_velocity(&vel, x, ui);
		got = momentum(&vel, a) + m * ui[a] - momentum(&before, a);
		worst = fmax(worst, fabs(got - m * v[a]) / (m * fabs(v[a])));
	}
	printf("# particle of %.3g kg at %.1f, %.1f, %.1f m/s\n", m, v[0], v[1], v[2]);
	CHECK(worst < 1e-5, "momentum kept: worst relative error %.2g", worst);
	mac_velocity(&vel, x, u);
	CHECK(u[0] > 0 && u[1] < 0 && u[2] > 0 && fabs(u[1]) < fabs(v[1]),
	      "local velocity moves towards the particle's: %.3f %.3f %.3f", u[0], u[1], u[2]);
	mac_free(&vel);
	uniform(&vel, still);
	spray_push(&s, x, still, r, &err);
	spray_step(&s, &phi, NULL, &vel, g, 1e-9);
	mac_velocity(&vel, x, u);
	CHECK(fabs(u[0] - 0.2) < 1e-6 && fabs(u[1]) < 1e-9,
	      "landing with the pool's velocity changes nothing: %.7f", u[0]);
	spray_free(&s);
	mac_free(&vel);
	mac_free(&before);
	field_free(&phi);
}

int
main(void)
{
	test_markers();
	test_spray_solid();
	test_spray_momentum();
	return ctest_done();
}
