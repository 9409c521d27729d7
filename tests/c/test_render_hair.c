/* test_render_hair.c: strands drawn as Kajiya-Kay ribbons
 * (lib/render/raster.c): the shading follows the tangent as the model
 * says (darker along the light, the highlight on the reflected cone), a
 * strand is pictured where it projects and as wide as asked, Cd colours
 * strands, the near plane clips, bad tables are refused, and pictures
 * are the same from 1 and 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "render/raster.h"

#define W 96
#define H 96

static const double bg[3] = {0, 0, 0};

static void
hair_style(strand_style *st, double width)
{
	memset(st, 0, sizeof *st);
	st->albedo[0] = 0.5, st->albedo[1] = 0.4, st->albedo[2] = 0.3;
	st->light[0] = 1;       /* from +x, across the picture */
	st->ambient = 0.1;
	st->width = width;
	st->spec = 0.25;
	st->shine = 32;
}

static void
cam_front(camera *c)
{
	const double eye[3] = {0, 0, 3}, tgt[3] = {0, 0, 0}, up[3] = {0, 1, 0};

	camera_init(c, eye, tgt, up, 40, W, H, NULL);
}

/* Mean red of the drawn pixels and their count. */
static double
mean_red(const rimage *im, int *n)
{
	double sum = 0;

	*n = 0;
	for (size_t p = 0; p < (size_t)W * H; p++)
		if (isfinite(im->z[p])) {
			sum += im->rgb[3 * p];
			(*n)++;
		}
	return *n ? sum / *n : 0;
}

static void
test_shade(void)
{
	strand_style st;
	const double along[3] = {1, 0, 0}, across[3] = {0, 1, 0}, E[3] = {0, 0, 1};
	const double a[3] = {1, 1, 1};
	float c1[3], c2[3], c3[3];

	hair_style(&st, 0.01);
	shade_hair(&st, a, along, E, c1);
	shade_hair(&st, a, across, E, c2);
	CHECK(c1[0] < c2[0] && fabs(c1[0] - st.ambient) < 1e-6,
	      "along the light only the ambient part (%.3f), across it more (%.3f)",
	      c1[0], c2[0]);
	/* the highlight: T across L, E on the cone T.E = -T.L = 0 vs off it */
	double T[3] = {0, 0.6, 0.8}, L2[3] = {0, -0.8, 0.6}, on[3], off[3] = {0, 0, 1};
	memcpy(st.light, L2, sizeof L2);
	/* E with T.E = -T.L: the mirror of L about the plane across T */
	double tl = T[1] * L2[1] + T[2] * L2[2];
	for (int k = 0; k < 3; k++)
		on[k] = L2[k] - 2 * tl * T[k];
	shade_hair(&st, a, T, on, c1);
	shade_hair(&st, a, T, off, c2);
	double neg[3] = {0, -0.6, -0.8};
	shade_hair(&st, a, neg, on, c3);
	CHECK(c1[0] > c2[0] + 0.2 && c1[0] == c3[0],
	      "highlight on the reflected cone (%.3f) not off it (%.3f), either sign of T",
	      c1[0], c2[0]);
}

