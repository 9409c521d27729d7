/* test_partsurf.c: particle surfaces against what they must give.  One
 * particle: the Zhu-Bridson field is exactly |x - x_i| - r inside the
 * kernel.  A sphere's worth of particles: a closed, oriented 2-manifold
 * of Euler characteristic 2 whose vertices lie within half a spacing of
 * the sphere, for both kernels.  Yu-Turk kernels are flat along a flat
 * surface and round inside.  Union with a grid level set (kdsm-vof §4.2):
 * a drop of particles beside a grid sphere gives two closed components
 * (Euler 4) holding both volumes.  The field is the same bytes from 1 and
 * 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "liquid/mcubes.h"
#include "liquid/partsurf.h"
#include "liquid/surface.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double H = 1.0 / 40;       /* particle spacing */
static const double C[3] = { 0.5, 0.5, 0.5 };

static double
dist(const double *x, const double *c)
{
	return sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) +
		    (x[2] - c[2]) * (x[2] - c[2]));
}

/* Particles on a jittered lattice of spacing H inside a sphere (c, rs). */
static double *
blob(const double *c, double rs, size_t *np)
{
	int n = (int)ceil(rs / H) + 1, i, j, k;
	double *P = malloc((size_t)8 * n * n * n * 3 * sizeof *P);
	size_t q = 0;

	srand(5);
	for (k = -n; k <= n; k++)
		for (j = -n; j <= n; j++)
			for (i = -n; i <= n; i++) {
				double x[3] = { c[0] + (i + 0.5) * H, c[1] + (j + 0.5) * H,
						c[2] + (k + 0.5) * H };
				int a;

				if (dist(x, c) > rs - H / 2)
					continue;
				for (a = 0; a < 3; a++)
					x[a] += 0.1 * H * (2.0 * rand() / RAND_MAX - 1);
				memcpy(P + 3 * q++, x, sizeof x);
			}
	*np = q;
	return P;
}

static void
test_one_particle(void)
{
	ps_params p;
	field f;
	slc_err err;
	double x0[3] = { 0.31, 0.27, 0.35 }, worst = 0, R;
	int i, j, k, inside = 0;

	ps_params_default(&p, 0.05);
	p.dx = 0.01;
	R = p.support * p.radius;
	CHECK(ps_lattice(&p, x0, 1, NULL, &f, &err) == 0, "one particle: lattice");
	CHECK(ps_sample(&p, x0, NULL, 1, &f, &err) == 0, "one particle: sample");
	for (k = 0; k < f.nk; k++)
		for (j = 0; j < f.nj; j++)
			for (i = 0; i < f.ni; i++) {
				double x[3], d, v = f.a[FIELD_IDX(&f, i, j, k)];

				field_pos(&f, i, j, k, x);
				d = dist(x, x0);
				if (d < R * 0.999) {
					worst = fmax(worst, fabs(v - (d - p.radius)));
					inside++;
				} else if (d > R * 1.001) {
					worst = fmax(worst, fabs(v - R));
				}
			}
	CHECK(inside > 100 && worst < 1e-6, "one particle: phi = |x - x_i| - r within "
	      "the kernel, R outside (%d samples, worst %.2g)", inside, worst);
	field_free(&f);
}

