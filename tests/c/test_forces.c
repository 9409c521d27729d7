/* test_forces.c: gravity, guendelman2005 §4.1 buoyancy and thesis §3.2.1
 * vorticity confinement against closed forms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "fluid/forces.h"

#define SIGMA 0.3   /* core radius of the test vortex, m */

/* A 2D vortex with vorticity exp(-r^2/sigma^2) about the origin:
 * u_theta = sigma^2 (1 - exp(-r^2/sigma^2)) / (2 r). */
static void
vortex_vel(const double x[3], double v[3])
{
	double r2 = x[0] * x[0] + x[1] * x[1], s;

	s = r2 > 0 ? SIGMA * SIGMA * (1 - exp(-r2 / (SIGMA * SIGMA))) / (2 * r2) : 0.5;
	v[0] = -s * x[1];
	v[1] = s * x[0];
	v[2] = 0;
}

static void
fill(macgrid *m, void (*fn)(const double x[3], double v[3]))
{
	int a, i, j, k;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(m, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3], v[3];

					field_pos(f, i, j, k, x);
					fn(x, v);
					f->a[FIELD_IDX(f, i, j, k)] = (float)v[a];
				}
	}
}

static void
rigid(const double x[3], double v[3])
{
	v[0] = -0.7 * x[1];
	v[1] = 0.7 * x[0];
	v[2] = 0.2;
}

/* Body forces and the CFL speed beside a solid: the half space y < 0.3
 * (a signed distance) on 8^3 cells of the unit cube.  Gravity and
 * buoyancy must reach exactly the faces with fluid in their control
 * volume (batty2007 §2.1 weight > 0), so that faces deep in the solid,
 * which project never sets, gain nothing; mac_max_speed_seen must ignore
 * a fast face deep in the solid but not one the fluid's stencils read. */
static void
masked(void)
{
	const double o[3] = { 0, 0, 0 }, h = 1.0 / 8, y0 = 0.3, g[3] = { 0, -9.81, 0 };
	macgrid m, wt;
	field sol, T;
	slc_err err;
	int a, i, j, k, bad = 0, bad_b = 0, wet = 0, dry = 0;
	double vs;

	mac_alloc(&m, 8, 8, 8, o, h, &err);
	mac_alloc(&wt, 8, 8, 8, o, h, &err);
	field_alloc(&sol, 8, 8, 8, SLC_CELL, o, h, &err);
	field_alloc(&T, 8, 8, 8, SLC_CELL, o, h, &err);
	for (k = 0; k < 8; k++)
		for (j = 0; j < 8; j++)
			for (i = 0; i < 8; i++) {
				double x[3];

				field_pos(&sol, i, j, k, x);
				sol.a[FIELD_IDX(&sol, i, j, k)] = (float)(x[1] - y0);
				T.a[FIELD_IDX(&T, i, j, k)] = 2;
			}
	CHECK(forces_fluid_weights(&sol, &wt, &err) == 0, "fluid weights of a half space");
	forces_gravity(&m, g, 0.1, &wt);
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(&m, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3], v = f->a[FIELD_IDX(f, i, j, k)];
					/* the control volume spans y +- h/2 about the face */
					int fluid;

					field_pos(f, i, j, k, x);
					fluid = x[1] + 0.5 * h > y0 + 1e-9;
					wet += fluid && a == 1;
					dry += !fluid && a == 1;
					bad += fabs(v - (fluid ? 0.1 * g[a] : 0)) > 1e-6;
				}
	}
	CHECK(bad == 0 && wet > 0 && dry > 0,
	      "gravity on the %d v faces with fluid, none on the %d in the solid (%d wrong)", wet, dry, bad);
	mac_free(&m);
	mac_alloc(&m, 8, 8, 8, o, h, &err);
	forces_buoyancy(&m, NULL, &T, 0, 1, 0, (double[3]){ 0, 1, 0 }, 0.1, &wt);
	for (k = 0; k < m.v.nk; k++)
		for (j = 0; j < m.v.nj; j++)
			for (i = 0; i < m.v.ni; i++) {
				double x[3], v = m.v.a[FIELD_IDX(&m.v, i, j, k)];

				field_pos(&m.v, i, j, k, x);
				bad_b += fabs(v - (x[1] + 0.5 * h > y0 + 1e-9 ? 0.2 : 0)) > 1e-6;
			}
	CHECK(bad_b == 0, "buoyancy only on faces with fluid (%d wrong)", bad_b);
	/* a face 2.5 cells deep (y = 0) at 5 m/s, one just inside (y = 0.25)
	 * at 0.5 m/s */
	mac_free(&m);
	mac_alloc(&m, 8, 8, 8, o, h, &err);
	m.v.a[FIELD_IDX(&m.v, 3, 0, 3)] = 5;
	m.v.a[FIELD_IDX(&m.v, 3, 2, 3)] = 0.5f;
	vs = mac_max_speed_seen(&m, &sol);
	CHECK(vs == 0.5 && mac_max_speed(&m) == 5,
	      "CFL speed: the face deep in the solid unseen, the one beside the fluid seen (%g)", vs);
	m.v.a[FIELD_IDX(&m.v, 3, 0, 3)] = NAN;
	CHECK(isnan(mac_max_speed_seen(&m, &sol)), "CFL speed: a NaN deep in the solid still reported");
	mac_free(&m);
	mac_free(&wt);
	field_free(&sol);
	field_free(&T);
}

