/* test_shell_sweep.c: thin shells in the fluid steps (lib/shell/
 * shell_track, shell_sweep, shell_fill; lib/fluid/advect_shell; lib/
 * liquid/pls_shell): a moving sheet marks exactly the samples between its
 * two places; the Gauss-Jacobi refill takes values from its own side of a
 * wall only; the ring rule; the shell's velocity at a hit; one-sided
 * advection keeps a field from crossing a plate while plain advection
 * (the control) carries it through; points crossing a still or moving
 * sheet are caught; the coplanarity times cloth and shells share;
 * MacCormack and BFECC next to a plate keep their second order values
 * wherever no stencil is blocked (guendelman2005 §4.1) and revert to the
 * one-sided first order only in the rows the plate hides;
 * vorticity confinement below a plate does not see the flow above it
 * (and does without the shell: the control). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "fluid/advect.h"
#include "fluid/advect_shell.h"
#include "fluid/forces.h"
#include "geom/ccd.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "liquid/pls_redist.h"
#include "liquid/pls_shell.h"
#include "shell/shell_fill.h"
#include "shell/shell_sweep.h"
#include "shell/shell_track.h"

#define N 16                    /* cells a side of the unit box */

/* A sheet of two triangles spanning the box (and beyond it by 0.1, so
 * that no gap is left at the walls) at height y, into P (4 points) and
 * tri (2 triangles). */
static void
sheet_y(double P[12], uint32_t tri[6], double y)
{
	const double v[12] = {-0.1, y, -0.1, 1.1, y, -0.1, 1.1, y, 1.1, -0.1, y, 1.1};
	const uint32_t t[6] = {0, 1, 2, 0, 2, 3};

	memcpy(P, v, sizeof v);
	memcpy(tri, t, sizeof t);
}

/* A track over the unit box's N^3 cells for a frame of 1 s, wedges 0.1
 * cells thick, with the sheet moving from y0 to y1. */
static void
track_sheet(shell_track *t, double y0, double y1)
{
	const double o[3] = {0, 0, 0};
	double P0[12], P1[12];
	uint32_t tri[6];
	slc_err err;

	shell_track_init(t, 1, 0.1 / N, o, 1.0 / N, N, N, N, &err);
	sheet_y(P0, tri, y0);
	sheet_y(P1, tri, y1);
	shell_track_add(t, P0, P1, 4, tri, 2, &err);
}

static void
test_ccd(void)
{
	/* a point at the origin and a triangle at y = 1 falling at 2 m/s:
	 * coplanar at t = 0.5 */
	double p[3] = {0, 0, 0}, a[3] = {-1, 1, -1}, b[3] = {2, 1, -1}, c[3] = {-1, 1, 2};
	double z[3] = {0, 0, 0}, d[3] = {0, -2, 0}, t[3];
	const double *x[4] = {p, a, b, c}, *dd[4] = {z, d, d, d};
	int n = ccd_coplanar_times(x, dd, t);

	CHECK(n == 1 && fabs(t[0] - 0.5) < 1e-12, "ccd: one coplanar time, 0.5 (%d, %g)", n,
	      n ? t[0] : -1);
}

