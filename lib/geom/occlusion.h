/* occlusion.h: the occlusion fields of houston2003 §2-3: a solid level set
 * phi, an object velocity u and a slip coefficient alpha per sample, and
 * the union of several objects.
 */
#ifndef SLC_OCCLUSION_H
#define SLC_OCCLUSION_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "grid/field.h"

/* Velocity of each sample of the grid placed like phi: the per-vertex
 * velocity V (nv*3, m/s) interpolated with barycentric weights at the
 * point of triangle closest[c] closest to the sample (the closest
 * triangles from sdf_mesh), so each sample carries the velocity of the
 * nearest surface point (houston2003 §3.2 for deforming objects).  vel
 * receives 3 floats per sample.  Samples with closest[c] < 0 get zero.
 * V NULL gives zero everywhere (a still object). */
void occlusion_velocity(const field *phi, const double *P, const double *V,
			const uint32_t *tri, const int32_t *closest,
			float *vel);

/* Vertex velocities from two frames of the same mesh: V = (P1 - P0)/dt
 * for nv vertices.  0, or -1 with err for a bad dt. */
int occlusion_frame_velocity(const double *P0, const double *P1, size_t nv,
			     double dt, double *V, slc_err *err);

/* The union operator of houston2003 §2, applied sample by sample to n
 * samples: psi_A u B = psi_A where phi_A <= phi_B, else psi_B.  A is
 * (phi_a, vel_a, slip_a) and is overwritten with the union; B is
 * (phi_b, vel_b, one slip value slip_b).  vel_a/vel_b (3 floats per
 * sample) and slip_a may be NULL when only the level set is wanted. */
void occlusion_union(size_t n, float *phi_a, float *vel_a, float *slip_a,
		     const float *phi_b, const float *vel_b, float slip_b);

/* The object level set at a time between two frames (selle2008 thesis
 * §7.5.1): with phi0, vel0 at frame n and phi1, vel1 at frame n+1, dt
 * apart, and alpha in [0, 1] the fraction of the step,
 *   phi(x, alpha) = (1 - alpha) phi0(x - dt alpha vbar)
 *                 + alpha phi1(x + dt (1 - alpha) vbar),
 *   vbar = (vel0(x) + vel1(x)) / 2,
 * which moves the surface with the body instead of blending two shapes
 * (exact for a translating body, up to trilinear interpolation).  phi0,
 * phi1 and out share one placement; vel0/vel1 hold 3 floats per sample
 * (NULL: zero).  -1 with err on mismatched grids or a bad alpha/dt. */
int occlusion_at(const field *phi0, const float *vel0, const field *phi1,
		 const float *vel1, double dt, double alpha, field *out,
		 slc_err *err);

#endif
