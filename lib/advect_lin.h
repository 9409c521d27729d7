/* advect_lin.h: trilinear sampling prepared once per field, for the inner
 * loops of advection (private to lib/advect*.c).
 *
 * Same interpolant and the same clamping to the samples' box as
 * field_sample (lib/field.c), with the placement arithmetic hoisted out of
 * the loop; the limiter bounds of thesis §2.7 come from the same eight
 * samples.  Results agree with field_sample to rounding (x/dx is computed
 * as x*(1/dx)).
 */
#ifndef SLC_ADVECT_LIN_H
#define SLC_ADVECT_LIN_H

#include <stddef.h>

#include "field.h"
#include "macgrid.h"

typedef struct lin {
	const float *a;
	double inv;             /* 1/dx */
	double o[3];            /* sample-space coordinate of x = 0 */
	int n[3];               /* sample dims */
	size_t di, sj, sk;      /* neighbour strides, 0 along one-sample axes */
} lin;

static inline void
lin_init(lin *L, const field *f)
{
	double off[3];
	int a;

	field_offset(f, off);
	L->a = f->a;
	L->inv = 1.0 / f->dx;
	for (a = 0; a < 3; a++)
		L->o[a] = -f->origin[a] * L->inv - off[a];
	L->n[0] = f->ni;
	L->n[1] = f->nj;
	L->n[2] = f->nk;
	L->di = f->ni > 1;
	L->sj = f->nj > 1 ? (size_t)f->ni : 0;
	L->sk = f->nk > 1 ? (size_t)f->ni * (size_t)f->nj : 0;
}

/* Clamped base index and weight along one axis (as field.c's locate). */
static inline int
lin_axis(double s, int n, double *t)
{
	int i;

	if (!(s > 0) || n < 2) {        /* also NaN */
		*t = 0;
		return 0;
	}
	if (s >= n - 1) {
		*t = 1;
		return n - 2;
	}
	i = (int)s;
	*t = s - i;
	return i;
}

/* Offset of the base sample and the three weights at world position x. */
static inline size_t
lin_locate(const lin *L, const double x[3], double t[3])
{
	int i = lin_axis(x[0] * L->inv + L->o[0], L->n[0], &t[0]);
	int j = lin_axis(x[1] * L->inv + L->o[1], L->n[1], &t[1]);
	int k = lin_axis(x[2] * L->inv + L->o[2], L->n[2], &t[2]);

	return (size_t)i + (size_t)L->n[0] * ((size_t)j + (size_t)L->n[1] * (size_t)k);
}

static inline double
lin_sample(const lin *L, const double x[3])
{
	double t[3];
	const float *p = L->a + lin_locate(L, x, t);
	size_t di = L->di, sj = L->sj, sk = L->sk;

	return (1 - t[2]) * ((1 - t[1]) * ((1 - t[0]) * p[0] + t[0] * p[di]) +
			     t[1] * ((1 - t[0]) * p[sj] + t[0] * p[sj + di])) +
	       t[2] * ((1 - t[1]) * ((1 - t[0]) * p[sk] + t[0] * p[sk + di]) +
		       t[1] * ((1 - t[0]) * p[sk + sj] + t[0] * p[sk + sj + di]));
}

/* The sample and the minimum and maximum of the eight stencil values. */
static inline double
lin_sample_bounds(const lin *L, const double x[3], float *lo, float *hi)
{
	double t[3];
	const float *p = L->a + lin_locate(L, x, t);
	size_t di = L->di, sj = L->sj, sk = L->sk;
	float c[8] = { p[0], p[di], p[sj], p[sj + di],
		       p[sk], p[sk + di], p[sk + sj], p[sk + sj + di] };
	float mn = c[0], mx = c[0];
	int q;

	for (q = 1; q < 8; q++) {
		mn = c[q] < mn ? c[q] : mn;
		mx = c[q] > mx ? c[q] : mx;
	}
	*lo = mn;
	*hi = mx;
	return (1 - t[2]) * ((1 - t[1]) * ((1 - t[0]) * c[0] + t[0] * c[1]) +
			     t[1] * ((1 - t[0]) * c[2] + t[0] * c[3])) +
	       t[2] * ((1 - t[1]) * ((1 - t[0]) * c[4] + t[0] * c[5]) +
		       t[1] * ((1 - t[0]) * c[6] + t[0] * c[7]));
}

/* A MAC velocity prepared for sampling. */
typedef struct linmac {
	lin c[3];
} linmac;

static inline void
linmac_init(linmac *M, const macgrid *m)
{
	lin_init(&M->c[0], &m->u);
	lin_init(&M->c[1], &m->v);
	lin_init(&M->c[2], &m->w);
}

/* The midpoint characteristic of advect_trace. */
static inline void
linmac_trace(const linmac *M, const double x[3], double dt, double xb[3])
{
	double xm[3];

	xm[0] = x[0] - 0.5 * dt * lin_sample(&M->c[0], x);
	xm[1] = x[1] - 0.5 * dt * lin_sample(&M->c[1], x);
	xm[2] = x[2] - 0.5 * dt * lin_sample(&M->c[2], x);
	xb[0] = x[0] - dt * lin_sample(&M->c[0], xm);
	xb[1] = x[1] - dt * lin_sample(&M->c[1], xm);
	xb[2] = x[2] - dt * lin_sample(&M->c[2], xm);
}

#endif
