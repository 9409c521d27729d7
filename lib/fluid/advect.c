/* advect.c: semi-Lagrangian, MacCormack and BFECC advection of grid fields
 * through a MAC velocity (selle2008 thesis §2.3, §2.4, §2.7, §2.9).
 *
 * The grid passes stream over the advected field row by row (k, j, i with
 * i innermost) in its sample space (lib/fluid/advect_lin.h): a characteristic
 * is a displacement in cells, the velocity at the samples themselves is
 * a fixed blend of rows, and the correction, limiter and wall reversion
 * of MacCormack and BFECC are done inside the last semi-Lagrangian pass
 * instead of in passes of their own.  Rows are split between threads
 * statically and every sample is computed alone, so the result does not
 * depend on the number of threads.  Fields on cells of another size than
 * the velocity's take the general path of lib/fluid/advect_any.c.
 */
/* The row loops below are written for float lanes; GCC if-converts their
 * clamps only when it may assume that comparisons raise no floating point
 * exceptions that anybody observes (this library never reads the flags).
 * Values do not change: IEEE results are the same either way. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "fluid/advect.h"
#include "fluid/advect_lin.h"
#include "fluid/advect_shell.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Below this many samples a loop runs on one thread: the fork/join costs
 * more than it saves (and oversubscribed machines make it worse). */
#define ADVECT_PAR_MIN 32768

void
advect_opts_default(advect_opts *o)
{
	memset(o, 0, sizeof *o);
	o->scheme = ADVECT_MACCORMACK;
	o->limiter = ADVECT_LIMIT_REVERT;
}

/* thesis §2.3 traces a straight ray back along V(X); we trace the
 * characteristic with the midpoint rule (second order in time). */
void
advect_trace(const macgrid *vel, const double x[3], double dt, double xb[3])
{
	double v[3], xm[3];
	int a;

	mac_velocity(vel, x, v);
	for (a = 0; a < 3; a++)
		xm[a] = x[a] - 0.5 * dt * v[a];
	mac_velocity(vel, xm, v);
	for (a = 0; a < 3; a++)
		xb[a] = x[a] - dt * v[a];
}

void
advect_points(const macgrid *vel, double dt, float *P, size_t n)
{
	linmac M;
	size_t p;

	linmac_init(&M, vel);
#pragma omp parallel for schedule(static) if (n >= ADVECT_PAR_MIN)
	for (p = 0; p < n; p++) {
		double x[3], xf[3];
		int a;

		for (a = 0; a < 3; a++)
			x[a] = P[3 * p + a];
		linmac_trace(&M, x, -dt, xf);
		for (a = 0; a < 3; a++)
			P[3 * p + a] = (float)xf[a];
	}
}

/* --- characteristics in sample space ------------------------------ */

/* The midpoint characteristics of the samples of one field (placement q)
 * through vel over dt. */
typedef struct tracer {
	rowf v[3];              /* u, v, w */
	float o[3][3];          /* sample (i,j,k) of q is (i,j,k) + o[c] in
				   the sample space of component c */
	float h, half;          /* dt/dx and dt/(2 dx): m/s to cells */
	int pair;               /* every component has di = 1 (row_tri) */
	int shared;             /* along every axis a the two components
				   other than a have one offset and one
				   length (a MAC grid), so their weights
				   are computed once */
} tracer;

static void
tracer_init(tracer *T, const macgrid *vel, const field *q, double dt)
{
	double offq[3], offc[3];
	int c, a;

	field_offset(q, offq);
	for (c = 0; c < 3; c++) {
		const field *f = mac_ccomp(vel, c);

		rowf_init(&T->v[c], f);
		field_offset(f, offc);
		for (a = 0; a < 3; a++)
			T->o[c][a] = (float)((q->origin[a] - f->origin[a]) / f->dx +
					     offq[a] - offc[a]);
	}
	T->h = (float)(dt / vel->u.dx);
	T->half = (float)(0.5 * dt / vel->u.dx);
	T->pair = T->v[0].di == 1 && T->v[1].di == 1 && T->v[2].di == 1;
	T->shared = 1;
	for (a = 0; a < 3; a++) {
		int c1 = (a + 1) % 3, c2 = (a + 2) % 3;

		T->shared &= T->o[c1][a] == T->o[c2][a] &&
			     T->v[c1].nm[a] == T->v[c2].nm[a];
	}
}

