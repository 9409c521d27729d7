/* mg.c: the multigrid V-cycle preconditioner (see mg.h). */
#include "mg.h"

#include <stdlib.h>
#include <string.h>

#define MG_MAXLEV 16
/* Damped Jacobi weight 2/3 (optimal smoothing factor for the 7-point
 * Laplacian) and sweeps before / after the coarse correction on the finest
 * level (twice as many on the coarser ones). */
#define MG_OMEGA (2.0 / 3.0)
#define MG_PRE 2
#define MG_POST 2
/* Symmetric Gauss-Seidel sweep pairs that solve the coarsest level, and
 * its largest size. */
#define MG_COARSE_SWEEPS 20
#define MG_COARSE_CELLS 64
/* Width of the boundary band (cells) and its Gauss-Seidel sweeps. */
#define MG_BAND 1
#define MG_BAND_SWEEPS 4

typedef struct level {
	int ni, nj, nk;
	size_t n;
	uint8_t *type;
	float *rw[3];       /* face weight between c and c+1 (any types) */
	float *cw[3];       /* coupling: rw if both cells are fluid */
	uint8_t *full;      /* coarse levels: the 3x3x3 cells around are fluid */
	int open;           /* box faces open (PS_BC_OPEN): p = 0 outside */
	double *diag;
	double *x, *b, *t;
	size_t nband;       /* fluid cells near a boundary, in grid order */
	size_t *band;
	int owned;          /* level > 0: type, cw, diag are ours */
} level;

struct mg {
	int nl;
	level lv[MG_MAXLEV];
};

static void
level_free(level *L)
{
	if (L->owned) {
		free(L->type);
		free(L->diag);
		for (int a = 0; a < 3; a++)
			free(L->cw[a]);
	}
	for (int a = 0; a < 3; a++)
		free(L->rw[a]);
	free(L->band);
	free(L->full);
	free(L->x);
	free(L->b);
	free(L->t);
	memset(L, 0, sizeof *L);
}

