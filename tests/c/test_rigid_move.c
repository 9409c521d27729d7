/* test_rigid_move: rigid bodies moved by advect (lib/fluid/rigid_move.c,
 * lib/fluid/rigid_set.c): exact scripted paths and stops, exact rotation of a
 * spinning body, torque-free motion, level sets carried without drift,
 * frames without orientation or body-frame level set, bad records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "fluid/rigid_move.h"
#include "fluid/rigid_set.h"
#include "core/slc.h"

static rigid_body
ball(void)
{
	rigid_body b = {.P = {0.5, 0.6, 0.4}, .q = {0, 0, 0, 1}, .stop = INFINITY, .mass = 2};
	b.inertia[0] = b.inertia[4] = b.inertia[8] = 0.02;
	return b;
}

/* irregular substeps summing to T, like CFL substeps */
static double
substep(int s, int n, double T)
{
	double w = 1 + 0.5 * sin(3.0 * s), sum = 0;
	for (int q = 0; q < n; q++)
		sum += 1 + 0.5 * sin(3.0 * q);
	return T * w / sum;
}

static void
scripted_paths(void)
{
	rigid_body b = ball();
	double v0[3] = {1.5, 2.5, -0.5}, a[3] = {0, -9.81, 0.3}, T = 0.37, t = 0, err = 0;
	b.scripted = 1;
	memcpy(b.v, v0, sizeof v0);
	memcpy(b.accel, a, sizeof a);
	for (int s = 0; s < 41; s++) {
		double dt = substep(s, 41, T);
		rigid_body_step(&b, (double[3]){0, 100, 0}, t, dt);     /* g ignored */
		t += dt;
	}
	for (int e = 0; e < 3; e++)
		err = fmax(err, fabs(b.P[e] - (ball().P[e] + v0[e] * T + 0.5 * a[e] * T * T)));
	CHECK(err < 1e-12, "thrown scripted body: P0 + v0 t + a t^2/2 after 41 substeps (error %.2g)", err);
	CHECK(fabs(b.v[1] - (v0[1] + a[1] * T)) < 1e-12, "thrown scripted body: v = v0 + a t");

	/* the thesis §2.9 ball: linear from (1.25,.55,.5) to (.8,.1,.5) in 0.075 s */
	rigid_body c = ball();
	double P0[3] = {1.25, 0.55, 0.5};
	memcpy(c.P, P0, sizeof P0);
	c.scripted = 1, c.stop = 0.075;
	c.v[0] = c.v[1] = -0.45 / 0.075;
	t = 0;
	for (int s = 0; s < 12; s++) {
		rigid_body_step(&c, NULL, t, 1.0 / 120);
		t += 1.0 / 120;
	}
	CHECK(fabs(c.P[0] - 0.8) < 1e-12 && fabs(c.P[1] - 0.1) < 1e-12 && c.P[2] == 0.5,
	      "scripted body stops at its stop time inside a substep: at (%.9g, %.9g)", c.P[0], c.P[1]);
	CHECK(c.v[0] == 0 && c.v[1] == 0, "and is at rest after it");
}

static void
dynamic_fall(void)
{
	rigid_body b = ball();
	double g[3] = {0, -9.81, 0}, t = 0, T = 0.25;
	b.v[0] = 0.3;
	for (int s = 0; s < 17; s++) {
		double dt = substep(s, 17, T);
		rigid_body_step(&b, g, t, dt);
		t += dt;
	}
	CHECK(fabs(b.P[1] - (0.6 - 0.5 * 9.81 * T * T)) < 1e-12 && fabs(b.P[0] - (0.5 + 0.3 * T)) < 1e-12,
	      "dynamic body in free fall: exact parabola (y %.9g)", b.P[1]);
	rigid_body s = ball();
	s.scripted = 1, s.v[1] = 1;
	rigid_body_step(&s, g, 0, 0.1);
	CHECK(s.v[1] == 1 && fabs(s.P[1] - 0.7) < 1e-15, "scripted body ignores gravity");
}