/* out[i] = (1 - t_i) b[x_i] + t_i b[x_i + di], with x_i, t_i the clamped
 * base and weight of coordinate i + ox along an axis of largest base nm
 * (row_axis): inside the row the base is i + floor(ox) and the weight the
 * fraction of ox for every i, so the blend reads b contiguously. */
ROW_INLINE void
blend_x(float *out, const float *b, int ni, float ox, int nm, int di, float cap)
{
	float t;
	int fi = row_floor(ox, cap, &t), lo = -fi, hi = nm - fi + 1, i;

	lo = lo < 0 ? 0 : lo > ni ? ni : lo;
	hi = hi < lo ? lo : hi > ni ? ni : hi;
	for (i = 0; i < lo; i++) {
		float tx;
		int bx = row_axis(i, ox, nm, cap, &tx);

		out[i] = (1 - tx) * b[bx] + tx * b[bx + di];
	}
	if (lo < hi) {
		const float *b0 = b + fi, *b1 = b + fi + di;

#pragma omp simd
		for (i = lo; i < hi; i++)
			out[i] = (1 - t) * b0[i] + t * b1[i];
	}
	for (i = hi; i < ni; i++) {
		float tx;
		int bx = row_axis(i, ox, nm, cap, &tx);

		out[i] = (1 - tx) * b[bx] + tx * b[bx + di];
	}
}

/* The second half of the midpoint trace of row (j, k) given the
 * velocity v0 at the samples, for a tracer with T->shared: the weights of
 * the two components that are cell-centred along an axis are computed
 * once.  pair: every component has L->di = 1 (row_tri). */
ROW_INLINE void
trace_mid(const tracer *T, int ni, int j, int k, float *const v0[3],
	  float *const d[3], int pair)
{
	const rowf *U = &T->v[0], *V = &T->v[1], *W = &T->v[2];
	const float *o0 = T->o[0], *o1 = T->o[1], *o2 = T->o[2];
	const float *vx = v0[0], *vy = v0[1], *vz = v0[2];
	float h = T->h, half = T->half, cap = U->cap;
	float *dx = d[0], *dy = d[1], *dz = d[2];
	int i;

#pragma omp simd
	for (i = 0; i < ni; i++) {
		float mx = half * vx[i], my = half * vy[i], mz = half * vz[i];
		float tx0, txs, ty1, tys, tz2, tzs;
		int bx0 = row_axis(i, o0[0] - mx, U->nm[0], cap, &tx0);
		int bxs = row_axis(i, o1[0] - mx, V->nm[0], cap, &txs);
		int by1 = row_axis(j, o1[1] - my, V->nm[1], cap, &ty1);
		int bys = row_axis(j, o0[1] - my, U->nm[1], cap, &tys);
		int bz2 = row_axis(k, o2[2] - mz, W->nm[2], cap, &tz2);
		int bzs = row_axis(k, o0[2] - mz, U->nm[2], cap, &tzs);

		dx[i] = h * row_tri(U, bx0 + U->rj * bys + U->rk * bzs, tx0, tys, tzs, pair);
		dy[i] = h * row_tri(V, bxs + V->rj * by1 + V->rk * bzs, txs, ty1, tzs, pair);
		dz[i] = h * row_tri(W, bxs + W->rj * bys + W->rk * bz2, txs, tys, tz2, pair);
	}
}

/* The displacement d (cells) of every sample i of row (j, k) of q over
 * the tracer's dt: the foot of the characteristic through sample i is
 * (i - d[0][i], j - d[1][i], k - d[2][i]).  As advect_trace: xm = x -
 * dt/2 V(x), foot = x - dt V(xm).  w: 3 ni + (velocity's ni) floats. */
