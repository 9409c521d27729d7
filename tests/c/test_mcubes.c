/* test_mcubes.c: marching cubes against shapes whose area, volume and
 * topology are known.  A sphere at 64^3: area and enclosed volume within
 * 1% of 4 pi r^2 and 4/3 pi r^3, every edge shared by two triangles
 * traversing it in opposite directions, Euler characteristic 2, no
 * degenerate triangle, normals along the radius.  A torus: Euler 0, area
 * and volume within 1%.  Noise (every ambiguous case, many times): closed,
 * manifold, oriented.  A grid full of liquid: closed at the domain walls,
 * the box's exact volume.  The same bytes from 1 and 2 threads.  Taubin
 * smoothing keeps the volume and makes a noisy sphere rounder. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "liquid/mcubes.h"
#include "liquid/surface.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double C[3] = { 0.503, 0.497, 0.51 };

static void
make_grid(field *f, int n, int stagger)
{
	double o[3] = { 0, 0, 0 };
	slc_err err;

	if (field_alloc(f, n, n, n, stagger, o, 1.0 / n, &err)) {
		printf("not ok - field_alloc: %s\n", err.msg);
		exit(1);
	}
}

static double
sphere_phi(const double x[3], double r)
{
	return sqrt((x[0] - C[0]) * (x[0] - C[0]) + (x[1] - C[1]) * (x[1] - C[1]) +
		    (x[2] - C[2]) * (x[2] - C[2])) - r;
}

static void
fill_sphere(field *f, double r, double noise)
{
	int i, j, k;

	srand(7);
	for (k = 0; k < f->nk; k++)
		for (j = 0; j < f->nj; j++)
			for (i = 0; i < f->ni; i++) {
				double x[3];

				field_pos(f, i, j, k, x);
				f->a[FIELD_IDX(f, i, j, k)] = (float)(sphere_phi(x, r) +
					noise * f->dx * (2.0 * rand() / RAND_MAX - 1));
			}
}

static int
closed_manifold(const surf_mesh *m, surf_stats *st, const char *what)
{
	slc_err err;
	int ok = surf_check(m, st, &err) == 0;

	CHECK(ok, "%s: topology check runs", what);
	CHECK(ok && m->nt > 0 && st->boundary == 0 && st->nonmanifold == 0,
	      "%s: every edge shared by exactly two triangles (%zu triangles, "
	      "%zu boundary, %zu non-manifold edges)", what, m->nt, st->boundary,
	      st->nonmanifold);
	CHECK(ok && st->misoriented == 0,
	      "%s: consistent orientation (%zu misoriented edges)", what,
	      st->misoriented);
	CHECK(ok && st->degenerate == 0 && st->unused == 0,
	      "%s: no degenerate triangle, no unused vertex (%zu, %zu; min area "
	      "%.3g, min edge %.3g)", what, st->degenerate, st->unused,
	      st->min_area, st->min_edge);
	return ok;
}

/* The normals mc_mesh interpolates along edges equal those mc_normals
 * computes at the vertex positions (the same gradient, two code paths). */
static void
same_normals(const field *f, surf_mesh *m, const char *what)
{
	float *N = malloc(m->nv * 3 * sizeof *N + 1);
	double worst = 0;
	size_t q;

	memcpy(N, m->N, m->nv * 3 * sizeof *N);
	mc_normals(f, 0, m);
	for (q = 0; q < 3 * m->nv; q++)
		worst = fmax(worst, fabs(N[q] - m->N[q]));
	CHECK(worst < 1e-4, "%s: edge normals equal mc_normals at the vertices "
	      "(worst %.2g)", what, worst);
	memcpy(m->N, N, m->nv * 3 * sizeof *N);
	free(N);
}

static void
test_table(void)
{
	slc_err err;
	int rc = mc_table_check(&err);

	CHECK(rc == 0, "case table: all 256 cases close and triangulate (%s)",
	      rc ? err.msg : "ok");
}

static void
test_sphere(int stagger)
{
	const double r = 0.3;
	field f;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	double A = 4 * M_PI * r * r, V = 4.0 / 3 * M_PI * r * r * r, worst = 0;
	size_t v;
	const char *what = stagger == SLC_CELL ? "sphere 64^3 cells" : "sphere 64^3 nodes";

	make_grid(&f, 64, stagger);
	fill_sphere(&f, r, 0);
	CHECK(mc_mesh(&f, 0, &m, &err) == 0, "%s: meshes", what);
	if (closed_manifold(&m, &st, what)) {
		CHECK(st.euler == 2, "%s: Euler characteristic %ld, expected 2", what,
		      st.euler);
		CHECK(fabs(st.area - A) / A < 0.01, "%s: area %.6f vs 4 pi r^2 = %.6f "
		      "(%.3f%%)", what, st.area, A, 100 * (st.area - A) / A);
		CHECK(st.volume > 0 && fabs(st.volume - V) / V < 0.01,
		      "%s: enclosed volume %.6f vs 4/3 pi r^3 = %.6f (%.3f%%)", what,
		      st.volume, V, 100 * (st.volume - V) / V);
		CHECK(st.min_edge > 1e-3 / 64, "%s: shortest edge %.3g dx >= 1e-3 dx",
		      what, st.min_edge * 64);
	}
	for (v = 0; v < m.nv; v++) {
		double d[3], l, dot = 0;
		int a;

		for (a = 0; a < 3; a++)
			d[a] = m.P[3 * v + a] - C[a];
		l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		for (a = 0; a < 3; a++)
			dot += m.N[3 * v + a] * d[a] / l;
		if (1 - dot > worst)
			worst = 1 - dot;
	}
	CHECK(m.nv > 0 && worst < 2e-3, "%s: gradient normals along the radius "
	      "(worst 1 - cos %.2g)", what, worst);
	same_normals(&f, &m, what);
	surf_mesh_free(&m);
	field_free(&f);
}

