/* mg.c: the multigrid V-cycle preconditioner (see mg.h).
 *
 * Storage is single precision (the preconditioner only has to be close to
 * A^-1; conjugate gradient keeps its vectors and residual in double), and
 * every sweep runs row by row with the neighbour rows as pointers (a row
 * of zeros outside the grid), so the inner loop over i has no branch and
 * vectorizes. */
#include "mg.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define MG_MAXLEV 16
/* Damped Jacobi weight 2/3 and sweeps before / after the coarse
 * correction on the finest level (twice as many on the coarser ones,
 * which cost an eighth as much). */
#define MG_OMEGA 0.6666667f
#define MG_PRE 2
/* Symmetric Gauss-Seidel sweep pairs that solve the coarsest level, and
 * its largest size. */
#define MG_COARSE_SWEEPS 20
#define MG_COARSE_CELLS 64
/* Width of the boundary band (cells) and its Gauss-Seidel sweeps before
 * and after the coarse correction (McAdams et al. 2010 §4: boundary
 * smoothing). */
#define MG_BAND 1
#define MG_BAND_SWEEPS 2

typedef struct level {
	int ni, nj, nk;
	size_t n, sj, sk;
	const uint8_t *type;        /* PS_* (level 0: the system's) */
	uint8_t *otype;             /* owned type of a coarse level */
	float *rw[3];               /* face weight between c and c+1 (setup) */
	const float *cw[3];         /* coupling to c+1 when both are fluid */
	float *ocw[3];              /* owned couplings of a coarse level */
	float *diag;                /* 0 off the fluid cells */
	uint8_t *full;              /* coarse levels: the 3x3x3 cells around are fluid */
	int open;                   /* box faces open (PS_BC_OPEN): p = 0 outside */
	float *x, *b, *t;
	size_t nband;               /* fluid cells near a boundary, in grid order */
	size_t *band;
} level;

struct mg {
	int nl;
	float *zero;                /* a row of zeros, the longest level's */
	float *rowbuf;              /* two finest-level rows per thread */
	int nthread;
	level lv[MG_MAXLEV];
};

static void
level_free(level *L)
{
	free(L->otype);
	free(L->diag);
	for (int a = 0; a < 3; a++) {
		free(L->ocw[a]);
		free(L->rw[a]);
	}
	free(L->band);
	free(L->full);
	free(L->x);
	free(L->b);
	free(L->t);
	memset(L, 0, sizeof *L);
}

static void
level_dims(level *L, int ni, int nj, int nk)
{
	L->ni = ni, L->nj = nj, L->nk = nk;
	L->sj = (size_t)ni, L->sk = (size_t)ni * nj;
	L->n = L->sk * nk;
}

