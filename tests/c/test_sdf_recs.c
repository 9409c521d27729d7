/* test_sdf_recs.c: the level set of several records of a frame
 * (lib/geom/sdf_recs.c, sdf_recs_levelset): two overlapping spheres give
 * the min of their level sets (houston2003 §2 union), each sample taking
 * the velocity and slip of the nearer sphere; the per-mesh figures come in
 * stream order; a failing record is named with the step that failed;
 * every allocation failing in turn gives -1 and leaves out freeable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "meshgen.h"
#include "geom/sdf_recs.h"

#define N 24                    /* cells along each side of the grid */
#define R 0.25                  /* sphere radius, m */

/* Add to F a mesh record NAME: an icosphere of radius R at c, every
 * vertex moving with velocity v (a "v" channel) unless v is NULL. */
static void
add_sphere(slc_frame *F, const char *name, const double c[3], const double *v)
{
	tmesh m;
	slc_rec *r = slc_frame_add(F, SLC_MESH, name, NULL);
	float *P, *V;
	uint32_t *tri;

	icosphere(&m, 3, R, c);
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, m.nv, NULL);
	tri = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, m.nt, NULL);
	for (size_t q = 0; q < 3 * m.nv; q++)
		P[q] = (float)m.P[q];
	memcpy(tri, m.tri, 3 * m.nt * sizeof *tri);
	if (v) {
		V = slc_rec_add(r, "v", SLC_F32, 3, SLC_POINT, m.nv, NULL);
		for (size_t q = 0; q < 3 * m.nv; q++)
			V[q] = (float)v[q % 3];
	}
	tmesh_free(&m);
}

static const char *seen[4];
static int nseen;

static void
mesh_done(void *ctx, const slc_rec *r, const sdf_stats *st)
{
	(void)st;
	*(int *)ctx += 1;
	if (nseen < 4)
		seen[nseen++] = r->name;
}

static void
test_two_spheres(void)
{
	double ca[3] = { -0.1, 0, 0 }, cb[3] = { 0.15, 0.05, 0 };
	double va[3] = { 1, 2, 3 }, vb[3] = { -4, 0.5, 0 };
	double slip[2] = { 0.25, 1 };
	slc_grid g = { N, N, N, SLC_CELL, { -0.6, -0.6, -0.6 }, 1.2 / N };
	slc_frame F = { 0 };
	int use[2] = { 1, 1 }, calls = 0;
	sdf_recs_in in = { 0 };
	sdf_recs_out out, a, b;
	size_t n = (size_t)N * N * N, wrong_phi = 0, wrong_vel = 0, wrong_slip = 0;
	size_t from_a = 0, from_b = 0;
	slc_err err;

	add_sphere(&F, "a", ca, va);
	add_sphere(&F, "b", cb, vb);
	in.use = use;
	in.slip = slip;
	in.o = (sdf_opts){ 3, 0, 0 };
	in.occl = 1;
	in.mesh_done = mesh_done;
	in.ctx = &calls;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == 0, "two spheres: succeeds");
	CHECK(calls == 2 && nseen == 2 && !strcmp(seen[0], "a") && !strcmp(seen[1], "b"),
	      "two spheres: each mesh's figures once, in stream order (%d calls)", calls);
	CHECK(out.phi.ni == N && out.phi.nj == N && out.phi.nk == N && out.vel && out.slip,
	      "two spheres: the fields on the grid");

	/* each sphere alone */
	use[1] = 0;
	in.mesh_done = NULL;
	CHECK(sdf_recs_levelset(&F, &in, &g, &a, &err) == 0, "sphere a alone");
	use[0] = 0;
	use[1] = 1;
	CHECK(sdf_recs_levelset(&F, &in, &g, &b, &err) == 0, "sphere b alone");
	for (size_t c = 0; c < n; c++) {
		int near_a = a.phi.a[c] <= b.phi.a[c];
		const float *vn = near_a ? a.vel + 3 * c : b.vel + 3 * c;
		const double *vt = near_a ? va : vb;

		from_a += near_a;
		from_b += !near_a;
		wrong_phi += out.phi.a[c] != fminf(a.phi.a[c], b.phi.a[c]);
		wrong_vel += memcmp(out.vel + 3 * c, vn, 3 * sizeof *vn) != 0 ||
			     out.vel[3 * c] != (float)vt[0] ||
			     out.vel[3 * c + 1] != (float)vt[1] ||
			     out.vel[3 * c + 2] != (float)vt[2];
		wrong_slip += out.slip[c] != (float)(near_a ? slip[0] : slip[1]);
	}
	CHECK(from_a > n / 4 && from_b > n / 4, "two spheres: both are nearest somewhere "
	      "(%zu, %zu samples)", from_a, from_b);
	CHECK(wrong_phi == 0, "union: phi is the min of the two level sets (%zu differ)",
	      wrong_phi);
	CHECK(wrong_vel == 0, "union: the velocity of the nearer sphere (%zu differ)",
	      wrong_vel);
	CHECK(wrong_slip == 0, "union: the slip of the nearer sphere (%zu differ)",
	      wrong_slip);
	sdf_recs_out_free(&out);
	sdf_recs_out_free(&a);
	sdf_recs_out_free(&b);

	/* no occlusion: the level set alone, the same */
	use[0] = use[1] = 1;
	in.occl = 0;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == 0 && !out.vel && !out.slip,
	      "without occlusion: the level set alone");
	sdf_recs_out_free(&out);
	slc_frame_free(&F);
}

