/* test_sdf.c: mesh -> signed distance (lib/geom/sdf.c, houston2003 §3.1)
 * against brute force: on a triangulated sphere and box, equal to the
 * closest-triangle distance within 1e-5 dx in the band, within 1 dx
 * beyond it, every sign right; a torus against its analytic distance; the same with a hole cut out, flipped and
 * duplicated triangles; thin shells detected; particles; distances past
 * a float refused; thread-count independence. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "meshgen.h"
#include "geom/sdf.h"
#include "geom/tri.h"

#define BAND 3.0
#define BAND_TOL 1e-5           /* in dx: the bound in the band */
#define FAR_TOL 1.0             /* in dx: beyond the band */

typedef struct result {
	double band_err, far_err;   /* max |phi| error, in dx */
	size_t wrong_sign, nband;
} result;

/* Brute force over every triangle: the closest-triangle distance.  A
 * triangle whose bounding sphere is farther than the best so far cannot
 * be closer, which skips most exact evaluations (the tests run under
 * ASan) without changing the result. */
static double
brute_dist(const tmesh *m, const double x[3])
{
	double d = INFINITY;

	for (size_t t = 0; t < m->nt; t++) {
		const double *a = m->P + 3 * m->tri[3 * t];
		const double *b = m->P + 3 * m->tri[3 * t + 1];
		const double *c = m->P + 3 * m->tri[3 * t + 2];
		double cen[3], r2 = 0, e2 = 0, dt;
		for (int q = 0; q < 3; q++) {
			cen[q] = (a[q] + b[q] + c[q]) / 3;
			e2 += (x[q] - cen[q]) * (x[q] - cen[q]);
		}
		for (int q = 0; q < 3; q++)
			r2 = fmax(r2, (a[q] - cen[q]) * (a[q] - cen[q]) +
				      (b[q] - cen[q]) * (b[q] - cen[q]) +
				      (c[q] - cen[q]) * (c[q] - cen[q]));
		if (sqrt(e2) - sqrt(r2) > d)
			continue;
		dt = tri_dist(x, a, b, c);
		if (dt < d)
			d = dt;
	}
	return d;
}

/* Distances against the mesh given to sdf_mesh (dmesh), signs against the
 * intact convex polyhedron (truth). */
static void
compare(const field *phi, const tmesh *dmesh, const tmesh *truth, result *r)
{
	double bw = BAND * phi->dx;

	memset(r, 0, sizeof *r);
	for (int k = 0; k < phi->nk; k++)
		for (int j = 0; j < phi->nj; j++)
			for (int i = 0; i < phi->ni; i++) {
				double x[3], d = INFINITY, e;
				float v = phi->a[FIELD_IDX(phi, i, j, k)];
				field_pos(phi, i, j, k, x);
				d = brute_dist(dmesh, x);
				e = fabs(fabs(v) - d) / phi->dx;
				if (d <= bw) {
					r->nband++;
					if (e > r->band_err)
						r->band_err = e;
				} else if (e > r->far_err) {
					r->far_err = e;
				}
				if (d > 1e-9 && (v < 0) != convex_inside(truth, x))
					r->wrong_sign++;
			}
}

static int
run(field *phi, const tmesh *m, int unsig, sdf_stats *st, slc_err *err)
{
	sdf_opts o = { BAND, unsig, 0 };
	return sdf_mesh(phi, m->P, m->nv, m->tri, m->nt, &o, NULL, st, err);
}

static void
grid(field *phi, int n, double dx, double shift)
{
	double org[3] = { -n * dx / 2 + shift, -n * dx / 2 + 0.37 * shift,
			  -n * dx / 2 - 0.61 * shift };
	field_alloc(phi, n, n, n, SLC_CELL, org, dx, NULL);
}