static void
spinning(void)
{
	rigid_body b = ball();
	double w = 2 * M_PI * 1.3, ax[3] = {1 / sqrt(3), -1 / sqrt(3), 1 / sqrt(3)}, t = 0, T = 0.9;
	double worst = 0;
	for (int e = 0; e < 3; e++)
		b.omega[e] = w * ax[e];
	b.scripted = 1;
	for (int s = 0; s < 200; s++) {
		double dt = substep(s, 200, T);
		rigid_body_step(&b, NULL, t, dt);
		t += dt;
		worst = fmax(worst, fabs(b.q[0] * b.q[0] + b.q[1] * b.q[1] + b.q[2] * b.q[2] +
					 b.q[3] * b.q[3] - 1));
	}
	CHECK(worst < 1e-14, "spinning body: |q| = 1 at every step (worst %.2g)", worst);
	double h = 0.5 * w * T, q[4] = {sin(h) * ax[0], sin(h) * ax[1], sin(h) * ax[2], cos(h)};
	double dot = fabs(q[0] * b.q[0] + q[1] * b.q[1] + q[2] * b.q[2] + q[3] * b.q[3]);
	CHECK(fabs(dot - 1) < 1e-12, "spinning body: orientation = rotation by |omega| t (1 - |q.q_exact| = %.2g)",
	      1 - dot);
	double x[3] = {1, 0, 0}, y[3], z[3];
	rigid_rotate(b.q, x, y);
	rigid_rotate_inv(b.q, y, z);
	CHECK(fabs(z[0] - 1) < 1e-14 && fabs(z[1]) < 1e-14, "rotate then rotate back is the identity");
	CHECK(fabs(b.inertia[0] - 0.02) < 1e-15 && fabs(b.inertia[1]) < 1e-15,
	      "isotropic inertia stays isotropic");
}

/* a box with half extents 0.3, 0.1, 0.05 spinning about a tilted axis:
 * angular momentum exact, kinetic energy nearly so */
static void
torque_free(void)
{
	rigid_body b = ball();
	double m = 1, hx = 0.3, hy = 0.1, hz = 0.05;
	memset(b.inertia, 0, sizeof b.inertia);
	b.inertia[0] = m / 3 * (hy * hy + hz * hz);
	b.inertia[4] = m / 3 * (hx * hx + hz * hz);
	b.inertia[8] = m / 3 * (hx * hx + hy * hy);
	b.omega[0] = 0.2, b.omega[1] = 5, b.omega[2] = 0.3;
	double L0[3], E0 = 0, L[3], E = 0;
	for (int a = 0; a < 3; a++)
		L0[a] = b.inertia[4 * a] * b.omega[a], E0 += 0.5 * b.omega[a] * L0[a];
	for (int s = 0; s < 2000; s++)
		rigid_body_step(&b, NULL, s * 1e-3, 1e-3);
	for (int a = 0; a < 3; a++) {
		L[a] = b.inertia[3 * a] * b.omega[0] + b.inertia[3 * a + 1] * b.omega[1] +
		       b.inertia[3 * a + 2] * b.omega[2];
		E += 0.5 * b.omega[a] * L[a];
	}
	double dL = fabs(L[0] - L0[0]) + fabs(L[1] - L0[1]) + fabs(L[2] - L0[2]);
	CHECK(dL < 1e-12, "torque-free body: angular momentum kept (%.2g)", dL);
	CHECK(fabs(E / E0 - 1) < 0.02, "torque-free body: kinetic energy within 2%% over 2 s (%.3g%%)",
	      100 * (E / E0 - 1));
	CHECK(fabs(b.inertia[1] - b.inertia[3]) < 1e-15, "world inertia stays symmetric");
}

static double
box_sdf(const double x[3], const double h[3])
{
	double out = 0, in = -1e30;
	for (int a = 0; a < 3; a++) {
		double q = fabs(x[a]) - h[a];
		out += q > 0 ? q * q : 0;
		in = q > in ? q : in;
	}
	return sqrt(out) + (in < 0 ? in : 0);
}

/* a frame: rigid (one box body at P), rigid_phi0 (body frame) or, with
 * old = 1, rigid_phi on the cells and no orientation */