static void
test_sweep_marks(void)
{
	shell_track t;
	field f;
	slc_err err;
	const double o[3] = {0, 0, 0};
	unsigned char *bad;
	size_t n, q, wrong = 0, marked;
	int i, j, k;

	/* the sheet moves from y = 0.3 to 0.7 over the frame; over the
	 * second half of it (0.5 to 0.7) it passes the cell centres with y
	 * in [0.5, 0.7] (wedges 0.1 cells thick add nothing: centres lie at
	 * (j + 0.5) / 16, none within 0.05 cells of 0.5 or 0.7) */
	track_sheet(&t, 0.3, 0.7);
	field_alloc(&f, N, N, N, SLC_CELL, o, 1.0 / N, &err);
	n = field_count(&f);
	bad = calloc(n, 1);
	marked = shell_sweep_mark(&t, 0.5, 1.0, &f, bad);
	for (k = 0; k < N; k++)
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++) {
				double y = (j + 0.5) / N;
				int want = y > 0.5 && y < 0.7;

				wrong += bad[FIELD_IDX(&f, i, j, k)] != want;
			}
	CHECK(wrong == 0 && marked == (size_t)N * N * 3,
	      "sweep: exactly the cells between y 0.5 and 0.7 (%zu marked, %zu wrong)", marked, wrong);
	/* a still sheet marks only what lies in its wedge: nothing here */
	memset(bad, 0, n);
	shell_track_free(&t);
	track_sheet(&t, 0.5, 0.5);
	marked = shell_sweep_mark(&t, 0, 1, &f, bad);
	for (q = 0; q < n; q++)
		wrong += bad[q];
	CHECK(marked == 0 && wrong == 0, "sweep: a still sheet away from the samples marks none");
	free(bad);
	field_free(&f);
	shell_track_free(&t);
}

static void
test_fill(void)
{
	shell_track t;
	shell_set s;
	field f;
	slc_err err;
	const double o[3] = {0, 0, 0};
	shell_fallback fb = {SHELL_FILL_VALUE, -7, 0, NULL};
	unsigned char *bad;
	size_t n, nf, q, wrong_on = 0, above = 0;
	int i, j, k;

	/* a wall at y = 0.5: 1 below, 2 above; the row of cells just below
	 * it invalid (set to 100) and refilled */
	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 1, &s, &err);
	field_alloc(&f, N, N, N, SLC_CELL, o, 1.0 / N, &err);
	n = field_count(&f);
	bad = calloc(n, 1);
	for (int pass = 0; pass < 2; pass++) {
		shell_set none;

		memset(&none, 0, sizeof none);
		for (k = 0; k < N; k++)
			for (j = 0; j < N; j++)
				for (i = 0; i < N; i++) {
					q = FIELD_IDX(&f, i, j, k);
					f.a[q] = j < N / 2 ? 1 : 2;
					if (j == N / 2 - 1) {
						f.a[q] = 100;
						bad[q] = 1;
					}
				}
		/* pass 1 is the control: no shell, so the row takes the
		 * mean of both sides */
		shell_fill(&f, bad, pass ? &none : &s, &fb, &nf, &err);
		for (i = 0; i < N; i++)
			for (k = 0; k < N; k++) {
				float v = f.a[FIELD_IDX(&f, i, N / 2 - 1, k)];

				if (pass == 0)
					wrong_on += v != 1.0f;
				else
					above += v != 1.0f;
			}
		for (q = 0; q < n; q++)
			wrong_on += bad[q];
	}
	CHECK(wrong_on == 0, "fill: the row below a wall refilled from below only (%zu wrong)", wrong_on);
	CHECK(above == (size_t)N * N, "fill: control: without the wall it takes from above too");
	/* a whole layer invalid between two walls: nothing valid to see, so
	 * the fallback: the constant */
	shell_track_free(&t);
	{
		const double o0[3] = {0, 0, 0};
		double P0[24];
		uint32_t tri[12];
		float vbad;

		shell_track_init(&t, 1, 0.1 / N, o0, 1.0 / N, N, N, N, &err);
		sheet_y(P0, tri, 0.5);
		sheet_y(P0 + 12, tri + 6, 0.5 + 1.0 / N);
		for (q = 6; q < 12; q++)
			tri[q] += 4;
		shell_track_add(&t, NULL, P0, 8, tri, 4, &err);
		shell_track_set(&t, 1, &s, &err);
		for (i = 0; i < N; i++)
			for (k = 0; k < N; k++)
				bad[FIELD_IDX(&f, i, N / 2, k)] = 1;
		shell_fill(&f, bad, &s, &fb, &nf, &err);
		vbad = f.a[FIELD_IDX(&f, 3, N / 2, 3)];
		CHECK(nf == (size_t)N * N && vbad == -7.0f,
		      "fill: a layer shut between two walls takes the fallback (%zu, %g)", nf, vbad);
	}
	free(bad);
	field_free(&f);
	shell_free(&s);
	shell_track_free(&t);
}