static void
test_sphere(void)
{
	tmesh m;
	field phi;
	sdf_stats st;
	result r;
	slc_err err;
	double c[3] = { 0.013, -0.021, 0.007 };

	icosphere(&m, 2, 0.35, c);
	grid(&phi, 28, 1.0 / 28, 0.004);
	CHECK(run(&phi, &m, 0, &st, &err) == 0, "sphere: sdf_mesh succeeds");
	compare(&phi, &m, &m, &r);
	CHECK(r.nband > 1000, "sphere: %zu samples in the band", r.nband);
	CHECK(r.band_err <= BAND_TOL, "sphere: band error %.2e dx <= 1e-5",
	      r.band_err);
	CHECK(r.far_err <= FAR_TOL, "sphere: error beyond the band %.3f dx <= 1",
	      r.far_err);
	CHECK(r.wrong_sign == 0, "sphere: %zu wrong signs", r.wrong_sign);
	CHECK(st.lines_odd == 0 && !st.thin_shell,
	      "sphere: closed mesh, no odd line (%zu of %zu)", st.lines_odd,
	      st.lines_hit);
	field_free(&phi);
	tmesh_free(&m);
}

static void
test_box(void)
{
	tmesh m;
	field phi;
	sdf_stats st;
	result r;
	slc_err err;
	/* faces exactly on sample planes and off them */
	double lo[3] = { -0.3, -0.2 + 1.0 / 64, -0.25 }, hi[3] = { 0.3, 0.2, 0.1 };

	boxmesh(&m, lo, hi);
	grid(&phi, 32, 1.0 / 32, 0);
	CHECK(run(&phi, &m, 0, &st, &err) == 0, "box: sdf_mesh succeeds");
	compare(&phi, &m, &m, &r);
	CHECK(r.band_err <= BAND_TOL, "box: band error %.2e dx <= 1e-5",
	      r.band_err);
	CHECK(r.far_err <= FAR_TOL, "box: error beyond the band %.3f dx <= 1",
	      r.far_err);
	CHECK(r.wrong_sign == 0, "box: %zu wrong signs", r.wrong_sign);
	field_free(&phi);
	tmesh_free(&m);
}

/* A torus about the y axis through c: ring radius R, tube radius r, nmaj
 * segments around the ring, nmin around the tube, vertices on the
 * surface, triangles oriented outward. */
static void
torus_mesh(tmesh *m, double R, double r, int nmaj, int nmin, const double c[3])
{
	size_t t = 0;

	m->nv = (size_t)nmaj * nmin;
	m->nt = 2 * m->nv;
	m->P = calloc(3 * m->nv, sizeof *m->P);
	m->tri = calloc(3 * m->nt, sizeof *m->tri);
	for (int i = 0; i < nmaj; i++)
		for (int j = 0; j < nmin; j++) {
			double th = 2 * M_PI * i / nmaj, ph = 2 * M_PI * j / nmin;
			double *p = m->P + 3 * ((size_t)i * nmin + j);
			p[0] = c[0] + (R + r * cos(ph)) * cos(th);
			p[1] = c[1] + r * sin(ph);
			p[2] = c[2] + (R + r * cos(ph)) * sin(th);
		}
	for (int i = 0; i < nmaj; i++)
		for (int j = 0; j < nmin; j++) {
			uint32_t a = (uint32_t)(i * nmin + j);
			uint32_t b = (uint32_t)(i * nmin + (j + 1) % nmin);
			uint32_t e = (uint32_t)((i + 1) % nmaj * nmin + (j + 1) % nmin);
			uint32_t d = (uint32_t)((i + 1) % nmaj * nmin + j);
			uint32_t f[6] = { a, b, e, a, e, d };
			memcpy(m->tri + 3 * t, f, sizeof f);
			t += 2;
		}
}

/* A torus (not convex, with a hole): in the band equal to the brute-force
 * closest-triangle distance; every sign and, beyond the band, the
 * distance against the analytic torus, d = |(rho - R, y)| - r with rho
 * the distance from the axis, up to the tessellation's deviation from it
 * (at most the sagittas of the ring and the tube segments). */
