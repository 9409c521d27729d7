/* test_png.c: lib/pngio round trips, determinism and damage; lib/colormap
 * against published values; lib/camera projection against rays. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/camera.h"
#include "render/colormap.h"
#include "ctest.h"
#include "io/pngio.h"

/* does buf hold the bytes s */
static int
holds(const unsigned char *buf, size_t n, const char *s)
{
	size_t k, m = strlen(s);

	for (k = 0; k + m <= n; k++)
		if (!memcmp(buf + k, s, m))
			return 1;
	return 0;
}

/* write a picture to a memory buffer */
static unsigned char *
encode(int w, int h, const uint8_t *rgb, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	slc_err err;

	if (!f || pngio_write_rgb8(f, w, h, rgb, &err)) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = n;
	return (unsigned char *)buf;
}

static int
decode(const unsigned char *buf, size_t len, int *w, int *h, uint8_t **rgb,
       slc_err *err)
{
	FILE *f = fmemopen((void *)buf, len, "rb");
	int rc;

	if (!f)
		return -1;
	rc = pngio_read_rgb8(f, w, h, rgb, err);
	fclose(f);
	return rc;
}

static void
test_png(void)
{
	const int w = 37, h = 11;
	uint8_t *rgb = malloc((size_t)3 * w * h), *back = NULL;
	unsigned char *a, *b;
	size_t na = 0, nb = 0;
	int x, y, bw = 0, bh = 0, same;
	slc_err err;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint8_t *p = rgb + 3 * (x + w * y);

			p[0] = (uint8_t)(7 * x + y);
			p[1] = (uint8_t)(255 - 3 * y);
			p[2] = (uint8_t)(x * y);
		}
	a = encode(w, h, rgb, &na);
	b = encode(w, h, rgb, &nb);
	CHECK(a && b, "png: encode");
	CHECK(a && b && na == nb && !memcmp(a, b, na),
	      "png: same pixels give the same bytes");
	CHECK(a && na > 8 && !memcmp(a, "\x89PNG\r\n\x1a\n", 8),
	      "png: signature");
	CHECK(a && !holds(a, na, "tIME") && !holds(a, na, "tEXt"),
	      "png: no time stamp or text chunk");
	CHECK(a && decode(a, na, &bw, &bh, &back, &err) == 0,
	      "png: decode");
	same = back && bw == w && bh == h &&
	       !memcmp(back, rgb, (size_t)3 * w * h);
	CHECK(same, "png: decoded pixels equal the written ones");
	free(back);
	back = NULL;
	CHECK(a && decode(a, na / 2, &bw, &bh, &back, &err) == -1 &&
	      strstr(err.msg, "png"), "png: truncated file fails: %s",
	      err.msg);
	CHECK(decode((const unsigned char *)"not a png at all", 16, &bw, &bh,
		     &back, &err) == -1, "png: garbage fails: %s", err.msg);
	if (a) {
		a[na / 2] ^= 0x55;  /* damage inside the image data */
		CHECK(decode(a, na, &bw, &bh, &back, &err) == -1,
		      "png: damaged data fails (crc): %s", err.msg);
	}
	CHECK(pngio_write_rgb8(stdout, 0, 5, rgb, &err) == -1,
	      "png: zero width refused");
	free(a);
	free(b);
	free(rgb);
}

static double
dist3(const double a[3], const double b[3])
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
		    (a[2] - b[2]) * (a[2] - b[2]));
}

