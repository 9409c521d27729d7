/* hair_limit.c: biased strain limiting root to tip (selle2008 thesis
 * §7.4.1; see hair_limit.h). */
#include "hair/hair_limit.h"

#include <math.h>

#include "cloth/cloth_vec.h"

/* Strands per thread below which the loop runs on one thread. */
#define LIMIT_OMP_MIN 64

/* Bring edge (a, b) of rest length l0 within [(1-s) l0, (1+s) l0] by
 * moving b along it: vh[b] changes by the move over dt.  1 if it moved. */
static int
limit_edge(const double *x0, double *vh, const uint8_t *fixed, uint32_t a,
	   uint32_t b, double l0, double s, double dt)
{
	double xa[3], xb[3], d[3];

	if (fixed[b])
		return 0;
	for (int k = 0; k < 3; k++) {
		xa[k] = x0[3 * a + k] + dt * vh[3 * a + k];
		xb[k] = x0[3 * b + k] + dt * vh[3 * b + k];
	}
	v3sub(xb, xa, d);
	double l = v3norm(d), lc = l;
	if (l > (1 + s) * l0)
		lc = (1 + s) * l0;
	else if (l < (1 - s) * l0)
		lc = (1 - s) * l0;
	if (lc == l || !(l > 0))
		return 0;
	/* x_b' = x_a + lc d/l: the velocity that reaches it */
	for (int k = 0; k < 3; k++)
		vh[3 * b + k] += (xa[k] + lc / l * d[k] - xb[k]) / dt;
	return 1;
}

long
hair_limit(const hair_topo *t, size_t s0, size_t s1, const double *x0,
	   double *vh, const uint8_t *fixed, const double *seg_l0,
	   const double *tri_l0, double s, double dt)
{
	const ptrdiff_t lo = (ptrdiff_t)s0, hi = (ptrdiff_t)s1;
	long n = 0;

#pragma omp parallel for schedule(static) reduction(+:n) if (hi - lo > LIMIT_OMP_MIN)
	for (ptrdiff_t q = lo; q < hi; q++)
		for (uint32_t i = t->offset[q]; i + 1 < t->offset[q + 1]; i++) {
			uint32_t v = t->seg_virt[i];
			n += limit_edge(x0, vh, fixed, i, i + 1, seg_l0[i], s, dt);
			if (v != HAIR_NONE)
				n += limit_edge(x0, vh, fixed, i, v,
						tri_l0[v - t->naxis], s, dt);
		}
	return n;
}