ROW_INLINE void
trace_row(const tracer *T, int ni, int j, int k, float *const d[3], float *w)
{
	float *v0[3] = { w, w + ni, w + 2 * ni }, *blend = w + 3 * ni;
	int c, i;

	/* V at the samples themselves: a fixed blend of two (y, z) by two
	 * rows of each component, then of neighbours along the row */
	for (c = 0; c < 3; c++) {
		const rowf *L = &T->v[c];
		float ty, tz, ox = T->o[c][0];
		int by = row_axis(j, T->o[c][1], L->nm[1], L->cap, &ty);
		int bz = row_axis(k, T->o[c][2], L->nm[2], L->cap, &tz);
		const float *r = L->a + L->rj * by + L->rk * bz;
		int sj = L->sj, sk = L->sk, di = L->di, nm = L->nm[0];
		float *v = v0[c];

#pragma omp simd
		for (i = 0; i < L->rj; i++)
			blend[i] = (1 - tz) * ((1 - ty) * r[i] + ty * r[i + sj]) +
				   tz * ((1 - ty) * r[i + sk] + ty * r[i + sk + sj]);
		blend_x(v, blend, ni, ox, nm, di, L->cap);
	}
	if (T->shared && T->pair)
		trace_mid(T, ni, j, k, v0, d, 1);
	else if (T->shared)
		trace_mid(T, ni, j, k, v0, d, 0);
	else {
		const rowf *U = &T->v[0], *V = &T->v[1], *W = &T->v[2];
		const float *o0 = T->o[0], *o1 = T->o[1], *o2 = T->o[2];
		const float *vx = v0[0], *vy = v0[1], *vz = v0[2];
		float h = T->h, half = T->half;
		float *dx = d[0], *dy = d[1], *dz = d[2];

#pragma omp simd
		for (i = 0; i < ni; i++) {
			float mx = half * vx[i], my = half * vy[i], mz = half * vz[i];

			dx[i] = h * row_at(U, i, j, k, o0[0] - mx, o0[1] - my, o0[2] - mz, 0);
			dy[i] = h * row_at(V, i, j, k, o1[0] - mx, o1[1] - my, o1[2] - mz, 0);
			dz[i] = h * row_at(W, i, j, k, o2[0] - mx, o2[1] - my, o2[2] - mz, 0);
		}
	}
}

/* --- wall reversion (thesis §2.9) ---------------------------------- */

/* Which samples lie close enough to a solid or a wall that a ray of
 * length `reach` plus its interpolation stencil could source from it:
 * thesis §2.9 "revert to the first order accurate semi-Lagrangian scheme
 * at any grid point whose semi-Lagrangian characteristic could source
 * from a solid wall". */
typedef struct walls {
	int on;                 /* any solid or wall to check */
	const field *solid;
	int solid_same;         /* solid has q's placement: read it directly */
	lin S;
	int wall[3];            /* the box faces across axis a are walls */
	double lo[3], hi[3], reach;
	const field *q;
	unsigned char *nearx;   /* per i: near a wall across x (the same
				   for every row) */
} walls;

/* 0, or -1 with err (memory); W->nearx is freed by the caller. */
static int
walls_init(walls *W, const macgrid *vel, const field *q, double dt,
	   const advect_opts *o, slc_err *err)
{
	int nc[3], a, i;
	double vmax;

	memset(W, 0, sizeof *W);
	W->on = o->solid || o->walls;
	if (!W->on)
		return 0;
	vmax = o->vmax > 0 ? o->vmax : mac_max_speed(vel);
	W->reach = fabs(dt) * vmax + vel->u.dx;
	W->q = q;
	if ((W->solid = o->solid)) {
		const field *s = o->solid;

		W->solid_same = s->ni == q->ni && s->nj == q->nj && s->nk == q->nk &&
				s->stagger == q->stagger && s->dx == q->dx &&
				!memcmp(s->origin, q->origin, sizeof q->origin);
		lin_init(&W->S, s);
	}
	field_cell_dims(&vel->u, &nc[0], &nc[1], &nc[2]);
	if (vel->u.nk_all)      /* a slab: the walls of the whole box */
		nc[2] = vel->u.nk_all;
	for (a = 0; a < 3; a++) {
		W->wall[a] = o->walls && nc[a] > 1;
		W->lo[a] = vel->u.origin[a];
		W->hi[a] = W->lo[a] + nc[a] * vel->u.dx;
	}
	if (!(W->nearx = slc_calloc((size_t)q->ni, 1, err)))
		return -1;
	for (i = 0; i < q->ni && W->wall[0]; i++) {
		double x[3];

		field_pos(q, i, 0, 0, x);
		W->nearx[i] = x[0] - W->lo[0] < W->reach || W->hi[0] - x[0] < W->reach;
	}
	return 0;
}

