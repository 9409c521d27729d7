/* ccd.c: the coplanarity times of four linearly moving points (ccd.h). */
#include "geom/ccd.h"

#include <math.h>

/* Bisection steps for a cubic root. */
#define ROOT_ITERS 60
/* The coplanarity cubic's derivative: a coefficient below this is zero,
 * so the derivative is of lower degree.  The coefficients are products
 * of lengths in metres, far above it; it is kept above the smallest
 * normal double (2.2e-308), so that dividing by a coefficient that passes
 * cannot overflow. */
#define CUBIC_COEF_ZERO 1e-300

static double
v3dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
v3sub(const double *a, const double *b, double *r)
{
	r[0] = a[0] - b[0];
	r[1] = a[1] - b[1];
	r[2] = a[2] - b[2];
}

static void
v3cross(const double *a, const double *b, double *r)
{
	double t0 = a[1] * b[2] - a[2] * b[1];
	double t1 = a[2] * b[0] - a[0] * b[2];
	double t2 = a[0] * b[1] - a[1] * b[0];

	r[0] = t0;
	r[1] = t1;
	r[2] = t2;
}

static double
cubic(const double c[4], double t)
{
	return ((c[3] * t + c[2]) * t + c[1]) * t + c[0];
}

void
ccd_coplanar_cubic(const double *const x[4], const double *const d[4],
	       double c[4])
{
	double A0[3], A1[3], B0[3], B1[3], C0[3], C1[3], X[3], Y[3], Z[3], W[3];

	v3sub(x[1], x[0], A0);
	v3sub(d[1], d[0], A1);
	v3sub(x[2], x[0], B0);
	v3sub(d[2], d[0], B1);
	v3sub(x[3], x[0], C0);
	v3sub(d[3], d[0], C1);
	v3cross(A0, B0, X);
	v3cross(A1, B1, Y);
	v3cross(A0, B1, Z);
	v3cross(A1, B0, W);
	for (int k = 0; k < 3; k++)
		Z[k] += W[k];
	c[0] = v3dot(X, C0);
	c[1] = v3dot(X, C1) + v3dot(Z, C0);
	c[2] = v3dot(Z, C1) + v3dot(Y, C0);
	c[3] = v3dot(Y, C1);
}

int
ccd_coplanar_times(const double *const x[4], const double *const d[4],
		   double t[3])
{
	double c[4], br[4];
	int nb = 0, nr = 0;

	ccd_coplanar_cubic(x, d, c);
	/* monotone pieces between the roots of the derivative */
	br[nb++] = 0;
	{
		double qa = 3 * c[3], qb = 2 * c[2], qc = c[1], r[2];
		int n = 0;
		if (fabs(qa) > CUBIC_COEF_ZERO) {
			double disc = qb * qb - 4 * qa * qc;
			if (disc >= 0) {
				double sq = sqrt(disc);
				double q = -0.5 * (qb + (qb >= 0 ? sq : -sq));
				r[n++] = q / qa;
				if (q != 0)
					r[n++] = qc / q;
			}
		} else if (fabs(qb) > CUBIC_COEF_ZERO) {
			r[n++] = -qc / qb;
		}
		if (n == 2 && r[0] > r[1]) {
			double tmp = r[0];
			r[0] = r[1];
			r[1] = tmp;
		}
		for (int i = 0; i < n; i++)
			if (r[i] > 0 && r[i] < 1)
				br[nb++] = r[i];
	}
	br[nb++] = 1;
	for (int i = 0; i + 1 < nb && nr < 3; i++) {
		double a = br[i], b = br[i + 1], fa = cubic(c, a), fb = cubic(c, b);
		if (fa == 0) {
			if (!nr || t[nr - 1] != a)
				t[nr++] = a;
			continue;
		}
		if (fa * fb > 0)
			continue;
		if (fb == 0)
			continue;       /* found as the next piece's start */
		for (int it = 0; it < ROOT_ITERS; it++) {
			double m = 0.5 * (a + b), fm = cubic(c, m);
			if ((fm < 0) == (fa < 0)) {
				a = m;
				fa = fm;
			} else {
				b = m;
			}
		}
		t[nr++] = 0.5 * (a + b);
	}
	if (nr < 3 && cubic(c, 1) == 0 && (!nr || t[nr - 1] != 1))
		t[nr++] = 1;
	return nr;
}

