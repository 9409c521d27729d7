/* weights.c: fluid fractions of the MAC face control volumes (batty2007 §2.1). */
#include "fluid/weights.h"

#include "fluid/pressure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* One axis of the half-lattice interpolation: the cell(s) and weights. */
static int
half_axis(int h, int n, int c[2], double t[2])
{
	if (h & 1) {
		int a = (h - 1) / 2;
		c[0] = a < 0 ? 0 : a >= n ? n - 1 : a;
		t[0] = 1;
		return 1;
	}
	int a = h / 2 - 1, b = h / 2;
	c[0] = a < 0 ? 0 : a >= n ? n - 1 : a;
	c[1] = b < 0 ? 0 : b >= n ? n - 1 : b;
	t[0] = t[1] = 0.5;
	return 2;
}

double
weights_half(const float *ls, int ni, int nj, int nk, int hx, int hy, int hz)
{
	int ci[2], cj[2], ck[2];
	double ti[2], tj[2], tk[2], s = 0;
	int na = half_axis(hx, ni, ci, ti);
	int nb = half_axis(hy, nj, cj, tj);
	int nc = half_axis(hz, nk, ck, tk);

	for (int c = 0; c < nc; c++)
		for (int b = 0; b < nb; b++)
			for (int a = 0; a < na; a++)
				s += ti[a] * tj[b] * tk[c] *
				     ls[(size_t)ci[a] + (size_t)ni *
					((size_t)cj[b] + (size_t)nj * (size_t)ck[c])];
	return s;
}

/* Fraction of a cube where a function with the 8 corner values q[a+2b+4c]
 * is positive: linear estimate from the mean and the mean differences
 * along each axis (exact for a plane parallel to a face of the cube). */
static double
cube_fraction(const double q[8])
{
	int pos = 0;
	double m = 0, g[3] = {0, 0, 0};

	for (int n = 0; n < 8; n++) {
		pos += q[n] > 0;
		m += q[n];
		g[0] += (n & 1 ? 1 : -1) * q[n];
		g[1] += (n & 2 ? 1 : -1) * q[n];
		g[2] += (n & 4 ? 1 : -1) * q[n];
	}
	if (pos == 8)
		return 1;
	if (pos == 0)
		return 0;
	m /= 8;
	double ext = (fabs(g[0]) + fabs(g[1]) + fabs(g[2])) / 4;
	if (!(ext > 0))
		return pos / 8.0;
	double f = 0.5 + m / ext;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* The half-lattice points of a face control volume: 3 along each axis
 * (its two cell centres and the face centre between them, and the
 * same across). */
#define CV_POINTS 27

/* Fraction of the control volume spanned by half-lattice points
 * h0 + (0..2) on each axis: 8 sub-cubes of the 3x3x3 lattice. */
static float
cv_fraction(const float *ls, int ni, int nj, int nk, int hx, int hy, int hz)
{
	double v[CV_POINTS];
	int pos = 0;

	for (int c = 0; c < 3; c++)
		for (int b = 0; b < 3; b++)
			for (int a = 0; a < 3; a++) {
				double s = weights_half(ls, ni, nj, nk,
							hx + a, hy + b, hz + c);
				v[a + 3 * (b + 3 * c)] = s;
				pos += s > 0;
			}
	if (pos == CV_POINTS)
		return 1;
	if (pos == 0)
		return 0;
	double f = 0;
	for (int c = 0; c < 2; c++)
		for (int b = 0; b < 2; b++)
			for (int a = 0; a < 2; a++) {
				double q[8];
				for (int n = 0; n < 8; n++)
					q[n] = v[(a + (n & 1)) + 3 * ((b + ((n >> 1) & 1)) +
								       3 * (c + ((n >> 2) & 1)))];
				f += cube_fraction(q);
			}
	return (float)(f / 8);
}

/* mixed[c] = 1 when the 3x3x3 cells around c (clamped to the grid) do not
 * all have the sign of ls > 0 that c has.  The trilinear interpolant over
 * a face's control volume is a convex combination of the 2x3x3 cells
 * around the face, so a face between two unmixed cells is wholly on one
 * side: fraction exactly 0 or 1, no sub-cubes needed. */
static uint8_t *
mixed_cells(const float *ls, int ni, int nj, int nk)
{
	size_t n = (size_t)ni * nj * nk;
	uint8_t *m = malloc(n ? n : 1);

	if (!m)
		return NULL;
#pragma omp parallel for schedule(static) if (n > PS_PAR_MIN)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * k);
				int s = ls[c] > 0, mix = 0;
				for (int dk = -1; dk <= 1 && !mix; dk++)
					for (int dj = -1; dj <= 1 && !mix; dj++)
						for (int di = -1; di <= 1 && !mix; di++) {
							int a = i + di, b = j + dj, e = k + dk;
							a = a < 0 ? 0 : a >= ni ? ni - 1 : a;
							b = b < 0 ? 0 : b >= nj ? nj - 1 : b;
							e = e < 0 ? 0 : e >= nk ? nk - 1 : e;
							mix = (ls[(size_t)a + (size_t)ni * ((size_t)b + (size_t)nj * e)] > 0) != s;
						}
				m[c] = (uint8_t)mix;
			}
	return m;
}