static void
test_ring(void)
{
	double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int vis[8] = {1, 0, 0, 0, 0, 0, 0, 0};
	double w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int vis2[8] = {0, 1, 1, 0, 1, 0, 0, 0};

	CHECK(shell_ring_rule(v, vis) == 1 && v[7] == 1 && v[3] == 1,
	      "ring: one visible corner fills every other");
	/* corner 0 sees 1, 2, 4 on its one ring: mean 3; corner 7's one
	 * ring (3, 5, 6) is hidden, its two ring (1, 2, 4) gives 3 too;
	 * corner 3's one ring holds 1 and 2: mean 2.5 */
	shell_ring_rule(w, vis2);
	CHECK(w[0] == (2 + 3 + 5) / 3.0 && w[7] == (2 + 3 + 5) / 3.0 && w[3] == 2.5,
	      "ring: one ring before two (%g %g %g)", w[0], w[7], w[3]);
}

static void
test_velocity(void)
{
	shell_track t;
	shell_set s;
	shell_hit hit;
	slc_err err;
	double a[3] = {0.5, 0.1, 0.5}, b[3] = {0.5, 0.9, 0.5}, v[3];
	int ok;

	/* the sheet rises 0.2 m over a 1 s frame */
	track_sheet(&t, 0.4, 0.6);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0.5, &s, &err);
	ok = shell_segment_hit(&s, a, b, 0, &hit);
	shell_track_velocity(&t, &s, &hit, v);
	CHECK(ok && fabs(v[1] - 0.2) < 1e-12 && v[0] == 0 && v[2] == 0,
	      "track: the velocity at a hit is the nodes' (%g %g %g)", v[0], v[1], v[2]);
	shell_free(&s);
	shell_track_free(&t);
}