/* near[i] = 1 for the samples of row (j, k) to revert; returns how many. */
static size_t
walls_row(const walls *W, int j, int k, unsigned char *near)
{
	const field *q = W->q;
	double x[3], r = W->reach;
	size_t s = FIELD_IDX(q, 0, j, k), cnt = 0;
	int i, row;

	field_pos(q, 0, j, k, x);
	row = (W->wall[1] && (x[1] - W->lo[1] < r || W->hi[1] - x[1] < r)) ||
	      (W->wall[2] && (x[2] - W->lo[2] < r || W->hi[2] - x[2] < r));
	if (row) {
		memset(near, 1, (size_t)q->ni);
		return (size_t)q->ni;
	}
	if (W->solid && W->solid_same) {
		const float *sd = W->solid->a + s;
		const unsigned char *nx = W->nearx;
		int c = 0, ni = q->ni;

		for (i = 0; i < ni; i++) {
			int nw = nx[i] | (sd[i] < r);

			near[i] = (unsigned char)nw;
			c += nw;
		}
		return (size_t)c;
	}
	for (i = 0; i < q->ni; i++) {
		int nw = W->nearx[i];

		if (!nw && W->solid) {
			field_pos(q, i, j, k, x);
			nw = lin_sample(&W->S, x) < r;
		}
		near[i] = (unsigned char)nw;
		cnt += (size_t)nw;
	}
	return cnt;
}

/* --- the passes ----------------------------------------------------- */

enum pass_kind {
	PASS_SL,        /* out = A(q) (lo, hi: its stencil bounds if set) */
	PASS_MC,        /* MacCormack back step and correction, into out */
	PASS_BF_BACK,   /* BFECC back step: out = q0 - (A^R(q) - q0)/2 */
	PASS_BF_FWD     /* BFECC last forward step and correction, into out */
};

typedef struct pass {
	int kind;               /* enum pass_kind */
	const tracer *T;
	rowf Q;                 /* the field sampled at the feet */
	float *out;
	float *lo, *hi;         /* limiter bounds (written by PASS_SL) */
	float *feet[3];         /* displacements: written by a tracing pass,
				   read by PASS_BF_FWD (which does not trace) */
	const float *q0;        /* phi^n (PASS_MC, PASS_BF_BACK) */
	const float *first;     /* first order result (PASS_MC, PASS_BF_FWD) */
	int limiter;
	const walls *W;
	size_t limited, near;   /* counts */
} pass;

/* The corrected value at sample i of a row, in double precision as the
 * correction is formed: MacCormack (mc) phi_hat^{n+1} - (phi_hat^n -
 * phi^n)/2 (thesis §2.4) from first, q0 and the back step w; BFECC the
 * last forward step w itself. */
ROW_INLINE double
corrected(int mc, const float *first, const float *q0, const float *w, int i)
{
	return mc ? first[i] + 0.5 * ((double)q0[i] - w[i]) : (double)w[i];
}

/* The thesis §2.7 limiter as advect_limit over a row, for lim REVERT or
 * CLAMP: out[i] is the corrected value, or where that lies outside
 * [lo[i], hi[i]] the first order value first[i] (REVERT) or the clamped
 * value (CLAMP; a NaN stays NaN).  Returns how many samples were limited.
 * lo may be out: each bound is read before its sample is written.  The
 * count, the limiter variant and the comparisons in double lanes are
 * kept apart so that every loop runs on vector lanes. */
ROW_INLINE size_t
limit_row(int lim, int mc, int ni, const float *first, const float *q0, const float *w,
	  const float *lo, const float *hi, float *out)
{
	long n = 0;
	int i;

#pragma omp simd reduction(+ : n)
	for (i = 0; i < ni; i++) {
		double c = corrected(mc, first, q0, w, i);

		n += !(c >= lo[i] && c <= hi[i]);
	}
	if (lim == ADVECT_LIMIT_CLAMP) {
#pragma omp simd
		for (i = 0; i < ni; i++) {
			double c = corrected(mc, first, q0, w, i), l = lo[i], h = hi[i];
			double r = c < l ? l : c;

			r = c > h ? h : r;
			out[i] = (float)r;
		}
	} else {
#pragma omp simd
		for (i = 0; i < ni; i++) {
			double c = corrected(mc, first, q0, w, i);

			out[i] = (float)(c >= lo[i] && c <= hi[i] ? c : (double)first[i]);
		}
	}
	return (size_t)n;
}