static void
test_torus(void)
{
	const double R = 0.25, r = 0.1;
	double A = 4 * M_PI * M_PI * R * r, V = 2 * M_PI * M_PI * R * r * r;
	field f;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	int i, j, k;

	make_grid(&f, 64, SLC_CELL);
	for (k = 0; k < f.nk; k++)
		for (j = 0; j < f.nj; j++)
			for (i = 0; i < f.ni; i++) {
				double x[3], q;

				field_pos(&f, i, j, k, x);
				x[0] -= C[0];
				x[1] -= C[1];
				x[2] -= C[2];
				q = sqrt(x[0] * x[0] + x[2] * x[2]) - R;
				f.a[FIELD_IDX(&f, i, j, k)] = (float)(sqrt(q * q + x[1] * x[1]) - r);
			}
	CHECK(mc_mesh(&f, 0, &m, &err) == 0, "torus: meshes");
	if (closed_manifold(&m, &st, "torus")) {
		CHECK(st.euler == 0, "torus: Euler characteristic %ld, expected 0",
		      st.euler);
		CHECK(fabs(st.area - A) / A < 0.01, "torus: area %.6f vs %.6f", st.area, A);
		CHECK(fabs(st.volume - V) / V < 0.01, "torus: volume %.6f vs %.6f",
		      st.volume, V);
	}
	surf_mesh_free(&m);
	field_free(&f);
}

/* Random signs at every sample: every case, ambiguous faces everywhere,
 * and exact zeros (which count as outside). */
static void
test_noise(void)
{
	field f;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	size_t q;

	make_grid(&f, 23, SLC_CELL);
	srand(11);
	for (q = 0; q < field_count(&f); q++) {
		int r = rand() % 9;

		f.a[q] = r == 0 ? 0.0f : (float)(r - 4.5) * 1e-3f;
	}
	CHECK(mc_mesh(&f, 0, &m, &err) == 0, "noise: meshes");
	if (closed_manifold(&m, &st, "noise 23^3"))
		CHECK(st.volume > 0, "noise: positive enclosed volume %.4g", st.volume);
	surf_mesh_free(&m);
	/* the same at a nonzero iso value */
	CHECK(mc_mesh(&f, 2e-3, &m, &err) == 0, "noise at iso 2e-3: meshes");
	closed_manifold(&m, &st, "noise 23^3, iso 2e-3");
	surf_mesh_free(&m);
	field_free(&f);
}

/* Grids of odd shapes, down to one sample: closed and manifold at the
 * edges of the blocks and of the grid. */
static void
test_shapes(void)
{
	static const int dims[][3] = { { 1, 1, 1 }, { 2, 3, 1 }, { 9, 17, 8 }, { 1, 30, 2 } };
	double o[3] = { -1, 2, 0.5 };
	unsigned d;

	srand(13);
	for (d = 0; d < sizeof dims / sizeof dims[0]; d++) {
		field f;
		surf_mesh m;
		surf_stats st;
		slc_err err;
		char what[64];
		size_t q;
		int ok;

		field_alloc(&f, dims[d][0], dims[d][1], dims[d][2], SLC_CELL, o, 0.1, &err);
		for (q = 0; q < field_count(&f); q++)
			f.a[q] = (float)(rand() % 5 - 2) * 0.01f;
		f.a[0] = -0.01f;        /* at least one sample inside */
		snprintf(what, sizeof what, "grid %dx%dx%d", dims[d][0], dims[d][1],
			 dims[d][2]);
		ok = mc_mesh(&f, 0, &m, &err) == 0 && surf_check(&m, &st, &err) == 0;
		CHECK(ok && m.nt > 0 && st.boundary == 0 && st.nonmanifold == 0 &&
		      st.misoriented == 0 && st.degenerate == 0 && st.volume > 0,
		      "%s of random signs: closed oriented 2-manifold", what);
		surf_mesh_free(&m);
		field_free(&f);
	}
}

