/* test_render.c: the rasterizers and renderers of lib/ against analytic
 * pictures: silhouettes and depths of a square, a sphere of splats and a
 * level set sphere; compositing by depth; transmittance of a smoke slab
 * and its optical depth towards the light; slices and the zero contour;
 * one-sided evaluation next to a thin shell (selle2008 §4.6); the
 * same picture from 1 and 2 threads; and boxes and grids that overflow,
 * or are too small for their place, refused instead of drawn blank. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "render/camera.h"
#include "render/colormap.h"
#include "ctest.h"
#include "render/raster.h"
#include "render/render.h"

#define W 64
#define H 64

static const double bg[3] = {0, 0, 0};

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* a pixel holds the background (black, empty z) */
static int
is_bg(const rimage *im, int x, int y)
{
	size_t p = (size_t)x + (size_t)im->w * y;

	return isinf(im->z[p]) && im->rgb[3 * p] == 0 && im->rgb[3 * p + 1] == 0 &&
	       im->rgb[3 * p + 2] == 0;
}

static void
style(shade_style *st, double r, double g, double b)
{
	memset(st, 0, sizeof *st);
	st->albedo[0] = r, st->albedo[1] = g, st->albedo[2] = b;
	st->light[2] = 1;       /* from the camera side (+z) */
	st->ambient = 0.2;
}

static void
cam_front(camera *c, double dist)
{
	const double eye[3] = {0, 0, dist}, tgt[3] = {0, 0, 0}, up[3] = {0, 1, 0};

	camera_init(c, eye, tgt, up, 40, W, H, NULL);
}

/* Distance in pixels from the centre of pixel (x, y) to where the
 * analytic silhouette changes, estimated by testing the 8 points half a
 * pixel away: 1 if the pixel is away from every edge. */
typedef int (*inside_fn)(const camera *c, double sx, double sy);

static int
near_edge(const camera *c, inside_fn in, int x, int y)
{
	int a = in(c, x + 0.5, y + 0.5), dx, dy;

	for (dy = -1; dy <= 1; dy++)
		for (dx = -1; dx <= 1; dx++)
			if (in(c, x + 0.5 + 0.75 * dx, y + 0.5 + 0.75 * dy) != a)
				return 1;
	return 0;
}

static int
in_square(const camera *c, double sx, double sy)
{
	double o[3], d[3], t;

	camera_ray(c, sx, sy, o, d);
	t = -o[2] / d[2];
	return fabs(o[0] + t * d[0]) <= 0.5 && fabs(o[1] + t * d[1]) <= 0.5;
}

static int
in_sphere(const camera *c, double sx, double sy)
{
	double o[3], d[3], b, cc;

	camera_ray(c, sx, sy, o, d);
	b = dot3(o, d);
	cc = dot3(o, o) - 0.25;
	return b * b - cc >= 0;
}

/* compare a picture's coverage with an analytic silhouette: returns the
 * number of wrong pixels away from the silhouette's edge */
static int
silhouette_errors(const rimage *im, const camera *c, inside_fn in, int *ncov)
{
	int x, y, bad = 0;

	*ncov = 0;
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			int cov = !is_bg(im, x, y);

			*ncov += cov;
			if (!near_edge(c, in, x, y) && cov != in(c, x + 0.5, y + 0.5))
				bad++;
		}
	return bad;
}