static void
test_advect(void)
{
	shell_track t;
	shell_set s;
	macgrid vel;
	field q, out;
	advect_opts o;
	advect_shell sh;
	slc_err err;
	const double org[3] = {0, 0, 0};
	size_t cnt = 0, q0;
	int i, j, k, scheme, leaks[3][2];

	/* density 1 below a plate at y = 0.5, rising at 1.5 cells a step */
	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0, &s, &err);
	mac_alloc(&vel, N, N, N, org, 1.0 / N, &err);
	for (q0 = 0; q0 < field_count(&vel.v); q0++)
		vel.v.a[q0] = 1.5f;
	field_alloc(&q, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	field_alloc(&out, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	memset(&sh, 0, sizeof sh);
	sh.set = &s;
	sh.fb.kind = SHELL_FILL_VALUE;
	sh.count = &cnt;
	for (scheme = 0; scheme < 3; scheme++)
		for (int on = 0; on < 2; on++) {
			for (k = 0; k < N; k++)
				for (j = 0; j < N; j++)
					for (i = 0; i < N; i++)
						q.a[FIELD_IDX(&q, i, j, k)] = j < N / 2 ? 1 : 0;
			advect_opts_default(&o);
			o.scheme = scheme;
			o.shell = on ? &sh : NULL;
			advect_field(&vel, 1.0 / N, &q, &out, &o, NULL, &err);
			leaks[scheme][on] = 0;
			for (k = 0; k < N; k++)
				for (j = N / 2; j < N; j++)
					for (i = 0; i < N; i++)
						leaks[scheme][on] += out.a[FIELD_IDX(&out, i, j, k)] != 0;
		}
	CHECK(leaks[0][1] == 0 && leaks[1][1] == 0 && leaks[2][1] == 0,
	      "advect: no density above the plate with SL, MacCormack, BFECC (%d %d %d)",
	      leaks[0][1], leaks[1][1], leaks[2][1]);
	CHECK(leaks[0][0] > 0 && leaks[1][0] > 0 && leaks[2][0] > 0,
	      "advect: control: without the shell it rises through (%d %d %d)",
	      leaks[0][0], leaks[1][0], leaks[2][0]);
	CHECK(cnt > 0, "advect: %zu samples recomputed one-sided", cnt);
	/* the velocity: a hidden sample takes the shell's (still: 0) */
	{
		field vo;
		double x[3] = {0.5, 0.5 + 0.5 / N, 0.5};
		linmac M;
		int blocked = 0;
		double val;

		sh.fb.kind = SHELL_FILL_VEL;
		sh.fb.trk = &t;
		sh.fb.comp = 1;
		linmac_init(&M, &vel);
		field_alloc_like(&vo, &vel.v, &err);
		val = advect_shell_value(&M, 1.0 / N, &vel.v, &sh, x, &blocked);
		CHECK(blocked && val < 1.5 && val >= 0,
		      "advect: a face just above the plate traced back into it is blocked (%g)", val);
		field_free(&vo);
	}
	field_free(&q);
	field_free(&out);
	mac_free(&vel);
	shell_free(&s);
	shell_track_free(&t);
}

/* A smooth field carried along x, parallel to a plate at y = 0.5 between
 * rows N/2 - 1 and N/2: with the shell, MacCormack and BFECC keep the
 * values they have without it in every row but the two (BFECC three)
 * just below the plate, whose steps read a stencil reaching across it,
 * and there the one-sided first order value stands (guendelman2005 §4.1: "revert to first order wherever a
 * stencil is blocked"); a band a few cells wide that is first order
 * throughout fails the first check. */
static void
test_second_order(void)
{
	const double org[3] = {0, 0, 0};
	shell_track t;
	shell_set s;
	macgrid vel;
	field q, plain, one, sl;
	advect_opts o;
	advect_shell sh;
	slc_err err;
	size_t cnt = 0, p;
	int scheme, i, j, k;

	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0, &s, &err);
	mac_alloc(&vel, N, N, N, org, 1.0 / N, &err);
	/* 0.7 cells a step along x */
	for (p = 0; p < field_count(&vel.u); p++)
		vel.u.a[p] = 0.7f;
	field_alloc(&q, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	field_alloc_like(&plain, &q, &err);
	field_alloc_like(&one, &q, &err);
	field_alloc_like(&sl, &q, &err);
	for (k = 0; k < N; k++)
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++)
				q.a[FIELD_IDX(&q, i, j, k)] =
					(float)(sin(2 * M_PI * (i + 0.5) / N) + 0.1 * j);
	memset(&sh, 0, sizeof sh);
	sh.set = &s;
	sh.fb.kind = SHELL_FILL_VALUE;
	sh.count = &cnt;
	for (scheme = ADVECT_MACCORMACK; scheme <= ADVECT_BFECC; scheme++) {
		int far_diff = 0, near_diff = 0, far_n = 0, changed = 0;

		advect_opts_default(&o);
		o.scheme = scheme;
		o.limiter = ADVECT_LIMIT_NONE;
		advect_field(&vel, 1.0 / N, &q, &plain, &o, NULL, &err);
		o.shell = &sh;
		advect_field(&vel, 1.0 / N, &q, &one, &o, NULL, &err);
		o.scheme = ADVECT_SL;
		advect_field(&vel, 1.0 / N, &q, &sl, &o, NULL, &err);
		for (k = 0; k < N; k++)
			for (j = 0; j < N; j++)
				for (i = 0; i < N; i++) {
					size_t id = FIELD_IDX(&q, i, j, k);

					/* a foot on row j's plane has the
					 * stencil j, j + 1 (the second with
					 * weight 0): row N/2 - 1's reaches
					 * across the plate, row N/2 - 2's back
					 * step reads it; BFECC reads the back
					 * step of its stencil: one row more */
					int w = scheme == ADVECT_BFECC ? 3 : 2;

					if (j >= N / 2 - w && j < N / 2) {
						near_diff += one.a[id] != sl.a[id];
					} else {
						far_diff += one.a[id] != plain.a[id];
						far_n++;
					}
					changed += plain.a[id] != sl.a[id];
				}
		CHECK(far_diff == 0 && changed > 0,
		      "advect %s: %d of %d samples off the plate's rows differ from the scheme without the shell (%d differ from SL)",
		      scheme == ADVECT_MACCORMACK ? "maccormack" : "bfecc", far_diff, far_n, changed);
		CHECK(near_diff == 0, "advect %s: %d samples of the rows beside the plate are not the one-sided first order value",
		      scheme == ADVECT_MACCORMACK ? "maccormack" : "bfecc", near_diff);
	}
	field_free(&q);
	field_free(&plain);
	field_free(&one);
	field_free(&sl);
	mac_free(&vel);
	shell_free(&s);
	shell_track_free(&t);
}