/* Build level C from the finer level F (rw and type of F are needed). */
static int
coarsen(const level *F, level *C, slc_err *err)
{
	level_dims(C, (F->ni + 1) / 2, (F->nj + 1) / 2, (F->nk + 1) / 2);
	C->open = F->open;
	C->type = C->otype = slc_calloc(C->n, 1, err);
	C->diag = slc_calloc(C->n, sizeof *C->diag, err);
	for (int a = 0; a < 3; a++) {
		C->rw[a] = slc_calloc(C->n, sizeof *C->rw[a], err);
		C->cw[a] = C->ocw[a] = slc_calloc(C->n, sizeof *C->ocw[a], err);
		if (!C->rw[a] || !C->ocw[a])
			return -1;
	}
	if (!C->otype || !C->diag)
		return -1;
	size_t fj = F->sj, fk = F->sk, cj = C->sj, ck = C->sk;
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
	for (int K = 0; K < C->nk; K++)
		for (int J = 0; J < C->nj; J++)
			for (int I = 0; I < C->ni; I++) {
				size_t c = (size_t)I + cj * J + ck * K;
				int air = 0, fluid = 0;
				for (int d = 0; d < 8; d++) {
					int i = 2 * I + (d & 1), j = 2 * J + (d >> 1 & 1),
					    k = 2 * K + (d >> 2 & 1);
					if (i >= F->ni || j >= F->nj || k >= F->nk)
						continue;
					uint8_t t = F->type[(size_t)i + fj * j + fk * k];
					air |= t == PS_AIR;
					fluid |= t == PS_FLUID;
				}
				C->otype[c] = air ? PS_AIR : fluid ? PS_FLUID : PS_OFF;
				/* coarse face to the +a neighbour: the fluid fraction
				 * of its (2dx)^3 control volume (batty2007 §2.1's
				 * weight, one level up), which the fine face control
				 * volumes tile: along a, the fine faces at fine planes
				 * 2I+1, 2I+2, 2I+3 cover 1/4, 1/2, 1/4 of it; across
				 * a, the 2x2 fine columns cover a quarter each.
				 * Sampling the middle plane alone lets a thin solid
				 * or a cut cell next to it vanish from the coarse
				 * operator, and the V-cycle then grows with n. */
				int N[3] = {C->ni, C->nj, C->nk}, P[3] = {I, J, K};
				int Fd[3] = {F->ni, F->nj, F->nk};
				for (int a = 0; a < 3; a++) {
					if (P[a] + 1 >= N[a])
						continue;
					double s = 0;
					int cnt = 0;
					int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
					for (int e = 0; e < 4; e++) {
						int q[3];
						q[a] = 2 * P[a] + 1;
						q[b1] = 2 * P[b1] + (e & 1);
						q[b2] = 2 * P[b2] + (e >> 1);
						if (q[a] + 1 >= Fd[a] || q[b1] >= Fd[b1] || q[b2] >= Fd[b2])
							continue;
						size_t fq = (size_t)q[0] + fj * q[1] + fk * q[2];
						size_t sa = a == 0 ? 1 : a == 1 ? fj : fk;
						double w1 = F->rw[a][fq];
						double w0 = F->rw[a][fq - sa];
						double w2 = q[a] + 2 < Fd[a] ? F->rw[a][fq + sa] : w1;
						s += 0.25 * w0 + 0.5 * w1 + 0.25 * w2;
						cnt++;
					}
					C->rw[a][c] = cnt ? (float)(s / cnt) : 0;
				}
			}
	/* couplings and diagonal (theta = 1 on coarse levels) */
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
	for (int K = 0; K < C->nk; K++)
		for (int J = 0; J < C->nj; J++)
			for (int I = 0; I < C->ni; I++) {
				size_t c = (size_t)I + cj * J + ck * K;
				if (C->otype[c] != PS_FLUID)
					continue;
				int P[3] = {I, J, K}, N[3] = {C->ni, C->nj, C->nk};
				size_t st[3] = {1, cj, ck};
				double d = 0;
				for (int a = 0; a < 3; a++) {
					if (P[a] + 1 < N[a]) {
						uint8_t t = C->otype[c + st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c];
						if (t == PS_FLUID)
							C->ocw[a][c] = C->rw[a][c];
					}
					if (P[a] > 0) {
						uint8_t t = C->otype[c - st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c - st[a]];
					}
					/* an open box face (pressure 0 outside) */
					if (C->open && N[a] > 1)
						d += (P[a] == 0) + (P[a] + 1 == N[a]);
				}
				C->diag[c] = (float)d;
			}
	if (!(C->full = slc_calloc(C->n, 1, err)))
		return -1;
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
	for (int K = 1; K < C->nk - 1; K++)
		for (int J = 1; J < C->nj - 1; J++)
			for (int I = 1; I < C->ni - 1; I++) {
				int all = 1;
				for (int e = 0; e < 27 && all; e++)
					all = C->otype[(size_t)(I + e % 3 - 1) + cj * (size_t)(J + e / 3 % 3 - 1) +
						       ck * (size_t)(K + e / 9 - 1)] == PS_FLUID;
				C->full[(size_t)I + cj * J + ck * K] = (uint8_t)all;
			}
	return 0;
}