static void
check_blob(int kernel, const char *what)
{
	const double rs = 0.25;
	ps_params p;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	size_t np, v;
	double *P = blob(C, rs, &np), lo = INFINITY, hi = 0, V, re;
	/* the particles stand for np cells of H^3: a sphere of radius re */
	V = (double)np * H * H * H;
	re = cbrt(3 * V / (4 * M_PI));

	ps_params_default(&p, H / 2);
	p.kernel = kernel;
	CHECK(ps_surface(&p, P, NULL, np, NULL, &m, &err) == 0, "%s: %zu particles mesh",
	      what, np);
	CHECK(surf_check(&m, &st, &err) == 0 && st.boundary == 0 && st.nonmanifold == 0 &&
	      st.misoriented == 0 && st.degenerate == 0,
	      "%s: closed, oriented 2-manifold, no degenerate triangle", what);
	CHECK(st.euler == 2, "%s: Euler characteristic %ld, expected 2", what, st.euler);
	for (v = 0; v < m.nv; v++) {
		double x[3] = { m.P[3 * v], m.P[3 * v + 1], m.P[3 * v + 2] }, d = dist(x, C);

		lo = fmin(lo, d);
		hi = fmax(hi, d);
	}
	CHECK(lo > re - H && hi < re + H, "%s: vertices %.4f..%.4f from the "
	      "centre, the particles' sphere %.4f +- H", what, lo, hi, re);
	/* both surfaces sit a little inside the particles: the weighted mean
	 * lags at the surface (Zhu-Bridson), and the kernel centres move
	 * inwards by the smoothing of Yu and Turk §5.1 */
	CHECK(fabs(st.volume - V) / V < (kernel == PS_YU_TURK ? 0.10 : 0.05),
	      "%s: volume %.5f vs the particles' %.5f (%.1f%%)", what, st.volume, V,
	      100 * (st.volume - V) / V);
	surf_mesh_free(&m);
	free(P);
}

/* A slab of particles: the kernel of a particle on the top face is flat
 * (shortest axis along y), one in the middle is the round kernel of R. */
static void
test_aniso_shape(void)
{
	ps_params p;
	slc_err err;
	size_t n = 16 * 8 * 16, q = 0, top = 0, mid = 0;
	double *P = malloc(n * 3 * sizeof *P), *xbar = malloc(n * 3 * sizeof *xbar), R;
	float *M = malloc(n * 6 * sizeof *M), *amax = malloc(n * sizeof *amax);
	int i, j, k;

	ps_params_default(&p, H / 2);
	p.kernel = PS_YU_TURK;
	R = p.support * p.radius;
	for (k = 0; k < 16; k++)
		for (j = 0; j < 8; j++)
			for (i = 0; i < 16; i++, q++) {
				P[3 * q] = i * H;
				P[3 * q + 1] = j * H;
				P[3 * q + 2] = k * H;
				if (i == 8 && k == 8 && j == 7)
					top = q;
				if (i == 8 && k == 8 && j == 4)
					mid = q;
			}
	CHECK(ps_aniso(&p, P, n, xbar, M, amax, &err) == 0, "yu-turk: kernels");
	CHECK(M[6 * top + 3] > 4 * M[6 * top] && M[6 * top + 3] > 4 * M[6 * top + 5],
	      "yu-turk: flat kernel on the top face (M yy %.3g, xx %.3g, zz %.3g)",
	      M[6 * top + 3], M[6 * top], M[6 * top + 5]);
	CHECK(fabs(M[6 * mid] * R * R - 1) < 1e-3 && fabs(M[6 * mid + 3] * R * R - 1) < 1e-3 &&
	      fabs(M[6 * mid + 1] * R * R) < 1e-3,
	      "yu-turk: round kernel of radius R inside (M R^2 = %.4f, %.4f)",
	      M[6 * mid] * R * R, M[6 * mid + 3] * R * R);
	CHECK(xbar[3 * top + 1] < P[3 * top + 1] && fabs(xbar[3 * mid + 1] - P[3 * mid + 1]) < 1e-9,
	      "yu-turk: surface centre smoothed inwards, interior centre kept");
	free(P);
	free(xbar);
	free(M);
	free(amax);
}