static void
test_mesh(void)
{
	const float P[] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0,
			   -0.5f, 0.5f, 0};
	const uint32_t tri[] = {0, 1, 2, 0, 2, 3}, bad_tri[] = {0, 1, 7};
	rimage im;
	camera c;
	shade_style st;
	slc_err err;
	int ncov, bad;
	size_t mid = W / 2 + (size_t)W * (H / 2);

	cam_front(&c, 3);
	style(&st, 0.5, 0.5, 0.5);
	rimage_alloc(&im, W, H, bg, &err);
	CHECK(raster_mesh(&im, &c, P, 4, tri, 2, &st, &err) == 0, "mesh: draws");
	bad = silhouette_errors(&im, &c, in_square, &ncov);
	CHECK(bad == 0 && ncov > 100, "mesh: square silhouette exact away from its edge (%d wrong, %d covered)",
	      bad, ncov);
	CHECK(fabs(im.z[mid] - 3) < 1e-5, "mesh: depth 3 at the centre (%g)",
	      im.z[mid]);
	CHECK(fabs(im.rgb[3 * mid] - 0.5) < 1e-6,
	      "mesh: lit head-on, albedo 0.5 gives 0.5 (%g)", im.rgb[3 * mid]);
	CHECK(raster_mesh(&im, &c, P, 4, bad_tri, 1, &st, &err) == -1,
	      "mesh: index out of range refused: %s", err.msg);
	rimage_free(&im);

	/* a floor reaching behind the eye: clipped at the near plane, the
	 * lower half of the picture is covered, the upper half is sky */
	{
		const float F[] = {-50, -1, -50, 50, -1, -50, 50, -1, 50, -50, -1, 50};
		int x, y, lower = 1, upper = 1;

		rimage_alloc(&im, W, H, bg, &err);
		CHECK(raster_mesh(&im, &c, F, 4, tri, 2, &st, &err) == 0,
		      "mesh: floor through the eye draws");
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				if (y >= H / 2 + 2 && is_bg(&im, x, y))
					lower = 0;
				if (y < H / 2 - 1 && !is_bg(&im, x, y))
					upper = 0;
			}
		CHECK(lower && upper, "mesh: near-plane clipping keeps the floor below the horizon");
		rimage_free(&im);
	}
}

static void
test_spheres(void)
{
	const float P[] = {0, 0, 0};
	rimage im;
	camera c;
	shade_style st;
	slc_err err;
	int ncov, bad;
	size_t mid = W / 2 + (size_t)W * (H / 2);

	cam_front(&c, 3);
	style(&st, 1, 1, 1);
	rimage_alloc(&im, W, H, bg, &err);
	CHECK(raster_spheres(&im, &c, P, 1, NULL, 0.5, &st, &err) == 0,
	      "splats: draw");
	bad = silhouette_errors(&im, &c, in_sphere, &ncov);
	CHECK(bad == 0 && ncov > 100, "splats: sphere silhouette exact (%d wrong, %d covered)",
	      bad, ncov);
	/* the pixel centre ray misses the axis by a little: depth 2.5 to
	 * within the sphere's curvature over half a pixel */
	CHECK(fabs(im.z[mid] - 2.5) < 1e-3, "splats: depth 2.5 at the centre (%g)",
	      im.z[mid]);
	rimage_free(&im);
}

/* phi = |x| - 0.5 on an n^3 grid over [-1, 1]^3 */
static void
sphere_phi(field *f, int n)
{
	const double org[3] = {-1, -1, -1};
	int i, j, k;

	field_alloc(f, n, n, n, SLC_CELL, org, 2.0 / n, NULL);
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++) {
				double x[3];

				field_pos(f, i, j, k, x);
				f->a[FIELD_IDX(f, i, j, k)] = (float)(sqrt(dot3(x, x)) - 0.5);
			}
}