/* The boundary band of McAdams et al. 2010 §4: fluid cells within
 * MG_BAND cells of a cell that is not fluid or of a face that is not fully
 * open; the smoother adds Gauss-Seidel sweeps there, where the
 * rediscretized coarse operators are least accurate. */
static int
band_build(level *L, slc_err *err)
{
	size_t sj = L->sj, sk = L->sk;
	uint8_t *mark = slc_calloc(L->n, 1, err);

	if (!mark)
		return -1;
	for (int k = 0; k < L->nk; k++)
		for (int j = 0; j < L->nj; j++)
			for (int i = 0; i < L->ni; i++) {
				size_t c = (size_t)i + sj * j + sk * k;
				if (L->type[c] != PS_FLUID)
					continue;
				int edge = 0;
				int P[3] = {i, j, k}, N[3] = {L->ni, L->nj, L->nk};
				size_t st[3] = {1, sj, sk};
				for (int a = 0; a < 3; a++) {
					if (P[a] + 1 < N[a])
						edge |= L->cw[a][c] < 1;
					if (P[a] > 0)
						edge |= L->cw[a][c - st[a]] < 1;
				}
				if (edge)
					for (int dk = -MG_BAND; dk <= MG_BAND; dk++)
						for (int dj = -MG_BAND; dj <= MG_BAND; dj++)
							for (int di = -MG_BAND; di <= MG_BAND; di++) {
								int q[3] = {i + di, j + dj, k + dk};
								if (q[0] < 0 || q[1] < 0 || q[2] < 0 ||
								    q[0] >= L->ni || q[1] >= L->nj || q[2] >= L->nk)
									continue;
								mark[(size_t)q[0] + sj * q[1] + sk * q[2]] = 1;
							}
			}
	size_t m = 0;
	for (size_t c = 0; c < L->n; c++)
		m += mark[c] && L->type[c] == PS_FLUID && L->diag[c] > 0;
	L->band = slc_calloc(m ? m : 1, sizeof *L->band, err);
	if (!L->band) {
		free(mark);
		return -1;
	}
	L->nband = 0;
	for (size_t c = 0; c < L->n; c++)
		if (mark[c] && L->type[c] == PS_FLUID && L->diag[c] > 0)
			L->band[L->nband++] = c;
	free(mark);
	return 0;
}

mg *
mg_new(const psys *ps, slc_err *err)
{
	mg *m = slc_calloc(1, sizeof *m, err);
	if (!m)
		return NULL;
	level *L = &m->lv[0];
	level_dims(L, ps->ni, ps->nj, ps->nk);
	L->type = ps->type;
	L->open = ps->bc == PS_BC_OPEN;
	L->cw[0] = ps->cx, L->cw[1] = ps->cy, L->cw[2] = ps->cz;
	m->nl = 1;
	m->nthread = omp_get_max_threads();
	if (!(m->zero = slc_calloc((size_t)ps->ni, sizeof *m->zero, err)) ||
	    !(m->rowbuf = slc_calloc(2 * (size_t)ps->ni * (size_t)m->nthread,
				     sizeof *m->rowbuf, err)) ||
	    !(L->diag = slc_calloc(L->n, sizeof *L->diag, err)))
		goto fail;
	for (int a = 0; a < 3; a++)
		if (!(L->rw[a] = slc_calloc(L->n, sizeof *L->rw[a], err)))
			goto fail;
	const float *w[3] = {ps->wx, ps->wy, ps->wz};
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * k);
				L->diag[c] = ps->type[c] == PS_FLUID ? (float)ps->diag[c] : 0;
				if (i + 1 < ni)
					L->rw[0][c] = w[0][(size_t)(i + 1) + (size_t)(ni + 1) * ((size_t)j + (size_t)nj * k)];
				if (j + 1 < nj)
					L->rw[1][c] = w[1][(size_t)i + (size_t)ni * ((size_t)(j + 1) + (size_t)(nj + 1) * k)];
				if (k + 1 < nk)
					L->rw[2][c] = w[2][(size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * (k + 1))];
			}
	for (;;) {
		level *F = &m->lv[m->nl - 1];
		if (!(F->x = slc_calloc(F->n, sizeof *F->x, err)) ||
		    !(F->b = slc_calloc(F->n, sizeof *F->b, err)) ||
		    !(F->t = slc_calloc(F->n, sizeof *F->t, err)) ||
		    band_build(F, err))
			goto fail;
		/* an axis of one cell (a 2D grid) is not coarsened */
		if (m->nl == MG_MAXLEV || F->n <= MG_COARSE_CELLS ||
		    (F->ni < 4 && F->nj < 4 && F->nk < 4))
			break;
		if (coarsen(F, &m->lv[m->nl], err)) {
			m->nl++;
			goto fail;
		}
		m->nl++;
		for (int a = 0; a < 3; a++) {   /* F's weights are done with */
			free(F->rw[a]);
			F->rw[a] = NULL;
		}
	}
	return m;
