/* test_advect_stage.c: advect's frame physics (stage/advect_stage.h) on a
 * frame held in memory whose record array is full when the stage starts
 * adding records: a liquid without marker particles, a rigid ball without
 * its rigid_phi, a smoke source to seed vortex particles in and particle
 * records.  The records read stay where they were, in order; the vortex,
 * marker, spray and rigid_phi records follow them; the scene and the
 * stream times move on by the frame.  Also the refusals: a communicator
 * in this serial build, no frame length, --pls on without phi. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "core/frame.h"
#include "core/meta.h"
#include "prim/prim_rigid.h"
#include "stage/advect_stage.h"

#define N 8             /* cells along each axis */
#define DX (1.0 / N)
#define NPART 8         /* particle records: the frame holds 16 records,
			   the first capacity of a frame (core/frame.c) */

/* A grid record of one channel named like it on N^3 cells (one more
 * sample across a face axis), every sample f(position). */
static void
grid(slc_frame *F, const char *name, int stagger, double (*f)(const double x[3]))
{
	int n[3] = { N, N, N }, face = stagger >= SLC_FACE_X && stagger <= SLC_FACE_Z;
	double off[3] = { 0.5, 0.5, 0.5 };
	slc_rec r;
	float *a;

	if (face) {
		n[stagger - SLC_FACE_X]++;
		off[stagger - SLC_FACE_X] = 0;
	}
	slc_grid g = { n[0], n[1], n[2], (uint32_t)stagger, { 0, 0, 0 }, DX };
	slc_rec_init(&r, SLC_END, "");
	a = slc_grid_new(&r, name, &g, 1, NULL);
	for (int k = 0; a && k < g.nk; k++)
		for (int j = 0; j < g.nj; j++)
			for (int i = 0; i < g.ni; i++) {
				double x[3] = { (i + off[0]) * DX, (j + off[1]) * DX, (k + off[2]) * DX };
				a[i + g.ni * (j + g.nj * k)] = (float)f(x);
			}
	slc_frame_put(F, &r, NULL);
}

static double u_of(const double x[3]) { (void)x; return 3; }      /* 1.2 cells a frame */
static double zero(const double x[3]) { (void)x; return 0; }
static double pool(const double x[3]) { return x[1] - 0.45; }
static double ball_src(const double x[3])
{
	double d[3] = { x[0] - 0.5, x[1] - 0.25, x[2] - 0.5 };

	return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - 0.2;
}

/* The frame: scene, u, v, w, phi, source, rigid, rigid_phi0, p0..p7. */
static void
frame(slc_frame *F, int with_dt)
{
	slc_rec r, ball[3];
	prim_ball b = { 0.12, { 0.5, 0.7, 0.5 }, { 0, 0, 0 }, { 0, 0, 0 }, 500, 0, { 0, 0, 0 }, INFINITY };
	field cells;
	slc_err err;

	slc_frame_init(F);
	slc_meta_init(&r, "scene", NULL);
	slc_meta_set(&r, "frame", "3", NULL);
	slc_meta_set(&r, "time", "0.5", NULL);
	if (with_dt)
		slc_meta_set(&r, "dt", "0.05", NULL);
	slc_meta_set(&r, "gravity", "0,-9.81,0", NULL);
	slc_frame_put(F, &r, NULL);
	grid(F, "u", SLC_FACE_X, u_of);
	grid(F, "v", SLC_FACE_Y, zero);
	grid(F, "w", SLC_FACE_Z, zero);
	grid(F, "phi", SLC_CELL, pool);
	grid(F, "source", SLC_CELL, ball_src);
	field_alloc(&cells, N, N, N, SLC_CELL, (double[3]){ 0, 0, 0 }, DX, &err);
	memset(ball, 0, sizeof ball);
	if (prim_ball_recs(&b, &cells, 0.5, ball, &err) == 0) {
		slc_frame_put(F, &ball[0], NULL);
		slc_frame_put(F, &ball[1], NULL);
		slc_rec_free(&ball[2]);         /* rigid_phi: made by the stage */
	}
	field_free(&cells);
	for (int p = 0; p < NPART; p++) {
		char name[16];
		float *P;

		snprintf(name, sizeof name, "p%d", p);
		slc_rec_init(&r, SLC_PARTICLES, name);
		if ((P = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, 1, NULL))) {
			P[0] = 0.3f;
			P[1] = 0.2f;
			P[2] = 0.5f + 0.01f * (float)p;
		}
		slc_frame_put(F, &r, NULL);
	}
}

static advect_stage_opts
options(void)
{
	advect_stage_opts o;

	advect_stage_defaults(&o);
	o.source = "source";
	o.vortex.rate = 400;
	o.seed = 1;
	return o;
}