static void
test_union(void)
{
	ps_params p;
	field g;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	double o[3] = { 0, 0, 0 }, cg[3] = { 0.3, 0.5, 0.5 }, cp[3] = { 0.72, 0.5, 0.5 };
	double rg = 0.15, rp = 0.12, Vg = 4.0 / 3 * M_PI * rg * rg * rg, Vp;
	size_t np, q;
	double *P = blob(cp, rp, &np);
	int i, j, k;

	field_alloc(&g, 50, 50, 50, SLC_CELL, o, 1.0 / 50, &err);
	for (k = 0; k < 50; k++)
		for (j = 0; j < 50; j++)
			for (i = 0; i < 50; i++) {
				double x[3];

				field_pos(&g, i, j, k, x);
				g.a[FIELD_IDX(&g, i, j, k)] = (float)(dist(x, cg) - rg);
			}
	Vp = (double)np * H * H * H;
	ps_params_default(&p, H / 2);
	CHECK(ps_surface(&p, P, NULL, np, &g, &m, &err) == 0, "union: meshes");
	CHECK(surf_check(&m, &st, &err) == 0 && st.boundary == 0 && st.nonmanifold == 0 &&
	      st.misoriented == 0, "union: closed oriented 2-manifold");
	CHECK(st.euler == 4, "union: grid sphere and particle drop, Euler %ld, expected 4",
	      st.euler);
	CHECK(fabs(st.volume - (Vg + Vp)) / (Vg + Vp) < 0.05,
	      "union: volume %.5f vs both spheres %.5f", st.volume, Vg + Vp);
	surf_mesh_free(&m);
	/* refined lattice: the grid sphere alone, twice as fine */
	p.refine = 2;
	CHECK(ps_surface(&p, P, NULL, 0, &g, &m, &err) == 0 &&
	      surf_check(&m, &st, &err) == 0 && st.euler == 2 &&
	      fabs(st.volume - Vg) / Vg < 0.01,
	      "union, refine 2, no particles: the grid sphere (volume %.5f vs %.5f)",
	      st.volume, Vg);
	surf_mesh_free(&m);
	/* particles overlapping the grid sphere merge into one component */
	for (q = 0; q < np; q++)
		P[3 * q] -= 0.2;
	p.refine = 1;
	CHECK(ps_surface(&p, P, NULL, np, &g, &m, &err) == 0 &&
	      surf_check(&m, &st, &err) == 0 && st.euler == 2 && st.boundary == 0,
	      "union: overlapping drop merges into one closed surface (Euler %ld)",
	      st.euler);
	surf_mesh_free(&m);
	field_free(&g);
	free(P);
}

static void
test_threads(int kernel)
{
	ps_params p;
	field a, b;
	slc_err err;
	size_t np;
	double *P = blob(C, 0.2, &np);

	ps_params_default(&p, H / 2);
	p.kernel = kernel;
	ps_lattice(&p, P, np, NULL, &a, &err);
	ps_lattice(&p, P, np, NULL, &b, &err);
	omp_set_num_threads(1);
	ps_sample(&p, P, NULL, np, &a, &err);
	omp_set_num_threads(2);
	ps_sample(&p, P, NULL, np, &b, &err);
	CHECK(field_count(&a) == field_count(&b) &&
	      !memcmp(a.a, b.a, field_count(&a) * sizeof(float)),
	      "%s: 1 and 2 threads give the same field", kernel ? "yu-turk" : "zhu-bridson");
	field_free(&a);
	field_free(&b);
	free(P);
}

static void
test_errors(void)
{
	ps_params p;
	field f;
	slc_err err;
	double x[3] = { 0, 0, 0 };

	ps_params_default(&p, 0);
	CHECK(ps_lattice(&p, x, 1, NULL, &f, &err) < 0 && strstr(err.msg, "radius"),
	      "zero radius refused: %s", err.msg);
	ps_params_default(&p, 0.1);
	p.dx = 1e-9;
	CHECK(ps_lattice(&p, x, 1, NULL, &f, &err) < 0 && strstr(err.msg, "spacing"),
	      "huge lattice refused: %s", err.msg);
	ps_params_default(&p, 0.1);
	CHECK(ps_lattice(&p, x, 0, NULL, &f, &err) < 0, "no particles, no grid refused");
}

int
main(void)
{
	test_one_particle();
	check_blob(PS_ZHU_BRIDSON, "zhu-bridson blob");
	check_blob(PS_YU_TURK, "yu-turk blob");
	test_aniso_shape();
	test_union();
	test_threads(PS_ZHU_BRIDSON);
	test_threads(PS_YU_TURK);
	test_errors();
	return ctest_done();
}