fail:
	mg_free(m);
	return NULL;
}

int
mg_levels(const mg *m)
{
	return m->nl;
}

void
mg_free(mg *m)
{
	if (!m)
		return;
	for (int l = 0; l < m->nl; l++)
		level_free(&m->lv[l]);
	free(m->zero);
	free(m->rowbuf);
	free(m);
}

/* The rows around row (j, k) of level L: x and the couplings of the rows
 * j-1, j+1, k-1, k+1, or the zero row outside the grid. */
typedef struct rows {
	const float *x, *xjm, *xjp, *xkm, *xkp;
	const float *cx, *cy, *cz, *cym, *czm;
} rows;

static inline void
rows_at(const level *L, const float *zero, const float *x, int j, int k, rows *R)
{
	size_t c = L->sj * j + L->sk * k;

	R->x = x + c;
	R->xjm = j > 0 ? x + c - L->sj : zero;
	R->xjp = j < L->nj - 1 ? x + c + L->sj : zero;
	R->xkm = k > 0 ? x + c - L->sk : zero;
	R->xkp = k < L->nk - 1 ? x + c + L->sk : zero;
	R->cx = L->cw[0] + c;
	R->cy = L->cw[1] + c;
	R->cz = L->cw[2] + c;
	R->cym = j > 0 ? L->cw[1] + c - L->sj : zero;
	R->czm = k > 0 ? L->cw[2] + c - L->sk : zero;
}

/* Sum of the couplings times the neighbours' x at cell i of the row
 * (without the i-1, i+1 terms). */
#define MG_OFF_JK(R, i) ((R)->cym[i] * (R)->xjm[i] + (R)->cy[i] * (R)->xjp[i] + \
			 (R)->czm[i] * (R)->xkm[i] + (R)->cz[i] * (R)->xkp[i])

static inline float
off_edge(const rows *R, int i, int ni)
{
	float s = MG_OFF_JK(R, i);

	if (i > 0)
		s += R->cx[i - 1] * R->x[i - 1];
	if (i < ni - 1)
		s += R->cx[i] * R->x[i + 1];
	return s;
}

/* One damped Jacobi sweep: t = x + omega D^-1 (b - A x), then x <-> t. */
static void
jacobi(level *L, const float *zero)
{
	int ni = L->ni;

#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (int k = 0; k < L->nk; k++)
		for (int j = 0; j < L->nj; j++) {
			rows R;
			rows_at(L, zero, L->x, j, k, &R);
			size_t c0 = L->sj * j + L->sk * k;
			const float *d = L->diag + c0, *b = L->b + c0, *x = R.x;
			float *t = L->t + c0;
			for (int i = 0; i < ni; i += ni - 1 > 0 ? ni - 1 : 1) {
				float s = off_edge(&R, i, ni);
				t[i] = d[i] > 0 ? x[i] + MG_OMEGA * (b[i] - d[i] * x[i] + s) / d[i] : 0;
			}
#pragma omp simd
			for (int i = 1; i < ni - 1; i++) {
				float s = MG_OFF_JK(&R, i) + R.cx[i - 1] * x[i - 1] + R.cx[i] * x[i + 1];
				t[i] = d[i] > 0 ? x[i] + MG_OMEGA * (b[i] - d[i] * x[i] + s) / d[i] : 0;
			}
		}
	float *s = L->x;
	L->x = L->t;
	L->t = s;
}