static void
test_levelset(void)
{
	rimage im, im1;
	camera c;
	shade_style st, st2;
	field phi;
	slc_err err;
	int ncov, bad, x, y, front = 1, behind = 1;
	size_t mid = W / 2 + (size_t)W * (H / 2);

	sphere_phi(&phi, 32);
	cam_front(&c, 3);
	style(&st, 0.2, 0.4, 0.8);
	rimage_alloc(&im, W, H, bg, &err);
	CHECK(render_levelset(&im, &c, &phi, NULL, &st, &err) == 0,
	      "level set: renders");
	bad = silhouette_errors(&im, &c, in_sphere, &ncov);
	CHECK(bad == 0 && ncov > 100, "level set: sphere silhouette (%d wrong, %d covered)",
	      bad, ncov);
	CHECK(fabs(im.z[mid] - 2.5) < 0.25 * phi.dx,
	      "level set: depth 2.5 at the centre within dx/4 (%g)", im.z[mid]);
	CHECK(fabs(im.rgb[3 * mid + 2] - 0.8) < 0.01,
	      "level set: gradient normal faces the light at the centre (%g)",
	      im.rgb[3 * mid + 2]);
	/* one thread and two draw the same picture */
	omp_set_num_threads(1);
	rimage_alloc(&im1, W, H, bg, &err);
	render_levelset(&im1, &c, &phi, NULL, &st, &err);
	omp_set_num_threads(2);
	CHECK(!memcmp(im.rgb, im1.rgb, sizeof(float) * 3 * W * H) &&
	      !memcmp(im.z, im1.z, sizeof(float) * W * H),
	      "level set: same picture from 1 and 2 threads");
	rimage_free(&im1);
	rimage_free(&im);

	/* composited with depth: a red square at z = 0.8 in front of the
	 * sphere, and one at z = -0.8 behind it */
	{
		const float Pf[] = {-0.2f, -0.2f, 0.8f, 0.2f, -0.2f, 0.8f, 0.2f, 0.2f, 0.8f,
				    -0.2f, 0.2f, 0.8f};
		const float Pb[] = {-0.9f, -0.9f, -0.8f, 0.9f, -0.9f, -0.8f, 0.9f, 0.9f, -0.8f,
				    -0.9f, 0.9f, -0.8f};
		const uint32_t tri[] = {0, 1, 2, 0, 2, 3};

		style(&st2, 1, 0, 0);
		rimage_alloc(&im, W, H, bg, &err);
		raster_mesh(&im, &c, Pf, 4, tri, 2, &st2, &err);
		raster_mesh(&im, &c, Pb, 4, tri, 2, &st2, &err);
		render_levelset(&im, &c, &phi, NULL, &st, &err);
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				size_t p = (size_t)x + (size_t)W * y;
				double o[3], d[3];
				int red = im.rgb[3 * p] > 0 && im.rgb[3 * p + 2] == 0;

				camera_ray(&c, x + 0.5, y + 0.5, o, d);
				/* inside the front square's image: red */
				{
					double t = (0.8 - o[2]) / d[2];
					double px = o[0] + t * d[0], py = o[1] + t * d[1];

					if (fmax(fabs(px), fabs(py)) < 0.18 && !red)
						front = 0;
				}
				/* sphere (away from its edge) not in front: blue */
				if (in_sphere(&c, x + 0.5, y + 0.5) &&
				    !near_edge(&c, in_sphere, x, y)) {
					double t = (0.8 - o[2]) / d[2];
					double px = o[0] + t * d[0], py = o[1] + t * d[1];

					if (fmax(fabs(px), fabs(py)) > 0.22 && red)
						behind = 0;
				}
			}
		CHECK(front, "composite: the square in front hides the level set");
		CHECK(behind, "composite: the level set hides the square behind it");
		rimage_free(&im);
	}
	field_free(&phi);
}