static void
test_points(void)
{
	shell_track t;
	shell_set s0, s1;
	slc_err err;
	double a[3] = {0.5, 0.45, 0.5}, b[3] = {0.5, 0.55, 0.5}, c[3] = {0.5, 0.3, 0.5};
	double d[3] = {0.5, 0.35, 0.5};
	pls_set ps;
	pls_shell sh;
	float x0[6];
	size_t gone;

	track_sheet(&t, 0.5, 0.5);
	memset(&s0, 0, sizeof s0);
	memset(&s1, 0, sizeof s1);
	shell_track_set(&t, 0, &s0, &err);
	CHECK(shell_sweep_point(&t, &s0, &s0, 0, 1, a, b) == 1 &&
	      shell_sweep_point(&t, &s0, &s0, 0, 1, c, d) == 0,
	      "points: crossing a still sheet caught, moving below it not");
	shell_track_free(&t);
	/* the sheet falls from 0.5 to 0.4 (under a cell a step) past a
	 * point at rest at 0.45 */
	track_sheet(&t, 0.5, 0.4);
	shell_track_set(&t, 0, &s0, &err);
	shell_track_set(&t, 1, &s1, &err);
	CHECK(shell_sweep_point(&t, &s0, &s1, 0, 1, a, a) == 1 &&
	      shell_sweep_point(&t, &s0, &s1, 0, 1, c, c) == 0,
	      "points: a sheet sweeping over a point at rest caught, one below it not");
	/* guendelman2005 §4.4.2: of two positive markers the swept one is
	 * removed; of two negative ones the swept one goes along with the
	 * sheet, its radius below the sheet's end */
	sh.trk = &t;
	sh.at0 = &s0;
	sh.at1 = &s1;
	sh.s0 = 0;
	sh.s1 = 1;
	for (int sign = 1; sign >= -1; sign -= 2) {
		pls_set_init(&ps, sign);
		pls_set_push(&ps, a, 0.01, &err);
		pls_set_push(&ps, c, 0.01, &err);
		memcpy(x0, ps.x, sizeof x0);
		gone = pls_shell_cull(&ps, x0, &sh);
		if (sign > 0)
			CHECK(gone == 1 && ps.n == 1 && ps.x[1] == (float)c[1],
			      "points: the swept positive marker removed");
		else
			CHECK(gone == 0 && ps.n == 2 && fabs(ps.x[1] - 0.39) < 1e-6 &&
			      ps.x[4] == (float)c[1],
			      "points: the swept negative marker pushed ahead of the sheet to 0.39 (%g)",
			      ps.x[1]);
		pls_set_free(&ps);
	}
	/* a still sheet at 0.395 under the falling one: the push would
	 * cross it, so the negative marker is removed */
	shell_track_free(&t);
	{
		const double o0[3] = {0, 0, 0};
		double P0[12], P1[12], Q[12];
		uint32_t tri[6];

		shell_track_init(&t, 1, 0.1 / N, o0, 1.0 / N, N, N, N, &err);
		sheet_y(P0, tri, 0.5);
		sheet_y(P1, tri, 0.4);
		sheet_y(Q, tri, 0.395);
		shell_track_add(&t, P0, P1, 4, tri, 2, &err);
		shell_track_add(&t, NULL, Q, 4, tri, 2, &err);
		shell_track_set(&t, 0, &s0, &err);
		shell_track_set(&t, 1, &s1, &err);
		pls_set_init(&ps, -1);
		pls_set_push(&ps, a, 0.01, &err);
		memcpy(x0, ps.x, 3 * sizeof *x0);
		gone = pls_shell_cull(&ps, x0, &sh);
		CHECK(gone == 1 && ps.n == 0,
		      "points: a negative marker whose push would cross another sheet removed");
		pls_set_free(&ps);
	}
	shell_free(&s0);
	shell_free(&s1);
	shell_track_free(&t);
}

