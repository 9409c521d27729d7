/* advect_lin.h: trilinear sampling prepared once per field, for the inner
 * loops of advection (private to lib/advect*.c).
 *
 * Same interpolant and the same clamping to the samples' box as
 * field_sample (lib/grid/field.c), with the placement arithmetic hoisted out of
 * the loop; the limiter bounds of thesis §2.7 come from the same eight
 * samples.  Results agree with field_sample to rounding (x/dx is computed
 * as x*(1/dx)).
 */
#ifndef SLC_ADVECT_LIN_H
#define SLC_ADVECT_LIN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fluid/advect.h"
#include "grid/field.h"
#include "grid/macgrid.h"

typedef struct lin {
	const float *a;
	double inv;             /* 1/dx */
	double o[3];            /* sample-space coordinate of x = 0 */
	int n[3];               /* sample dims */
	size_t di, sj, sk;      /* neighbour strides, 0 along one-sample axes */
	double k0;              /* first plane of a slab (field.k0), or 0 */
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
	L->k0 = f->k0;
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
	int k = lin_axis((x[2] * L->inv + L->o[2]) - L->k0, L->n[2], &t[2]);

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

/* --- float sampling in index space (the grid passes) ---------------
 *
 * A grid pass visits the samples of the advected field row by row (k, j
 * with i innermost) and works in sample space: the characteristic of
 * sample (i, j, k) is a displacement d in cells, so its foot is
 * (i - d_x, j - d_y, k - d_z) and every coordinate is an integer plus a
 * small float.  Splitting it that way keeps float arithmetic as accurate
 * as the double positions of field_sample (the fraction is exact) and lets
 * the loops run on float lanes.  Interpolation is trilinear with the
 * clamping of field_sample (lib/grid/field.c): values beyond the box are those
 * of the nearest edge sample.
 */

/* Displacements beyond this many cells are clamped before the integer
 * split (the box clamp then applies); it also maps NaN to a finite index,
 * so a poisoned velocity can never address outside the samples.  The
 * loops take it as a run-time value (rowf.cap): as a constant, GCC's jump
 * threading splits the clamp into branches that defeat if-conversion on
 * some targets (x86-64 with AVX2). */
#define ROW_FOOT_MAX 4194304.0f

/* The helpers below are the bodies of the inner loops: inlined always
 * (the compiler's size heuristics would otherwise call them). */
#if defined(__GNUC__)
#define ROW_INLINE static inline __attribute__((always_inline))
#else
#define ROW_INLINE static inline
#endif

/* A float field prepared for sampling in its own index space. */
typedef struct rowf {
	const float *a;
	int nm[3];              /* largest base index: n - 2 (-1: one sample) */
	int rj, rk;             /* index strides of j and k: ni, ni*nj */
	int di, sj, sk;         /* neighbour strides, 0 along one-sample axes */
	float cap;              /* ROW_FOOT_MAX */
} rowf;

static inline void
rowf_init(rowf *L, const field *f)
{
	L->a = f->a;
	L->nm[0] = f->ni - 2;
	L->nm[1] = f->nj - 2;
	L->nm[2] = f->nk - 2;
	L->rj = f->ni;
	L->rk = f->ni * f->nj;
	L->di = f->ni > 1;
	L->sj = f->nj > 1 ? f->ni : 0;
	L->sk = f->nk > 1 ? f->ni * f->nj : 0;
	L->cap = ROW_FOOT_MAX;
}

/* Base index and weight along one axis at coordinate idx + f, clamped to
 * [0, nm + 1] as field.c's locate does: at or below 0 the weight is 0 on
 * sample 0, at or beyond the last sample it is 1 on it. */
/* The integer part (floor) of a sample-space displacement f, clamped to
 * cap (ROW_FOOT_MAX), and its fraction in *t. */
ROW_INLINE int
row_floor(float f, float cap, float *t)
{
	int fi;

	f = f > -cap ? f : -cap;                        /* NaN too */
	f = f < cap ? f : cap;
	fi = (int)f;
	fi -= f < (float)fi;                            /* floor */
	*t = f - (float)fi;                             /* exact */
	return fi;
}

ROW_INLINE int
row_axis(int idx, float f, int nm, float cap, float *t)
{
	float tt;
	int fi = row_floor(f, cap, &tt), b;

	b = idx + fi;
	tt = b > nm ? 1 : tt;
	b = b > nm ? nm : b;
	tt = b < 0 ? 0 : tt;
	b = b < 0 ? 0 : b;
	*t = tt;
	return b;
}

/* Two neighbours along a row, p[0] and p[di], into *c0 and *c1.  With
 * pair (a constant at every call: di is 1) on a little-endian machine,
 * one 8-byte load: the vectorized loops then gather half as many
 * elements. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROW_PAIR_LOAD 1
#endif

ROW_INLINE void
row_pair(const float *p, int di, int pair, float *c0, float *c1)
{
#ifdef ROW_PAIR_LOAD
	if (pair) {
		uint64_t v;
		uint32_t lo, hi;

		memcpy(&v, p, sizeof v);
		lo = (uint32_t)v;
		hi = (uint32_t)(v >> 32);
		memcpy(c0, &lo, sizeof *c0);
		memcpy(c1, &hi, sizeof *c1);
		return;
	}
#else
	(void)pair;
#endif
	*c0 = p[0];
	*c1 = p[di];
}

/* Trilinear interpolation from base sample b with weights t (the
 * x-then-y-then-z order of field_sample); pair: L->di is 1 (row_pair). */
ROW_INLINE float
row_tri(const rowf *L, int b, float tx, float ty, float tz, int pair)
{
	const float *p = L->a + b;
	int di = L->di, sj = L->sj, sk = L->sk;
	float c0, c1, c2, c3, c4, c5, c6, c7;

	row_pair(p, di, pair, &c0, &c1);
	row_pair(p + sj, di, pair, &c2, &c3);
	row_pair(p + sk, di, pair, &c4, &c5);
	row_pair(p + sk + sj, di, pair, &c6, &c7);
	return (1 - tz) * ((1 - ty) * ((1 - tx) * c0 + tx * c1) +
			   ty * ((1 - tx) * c2 + tx * c3)) +
	       tz * ((1 - ty) * ((1 - tx) * c4 + tx * c5) +
		     ty * ((1 - tx) * c6 + tx * c7));
}

/* The same, with the minimum and maximum of the eight samples (the
 * bounds of the thesis §2.7 limiter). */
ROW_INLINE float
row_tri_bounds(const rowf *L, int b, float tx, float ty, float tz,
	       float *lo, float *hi, int pair)
{
	const float *p = L->a + b;
	int di = L->di, sj = L->sj, sk = L->sk;
	float c0, c1, c2, c3, c4, c5, c6, c7;
	float m0, m1, m2, m3, x0, x1, x2, x3;

	row_pair(p, di, pair, &c0, &c1);
	row_pair(p + sj, di, pair, &c2, &c3);
	row_pair(p + sk, di, pair, &c4, &c5);
	row_pair(p + sk + sj, di, pair, &c6, &c7);
	m0 = c0 < c1 ? c0 : c1;
	m1 = c2 < c3 ? c2 : c3;
	m2 = c4 < c5 ? c4 : c5;
	m3 = c6 < c7 ? c6 : c7;
	x0 = c0 > c1 ? c0 : c1;
	x1 = c2 > c3 ? c2 : c3;
	x2 = c4 > c5 ? c4 : c5;
	x3 = c6 > c7 ? c6 : c7;
	m0 = m0 < m1 ? m0 : m1;
	m2 = m2 < m3 ? m2 : m3;
	x0 = x0 > x1 ? x0 : x1;
	x2 = x2 > x3 ? x2 : x3;
	*lo = m0 < m2 ? m0 : m2;
	*hi = x0 > x2 ? x0 : x2;
	return (1 - tz) * ((1 - ty) * ((1 - tx) * c0 + tx * c1) +
			   ty * ((1 - tx) * c2 + tx * c3)) +
	       tz * ((1 - ty) * ((1 - tx) * c4 + tx * c5) +
		     ty * ((1 - tx) * c6 + tx * c7));
}

/* Sample L at (i + fx, j + fy, k + fz); pair as row_tri. */
ROW_INLINE float
row_at(const rowf *L, int i, int j, int k, float fx, float fy, float fz, int pair)
{
	float tx, ty, tz;
	float cap = L->cap;
	int bx = row_axis(i, fx, L->nm[0], cap, &tx);
	int by = row_axis(j, fy, L->nm[1], cap, &ty);
	int bz = row_axis(k, fz, L->nm[2], cap, &tz);

	return row_tri(L, bx + L->rj * by + L->rk * bz, tx, ty, tz, pair);
}

/* --- the general path (lib/fluid/advect_any.c) --------------------------- */

/* advect_sl and advect_field for any placement of q (its cell size may
 * differ from the velocity's): world positions in double precision. */
void advect_sl_any(const macgrid *vel, double dt, const field *q, field *out,
		   float *lo, float *hi);
int advect_field_any(const macgrid *vel, double dt, const field *q, field *out,
		     const advect_opts *o, advect_stats *st, slc_err *err);

#endif