static void
test_torus(void)
{
	const double R = 0.3, r = 0.12, c[3] = { 0.006, -0.011, 0.004 };
	const int nmaj = 48, nmin = 24;
	double h = (R + r) * (1 - cos(M_PI / nmaj)) + r * (1 - cos(M_PI / nmin));
	double band_err = 0, far_err = 0;
	size_t wrong = 0, nfar = 0, nhole = 0;
	tmesh m;
	field phi;
	sdf_stats st;
	slc_err err;

	torus_mesh(&m, R, r, nmaj, nmin, c);
	grid(&phi, 32, 1.0 / 32, 0.003);
	CHECK(run(&phi, &m, 0, &st, &err) == 0, "torus: sdf_mesh succeeds");
	CHECK(st.lines_odd == 0 && !st.thin_shell, "torus: closed, no odd line");
	for (int k = 0; k < phi.nk; k++)
		for (int j = 0; j < phi.nj; j++)
			for (int i = 0; i < phi.ni; i++) {
				double x[3], rho, d, e;
				float v = phi.a[FIELD_IDX(&phi, i, j, k)];
				field_pos(&phi, i, j, k, x);
				rho = hypot(x[0] - c[0], x[2] - c[2]);
				d = hypot(rho - R, x[1] - c[1]) - r;
				if (fabs(d) > h && (v < 0) != (d < 0))
					wrong++;
				if (brute_dist(&m, x) <= BAND * phi.dx) {
					e = fabs(fabs(v) - brute_dist(&m, x)) / phi.dx;
					band_err = fmax(band_err, e);
				} else {
					e = (fabs(fabs(v) - fabs(d)) - h) / phi.dx;
					far_err = fmax(far_err, e);
					nfar++;
					nhole += rho < R - r - BAND * phi.dx;
				}
			}
	CHECK(wrong == 0, "torus: %zu wrong signs (tessellation %.4f dx)", wrong,
	      h / phi.dx);
	CHECK(band_err <= BAND_TOL, "torus: band error %.2e dx <= 1e-5", band_err);
	CHECK(nhole > 0 && far_err <= FAR_TOL,
	      "torus: beyond the band (%zu samples, %zu in the hole), error "
	      "against the analytic distance beyond the tessellation's %.3f dx: "
	      "%.3f dx <= 1", nfar, nhole, h / phi.dx, far_err);
	field_free(&phi);
	tmesh_free(&m);
}

/* Remove the triangles around vertex v (a hole of several triangles). */
static size_t
cut_hole(tmesh *m, uint32_t v)
{
	size_t t, n = 0, cut = 0;

	for (t = 0; t < m->nt; t++) {
		const uint32_t *f = m->tri + 3 * t;
		if (f[0] == v || f[1] == v || f[2] == v) {
			cut++;
			continue;
		}
		memmove(m->tri + 3 * n++, f, 3 * sizeof *f);
	}
	m->nt = n;
	return cut;
}