static void
test_volume(void)
{
	const double org[3] = {-0.5, -0.5, -0.5}, light[3] = {0, 1, 0};
	const double grey[3] = {0.5, 0.5, 0.5};
	field rho, tau;
	rimage im;
	camera c;
	volume_style vs;
	slc_err err;
	int n = 16, i, j, k;
	double worst = 0;
	size_t mid = W / 2 + (size_t)W * (H / 2);

	field_alloc(&rho, n, n, n, SLC_CELL, org, 1.0 / n, NULL);
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
				rho.a[FIELD_IDX(&rho, i, j, k)] = 2;
	/* optical depth towards a light straight above: density times the
	 * distance to the top sample */
	CHECK(volume_shadow(&rho, light, &tau, &err) == 0, "volume: shadow sweep");
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
				worst = fmax(worst, fabs(tau.a[FIELD_IDX(&tau, i, j, k)] -
							 2 * rho.dx * (n - 1 - j)));
	CHECK(worst < 1e-5, "volume: optical depth upwards exact (%.2g)", worst);
	field_free(&tau);
	{
		double l2[3] = {0.6, 0.8, 0};     /* 3-4-5 diagonal */

		volume_shadow(&rho, l2, &tau, &err);
		/* far from the side walls, the path to the top is (n-1-j)
		 * samples up and 1.25 times as long */
		worst = 0;
		for (j = 0; j < n; j++)
			worst = fmax(worst, fabs(tau.a[FIELD_IDX(&tau, 0, j, n / 2)] -
						 2 * 1.25 * rho.dx * (n - 1 - j)));
		CHECK(worst < 1e-4, "volume: optical depth along a diagonal light (%.2g)",
		      worst);
		field_free(&tau);
	}
	/* through a slab of uniform smoke 1 m deep, no light: only the
	 * background is seen, attenuated by exp(-sigma rho L) */
	memset(&vs, 0, sizeof vs);
	vs.sigma = 0.7;
	vs.albedo = 0.8;
	vs.color[0] = vs.color[1] = vs.color[2] = 1;
	vs.light[1] = 1;
	cam_front(&c, 3);
	rimage_alloc(&im, W, H, grey, &err);
	CHECK(render_volume(&im, &c, &rho, NULL, &vs, &err) == 0, "volume: renders");
	{
		double o[3], d[3], L, T;

		camera_ray(&c, W / 2 + 0.5, H / 2 + 0.5, o, d);
		L = 1 / d[2] * -1;   /* path length through the 1 m slab */
		T = exp(-0.7 * 2 * L);
		CHECK(fabs(im.rgb[3 * mid] - T * srgb_to_linear(0.5)) < 1e-4,
		      "volume: transmittance exp(-sigma rho L) (%g vs %g)",
		      im.rgb[3 * mid], T * srgb_to_linear(0.5));
		rimage_free(&im);
		/* ambient light only: L = albedo * ambient * (1 - T) + T bg */
		vs.ambient = 0.5;
		rimage_alloc(&im, W, H, grey, &err);
		render_volume(&im, &c, &rho, NULL, &vs, &err);
		CHECK(fabs(im.rgb[3 * mid] - (0.8 * 0.5 * (1 - T) + T * srgb_to_linear(0.5))) < 1e-4,
		      "volume: ambient in-scattering (1 - T) albedo ambient (%g)",
		      im.rgb[3 * mid]);
		rimage_free(&im);
	}
	/* single scattering, lit from straight above, seen along a level
	 * ray through the middle: the light reaching every point of the ray
	 * is exp(-sigma rho h), h the path up to the top sample, so the
	 * radiance is albedo exp(-sigma rho h) (1 - T) */
	vs.ambient = 0;
	vs.intensity = 1;
	rimage_alloc(&im, W, H, bg, &err);
	render_volume(&im, &c, &rho, NULL, &vs, &err);
	{
		double o[3], d[3], T, h = 0.5 - 0.5 / n, L;
		rimage im1;

		camera_ray(&c, W / 2 + 0.5, H / 2 + 0.5, o, d);
		/* the pixel's ray descends slightly: integrate the same law
		 * along it finely, independently of the renderer's steps */
		{
			double t0 = (0.5 - o[2]) / d[2], t1 = (-0.5 - o[2]) / d[2];
			int q, nq = 20000;

			L = 0;
			T = 1;
			for (q = 0; q < nq; q++) {
				double t = t0 + (q + 0.5) * (t1 - t0) / nq;
				double y = o[1] + t * d[1], dt = (t1 - t0) / nq;

				L += T * 0.7 * 2 * dt * 0.8 * exp(-0.7 * 2 * (h - y));
				T *= exp(-0.7 * 2 * dt);
			}
		}
		CHECK(fabs(im.rgb[3 * mid] - L) < 1e-3,
		      "volume: single scattering of a light above (%g vs %g)",
		      im.rgb[3 * mid], L);
		omp_set_num_threads(1);
		rimage_alloc(&im1, W, H, bg, &err);
		render_volume(&im1, &c, &rho, NULL, &vs, &err);
		omp_set_num_threads(2);
		CHECK(!memcmp(im.rgb, im1.rgb, sizeof(float) * 3 * W * H),
		      "volume: same picture from 1 and 2 threads");
		rimage_free(&im1);
	}
	rimage_free(&im);
	/* lit from above: the top of the smoke is brighter than its bottom */
	vs.ambient = 0;
	vs.intensity = 1;
	rimage_alloc(&im, W, H, bg, &err);
	render_volume(&im, &c, &rho, NULL, &vs, &err);
	CHECK(im.rgb[3 * (W / 2 + (size_t)W * 20)] > 2 * im.rgb[3 * (W / 2 + (size_t)W * 44)],
	      "volume: self-shadowing darkens the smoke away from the light (%g, %g)",
	      im.rgb[3 * (W / 2 + (size_t)W * 20)], im.rgb[3 * (W / 2 + (size_t)W * 44)]);
	CHECK(is_bg(&im, 1, 1), "volume: background outside the smoke");
	rimage_free(&im);
	field_free(&rho);
}

