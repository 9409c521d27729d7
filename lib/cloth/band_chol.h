/* band_chol.h: exact factorization of the chain blocks of a symmetric
 * positive definite block matrix, for use as a CG preconditioner.
 *
 * A chain is a sequence of block rows (particles) p_0..p_{n-1} whose
 * couplings within the chain reach at most bw places along it: a hair
 * strand in its interleaved order couples p_j with p_{j+1}..p_{j+3}
 * (edge, bend, torsion and altitude springs, selle2008 thesis §7.3, fig.
 * 7.2), so its block of M - h D is banded with block bandwidth 3.  Each
 * chain's block is factored L L^T by banded block Cholesky; couplings
 * between chains (stiction springs) or beyond the band are left out, so
 * the product of the solves is the block-diagonal-by-chain preconditioner
 * of the notes' §2 ("a per-strand banded block preconditioner").
 *
 * Chains are independent: factor and solve run over chains in parallel
 * with a fixed partition, and each chain's arithmetic is the same on any
 * number of threads.
 */
#ifndef SLC_BAND_CHOL_H
#define SLC_BAND_CHOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct band_chol {
	size_t nchain, n;       /* chains, entries over all chains */
	uint32_t *cstart;       /* nchain + 1: chain c is seq[cstart[c]..] */
	uint32_t *seq;          /* n: block row of each entry */
	int bw;                 /* block bandwidth */
	double *L;              /* 9 (bw + 1) per entry: L(j, j-bw..j),
				   row-major 3x3 blocks, L(j, j) lower,
				   its upper part the reciprocals of its
				   diagonal (band_chol.c chol3) */
	long fallbacks;         /* chains factored block-diagonally because a
				   pivot was not positive, since init */
} band_chol;

/* The 3x3 block (i, k) of the matrix (row-major, symmetric as a whole:
 * block (k, i) is its transpose), for particles i, k of one chain. */
typedef void (*band_chol_block)(void *ctx, uint32_t i, uint32_t k,
				double B[9]);

/* Set up for nchain chains over the n = cstart[nchain] entries seq (a
 * block row appears at most once), bandwidth bw >= 0; copied.  0 / -1. */
int band_chol_init(band_chol *bc, size_t nchain, const uint32_t *cstart,
		   const uint32_t *seq, int bw, slc_err *err);

void band_chol_free(band_chol *bc);

/* Factor every chain's band of the matrix given by block(ctx, ...), which
 * must be safe to call from several threads.  A chain whose band is not
 * positive definite is factored block-diagonally instead (counted in
 * fallbacks). */
void band_chol_factor(band_chol *bc, band_chol_block block, void *ctx);

/* z = (L L^T)^{-1} r on the block rows of the chains (3 per row); rows in
 * no chain are left alone.  r and z may not overlap. */
void band_chol_solve(const band_chol *bc, const double *r, double *z);

/* band_chol_factor and band_chol_solve on the chains [c0, c1) alone
 * (c1 <= nchain): what one rank of an MPI build owns; the others' rows
 * are neither read nor written.  Each chain's arithmetic is the same as
 * in the whole call. */
void band_chol_factor_range(band_chol *bc, size_t c0, size_t c1,
			    band_chol_block block, void *ctx);
void band_chol_solve_range(const band_chol *bc, size_t c0, size_t c1,
			   const double *r, double *z);

#endif