static void
test_damaged_sphere(void)
{
	tmesh m, truth;
	field phi;
	sdf_stats st;
	result r;
	slc_err err;
	double c[3] = { 0.011, 0.017, -0.009 };
	size_t t, cut, nt0;
	uint32_t *dup;

	icosphere(&truth, 3, 0.35, c);
	icosphere(&m, 3, 0.35, c);
	/* a hole: the fans of two neighbouring vertices, off the axes */
	cut = cut_hole(&m, m.tri[3 * 100]);
	cut += cut_hole(&m, m.tri[3 * 100 + 1]);
	grid(&phi, 26, 1.0 / 26, 0.004);
	CHECK(run(&phi, &m, 0, &st, &err) == 0, "hole: sdf_mesh succeeds: %s",
	      err.msg);
	compare(&phi, &m, &truth, &r);
	CHECK(r.wrong_sign == 0, "hole of %zu triangles: %zu wrong signs "
	      "(%zu odd lines of %zu, %zu ties)", cut, r.wrong_sign,
	      st.lines_odd, st.lines_hit, st.ntie);
	CHECK(st.lines_odd > 0 && !st.thin_shell,
	      "hole: seen by the vote but not a shell (%.3f)", st.odd_fraction);

	/* flip every 5th triangle, duplicate every 7th (some flipped too) */
	nt0 = m.nt;
	dup = calloc(3 * (nt0 + nt0 / 7 + 1), sizeof *dup);
	memcpy(dup, m.tri, 3 * nt0 * sizeof *dup);
	for (t = 0; t < nt0; t += 5) {
		uint32_t s = dup[3 * t + 1];
		dup[3 * t + 1] = dup[3 * t + 2];
		dup[3 * t + 2] = s;
	}
	for (t = 0; t < nt0; t += 7) {
		uint32_t *f = dup + 3 * m.nt++;
		f[0] = dup[3 * t + 2], f[1] = dup[3 * t + 1], f[2] = dup[3 * t];
	}
	free(m.tri);
	m.tri = dup;
	CHECK(run(&phi, &m, 0, &st, &err) == 0,
	      "flipped and duplicated: sdf_mesh succeeds");
	compare(&phi, &m, &truth, &r);
	CHECK(st.nduplicate == nt0 / 7 + 1, "%zu duplicates found",
	      st.nduplicate);
	CHECK(r.wrong_sign == 0,
	      "hole, flipped and duplicated triangles: %zu wrong signs",
	      r.wrong_sign);
	CHECK(r.band_err <= BAND_TOL && r.far_err <= FAR_TOL,
	      "hole: distance to the damaged mesh: band error %.2e dx, beyond %.3f dx",
	      r.band_err, r.far_err);

	/* non-manifold edges: fins from surface edges to a point inside,
	 * so three triangles meet at each of those edges */
	{
		size_t nt1 = m.nt, nf = 0;
		m.P = realloc(m.P, 3 * (m.nv + 1) * sizeof *m.P);
		for (int q = 0; q < 3; q++)
			m.P[3 * m.nv + q] = c[q] + 0.05 * (q + 1);
		m.tri = realloc(m.tri, 3 * (nt1 + 4) * sizeof *m.tri);
		for (t = 0; t < nt1 && nf < 4; t += nt1 / 4, nf++) {
			uint32_t *f = m.tri + 3 * m.nt++;
			f[0] = m.tri[3 * t], f[1] = m.tri[3 * t + 1];
			f[2] = (uint32_t)m.nv;
		}
		m.nv++;
		CHECK(run(&phi, &m, 0, &st, &err) == 0, "fins: sdf_mesh succeeds");
		compare(&phi, &m, &truth, &r);
		CHECK(r.wrong_sign == 0,
		      "hole, flipped, duplicated and %zu inner fins (non-manifold "
		      "edges): %zu wrong signs", nf, r.wrong_sign);
		CHECK(r.band_err <= BAND_TOL, "fins: band error %.2e dx",
		      r.band_err);
	}
	field_free(&phi);
	tmesh_free(&m);
	tmesh_free(&truth);
}

