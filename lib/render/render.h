/* render.h: pictures of grids: zero level sets ray-marched and shaded,
 * smoke density volume-rendered, and slices through any scalar grid with a
 * colour map; plus the robust one-sided evaluation of a level set next to
 * thin shells (selle2008 thesis §4.3, §4.6).
 *
 * All draw into an rimage (raster.h) and respect its z-buffer: a surface
 * is kept only where it is nearer than what is there, and a volume is
 * integrated only up to the nearest opaque surface, then composited over
 * it.  Draw opaque records (meshes, splats, level sets) first, volumes
 * last.  Each pixel is computed independently of the others, so pictures
 * do not depend on the number of threads.
 */
#ifndef SLC_RENDER_H
#define SLC_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "render/camera.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "render/raster.h"
#include "shell/shell_vis.h"

/* --- robust one-sided evaluation near thin shells --------------------- */

/* Triangles binned over the cells of a level set's sample lattice, so
 * that evaluating phi at a point can rule out grid samples that lie
 * across a thin shell from it. */
typedef struct oneside {
	const field *phi;
	shell_set sh;           /* the triangles, binned over the cells
				 * between phi's samples */
	int zero_fallback;      /* a sample with no visible neighbour becomes
				 * 0 (a density: no smoke beyond the shell)
				 * instead of its positive distance (a level
				 * set: air beyond the shell); set after init */
} oneside;

/* Start an empty set of shells for the level set phi (which must outlive
 * it), with wedges eps thick (selle2008 Figure 4.1: each triangle
 * extended by eps/2 along its normal and in its plane).  0 or -1. */
int oneside_init(oneside *os, const field *phi, double eps, slc_err *err);

/* Add the triangles of a mesh (np points xyz, ntri index triples). */
int oneside_add_mesh(oneside *os, const float *P, size_t np,
		     const uint32_t *tri, size_t ntri, slc_err *err);

/* Bin the triangles over the lattice cells they come near; call once,
 * after the last oneside_add_mesh. */
int oneside_build(oneside *os, slc_err *err);

void oneside_free(oneside *os);

/* phi at x, interpolated only from grid samples visible from x: the ray
 * from x to each of the 8 samples of its cell is cast against the
 * thickened triangles, and a sample that is occluded or inside a wedge is
 * replaced by the mean of the visible samples nearest to it in the cell
 * (edge neighbours, then face diagonals, then the opposite corner), or,
 * when none is visible, by its positive distance from x (air: the other
 * side of the shell is never seen).  Far from every shell this is plain
 * trilinear interpolation. */
double oneside_phi(const oneside *os, const double x[3]);

/* Is x in a lattice cell near a shell (where oneside_phi casts rays)? */
int oneside_near(const oneside *os, const double x[3]);


/* --- level set surfaces ----------------------------------------------- */

/* Ray-march the zero level set of phi (negative inside) within its grid
 * box and shade it with normals from the gradient.  A ray that enters the
 * box inside (phi < 0) draws the box face.  With os non-NULL, phi is
 * evaluated one-sidedly (selle2008 §4.6) so no liquid shows through the
 * shells.  0 or -1. */
int render_levelset(rimage *im, const camera *cam, const field *phi,
		    const oneside *os, const shade_style *st, slc_err *err);

/* --- smoke ------------------------------------------------------------ */

typedef struct volume_style {
	double sigma;           /* extinction per unit density, 1/m */
	double albedo;          /* scattering / extinction, 0..1 */
	double color[3];        /* linear RGB tint of the smoke */
	double light[3];        /* unit direction towards the light */
	double intensity;       /* radiance of the directional light */
	double ambient;         /* sky light scattered everywhere, unshadowed */
} volume_style;

/* Volume-render the density rho (cell-centred grid) by ray marching with
 * absorption and single scattering of a directional light; light reaching
 * each sample is attenuated by the optical depth towards the light,
 * precomputed on the grid by one sweep along the light.  The result is
 * composited over what the picture holds, integrating each ray only up to
 * its z-buffer depth.  With os non-NULL (built on rho, zero_fallback set),
 * the density next to shells is evaluated one-sidedly so no smoke shows
 * through them (selle2008 §4.6).  0 or -1. */
int render_volume(rimage *im, const camera *cam, const field *rho,
		  const oneside *os, const volume_style *st, slc_err *err);

/* Optical depth towards the light, integral of rho along the ray from
 * each sample of rho to the light (metres times density), into tau (a
 * field placed like rho, allocated here).  Exposed for tests. */
int volume_shadow(const field *rho, const double light[3], field *tau,
		  slc_err *err);

/* --- slices ----------------------------------------------------------- */

enum slice_map { SLICE_SEQUENTIAL, SLICE_DIVERGING };

typedef struct slice_style {
	int map;                /* enum slice_map */
	double lo, hi;          /* value range; lo == hi: from the slice */
	int contour;            /* draw the zero contour */
	double contour_rgb[3];  /* its sRGB colour */
} slice_style;

