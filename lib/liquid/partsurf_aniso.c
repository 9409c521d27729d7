/* partsurf_aniso.c: the anisotropic kernels of Yu and Turk 2013,
 * "Reconstructing surfaces of particle-based fluids using anisotropic
 * kernels", §5: per particle, the weighted principal component analysis
 * of its neighbours within R gives an ellipsoid that is flat along the
 * surface; the kernel centre is moved towards the weighted mean of its
 * neighbours (§5.1, Laplacian smoothing of the centres).
 *
 * Two deviations, stated.  The centres are smoothed towards the weighted
 * mean of the neighbours within the kernel radius h rather than within
 * r_i = 2h (the PCA neighbourhood, as in the paper): with 2h a surface
 * particle moves inwards by more than a spacing and a drop loses a quarter
 * of its volume.  And Yu and Turk scale the clamped eigenvalues by an
 * empirical k_s = 1400 chosen so that full neighbourhoods give unit
 * kernels; here the semi-axes are proportional to the clamped eigenvalues
 * and normalized so that det G = 1/R^3, i.e. every kernel keeps the volume
 * of the isotropic kernel of radius R and a full neighbourhood gives it
 * back exactly.  Neighbours are found in a bin grid (counting sort), and
 * each particle's result depends only on the particles, not on threads.
 */
#include "liquid/partsurf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const double YT_LAMBDA = 0.9;    /* §5.1: lambda in [0.9, 1] */
static const int YT_NEPS = 25;          /* §5: fewer neighbours: isotropic */
static const double YT_KR = 4;          /* §5: sigma_k >= sigma_1 / k_r */
#define BIN_LIMIT_PER_PARTICLE 8
#define YT_NEIGHBOURS 2                 /* §5: r_i = 2h */
#define BIN_PER_RADIUS 2                /* neighbour bins per r_i */        /* bins per particle, at most */

/* Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi
 * rotations: A = V diag(w) V^T, columns of V the eigenvectors. */
static void
jacobi3(double A[3][3], double w[3], double V[3][3])
{
	int sweep, p, q, r, i;

	for (p = 0; p < 3; p++)
		for (q = 0; q < 3; q++)
			V[p][q] = p == q;
	for (sweep = 0; sweep < 50; sweep++) {
		double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];

		if (off < 1e-30 * (A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2]) ||
		    off == 0)
			break;
		for (p = 0; p < 2; p++)
			for (q = p + 1; q < 3; q++) {
				double theta, t, c, s;

				if (A[p][q] == 0)
					continue;
				theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
				t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				for (r = 0; r < 3; r++) {
					double arp = A[r][p], arq = A[r][q];

					A[r][p] = c * arp - s * arq;
					A[r][q] = s * arp + c * arq;
				}
				for (r = 0; r < 3; r++) {
					double apr = A[p][r], aqr = A[q][r];

					A[p][r] = c * apr - s * aqr;
					A[q][r] = s * apr + c * aqr;
				}
				for (r = 0; r < 3; r++) {
					double vrp = V[r][p], vrq = V[r][q];

					V[r][p] = c * vrp - s * vrq;
					V[r][q] = s * vrp + c * vrq;
				}
			}
	}
	for (i = 0; i < 3; i++)
		w[i] = A[i][i];
}