static void
test_shell(void)
{
	tmesh m;
	field phi;
	sdf_stats st;
	slc_err err;
	double c[3] = { 0, 0, 0 };
	size_t t, n = 0;
	double brute_err = 0;

	/* an open cup: the lower half of a sphere */
	icosphere(&m, 2, 0.35, c);
	for (t = 0; t < m.nt; t++) {
		const uint32_t *f = m.tri + 3 * t;
		if (m.P[3 * f[0] + 1] + m.P[3 * f[1] + 1] + m.P[3 * f[2] + 1] < 0)
			memmove(m.tri + 3 * n++, f, 3 * sizeof *f);
	}
	m.nt = n;
	grid(&phi, 24, 1.0 / 24, 0.003);
	CHECK(run(&phi, &m, 0, &st, &err) == -1 && st.thin_shell,
	      "open cup: no consistent inside (%.2f): %s", st.odd_fraction,
	      err.msg);
	CHECK(run(&phi, &m, 1, &st, &err) == 0, "open cup: unsigned works");
	for (int k = 0; k < phi.nk; k++)
		for (int j = 0; j < phi.nj; j++)
			for (int i = 0; i < phi.ni; i++) {
				double x[3], d = INFINITY;
				field_pos(&phi, i, j, k, x);
				d = brute_dist(&m, x);
				if (phi.a[FIELD_IDX(&phi, i, j, k)] < 0)
					brute_err = INFINITY;
				if (d <= BAND * phi.dx)
					brute_err = fmax(brute_err,
							 fabs(phi.a[FIELD_IDX(&phi, i, j, k)] - d));
			}
	CHECK(brute_err / phi.dx <= BAND_TOL,
	      "open cup: unsigned band error %.2e dx, no negative value",
	      brute_err / phi.dx);
	field_free(&phi);
	tmesh_free(&m);
}

static void
test_threads(void)
{
	tmesh m;
	field a, b;
	double c[3] = { 0.02, 0.01, 0 };
	int32_t *ca, *cb;
	int same;

	icosphere(&m, 2, 0.3, c);
	grid(&a, 30, 1.0 / 30, 0.002);
	grid(&b, 30, 1.0 / 30, 0.002);
	ca = calloc(field_count(&a), sizeof *ca);
	cb = calloc(field_count(&a), sizeof *cb);
	sdf_opts o = { BAND, 0, 0 };
	omp_set_num_threads(1);
	sdf_mesh(&a, m.P, m.nv, m.tri, m.nt, &o, ca, NULL, NULL);
	omp_set_num_threads(3);
	sdf_mesh(&b, m.P, m.nv, m.tri, m.nt, &o, cb, NULL, NULL);
	same = !memcmp(a.a, b.a, field_count(&a) * sizeof(float)) &&
	       !memcmp(ca, cb, field_count(&a) * sizeof *ca);
	CHECK(same, "same bytes and closest triangles with 1 and 3 threads");
	free(ca);
	free(cb);
	field_free(&a);
	field_free(&b);
	tmesh_free(&m);
}

static void
test_particles(void)
{
	double P[3 * 40], rad[40], err_band = 0, err_far = 0;
	field phi;
	sdf_opts o = { BAND, 0, 0 };
	size_t np = 40, wrong = 0;
	slc_err err;

	srand(7);
	for (size_t p = 0; p < np; p++) {
		for (int q = 0; q < 3; q++)
			P[3 * p + q] = 0.5 * (rand() / (double)RAND_MAX - 0.5);
		rad[p] = 0.02 + 0.05 * rand() / (double)RAND_MAX;
	}
	grid(&phi, 32, 1.0 / 32, 0.001);
	CHECK(sdf_particles(&phi, P, rad, 0, np, &o, &err) == 0,
	      "particles: succeeds");
	for (int k = 0; k < phi.nk; k++)
		for (int j = 0; j < phi.nj; j++)
			for (int i = 0; i < phi.ni; i++) {
				double x[3], d = INFINITY, v;
				field_pos(&phi, i, j, k, x);
				for (size_t p = 0; p < np; p++) {
					double e = sqrt(pow(x[0] - P[3 * p], 2) +
							pow(x[1] - P[3 * p + 1], 2) +
							pow(x[2] - P[3 * p + 2], 2)) - rad[p];
					d = fmin(d, e);
				}
				v = phi.a[FIELD_IDX(&phi, i, j, k)];
				if ((v < 0) != (d < 0))
					wrong++;
				if (d <= BAND * phi.dx)
					err_band = fmax(err_band, fabs(v - d));
				else
					err_far = fmax(err_far, fabs(v - d));
			}
	CHECK(err_band / phi.dx <= BAND_TOL,
	      "particles: union of spheres exact in the band (%.2e dx)",
	      err_band / phi.dx);
	CHECK(err_far / phi.dx <= FAR_TOL, "particles: beyond %.3f dx <= 1",
	      err_far / phi.dx);
	CHECK(wrong == 0, "particles: %zu wrong signs", wrong);
	field_free(&phi);
}