/* Fraction of one face's control volume: lo and hi are the cells on either
 * side (clamped at the grid's edge), h the lattice corner. */
static float
face_fraction(const float *ls, const uint8_t *mixed, size_t lo, size_t hi,
	      int ni, int nj, int nk, int hx, int hy, int hz)
{
	if (mixed && !mixed[lo] && !mixed[hi])
		return ls[lo] > 0 ? 1.0f : 0.0f;
	return cv_fraction(ls, ni, nj, nk, hx, hy, hz);
}

void
weights_variational(const float *ls, int ni, int nj, int nk,
		    float *wx, float *wy, float *wz)
{
	uint8_t *mx = ls ? mixed_cells(ls, ni, nj, nk) : NULL;
	size_t sj = (size_t)ni, sk = (size_t)ni * nj;

	/* Control volume of x face (i,j,k): from cell centre i-1 to cell
	 * centre i in x (h = 2i-1 .. 2i+1), node j to node j+1 in y
	 * (h = 2j .. 2j+2), likewise in z. */
#pragma omp parallel for schedule(static) if ((size_t)ni * nj * nk > PS_PAR_MIN)
	for (int k = 0; k <= nk; k++)
		for (int j = 0; j <= nj; j++)
			for (int i = 0; i <= ni; i++) {
				int ic = i < ni ? i : ni - 1, jc = j < nj ? j : nj - 1;
				int kc = k < nk ? k : nk - 1;
				size_t c = (size_t)ic + sj * jc + sk * kc;
				if (j < nj && k < nk) {
					size_t f = (size_t)i + (size_t)(ni + 1) *
						   ((size_t)j + (size_t)nj * k);
					wx[f] = ls ? face_fraction(ls, mx, i > 0 ? c - (i < ni) : c, c,
								   ni, nj, nk, 2 * i - 1, 2 * j, 2 * k) : 1;
				}
				if (i < ni && k < nk) {
					size_t f = (size_t)i + (size_t)ni *
						   ((size_t)j + (size_t)(nj + 1) * k);
					wy[f] = ls ? face_fraction(ls, mx, j > 0 ? c - sj * (j < nj) : c, c,
								   ni, nj, nk, 2 * i, 2 * j - 1, 2 * k) : 1;
				}
				if (i < ni && j < nj) {
					size_t f = (size_t)i + (size_t)ni *
						   ((size_t)j + (size_t)nj * k);
					wz[f] = ls ? face_fraction(ls, mx, k > 0 ? c - sk * (k < nk) : c, c,
								   ni, nj, nk, 2 * i, 2 * j, 2 * k - 1) : 1;
				}
			}
	free(mx);
}

void
weights_binary(const float *ls, int ni, int nj, int nk,
	       float *wx, float *wy, float *wz)
{
#pragma omp parallel for schedule(static) if ((size_t)ni * nj * nk > PS_PAR_MIN)
	for (int k = 0; k <= nk; k++)
		for (int j = 0; j <= nj; j++)
			for (int i = 0; i <= ni; i++) {
				if (j < nj && k < nk)
					wx[(size_t)i + (size_t)(ni + 1) * ((size_t)j + (size_t)nj * k)] =
						!ls || weights_half(ls, ni, nj, nk, 2 * i,
								    2 * j + 1, 2 * k + 1) > 0;
				if (i < ni && k < nk)
					wy[(size_t)i + (size_t)ni * ((size_t)j + (size_t)(nj + 1) * k)] =
						!ls || weights_half(ls, ni, nj, nk, 2 * i + 1,
								    2 * j, 2 * k + 1) > 0;
				if (i < ni && j < nj)
					wz[(size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * k)] =
						!ls || weights_half(ls, ni, nj, nk, 2 * i + 1,
								    2 * j + 1, 2 * k) > 0;
			}
}
