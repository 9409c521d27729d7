/* pngio.h: 8-bit RGB PNG files written and read through libpng.
 *
 * (Named pngio, not png, so that lib/ on the include path never hides
 * libpng's own <png.h>.)  Written files carry no time stamp, text chunk
 * or other varying data: the same pixels give the same bytes.
 */
#ifndef SLC_PNGIO_H
#define SLC_PNGIO_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

/* Largest width or height accepted by pngio_read (a guard against absurd
 * headers before anything is allocated). */
#define PNGIO_DIM_MAX 32768

/* Write a w x h picture of 8-bit RGB triples, rows top to bottom
 * (rgb[3*(x + w*y) + c]), as a PNG to f.  f is not closed.  0, or -1 with
 * err on a bad size or a write error. */
int pngio_write_rgb8(FILE *f, int w, int h, const uint8_t *rgb, slc_err *err);

/* Read a PNG of any colour type and bit depth from f and convert it to
 * 8-bit RGB (alpha dropped, grey expanded, 16-bit reduced).  On success
 * *rgb is a malloc'ed w*h*3 array owned by the caller.  -1 with err on a
 * damaged or truncated file, or one larger than PNGIO_DIM_MAX. */
int pngio_read_rgb8(FILE *f, int *w, int *h, uint8_t **rgb, slc_err *err);

#endif