/* Distance from x to the segment a-b (brute force, for the strands test). */
static double
seg_dist(const double *x, const double *a, const double *b)
{
	double ab[3], ax[3], l2 = 0, t = 0, d2 = 0;

	for (int q = 0; q < 3; q++) {
		ab[q] = b[q] - a[q];
		ax[q] = x[q] - a[q];
		l2 += ab[q] * ab[q];
		t += ab[q] * ax[q];
	}
	t = l2 > 0 ? fmin(fmax(t / l2, 0), 1) : 0;
	for (int q = 0; q < 3; q++)
		d2 += (ax[q] - t * ab[q]) * (ax[q] - t * ab[q]);
	return sqrt(d2);
}

static void
test_strands(void)
{
	/* a bent strand of three points, a straight one of two, and a
	 * one-point strand (a sphere); radius 0.04 m for all */
	const double P[3 * 6] = { -0.3, -0.2, 0,  -0.1, 0.1, 0.05,  0.1, 0.15, -0.1,
				  0.0, -0.25, 0.2,  0.3, -0.1, 0.25,
				  0.25, 0.25, 0.25 };
	const uint32_t off[4] = { 0, 3, 5, 6 }, bad[4] = { 0, 3, 2, 6 };
	const double r = 0.04;
	double err_band = 0, err_far = 0;
	field phi;
	sdf_opts o = { BAND, 0, 0 };
	size_t wrong = 0;
	slc_err err;

	grid(&phi, 32, 1.0 / 32, 0.001);
	CHECK(sdf_strands(&phi, P, NULL, r, 6, off, 3, &o, &err) == 0,
	      "strands: succeeds");
	for (int k = 0; k < phi.nk; k++)
		for (int j = 0; j < phi.nj; j++)
			for (int i = 0; i < phi.ni; i++) {
				double x[3], v;
				field_pos(&phi, i, j, k, x);
				double d = fmin(fmin(seg_dist(x, P, P + 3), seg_dist(x, P + 3, P + 6)),
						fmin(seg_dist(x, P + 9, P + 12),
						     seg_dist(x, P + 15, P + 15))) - r;
				v = phi.a[FIELD_IDX(&phi, i, j, k)];
				if ((v < 0) != (d < 0))
					wrong++;
				if (d <= BAND * phi.dx)
					err_band = fmax(err_band, fabs(v - d));
				else
					err_far = fmax(err_far, fabs(v - d));
			}
	CHECK(err_band / phi.dx <= BAND_TOL,
	      "strands: union of capsules exact in the band (%.2e dx)", err_band / phi.dx);
	CHECK(err_far / phi.dx <= FAR_TOL, "strands: beyond %.3f dx <= 1",
	      err_far / phi.dx);
	CHECK(wrong == 0, "strands: %zu wrong signs", wrong);
	CHECK(sdf_strands(&phi, P, NULL, r, 6, bad, 3, &o, &err) != 0 &&
	      strstr(err.msg, "strand 1"), "strands: falling offsets refused (%s)", err.msg);
	field_free(&phi);
}

/* A level set is stored in float: two one-point strands at x = 1e300 m
 * and 3.4e38 m on one cell of dx 1e300 m (what mklevelset placed around
 * them with --radius 1e300) gave Inf everywhere with success. */