static void
test_slice(void)
{
	const double org[3] = {0, 0, 0};
	field f, u, v, w, s;
	rimage im;
	slice_style ss;
	slc_err err;
	double lo, hi, c0[3], c1[3];
	int n = 16, i, j, k, x, y, ncont = 0, far = 0;

	field_alloc(&f, n, n, n, SLC_CELL, org, 1.0 / n, NULL);
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++) {
				double p[3];

				field_pos(&f, i, j, k, p);
				f.a[FIELD_IDX(&f, i, j, k)] = (float)p[0];
			}
	memset(&ss, 0, sizeof ss);
	rimage_alloc(&im, W, H, bg, &err);
	CHECK(render_slice(&im, 0, 0, W, H, &f, 2, 0.5, &ss, &lo, &hi, &err) == 0,
	      "slice: draws");
	cmap_viridis(0, c0);
	cmap_viridis(1, c1);
	CHECK(fabs(lo - 1.0 / 32) < 1e-6 && fabs(hi - 31.0 / 32) < 1e-6,
	      "slice: range from the slice (%g, %g)", lo, hi);
	CHECK(fabs(linear_to_srgb(im.rgb[3 * (W / 2 * W)]) - c0[0]) < 0.01 &&
	      fabs(linear_to_srgb(im.rgb[3 * (W / 2 * W + W - 1)]) - c1[0]) < 0.01,
	      "slice: x grows to the right through viridis");
	CHECK(render_slice(&im, 0, 0, W, H, &f, 0, 1.5, &ss, NULL, NULL, &err) == -1,
	      "slice: position outside the grid refused: %s", err.msg);
	rimage_free(&im);
	/* a circle of radius 0.3: every contour pixel within a pixel and a
	 * half of it, and enough of them to go round */
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++) {
				double p[3];

				field_pos(&f, i, j, k, p);
				f.a[FIELD_IDX(&f, i, j, k)] =
					(float)(hypot(p[0] - 0.5, p[1] - 0.5) - 0.3);
			}
	ss.map = SLICE_DIVERGING;
	ss.contour = 1;
	rimage_alloc(&im, W, H, bg, &err);
	render_slice(&im, 0, 0, W, H, &f, 2, 0.5, &ss, &lo, &hi, &err);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			size_t p = (size_t)x + (size_t)W * y;

			if (im.rgb[3 * p] == 0 && im.rgb[3 * p + 1] == 0 &&
			    im.rgb[3 * p + 2] == 0) {
				double r = hypot(x + 0.5 - W / 2.0, y + 0.5 - H / 2.0);

				ncont++;
				if (fabs(r - 0.3 * W) > 1.5)
					far++;
			}
		}
	CHECK(far == 0 && ncont > 0.8 * 2 * M_PI * 0.3 * W,
	      "slice: zero contour on the circle (%d pixels, %d off)", ncont, far);
	CHECK(fabs(lo + hi) < 1e-12 && hi > 0, "slice: diverging range symmetric");
	{
		size_t p = W / 2 + (size_t)W * (H / 2), q = 1 + (size_t)W;

		CHECK(im.rgb[3 * p + 2] > im.rgb[3 * p] && im.rgb[3 * q] > im.rgb[3 * q + 2],
		      "slice: inside the circle cool (blue), outside warm (red)");
	}
	rimage_free(&im);
	field_free(&f);
	/* speed of a uniform flow (1, 2, 2) is 3 everywhere */
	field_alloc(&u, 4, 3, 2, SLC_FACE_X, org, 0.5, NULL);
	field_alloc(&v, 4, 3, 2, SLC_FACE_Y, org, 0.5, NULL);
	field_alloc(&w, 4, 3, 2, SLC_FACE_Z, org, 0.5, NULL);
	for (i = 0; i < (int)field_count(&u); i++)
		u.a[i] = 1;
	for (i = 0; i < (int)field_count(&v); i++)
		v.a[i] = 2;
	for (i = 0; i < (int)field_count(&w); i++)
		w.a[i] = -2;
	CHECK(render_speed(&u, &v, &w, &s, &err) == 0 && s.ni == 4 && s.nj == 3 &&
	      s.nk == 2 && fabs(s.a[5] - 3) < 1e-6, "speed: |(1, 2, -2)| = 3");
	field_free(&s);
	CHECK(render_speed(&u, &w, &v, &s, &err) == -1, "speed: mixed-up faces refused");
	field_free(&u);
	field_free(&v);
	field_free(&w);
}