/* Draw the slice of f at world coordinate pos on axis (0 x, 1 y, 2 z)
 * into the box (x0, y0, pw, ph) of the picture, fitted with square pixels
 * and centred.  Picture axes: an x slice has z to the right and y up, a y
 * slice x to the right and z down, a z slice x to the right and y up.
 * With st->lo == st->hi the range is taken from the slice: [min, max]
 * for the sequential map, [-m, m] with m = max |value| for the diverging
 * map.  The range used is returned in lo, hi (either may be NULL).
 * 0, or -1 with err (pos outside the grid, box outside the picture). */
int render_slice(rimage *im, int x0, int y0, int pw, int ph, const field *f,
		 int axis, double pos, const slice_style *st, double *lo,
		 double *hi, slc_err *err);

/* The speed |u| at cell centres of a MAC velocity (u, v, w on x, y, z
 * faces of the same cells), by averaging each component over the two
 * faces of the cell.  speed is allocated here.  0, or -1 with err when
 * the three grids do not fit together. */
int render_speed(const field *u, const field *v, const field *w,
		 field *speed, slc_err *err);

/* --- a whole frame ----------------------------------------------------- */

/* What to draw from the records of a frame, and how. */
typedef struct scene_opts {
	const char *only;       /* comma-separated names of the records drawn
				 * (any other is ignored); NULL: every record */
	const char *levelsets;  /* comma-separated grid names drawn as zero
				 * level sets, e.g. "phi,solid" */
	const char *densities;  /* grid names volume-rendered as smoke */
	int smooth;             /* smooth-shade meshes */
	double radius;          /* splat radius when a particle record has no
				 * "radius" or "pscale" channel; 0: 0.4% of
				 * the scene's diagonal */
	int one_sided;          /* evaluate level sets (except one named
				 * "solid") one-sidedly next to the meshes of
				 * the frame (selle2008 §4.6) */
	double shell_eps;       /* wedge thickness in cells of the level set */
	const char *shell_points; /* point channel (x3) holding the meshes'
				 * positions at the fluid's time, e.g.
				 * "P_prev" (formats/slc.md, thin shells):
				 * a mesh that has it is framed, drawn and
				 * evaluated against as a shell there; NULL,
				 * or a mesh without it: "P" */
	double iso;             /* draw level sets at phi = iso cells (0: the
				 * zero level set; > 0 thickens a thin shell
				 * given by an unsigned distance) */
	double light[3];        /* unit direction towards the light */
	double hair_width;      /* strand ribbon width, m; 0: the splat radius */
	int hair_rgb_set;       /* strands without a Cd channel take hair_rgb */
	double hair_rgb[3];     /* linear RGB reflectance of strands */
	volume_style smoke;     /* sigma, albedo, color, intensity, ambient;
				 * light is taken from light above */
} scene_opts;

/* The box holding everything drawable in the frame F: level set and
 * density grids (their samples inside the surface or holding smoke, grown
 * by a cell, or their cell box when there are none), meshes, particles
 * and strands (their points).  Returns the number of drawable records (0: nothing to draw,
 * lo and hi unset); -1 with err, naming the record, on a malformed one, or
 * when everything drawable is one point (a lone particle) and
 * so->radius is 0: such a box has no size (with so->radius > 0 it is
 * grown by that radius). */
int scene_bounds(const slc_frame *F, const scene_opts *so, double lo[3],
		 double hi[3], slc_err *err);

/* scene_bounds and the tet meshes' tets_frame_bounds together, over the
 * records named by names (comma-separated; NULL: every one) in place of
 * so->only: the box of everything drawable and how many records it
 * holds (0: nothing to draw, lo and hi unset); -1 with err. */
int scene_all_bounds(const slc_frame *F, const scene_opts *so, const char *names,
		     double lo[3], double hi[3], slc_err *err);

/* Draw the records of the frame F: meshes, particles and strands
 * (Kajiya-Kay ribbons coloured by a Cd channel, f32 x3 linear RGB per
 * strand or per point, else so->hair_rgb, else by name) first,
 * then level sets (one-sidedly next to the meshes with so->one_sided),
 * then smoke; each with the depth test.  diag is the scene's diagonal
 * (for the default splat radius).  Other records are ignored.  0, or -1
 * with err naming the record. */
int scene_draw(rimage *im, const camera *cam, const slc_frame *F,
	       const scene_opts *so, double diag, slc_err *err);

/* Where one slice panel cuts: axis 0..2 at pos metres, or at pos percent
 * of the grid's extent along the axis. */
typedef struct slice_spec {
	int axis;
	double pos;
	int percent;
} slice_spec;

/* Slices of one grid of the frame F, among those named in only (NULL:
 * any), ns panels side by side in equal shares of the picture's width.
 * name: the grid (NULL: phi, else density, else the first grid; "speed":
 * |u| from the MAC grids u, v, w).
 * A grid named in levelsets gets the diverging map and its contour at
 * iso cells; others viridis.  range: colour range, or NULL for the
 * field's (symmetric about iso for level sets).  0, or -1 with err. */
int scene_slices(rimage *im, const slc_frame *F, const char *only, const char *name,
		 const char *levelsets, const slice_spec *sp, int ns, double iso,
		 const double *range, slc_err *err);

#endif
