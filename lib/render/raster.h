/* raster.h: the picture being drawn (linear colour plus a z-buffer),
 * shading, and the rasterizers for opaque primitives: triangle meshes
 * with a z-buffer, particles as sphere splats and strands as ribbons.
 *
 * Every drawing function keeps the nearer of what is there and what it
 * draws, by view depth (camera.h), so records drawn in any order and by
 * any method (these, the level set ray marcher, the volume renderer)
 * composite with depth.  Work is split over fixed bands of rows, and
 * within a pixel primitives are visited in input order with a strict depth
 * test, so pictures do not depend on the number of threads.
 */
#ifndef SLC_RASTER_H
#define SLC_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include "render/camera.h"
#include "core/err.h"

typedef struct rimage {
	int w, h;
	float *rgb;     /* 3*w*h linear RGB, rows top to bottom */
	float *z;       /* w*h view depth; INFINITY where nothing is drawn */
} rimage;

/* How an opaque surface is lit: two-sided Lambert under one directional
 * light plus an ambient term, in linear RGB. */
typedef struct shade_style {
	double albedo[3];   /* linear RGB reflectance, 0..1 */
	double light[3];    /* unit direction from the surface to the light */
	double ambient;     /* fraction of albedo seen without light, 0..1 */
	int smooth;         /* meshes: interpolate area-weighted vertex normals */
} shade_style;

/* Allocate a w x h picture filled with the sRGB colour bg (components
 * 0..1) and an empty z-buffer.  0, or -1 with err. */
int rimage_alloc(rimage *im, int w, int h, const double bg[3], slc_err *err);
void rimage_free(rimage *im);

/* Encode to 8-bit sRGB, (w/n)*(h/n)*3 bytes into out (rounded to
 * nearest), each output pixel the mean of an n x n block of linear
 * colour (n = 1: no filtering; n > 1 antialiases a picture drawn n times
 * larger).  w and h must be multiples of n. */
void rimage_to_rgb8(const rimage *im, int n, uint8_t *out);

/* Shade a surface point with unit normal n seen along unit ray direction
 * d (the normal is flipped to face the viewer): linear RGB into c. */
void shade(const shade_style *st, const double n[3], const double d[3],
	   float c[3]);

/* Default light direction: from above, in front and to the left of the
 * usual camera (normalized (-0.4, 1, 0.6)). */
void shade_default_light(double light[3]);

/* Draw a triangle mesh: np points P (xyz, metres), ntri triangles of
 * point indices.  Triangles crossing the near plane are clipped.  -1 with
 * err on an index out of range or out of memory. */
int raster_mesh(rimage *im, const camera *cam, const float *P, size_t np,
		const uint32_t *tri, size_t ntri, const shade_style *st,
		slc_err *err);

/* Draw n particles at P (xyz) as spheres of radius radii[k] (or r0 for
 * all when radii is NULL), each pixel intersected exactly with its
 * sphere.  -1 with err when out of memory. */
int raster_spheres(rimage *im, const camera *cam, const float *P, size_t n,
		   const float *radii, double r0, const shade_style *st,
		   slc_err *err);

/* How strands (hair) are drawn: ribbons facing the camera, shaded with
 * the Kajiya-Kay model of a thin cylinder (Kajiya and Kay 1989, the
 * reflectance selle2008 thesis §7.6 renders hair with). */
typedef struct strand_style {
	double albedo[3];   /* linear RGB reflectance when cd is NULL */
	const float *cd;    /* linear RGB 0..1 per strand (cd_point 0) or per
			       point (cd_point 1), or NULL */
	int cd_point;
	double light[3];    /* unit direction from the hair to the light */
	double ambient;     /* fraction of albedo seen without light, 0..1 */
	double width;       /* ribbon width, metres; never drawn narrower than
			       STRAND_MIN_PX pixels */
	double spec;        /* weight of the white highlight, >= 0 */
	double shine;       /* its Phong-like exponent, > 0 */
} strand_style;

/* Narrowest ribbon drawn, pixels: thinner hair would fall between pixel
 * centres and vanish. */
#define STRAND_MIN_PX 1.0

/* Kajiya-Kay shading of a hair with unit tangent T seen from unit
 * direction E (towards the eye) in colour albedo: diffuse
 * albedo (ambient + (1 - ambient) sin(T, L)), plus the highlight
 * spec max(0, sin(T, L) sin(T, E) - (T.L)(T.E))^shine, largest where E
 * lies on the cone of light reflected by the cylinder (T.E = -T.L).
 * The sign of T does not matter.  Linear RGB into c. */
void shade_hair(const strand_style *st, const double albedo[3],
		const double T[3], const double E[3], float c[3]);

/* Draw strands: nstrand strands, strand s running through points
 * offset[s] .. offset[s+1]-1 of P, each segment a ribbon st->width wide
 * with round ends (so joints close), its tangent interpolated between
 * the points' (central differences along the strand) and shaded by
 * shade_hair; a one-point strand is a dot.  Segments crossing the near
 * plane are clipped.  -1 with err on a bad offset table or out of
 * memory. */
int raster_strands(rimage *im, const camera *cam, const float *P, size_t np,
		   const uint32_t *offset, size_t nstrand, const strand_style *st,
		   slc_err *err);

#endif