static void
test_colormap(void)
{
	/* entries of the published 256-entry viridis table that are not
	 * control points (indices 4, 100, 198, 251) */
	static const struct { int i; double rgb[3]; } vir[] = {
		{4, {0.272594, 0.025563, 0.353093}},
		{100, {0.166617, 0.463708, 0.558119}},
		{198, {0.421908, 0.805774, 0.351910}},
		{251, {0.955300, 0.901065, 0.118128}},
	};
	/* Moreland 2009, table of the cool to warm map: ends and middle */
	static const double cool[3] = {59, 76, 192}, warm[3] = {180, 4, 38};
	static const double mid[3] = {221, 221, 221};
	double c[3], worst = 0, prev_l = 1e9, e[3];
	int k, a, mono = 1;

	for (k = 0; k < 4; k++) {
		cmap_viridis(vir[k].i / 255.0, c);
		worst = fmax(worst, dist3(c, vir[k].rgb));
	}
	CHECK(worst < 0.005, "viridis: within 0.005 of the published table (%.4f)",
	      worst);
	cmap_viridis(-3, c);
	CHECK(fabs(c[0] - 0.267004) < 1e-9, "viridis: clamped below");
	cmap_viridis(NAN, c);
	CHECK(fabs(c[0] - 0.267004) < 1e-9, "viridis: NaN maps to the low end");
	/* lightness of viridis increases monotonically */
	for (k = 0; k <= 64; k++) {
		double l;

		cmap_viridis(k / 64.0, c);
		l = 0.2126 * srgb_to_linear(c[0]) + 0.7152 * srgb_to_linear(c[1]) +
		    0.0722 * srgb_to_linear(c[2]);
		if (k > 0 && !(l > prev_l))
			mono = 0;
		prev_l = l;
	}
	CHECK(mono, "viridis: luminance increases");
	cmap_diverging(0, c);
	for (a = 0; a < 3; a++)
		e[a] = cool[a] / 255;
	CHECK(dist3(c, e) < 0.01, "diverging: cool end (%.3f %.3f %.3f)", c[0],
	      c[1], c[2]);
	cmap_diverging(1, c);
	for (a = 0; a < 3; a++)
		e[a] = warm[a] / 255;
	CHECK(dist3(c, e) < 0.01, "diverging: warm end (%.3f %.3f %.3f)", c[0],
	      c[1], c[2]);
	cmap_diverging(0.5, c);
	for (a = 0; a < 3; a++)
		e[a] = mid[a] / 255;
	CHECK(dist3(c, e) < 0.02, "diverging: grey middle (%.3f %.3f %.3f)",
	      c[0], c[1], c[2]);
	cmap_diverging(0.25, c);
	CHECK(c[2] > c[0], "diverging: blue side below the middle");
	cmap_diverging(0.75, c);
	CHECK(c[0] > c[2], "diverging: red side above the middle");
	worst = 0;
	for (k = 0; k <= 100; k++)
		worst = fmax(worst, fabs(srgb_to_linear(linear_to_srgb(k / 100.0)) -
					 k / 100.0));
	CHECK(worst < 1e-12, "srgb: transfer round trip");
}

static void
test_camera(void)
{
	const double eye[3] = {1, 2, 5}, target[3] = {0.5, 0.25, 0};
	const double up[3] = {0, 1, 0};
	camera c;
	slc_err err;
	double worst = 0, o[3], d[3], x[3], sx, sy, z;
	int k;

	CHECK(camera_init(&c, eye, target, up, 40, 64, 48, &err) == 0,
	      "camera: init");
	/* a point along the ray through (sx, sy) projects back there */
	for (k = 0; k < 20; k++) {
		double px = 3.3 * k, py = 2.1 * k + 1, t = 1 + 0.37 * k;

		camera_ray(&c, px, py, o, d);
		x[0] = o[0] + t * d[0], x[1] = o[1] + t * d[1], x[2] = o[2] + t * d[2];
		if (camera_project(&c, x, &sx, &sy, &z)) {
			worst = 1e9;
			continue;
		}
		worst = fmax(worst, fmax(fabs(sx - px), fabs(sy - py)));
	}
	CHECK(worst < 1e-9, "camera: project(ray(p)) = p (%.2g px)", worst);
	CHECK(camera_project(&c, target, &sx, &sy, &z) == 0 &&
	      fabs(sx - 32) < 1e-9 && fabs(sy - 24) < 1e-9,
	      "camera: target at the picture centre");
	x[0] = 0.5, x[1] = 2.25, x[2] = 0;  /* above the target: picture top */
	CHECK(camera_project(&c, x, &sx, &sy, &z) == 0 && sy < 24,
	      "camera: up is up in the picture");
	x[0] = 1, x[1] = 2, x[2] = 6;
	CHECK(camera_project(&c, x, &sx, &sy, &z) == -1 && z < 0,
	      "camera: behind the eye is not projected");
	CHECK(camera_init(&c, eye, eye, up, 40, 64, 48, &err) == -1,
	      "camera: target at the eye refused: %s", err.msg);
	CHECK(camera_init(&c, eye, target, up, 180, 64, 48, &err) == -1,
	      "camera: fov 180 refused");
	{
		const double up2[3] = {-0.5, -1.75, -5};

		CHECK(camera_init(&c, eye, target, up2, 40, 64, 48, &err) == -1,
		      "camera: up along the view refused");
	}
}

int
main(void)
{
	test_png();
	test_colormap();
	test_camera();
	return ctest_done();
}