/* Q at the feet (i - dx[i], j - dy[i], k - dz[i]) of row (j, k) into v;
 * pair: Q->di is 1 (row_tri). */
ROW_INLINE void
feet_sample(const rowf *Q, int ni, int j, int k, const float *dx, const float *dy,
	    const float *dz, float *v, int pair)
{
	int i;

#pragma omp simd
	for (i = 0; i < ni; i++)
		v[i] = row_at(Q, i, j, k, -dx[i], -dy[i], -dz[i], pair);
}

/* The same with the stencil bounds of the thesis §2.7 limiter. */
ROW_INLINE void
feet_bounds(const rowf *Q, int ni, int j, int k, const float *dx, const float *dy,
	    const float *dz, float *v, float *lo, float *hi, int pair)
{
	float cap = Q->cap;
	int i;

#pragma omp simd
	for (i = 0; i < ni; i++) {
		float tx, ty, tz;
		int b = row_axis(i, -dx[i], Q->nm[0], cap, &tx) +
			Q->rj * row_axis(j, -dy[i], Q->nm[1], cap, &ty) +
			Q->rk * row_axis(k, -dz[i], Q->nm[2], cap, &tz);

		v[i] = row_tri_bounds(Q, b, tx, ty, tz, &lo[i], &hi[i], pair);
	}
}

/* One pass over row (j, k) of a field of ni samples; d: 3 rows of
 * displacements, w: trace_row's scratch, near: ni bytes. */
ROW_INLINE void
pass_row(pass *P, int ni, int j, int k, float *const d[3], float *w,
	 unsigned char *near, size_t *limited, size_t *nearc)
{
	const rowf *Q = &P->Q;
	size_t s0 = (size_t)Q->rj * (size_t)j + (size_t)Q->rk * (size_t)k;
	float *out = P->out + s0;
	const float *dx, *dy, *dz;
	int i, lim = P->limiter;

	if (P->kind == PASS_BF_FWD) {
		dx = P->feet[0] + s0;
		dy = P->feet[1] + s0;
		dz = P->feet[2] + s0;
	} else {
		float *dd[3] = { d[0], d[1], d[2] };

		if (P->feet[0])
			for (i = 0; i < 3; i++)
				dd[i] = P->feet[i] + s0;
		trace_row(P->T, ni, j, k, dd, w);
		dx = dd[0];
		dy = dd[1];
		dz = dd[2];
	}
	if (P->kind == PASS_SL && P->lo) {
		if (Q->di == 1)
			feet_bounds(Q, ni, j, k, dx, dy, dz, out, P->lo + s0, P->hi + s0, 1);
		else
			feet_bounds(Q, ni, j, k, dx, dy, dz, out, P->lo + s0, P->hi + s0, 0);
		return;
	}
	/* the value at the feet: the whole result of PASS_SL, else in w */
	if (Q->di == 1)
		feet_sample(Q, ni, j, k, dx, dy, dz, P->kind == PASS_SL ? out : w, 1);
	else
		feet_sample(Q, ni, j, k, dx, dy, dz, P->kind == PASS_SL ? out : w, 0);
	if (P->kind == PASS_SL)
		return;
	if (P->kind == PASS_BF_BACK) {
		/* thesis §2.4 (BFECC): e = (phi_hat^n - phi^n)/2,
		 * phi_bar^n = phi^n - e */
		const float *q0 = P->q0 + s0;

#pragma omp simd
		for (i = 0; i < ni; i++)
			out[i] = (float)(q0[i] + 0.5 * ((double)q0[i] - w[i]));
		return;
	}
	{
		const float *first = P->first + s0;
		const float *lo = P->lo ? P->lo + s0 : NULL, *hi = P->hi ? P->hi + s0 : NULL;
		size_t hit = 0;

		if (P->kind == PASS_MC) {
			/* thesis §2.4: phi_hat^n = A^R(phi_hat^{n+1}) (in w),
			 * phi^{n+1} = phi_hat^{n+1} - (phi_hat^n - phi^n)/2 */
			const float *q0 = P->q0 + s0;

			if (lo) {
				hit = limit_row(lim, 1, ni, first, q0, w, lo, hi, out);
			} else {
#pragma omp simd
				for (i = 0; i < ni; i++)
					out[i] = (float)corrected(1, first, q0, w, i);
			}
		} else if (lo) {
			hit = limit_row(lim, 0, ni, first, NULL, w, lo, hi, out);
		} else {
			memcpy(out, w, (size_t)ni * sizeof *out);
		}
		*limited += hit;
		if (P->W->on) {
			*nearc += walls_row(P->W, j, k, near);
#pragma omp simd
			for (i = 0; i < ni; i++)
				out[i] = near[i] ? first[i] : out[i];
		}
	}
}