static void
test_strands_beyond_float(void)
{
	const double P[3 * 2] = { 1e300, -3.05, -0.06,  3.4028234663852886e38, -2.76, -0.625 };
	const double rad[2] = { 0, 0 }, org[3] = { 3.4028234663852886e38, -3.05, -0.625 };
	const double Prow[3] = { -2.5e38, 0.5e38, 0.5e38 }, org_row[3] = { -3e38, 0, 0 };
	const uint32_t off[3] = { 0, 1, 2 };
	sdf_opts o = { BAND, 0, 0 };
	field phi;
	slc_err err;

	field_alloc(&phi, 1, 1, 1, SLC_CELL, org, 1e300, NULL);
	CHECK(sdf_strands(&phi, P, rad, 1e300, 2, off, 2, &o, &err) != 0 &&
	      strstr(err.msg, "float"), "strands: a distance past FLT_MAX refused (%s)",
	      err.msg);
	field_free(&phi);
	/* a particle in the first of 8 cells of 1e38 m: the last samples lie
	 * 6e38 and 7e38 m from it */
	field_alloc(&phi, 8, 1, 1, SLC_CELL, org_row, 1e38, NULL);
	CHECK(sdf_particles(&phi, Prow, rad, 0, 1, &o, &err) != 0 &&
	      strstr(err.msg, "particle 0"),
	      "particles: a distance past FLT_MAX refused naming the particle (%s)", err.msg);
	field_free(&phi);
}

/* A mesh near 1e30..3.4e38 m on 5^3 cells of 6.8e38 m (what kdsm's
 * lattice placed around it, fuzz/regress/kdsmbake): the plane cut of a
 * row gave a sample index of -1e10, cast to int (undefined; caught by
 * the sanitizers of `make asan`). */
static void
test_mesh_far_row(void)
{
	static const double P[] = {
		0x1.70da5p+100, -0x1.cf4b1ap+98, -0x1.68a1ccp+99,
		-0x1.126988p+99, 0x1.b3eb8cp+97, 0x1.652a52p+100,
		0x1.d28d56p+99, 0x1.da34e6p+99, -0x1.8b4cap+97,
		0x1.85093cp+99, 0x1.0960cp+100, -0x1.84f064p+97,
		0x1.023c8ap+100, 0x1.def2f8p+99, 0x1.5d28d4p+100,
		0x1.fffffep+127, 0x1.a8105cp+99, 0x1.40a62cp+100,
		0x1.99dd3ap+99, 0x1.d9fc18p+99, 0x1.3c151p+100,
		-0x1.2d2ce4p+99, -0x1.2eec2ep+99, 0x1.a6a188p+101,
		0x1.35d5d2p+100, 0x1.7070b4p+101, -0x1.93e594p+99,
		-0x1.2ed6e2p+99, 0x1.fdad9cp+99, -0x1.739d58p+99,
		0x1.ba771cp+97, 0x1.5b7854p+100, 0x1.cf4b1ap+100,
		0x1.5b7854p+100, 0x1.5b7854p+100, 0x1.cf4b1ap+100,
		0x1.5b7854p+100, 0x1.f67ecp+99, -0x1.832ap+97,
		0x1.85093cp+99, 0x1.0960cp+100, -0x1.84f064p+97,
	};
	static const uint32_t tri[] = {
		3, 3, 3,
		3, 3, 3,
		3, 10, 5,
		6, 6, 3,
		12, 5, 10,
		5, 6, 1,
		10, 4, 2,
		6, 6, 6,
		10, 10, 6,
		2, 4, 6,
		13, 10, 5,
		11, 2, 4,
	};
	const double org[3] = { -0x1.fffffe17a8c9ap+129, -0x1.fffffe17a91eep+129, -0x1.fffffe193d047p+129 };
	sdf_opts o = { 3, 0, 0 };
	field phi;
	slc_err err;
	int rc;

	field_alloc(&phi, 5, 5, 5, SLC_NODE, org, 0x1.fffffe12ed6e2p+128, NULL);
	rc = sdf_mesh(&phi, P, sizeof P / sizeof *P / 3, tri, sizeof tri / sizeof *tri / 3,
		      &o, NULL, NULL, &err);
	CHECK(rc != 0 && strstr(err.msg, "float"),
	      "mesh near FLT_MAX: rows cut without an int overflow, the level set refused (%s)",
	      rc ? err.msg : "success");
	field_free(&phi);
}