static void
box_frame(slc_rec *rec, int old, const double P[3], const field *cells)
{
	slc_err err;
	const double h[3] = {0.2, 0.1, 0.06};
	slc_rec_init(&rec[0], SLC_PARTICLES, "rigid");
	double *p = slc_rec_add(&rec[0], "P", SLC_F64, 3, SLC_POINT, 1, &err);
	double *m = slc_rec_add(&rec[0], "mass", SLC_F64, 1, SLC_POINT, 1, &err);
	double *I = slc_rec_add(&rec[0], "inertia", SLC_F64, 9, SLC_POINT, 1, &err);
	slc_rec_add(&rec[0], "v", SLC_F32, 3, SLC_POINT, 1, &err);
	double *w = slc_rec_add(&rec[0], "omega", SLC_F64, 3, SLC_POINT, 1, &err);
	memcpy(p, P, 3 * sizeof *p);
	m[0] = 1, I[0] = I[4] = I[8] = 0.01;
	w[2] = 2 * M_PI;
	int ni, nj, nk;
	field_cell_dims(cells, &ni, &nj, &nk);
	slc_grid g = old ? (slc_grid){ni, nj, nk, SLC_CELL,
				      {cells->origin[0], cells->origin[1], cells->origin[2]}, cells->dx}
			 : (slc_grid){24, 24, 24, SLC_CELL, {-0.3, -0.3, -0.3}, 0.025};
	float *d = slc_grid_new(&rec[1], old ? "rigid_phi" : "rigid_phi0", &g, 1, &err);
	for (int k = 0; k < g.nk; k++)
		for (int j = 0; j < g.nj; j++)
			for (int i = 0; i < g.ni; i++) {
				double x[3] = {g.origin[0] + (i + .5) * g.dx, g.origin[1] + (j + .5) * g.dx,
					       g.origin[2] + (k + .5) * g.dx};
				if (old)
					for (int a = 0; a < 3; a++)
						x[a] -= P[a];
				d[i + g.ni * (j + g.nj * k)] = (float)box_sdf(x, h);
			}
}

/* The records rec[0..n) moved into a new frame F (rec[] left empty). */
static void
to_frame(slc_frame *F, slc_rec *rec, size_t n)
{
	slc_err err;

	slc_frame_init(F);
	for (size_t r = 0; r < n; r++)
		slc_frame_put(F, &rec[r], &err);
}

static void
level_sets(void)
{
	slc_err err;
	field cells;
	rigid_set rs;
	slc_rec rec[4];
	slc_frame F;
	double P[3] = {0.5, 0.5, 0.5};
	size_t nrec = 2;

	field_alloc(&cells, 40, 40, 40, SLC_FACE_X, (double[3]){0, 0, 0}, 0.025, &err);
	box_frame(rec, 0, P, &cells);
	to_frame(&F, rec, nrec);
	CHECK(rigid_set_load(&rs, &F, &cells, &err) == 0 && rs.n == 1, "box body loaded");
	field start;
	field_alloc_like(&start, &rs.phi[0], &err);
	memcpy(start.a, rs.phi[0].a, field_count(&start) * sizeof *start.a);
	/* 30 degrees about z in 10 steps (samples land between the body
	 * frame's): against the exact rotated box */
	double t = 0, quarter = 0, dt = 1.0 / 120, c30 = cos(M_PI / 6), s30 = sin(M_PI / 6);
	for (int s = 0; s < 10; s++, t += dt)
		rigid_set_step(&rs, NULL, t, dt);
	const double h[3] = {0.2, 0.1, 0.06};
	for (size_t c = 0; c < field_count(&start); c++) {
		double x[3];
		field_pos(&rs.phi[0], (int)(c % 40), (int)(c / 40 % 40), (int)(c / 1600), x);
		double y[3] = {c30 * (x[0] - P[0]) + s30 * (x[1] - P[1]),
			       -s30 * (x[0] - P[0]) + c30 * (x[1] - P[1]), x[2] - P[2]};  /* R^T (x - P) */
		double ex = box_sdf(y, h);
		if (fabs(ex) < 0.075)
			quarter = fmax(quarter, fabs(rs.phi[0].a[c] - ex));
	}
	CHECK(quarter < 0.5 * 0.025 && quarter > 1e-4, "30 degrees: level set within half a cell of the rotated box "
	      "near its surface (%.3g dx)", quarter / 0.025);
	for (int s = 10; s < 120; s++, t += dt)
		rigid_set_step(&rs, NULL, t, dt);
	double full = 0;
	for (size_t c = 0; c < field_count(&start); c++)
		full = fmax(full, fabs(rs.phi[0].a[c] - start.a[c]));
	CHECK(full < 1e-5, "full turn in 120 steps: level set equal to the start (%.2g m): no drift", full);
	CHECK(fabs(rs.b[0].q[3] + 1) < 1e-12, "full turn: q = -identity (%.15g)", rs.b[0].q[3]);
	CHECK(rigid_set_store(&rs, &F, 1.0, &err) == 0 && F.n == 3 &&
	      !strcmp(F.r[2]->name, "rigid_phi") && slc_rec_find(F.r[0], "orient"),
	      "store: orient added, rigid_phi appended");
	CHECK(slc_rec_validate(F.r[0], &err) == 0 && slc_rec_validate(F.r[2], &err) == 0,
	      "stored records validate");
	rigid_set_free(&rs);
	field_free(&start);
	slc_frame_free(&F);

	/* an older frame: rigid_phi on the cells, no orientation, no phi0 */
	nrec = 2;
	box_frame(rec, 1, P, &cells);
	to_frame(&F, rec, nrec);
	CHECK(rigid_set_load(&rs, &F, &cells, &err) == 0, "frame without orient or rigid_phi0 loads");
	float *old = F.r[1]->chan[0].data;
	double d = 0;
	for (size_t c = 0; c < field_count(&rs.phi[0]); c++)
		d = fmax(d, fabs(old[c] - rs.phi[0].a[c]));
	CHECK(d == 0, "its level set is taken as is (max change %g)", d);
	rigid_set_step(&rs, NULL, 0, 0.25);          /* a quarter turn */
	CHECK(rigid_set_store(&rs, &F, 1.0, &err) == 0 && F.n == 3 &&
	      !strcmp(F.r[2]->name, "rigid_phi0"), "rigid_phi0 written for it");
	rigid_set_free(&rs);
	int rc = rigid_set_load(&rs, &F, &cells, &err);
	CHECK(rc == 0 && rs.n == 1 && fabs(rs.b[0].q[2] - sqrt(0.5)) < 1e-7,
	      "read back: a quarter turn about z (%s q %g %g %g %g)", rc ? err.msg : "", rs.b[0].q[0], rs.b[0].q[1], rs.b[0].q[2], rs.b[0].q[3]);
	rigid_set_free(&rs);
	slc_frame_free(&F);
	field_free(&cells);
}

