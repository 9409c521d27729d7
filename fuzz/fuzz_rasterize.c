/* fuzz_rasterize: libFuzzer target for what rasterize does
 * (tools/rasterize.c) in lib/render/: on a frame built from the input
 * (fz_frame.h), the 3D view (scene_bounds, camera_frame, camera_init,
 * scene_draw: level sets, smoke, meshes, particles, strands, one-sided
 * next to shells) or slices (scene_slices), the picture to 8-bit sRGB and
 * PNG; options as rasterize(1) takes them, the picture small.  A bug: a
 * crash, a sanitizer report, a timeout, or a NaN or Inf colour in a
 * picture drawn with success. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_frame.h"
#include "io/pngio.h"
#include "render/camera.h"
#include "render/raster.h"
#include "render/render.h"

#define PIXELS_MAX 24           /* picture width and height */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const name_lists[] = { NULL, "phi", "solid,body", "density", "cloth,hair",
					  "water,spray", "sdf,tri,dust", "nothing" };
static const char *const fields[] = { NULL, "phi", "density", "speed", "solid", "u", "sdf" };

static const char *
names(fz *z)
{
	return name_lists[fz_below(z, sizeof name_lists / sizeof *name_lists)];
}

/* A direction (or point) option: x,y,z finite. */
static void
vec(fz *z, double v[3])
{
	for (int a = 0; a < 3; a++)
		v[a] = fz_opt(z, 0);
}

/* The 3D view as draw_scene in rasterize.c makes it.  0, or -1 where
 * rasterize stops with an error. */
static int
scene(fz *z, rimage *im, const slc_frame *F, double aspect)
{
	scene_opts so, fo;
	camera cam;
	slc_err err;
	double lo[3], hi[3], e[3], t[3], eye[3], target[3], diag = 0;
	double up[3] = { 0, 1, 0 }, view[3] = { 0.55, 0.45, 1 }, fov = 40, l = 0;
	const char *frame;
	int cnt;

	memset(&so, 0, sizeof so);
	so.only = names(z);
	so.levelsets = fz_byte(z) < 192 ? "phi,solid,sdf" : names(z);
	so.densities = fz_byte(z) < 192 ? "density" : names(z);
	so.smooth = fz_byte(z) & 1;
	so.radius = fz_byte(z) < 192 ? 0 : fabs(fz_opt(z, 0));
	so.one_sided = fz_byte(z) < 192;
	so.shell_eps = fz_byte(z) < 192 ? 0.01 : fabs(fz_opt(z, 0)) + 1e-6;
	so.iso = fz_byte(z) < 192 ? 0 : fz_opt(z, 0);
	so.light[0] = -0.4, so.light[1] = 1, so.light[2] = 0.6;
	if (fz_byte(z) >= 192)
		vec(z, so.light);
	for (int a = 0; a < 3; a++)
		l += so.light[a] * so.light[a];
	if (!(l > 0) || !isfinite(l))
		return -1;      /* --light: expected a nonzero direction */
	for (int a = 0; a < 3; a++)
		so.light[a] /= sqrt(l);
	so.smoke.sigma = fz_byte(z) < 192 ? 10 : fabs(fz_opt(z, 0));
	so.smoke.albedo = fz_byte(z) < 192 ? 0.9 : fz_real(z, 0, 1);
	so.smoke.ambient = fz_byte(z) < 192 ? 0.15 : fabs(fz_opt(z, 0));
	so.smoke.intensity = 1;
	so.smoke.color[0] = so.smoke.color[1] = so.smoke.color[2] = 1;
	if ((cnt = scene_bounds(F, &so, lo, hi, &err)) <= 0)
		return -1;
	fo = so;
	if ((frame = names(z)) && (fo.only = frame, scene_bounds(F, &fo, lo, hi, &err) <= 0))
		return -1;
	if (fz_byte(z) >= 192)
		vec(z, view);
	if (fz_byte(z) >= 192)
		vec(z, up);
	if (fz_byte(z) >= 192)
		fov = fz_real(z, 0.01, 179.99);
	if (camera_frame(lo, hi, view, fov, aspect, e, t, &err))
		return -1;     /* refused: no camera for that box */
	for (int a = 0; a < 3; a++)
		diag += (hi[a] - lo[a]) * (hi[a] - lo[a]);
	if (fz_byte(z) >= 224)
		vec(z, eye);
	else
		memcpy(eye, e, sizeof e);
	if (fz_byte(z) >= 224)
		vec(z, target);
	else
		memcpy(target, t, sizeof t);
	if (camera_init(&cam, eye, target, up, fov, im->w, im->h, &err))
		return -1;
	return scene_draw(im, &cam, F, &so, sqrt(diag), &err);
}

