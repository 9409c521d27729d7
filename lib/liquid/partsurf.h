/* partsurf.h: particles -> implicit surface sampled on a grid, merged
 * with a grid level set and meshed.
 *
 * Zhu and Bridson 2005 ("Animating sand as a fluid", surface
 * reconstruction): phi(x) = |x - xbar(x)| - rbar(x), where xbar and rbar
 * are the averages of the particle positions and radii weighted by
 * k(|x - x_i| / R), k(s) = max(0, (1 - s^2)^3), R the kernel radius.
 *
 * Yu and Turk 2013 ("Reconstructing surfaces of particle-based fluids using
 * anisotropic kernels", §4-5), as an option: each kernel is stretched along
 * the principal axes of its weighted neighbourhood (an ellipsoid, flat at
 * the surface) and centred on a Laplacian-smoothed position; the surface is
 * a level of the density sum of these kernels.  See partsurf_aniso.c.
 *
 * kdsm-vof §4.2: the particle surface is merged with the grid level set by
 * union, phi = min(phi_grid - iso, phi_particles), on the grid's lattice
 * (optionally refined), and that one field is meshed (lib/liquid/mcubes.h).
 *
 * Sampling scatters each particle into the lattice samples within its
 * kernel.  Particles are sorted by bins of samples (a stable counting
 * sort) and the lattice is cut into slabs of layers sampled in parallel:
 * every sample sums its particles in sorted order, so the field is the
 * same bytes for any thread count.
 */
#ifndef SLC_PARTSURF_H
#define SLC_PARTSURF_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
#include "liquid/surface.h"

enum ps_kernel { PS_ZHU_BRIDSON = 0, PS_YU_TURK = 1 };

/* The largest particle radius (m) taken: the kernel sums accumulate in
 * float, where a particle's volume PS_VOLUME(r) = 8 r^3 and the squared
 * kernel radius must stay far below FLT_MAX (3.4e38) even summed over
 * many particles; 1e9 m (8e27 m^3) leaves eleven orders of magnitude. */
#define PS_RADIUS_MAX 1e9

typedef struct ps_params {
	int kernel;         /* enum ps_kernel */
	double radius;      /* particle radius r (m), used where a particle has
	                       no radius of its own, and as the unit of R */
	double support;     /* kernel radius R = support * radius; default 4,
	                       i.e. twice the spacing 2r of touching particles
	                       (Zhu and Bridson use twice the spacing) */
	double dx;          /* lattice spacing without a grid; default radius */
	int refine;         /* with a grid: lattice refine times finer; 1 */
	double iso;         /* iso value of the grid level set; default 0 */
} ps_params;

/* Defaults above for particle radius r > 0. */
void ps_params_default(ps_params *p, double radius);

/* Check a parameter set: 0, or -1 with err naming the bad value. */
int ps_params_check(const ps_params *p, slc_err *err);

/* Allocate the lattice to sample on: with a grid g, g's lattice refined
 * p->refine times (node staggered, from g's first to last sample; g's own
 * placement when refine is 1); without, a node lattice of spacing p->dx
 * covering the particles P (np x3) with a margin of R + 2 dx.  0 or -1. */
int ps_lattice(const ps_params *p, const double *P, size_t np, const field *g,
	       field *f, slc_err *err);

/* Sample the particle surface on f's lattice (f allocated): f->a gets
 * phi_particles, negative inside the particles' surface and positive where
 * no particle is near (R for Zhu-Bridson; R (1/2 - rho) for Yu-Turk, rho
 * the kernel density, 1 inside a full neighbourhood).  P: np positions x3 (m); rad: np radii or NULL for
 * p->radius.  0 or -1 with err (out of memory, bad parameters). */
int ps_sample(const ps_params *p, const double *P, const double *rad, size_t np,
	      field *f, slc_err *err);

/* kdsm-vof §4.2 union: f = min(f, g - p->iso), with g sampled
 * trilinearly at f's samples (exactly at g's own samples). */
void ps_union(const ps_params *p, const field *g, field *f);

/* The whole path: lattice, particle surface, union with g (if not NULL),
 * marching cubes at 0 into m (zeroed or freed by the caller).  0 or -1. */
int ps_surface(const ps_params *p, const double *P, const double *rad,
	       size_t np, const field *g, surf_mesh *m, slc_err *err);

/* --- internal to partsurf*.c ----------------------------------------- */

/* Yu and Turk 2013 §5 kernels: per particle a smoothed centre xbar (x3)
 * and the symmetric matrix M = G^T G (6 values: xx xy xz yy yz zz) of its
 * ellipsoid |G (x - xbar)| < 1, scaled so det G = 1/R^3; amax its largest
 * semi-axis.  0 or -1 with err. */
int ps_aniso(const ps_params *p, const double *P, size_t np, double *xbar,
	     float *M, float *amax, slc_err *err);

#endif
