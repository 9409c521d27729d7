/* occlusion.c: object velocity from the closest surface point, and the
 * union of occlusions (houston2003 §2-3). */
#include "geom/occlusion.h"

#include <math.h>
#include <string.h>

#include "geom/tri.h"

void
occlusion_velocity(const field *phi, const double *P, const double *V,
		   const uint32_t *tri, const int32_t *closest, float *vel)
{
	size_t n = field_count(phi);

	if (!V) {
		memset(vel, 0, 3 * n * sizeof *vel);
		return;
	}
	#pragma omp parallel for schedule(static)
	for (int k = 0; k < phi->nk; k++)
		for (int j = 0; j < phi->nj; j++)
			for (int i = 0; i < phi->ni; i++) {
				size_t c = FIELD_IDX(phi, i, j, k);
				const uint32_t *f;
				double x[3], w[3];
				int m;
				if (closest[c] < 0) {
					vel[3 * c] = vel[3 * c + 1] = vel[3 * c + 2] = 0;
					continue;
				}
				f = tri + 3 * (size_t)closest[c];
				field_pos(phi, i, j, k, x);
				tri_closest(x, P + 3 * (size_t)f[0], P + 3 * (size_t)f[1],
					    P + 3 * (size_t)f[2], NULL, w);
				for (m = 0; m < 3; m++)
					vel[3 * c + m] = (float)(
						w[0] * V[3 * (size_t)f[0] + m] +
						w[1] * V[3 * (size_t)f[1] + m] +
						w[2] * V[3 * (size_t)f[2] + m]);
			}
}

int
occlusion_frame_velocity(const double *P0, const double *P1, size_t nv,
			 double dt, double *V, slc_err *err)
{
	size_t q;

	if (!(dt > 0) || !isfinite(dt))
		return slc_fail(err, "bad time step %g between frames", dt);
	for (q = 0; q < 3 * nv; q++)
		V[q] = (P1[q] - P0[q]) / dt;
	return 0;
}

void
occlusion_union(size_t n, float *phi_a, float *vel_a, float *slip_a,
		const float *phi_b, const float *vel_b, float slip_b)
{
	#pragma omp parallel for schedule(static)
	for (size_t c = 0; c < n; c++) {
		if (phi_a[c] <= phi_b[c])
			continue;
		phi_a[c] = phi_b[c];
		if (vel_a && vel_b)
			memcpy(vel_a + 3 * c, vel_b + 3 * c, 3 * sizeof *vel_a);
		if (slip_a)
			slip_a[c] = slip_b;
	}
}

int
occlusion_at(const field *phi0, const float *vel0, const field *phi1,
	     const float *vel1, double dt, double alpha, field *out,
	     slc_err *err)
{
	if (!field_same_place(phi1, phi0, &slc_place_exact) ||
	    !field_same_place(out, phi0, &slc_place_exact))
		return slc_fail(err, "level sets of the two frames are on different grids");
	if (!(alpha >= 0 && alpha <= 1))
		return slc_fail(err, "time fraction %g outside [0, 1]", alpha);
	if (!(dt >= 0) || !isfinite(dt))
		return slc_fail(err, "bad time step %g", dt);
	#pragma omp parallel for schedule(static)
	for (int k = 0; k < out->nk; k++)
		for (int j = 0; j < out->nj; j++)
			for (int i = 0; i < out->ni; i++) {
				size_t c = FIELD_IDX(out, i, j, k);
				double x[3], xa[3], xb[3], vb[3];
				int m;
				field_pos(out, i, j, k, x);
				for (m = 0; m < 3; m++) {
					vb[m] = ((vel0 ? vel0[3 * c + m] : 0) +
						 (vel1 ? vel1[3 * c + m] : 0)) / 2;
					xa[m] = x[m] - dt * alpha * vb[m];
					xb[m] = x[m] + dt * (1 - alpha) * vb[m];
				}
				out->a[c] = (float)((1 - alpha) * field_sample(phi0, xa) +
						    alpha * field_sample(phi1, xb));
			}
	return 0;
}