/* Residual of the row (j, k) into out[0..ni). */
static inline void
residual_row(const level *L, const float *zero, int j, int k, float *out)
{
	int ni = L->ni;
	rows R;

	rows_at(L, zero, L->x, j, k, &R);
	size_t c0 = L->sj * j + L->sk * k;
	const float *d = L->diag + c0, *b = L->b + c0, *x = R.x;
	for (int i = 0; i < ni; i += ni - 1 > 0 ? ni - 1 : 1)
		out[i] = d[i] > 0 ? b[i] - d[i] * x[i] + off_edge(&R, i, ni) : 0;
#pragma omp simd
	for (int i = 1; i < ni - 1; i++) {
		float s = MG_OFF_JK(&R, i) + R.cx[i - 1] * x[i - 1] + R.cx[i] * x[i + 1];
		out[i] = d[i] > 0 ? b[i] - d[i] * x[i] + s : 0;
	}
}

/* Trilinear prolongation stencil of fine cell (i,j,k) onto coarse level C:
 * up to 8 (coarse cell, weight) pairs.  Per axis the parent gets 3/4 and
 * the next coarse cell towards the fine cell 1/4; an air corner
 * contributes 0 (p = 0 there); a solid or out-of-grid corner is replaced
 * by the parent (a Neumann wall reflects). */
static inline int
stencil(const level *C, int i, int j, int k, size_t tg[8], float wt[8])
{
	int I[2], J[2], K[2], m = 0;
	size_t sj = C->sj, sk = C->sk;

	I[0] = i >> 1, J[0] = j >> 1, K[0] = k >> 1;
	I[1] = I[0] + (i & 1 ? 1 : -1);
	J[1] = J[0] + (j & 1 ? 1 : -1);
	K[1] = K[0] + (k & 1 ? 1 : -1);
	size_t parent = (size_t)I[0] + sj * J[0] + sk * K[0];
	if (C->full[parent]) {          /* every corner is a fluid cell */
		size_t di = (size_t)(I[1] - I[0]), dj = sj * (size_t)(J[1] - J[0]);
		size_t dk = sk * (size_t)(K[1] - K[0]);
		static const float w[8] = {27.0f / 64, 9.0f / 64, 9.0f / 64, 3.0f / 64,
					   9.0f / 64, 3.0f / 64, 3.0f / 64, 1.0f / 64};
		for (int e = 0; e < 8; e++) {
			tg[e] = parent + (e & 1 ? di : 0) + (e & 2 ? dj : 0) + (e & 4 ? dk : 0);
			wt[e] = w[e];
		}
		return 8;
	}
	int oi = I[1] >= 0 && I[1] < C->ni, oj = J[1] >= 0 && J[1] < C->nj;
	int ok = K[1] >= 0 && K[1] < C->nk;
	static const float w1[2] = {0.75f, 0.25f};

	for (int e = 0; e < 8; e++) {
		int a = e & 1, b = e >> 1 & 1, c = e >> 2;
		float w = w1[a] * w1[b] * w1[c];
		size_t q = parent;
		if ((!a || oi) && (!b || oj) && (!c || ok)) {
			q = (size_t)I[a] + sj * J[b] + sk * K[c];
			uint8_t t = C->type[q];
			if (t == PS_AIR)
				continue;
			if (t == PS_OFF)
				q = parent;
		}
		if (C->type[q] != PS_FLUID)
			continue;
		tg[m] = q;
		wt[m++] = w;
	}
	return m;
}

/* The coarse rows a fine row (j, k) interpolates from: (J0, K0) its
 * parents' row and (J1, K1) the next towards it; 1 when every one of them
 * is inside the grid (otherwise no parent of the row is full). */