static void
test_place_narrow(void)
{
	double lo[3] = { -0.3, -0.1, 0 }, hi[3] = { 0.3, 0.1, 0.2 };
	slc_grid g;
	slc_err err;
	tmesh m;
	field full, nar;
	double c[3] = { 0, 0, 0 };
	size_t bad = 0;

	CHECK(sdf_place(lo, hi, 2, 0.05, 0, &g, &err) == 0 && g.ni == 16 &&
	      g.nj == 8 && g.nk == 8 && fabs(g.origin[0] + 0.4) < 1e-12,
	      "place by dx: %dx%dx%d", g.ni, g.nj, g.nk);
	CHECK(sdf_place(lo, hi, 2, 0, 16, &g, &err) == 0 && g.ni == 16 &&
	      fabs(g.dx - 0.05) < 1e-12, "place by res: dx %g", g.dx);
	CHECK(sdf_place(lo, hi, 8, 0, 16, &g, &err) == -1,
	      "res inside the margin refused: %s", err.msg);
	/* narrow: the band as in the full run, +-band*dx beyond */
	icosphere(&m, 2, 0.3, c);
	grid(&full, 24, 1.0 / 24, 0.002);
	grid(&nar, 24, 1.0 / 24, 0.002);
	sdf_opts of = { BAND, 0, 0 }, on = { BAND, 0, 1 };
	sdf_mesh(&full, m.P, m.nv, m.tri, m.nt, &of, NULL, NULL, NULL);
	sdf_mesh(&nar, m.P, m.nv, m.tri, m.nt, &on, NULL, NULL, NULL);
	for (size_t q = 0; q < field_count(&full); q++) {
		float bw = (float)(BAND * full.dx);
		if (fabs(full.a[q]) <= bw ? nar.a[q] != full.a[q]
					  : fabs(nar.a[q]) != bw ||
					    (nar.a[q] < 0) != (full.a[q] < 0))
			bad++;
	}
	CHECK(bad == 0, "narrow: band equal, +-band*dx beyond (%zu bad)", bad);
	{
		/* a grid wholly beyond the band: exact distances everywhere */
		field far;
		double org[3] = { 0.5, 0.1, -0.2 }, worst = 0;
		size_t wrong = 0;
		field_alloc(&far, 6, 5, 4, SLC_CELL, org, 0.03, NULL);
		CHECK(sdf_mesh(&far, m.P, m.nv, m.tri, m.nt, &of, NULL, NULL,
			       NULL) == 0, "far grid: succeeds");
		for (int k = 0; k < 4; k++)
			for (int j = 0; j < 5; j++)
				for (int i = 0; i < 6; i++) {
					double x[3];
					float v = far.a[FIELD_IDX(&far, i, j, k)];
					field_pos(&far, i, j, k, x);
					worst = fmax(worst, fabs(v - brute_dist(&m, x)));
					wrong += v <= 0;
				}
		CHECK(worst < 1e-6 && !wrong,
		      "far grid: exact distance %.1e, positive", worst);
		field_free(&far);
	}
	field_free(&full);
	field_free(&nar);
	tmesh_free(&m);
}

int
main(void)
{
	test_sphere();
	test_box();
	test_torus();
	test_damaged_sphere();
	test_shell();
	test_threads();
	test_particles();
	test_strands();
	test_strands_beyond_float();
	test_mesh_far_row();
	test_place_narrow();
	return ctest_done();
}
