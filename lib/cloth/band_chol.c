/* band_chol.c: banded block Cholesky of chains (see band_chol.h). */
#include "cloth/band_chol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Chains fewer than this are factored and solved on one thread. */
#define BAND_OMP_MIN 64

void
band_chol_free(band_chol *bc)
{
	free(bc->cstart);
	free(bc->seq);
	free(bc->L);
	memset(bc, 0, sizeof *bc);
}

int
band_chol_init(band_chol *bc, size_t nchain, const uint32_t *cstart,
	       const uint32_t *seq, int bw, slc_err *err)
{
	size_t n = cstart[nchain], nl;

	memset(bc, 0, sizeof *bc);
	if (bw < 0)
		return slc_fail(err, "bandwidth %d is negative", bw);
	if (slc_mul(n, 9 * (size_t)(bw + 1), &nl))
		return slc_fail(err, "chain entries overflow");
	bc->nchain = nchain;
	bc->n = n;
	bc->bw = bw;
	bc->cstart = slc_calloc(nchain + 1, sizeof *bc->cstart, err);
	bc->seq = slc_calloc(n + 1, sizeof *bc->seq, err);
	bc->L = slc_calloc(nl + 1, sizeof *bc->L, err);
	if (!bc->cstart || !bc->seq || !bc->L) {
		band_chol_free(bc);
		return slc_failctx(err, "chain preconditioner: ");
	}
	memcpy(bc->cstart, cstart, (nchain + 1) * sizeof *cstart);
	memcpy(bc->seq, seq, n * sizeof *seq);
	return 0;
}

/* S -= A B^T for 3x3 row-major blocks. */
static inline void
sub_abt(double *S, const double *A, const double *B)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			S[3 * r + c] -= A[3 * r] * B[3 * c] +
				A[3 * r + 1] * B[3 * c + 1] +
				A[3 * r + 2] * B[3 * c + 2];
}

/* Lower Cholesky factor of the symmetric 3x3 block S into G, the
 * reciprocals of its diagonal in the upper part (G[1] = 1/G[0], G[2] =
 * 1/G[4], G[5] = 1/G[8]): the solves multiply by them instead of
 * dividing, which would hold up every chain's sequential sweep.  0, or -1
 * when S is not positive definite. */
static inline int
chol3(const double *S, double *G)
{
	double d0 = S[0];
	if (!(d0 > 0))
		return -1;
	double g00 = sqrt(d0), g10 = S[3] / g00, g20 = S[6] / g00;
	double d1 = S[4] - g10 * g10;
	if (!(d1 > 0))
		return -1;
	double g11 = sqrt(d1), g21 = (S[7] - g20 * g10) / g11;
	double d2 = S[8] - g20 * g20 - g21 * g21;
	if (!(d2 > 0))
		return -1;
	double g22 = sqrt(d2);
	G[0] = g00; G[1] = 1 / g00; G[2] = 1 / g11;
	G[3] = g10; G[4] = g11; G[5] = 1 / g22;
	G[6] = g20; G[7] = g21; G[8] = g22;
	return 0;
}

/* X = S G^{-T} (G lower): each row x of X solves G x^T = s^T. */
static inline void
rsolve_lt(const double *S, const double *G, double *X)
{
	for (int r = 0; r < 3; r++) {
		const double *s = S + 3 * r;
		double *x = X + 3 * r;
		x[0] = s[0] / G[0];
		x[1] = (s[1] - G[3] * x[0]) / G[4];
		x[2] = (s[2] - G[6] * x[0] - G[7] * x[1]) / G[8];
	}
}

/* Factor chain c with bandwidth bw (0: block diagonal).  0 / -1 on a
 * pivot that is not positive. */
static int
factor_chain(band_chol *bc, size_t c, int bw, band_chol_block block,
	     void *ctx)
{
	const size_t lo = bc->cstart[c], hi = bc->cstart[c + 1];
	const int w = bc->bw + 1;   /* blocks stored per entry */

	for (size_t j = lo; j < hi; j++) {
		double *Lj = bc->L + 9 * (size_t)w * j;
		size_t k0 = j - lo > (size_t)bw ? j - (size_t)bw : lo;
		memset(Lj, 0, 9 * (size_t)w * sizeof *Lj);
		for (size_t k = k0; k <= j; k++) {
			double S[9];
			const double *Lk = bc->L + 9 * (size_t)w * k;
			block(ctx, bc->seq[j], bc->seq[k], S);
			/* S -= sum over l < k in both bands of L(j,l) L(k,l)^T */
			for (size_t l = k0; l < k; l++) {
				if (k - l > (size_t)bw)
					continue;
				sub_abt(S, Lj + 9 * (bc->bw - (int)(j - l)),
					Lk + 9 * (bc->bw - (int)(k - l)));
			}
			double *Ljk = Lj + 9 * (bc->bw - (int)(j - k));
			if (k < j) {
				rsolve_lt(S, Lk + 9 * bc->bw, Ljk);
			} else if (chol3(S, Ljk)) {
				return -1;
			}
		}
	}
	return 0;
}