static void
test_oneside(void)
{
	/* a thin wall at x = 0.5 spanning the box; liquid on its low side
	 * whose grid level set reaches 0.4 dx past the wall */
	const float wall[] = {0.5f, -1, -1, 0.5f, 2, -1, 0.5f, 2, 2, 0.5f, -1, 2};
	const uint32_t tri[] = {0, 1, 2, 0, 2, 3};
	const double org[3] = {0, 0, 0};
	const float t1[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	field phi;
	oneside os;
	slc_err err;
	int n = 16, i, j, k, same = 1;
	double dx = 1.0 / n, x[3], eps = 0.01 * dx;

	{
		double a[3] = {0.2, 0.2, -1}, b[3] = {0.2, 0.2, 1};
		double c2[3] = {1.5, 0.2, -1}, d2[3] = {1.5, 0.2, 1};
		double e[3] = {0.2, 0.2, 0.5}, f2[3] = {0.3, 0.3, 0.5};
		double g[3] = {0.2, 0.2, 0.004}, h[3] = {0.2, 0.2, 1};

		CHECK(shell_tri_blocked(a, b, t1, 0.01), "wedge: crossing segment blocked");
		CHECK(!shell_tri_blocked(c2, d2, t1, 0.01), "wedge: segment beside the triangle visible");
		CHECK(!shell_tri_blocked(e, f2, t1, 0.01), "wedge: segment on one side visible");
		CHECK(shell_tri_blocked(h, g, t1, 0.01), "wedge: end inside the wedge is not usable");
	}
	field_alloc(&phi, n, n, n, SLC_CELL, org, dx, NULL);
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++) {
				double p[3];

				field_pos(&phi, i, j, k, p);
				phi.a[FIELD_IDX(&phi, i, j, k)] = (float)(p[0] - (0.5 + 0.4 * dx));
			}
	CHECK(oneside_init(&os, &phi, eps, &err) == 0 &&
	      oneside_add_mesh(&os, wall, 4, tri, 2, &err) == 0 &&
	      oneside_build(&os, &err) == 0, "one-sided: shells binned");
	x[0] = 0.5 + 0.2 * dx, x[1] = 0.5, x[2] = 0.5;
	CHECK(field_sample(&phi, x) < 0 && oneside_phi(&os, x) > 0,
	      "one-sided: just past the wall, trilinear says liquid (%g), one-sided air (%g)",
	      field_sample(&phi, x), oneside_phi(&os, x));
	x[0] = 0.5 - 0.2 * dx;
	CHECK(oneside_phi(&os, x) < 0, "one-sided: just before the wall still liquid (%g)",
	      oneside_phi(&os, x));
	for (k = 0; k < 20; k++) {
		double y[3] = {0.05 + 0.013 * k, 0.1 + 0.04 * k, 0.9 - 0.03 * k};

		if (oneside_phi(&os, y) != field_sample(&phi, y))
			same = 0;
		y[0] = 0.7 + 0.01 * k;
		if (oneside_phi(&os, y) != field_sample(&phi, y))
			same = 0;
	}
	CHECK(same, "one-sided: equal to trilinear away from the shell");
	/* the picture: looking at the wall from the dry side, the wall and
	 * not liquid fills the middle (selle2008 §4.6) */
	{
		const double eye[3] = {3, 0.5, 0.5}, tgt[3] = {0.5, 0.5, 0.5};
		const double up[3] = {0, 1, 0};
		shade_style sw, sl;
		camera c;
		rimage im;
		size_t mid = W / 2 + (size_t)W * (H / 2);

		camera_init(&c, eye, tgt, up, 10, W, H, NULL);
		style(&sw, 0.5, 0.5, 0.5);
		style(&sl, 0, 0, 1);
		rimage_alloc(&im, W, H, bg, &err);
		raster_mesh(&im, &c, wall, 4, tri, 2, &sw, &err);
		render_levelset(&im, &c, &phi, NULL, &sl, &err);
		CHECK(im.rgb[3 * mid] == 0 && im.rgb[3 * mid + 2] > 0,
		      "one-sided: plain interpolation shows liquid through the wall");
		rimage_free(&im);
		rimage_alloc(&im, W, H, bg, &err);
		raster_mesh(&im, &c, wall, 4, tri, 2, &sw, &err);
		render_levelset(&im, &c, &phi, &os, &sl, &err);
		CHECK(im.rgb[3 * mid] > 0 && im.rgb[3 * mid] == im.rgb[3 * mid + 2],
		      "one-sided: the wall shows, no liquid leaks through it");
		rimage_free(&im);

		/* smoke filling the far side of the wall: plain trilinear
		 * interpolation smears it onto the near side, in front of
		 * the wall; one-sided evaluation keeps it behind */
		{
			field rho;
			oneside od;
			volume_style vs;
			float wall_only;

			field_alloc(&rho, n, n, n, SLC_CELL, org, dx, NULL);
			for (k = 0; k < n; k++)
				for (j = 0; j < n; j++)
					for (i = 0; i < n; i++)
						rho.a[FIELD_IDX(&rho, i, j, k)] = i < n / 2 ? 1.0f : 0.0f;
			memset(&vs, 0, sizeof vs);
			vs.sigma = 10;
			vs.albedo = 1;
			vs.color[0] = vs.color[1] = vs.color[2] = 1;
			vs.light[0] = 1;
			vs.intensity = 1;
			rimage_alloc(&im, W, H, bg, &err);
			raster_mesh(&im, &c, wall, 4, tri, 2, &sw, &err);
			wall_only = im.rgb[3 * mid];
			render_volume(&im, &c, &rho, NULL, &vs, &err);
			CHECK(fabs(im.rgb[3 * mid] - wall_only) > 0.01,
			      "one-sided: plain interpolation shows smoke on the clean side (%g vs %g)",
			      im.rgb[3 * mid], wall_only);
			rimage_free(&im);
			oneside_init(&od, &rho, eps, &err);
			od.zero_fallback = 1;
			oneside_add_mesh(&od, wall, 4, tri, 2, &err);
			oneside_build(&od, &err);
			rimage_alloc(&im, W, H, bg, &err);
			raster_mesh(&im, &c, wall, 4, tri, 2, &sw, &err);
			render_volume(&im, &c, &rho, &od, &vs, &err);
			CHECK(im.rgb[3 * mid] == wall_only,
			      "one-sided: no smoke shows on the clean side of the wall");
			rimage_free(&im);
			oneside_free(&od);
			field_free(&rho);
		}
	}
	oneside_free(&os);
	field_free(&phi);
}

