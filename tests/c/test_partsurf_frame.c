/* test_partsurf_frame.c: particles gathered from a frame for a particle
 * surface (lib/liquid/partsurf_frame.c): the records of one name in
 * stream order with their radii, the mean radius, and the refusals (a
 * radius <= 0 naming the particle, radii in some records only, a NaN, no
 * record at all). */
#include <math.h>
#include <string.h>

#include "ctest.h"
#include "liquid/partsurf_frame.h"

/* Add a particles record to F: n points P (x3) and, unless rad is NULL,
 * their radii; at time t. */
static void
add_parts(slc_frame *F, const char *name, size_t n, const float *P, const float *rad,
	  double t)
{
	slc_rec *r = slc_frame_add(F, SLC_PARTICLES, name, NULL);

	memcpy(slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, n, NULL), P, 3 * n * sizeof *P);
	if (rad)
		memcpy(slc_rec_add(r, "radius", SLC_F32, 1, SLC_POINT, n, NULL), rad,
		       n * sizeof *rad);
	r->time = t;
}

static void
test_stream_order(void)
{
	static const float P1[6] = { 1, 2, 3, 4, 5, 6 }, r1[2] = { 0.5f, 0.25f };
	static const float P2[3] = { 7, 8, 9 }, r2[1] = { 2 };
	static const float Po[3] = { -1, -1, -1 }, ro[1] = { 9 };
	slc_frame F = { 0 };
	ps_particles ps;
	slc_err err;
	int same = 1;

	add_parts(&F, "other", 1, Po, ro, 0.5);
	add_parts(&F, "drop", 2, P1, r1, 1.5);
	slc_frame_add(&F, SLC_MESH, "drop", NULL);      /* not particles: skipped */
	add_parts(&F, "other", 1, Po, ro, 2);
	add_parts(&F, "drop", 1, P2, r2, 2.5);
	CHECK(ps_gather(&F, "drop", &ps, &err) == 0, "two records: gathered");
	CHECK(ps.np == 3 && ps.nrec == 2 && ps.time == 1.5,
	      "two records: 3 particles from 2 records, the first's time (%zu, %zu, %g)",
	      ps.np, ps.nrec, ps.time);
	for (int q = 0; q < 6; q++)
		same &= ps.P[q] == P1[q];
	for (int q = 0; q < 3; q++)
		same &= ps.P[6 + q] == P2[q];
	CHECK(same, "two records: positions in stream order");
	CHECK(ps.rad && ps.rad[0] == 0.5 && ps.rad[1] == 0.25 && ps.rad[2] == 2,
	      "two records: their radii in the same order");
	CHECK(ps_mean_radius(&ps) == 0.5 / 3 + 0.25 / 3 + 2.0 / 3,
	      "the mean radius, summed in order (%.17g)", ps_mean_radius(&ps));
	ps_particles_free(&ps);
	CHECK(ps.P == NULL && ps.rad == NULL && ps.np == 0, "freed: empty");

	CHECK(ps_gather(&F, "none", &ps, &err) == -1 &&
	      !strcmp(err.msg, "no particle record 'none' in the input"),
	      "no record of the name: refused (%s)", err.msg);
	ps_particles_free(&ps);
	slc_frame_free(&F);
}

static void
test_refusals(void)
{
	static const float P[9] = { 0, 0, 0, 1, 0, 0, 2, 0, 0 };
	static const float good[3] = { 0.1f, 0.1f, 0.1f }, zero[3] = { 0.1f, 0, 0.1f };
	static const float neg[3] = { 0.1f, 0.1f, -1 };
	float nan_rad[3] = { 0.1f, NAN, 0.1f };
	slc_frame F = { 0 };
	ps_particles ps;
	slc_err err;

	add_parts(&F, "a", 3, P, good, 0);
	add_parts(&F, "a", 3, P, zero, 0);
	CHECK(ps_gather(&F, "a", &ps, &err) == -1 &&
	      !strcmp(err.msg, "particles 'a': particle 1 has radius 0 (expected 0 < r <= 1e+09 m)"),
	      "a radius of 0 is refused, naming the particle (%s)", err.msg);
	ps_particles_free(&ps);
	slc_frame_free(&F);

	{
		static const float huge[3] = { 0.1f, 1e29f, 0.1f };

		add_parts(&F, "a", 3, P, huge, 0);
		CHECK(ps_gather(&F, "a", &ps, &err) == -1 && strstr(err.msg, "particle 1 has radius 1e+29"),
		      "a radius past PS_RADIUS_MAX (float sums would overflow) is refused (%s)", err.msg);
		ps_particles_free(&ps);
		slc_frame_free(&F);
	}

	add_parts(&F, "a", 3, P, neg, 0);
	CHECK(ps_gather(&F, "a", &ps, &err) == -1 &&
	      !strcmp(err.msg, "particles 'a': particle 2 has radius -1 (expected 0 < r <= 1e+09 m)"),
	      "a negative radius is refused, naming the particle (%s)", err.msg);
	ps_particles_free(&ps);
	slc_frame_free(&F);

	add_parts(&F, "a", 3, P, good, 0);
	add_parts(&F, "a", 3, P, NULL, 0);
	CHECK(ps_gather(&F, "a", &ps, &err) == -1 &&
	      !strcmp(err.msg, "particles 'a': a 'radius' channel in some records only"),
	      "radii in some records only: refused (%s)", err.msg);
	ps_particles_free(&ps);
	slc_frame_free(&F);

	add_parts(&F, "a", 3, P, NULL, 0);
	CHECK(ps_gather(&F, "a", &ps, &err) == 0 && ps.np == 3 && !ps.rad &&
	      ps_mean_radius(&ps) == 0, "no radii anywhere: rad NULL, mean 0");
	ps_particles_free(&ps);
	slc_frame_free(&F);

	add_parts(&F, "a", 3, P, nan_rad, 0);
	CHECK(ps_gather(&F, "a", &ps, &err) == -1 && strstr(err.msg, "NaN"),
	      "a NaN is refused (%s)", err.msg);
	ps_particles_free(&ps);
	slc_frame_free(&F);
}

int
main(void)
{
	test_stream_order();
	test_refusals();
	return ctest_done();
}
