/* cloth_vec.h: small inline 3-vector helpers shared by the cloth code. */
#ifndef SLC_CLOTH_VEC_H
#define SLC_CLOTH_VEC_H

#include <math.h>

/* Loops shorter than this run on one thread: forking costs more. */
#define CLOTH_OMP_MIN 4096

static inline double v3dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void v3sub(const double *a, const double *b, double *r)
{
	r[0] = a[0] - b[0];
	r[1] = a[1] - b[1];
	r[2] = a[2] - b[2];
}

static inline void v3cross(const double *a, const double *b, double *r)
{
	double t0 = a[1] * b[2] - a[2] * b[1];
	double t1 = a[2] * b[0] - a[0] * b[2];
	double t2 = a[0] * b[1] - a[1] * b[0];
	r[0] = t0;
	r[1] = t1;
	r[2] = t2;
}

static inline double v3norm(const double *a)
{
	return sqrt(v3dot(a, a));
}

/* r += s*a */
static inline void v3axpy(double s, const double *a, double *r)
{
	r[0] += s * a[0];
	r[1] += s * a[1];
	r[2] += s * a[2];
}

static inline void v3scale(double s, double *a)
{
	a[0] *= s;
	a[1] *= s;
	a[2] *= s;
}

#endif