static void
bad_records(void)
{
	slc_err err;
	field cells;
	rigid_set rs;
	slc_rec rec[3];
	slc_frame F;
	double P[3] = {0.5, 0.5, 0.5};
	static const char *what[] = {"orient", "scripted", "mass", "nan", "nophi", "chan"};

	field_alloc(&cells, 20, 20, 20, SLC_CELL, (double[3]){0, 0, 0}, 0.05, &err);
	for (int c = 0; c < 6; c++) {
		size_t nrec = 2;
		box_frame(rec, 0, P, &cells);
		if (c == 0) {
			double *q = slc_rec_add(&rec[0], "orient", SLC_F64, 4, SLC_POINT, 1, &err);
			q[3] = 2;
		} else if (c == 1) {
			*(float *)slc_rec_add(&rec[0], "scripted", SLC_F32, 1, SLC_POINT, 1, &err) = 2;
		} else if (c == 2) {
			*(double *)slc_rec_find(&rec[0], "mass")->data = 0;
		} else if (c == 3) {
			((float *)slc_rec_find(&rec[0], "v")->data)[1] = NAN;
		} else if (c == 4) {
			nrec = 1;
		} else {
			slc_rec_add(&rec[0], "accel", SLC_F64, 2, SLC_POINT, 1, &err);
		}
		to_frame(&F, rec, nrec);
		int rc = rigid_set_load(&rs, &F, &cells, &err);
		CHECK(rc == -1 && strstr(err.msg, c == 4 ? "no 'rigid_phi0'" : c == 5 ? "accel" :
					 c == 3 ? "'v' not finite" : what[c]),
		      "bad %s refused: %s", what[c], err.msg);
		rigid_set_free(&rs);
		slc_frame_free(&F);
		slc_rec_free(&rec[0]);
		slc_rec_free(&rec[1]);
	}
	field_free(&cells);
}

/* Contact with the grid box (rigid_body_box_contact): a sphere of radius
 * R as an exact signed distance in the body frame, driven into the floor
 * y = 0 while sliding and spinning, and a cube (exact signed distances
 * both) edge-first, face-first and turned against the walls. */