/* scene_bounds of one lone particle: no size, refused unless a splat
 * radius gives it one (then the box is the splat's); two particles
 * apart: their box; records left out by so.only: not in the box. */
static void
test_bounds(void)
{
	slc_frame F;
	slc_rec *r;
	slc_err err;
	scene_opts so;
	double lo[3], hi[3];
	float *P;
	int n;

	memset(&so, 0, sizeof so);
	slc_frame_init(&F);
	r = slc_frame_add(&F, SLC_PARTICLES, "rigid", &err);
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 1, &err);
	P[0] = 0.5f, P[1] = 0.25f, P[2] = -1;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == -1 && strstr(err.msg, "single point"),
	      "a lone point: no size, refused (%d: %s)", n, n < 0 ? err.msg : "");
	so.radius = 0.1;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == 1 && fabs(lo[0] - 0.4) < 1e-9 && fabs(hi[1] - 0.35) < 1e-9 &&
	      fabs(hi[2] + 0.9) < 1e-9 && fabs(lo[2] + 1.1) < 1e-9,
	      "a lone point with a radius: its sphere's box (%g..%g)", lo[0], hi[0]);
	slc_frame_free(&F);
	r = slc_frame_add(&F, SLC_PARTICLES, "drops", &err);
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 2, &err);
	P[3] = 1;
	so.radius = 0;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == 1 && lo[0] == 0 && hi[0] == 1 && hi[1] == 0,
	      "two points: their box, not grown");
	r = slc_frame_add(&F, SLC_PARTICLES, "far", &err);
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 2, &err);
	P[0] = -5, P[3] = 5;
	so.only = "drops";
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == 1 && lo[0] == 0 && hi[0] == 1,
	      "only: the records not named are left out of the box (%d: %g..%g)", n, lo[0], hi[0]);
	so.only = NULL;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == 2 && lo[0] == -5 && hi[0] == 5, "without only: every record's box");
	slc_frame_free(&F);
}

/* camera_frame places a camera for any box a double can frame, scale
 * free, and refuses the others with a message. */