/* Build level C from the finer level F (rw and type of F are needed). */
static int
coarsen(const level *F, level *C, slc_err *err)
{
	C->ni = (F->ni + 1) / 2, C->nj = (F->nj + 1) / 2, C->nk = (F->nk + 1) / 2;
	C->n = (size_t)C->ni * C->nj * C->nk;
	C->owned = 1;
	C->open = F->open;
	C->type = slc_calloc(C->n, 1, err);
	C->diag = slc_calloc(C->n, sizeof *C->diag, err);
	for (int a = 0; a < 3; a++) {
		C->rw[a] = slc_calloc(C->n, sizeof *C->rw[a], err);
		C->cw[a] = slc_calloc(C->n, sizeof *C->cw[a], err);
		if (!C->rw[a] || !C->cw[a])
			return -1;
	}
	if (!C->type || !C->diag)
		return -1;
	size_t fj = (size_t)F->ni, fk = (size_t)F->ni * F->nj;
	size_t cj = (size_t)C->ni, ck = (size_t)C->ni * C->nj;
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
				C->type[c] = air ? PS_AIR : fluid ? PS_FLUID : PS_OFF;
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
				if (C->type[c] != PS_FLUID)
					continue;
				int P[3] = {I, J, K}, N[3] = {C->ni, C->nj, C->nk};
				size_t st[3] = {1, cj, ck};
				double d = 0;
				for (int a = 0; a < 3; a++) {
					if (P[a] + 1 < N[a]) {
						uint8_t t = C->type[c + st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c];
						if (t == PS_FLUID)
							C->cw[a][c] = C->rw[a][c];
					}
					if (P[a] > 0) {
						uint8_t t = C->type[c - st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c - st[a]];
					}
					/* an open box face (pressure 0 outside) */
					if (C->open && N[a] > 1)
						d += (P[a] == 0) + (P[a] + 1 == N[a]);
				}
				C->diag[c] = d;
			}
	if (!(C->full = slc_calloc(C->n, 1, err)))
		return -1;
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
	for (int K = 1; K < C->nk - 1; K++)
		for (int J = 1; J < C->nj - 1; J++)
			for (int I = 1; I < C->ni - 1; I++) {
				int all = 1;
				for (int e = 0; e < 27 && all; e++)
					all = C->type[(size_t)(I + e % 3 - 1) + cj * (size_t)(J + e / 3 % 3 - 1) +
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
	size_t sj = (size_t)L->ni, sk = (size_t)L->ni * L->nj;
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
		m += mark[c] && L->type[c] == PS_FLUID;
	L->band = slc_calloc(m ? m : 1, sizeof *L->band, err);
	if (!L->band) {
		free(mark);
		return -1;
	}
	L->nband = 0;
	for (size_t c = 0; c < L->n; c++)
		if (mark[c] && L->type[c] == PS_FLUID)
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
	L->ni = ps->ni, L->nj = ps->nj, L->nk = ps->nk, L->n = ps->n;
	L->type = ps->type, L->diag = ps->diag;
	L->open = ps->bc == PS_BC_OPEN;
	L->cw[0] = ps->cx, L->cw[1] = ps->cy, L->cw[2] = ps->cz;
	m->nl = 1;
	for (int a = 0; a < 3; a++)
		if (!(L->rw[a] = slc_calloc(L->n, sizeof *L->rw[a], err)))
			goto fail;
	const float *w[3] = {ps->wx, ps->wy, ps->wz};
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
#pragma omp parallel for schedule(static) if ((size_t)ni * nj * nk > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * k);
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
	free(m);
}

/* y = A_L x on fluid cells. */
static double
row(const level *L, const double *x, size_t c, int i, int j, int k)
{
	size_t sj = (size_t)L->ni, sk = (size_t)L->ni * L->nj;
	double s = L->diag[c] * x[c];

	if (i > 0)
		s -= L->cw[0][c - 1] * x[c - 1];
	if (i < L->ni - 1)
		s -= L->cw[0][c] * x[c + 1];
	if (j > 0)
		s -= L->cw[1][c - sj] * x[c - sj];
	if (j < L->nj - 1)
		s -= L->cw[1][c] * x[c + sj];
	if (k > 0)
		s -= L->cw[2][c - sk] * x[c - sk];
	if (k < L->nk - 1)
		s -= L->cw[2][c] * x[c + sk];
	return s;
}

/* One damped Jacobi sweep: x += omega D^-1 (b - A x); zero: x was 0. */
static void
jacobi(level *L, int zero)
{
	size_t sj = (size_t)L->ni, sk = (size_t)L->ni * L->nj;

#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (int k = 0; k < L->nk; k++)
		for (int j = 0; j < L->nj; j++)
			for (int i = 0; i < L->ni; i++) {
				size_t c = (size_t)i + sj * j + sk * k;
				if (L->type[c] != PS_FLUID || !(L->diag[c] > 0)) {
					L->t[c] = 0;
					continue;
				}
				double r = zero ? L->b[c] : L->b[c] - row(L, L->x, c, i, j, k);
				L->t[c] = (zero ? 0 : L->x[c]) + MG_OMEGA * r / L->diag[c];
			}
	double *s = L->x;
	L->x = L->t;
	L->t = s;
}

/* Residual t = b - A x. */
static void
residual(level *L)
{
	size_t sj = (size_t)L->ni, sk = (size_t)L->ni * L->nj;

#pragma omp parallel for schedule(static) if (L->n > PS_PAR_MIN)
	for (int k = 0; k < L->nk; k++)
		for (int j = 0; j < L->nj; j++)
			for (int i = 0; i < L->ni; i++) {
				size_t c = (size_t)i + sj * j + sk * k;
				L->t[c] = L->type[c] == PS_FLUID ?
					  L->b[c] - row(L, L->x, c, i, j, k) : 0;
			}
}

/* Trilinear prolongation stencil of fine cell (i,j,k) onto coarse level C:
 * up to 8 (coarse cell, weight) pairs.  Per axis the parent gets 3/4 and
 * the next coarse cell towards the fine cell 1/4; an air corner
 * contributes 0 (p = 0 there); a solid or out-of-grid corner is replaced
 * by the parent (a Neumann wall reflects). */
static inline int
stencil(const level *C, int i, int j, int k, size_t tg[8], double wt[8])
{
	int I[2], J[2], K[2], m = 0;
	size_t sj = (size_t)C->ni, sk = (size_t)C->ni * C->nj;

	I[0] = i >> 1, J[0] = j >> 1, K[0] = k >> 1;
	I[1] = I[0] + (i & 1 ? 1 : -1);
	J[1] = J[0] + (j & 1 ? 1 : -1);
	K[1] = K[0] + (k & 1 ? 1 : -1);
	size_t parent = (size_t)I[0] + sj * J[0] + sk * K[0];
	if (C->full[parent]) {          /* every corner is a fluid cell */
		size_t di = (size_t)(I[1] - I[0]), dj = sj * (size_t)(J[1] - J[0]);
		size_t dk = sk * (size_t)(K[1] - K[0]);
		static const double w[8] = {27.0 / 64, 9.0 / 64, 9.0 / 64, 3.0 / 64,
					    9.0 / 64, 3.0 / 64, 3.0 / 64, 1.0 / 64};
		for (int e = 0; e < 8; e++) {
			tg[e] = parent + (e & 1 ? di : 0) + (e & 2 ? dj : 0) + (e & 4 ? dk : 0);
			wt[e] = w[e];
		}
		return 8;
	}
	int oi = I[1] >= 0 && I[1] < C->ni, oj = J[1] >= 0 && J[1] < C->nj;
	int ok = K[1] >= 0 && K[1] < C->nk;
	static const double w1[2] = {0.75, 0.25};

	for (int e = 0; e < 8; e++) {
		int a = e & 1, b = e >> 1 & 1, c = e >> 2;
		double w = w1[a] * w1[b] * w1[c];
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

/* Coarse right-hand side: 4 R r with R = P^T / 2^d (the factor 4 = (2dx)^2
 * / dx^2 since every level's operator is the unscaled rediscretization).
 * Scattered in three passes over the parents' k mod 3 so that no two
 * threads write the same coarse cell and each coarse sum has a fixed
 * order. */
static void
restrict_(const level *F, level *C)
{
	size_t fj = (size_t)F->ni, fk = (size_t)F->ni * F->nj;

	/* 4 / 2^d over the d axes that are coarsened: 0.5 in 3D, 1 in 2D */
	int d = (F->ni > 1) + (F->nj > 1) + (F->nk > 1);
	double sc = 4.0 / (double)(1 << d);

	memset(C->b, 0, C->n * sizeof *C->b);
	for (int pass = 0; pass < 3; pass++) {
#pragma omp parallel for schedule(static) if (C->n > PS_PAR_MIN)
		for (int K = pass; K < C->nk; K += 3)
			for (int k = 2 * K; k < 2 * K + 2 && k < F->nk; k++)
				for (int j = 0; j < F->nj; j++)
					for (int i = 0; i < F->ni; i++) {
						size_t c = (size_t)i + fj * j + fk * k;
						if (F->type[c] != PS_FLUID || F->t[c] == 0)
							continue;
						size_t tg[8];
						double wt[8];
						int m = stencil(C, i, j, k, tg, wt);
						for (int e = 0; e < m; e++)
							C->b[tg[e]] += sc * wt[e] * F->t[c];
					}
	}
}

static void
prolong_add(level *F, const level *C)
{
	size_t fj = (size_t)F->ni, fk = (size_t)F->ni * F->nj;

#pragma omp parallel for schedule(static) if (F->n > PS_PAR_MIN)
	for (int k = 0; k < F->nk; k++)
		for (int j = 0; j < F->nj; j++)
			for (int i = 0; i < F->ni; i++) {
				size_t c = (size_t)i + fj * j + fk * k;
				if (F->type[c] != PS_FLUID)
					continue;
				size_t tg[8];
				double wt[8], s = 0;
				int m = stencil(C, i, j, k, tg, wt);
				for (int e = 0; e < m; e++)
					s += wt[e] * C->x[tg[e]];
				F->x[c] += s;
			}
}

/* Gauss-Seidel over the boundary band, forward or backward (the adjoint):
 * the pre-smoother is band-forward then Jacobi, the post-smoother Jacobi
 * then band-backward, so the V-cycle stays symmetric. */
static void
band_gs(level *L, int backward)
{
	for (int s = 0; s < MG_BAND_SWEEPS; s++)
		for (size_t q = 0; q < L->nband; q++) {
			size_t c = L->band[backward ? L->nband - 1 - q : q];
			if (!(L->diag[c] > 0))
				continue;
			int i = (int)(c % (size_t)L->ni);
			int j = (int)(c / (size_t)L->ni % (size_t)L->nj);
			int k = (int)(c / ((size_t)L->ni * L->nj));
			L->x[c] += (L->b[c] - row(L, L->x, c, i, j, k)) / L->diag[c];
		}
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
			if (L->type[c] != PS_FLUID || !(L->diag[c] > 0))
				continue;
			int i = (int)(c % (size_t)L->ni);
			int j = (int)(c / (size_t)L->ni % (size_t)L->nj);
			int k = (int)(c / ((size_t)L->ni * L->nj));
			double r = L->b[c] - row(L, L->x, c, i, j, k);
			L->x[c] += r / L->diag[c];
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
		jacobi(L, 0);
	residual(L);
	restrict_(L, &m->lv[l + 1]);
	vcycle(m, l + 1);
	prolong_add(L, &m->lv[l + 1]);
	for (int s = 0; s < MG_POST << (l > 0); s++)
		jacobi(L, 0);
	band_gs(L, 1);
}

void
mg_apply(mg *m, const double *r, double *z)
{
	level *L = &m->lv[0];

	memcpy(L->b, r, L->n * sizeof *r);
	vcycle(m, 0);
	memcpy(z, L->x, L->n * sizeof *z);
}
