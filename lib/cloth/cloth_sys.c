/* cloth_sys.c: the cloth's damping matrix in 3x3 blocks (see
 * cloth_sys.h). */
#include "cloth/cloth_sys.h"

#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"

void
cloth_sys_free(cloth_sys *S)
{
	free(S->rp);
	free(S->col);
	free(S->dpos);
	free(S->pos);
	free(S->D);
	memset(S, 0, sizeof *S);
}

/* The symmetric block n n^T in the order of cloth_sys.D. */
static inline void
sym_outer(const double *n, double *nn)
{
	nn[0] = n[0] * n[0];
	nn[1] = n[0] * n[1];
	nn[2] = n[0] * n[2];
	nn[3] = n[1] * n[1];
	nn[4] = n[1] * n[2];
	nn[5] = n[2] * n[2];
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Index of column j in row i (present by construction). */
static size_t
find_col(const cloth_sys *S, size_t i, uint32_t j)
{
	size_t lo = S->rp[i], hi = S->rp[i + 1];

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (S->col[mid] <= j)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int
cloth_sys_build(cloth_sys *S, const spring_set *s, slc_err *err)
{
	const size_t np = s->np, ninc = s->inc_off[np];
	size_t nmax, ncol, cap = 0, nd;

	memset(S, 0, sizeof *S);
	S->np = np;
	/* row i is filled in place, then sorted and made unique: before that
	 * it holds its diagonal and at most 4 columns per incidence entry, so
	 * the rows need at most np + 4 ninc columns.  The diagonal counts
	 * even for a particle without springs (an unused point, a mesh
	 * without triangles), where 4 ninc alone would be too few. */
	if (slc_mul(ninc, 4, &nmax) || nmax > SIZE_MAX - np - 1)
		return slc_fail(err, "spring count overflows");
	ncol = nmax + np;
	S->rp = slc_calloc(np + 1, sizeof *S->rp, err);
	S->col = slc_calloc(ncol + 1, sizeof *S->col, err);
	S->dpos = slc_calloc(np + 1, sizeof *S->dpos, err);
	S->pos = slc_calloc(nmax + 1, sizeof *S->pos, err);
	if (!S->rp || !S->col || !S->dpos || !S->pos) {
		cloth_sys_free(S);
		return -1;
	}
	for (size_t i = 0; i < np; i++) {
		size_t start = cap, n = 0;
		uint32_t *row = S->col + start;
		row[n++] = (uint32_t)i;
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2;
			for (int c = 0; c < s->npart[q]; c++)
				row[n++] = s->idx[4 * q + c];
		}
		qsort(row, n, sizeof *row, cmp_u32);
		size_t u = 0;
		for (size_t k = 0; k < n; k++)
			if (!u || row[k] != row[u - 1])
				row[u++] = row[k];
		cap += u;
		S->rp[i + 1] = cap;
	}
	S->nnz = cap;
	for (size_t i = 0; i < np; i++) {
		S->dpos[i] = find_col(S, i, (uint32_t)i);
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2;
			for (int c = 0; c < s->npart[q]; c++)
				S->pos[4 * e + (size_t)c] =
					find_col(S, i, s->idx[4 * q + c]);
		}
	}
	if (slc_mul(S->nnz, SYS_BLK, &nd)) {
		cloth_sys_free(S);
		return slc_fail(err, "cloth matrix: block count overflows");
	}
	if (!(S->D = slc_calloc(nd + 1, sizeof *S->D, err))) {
		cloth_sys_free(S);
		return slc_failctx(err, "cloth matrix: ");
	}
	return 0;
}

void
cloth_sys_assemble(cloth_sys *S, const spring_set *s, double drag,
		   const double *area, const double *nrm)
{
	cloth_sys_assemble_rows(S, s, drag, area, nrm, 0, S->np);
}

void
cloth_sys_assemble_rows(cloth_sys *S, const spring_set *s, double drag,
			const double *area, const double *nrm, size_t i0, size_t i1)
{
	const ptrdiff_t lo = (ptrdiff_t)i0, hi = (ptrdiff_t)i1;

#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
	for (ptrdiff_t i = lo; i < hi; i++) {
		double *Drow = S->D + SYS_BLK * S->rp[i];
		memset(Drow, 0, SYS_BLK * (S->rp[i + 1] - S->rp[i]) * sizeof *Drow);
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2, c = s->inc[e] & 3;
			const double *n = s->n + 3 * q, *al = s->alpha + 4 * q;
			double nn[SYS_BLK];
			sym_outer(n, nn);
			for (int c2 = 0; c2 < s->npart[q]; c2++) {
				double f = -s->c[q] * al[c] * al[c2];
				double *B = S->D + SYS_BLK * S->pos[4 * e + (size_t)c2];
				for (int k = 0; k < SYS_BLK; k++)
					B[k] += f * nn[k];
			}
		}
		if (drag > 0) {
			double *B = S->D + SYS_BLK * S->dpos[i], w = drag * area[i];
			double nn[SYS_BLK];
			sym_outer(nrm + 3 * i, nn);
			for (int k = 0; k < SYS_BLK; k++)
				B[k] -= w * nn[k];
		}
	}
}

void
cloth_sys_apply(const cloth_sys *S, const double *m, double h,
		const double *v, double *y)
{
	cloth_sys_apply_rows(S, m, h, v, y, 0, S->np);
}

void
cloth_sys_apply_rows(const cloth_sys *S, const double *m, double h,
		     const double *v, double *y, size_t i0, size_t i1)
{
	const ptrdiff_t lo = (ptrdiff_t)i0, hi = (ptrdiff_t)i1;

#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
	for (ptrdiff_t i = lo; i < hi; i++) {
		double a0 = 0, a1 = 0, a2 = 0;
		for (size_t b = S->rp[i]; b < S->rp[i + 1]; b++) {
			const double *B = S->D + SYS_BLK * b, *vj = v + 3 * (size_t)S->col[b];
			a0 += B[0] * vj[0] + B[1] * vj[1] + B[2] * vj[2];
			a1 += B[1] * vj[0] + B[3] * vj[1] + B[4] * vj[2];
			a2 += B[2] * vj[0] + B[4] * vj[1] + B[5] * vj[2];
		}
		const double *vi = v + 3 * i;
		y[3 * i] = m[i] * vi[0] - h * a0;
		y[3 * i + 1] = m[i] * vi[1] - h * a1;
		y[3 * i + 2] = m[i] * vi[2] - h * a2;
	}
}