int
ps_aniso(const ps_params *p, const double *P, size_t np, double *xbar, float *M,
	 float *amax, slc_err *err)
{
	/* §5: the neighbourhood radius r_i is twice the kernel radius */
	const double R = YT_NEIGHBOURS * p->support * p->radius;
	const double Rk = p->support * p->radius;     /* kernel radius h */
	double lo[3] = { INFINITY, INFINITY, INFINITY }, b = R / BIN_PER_RADIUS;
	int nb[3], a, reach;
	size_t q, nbins = 1, *start;
	uint32_t *order, *bin;
	double *xs;
	long i;

	if (np == 0)
		return 0;
	for (q = 0; q < np; q++)
		for (a = 0; a < 3; a++)
			lo[a] = fmin(lo[a], P[3 * q + a]);
	/* bins of side b >= R / BIN_PER_RADIUS, doubled until few enough */
	for (;;) {
		double hi[3] = { -INFINITY, -INFINITY, -INFINITY };
		double lim = fmax(BIN_LIMIT_PER_PARTICLE * (double)np, 1 << 16), cnt = 1;

		for (q = 0; q < np; q++)
			for (a = 0; a < 3; a++)
				hi[a] = fmax(hi[a], P[3 * q + a]);
		for (a = 0; a < 3; a++) {
			double n = floor((hi[a] - lo[a]) / b) + 1;

			if (!isfinite(n))
				return slc_fail(err, "particle positions are not finite");
			cnt *= n;
			nb[a] = n > 1 << 30 ? 1 << 30 : (int)n;
		}
		if (cnt <= lim)
			break;
		b *= 2;
	}
	reach = (int)ceil(R / b);
	nbins = (size_t)nb[0] * (size_t)nb[1] * (size_t)nb[2];
	start = slc_calloc(nbins + 1, sizeof *start, err);
	order = slc_calloc(np, sizeof *order, err);
	bin = slc_calloc(np, sizeof *bin, err);
	if (!start || !order || !bin) {
		free(start);
		free(order);
		free(bin);
		return -1;
	}
	for (q = 0; q < np; q++) {
		size_t c[3];

		for (a = 0; a < 3; a++) {
			c[a] = (size_t)floor((P[3 * q + a] - lo[a]) / b);
			c[a] = c[a] >= (size_t)nb[a] ? (size_t)nb[a] - 1 : c[a];
		}
		bin[q] = (uint32_t)(c[0] + nb[0] * (c[1] + nb[1] * c[2]));
		start[bin[q] + 1]++;
	}
	for (q = 0; q < nbins; q++)
		start[q + 1] += start[q];
	{
		size_t *fill = slc_calloc(nbins, sizeof *fill, err);

		if (!fill) {
			free(start);
			free(order);
			free(bin);
			return -1;
		}
		for (q = 0; q < np; q++)
			order[start[bin[q]] + fill[bin[q]]++] = (uint32_t)q;
		free(fill);
	}
	/* positions in bin order: the neighbour loops read them in sequence */
	xs = slc_calloc(3 * np, sizeof *xs, err);
	if (!xs) {
		free(start);
		free(order);
		free(bin);
		return -1;
	}
	for (q = 0; q < np; q++)
		memcpy(xs + 3 * q, P + 3 * (size_t)order[q], 3 * sizeof *xs);
#pragma omp parallel for schedule(dynamic, 256)
	for (i = 0; i < (long)np; i++) {
		const double *x = P + 3 * i;
		double sw = 0, m[3] = { 0, 0, 0 }, S[3][3] = { { 0 } }, C[3][3];
		double sk = 0, mk[3] = { 0, 0, 0 }, iR = 1 / R, iRk = 1 / Rk;
		double w3[3], V[3][3], ax[3], sig[3];
		int c[3], d[3], n = 0, s, t, perm[3] = { 0, 1, 2 };

		c[0] = (int)(bin[i] % (uint32_t)nb[0]);
		c[1] = (int)(bin[i] / (uint32_t)nb[0] % (uint32_t)nb[1]);
		c[2] = (int)(bin[i] / (uint32_t)nb[0] / (uint32_t)nb[1]);
		for (d[2] = c[2] - reach; d[2] <= c[2] + reach; d[2]++)
			for (d[1] = c[1] - reach; d[1] <= c[1] + reach; d[1]++)
				for (d[0] = c[0] - reach; d[0] <= c[0] + reach; d[0]++) {
					size_t bb, u;

					if (d[0] < 0 || d[1] < 0 || d[2] < 0 || d[0] >= nb[0] ||
					    d[1] >= nb[1] || d[2] >= nb[2])
						continue;
					bb = (size_t)d[0] + nb[0] * ((size_t)d[1] + nb[1] * (size_t)d[2]);
					for (u = start[bb]; u < start[bb + 1]; u++) {
						const double *y = xs + 3 * u;
						double e[3] = { y[0] - x[0], y[1] - x[1], y[2] - x[2] };
						double r2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2], r, w, q3;

						if (r2 >= R * R)
							continue;
						r = sqrt(r2);
						/* §5: w_ij = 1 - (|x_i - x_j| / r_i)^3 */
						q3 = r * iR;
						w = 1 - q3 * q3 * q3;
						sw += w;
						if (r < Rk) {
							double qk = r * iRk, wk = 1 - qk * qk * qk;

							sk += wk;
							for (s = 0; s < 3; s++)
								mk[s] += wk * e[s];
						}
						n++;
						for (s = 0; s < 3; s++) {
							double we = w * e[s];

							m[s] += we;
							for (t = s; t < 3; t++)
								S[s][t] += we * e[t];
						}
					}
				}
		/* sw > 0: the particle is its own neighbour */
		for (s = 0; s < 3; s++)
			m[s] /= sw;
		for (s = 0; s < 3; s++)
			for (t = s; t < 3; t++)
				C[s][t] = C[t][s] = S[s][t] / sw - m[s] * m[t];
		for (s = 0; s < 3; s++)
			xbar[3 * i + s] = x[s] + YT_LAMBDA * mk[s] / sk;
		jacobi3(C, w3, V);
		/* sort eigenvalues decreasing */
		for (s = 0; s < 3; s++)
			for (t = s + 1; t < 3; t++)
				if (w3[perm[t]] > w3[perm[s]]) {
					int tmp = perm[s];

					perm[s] = perm[t];
					perm[t] = tmp;
				}
		for (s = 0; s < 3; s++)
			sig[s] = w3[perm[s]];
		if (n < YT_NEPS || !(sig[0] > 0)) {
			ax[0] = ax[1] = ax[2] = Rk;
		} else {
			double g;

			for (s = 1; s < 3; s++)
				sig[s] = fmax(sig[s], sig[0] / YT_KR);
			g = cbrt(sig[0] * sig[1] * sig[2]);
			for (s = 0; s < 3; s++)
				ax[s] = Rk * sig[s] / g;
		}
		/* M = G^T G = V diag(1/a^2) V^T */
		{
			double Mf[3][3];

			for (s = 0; s < 3; s++)
				for (t = 0; t < 3; t++) {
					double v = 0;
					int k;

					for (k = 0; k < 3; k++)
						v += V[s][perm[k]] * V[t][perm[k]] / (ax[k] * ax[k]);
					Mf[s][t] = v;
				}
			M[6 * i + 0] = (float)Mf[0][0];
			M[6 * i + 1] = (float)Mf[0][1];
			M[6 * i + 2] = (float)Mf[0][2];
			M[6 * i + 3] = (float)Mf[1][1];
			M[6 * i + 4] = (float)Mf[1][2];
			M[6 * i + 5] = (float)Mf[2][2];
		}
		amax[i] = (float)fmax(ax[0], fmax(ax[1], ax[2]));
	}
	free(xs);
	free(start);
	free(order);
	free(bin);
	return 0;
}