static void
test_frame(void)
{
	const double dir[3] = {0, 0, 1}, up[3] = {0, 1, 0};
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, eye[3], tgt[3], d;
	double big = 1e300, huge[3] = {1e308, 1e308, 1e308};
	double neg[3] = {-1e308, -1e308, -1e308};
	camera c;
	slc_err err;
	int a, rc;

	rc = camera_frame(lo, hi, dir, 40, 1, eye, tgt, &err);
	d = sqrt(3) / 2 * 1.05 / sin(20 * M_PI / 180);
	CHECK(rc == 0 && tgt[0] == 0.5 && tgt[2] == 0.5 && fabs(eye[2] - 0.5 - d) < 1e-12 &&
	      eye[0] == 0.5, "unit box: target its centre, eye along dir (%g)", eye[2]);
	for (a = 0; a < 3; a++)
		lo[a] = -big, hi[a] = big;
	rc = camera_frame(lo, hi, dir, 40, 1, eye, tgt, &err);
	CHECK(rc == 0 && fabs(eye[2] / (2 * big * d) - 1) < 1e-12 && tgt[2] == 0 &&
	      camera_init(&c, eye, tgt, up, 40, W, H, &err) == 0,
	      "a box 2e300 across: the same framing, scaled, and a camera (%g)", eye[2]);
	CHECK(camera_frame(neg, huge, dir, 40, 1, eye, tgt, &err) == -1 &&
	      strstr(err.msg, "beyond the range of a double"),
	      "a box 2e308 across: refused (%s)", err.msg);
	hi[0] = INFINITY;
	CHECK(camera_frame(lo, hi, dir, 40, 1, eye, tgt, &err) == -1 &&
	      strstr(err.msg, "not finite"), "an infinite box: refused (%s)", err.msg);
	for (a = 0; a < 3; a++)
		lo[a] = 0, hi[a] = 1e-6;
	CHECK(camera_frame(lo, hi, dir, 40, 1, eye, tgt, &err) == -1 &&
	      strstr(err.msg, "too small for the camera's nearest depth"),
	      "a box 1e-6 across: inside the near depth, refused (%s)", err.msg);
	for (a = 0; a < 3; a++)
		lo[a] = 1e308, hi[a] = 1e308;
	hi[1] = lo[1] + 1e293;
	CHECK(camera_frame(lo, hi, dir, 40, 1, eye, tgt, &err) == -1 &&
	      strstr(err.msg, "a double there cannot place a camera"),
	      "a box of 1e293 at 1e308: the eye falls on the target, refused (%s)", err.msg);
}

/* A grid whose extent overflows is refused by the scene's box and by a
 * slice, naming it; one whose extent is lost in rounding by a slice. */
static void
test_overflow(void)
{
	const double org[3] = {0, 0, 0}, far[3] = {1e308, 0, 0};
	slc_frame F;
	slc_rec *r;
	slc_err err;
	scene_opts so;
	slice_style ss;
	rimage im;
	field f;
	float *a;
	double lo[3], hi[3], vlo, vhi;
	int n;

	memset(&so, 0, sizeof so);
	so.levelsets = "phi";
	slc_frame_init(&F);
	r = slc_frame_add(&F, SLC_GRID, "phi", &err);
	r->grid.ni = r->grid.nj = r->grid.nk = 4;
	r->grid.stagger = SLC_CELL;
	r->grid.dx = 1e308;
	a = slc_rec_add(r, "phi", SLC_F32, 1, SLC_SAMPLE, 64, &err);
	a[0] = -1;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == -1 && strstr(err.msg, "record 'phi': grid extent overflows") &&
	      strstr(err.msg, "dx 1e+308"), "scene box: dx 1e308 refused (%s)", n < 0 ? err.msg : "");
	r->grid.dx = 1e300;
	n = scene_bounds(&F, &so, lo, hi, &err);
	CHECK(n == 1 && isfinite(hi[0]) && hi[0] > 1e300, "scene box: dx 1e300 is drawable (%g)", hi[0]);
	slc_frame_free(&F);

	memset(&ss, 0, sizeof ss);
	rimage_alloc(&im, W, H, bg, &err);
	field_alloc(&f, 4, 4, 4, SLC_CELL, org, 1e308, NULL);
	CHECK(render_slice(&im, 0, 0, W, H, &f, 2, 0, &ss, &vlo, &vhi, &err) == -1 &&
	      strstr(err.msg, "grid extent overflows on x"), "slice: dx 1e308 refused (%s)", err.msg);
	field_free(&f);
	field_alloc(&f, 4, 4, 4, SLC_CELL, far, 0.25, NULL);
	CHECK(render_slice(&im, 0, 0, W, H, &f, 2, 0.5, &ss, &vlo, &vhi, &err) == -1 &&
	      strstr(err.msg, "lost in rounding"), "slice: dx 0.25 at 1e308 refused (%s)", err.msg);
	field_free(&f);
	rimage_free(&im);
}

int
main(void)
{
	test_frame();
	test_overflow();
	test_bounds();
	test_mesh();
	test_spheres();
	test_levelset();
	test_volume();
	test_slice();
	test_oneside();
	return ctest_done();
}