/* Water a little deep below a wall at y = 0.5, air above; negative
 * markers just below the wall: phi read across the wall (plain trilinear)
 * calls them escaped and prunes them into spray; one-sided
 * (guendelman2005 §4.4.2, "in the same fashion as ... at the base of a
 * semi-Lagrangian ray") they stay, with their radius from the water's
 * phi.  The control reads phi across the wall. */
static void
test_marker_phi(void)
{
	const double org[3] = {0, 0, 0};
	shell_track t;
	shell_set s;
	field phi;
	pls_params p;
	pls_set neg, esc, none;
	slc_err err;
	size_t q, kept[2], used[2];
	int on;

	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0, &s, &err);
	field_alloc(&phi, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	for (q = 0; q < field_count(&phi); q++)
		phi.a[q] = (float)(q / N % N < N / 2 ? -0.05 : 0.2);
	pls_default(&p);
	for (on = 0; on < 2; on++) {
		pls_set_init(&neg, -1);
		pls_set_init(&esc, -1);
		for (int i = 0; i < 8; i++) {
			double x[3] = {0.1 + 0.1 * i, 0.495, 0.5};

			pls_set_push(&neg, x, 0.1 / N, &err);
		}
		pls_set_init(&none, 1);
		/* escaped: they would correct phi (on a copy) */
		{
			field tmp;

			field_alloc_like(&tmp, &phi, &err);
			memcpy(tmp.a, phi.a, field_count(&phi) * sizeof *phi.a);
			pls_correct_shell(&tmp, &none, &neg, on ? &s : NULL, &used[on], &err);
			field_free(&tmp);
		}
		pls_prune_shell(&neg, &phi, &p, &esc, on ? &s : NULL, &err);
		kept[on] = neg.n;
		pls_adjust_radii_shell(&neg, &phi, &p, on ? &s : NULL);
		if (on)
			CHECK(neg.n && fabs(neg.r[0] - p.rmax / N) < 1e-6,
			      "markers: beside a wall the radius from the water's |phi| 0.05, "
			      "clamped to rmax (%g)", neg.n ? neg.r[0] : -1);
		pls_set_free(&neg);
		pls_set_free(&esc);
		pls_set_free(&none);
	}
	CHECK(kept[1] == 8 && used[1] == 0,
	      "markers: beside a wall, phi one-sided: none escaped, none pruned (%zu kept, %zu used)",
	      kept[1], used[1]);
	CHECK(kept[0] == 0 && used[0] == 8,
	      "markers: control: phi read across the wall calls them escaped and prunes them "
	      "(%zu kept, %zu used)", kept[0], used[0]);
	field_free(&phi);
	shell_free(&s);
	shell_track_free(&t);
}

/* u = y^2 below the plate at y = 0.5, `above` times y^3 above it; the
 * confinement's change of u at faces below it into du (one float a face)
 * with the shell sh (NULL: none). */
