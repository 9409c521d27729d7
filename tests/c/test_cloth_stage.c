/* test_cloth_stage.c: clothstep's frame physics (stage/cloth_stage.h): a
 * free sheet in a frame falls by g t^2/2 over one frame and the cloth and
 * scene records are advanced; missing or bad records and a communicator
 * in the serial build are errors naming what is wrong; every allocation
 * of load, step and store failing in turn gives -1 with a message and
 * leaks nothing (the sanitizer build checks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_mesh.h"
#include "core/meta.h"
#include "ctest.h"
#include "stage/cloth_stage.h"

/* Allocations tried before giving up on the stage ever succeeding. */
#define MAX_ALLOCS 2000

/* A frame: a scene (fps 10, frame 3), a 4x4 sheet 'cloth' at y = 1 with
 * nv velocities (the point count when right) and a particle record. */
static int
make_frame(slc_frame *F, int wrong_v, slc_err *err)
{
	double *x, o[3] = {-0.5, 1, -0.5}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	slc_rec *r;
	int ok;

	slc_frame_init(F);
	if (cloth_sheet(4, 4, o, eu, ev, 1, 1, &x, &np, &tri, &nt, err))
		return -1;
	ok = (r = slc_frame_add(F, SLC_META, "scene", err)) &&
	     !slc_meta_set(r, "fps", "10", err) && !slc_meta_set(r, "frame", "3", err);
	if (ok && (r = slc_frame_add(F, SLC_MESH, "cloth", err))) {
		double *P = slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, np, err);
		uint32_t *t = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, nt, err);
		double *v = slc_rec_add(r, "v", SLC_F64, 3, SLC_POINT,
					wrong_v ? np - 1 : np, err);
		ok = P && t && v;
		if (ok) {
			memcpy(P, x, 3 * np * sizeof *P);
			memcpy(t, tri, 3 * nt * sizeof *t);
		}
	} else {
		ok = 0;
	}
	ok = ok && slc_frame_add(F, SLC_PARTICLES, "other", err);
	free(x);
	free(tri);
	return ok ? 0 : -1;
}

/* Mean y of the cloth record's P. */
static double
mean_y(const slc_rec *cr)
{
	uint64_t n;
	double *P = slc_rec_get_f64(cr, "P", 3, &n, NULL), s = 0;

	for (uint64_t i = 0; P && i < n; i++)
		s += P[3 * i + 1];
	free(P);
	return n ? s / (double)n : NAN;
}

static void
test_fall(void)
{
	cloth_stage_opts o;
	cloth_stage s;
	slc_frame F;
	slc_err err;
	char buf[64] = "";

	cloth_stage_opts_default(&o);
	int made = make_frame(&F, 0, &err);
	CHECK(made == 0, "frame: %s", made ? err.msg : "made");
	int rc = cloth_stage_load(&s, &F, &o, NULL, &err);
	CHECK(rc == 0, "load: %s", rc ? err.msg : "");
	rc = rc || cloth_stage_step(&s, NULL, &err) || cloth_stage_store(&s, NULL, &err);
	CHECK(rc == 0, "step and store: %s", rc ? err.msg : "");
	if (rc) {
		cloth_stage_free(&s);
		slc_frame_free(&F);
		return;
	}
	/* a free rigid sheet: 1 - 9.8 * 0.1^2 / 2 = 0.951 */
	double y = mean_y(s.cr);
	CHECK(fabs(y - 0.951) < 5e-4, "the sheet fell to y %.5f (0.951)", y);
	CHECK(s.cr->time == 0.1, "cloth record time %g", s.cr->time);
	slc_meta_get(s.scene, "frame", buf, sizeof buf);
	CHECK(!strcmp(buf, "4"), "scene frame %s", buf);
	slc_meta_get(s.scene, "time", buf, sizeof buf);
	CHECK(!strcmp(buf, "0.10000000000000001"), "scene time %s", buf);
	CHECK(s.fig.np == 25 && s.fig.st.steps == 8 && s.fig.self,
	      "figures: %zu points, %ld steps", s.fig.np, s.fig.st.steps);
	CHECK(F.n == 3 && F.r[1] == s.cr && F.r[0] == s.scene,
	      "the frame keeps its records in order");
	cloth_stage_free(&s);
	slc_frame_free(&F);
}

static void
test_errors(void)
{
	cloth_stage_opts o;
	cloth_stage s;
	slc_frame F;
	slc_err err;
	int dummy = 0;

	cloth_stage_opts_default(&o);
	make_frame(&F, 0, &err);
	CHECK(cloth_stage_load(&s, &F, &o, (slc_comm *)&dummy, &err) == -1 &&
	      strstr(err.msg, "one rank"), "a communicator is refused: %s", err.msg);
	cloth_stage_free(&s);
	o.cloth = "sheet";
	CHECK(cloth_stage_load(&s, &F, &o, NULL, &err) == -1 &&
	      !strcmp(err.msg, "no mesh record 'sheet'"), "no cloth: %s", err.msg);
	cloth_stage_free(&s);
	slc_frame_free(&F);

	cloth_stage_opts_default(&o);
	make_frame(&F, 1, &err);
	CHECK(cloth_stage_load(&s, &F, &o, NULL, &err) == -1 &&
	      !strcmp(err.msg, "record 'cloth': channel v: wrong count"),
	      "a wrong velocity count: %s", err.msg);
	cloth_stage_free(&s);
	slc_frame_free(&F);
}

static void
test_alloc(void)
{
	cloth_stage_opts o;
	cloth_stage s;
	slc_frame F;
	slc_err err;
	int n, fails = 0, silent = 0;

	cloth_stage_opts_default(&o);
	for (n = 1; n < MAX_ALLOCS; n++) {
		if (make_frame(&F, 0, &err))
			break;
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = cloth_stage_load(&s, &F, &o, NULL, &err) ||
			 cloth_stage_step(&s, NULL, &err) ||
			 cloth_stage_store(&s, NULL, &err);
		slc_alloc_fail_after(0);
		cloth_stage_free(&s);
		slc_frame_free(&F);
		if (!rc)
			break;
		fails++;
		silent += !err.msg[0];
	}
	CHECK(n < MAX_ALLOCS && fails > 20,
	      "the stage fails at each of %d allocations, then works", fails);
	CHECK(!silent, "every failure has a message (%d without)", silent);
}

int
main(void)
{
	test_fall();
	test_errors();
	test_alloc();
	return ctest_done();
}
