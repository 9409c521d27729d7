/* mic0.c: MIC(0) factorization and triangular solves (see mic0.h). */
#include "fluid/mic0.h"

#include <math.h>
#include <stdlib.h>

/* Modification parameter tau and safety threshold sigma of MIC(0) (the
 * values recommended in Bridson & Fedkiw's fluid course notes). */
#define MIC_TAU 0.97
#define MIC_SIGMA 0.25

struct mic0 {
	const psys *ps;
	double *prec;       /* 1/sqrt(e) per cell */
};

mic0 *
mic0_new(const psys *ps, slc_err *err)
{
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
	size_t sj = (size_t)ni, sk = (size_t)ni * nj;

	/* the factorization and the triangular solves run through the
	 * whole grid in order: a slab would need its lower neighbour's
	 * result first, one rank after the other */
	if (ps->comm) {
		slc_fail(err, "the MIC(0) preconditioner runs on one MPI rank only: "
			 "use --precond mg over several");
		return NULL;
	}
	mic0 *m = slc_calloc(1, sizeof *m, err);
	if (!m)
		return NULL;
	m->ps = ps;
	m->prec = slc_calloc(ps->n, sizeof *m->prec, err);
	if (!m->prec) {
		free(m);
		return NULL;
	}
	double *p = m->prec;
	const float *cx = ps->cx, *cy = ps->cy, *cz = ps->cz;
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = (size_t)i + sj * j + sk * k;
				if (ps->type[c] != PS_FLUID)
					continue;
				double e = ps->diag[c];
				if (i > 0) {
					size_t d = c - 1;
					double a = cx[d] * p[d];
					e -= a * a + MIC_TAU * cx[d] * (cy[d] + cz[d]) * p[d] * p[d];
				}
				if (j > 0) {
					size_t d = c - sj;
					double a = cy[d] * p[d];
					e -= a * a + MIC_TAU * cy[d] * (cx[d] + cz[d]) * p[d] * p[d];
				}
				if (k > 0) {
					size_t d = c - sk;
					double a = cz[d] * p[d];
					e -= a * a + MIC_TAU * cz[d] * (cx[d] + cy[d]) * p[d] * p[d];
				}
				if (e < MIC_SIGMA * ps->diag[c])
					e = ps->diag[c];
				p[c] = 1 / sqrt(e);
			}
	return m;
}

void
mic0_apply(const mic0 *m, const double *r, double *z)
{
	const psys *ps = m->ps;
	const double *p = m->prec;
	const float *cx = ps->cx, *cy = ps->cy, *cz = ps->cz;
	int ni = ps->ni, nj = ps->nj, nk = ps->nk;
	size_t sj = (size_t)ni, sk = (size_t)ni * nj;

	/* L q = r (q stored in z) */
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t c = (size_t)i + sj * j + sk * k;
				if (ps->type[c] != PS_FLUID) {
					z[c] = 0;
					continue;
				}
				double t = r[c];
				if (i > 0)
					t += cx[c - 1] * p[c - 1] * z[c - 1];
				if (j > 0)
					t += cy[c - sj] * p[c - sj] * z[c - sj];
				if (k > 0)
					t += cz[c - sk] * p[c - sk] * z[c - sk];
				z[c] = t * p[c];
			}
	/* L^T z = q */
	for (int k = nk - 1; k >= 0; k--)
		for (int j = nj - 1; j >= 0; j--)
			for (int i = ni - 1; i >= 0; i--) {
				size_t c = (size_t)i + sj * j + sk * k;
				if (ps->type[c] != PS_FLUID)
					continue;
				double t = z[c];
				if (i < ni - 1)
					t += cx[c] * p[c] * z[c + 1];
				if (j < nj - 1)
					t += cy[c] * p[c] * z[c + sj];
				if (k < nk - 1)
					t += cz[c] * p[c] * z[c + sk];
				z[c] = t * p[c];
			}
}

void
mic0_free(mic0 *m)
{
	if (!m)
		return;
	free(m->prec);
	free(m);
}