static void
confine(double above, const shell_set *sh, const shell_track *t, float *du)
{
	const double org[3] = {0, 0, 0};
	macgrid vel;
	slc_err err;
	int i, j, k;
	size_t q;

	mac_alloc(&vel, N, N, N, org, 1.0 / N, &err);
	for (k = 0; k < vel.u.nk; k++)
		for (j = 0; j < vel.u.nj; j++)
			for (i = 0; i < vel.u.ni; i++) {
				double y = (j + 0.5) / N;

				vel.u.a[FIELD_IDX(&vel.u, i, j, k)] =
					(float)(y < 0.5 ? y * y : above * y * y * y);
			}
	for (q = 0; q < field_count(&vel.u); q++)
		du[q] = vel.u.a[q];
	forces_confinement_shell(&vel, 0.5, 0.1, NULL, sh, t, &err);
	for (q = 0; q < field_count(&vel.u); q++)
		du[q] = vel.u.a[q] - du[q];
	mac_free(&vel);
}

static void
test_confinement(void)
{
	shell_track t;
	shell_set s;
	slc_err err;
	size_t n = (size_t)(N + 1) * N * N, q, diff_on = 0, diff_off = 0, moved = 0;
	float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);

	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0, &s, &err);
	for (int on = 0; on < 2; on++) {
		confine(0, on ? &s : NULL, &t, a);
		confine(40, on ? &s : NULL, &t, b);
		for (q = 0; q < n; q++) {
			int j = (int)(q / (N + 1) % N);

			if (j >= N / 2)
				continue;
			if (on) {
				diff_on += a[q] != b[q];
				moved += a[q] != 0;
			} else {
				diff_off += a[q] != b[q];
			}
		}
	}
	CHECK(diff_on == 0 && moved > 0,
	      "confinement below a plate blind to the flow above it (%zu differ, %zu pushed)",
	      diff_on, moved);
	CHECK(diff_off > 0, "confinement: control: without the shell it sees it (%zu differ)", diff_off);
	free(a);
	free(b);
	shell_free(&s);
	shell_track_free(&t);
}

