/* test_shell.c: visibility through thin shells (lib/shell/shell_vis.h)
 * against brute force and geometry: the binned query answers as testing
 * every triangle does, for short and long segments, inside and outside
 * the lattice; a sheet spanning the box hides one side from the other
 * and nothing on one side; a segment's crossing lands on the sheet with
 * barycentric weights that rebuild it; a fold picks the crossing nearest
 * the asked position; bad input is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "ctest.h"
#include "shell/shell_vis.h"

/* two triangles spanning [x0,x1]x[y0,y1] at height z */
static void
quad_z(float P[12], uint32_t tri[6], double x0, double x1, double y0,
       double y1, double z)
{
	const float v[12] = {(float)x0, (float)y0, (float)z, (float)x1, (float)y0,
			     (float)z, (float)x1, (float)y1, (float)z, (float)x0,
			     (float)y1, (float)z};
	const uint32_t t[6] = {0, 1, 2, 0, 2, 3};

	memcpy(P, v, sizeof v);
	memcpy(tri, t, sizeof t);
}

static int
brute_visible(const shell_set *s, const double a[3], const double b[3])
{
	size_t q;

	for (q = 0; q < s->ntri; q++)
		if (shell_tri_blocked(a, b, s->tv + 9 * q, s->eps))
			return 0;
	return 1;
}

static void
rand_point(rng *g, double lo, double hi, double x[3])
{
	int a;

	for (a = 0; a < 3; a++)
		x[a] = lo + (hi - lo) * rng_uniform(g);
}

static void
test_sheet(void)
{
	shell_set s;
	slc_err err;
	float P[12];
	uint32_t tri[6];
	const double o[3] = {0, 0, 0}, eps = 1e-3;
	rng g;
	int n, wrong = 0, crossed = 0;

	quad_z(P, tri, -0.1, 1.1, -0.1, 1.1, 0.5);
	CHECK(shell_init(&s, eps, &err) == 0 &&
	      shell_add_mesh(&s, P, 4, tri, 2, &err) == 0 &&
	      shell_build(&s, o, 1.0 / 8, 8, 8, 8, &err) == 0, "sheet: binned");
	rng_init(&g, 7);
	for (n = 0; n < 20000; n++) {
		double a[3], b[3];
		int want;

		rand_point(&g, 0.01, 0.99, a);
		rand_point(&g, 0.01, 0.99, b);
		if (fabs(a[2] - 0.5) < eps || fabs(b[2] - 0.5) < eps)
			continue;
		want = (a[2] > 0.5) == (b[2] > 0.5);
		crossed += !want;
		wrong += shell_visible(&s, a, b) != want;
	}
	CHECK(wrong == 0 && crossed > 5000,
	      "sheet: visible exactly when both ends lie on one side (%d wrong of 20000, %d crossing)",
	      wrong, crossed);
	{
		double a[3] = {0.3, 0.4, 0.5 + 0.25 * eps}, b[3] = {0.3, 0.4, 0.9};

		CHECK(!shell_visible(&s, a, b), "sheet: an end inside the wedge is not usable");
	}
	{
		double a[3] = {0.3, 0.7, 0.2}, b[3] = {0.6, 0.1, 0.8}, x[3];
		shell_hit h;
		int c, ok;
		const float *t;

		ok = shell_segment_hit(&s, a, b, 0.5, &h);
		t = s.tv + 9 * h.tri;
		for (c = 0; c < 3; c++)
			x[c] = h.bary[0] * t[c] + h.bary[1] * t[3 + c] + h.bary[2] * t[6 + c];
		CHECK(ok && fabs(h.t - 0.5) < 1e-12 && fabs(x[0] - 0.45) < 1e-6 &&
		      fabs(x[1] - 0.4) < 1e-6 && fabs(x[2] - 0.5) < 1e-7 &&
		      s.tmesh[h.tri] == 0 && s.tlocal[h.tri] == h.tri,
		      "sheet: crossing at t %g, rebuilt (%g %g %g) = (0.45 0.4 0.5)",
		      h.t, x[0], x[1], x[2]);
		b[2] = 0.45;
		CHECK(!shell_segment_hit(&s, a, b, 0.5, &h), "sheet: no crossing below it");
	}
	shell_free(&s);
}

