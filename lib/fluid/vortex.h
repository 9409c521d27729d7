/* vortex.h: vortex particles (selle2008 thesis §3.3-3.4).
 *
 * A particles record named "vortex" with point channels P (f32x3, metres)
 * and omega (f32x3, the particle's vorticity times its kernel volume,
 * m^3/s).  Particles move with the grid velocity, their vorticity is
 * stretched and tilted with its magnitude kept (§3.4.1), and each particle
 * drives the grid velocity with the confinement force of §3.4.2,
 * F_p(x) = eps (N_p x xi(|x - x_p|) omega_p), N_p = (x_p - x)/|x_p - x|,
 * with a clamped Gaussian or tent kernel xi of radius r.
 */
#ifndef SLC_VORTEX_H
#define SLC_VORTEX_H

#include <stdint.h>

#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "core/slc.h"

enum vortex_kernel { VORTEX_GAUSSIAN = 0, VORTEX_TENT = 1 };

typedef struct vortex_opts {
	double rate;    /* particles seeded per second in the source */
	double omega;   /* |omega| of a seeded particle, m^3/s */
	double radius;  /* kernel radius in cells */
	int kernel;     /* enum vortex_kernel */
	double eps;     /* force strength, m/s */
} vortex_opts;

/* Start an empty "vortex" particles record (P and omega, no points). */
int vortex_new(slc_rec *r, slc_err *err);

/* Check that r has P and omega, both f32x3 point channels. */
int vortex_check(const slc_rec *r, slc_err *err);

/* The kernel xi at distance d for radius r (1/m^3), zero beyond r.
 * Gaussian (thesis §3.5): exp(-d^2/2r^2) / (r^3 (2 pi)^(3/2)); tent:
 * 3 (1 - d/r) / (pi r^3), which integrates to one over its ball. */
double vortex_kernel(int kernel, double d, double r);

/* thesis §3.4.1: move the particles with the trilinear grid velocity
 * (midpoint rule) and apply omega += dt (omega . grad) u with the velocity
 * gradient from central differences, then rescale omega to its old
 * magnitude.  Never fails on a checked record. */
void vortex_step(slc_rec *r, const macgrid *vel, double dt);

/* Delete the particles inside a solid (solid level set < 0, §3.4.1). */
int vortex_cull(slc_rec *r, const field *solid, slc_err *err);

/* Seed particles inside the region (level set < 0): on average rate*dt
 * per call, at uniform random positions, with vorticity of magnitude
 * o->omega tangent to the vertical cylinder about the region's centroid
 * (thesis §3.5), oriented counter-clockwise seen from above (+y).  The
 * random sequence is fixed by seed and call (e.g. frame and substep), so
 * runs are repeatable.  0, or -1 with err (memory). */
int vortex_seed(slc_rec *r, const field *region, const vortex_opts *o,
		double dt, uint64_t seed, uint64_t call, slc_err *err);

/* thesis §3.4.2: add dt * sum_p F_p to every face within o->radius cells
 * of a particle.  Deterministic (particles in order). */
void vortex_force(const slc_rec *r, macgrid *vel, const vortex_opts *o,
		  double dt);

#endif
