/* test_project_stage: project's frame (lib/stage/project_stage.h): the
 * records it needs and the messages naming them, one rank only, and a
 * solve that puts p, the velocity and the 'project' record into the
 * frame. */
#include <math.h>
#include <string.h>

#include "ctest.h"
#include "core/meta.h"
#include "grid/field.h"
#include "stage/project_stage.h"

/* A face grid record of an n^3 cell grid, a smooth velocity along axis a. */
static void
add_face(slc_frame *F, const char *name, int a, int n)
{
	field f;
	slc_err err;
	slc_rec r;
	double o[3] = {0, 0, 0};

	field_alloc(&f, n, n, n, SLC_FACE_X + a, o, 1.0 / n, &err);
	for (size_t q = 0; q < field_count(&f); q++)
		f.a[q] = (float)sin(0.7 * (double)q + a);
	slc_rec_init(&r, SLC_GRID, name);
	field_to_rec(&f, &r, name, 0, &err);
	slc_frame_put(F, &r, &err);
	field_free(&f);
}

int
main(void)
{
	slc_frame F;
	project_stage S;
	project_stats st;
	slc_err err;
	project_opts o = {PCG_MG, 0, PS_BC_WALL, 1e-8, 200, 1000, NAN};
	int other;

	slc_frame_init(&F);
	CHECK(project_stage_load(&S, &F, &o, NULL, &err) == -1 &&
	      strstr(err.msg, "no 'u' grid record"), "no velocity: %s", err.msg);
	add_face(&F, "u", 0, 8);
	add_face(&F, "v", 1, 8);
	CHECK(project_stage_load(&S, &F, &o, NULL, &err) == -1 &&
	      strstr(err.msg, "no 'w' grid record"), "no w: %s", err.msg);
	add_face(&F, "w", 2, 8);
	slc_rec *scene = slc_frame_add(&F, SLC_META, "scene", &err);
	slc_meta_set(scene, "frame", "3", &err);
	slc_meta_set(scene, "dt", "0.04", &err);
	CHECK(project_stage_load(&S, &F, &o, (slc_comm *)&other, &err) == -1 &&
	      strstr(err.msg, "one rank"), "a communicator in the serial build: %s", err.msg);

	CHECK(project_stage_load(&S, &F, &o, NULL, &err) == 0, "loaded");
	CHECK(S.frame == 3 && S.dt == 0.04, "the scene's frame and dt");
	CHECK(project_stage_solve(&S, &st, NULL, &err) == 0 && st.pcg.converged &&
	      st.have_dt && st.nregion == 1 && st.nenclosed == 1, "solved: %d iterations",
	      st.pcg.iters);
	CHECK(project_stage_store(&S, NULL, &err) == 0, "stored");
	slc_rec *p = slc_frame_find_undecoded(&F, "p", SLC_GRID);
	slc_rec *meta = slc_frame_find(&F, "project", SLC_META);
	CHECK(p && meta && slc_frame_index(&F, p) == 4 && slc_frame_index(&F, meta) == 5,
	      "p and 'project' appended after the scene");
	CHECK(project_stage_changed(&S, F.r[0]) && project_stage_changed(&S, p) &&
	      project_stage_changed(&S, meta) && !project_stage_changed(&S, scene),
	      "u, p and 'project' changed, the scene not");
	char val[32];
	CHECK(slc_meta_get(meta, "converged", val, sizeof val) == 1 && !strcmp(val, "1") &&
	      slc_meta_get(meta, "precond", val, sizeof val) == 1 && !strcmp(val, "mg"),
	      "the 'project' record");

	/* the divergence left on the interior cells is at the tolerance */
	field u, v, w;
	field_from_rec(&u, F.r[0], NULL, &err);
	field_from_rec(&v, F.r[1], NULL, &err);
	field_from_rec(&w, F.r[2], NULL, &err);
	double dmax = 0;
	for (int k = 0; k < 8; k++)
		for (int j = 0; j < 8; j++)
			for (int i = 0; i < 8; i++) {
				double d = u.a[FIELD_IDX(&u, i + 1, j, k)] - u.a[FIELD_IDX(&u, i, j, k)] +
					   v.a[FIELD_IDX(&v, i, j + 1, k)] - v.a[FIELD_IDX(&v, i, j, k)] +
					   w.a[FIELD_IDX(&w, i, j, k + 1)] - w.a[FIELD_IDX(&w, i, j, k)];
				dmax = fabs(d) > dmax ? fabs(d) : dmax;
			}
	CHECK(dmax < 1e-5, "divergence free: max %g", dmax);
	project_stage_free(&S);

	/* a second projection replaces p and 'project' in place */
	size_t n = F.n;
	CHECK(project_stage_load(&S, &F, &o, NULL, &err) == 0 &&
	      project_stage_solve(&S, &st, NULL, &err) == 0 &&
	      project_stage_store(&S, NULL, &err) == 0 && F.n == n &&
	      slc_frame_index(&F, slc_frame_find_undecoded(&F, "p", SLC_GRID)) == 4,
	      "projected again: p in its place, one 'project' record");
	project_stage_free(&S);
	slc_frame_free(&F);
	return ctest_done();
}
