/* prim_grid.c: grid initial states: the exact signed distance of a pool
 * plus a drop, and a smoke source (see prim.h). */
#include "prim/prim.h"

#include <math.h>

int
prim_grid_place(const double size[3], int res, double dx, int n[3],
		double *dxo, slc_err *err)
{
	double big = 0;
	int a;

	for (a = 0; a < 3; a++) {
		if (!(size[a] > 0))
			return slc_fail(err, "box size %g, expected > 0", size[a]);
		big = fmax(big, size[a]);
	}
	if (!(dx > 0)) {
		if (res < 1 || res > PRIM_RES_MAX)
			return slc_fail(err, "grid resolution %d, expected 1..%d",
					res, PRIM_RES_MAX);
		dx = big / res;
	}
	for (a = 0; a < 3; a++) {
		/* a side that is a whole number of cells up to rounding keeps
		 * that number */
		double c = ceil(size[a] / dx - 1e-9);

		if (c > PRIM_RES_MAX)
			return slc_fail(err, "grid of %.0f cells along an axis, at most %d",
					c, PRIM_RES_MAX);
		n[a] = c < 1 ? 1 : (int)c;
	}
	*dxo = dx;
	return 0;
}

static double
len3(double x, double y, double z)
{
	return sqrt(x * x + y * y + z * z);
}

double
prim_sdf_sphere(const double x[3], const double c[3], double r)
{
	return len3(x[0] - c[0], x[1] - c[1], x[2] - c[2]) - r;
}

double
prim_sdf_box(const double x[3], const double c[3], const double h[3])
{
	double q[3], out = 0, in = -INFINITY;
	int a;

	for (a = 0; a < 3; a++) {
		q[a] = fabs(x[a] - c[a]) - h[a];
		in = fmax(in, q[a]);
		out += q[a] > 0 ? q[a] * q[a] : 0;
	}
	return in > 0 ? sqrt(out) : in;
}

double
prim_pool_phi(const double x[3], double level, const double c[3], double r)
{
	double dplane = x[1] - level, dball = prim_sdf_sphere(x, c, r);
	double best = INFINITY, ex[3], el, hy, rho2;

	if (dplane >= 0 && dball >= 0)
		return fmin(dplane, dball);
	/* inside the union: distance to the complement C = {y >= level}
	 * minus the open ball.  Its nearest point is the nearest point of the
	 * plane if that lies outside the ball, the nearest point of the
	 * sphere if that lies above the plane, or else a point of the circle
	 * where they meet (the distance to a plane or sphere piece has no
	 * other minimum inside the piece). */
	{
		double p[3] = { x[0], level, x[2] };

		if (prim_sdf_sphere(p, c, r) >= 0)
			best = fabs(dplane);
	}
	ex[0] = x[0] - c[0];
	ex[1] = x[1] - c[1];
	ex[2] = x[2] - c[2];
	el = len3(ex[0], ex[1], ex[2]);
	if (el > 0 ? c[1] + r * ex[1] / el >= level : c[1] + r >= level)
		best = fmin(best, fabs(dball));
	hy = level - c[1];
	rho2 = r * r - hy * hy;
	if (rho2 > 0) {
		double rho = sqrt(rho2), dxz = hypot(ex[0], ex[2]);

		best = fmin(best, hypot(dxz - rho, x[1] - level));
	}
	return -best;
}

void
prim_pool_fill(field *phi, double level, const double c[3], double r)
{
	int k;

	/* every cell is independent: the result does not depend on threads */
#pragma omp parallel for schedule(static)
	for (k = 0; k < phi->nk; k++)
		for (int j = 0; j < phi->nj; j++) {
			int i;

			for (i = 0; i < phi->ni; i++) {
				double x[3];

				field_pos(phi, i, j, k, x);
				phi->a[FIELD_IDX(phi, i, j, k)] =
					(float)prim_pool_phi(x, level, c, r);
			}
		}
}

void
prim_smoke_fill(field *source, field *density, field *temperature,
		int shape, const double c[3], double radius,
		const double half[3], double dens, double temp)
{
	int k;

#pragma omp parallel for schedule(static)
	for (k = 0; k < source->nk; k++)
		for (int j = 0; j < source->nj; j++) {
			int i;

			for (i = 0; i < source->ni; i++) {
				size_t q = FIELD_IDX(source, i, j, k);
				double x[3], s, cov;

				field_pos(source, i, j, k, x);
				s = shape == 0 ? prim_sdf_sphere(x, c, radius)
					       : prim_sdf_box(x, c, half);
				cov = fmin(1, fmax(0, 0.5 - s / source->dx));
				source->a[q] = (float)s;
				density->a[q] = (float)(dens * cov);
				temperature->a[q] = (float)(temp * cov);
			}
		}
}