/* The row pass compiled twice: for the build's baseline instruction set
 * and, on x86-64, for AVX2 (eight float lanes), chosen at run time by
 * what the processor has.  Both do the same IEEE operations in the same
 * order (no fused multiply-add is enabled), so the results are the same
 * bit for bit. */
typedef void pass_row_fn(pass *, int, int, int, float *const[3], float *,
			 unsigned char *, size_t *, size_t *);

static void
pass_row_base(pass *P, int ni, int j, int k, float *const d[3], float *w,
	      unsigned char *near, size_t *limited, size_t *nearc)
{
	pass_row(P, ni, j, k, d, w, near, limited, nearc);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define ADVECT_AVX2 1
__attribute__((target("avx2"))) static void
pass_row_avx2(pass *P, int ni, int j, int k, float *const d[3], float *w,
	      unsigned char *near, size_t *limited, size_t *nearc)
{
	pass_row(P, ni, j, k, d, w, near, limited, nearc);
}
#endif

static pass_row_fn *
pass_row_pick(void)
{
#ifdef ADVECT_AVX2
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		return pass_row_avx2;
#endif
	return pass_row_base;
}

/* Can the sample-space passes take q: cells of the velocity's size, rows
 * at most one sample shorter than the velocity's, int indices? */
static int
fast_ok(const macgrid *vel, const field *q)
{
	int a;

	if (q->dx != vel->u.dx || field_count(q) > INT_MAX / 2)
		return 0;
	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(vel, a);

		if (field_count(f) > INT_MAX / 2 || f->ni > q->ni + 1)
			return 0;
	}
	return 1;
}

/* The scratch of one thread for a pass over rows of ni samples, laid out
 * once for the allocation and for the rows: 3 rows of displacements
 * (pass_row's d), trace_row's w (3 ni for the velocity at the samples and
 * a velocity row, at most ni + 1 long: fast_ok), and ni bytes of wall
 * flags.  Offsets and lengths in floats. */
typedef struct scratch_layout {
	size_t disp;            /* d[c] at disp + c ni */
	size_t trace;           /* trace_row's w */
	size_t near;            /* the flags */
	size_t per;             /* floats per thread */
} scratch_layout;

static scratch_layout
scratch_layout_of(int ni)
{
	size_t n = (size_t)ni;
	scratch_layout L;

	L.disp = 0;
	L.trace = 3 * n;
	L.near = L.trace + 4 * n + 2;   /* 3 ni + (ni + 1), and one spare */
	L.per = L.near + n / sizeof(float) + 1;
	return L;
}

/* What the passes of one advection share: the dims of the field, the
 * threads and their scratch. */
typedef struct passes {
	int n[3];
	int nthr;               /* threads of every pass */
	scratch_layout L;
	float *scratch;         /* nthr * L.per floats */
} passes;

/* Threads for a pass over n samples. */
static int
pass_threads(size_t n)
{
	int t = omp_get_max_threads();

	return n >= ADVECT_PAR_MIN && t > 1 ? t : 1;
}

/* The passes over q: 0, or -1 with err (memory). */
static int
passes_init(passes *R, const field *q, slc_err *err)
{
	R->n[0] = q->ni;
	R->n[1] = q->nj;
	R->n[2] = q->nk;
	R->nthr = pass_threads(field_count(q));
	R->L = scratch_layout_of(q->ni);
	R->scratch = slc_malloc((size_t)R->nthr * R->L.per, sizeof *R->scratch, err);
	return R->scratch ? 0 : -1;
}

