/* test_pls_step.c: the liquid substep of lib/liquid/pls_step.c and the spray of
 * lib/liquid/spray.c.
 *   - velocity extrapolation: a uniform liquid velocity below a plane is
 *     continued unchanged through the band above it (its flux leaving
 *     through the band's top faces), zero beyond, walls untouched; a
 *     spreading liquid flow (u = x, v = -y) continued face by face would
 *     leave a divergence of 1/s in the band, the extrapolated field has
 *     none (selle2008 thesis §2.9);
 *   - spray: free fall matches the closed form of symplectic Euler, a
 *     particle dropped over a pool lands, is removed and its ball joins
 *     phi;
 *   - a disc (64x64 cells, 2D) carried once around in a rigid rotation
 *     keeps its area within 5% with the particle level set, and loses at
 *     least five times more with the level set alone (both printed; with
 *     first order semi-Lagrangian phi and redistancing every step, as
 *     test_pls_zalesak measures for lib/liquid/pls.c alone). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "liquid/pls_step.h"

#define N 64
#define OMEGA (2 * M_PI)        /* rad/s: one turn a second */
#define STEPS 200               /* 0.8 cells of travel a step at the disc */

static void
disc(field *phi, double cx, double cy, double rad)
{
	double o[3] = { 0, 0, 0 };
	int i, j;

	field_alloc(phi, N, N, 1, SLC_CELL, o, 1.0 / N, NULL);
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3];

			field_pos(phi, i, j, 0, x);
			phi->a[FIELD_IDX(phi, i, j, 0)] = (float)(hypot(x[0] - cx, x[1] - cy) - rad);
		}
}

static void
rotation(macgrid *vel)
{
	double o[3] = { 0, 0, 0 };
	int a, i, j, k;

	mac_alloc(vel, N, N, 1, o, 1.0 / N, NULL);
	for (a = 0; a < 2; a++) {
		field *f = mac_comp(vel, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					f->a[FIELD_IDX(f, i, j, k)] =
						(float)(a == 0 ? -OMEGA * (x[1] - 0.5) : OMEGA * (x[0] - 0.5));
				}
	}
}

/* Area (2D volume / dx) of the disc after one turn. */
static double
one_turn(int particles, size_t *nspray)
{
	pls_water w;
	field phi;
	macgrid vel;
	slc_err err;
	double g[3] = { 0, 0, 0 }, area;
	int s;

	disc(&phi, 0.5, 0.75, 0.15);
	rotation(&vel);
	pls_step_defaults(&w.o);
	w.o.particles = particles;
	w.o.p.per_cell = 16;
	slc_frame none;

	slc_frame_init(&none);
	if (pls_water_load(&w, &none, &phi, 3, 0, 0, &err))
		return -1;
	for (s = 0; s < STEPS; s++)
		if (pls_step(&w, &phi, &vel, 1.0 / STEPS, g, &err))
			return -1;
	area = pls_liquid_volume(&phi) / phi.dx;
	*nspray = w.spr.n;
	pls_water_free(&w);
	field_free(&phi);
	mac_free(&vel);
	return area;
}

/* Largest |divergence| (1/s) of vel over the air cells of a plane pool
 * (cells j >= 5) up to band cells above the surface, away from the
 * walls. */
static double
band_div(const macgrid *vel, int band)
{
	double dx = vel->u.dx, worst = 0;
	int i, j, k;

	for (k = 1; k < 15; k++)
		for (j = 5; j < 5 + band; j++)
			for (i = 1; i < 15; i++) {
				double d = (vel->u.a[FIELD_IDX(&vel->u, i + 1, j, k)] - vel->u.a[FIELD_IDX(&vel->u, i, j, k)] +
					    vel->v.a[FIELD_IDX(&vel->v, i, j + 1, k)] - vel->v.a[FIELD_IDX(&vel->v, i, j, k)] +
					    vel->w.a[FIELD_IDX(&vel->w, i, j, k + 1)] - vel->w.a[FIELD_IDX(&vel->w, i, j, k)]) / dx;

				if (fabs(d) > worst)
					worst = fabs(d);
			}
	return worst;
}

/* A plane pool, surface at y = 0.3 (cells j < 5 liquid) on 16^3 cells of
 * 1/16: phi, and vel(x) on the faces beside the liquid, `stale` elsewhere
 * (wall faces beyond the band too). */
static void
plane_pool(field *phi, macgrid *vel, void (*fn)(const double x[3], double u[3]), double stale)
{
	double o[3] = { 0, 0, 0 }, dx = 1.0 / 16;
	int a, i, j, k;

	field_alloc(phi, 16, 16, 16, SLC_CELL, o, dx, NULL);
	mac_alloc(vel, 16, 16, 16, o, dx, NULL);
	for (k = 0; k < 16; k++)
		for (j = 0; j < 16; j++)
			for (i = 0; i < 16; i++)
				phi->a[FIELD_IDX(phi, i, j, k)] = (float)((j + 0.5) * dx - 0.3);
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					int c[3] = { i, j, k }, n = a == 0 ? f->ni : a == 1 ? f->nj : f->nk;
					int wall = c[a] == 0 || c[a] == n - 1;
					double y[3], u[3];

					field_pos(f, i, j, k, y);
					fn(y, u);
					/* beside the liquid cells j < 5; the walls of the band
					 * hold the liquid's velocity, as a wall at rest would
					 * its zero */
					f->a[FIELD_IDX(f, i, j, k)] =
						(float)(j < 5 || (a == 1 && j == 5) || (wall && j < 11) ? u[a] : stale);
				}
	}
}

static void
uniform(const double x[3], double u[3])
{
	(void)x;
	u[0] = 1, u[1] = 2, u[2] = 3;
}