static void
test_redistance(void)
{
	shell_track t;
	shell_set s;
	slc_err err;
	field phi;
	const double org[3] = {0, 0, 0};
	double with = 0, without = 0;
	int i, j, k, on;

	/* liquid below y = 0.3, air up to a plate at 0.5 and beyond it; a
	 * sample just above the plate is 0.23 m from the surface through it,
	 * and out of reach (the width, 0.5 m) without passing it */
	track_sheet(&t, 0.5, 0.5);
	memset(&s, 0, sizeof s);
	shell_track_set(&t, 0, &s, &err);
	field_alloc(&phi, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	for (on = 0; on < 2; on++) {
		for (k = 0; k < N; k++)
			for (j = 0; j < N; j++)
				for (i = 0; i < N; i++) {
					double y = (j + 0.5) / N;

					phi.a[FIELD_IDX(&phi, i, j, k)] = (float)(y < 0.5 ? y - 0.3 : 1.0);
				}
		pls_redistance_shell(&phi, 0.5, on ? &s : NULL, &err);
		(on ? &with : &without)[0] = phi.a[FIELD_IDX(&phi, 5, N / 2, 5)];
	}
	CHECK(fabs(with - 0.5) < 1e-6, "redistance: no march through the plate (%g)", with);
	CHECK(fabs(without - 0.23125) < 0.02,
	      "redistance: control: without it, the distance through it (%g)", without);
	field_free(&phi);
	shell_free(&s);
	shell_track_free(&t);
}

/* Still water on both sides of a still sheet through (or within its
 * wedge of) a plane of samples: the samples inside the wedge see none of
 * their neighbours through it, and must stay liquid through one-sided
 * advection (SL, MacCormack), the refill of samples in a wedge (as the
 * sweep marks them) and the redistancing: the water keeps its volume and
 * no air appears.  A wall between water below and air above, the row of
 * samples in its wedge refilled: each sample takes its own side. */
static void
test_still_wall(void)
{
	const double org[3] = {0, 0, 0};
	const double off[3] = {0, 0.02, -0.03};        /* cells */
	shell_track t;
	shell_set s;
	macgrid vel;
	field phi, out;
	advect_opts o;
	advect_shell sh;
	shell_fallback fb = {SHELL_FILL_PHI, 0, 0, NULL};
	slc_err err;
	unsigned char *bad;
	size_t n, q, lost = 0, side = 0;
	int i, j, k, c, scheme;

	mac_alloc(&vel, N, N, N, org, 1.0 / N, &err);
	field_alloc(&phi, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	field_alloc(&out, N, N, N, SLC_CELL, org, 1.0 / N, &err);
	n = field_count(&phi);
	bad = calloc(n, 1);
	for (c = 0; c < 3; c++)
		for (scheme = 0; scheme < 2; scheme++) {
			double y = (N / 2 + 0.5 + off[c]) / N;

			track_sheet(&t, y, y);
			memset(&s, 0, sizeof s);
			shell_track_set(&t, 0, &s, &err);
			/* water up to 0.8 m, at rest */
			for (k = 0; k < N; k++)
				for (j = 0; j < N; j++)
					for (i = 0; i < N; i++)
						phi.a[FIELD_IDX(&phi, i, j, k)] = (float)((j + 0.5) / N - 0.8);
			memset(&sh, 0, sizeof sh);
			sh.set = &s;
			sh.fb = fb;
			advect_opts_default(&o);
			o.scheme = scheme ? ADVECT_MACCORMACK : ADVECT_SL;
			o.shell = &sh;
			advect_field(&vel, 1.0 / 60, &phi, &out, &o, NULL, &err);
			memcpy(phi.a, out.a, n * sizeof *phi.a);
			for (i = 0; i < N; i++)
				for (k = 0; k < N; k++)
					bad[FIELD_IDX(&phi, i, N / 2, k)] = 1;
			shell_fill(&phi, bad, &s, &fb, NULL, &err);
			pls_redistance_shell(&phi, 8.0 / N, &s, &err);
			for (k = 0; k < N; k++)
				for (j = 0; j < N; j++)
					for (i = 0; i < N; i++)
						lost += ((j + 0.5) / N < 0.8) != (phi.a[FIELD_IDX(&phi, i, j, k)] < 0);
			shell_free(&s);
			shell_track_free(&t);
		}
	CHECK(lost == 0, "still wall: water on both sides of a still sheet in a plane of "
	      "samples stays water (%zu samples turned to air)", lost);
	/* water below the wall, air above; the row in its wedge refilled:
	 * below the sheet (off 0.02) it is water, above it (-0.03) air */
	for (c = 1; c < 3; c++) {
		double y = (N / 2 + 0.5 + off[c]) / N;

		track_sheet(&t, y, y);
		memset(&s, 0, sizeof s);
		shell_track_set(&t, 0, &s, &err);
		for (q = 0; q < n; q++) {
			j = (int)(q / N % N);
			phi.a[q] = (float)((j + 0.5) / N - y);
			bad[q] = j == N / 2;
		}
		shell_fill(&phi, bad, &s, &fb, NULL, &err);
		for (i = 0; i < N; i++)
			for (k = 0; k < N; k++)
				side += (phi.a[FIELD_IDX(&phi, i, N / 2, k)] < 0) != (c == 1);
		shell_free(&s);
		shell_track_free(&t);
	}
	CHECK(side == 0, "still wall: a sample in the wedge is refilled from its side of the sheet "
	      "(%zu on the wrong side)", side);
	free(bad);
	field_free(&phi);
	field_free(&out);
	mac_free(&vel);
}

int
main(void)
{
	test_ccd();
	test_sweep_marks();
	test_fill();
	test_ring();
	test_velocity();
	test_advect();
	test_second_order();
	test_points();
	test_confinement();
	test_redistance();
	test_still_wall();
	test_marker_phi();
	return ctest_done();
}