/* Run a pass over every row of the field of R. */
static void
pass_run(pass *P, const passes *R)
{
	size_t limited = 0, nearc = 0;
	pass_row_fn *row = pass_row_pick();
	const scratch_layout *L = &R->L;
	int k, j, nthr = R->nthr;

	(void)nthr;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : limited, nearc) \
	num_threads(nthr) if (nthr > 1)
	for (k = 0; k < R->n[2]; k++)
		for (j = 0; j < R->n[1]; j++) {
			float *w = R->scratch + L->per * (size_t)omp_get_thread_num();
			size_t ni = (size_t)R->n[0];
			float *d[3] = { w + L->disp, w + L->disp + ni, w + L->disp + 2 * ni };

			row(P, R->n[0], j, k, d, w + L->trace, (unsigned char *)(w + L->near),
			    &limited, &nearc);
		}
	P->limited += limited;
	P->near += nearc;
}

void
advect_sl(const macgrid *vel, double dt, const field *q, field *out,
	  float *lo, float *hi)
{
	tracer T;
	pass P;
	passes R;
	slc_err err;

	/* without memory for the scratch, the general path needs none */
	if (!fast_ok(vel, q) || passes_init(&R, q, &err)) {
		advect_sl_any(vel, dt, q, out, lo, hi);
		return;
	}
	tracer_init(&T, vel, q, dt);
	memset(&P, 0, sizeof P);
	P.kind = PASS_SL;
	P.T = &T;
	rowf_init(&P.Q, q);
	P.out = out->a;
	P.lo = lo;
	P.hi = hi;
	pass_run(&P, &R);
	free(R.scratch);
}

/* --- the schemes (thesis §2.3, §2.4) -------------------------------- */

/* thesis §2.3: one semi-Lagrangian step, phi^{n+1} = A(phi^n). */
static void
scheme_sl(const macgrid *vel, double dt, const field *q, field *out, const passes *R,
	  advect_stats *st)
{
	tracer T;
	pass P;

	tracer_init(&T, vel, q, dt);
	memset(&P, 0, sizeof P);
	P.kind = PASS_SL;
	P.T = &T;
	rowf_init(&P.Q, q);
	P.out = out->a;
	pass_run(&P, R);
	if (st)
		st->samples += field_count(q);
}

/* What MacCormack and BFECC share: the first step phi_hat^{n+1} =
 * A(phi^n) into hat with the §2.7 limiter bounds (P set up for it; the
 * lower bounds are kept in out: the last pass reads each one just before
 * it writes that sample's result over it), the backward characteristics
 * Tb, the wall reversion W of the last pass (§2.9), and hat as a field
 * fh with q's placement. */
typedef struct second_order {
	tracer Tf, Tb;
	walls W;
	pass P;
	float *hi, *hat;
	field fh;
} second_order;

/* Take the buffers of C from o->pool and set up the first step.  0, or
 * -1 with err (memory); second_order_end frees C either way. */
static int
second_order_begin(second_order *C, const macgrid *vel, double dt, const field *q,
		   field *out, const advect_opts *o, slc_err *err)
{
	size_t n = field_count(q);

	memset(C, 0, sizeof *C);
	tracer_init(&C->Tf, vel, q, dt);
	C->P.T = &C->Tf;
	C->P.limiter = o->limiter;
	rowf_init(&C->P.Q, q);
	if (o->limiter != ADVECT_LIMIT_NONE) {
		C->P.lo = out->a;
		if (!(C->P.hi = C->hi = advect_pool_take(o->pool, n, err)))
			return -1;
	}
	if (!(C->hat = advect_pool_take(o->pool, n, err)))
		return -1;
	tracer_init(&C->Tb, vel, q, -dt);
	if (walls_init(&C->W, vel, q, dt, o, err))
		return -1;
	C->fh = *q;
	C->fh.a = C->hat;
	C->fh.owned = 0;
	/* thesis §2.4: phi_hat^{n+1} = A(phi^n), with the §2.7 bounds */
	C->P.kind = PASS_SL;
	C->P.out = C->hat;
	return 0;
}

/* After the first step: the correction passes read phi^n, the first
 * order result and the wall reversion. */
static void
second_order_correct(second_order *C, const field *q)
{
	C->P.W = &C->W;
	C->P.q0 = q->a;
	C->P.first = C->hat;
}

/* The counts of the passes into st (may be NULL) and C freed. */
static void
second_order_end(second_order *C, const advect_opts *o, size_t n, advect_stats *st)
{
	if (st) {
		st->samples += n;
		st->limited += C->P.limited;
		st->near_wall += C->P.near;
	}
	advect_pool_give(o->pool, C->hi);
	advect_pool_give(o->pool, C->hat);
	free(C->W.nearx);
}