static void
test_picture(void)
{
	/* one strand along x at y = 0.3, one along y at x = 0.5 */
	const float P[] = {-0.8f, 0.3f, 0, -0.4f, 0.3f, 0, 0.0f, 0.3f, 0,
			   0.5f, -0.8f, 0, 0.5f, -0.4f, 0};
	const uint32_t off[] = {0, 3, 5};
	rimage im;
	camera c;
	strand_style st;
	slc_err err;
	double sx0, sy0, sx1, sy1, z;

	cam_front(&c);
	hair_style(&st, 0.1);
	rimage_alloc(&im, W, H, bg, NULL);
	CHECK(raster_strands(&im, &c, P, 5, off, 1, &st, &err) == 0, "one strand draws");
	double a[3] = {-0.8, 0.3, 0}, b[3] = {0, 0.3, 0};
	camera_project(&c, a, &sx0, &sy0, &z);
	camera_project(&c, b, &sx1, &sy1, &z);
	double hw = camera_pixels(&c, 0.05, z);
	int in = 0, out = 0, miss = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			double px = x + 0.5, py = y + 0.5;
			double tx = fmin(sx1, fmax(sx0, px));
			double d = hypot(px - tx, py - sy0);
			int drawn = isfinite(im.z[(size_t)x + (size_t)W * y]);
			if (d < hw - 0.5)
				in++, miss += !drawn;
			else if (d > hw + 0.5)
				out += drawn;
		}
	CHECK(in > 50 && miss == 0 && out == 0,
	      "the strand covers its projection, %.2f px wide (%d inside, %d missed, %d outside)",
	      2 * hw, in, miss, out);
	{
		size_t p = (size_t)lrint(0.5 * (sx0 + sx1)) + (size_t)W * (size_t)sy0;
		CHECK(fabs(im.z[p] - 3) < 1e-6, "depth of the strand %.6f (3)", im.z[p]);
	}
	rimage_free(&im);

	/* along the light (x) darker than across it (y) */
	int na, nb;
	double ra, rb;
	rimage_alloc(&im, W, H, bg, NULL);
	raster_strands(&im, &c, P, 5, off, 1, &st, &err);
	ra = mean_red(&im, &na);
	rimage_free(&im);
	const uint32_t off2[] = {0, 2};
	rimage_alloc(&im, W, H, bg, NULL);
	CHECK(raster_strands(&im, &c, P + 9, 2, off2, 1, &st, &err) == 0, "strand along y");
	rb = mean_red(&im, &nb);
	rimage_free(&im);
	CHECK(na > 0 && nb > 0 && ra < 0.5 * rb,
	      "a strand along the light is darker (%.3f) than one across it (%.3f)", ra, rb);

	/* Cd per strand */
	const float cd[] = {1, 0, 0, 0, 1, 0};
	st.cd = cd;
	rimage_alloc(&im, W, H, bg, NULL);
	raster_strands(&im, &c, P, 5, off, 2, &st, &err);
	int red = 0, green = 0;
	for (size_t p = 0; p < (size_t)W * H; p++)
		if (isfinite(im.z[p])) {
			red += im.rgb[3 * p] > 0 && im.rgb[3 * p + 1] == im.rgb[3 * p + 2];
			green += im.rgb[3 * p + 1] > 0 && im.rgb[3 * p] == im.rgb[3 * p + 2];
		}
	CHECK(red > 20 && green > 20, "Cd per strand: %d red and %d green pixels", red, green);
	rimage_free(&im);

	/* Cd per point: red at the strand's left end, blue at its right */
	const float cdp[] = {1, 0, 0, 0.5f, 0, 0.5f, 0, 0, 1};
	st.cd = cdp;
	st.cd_point = 1;
	st.spec = 0;
	rimage_alloc(&im, W, H, bg, NULL);
	raster_strands(&im, &c, P, 5, off, 1, &st, &err);
	{
		size_t pl = (size_t)lrint(sx0 + 2) + (size_t)W * (size_t)sy0;
		size_t pr = (size_t)lrint(sx1 - 2) + (size_t)W * (size_t)sy0;
		CHECK(im.rgb[3 * pl] > 4 * im.rgb[3 * pl + 2] && im.rgb[3 * pr + 2] > 4 * im.rgb[3 * pr],
		      "Cd per point: red end %.3f/%.3f, blue end %.3f/%.3f", im.rgb[3 * pl],
		      im.rgb[3 * pl + 2], im.rgb[3 * pr], im.rgb[3 * pr + 2]);
	}
	rimage_free(&im);
	st.cd_point = 0;
	st.spec = 0.25;

	/* bad input */
	const uint32_t bad[] = {0, 6};
	st.cd = NULL;
	rimage_alloc(&im, W, H, bg, NULL);
	CHECK(raster_strands(&im, &c, P, 5, bad, 1, &st, &err) == -1,
	      "offsets past the points refused: %s", err.msg);
	st.width = 0;
	CHECK(raster_strands(&im, &c, P, 5, off, 1, &st, &err) == -1,
	      "zero width refused: %s", err.msg);
	rimage_free(&im);
}