static void
test_failures(void)
{
	double c[3] = { 0, 0, 0 };
	slc_grid g = { N, N, N, SLC_CELL, { -0.6, -0.6, -0.6 }, 1.2 / N };
	slc_frame F = { 0 }, prev = { 0 };
	int use[3] = { 1, 1, 1 }, calls = 0;
	sdf_recs_in in = { 0 };
	sdf_recs_out out;
	slc_err err;

	add_sphere(&F, "still", c, NULL);
	add_sphere(&F, "moving", c, NULL);
	slc_frame_add(&F, SLC_MESH, "empty", NULL);     /* no "P" */
	in.use = use;
	in.o = (sdf_opts){ 3, 0, 0 };
	in.mesh_done = mesh_done;
	in.ctx = &calls;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == -1 && out.bad == 2 &&
	      out.step == SDF_RECS_SHAPE && !out.thin_shell && strstr(err.msg, "'empty'") &&
	      calls == 2,
	      "a mesh without points: its record and step, not a thin shell (%s)", err.msg);
	sdf_recs_out_free(&out);

	/* the velocity from a previous frame without that mesh */
	use[2] = 0;
	in.occl = 1;
	in.prev = &prev;
	in.dt = 0.04;
	add_sphere(&prev, "still", c, NULL);
	calls = 0;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == -1 && out.bad == 1 &&
	      out.step == SDF_RECS_VELOCITY && !out.bad_dt && strstr(err.msg, "'moving'") &&
	      calls == 2, "no mesh of that name in the previous frame: its record and "
	      "step (%s)", err.msg);
	sdf_recs_out_free(&out);

	/* the same time in both frames: a bad time step from the times */
	add_sphere(&prev, "moving", c, NULL);
	in.dt = 0;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == -1 && out.bad == 0 &&
	      out.step == SDF_RECS_VELOCITY && out.bad_dt && strstr(err.msg, "time step"),
	      "equal record times: a bad time step (%s)", err.msg);
	sdf_recs_out_free(&out);
	in.dt = 0.04;
	CHECK(sdf_recs_levelset(&F, &in, &g, &out, &err) == 0,
	      "a time step given: succeeds");
	sdf_recs_out_free(&out);
	slc_frame_free(&prev);
	slc_frame_free(&F);
}

static void
test_alloc(void)
{
	double c[3] = { 0, 0, 0 }, v[3] = { 1, 0, 0 };
	slc_grid g = { 8, 8, 8, SLC_CELL, { -0.6, -0.6, -0.6 }, 1.2 / 8 };
	slc_frame F = { 0 };
	int use[1] = { 1 }, failed = 0, bad = 0;
	sdf_recs_in in = { 0 };
	sdf_recs_out out;
	slc_err err;
	long k;

	add_sphere(&F, "s", c, v);
	in.use = use;
	in.o = (sdf_opts){ 3, 0, 0 };
	in.occl = 1;
	for (k = 1; k < 1000; k++) {
		int rc;

		err.msg[0] = '\0';
		slc_alloc_fail_after(k);
		rc = sdf_recs_levelset(&F, &in, &g, &out, &err);
		slc_alloc_fail_after(0);
		sdf_recs_out_free(&out);
		if (rc == 0)
			break;
		failed++;
		bad += !strstr(err.msg, "memory");
	}
	CHECK(k < 1000 && failed > 3 && bad == 0, "each of %d allocations failing: -1 "
	      "saying out of memory (%d did not)", failed, bad);
	slc_frame_free(&F);
}

int
main(void)
{
	test_two_spheres();
	test_failures();
	test_alloc();
	return ctest_done();
}