static void
whole_frame(void)
{
	static const char *const added[] = { "vortex", "pls_pos", "pls_neg", "spray", "rigid_phi" };
	advect_stage_opts o = options();
	advect_stage S;
	advect_stage_stats st;
	slc_frame F;
	slc_rec *before[16];
	slc_err err;
	size_t i, n0;
	int rc, same = 1, steps = 0, timed = 1;
	char buf[64];

	frame(&F, 1);
	n0 = F.n;
	CHECK(n0 == 16 && F.cap == n0, "the frame's array is full: %zu of %zu records", n0, F.cap);
	memcpy(before, F.r, n0 * sizeof *before);
	rc = advect_stage_load(&S, &F, &o, NULL, &err);
	CHECK(rc == 0, "loaded (%s)", rc ? err.msg : "");
	while (rc == 0 && !advect_stage_done(&S) && steps < 1000) {
		rc = advect_stage_substep(&S, &err);
		steps++;
	}
	CHECK(rc == 0 && steps > 1 && advect_stage_done(&S) && advect_stage_percent(&S) == 100,
	      "%d substeps to the end of the frame (%s)", steps, rc ? err.msg : "");
	rc = rc ? rc : advect_stage_store(&S, &err);
	CHECK(rc == 0, "stored (%s)", rc ? err.msg : "");
	CHECK(F.n == n0 + 5, "%zu records: the %zu read and 5 added", F.n, n0);
	for (i = 0; i < n0 && i < F.n; i++)
		same &= F.r[i] == before[i];
	CHECK(same, "the records read stay at their addresses, in their order");
	for (i = 0; i < 5 && n0 + i < F.n; i++)
		CHECK(!strcmp(F.r[n0 + i]->name, added[i]), "record %zu is '%s' ('%s')", n0 + i,
		      added[i], F.r[n0 + i]->name);
	for (i = 0; i < F.n; i++)
		if (advect_stage_changed(&S, F.r[i]))
			timed &= fabs(F.r[i]->time - 0.55) < 1e-12;
	CHECK(timed, "every changed record at the end of the frame, 0.55 s");
	CHECK(advect_stage_changed(&S, F.r[4]) && advect_stage_changed(&S, F.r[8]) &&
	      !advect_stage_changed(&S, F.r[0]) && !advect_stage_changed(&S, F.r[5]),
	      "phi and particles changed; scene (stored apart) and source left as read");
	CHECK(slc_meta_get(F.r[0], "frame", buf, sizeof buf) && !strcmp(buf, "4") &&
	      slc_meta_get(F.r[0], "time", buf, sizeof buf) && !strcmp(buf, "0.55") &&
	      advect_stage_frame(&S) == 4, "scene advanced to frame 4, time 0.55");
	advect_stage_stats_get(&S, &st);
	CHECK(st.substeps == steps && st.liquid && st.volume > 0 && st.pos > 0 && st.neg > 0 &&
	      st.adv.samples > 0, "stats: %d substeps, volume %g m^3, %zu+%zu markers",
	      st.substeps, st.volume, st.pos, st.neg);
	for (i = 0; i < F.n; i++)
		CHECK(slc_rec_validate(F.r[i], &err) == 0, "record %zu '%s' valid", i, F.r[i]->name);
	advect_stage_free(&S);
	slc_frame_free(&F);
}

static void
refusals(void)
{
	advect_stage_opts o = options();
	advect_stage S;
	slc_frame F;
	slc_err err;
	int dummy, rc;

	frame(&F, 1);
	rc = advect_stage_load(&S, &F, &o, (slc_comm *)&dummy, &err);
	CHECK(rc == -1 && strstr(err.msg, "one rank"), "a communicator refused: %s", err.msg);
	advect_stage_free(&S);
	slc_frame_free(&F);

	frame(&F, 0);
	rc = advect_stage_load(&S, &F, &o, NULL, &err);
	CHECK(rc == -1 && strstr(err.msg, "no frame length"), "no dt refused: %s", err.msg);
	advect_stage_free(&S);
	o.dt = 0.05;
	rc = advect_stage_load(&S, &F, &o, NULL, &err);
	CHECK(rc == 0, "a given frame length wins");
	advect_stage_free(&S);
	slc_frame_free(&F);

	frame(&F, 1);
	slc_frame_remove(&F, slc_frame_find_undecoded(&F, "phi", SLC_GRID));
	o.pls = ADVECT_PLS_ON;
	rc = advect_stage_load(&S, &F, &o, NULL, &err);
	CHECK(rc == -1 && strstr(err.msg, "no grid record 'phi'"), "--pls on without phi: %s", err.msg);
	advect_stage_free(&S);
	slc_frame_free(&F);
}

int
main(void)
{
	whole_frame();
	refusals();
	return ctest_done();
}
