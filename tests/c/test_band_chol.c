/* test_band_chol.c: the chains' banded block Cholesky (lib/cloth/
 * band_chol.h): on a block-banded SPD matrix of bandwidth 3 the solve is
 * exact (A z = r to rounding) on each chain, chains are independent,
 * rows in no chain are left alone, a bandwidth past the matrix's band is
 * exact too, and an indefinite band falls back to its diagonal blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/band_chol.h"
#include "ctest.h"

#define NROW 40                 /* block rows */
#define BW 3

/* A symmetric block matrix of NROW rows, dense for the test: entries
 * couple rows of one chain within BW places of its order, diagonally
 * dominant (so SPD). */
static double A[3 * NROW][3 * NROW];

/* Chains: rows 0..15 in a scrambled order, rows 16..35 in order; rows
 * 36..39 in none. */
static uint32_t seq[36];
static const uint32_t cstart[3] = { 0, 16, 36 };

static void
block(void *ctx, uint32_t i, uint32_t k, double B[9])
{
	(void)ctx;
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			B[3 * r + c] = A[3 * i + r][3 * k + c];
}

static double
urand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((*s >> 8) & 0xffff) / 65536.0 - 0.5;
}

static void
make_matrix(double diag)
{
	unsigned s = 7;

	memset(A, 0, sizeof A);
	for (int c = 0; c < 2; c++)
		for (uint32_t j = cstart[c]; j < cstart[c + 1]; j++)
			for (uint32_t k = j; k < cstart[c + 1] && k <= j + BW; k++)
				for (int r = 0; r < 3; r++)
					for (int q = 0; q < 3; q++) {
						int a = 3 * (int)seq[j] + r;
						int b = 3 * (int)seq[k] + q;
						if (k == j && q < r)
							continue;
						double v = urand(&s);
						A[a][b] = A[b][a] = v;
					}
	for (int a = 0; a < 3 * NROW; a++)
		A[a][a] += diag;
}

static double
residual(const double *z, const double *r, int rows)
{
	double e = 0;

	for (int a = 0; a < 3 * rows; a++) {
		double s = 0;
		for (int b = 0; b < 3 * rows; b++)
			s += A[a][b] * z[b];
		e = fmax(e, fabs(s - r[a]));
	}
	return e;
}

static void
test_exact(void)
{
	band_chol bc;
	slc_err err;
	double r[3 * NROW], z[3 * NROW];
	unsigned s = 3;

	for (int j = 0; j < 16; j++)
		seq[j] = (uint32_t)((j * 7) % 16);
	for (int j = 16; j < 36; j++)
		seq[j] = (uint32_t)j;
	make_matrix(12.0);
	for (int a = 0; a < 3 * NROW; a++) {
		r[a] = urand(&s);
		z[a] = 99;
	}
	CHECK(!band_chol_init(&bc, 2, cstart, seq, BW, &err), "init");
	band_chol_factor(&bc, block, NULL);
	band_chol_solve(&bc, r, z);
	CHECK(residual(z, r, 36) < 1e-12, "A z = r on the chains: %g",
	      residual(z, r, 36));
	CHECK(z[3 * 36] == 99 && z[3 * NROW - 1] == 99,
	      "rows in no chain left alone");
	CHECK(bc.fallbacks == 0, "no fallback on an SPD band");
	band_chol_free(&bc);

	/* a wider stored band than the matrix's is exact as well */
	CHECK(!band_chol_init(&bc, 2, cstart, seq, BW + 2, &err), "init wide");
	band_chol_factor(&bc, block, NULL);
	band_chol_solve(&bc, r, z);
	CHECK(residual(z, r, 36) < 1e-12, "bandwidth 5: A z = r: %g",
	      residual(z, r, 36));
	band_chol_free(&bc);

	/* bandwidth 1 drops couplings: no longer exact */
	CHECK(!band_chol_init(&bc, 2, cstart, seq, 1, &err), "init narrow");
	band_chol_factor(&bc, block, NULL);
	band_chol_solve(&bc, r, z);
	CHECK(residual(z, r, 36) > 1e-6, "bandwidth 1 is an approximation: %g",
	      residual(z, r, 36));
	band_chol_free(&bc);
}

static void
test_fallback(void)
{
	band_chol bc;
	slc_err err;
	double r[3 * NROW], z[3 * NROW];

	/* identity diagonal blocks, couplings of 2: the band is indefinite,
	 * its diagonal blocks are not */
	make_matrix(0.0);
	for (int a = 0; a < 3 * NROW; a++)
		for (int b = 0; b < 3 * NROW; b++)
			if (a / 3 == b / 3)
				A[a][b] = a == b ? 1.0 : 0.0;
			else if (A[a][b] != 0)
				A[a][b] = 2.0;
	for (int a = 0; a < 3 * NROW; a++)
		r[a] = 1.0 + a;
	CHECK(!band_chol_init(&bc, 2, cstart, seq, BW, &err), "init");
	band_chol_factor(&bc, block, NULL);
	band_chol_solve(&bc, r, z);
	CHECK(bc.fallbacks == 2, "both indefinite chains fell back: %ld",
	      bc.fallbacks);
	double e = 0;
	for (int a = 0; a < 3 * 36; a++)
		e = fmax(e, fabs(z[3 * (int)seq[a / 3] + a % 3] -
				 r[3 * (int)seq[a / 3] + a % 3]));
	CHECK(e < 1e-15, "fallback: the diagonal blocks' inverse (identity)");
	band_chol_free(&bc);
}

int
main(void)
{
	test_exact();
	test_fallback();
	return ctest_done();
}
