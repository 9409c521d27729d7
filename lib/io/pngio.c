/* pngio.c: PNG writing and reading through libpng (see pngio.h). */
#include "io/pngio.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* zlib level of written files: fixed so that output bytes never depend on
 * a library default. */
#define PNGIO_ZLEVEL 6

/* libpng reports errors through a callback that must not return: keep the
 * message and longjmp back to the caller's setjmp. */
struct pngio_ctx {
	slc_err *err;
};

static void
on_error(png_structp png, png_const_charp msg)
{
	struct pngio_ctx *c = png_get_error_ptr(png);

	slc_fail(c->err, "png: %s", msg);
	png_longjmp(png, 1);
}

static void
on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

int
pngio_write_rgb8(FILE *f, int w, int h, const uint8_t *rgb, slc_err *err)
{
	struct pngio_ctx c = {err};
	png_structp png;
	png_infop inf;
	int y;

	if (w < 1 || h < 1 || w > PNGIO_DIM_MAX || h > PNGIO_DIM_MAX)
		return slc_fail(err, "png: bad picture size %dx%d", w, h);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_error,
				      on_warning);
	if (!png)
		return slc_fail(err, "png: out of memory");
	inf = png_create_info_struct(png);
	if (!inf) {
		png_destroy_write_struct(&png, NULL);
		return slc_fail(err, "png: out of memory");
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &inf);
		return -1;
	}
	png_init_io(png, f);
	png_set_compression_level(png, PNGIO_ZLEVEL);
	png_set_IHDR(png, inf, (png_uint_32)w, (png_uint_32)h, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/* the pixels are sRGB-encoded (raster.c converts on output) */
	png_set_sRGB(png, inf, PNG_sRGB_INTENT_PERCEPTUAL);
	png_write_info(png, inf);
	for (y = 0; y < h; y++)
		png_write_row(png, rgb + (size_t)3 * w * y);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &inf);
	if (fflush(f) || ferror(f))
		return slc_fail(err, "png: write error");
	return 0;
}

int
pngio_read_rgb8(FILE *f, int *w, int *h, uint8_t **rgb, slc_err *err)
{
	struct pngio_ctx c = {err};
	png_structp png;
	png_infop inf;
	png_uint_32 pw, ph, y;
	int depth, ctype;
	/* volatile: both are set after setjmp and freed in its handler */
	uint8_t *volatile buf = NULL;
	png_bytep *volatile rows = NULL;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_error,
				     on_warning);
	if (!png)
		return slc_fail(err, "png: out of memory");
	inf = png_create_info_struct(png);
	if (!inf) {
		png_destroy_read_struct(&png, NULL, NULL);
		return slc_fail(err, "png: out of memory");
	}
	if (setjmp(png_jmpbuf(png))) {
		free(rows);
		free(buf);
		png_destroy_read_struct(&png, &inf, NULL);
		return -1;
	}
	png_init_io(png, f);
	png_set_user_limits(png, PNGIO_DIM_MAX, PNGIO_DIM_MAX);
	png_read_info(png, inf);
	png_get_IHDR(png, inf, &pw, &ph, &depth, &ctype, NULL, NULL, NULL);
	if (depth == 16)
		png_set_strip_16(png);
	if (ctype & PNG_COLOR_MASK_ALPHA)
		png_set_strip_alpha(png);
	if (ctype == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) {
		if (depth < 8)
			png_set_expand_gray_1_2_4_to_8(png);
		png_set_gray_to_rgb(png);
	}
	png_set_interlace_handling(png);
	png_read_update_info(png, inf);
	if (png_get_rowbytes(png, inf) != (size_t)3 * pw)
		png_error(png, "unsupported pixel layout");
	buf = malloc((size_t)3 * pw * ph);
	rows = malloc(ph * sizeof *rows);
	if (!buf || !rows)
		png_error(png, "out of memory");
	for (y = 0; y < ph; y++)
		rows[y] = buf + (size_t)3 * pw * y;
	png_read_image(png, rows);
	png_read_end(png, NULL);
	free(rows);
	png_destroy_read_struct(&png, &inf, NULL);
	*w = (int)pw;
	*h = (int)ph;
	*rgb = buf;
	return 0;
}