void
band_chol_factor_range(band_chol *bc, size_t c0, size_t c1,
		       band_chol_block block, void *ctx)
{
	const ptrdiff_t lo = (ptrdiff_t)c0, hi = (ptrdiff_t)c1;
	long fb = 0;

#pragma omp parallel for schedule(static) reduction(+:fb) if (hi - lo > BAND_OMP_MIN)
	for (ptrdiff_t c = lo; c < hi; c++) {
		if (!factor_chain(bc, (size_t)c, bc->bw, block, ctx))
			continue;
		/* rounding can cost a nearly singular band its definiteness;
		 * the diagonal blocks alone (block Jacobi) stay usable */
		fb++;
		factor_chain(bc, (size_t)c, 0, block, ctx);
	}
	bc->fallbacks += fb;
}

void
band_chol_factor(band_chol *bc, band_chol_block block, void *ctx)
{
	band_chol_factor_range(bc, 0, bc->nchain, block, ctx);
}

void
band_chol_solve_range(const band_chol *bc, size_t c0, size_t c1,
		      const double *r, double *z)
{
	const ptrdiff_t lo_c = (ptrdiff_t)c0, hi_c = (ptrdiff_t)c1;
	const int bw = bc->bw, w = bw + 1;

#pragma omp parallel for schedule(static) if (hi_c - lo_c > BAND_OMP_MIN)
	for (ptrdiff_t c = lo_c; c < hi_c; c++) {
		const size_t lo = bc->cstart[c], hi = bc->cstart[c + 1];
		/* forward: L y = r, y kept in z */
		for (size_t j = lo; j < hi; j++) {
			const double *Lj = bc->L + 9 * (size_t)w * j;
			double s[3];
			memcpy(s, r + 3 * (size_t)bc->seq[j], sizeof s);
			size_t k0 = j - lo > (size_t)bw ? j - (size_t)bw : lo;
			for (size_t k = k0; k < j; k++) {
				const double *B = Lj + 9 * (bw - (int)(j - k));
				const double *y = z + 3 * (size_t)bc->seq[k];
				for (int a = 0; a < 3; a++)
					s[a] -= B[3 * a] * y[0] +
						B[3 * a + 1] * y[1] +
						B[3 * a + 2] * y[2];
			}
			const double *G = Lj + 9 * bw;
			double *y = z + 3 * (size_t)bc->seq[j];
			y[0] = s[0] * G[1];
			y[1] = (s[1] - G[3] * y[0]) * G[2];
			y[2] = (s[2] - G[6] * y[0] - G[7] * y[1]) * G[5];
		}
		/* back: L^T z = y */
		for (size_t j = hi; j-- > lo;) {
			double s[3];
			double *zj = z + 3 * (size_t)bc->seq[j];
			memcpy(s, zj, sizeof s);
			for (size_t k = j + 1; k < hi && k - j <= (size_t)bw; k++) {
				const double *B = bc->L + 9 * (size_t)w * k +
					9 * (bw - (int)(k - j));
				const double *x = z + 3 * (size_t)bc->seq[k];
				/* s -= B^T x */
				for (int a = 0; a < 3; a++)
					s[a] -= B[a] * x[0] + B[3 + a] * x[1] +
						B[6 + a] * x[2];
			}
			const double *G = bc->L + 9 * (size_t)w * j + 9 * bw;
			zj[2] = s[2] * G[5];
			zj[1] = (s[1] - G[7] * zj[2]) * G[2];
			zj[0] = (s[0] - G[3] * zj[1] - G[6] * zj[2]) * G[1];
		}
	}
}

void
band_chol_solve(const band_chol *bc, const double *r, double *z)
{
	band_chol_solve_range(bc, 0, bc->nchain, r, z);
}