static inline int
coarse_rows(const level *C, int j, int k, size_t cr[4])
{
	int J0 = j >> 1, K0 = k >> 1;
	int J1 = J0 + (j & 1 ? 1 : -1), K1 = K0 + (k & 1 ? 1 : -1);

	if (J1 < 0 || J1 >= C->nj || K1 < 0 || K1 >= C->nk)
		return 0;
	cr[0] = C->sj * J0 + C->sk * K0, cr[1] = C->sj * J1 + C->sk * K0;
	cr[2] = C->sj * J0 + C->sk * K1, cr[3] = C->sj * J1 + C->sk * K1;
	return 1;
}

/* Weights of the four coarse rows of coarse_rows (3/4 or 1/4 per axis). */
static const float row_w[4] = {9.0f / 16, 3.0f / 16, 3.0f / 16, 1.0f / 16};

/* Residual of F, restricted: C->b = 4 R (b - A x) with R = P^T / 2^d (the
 * factor 4 = (2dx)^2 / dx^2 since every level's operator is the unscaled
 * rediscretization).  The residual of a fine row is formed where it is
 * scattered, in three passes over the parents' K mod 3 so that no two
 * threads write the same coarse cell and each coarse sum has a fixed
 * order.  Where the parent is full, the trilinear weights are applied
 * along i first into a coarse row, then to the four coarse rows.  buf:
 * 2 F->ni floats per thread. */
static void
restrict_residual(const level *F, level *C, const float *zero, float *rowbuf,
		  int nthread)
{
	/* 4 / 2^d over the d axes that are coarsened: 0.5 in 3D, 1 in 2D */
	int d = (F->ni > 1) + (F->nj > 1) + (F->nk > 1);
	float sc = 4.0f / (float)(1 << d);

	memset(C->b, 0, C->n * sizeof *C->b);
	for (int pass = 0; pass < 3; pass++) {
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
		for (int K = pass; K < C->nk; K += 3) {
			int th = omp_get_thread_num();
			float *r = rowbuf + 2 * (size_t)F->ni * (size_t)(th < nthread ? th : 0);
			float *acc = r + F->ni;
			for (int k = 2 * K; k < 2 * K + 2 && k < F->nk; k++)
				for (int j = 0; j < F->nj; j++) {
					size_t cr[4];
					int fast = coarse_rows(C, j, k, cr);
					const uint8_t *full = C->full + (fast ? cr[0] : 0);
					residual_row(F, zero, j, k, r);
					if (fast)
						memset(acc, 0, (size_t)C->ni * sizeof *acc);
					for (int i = 0; i < F->ni; i++) {
						if (r[i] == 0)
							continue;
						if (fast && full[i >> 1]) {
							acc[i >> 1] += 0.75f * r[i];
							acc[(i >> 1) + (i & 1 ? 1 : -1)] += 0.25f * r[i];
							continue;
						}
						size_t tg[8];
						float wt[8];
						int m = stencil(C, i, j, k, tg, wt);
						for (int e = 0; e < m; e++)
							C->b[tg[e]] += sc * wt[e] * r[i];
					}
					if (!fast)
						continue;
					for (int e = 0; e < 4; e++) {
						float *cb = C->b + cr[e], we = sc * row_w[e];
#pragma omp simd
						for (int I = 0; I < C->ni; I++)
							cb[I] += we * acc[I];
					}
				}
		}
	}
}

/* F->x += P C->x; where the parent is full, the four coarse rows are
 * combined first and then interpolated along i.  buf: F->ni floats per
 * thread. */