/* Thinner than a pixel: still a line one pixel wide, unbroken. */
static void
test_thin(void)
{
	const float P[] = {-0.9f, -0.7f, 0, 0.8f, 0.6f, 0};
	const uint32_t off[] = {0, 2};
	rimage im;
	camera c;
	strand_style st;
	int cols = 0;

	cam_front(&c);
	hair_style(&st, 1e-5);
	rimage_alloc(&im, W, H, bg, NULL);
	raster_strands(&im, &c, P, 2, off, 1, &st, NULL);
	double a[3] = {-0.9, -0.7, 0}, b[3] = {0.8, 0.6, 0}, sx0, sy0, sx1, sy1, z;
	camera_project(&c, a, &sx0, &sy0, &z);
	camera_project(&c, b, &sx1, &sy1, &z);
	for (int x = (int)ceil(sx0); x < (int)floor(sx1); x++) {
		int any = 0;
		for (int y = 0; y < H; y++)
			any |= isfinite(im.z[(size_t)x + (size_t)W * y]);
		cols += any;
	}
	CHECK(cols == (int)floor(sx1) - (int)ceil(sx0),
	      "a hair thinner than a pixel drawn in every column it crosses (%d of %d)",
	      cols, (int)floor(sx1) - (int)ceil(sx0));
	rimage_free(&im);
}

/* A strand from behind the eye to in front of it: clipped, finite. */
static void
test_near(void)
{
	const float P[] = {0.1f, 0.05f, 5, 0.1f, 0.05f, 1, 0.1f, 0.05f, -1};
	const uint32_t off[] = {0, 3};
	rimage im;
	camera c;
	strand_style st;
	int n, bad = 0;

	cam_front(&c);
	hair_style(&st, 0.02);
	rimage_alloc(&im, W, H, bg, NULL);
	CHECK(raster_strands(&im, &c, P, 3, off, 1, &st, NULL) == 0, "strand through the eye");
	mean_red(&im, &n);
	for (size_t p = 0; p < (size_t)3 * W * H; p++)
		bad += !isfinite(im.rgb[p]);
	for (size_t p = 0; p < (size_t)W * H; p++)
		bad += isfinite(im.z[p]) && im.z[p] < CAMERA_NEAR;
	CHECK(n > 0 && bad == 0, "clipped at the near plane: %d pixels, %d bad", n, bad);
	rimage_free(&im);
}

static void
test_threads(void)
{
	enum { NS = 300, NP = 8 };
	float *P = malloc(sizeof *P * 3 * NS * NP);
	uint32_t off[NS + 1];
	rimage a, b;
	camera c;
	strand_style st;

	for (int s = 0; s < NS; s++) {
		off[s] = (uint32_t)(s * NP);
		for (int k = 0; k < NP; k++) {
			float *p = P + 3 * (s * NP + k);
			double ang = 0.37 * s, r = 0.1 + 0.1 * k;
			p[0] = (float)(r * cos(ang + 0.2 * k));
			p[1] = (float)(r * sin(ang + 0.2 * k));
			p[2] = (float)(0.05 * sin(s + k));
		}
	}
	off[NS] = NS * NP;
	cam_front(&c);
	hair_style(&st, 0.01);
	rimage_alloc(&a, W, H, bg, NULL);
	rimage_alloc(&b, W, H, bg, NULL);
	omp_set_num_threads(1);
	raster_strands(&a, &c, P, NS * NP, off, NS, &st, NULL);
	omp_set_num_threads(2);
	raster_strands(&b, &c, P, NS * NP, off, NS, &st, NULL);
	CHECK(!memcmp(a.rgb, b.rgb, sizeof *a.rgb * 3 * W * H) &&
	      !memcmp(a.z, b.z, sizeof *a.z * W * H), "same picture from 1 and 2 threads");
	rimage_free(&a);
	rimage_free(&b);
	free(P);
}

int
main(void)
{
	test_shade();
	test_picture();
	test_thin();
	test_near();
	test_threads();
	return ctest_done();
}