/* thesis §2.4, MacCormack: phi_hat^{n+1} = A(phi^n), phi_hat^n =
 * A^R(phi_hat^{n+1}), phi^{n+1} = phi_hat^{n+1} - (phi_hat^n - phi^n)/2,
 * limited (§2.7) and first order near walls (§2.9); the back step and
 * the correction are one pass. */
static int
scheme_maccormack(const macgrid *vel, double dt, const field *q, field *out,
		  const advect_opts *o, const passes *R, advect_stats *st, slc_err *err)
{
	second_order C;
	int rc = -1;

	if (!second_order_begin(&C, vel, dt, q, out, o, err)) {
		pass_run(&C.P, R);
		second_order_correct(&C, q);
		C.P.kind = PASS_MC;
		C.P.T = &C.Tb;
		rowf_init(&C.P.Q, &C.fh);
		C.P.out = out->a;
		pass_run(&C.P, R);
		rc = 0;
	}
	second_order_end(&C, o, rc ? 0 : field_count(q), rc ? NULL : st);
	return rc;
}

/* thesis §2.4, BFECC: phi_hat^{n+1} = A(phi^n), phi_hat^n =
 * A^R(phi_hat^{n+1}), e = (phi_hat^n - phi^n)/2, phi_bar^n = phi^n - e
 * (the back step and e in one pass, into bar), phi^{n+1} = A(phi_bar^n),
 * limited (§2.7) and first order near walls (§2.9).  The first and the
 * last step trace the same characteristics: the last one reads the feet
 * the first one kept. */
static int
scheme_bfecc(const macgrid *vel, double dt, const field *q, field *out,
	     const advect_opts *o, const passes *R, advect_stats *st, slc_err *err)
{
	size_t n = field_count(q);
	float *feet[3] = { NULL, NULL, NULL }, *bar = NULL;
	second_order C;
	int rc = -1, a;

	if (second_order_begin(&C, vel, dt, q, out, o, err))
		goto done;
	for (a = 0; a < 3; a++)
		if (!(feet[a] = advect_pool_take(o->pool, n, err)))
			goto done;
	if (!(bar = advect_pool_take(o->pool, n, err)))
		goto done;
	memcpy(C.P.feet, feet, sizeof feet);
	pass_run(&C.P, R);
	second_order_correct(&C, q);
	C.P.kind = PASS_BF_BACK;
	C.P.T = &C.Tb;
	rowf_init(&C.P.Q, &C.fh);
	C.P.out = bar;
	C.P.feet[0] = C.P.feet[1] = C.P.feet[2] = NULL;
	pass_run(&C.P, R);
	C.P.kind = PASS_BF_FWD;
	C.P.Q.a = bar;
	C.P.out = out->a;
	memcpy(C.P.feet, feet, sizeof feet);
	pass_run(&C.P, R);
	rc = 0;
done:
	second_order_end(&C, o, rc ? 0 : n, rc ? NULL : st);
	advect_pool_give(o->pool, bar);
	for (a = 0; a < 3; a++)
		advect_pool_give(o->pool, feet[a]);
	return rc;
}

int
advect_field(const macgrid *vel, double dt, const field *q, field *out,
	     const advect_opts *o, advect_stats *st, slc_err *err)
{
	passes R;
	int rc = 0;

	if (!field_same_place(out, q, &slc_place_exact))
		return slc_fail(err, "advect: output placement differs from the input");
	if (o->scheme != ADVECT_SL && o->scheme != ADVECT_MACCORMACK &&
	    o->scheme != ADVECT_BFECC)
		return slc_fail(err, "advect: unknown scheme %d", o->scheme);
	if (!fast_ok(vel, q))
		rc = advect_field_any(vel, dt, q, out, o, st, err);
	else if (passes_init(&R, q, err))
		return -1;
	else {
		if (o->scheme == ADVECT_SL)
			scheme_sl(vel, dt, q, out, &R, st);
		else if (o->scheme == ADVECT_MACCORMACK)
			rc = scheme_maccormack(vel, dt, q, out, o, &R, st, err);
		else
			rc = scheme_bfecc(vel, dt, q, out, o, &R, st, err);
		free(R.scratch);
	}
	/* guendelman2005 §4.1: one-sided next to thin shells */
	if (!rc && o->shell)
		rc = advect_shell_fix(vel, dt, q, out, o, err);
	return rc;
}