static void
spreading(const double x[3], double u[3])
{
	u[0] = x[0] - 0.5, u[1] = -x[1], u[2] = 0;
}

static void
test_extrapolate(void)
{
	double u0[3] = { 1, 2, 3 }, dx = 1.0 / 16, before, after;
	field phi;
	macgrid vel;
	slc_err err;
	int a, i, j, k, bad_band = 0, bad_far = 0, bad_liq = 0, bad_wall = 0;

	plane_pool(&phi, &vel, uniform, 7);
	CHECK(pls_extrapolate(&vel, &phi, 5, &err) == 0, "extrapolate");
	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(&vel, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					int c[3] = { i, j, k }, wall = c[a] == 0 || c[a] == (a == 0 ? f->ni : a == 1 ? f->nj : f->nk) - 1;
					float v = f->a[FIELD_IDX(f, i, j, k)];
					double y[3], ph;

					field_pos(f, i, j, k, y);
					ph = y[1] - 0.3;
					if (wall)
						bad_wall += v != (j < 5 || (a == 1 && j == 5) || j < 11 ? (float)u0[a] : 7);
					else if (j < 5 || (a == 1 && j == 5))
						bad_liq += v != (float)u0[a];
					else if (ph <= 5 * dx + 1e-9 || (a == 1 && j == 10))
						/* the band's top faces (v, j = 10) carry its flux */
						bad_band += fabsf(v - (float)u0[a]) > 1e-3f;
					else
						bad_far += v != 0;
				}
	}
	CHECK(!bad_liq, "liquid faces unchanged (%d differ)", bad_liq);
	CHECK(!bad_band, "band faces take the liquid velocity (%d differ)", bad_band);
	CHECK(!bad_far, "air faces beyond the band are zero (%d not)", bad_far);
	CHECK(!bad_wall, "wall faces keep their values (%d changed)", bad_wall);
	field_free(&phi);
	mac_free(&vel);

	/* a spreading flow: divergence free in the liquid, but continued
	 * unchanged along y its du/dx = 1 is left alone in the air */
	plane_pool(&phi, &vel, spreading, 0);
	before = 1;
	CHECK(pls_extrapolate(&vel, &phi, 5, &err) == 0, "extrapolate a spreading flow");
	after = band_div(&vel, 5);
	CHECK(after < 1e-3 * before, "band divergence free: %.2g 1/s (face by face: %.2g)", after, before);
	field_free(&phi);
	mac_free(&vel);
}

static void
test_spray(void)
{
	double o[3] = { 0, 0, 0 }, dx = 1.0 / 16, g[3] = { 0, -9.81, 0 }, dt = 0.01;
	double x0[3] = { 0.5, 0.9, 0.5 }, v0[3] = { 0.1, 0, 0 }, y, t;
	field phi;
	spray s;
	slc_err err;
	float before;
	int n = 5, q, i, j, k;
	size_t landed = 0;

	field_alloc(&phi, 16, 16, 16, SLC_CELL, o, dx, NULL);
	for (k = 0; k < 16; k++)
		for (j = 0; j < 16; j++)
			for (i = 0; i < 16; i++)
				phi.a[FIELD_IDX(&phi, i, j, k)] = (float)((j + 0.5) * dx - 0.3);
	spray_init(&s);
	CHECK(spray_push(&s, x0, v0, 0.02, &err) == 0, "push");
	for (q = 0; q < n; q++)
		spray_step(&s, &phi, NULL, NULL, g, dt);
	/* symplectic Euler: y_n = y0 + g dt^2 n (n + 1) / 2 */
	y = x0[1] + g[1] * dt * dt * n * (n + 1) / 2;
	CHECK(s.n == 1 && fabs(s.x[1] - y) < 1e-5 && fabs(s.x[0] - (0.5 + 0.1 * n * dt)) < 1e-5 &&
	      fabs(s.v[1] - g[1] * n * dt) < 1e-5,
	      "free fall: y %.6f, expected %.6f", s.n ? s.x[1] : -1, y);
	CHECK(fabs(spray_mass(0.02) - 1000 * 4.0 / 3 * M_PI * 8e-6) < 1e-12, "mass of a 2 cm ball: %g kg",
	      spray_mass(0.02));
	before = phi.a[FIELD_IDX(&phi, 8, 4, 8)];
	for (t = 0; t < 1 && s.n; t += dt)
		landed += spray_step(&s, &phi, NULL, NULL, g, dt);
	CHECK(s.n == 0 && landed == 1, "the particle lands in the pool after %.2f s", t);
	CHECK(phi.a[FIELD_IDX(&phi, 8, 4, 8)] <= before, "the ball is unioned into phi");
	spray_free(&s);
	field_free(&phi);
}

int
main(void)
{
	double exact = M_PI * 0.15 * 0.15, with, without;
	size_t nspray = 0, nspray0 = 0;

	test_extrapolate();
	test_spray();
	with = one_turn(1, &nspray);
	without = one_turn(0, &nspray0);
	printf("# disc area after one turn: exact %.4f, particle level set %.4f (%+.2f%%), "
	       "level set alone %.4f (%+.2f%%); %zu spray particles\n",
	       exact, with, 100 * (with / exact - 1), without, 100 * (without / exact - 1), nspray);
	CHECK(fabs(with / exact - 1) < 0.05, "particle level set: area within 5%%: %+.2f%%",
	      100 * (with / exact - 1));
	CHECK(fabs(without / exact - 1) > 5 * fabs(with / exact - 1),
	      "the level set alone loses five times more: %+.2f%%", 100 * (without / exact - 1));
	return ctest_done();
}