int
main(void)
{
	const double org[3] = { -1, -1, -1 / 64.0 }, dx = 2.0 / 64, dt = 0.1;
	const double eps = 0.8;
	macgrid m, m0;
	slc_err err;
	int a, i, j, bad;
	double emax, fmax_;
	size_t s;

	/* gravity: every face gains dt g */
	mac_alloc(&m, 8, 6, 5, org, dx, &err);
	forces_gravity(&m, (double[3]){ 0.5, -9.81, 2 }, dt, NULL);
	bad = 0;
	for (a = 0; a < 3; a++)
		for (s = 0; s < field_count(mac_comp(&m, a)); s++)
			bad += fabs(mac_comp(&m, a)->a[s] - dt * (a == 0 ? 0.5 : a == 1 ? -9.81 : 2)) > 1e-6;
	CHECK(bad == 0, "gravity adds dt g to every face");
	mac_free(&m);
	masked();

	/* buoyancy with uniform rho and T: v gains dt (-alpha rho + beta (T -
	 * T_amb)), u and w nothing */
	{
		field rho, T;

		mac_alloc(&m, 8, 6, 5, org, dx, &err);
		field_alloc(&rho, 8, 6, 5, SLC_CELL, org, dx, &err);
		field_alloc(&T, 8, 6, 5, SLC_CELL, org, dx, &err);
		for (s = 0; s < field_count(&rho); s++) {
			rho.a[s] = 0.5f;
			T.a[s] = 310;
		}
		forces_buoyancy(&m, &rho, &T, 0.2, 0.03, 300, (double[3]){ 0, 1, 0 }, dt, NULL);
		bad = 0;
		for (a = 0; a < 3; a++)
			for (s = 0; s < field_count(mac_comp(&m, a)); s++) {
				double want = a == 1 ? dt * (-0.2 * 0.5 + 0.03 * 10) : 0;

				bad += fabs(mac_comp(&m, a)->a[s] - want) > 1e-6;
			}
		CHECK(bad == 0, "buoyancy -alpha rho + beta (T - T_amb) along up");
		/* a density gradient: the face value is the face-centred average */
		for (j = 0; j < 6; j++)
			for (i = 0; i < 8; i++)
				rho.a[FIELD_IDX(&rho, i, j, 2)] = (float)j;
		memset(m.v.a, 0, field_count(&m.v) * sizeof *m.v.a);
		forces_buoyancy(&m, &rho, NULL, 1, 0, 0, (double[3]){ 0, 1, 0 }, 1, NULL);
		CHECK(fabs(m.v.a[FIELD_IDX(&m.v, 3, 3, 2)] + 2.5) < 1e-6,
		      "buoyancy samples density at the face (%.4f, expected -2.5)",
		      m.v.a[FIELD_IDX(&m.v, 3, 3, 2)]);
		field_free(&rho);
		field_free(&T);
		mac_free(&m);
	}

	/* confinement of a rigid rotation: uniform |omega|, no force */
	mac_alloc(&m, 64, 64, 1, org, dx, &err);
	mac_alloc_like(&m0, &m, &err);
	fill(&m, rigid);
	mac_copy(&m0, &m, &err);
	forces_confinement(&m, eps, dt, NULL, &err);
	emax = 0;
	for (a = 0; a < 3; a++)
		for (s = 0; s < field_count(&m.u); s++)
			emax = fmax(emax, fabs(mac_comp(&m, a)->a[s] - mac_comp(&m0, a)->a[s]));
	CHECK(emax < 1e-6, "rigid rotation: no confinement force (max %.2g)", emax);

	/* thesis §3.2.1 on the vortex: N points to the core, f = eps dx
	 * omega theta_hat, pushing along the flow */
	fill(&m, vortex_vel);
	mac_copy(&m0, &m, &err);
	forces_confinement(&m, eps, dt, NULL, &err);
	emax = 0;
	fmax_ = 0;
	for (a = 0; a < 2; a++) {
		field *f = mac_comp(&m, a), *f0 = mac_comp(&m0, a);

		for (j = 0; j < f->nj; j++)
			for (i = 0; i < f->ni; i++) {
				double x[3], r, th, want, got;

				field_pos(f, i, j, 0, x);
				r = hypot(x[0], x[1]);
				if (r < 0.15 || r > 0.6)
					continue;
				th = a == 0 ? -x[1] / r : x[0] / r;
				want = eps * dx * exp(-r * r / (SIGMA * SIGMA)) * th;
				got = (f->a[FIELD_IDX(f, i, j, 0)] - f0->a[FIELD_IDX(f0, i, j, 0)]) / dt;
				emax = fmax(emax, fabs(got - want));
				fmax_ = fmax(fmax_, fabs(want));
			}
	}
	CHECK(emax < 0.05 * fmax_,
	      "vortex: confinement force eps dx omega theta_hat (max error %.2g of %.2g)",
	      emax, fmax_);
	mac_free(&m);
	mac_free(&m0);

	/* guendelman2005 §4.1: clear air inside a solid (a ball of radius 0.4
	 * on the cells, the smoke on the same cells and on nodes), the smoke
	 * outside untouched */
	{
		field sol, rho, T;
		size_t in = 0, wrong = 0;
		int k, pass;

		field_alloc(&sol, 16, 16, 16, SLC_CELL, (double[3]){ -1, -1, -1 }, 0.125, &err);
		for (s = 0; s < field_count(&sol); s++) {
			double x[3];

			field_pos(&sol, (int)(s % 16), (int)(s / 16 % 16), (int)(s / 256), x);
			sol.a[s] = (float)(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - 0.4);
		}
		for (pass = 0; pass < 2; pass++) {
			int st = pass ? SLC_NODE : SLC_CELL;

			field_alloc(&rho, 16, 16, 16, st, (double[3]){ -1, -1, -1 }, 0.125, &err);
			field_alloc(&T, 16, 16, 16, st, (double[3]){ -1, -1, -1 }, 0.125, &err);
			for (s = 0; s < field_count(&rho); s++) {
				rho.a[s] = 1 + (float)(s % 7);
				T.a[s] = 3 + (float)(s % 5);
			}
			forces_solid_smoke(&sol, &rho, NULL, 0.25);
			forces_solid_smoke(&sol, NULL, &T, 0.25);
			for (k = 0; k < rho.nk; k++)
				for (j = 0; j < rho.nj; j++)
					for (i = 0; i < rho.ni; i++) {
						double x[3];
						int inside;

						s = FIELD_IDX(&rho, i, j, k);
						field_pos(&rho, i, j, k, x);
						inside = field_sample(&sol, x) < 0;
						in += (size_t)inside;
						wrong += inside ? rho.a[s] != 0 || T.a[s] != 0.25f
								: rho.a[s] != 1 + (float)(s % 7) ||
								  T.a[s] != 3 + (float)(s % 5);
					}
			field_free(&rho);
			field_free(&T);
		}
		CHECK(in > 100 && wrong == 0,
		      "solid: density 0 and ambient temperature at the %zu samples inside, "
		      "the rest untouched (%zu wrong)", in, wrong);
		field_free(&sol);
	}
	return ctest_done();
}