static void
box_contact(void)
{
	const double R = 0.1, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	field phi0, cube;
	slc_err err;

	field_alloc(&phi0, 16, 16, 16, SLC_CELL, (double[3]){-0.2, -0.2, -0.2}, 0.025, &err);
	field_alloc(&cube, 16, 16, 16, SLC_CELL, (double[3]){-0.2, -0.2, -0.2}, 0.025, &err);
	for (int k = 0; k < 16; k++)
		for (int j = 0; j < 16; j++)
			for (int i = 0; i < 16; i++) {
				double x[3], d = 0, m = -INFINITY, o = 0;
				field_pos(&phi0, i, j, k, x);
				for (int a = 0; a < 3; a++) {
					double e = fabs(x[a]) - R;
					d += x[a] * x[a];
					m = e > m ? e : m;
					o += e > 0 ? e * e : 0;
				}
				phi0.a[FIELD_IDX(&phi0, i, j, k)] = (float)(sqrt(d) - R);
				/* a cube of half side R, its signed distance */
				cube.a[FIELD_IDX(&cube, i, j, k)] = (float)(m > 0 ? sqrt(o) : m);
			}
	rigid_body b = ball();
	b.P[1] = 0.07;
	b.v[0] = 0.3;
	b.v[1] = -1;
	b.omega[1] = 2;
	/* no sample lies on the axis below the centre (they are half a
	 * phi0 cell off it): the extent is found within dx0^2 / R, 0.006 R */
	int t = rigid_body_box_contact(&b, &phi0, lo, hi);
	CHECK(t == 1 && fabs(b.P[1] - R) < 0.01 * R && b.v[1] == 0 && b.v[0] == 0.3 && b.omega[1] == 2 &&
	      fabs(b.omega[0]) + fabs(b.omega[2]) < 1e-12 && b.P[0] == 0.5,
	      "a sphere through the floor: on it (y %.6f), normal velocity gone, sliding and spin kept", b.P[1]);
	b.v[1] = 0.5;
	b.P[1] = 0.05;
	rigid_body_box_contact(&b, &phi0, lo, hi);
	CHECK(fabs(b.P[1] - R) < 0.01 * R && b.v[1] == 0.5, "leaving the floor: pushed out (y %.6f), velocity kept",
	      b.P[1]);
	b.P[1] = 0.5;
	b.v[1] = -1;
	CHECK(rigid_body_box_contact(&b, &phi0, lo, hi) == 0 && b.v[1] == -1, "away from the walls: untouched");
	b.scripted = 1;
	b.P[1] = 0.05;
	CHECK(rigid_body_box_contact(&b, &phi0, lo, hi) == 0 && b.P[1] == 0.05, "a scripted body passes");

	/* a cube turned 45 degrees about z hits x = 1 with its edge at
	 * r = (R sqrt 2, 0, 0) from P: the impulse goes through the centre,
	 * v_x stops, v_y is kept, no spin */
	rigid_body c = ball();
	double E;
	c.q[2] = sin(M_PI / 8);
	c.q[3] = cos(M_PI / 8);
	c.P[0] = 1 - R * sqrt(2) + 0.01;
	c.v[0] = 1;
	c.v[1] = 0.5;
	rigid_body_box_contact(&c, &cube, lo, hi);
	E = fabs(c.P[0] + R * sqrt(2) - 1);
	CHECK(E < 0.25 * 0.025 && c.v[0] == 0 && c.v[1] == 0.5 && fabs(c.omega[2]) < 1e-9,
	      "a cube edge-first into x = 1: touching (%.2g m off), stopped, no spin (%g)", E, c.omega[2]);
	/* a cube face flat against x = 1, spinning about z: stopped, the spin
	 * kept */
	rigid_body e = ball();
	e.P[0] = 1 - R + 0.01;
	e.v[0] = 1;
	e.omega[2] = 3;
	rigid_body_box_contact(&e, &cube, lo, hi);
	CHECK(e.v[0] == 0 && e.omega[2] == 3 && fabs(e.P[0] + R - 1) < 0.25 * 0.025,
	      "a cube face against x = 1: stopped, spin kept (%g)", e.omega[2]);
	/* a ball turned by any angle touches at the same height and gains
	 * no spin: the contact pushes through its centre */
	rigid_body g = ball();
	g.q[0] = sin(0.35);
	g.q[3] = cos(0.35);
	g.P[1] = 0.05;
	g.v[1] = -1;
	rigid_body_box_contact(&g, &phi0, lo, hi);
	CHECK(fabs(g.P[1] - R) < 0.01 * R && g.v[1] == 0 && g.omega[0] == 0 && g.omega[2] == 0,
	      "a turned ball onto the floor: on it (y %.6f), no spin", g.P[1]);
	field_free(&phi0);
	field_free(&cube);
}

int
main(void)
{
	scripted_paths();
	dynamic_fall();
	spinning();
	torque_free();
	level_sets();
	bad_records();
	box_contact();
	return ctest_done();
}
