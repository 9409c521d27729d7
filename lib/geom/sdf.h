/* sdf.h: signed distance fields from triangle meshes and particles.
 *
 * The mesh method is houston2003 §3.1: (1) the triangles go into a box
 * hierarchy (bvh.h) for ray intersections; (2) lines of samples are cast
 * along the three axis directions, each in both senses, and each cast
 * votes inside/outside by the parity of the crossings before the sample;
 * (3) samples whose votes tie (gaps in the geometry) take the sign of
 * their decided neighbours, removing the discontinuities near the zero
 * level; (4) where the paper re-initializes a rough distance, the distance
 * here is exact (closest triangle) in a narrow band, and beyond it is the
 * distance to a closest triangle carried outward from the band by sweeps
 * along the axes.  The sign needs no orientation and no
 * watertight mesh: flipped triangles, duplicated triangles (ignored for
 * the vote) and small holes still give the right inside.  A mesh that
 * many lines cross an odd number of times has no consistent inside (a
 * thin shell such as a cloth sheet or an open cup): signed mode then
 * fails and says so instead of inventing a sign.
 */
#ifndef SLC_SDF_H
#define SLC_SDF_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "grid/field.h"

/* Fraction of the mesh-crossing grid lines allowed to cross it an odd
 * number of times before the mesh counts as a thin shell.  A closed mesh
 * gives 0; a hole lets through roughly its share of the projected area
 * (a few percent for a hole of a few triangles in a sphere); an open cup
 * gives about a third, a sheet all of them. */
#define SDF_SHELL_ODD_FRACTION 0.1

typedef struct sdf_opts {
	double band;            /* half-width of the exact band, cells, >= 1 */
	int unsigned_dist;      /* nonzero: unsigned distance, no voting */
	int narrow;             /* nonzero: beyond the band, +-band*dx (the
				 * background value) instead of marching */
} sdf_opts;

typedef struct sdf_stats {
	size_t nduplicate;      /* triangles ignored by the vote as repeats */
	size_t nband;           /* samples given an exact distance */
	size_t lines_hit;       /* grid lines (all axes) crossing the mesh */
	size_t lines_odd;       /* ... an odd number of times */
	size_t ntie;            /* samples whose six votes tied 3:3 */
	double odd_fraction;    /* lines_odd / lines_hit (0 if none hit) */
	int thin_shell;         /* odd_fraction > SDF_SHELL_ODD_FRACTION */
} sdf_stats;

/* Signed (or unsigned) distance to the triangle mesh (P: nv*3 vertex
 * coordinates in metres, tri: nt*3 vertex indices) at every sample of
 * phi, which the caller has allocated and placed (any staggering);
 * negative inside.  Within o->band cells of the mesh the value equals the
 * distance to the closest triangle (rounded to float); beyond, the exact
 * distance to the closest triangle the sweeps find (an upper bound, within
 * a fraction of a cell of the true distance in the tests), or +-band*dx
 * with o->narrow (and then closest is -1 there).  closest (may be NULL;
 * one per sample) receives the index of that triangle.  st (may be NULL)
 * receives the statistics.  Fails (-1, err) on bad input, on out of memory,
 * when a distance does not fit a float (vertices or grid past 1e38 m), and in
 * signed mode on a thin shell (st->thin_shell set; the message gives the
 * odd fraction).  Deterministic and independent of the thread count. */
int sdf_mesh(field *phi, const double *P, size_t nv, const uint32_t *tri,
	     size_t nt, const sdf_opts *o, int32_t *closest, sdf_stats *st,
	     slc_err *err);

/* Level set of the union of spheres of the particles (P: np*3 centres;
 * radius: np radii, or NULL to use r for all): phi = min_p(|x - p| - r_p)
 * exactly wherever that is below o->band cells, fast-marched beyond on
 * the outside.  With no particles, phi is set to the length of the grid's
 * diagonal everywhere (far outside).  o->unsigned_dist is ignored.  Fails
 * (-1, err naming the sample and particle) when a distance does not fit
 * a float (positions or the grid past 1e38 m). */
int sdf_particles(field *phi, const double *P, const double *radius,
		  double r, size_t np, const sdf_opts *o, slc_err *err);

/* Level set of hair: the union of the capsules around every segment of
 * the strands (P: np*3 points; offset: nstrand + 1 entries rising from 0
 * to np, strand s = points offset[s] .. offset[s+1]-1, as in the strands
 * record).  The capsule's radius goes linearly from one end's radius
 * (radius[i], or r for all when radius is NULL) to the other's, taken at
 * the segment's closest point; a one-point strand is a sphere.  Exact in
 * the band and marched beyond it, as sdf_particles; fails as it does when
 * a distance does not fit a float (the message names the segment's first
 * point). */
int sdf_strands(field *phi, const double *P, const double *radius, double r,
		size_t np, const uint32_t *offset, size_t nstrand,
		const sdf_opts *o, slc_err *err);

/* Place a cell-centred grid around the box [lo, hi] (metres) with pad
 * cells of margin on every side: cells of size dx, or, when dx <= 0, res
 * cells along the longest side, margin included.  Each axis gets
 * ceil(extent/dx) cells (at least 1; a round-off of 1e-4 cell does not add
 * one), the origin at lo - pad*dx.  -1 with err when res leaves no cell
 * inside the margin or an axis would exceed SDF_AXIS_MAX cells. */
#define SDF_AXIS_MAX (1 << 16)
int sdf_place(const double lo[3], const double hi[3], double pad, double dx,
	      long res, slc_grid *g, slc_err *err);

#endif