static void
test_full_box(void)
{
	field f;
	surf_mesh m;
	surf_stats st;
	slc_err err;
	size_t q;

	make_grid(&f, 19, SLC_CELL);
	for (q = 0; q < field_count(&f); q++)
		f.a[q] = -0.2f;
	CHECK(mc_mesh(&f, 0, &m, &err) == 0, "full box: meshes");
	if (closed_manifold(&m, &st, "full box")) {
		double dx = f.dx, far = 0;
		size_t v;
		int a;

		/* every vertex on a wall: one coordinate is 0 or 1 */
		for (v = 0; v < m.nv; v++) {
			double near = 1;

			for (a = 0; a < 3; a++)
				near = fmin(near, fmin(fabs(m.P[3 * v + a]),
						       fabs(m.P[3 * v + a] - 1)));
			far = fmax(far, near);
		}
		CHECK(st.euler == 2, "full box: Euler characteristic %ld", st.euler);
		same_normals(&f, &m, "full box");
		CHECK(far < 1e-6, "full box: closed on the domain walls (farthest "
		      "vertex %.2g from a wall)", far);
		/* the 12 box edges are chamfered by right triangles with legs
		 * dx/2: 12 * dx^2/8 of volume less, up to O(dx^3) at corners */
		CHECK(fabs(st.volume - (1 - 1.5 * dx * dx)) < 0.05 * dx * dx,
		      "full box: volume %.7f vs 1 - 1.5 dx^2 = %.7f", st.volume,
		      1 - 1.5 * dx * dx);
	}
	surf_mesh_free(&m);
	for (q = 0; q < field_count(&f); q++)
		f.a[q] = 0.2f;
	CHECK(mc_mesh(&f, 0, &m, &err) == 0 && m.nv == 0 && m.nt == 0,
	      "no liquid: empty mesh");
	surf_mesh_free(&m);
	field_free(&f);
}

static void
test_threads(void)
{
	field f;
	surf_mesh a, b;
	slc_err err;
	int same;

	make_grid(&f, 64, SLC_CELL);
	fill_sphere(&f, 0.35, 0.3);
	omp_set_num_threads(1);
	mc_mesh(&f, 0, &a, &err);
	omp_set_num_threads(2);
	mc_mesh(&f, 0, &b, &err);
	same = a.nv == b.nv && a.nt == b.nt &&
	       !memcmp(a.P, b.P, a.nv * 3 * sizeof(float)) &&
	       !memcmp(a.N, b.N, a.nv * 3 * sizeof(float)) &&
	       !memcmp(a.tri, b.tri, a.nt * 3 * sizeof(uint32_t));
	CHECK(a.nt > 0 && same, "1 and 2 threads: the same mesh, byte for byte");
	surf_mesh_free(&a);
	surf_mesh_free(&b);
	field_free(&f);
}

/* RMS distance of the vertices from the sphere of radius r */
static double
rms_off(const surf_mesh *m, double r)
{
	double s = 0;
	size_t v;

	for (v = 0; v < m->nv; v++) {
		double x[3] = { m->P[3 * v], m->P[3 * v + 1], m->P[3 * v + 2] };
		double d = sphere_phi(x, r);

		s += d * d;
	}
	return sqrt(s / (double)m->nv);
}

static void
test_smooth(void)
{
	const double r = 0.3;
	field f;
	surf_mesh m;
	surf_stats s0, s1;
	slc_err err;
	double e0, e1, verr;

	make_grid(&f, 48, SLC_CELL);
	fill_sphere(&f, r, 0.25);
	CHECK(mc_mesh(&f, 0, &m, &err) == 0, "noisy sphere: meshes");
	surf_check(&m, &s0, &err);
	e0 = rms_off(&m, r);
	CHECK(surf_smooth(&m, 10, &verr, &err) == 0, "smooth: 10 Taubin passes run");
	e1 = rms_off(&m, r);
	closed_manifold(&m, &s1, "smoothed sphere");
	CHECK(fabs(s1.volume - s0.volume) / s0.volume < 1e-4 && fabs(verr) < 1e-4,
	      "smooth: volume kept, %.7f -> %.7f (%.2g)", s0.volume, s1.volume, verr);
	CHECK(e1 < 0.6 * e0, "smooth: rms distance from the sphere %.3g dx -> %.3g dx",
	      e0 * 48, e1 * 48);
	mc_normals(&f, 0, &m);
	{
		double worst = 0;
		size_t v;

		for (v = 0; v < m.nv; v++) {
			double l = 0, dot = 0;
			int a;

			for (a = 0; a < 3; a++)
				l += (m.P[3 * v + a] - C[a]) * (m.P[3 * v + a] - C[a]);
			for (a = 0; a < 3; a++)
				dot += m.N[3 * v + a] * (m.P[3 * v + a] - C[a]) / sqrt(l);
			worst = fmax(worst, 1 - dot);
		}
		CHECK(worst < 0.1, "mc_normals after smoothing: outward (worst 1 - cos %.2g)",
		      worst);
	}
	surf_mesh_free(&m);
	field_free(&f);
}

int
main(void)
{
	test_table();
	test_sphere(SLC_CELL);
	test_sphere(SLC_NODE);
	test_torus();
	test_noise();
	test_shapes();
	test_full_box();
	test_threads();
	test_smooth();
	return ctest_done();
}