/* a small tilted triangle and two parallel sheets: the binned answer
 * equals brute force for segments of every length, some reaching
 * outside the lattice */
static void
test_binning(void)
{
	shell_set s;
	slc_err err;
	float P[12];
	uint32_t tri[6];
	const float small[9] = {0.31f, 0.42f, 0.37f, 0.52f, 0.47f, 0.61f,
				0.36f, 0.66f, 0.45f};
	const uint32_t one[3] = {0, 1, 2};
	const double o[3] = {0, 0, 0};
	rng g;
	int n, wrong = 0, blocked = 0;

	CHECK(shell_init(&s, 2e-3, &err) == 0 &&
	      shell_add_mesh(&s, small, 3, one, 1, &err) == 0, "binning: small triangle added");
	quad_z(P, tri, 0.0, 1.0, 0.0, 1.0, 0.8);
	CHECK(shell_add_mesh(&s, P, 4, tri, 2, &err) == 0 && s.nmesh == 2 &&
	      s.tmesh[2] == 1 && s.tlocal[2] == 1, "binning: second mesh numbered 1");
	CHECK(shell_build(&s, o, 1.0 / 16, 16, 16, 16, &err) == 0, "binning: built");
	rng_init(&g, 11);
	for (n = 0; n < 40000; n++) {
		double a[3], b[3], len = n % 4 == 0 ? 0.7 : n % 4 == 1 ? 0.2 : 0.06;
		int c, want;

		rand_point(&g, -0.1, 1.1, a);
		for (c = 0; c < 3; c++)
			b[c] = a[c] + len * (2 * rng_uniform(&g) - 1);
		want = brute_visible(&s, a, b);
		blocked += !want;
		wrong += shell_visible(&s, a, b) != want;
	}
	CHECK(wrong == 0 && blocked > 1000,
	      "binning: equals brute force (%d wrong of 40000, %d blocked)", wrong, blocked);
	{
		/* a fold: two sheets, the crossing nearest the asked t */
		double a[3] = {0.5, 0.5, 0.3}, b[3] = {0.5, 0.5, 0.9};
		float P2[12];
		uint32_t tri2[6];
		shell_hit h;

		quad_z(P2, tri2, 0.0, 1.0, 0.0, 1.0, 0.4);
		CHECK(shell_add_mesh(&s, P2, 4, tri2, 2, &err) == 0 &&
		      shell_build(&s, o, 1.0 / 16, 16, 16, 16, &err) == 0 &&
		      shell_segment_hit(&s, a, b, 0.1, &h) && fabs(h.t - 1.0 / 6) < 1e-6 &&
		      s.tmesh[h.tri] == 2,
		      "fold: t0 0.1 takes the lower sheet (t %g)", h.t);
		CHECK(shell_segment_hit(&s, a, b, 0.9, &h) && fabs(h.t - 5.0 / 6) < 1e-6 &&
		      s.tmesh[h.tri] == 1,
		      "fold: t0 0.9 takes the upper sheet (t %g)", h.t);
	}
	shell_free(&s);
}

static void
test_refused(void)
{
	shell_set s;
	slc_err err;
	const float P[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	const uint32_t bad[3] = {0, 1, 3};
	const double o[3] = {0, 0, 0};

	CHECK(shell_init(&s, 0, &err) == -1 && strstr(err.msg, "positive"),
	      "refused: zero thickness (%s)", err.msg);
	CHECK(shell_init(&s, 1e-3, &err) == 0 &&
	      shell_add_mesh(&s, P, 3, bad, 1, &err) == -1 && strstr(err.msg, "out of range"),
	      "refused: index out of range (%s)", err.msg);
	CHECK(shell_build(&s, o, 0, 4, 4, 4, &err) == -1, "refused: empty lattice (%s)",
	      err.msg);
	shell_free(&s);
}

int
main(void)
{
	test_sheet();
	test_binning();
	test_refused();
	return ctest_done();
}