static void
prolong_add(level *F, const level *C, float *rowbuf, int nthread)
{
#pragma omp parallel for schedule(static) if (F->n > PS_PAR_MIN)
	for (int k = 0; k < F->nk; k++) {
		int th = omp_get_thread_num();
		float *cx = rowbuf + 2 * (size_t)F->ni * (size_t)(th < nthread ? th : 0);
		for (int j = 0; j < F->nj; j++) {
			size_t c0 = F->sj * j + F->sk * k, cr[4];
			int fast = coarse_rows(C, j, k, cr);
			const uint8_t *full = C->full + (fast ? cr[0] : 0);
			const float *d = F->diag + c0;
			float *x = F->x + c0;
			if (fast) {
				const float *a = C->x + cr[0], *b = C->x + cr[1];
				const float *e = C->x + cr[2], *f = C->x + cr[3];
#pragma omp simd
				for (int I = 0; I < C->ni; I++)
					cx[I] = row_w[0] * a[I] + row_w[1] * b[I] +
						row_w[2] * e[I] + row_w[3] * f[I];
			}
			for (int i = 0; i < F->ni; i++) {
				if (!(d[i] > 0))
					continue;
				if (fast && full[i >> 1]) {
					x[i] += 0.75f * cx[i >> 1] + 0.25f * cx[(i >> 1) + (i & 1 ? 1 : -1)];
					continue;
				}
				size_t tg[8];
				float wt[8], s = 0;
				int m = stencil(C, i, j, k, tg, wt);
				for (int e = 0; e < m; e++)
					s += wt[e] * C->x[tg[e]];
				x[i] += s;
			}
		}
	}
}

/* One Gauss-Seidel update of cell c. */
static inline void
gs_cell(level *L, size_t c)
{
	int i = (int)(c % L->sj);
	int j = (int)(c / L->sj % (size_t)L->nj);
	int k = (int)(c / L->sk);
	const float *x = L->x;
	float s = L->b[c] - L->diag[c] * x[c];

	if (i > 0)
		s += L->cw[0][c - 1] * x[c - 1];
	if (i < L->ni - 1)
		s += L->cw[0][c] * x[c + 1];
	if (j > 0)
		s += L->cw[1][c - L->sj] * x[c - L->sj];
	if (j < L->nj - 1)
		s += L->cw[1][c] * x[c + L->sj];
	if (k > 0)
		s += L->cw[2][c - L->sk] * x[c - L->sk];
	if (k < L->nk - 1)
		s += L->cw[2][c] * x[c + L->sk];
	L->x[c] += s / L->diag[c];
}

/* Gauss-Seidel over the boundary band, forward or backward (the adjoint):
 * the pre-smoother is band-forward then Jacobi, the post-smoother Jacobi
 * then band-backward, so the V-cycle stays symmetric. */
static void
band_gs(level *L, int backward)
{
	for (int s = 0; s < MG_BAND_SWEEPS; s++)
		for (size_t q = 0; q < L->nband; q++)
			gs_cell(L, L->band[backward ? L->nband - 1 - q : q]);
}

/* Coarsest level: symmetric Gauss-Seidel from zero, a fixed number of
 * forward/backward pairs (a symmetric operator). */
static void
coarse_solve(level *L)
{
	memset(L->x, 0, L->n * sizeof *L->x);
	for (int s = 0; s < 2 * MG_COARSE_SWEEPS; s++)
		for (size_t q = 0; q < L->n; q++) {
			size_t c = s & 1 ? L->n - 1 - q : q;
			if (L->diag[c] > 0)
				gs_cell(L, c);
		}
}

static void
vcycle(mg *m, int l)
{
	level *L = &m->lv[l];

	if (l == m->nl - 1) {
		coarse_solve(L);
		return;
	}
	memset(L->x, 0, L->n * sizeof *L->x);
	band_gs(L, 0);
	for (int s = 0; s < MG_PRE << (l > 0); s++)   /* coarse sweeps are cheap */
		jacobi(L, m->zero);
	restrict_residual(L, &m->lv[l + 1], m->zero, m->rowbuf, m->nthread);
	vcycle(m, l + 1);
	prolong_add(L, &m->lv[l + 1], m->rowbuf, m->nthread);
	for (int s = 0; s < MG_PRE << (l > 0); s++)
		jacobi(L, m->zero);
	band_gs(L, 1);
}

void
mg_apply(mg *m, const double *r, double *z)
{
	level *L = &m->lv[0];

#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (size_t c = 0; c < L->n; c++)
		L->b[c] = (float)r[c];
	vcycle(m, 0);
#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (size_t c = 0; c < L->n; c++)
		z[c] = L->x[c];
}