/* The slices as rasterize --slice makes them. */
static int
slices(fz *z, rimage *im, const slc_frame *F)
{
	slice_spec sp[3];
	double range[2];
	int ns = (int)fz_below(z, 3) + 1, have_range = fz_byte(z) >= 192;
	slc_err err;

	for (int s = 0; s < ns; s++) {
		sp[s].axis = (int)fz_below(z, 3);
		sp[s].percent = fz_byte(z) & 1;
		sp[s].pos = sp[s].percent ? fz_real(z, -10, 110) : fz_opt(z, 0);
	}
	range[0] = fz_opt(z, 0);
	range[1] = range[0] + fabs(fz_opt(z, 0));
	if (have_range && !(range[1] > range[0] && isfinite(range[1] - range[0])))
		return -1;      /* --range refused */
	return scene_slices(im, F, names(z), fields[fz_below(z, sizeof fields / sizeof *fields)],
			    fz_byte(z) < 192 ? "phi,solid,sdf" : names(z), sp, ns,
			    fz_byte(z) < 192 ? 0 : fz_opt(z, 0), have_range ? range : NULL, &err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double bg[3] = { 0.12, 0.13, 0.15 };
	int w, h, aa, slice, rc;
	slc_frame F;
	slc_err err;
	rimage im;
	uint8_t *rgb;
	fz z;

	fz_init(&z, data, size);
	w = (int)fz_below(&z, PIXELS_MAX) + 1;
	h = (int)fz_below(&z, PIXELS_MAX) + 1;
	aa = (int)fz_below(&z, 2) + 1;
	slice = fz_byte(&z) >= 192;
	if (fz_frame(&z, FZ_SCENE | FZ_MAC | FZ_SOLID | FZ_LIQUID | FZ_SMOKE | FZ_MESHES |
		     FZ_CLOTH | FZ_PARTICLES | FZ_STRANDS | FZ_GRIDS, &F))
		return 0;
	/* rasterize refuses a frame with NaN or Inf, or a malformed record */
	for (size_t k = 0; k < F.n; k++)
		if (slc_rec_check_finite(F.r[k], -1, &err) || slc_rec_validate(F.r[k], &err)) {
			slc_frame_free(&F);
			return 0;
		}
	if (rimage_alloc(&im, w * aa, h * aa, bg, &err))
		abort();
	rc = slice ? slices(&z, &im, &F) : scene(&z, &im, &F, (double)w / h);
	if (rc == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		for (size_t q = 0; q < 3 * (size_t)im.w * im.h; q++)
			if (!isfinite(im.rgb[q]))
				fz_bug("rasterize", "a colour is NaN or Inf");
		if (!(rgb = malloc(3 * (size_t)w * h)) || !(f = open_memstream(&buf, &len)))
			abort();
		rimage_to_rgb8(&im, aa, rgb);
		pngio_write_rgb8(f, w, h, rgb, &err);
		fclose(f);
		free(buf);
		free(rgb);
	}
	rimage_free(&im);
	slc_frame_free(&F);
	return 0;
}
