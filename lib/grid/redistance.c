/* redistance.c: level set reinitialization (redistance.h). */
#include "grid/redistance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid/fmm.h"

int
redistance(field *phi, double width, slc_err *err)
{
	int ni = phi->ni, nj = phi->nj, nk = phi->nk;
	size_t n, c, stride[3];
	float *d = NULL;
	uint8_t *frozen = NULL;
	double dx = phi->dx, dmax = width > 0 ? width : INFINITY;
	size_t nseed = 0;
	int rc = -1;

	if (slc_mul3((size_t)ni, (size_t)nj, (size_t)nk, &n) || n == 0)
		return slc_fail(err, "redistance: bad grid %dx%dx%d", ni, nj, nk);
	stride[0] = 1, stride[1] = (size_t)ni, stride[2] = (size_t)ni * nj;
	d = slc_calloc(n, sizeof *d, err);
	frozen = slc_calloc(n, 1, err);
	if (!d || !frozen)
		goto out;
	/* Samples at the interface: distance to the interpolated crossing. */
	#pragma omp parallel for schedule(static) reduction(+:nseed)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				size_t cc = (size_t)i + stride[1] * j + stride[2] * k;
				int idx[3] = { i, j, k }, dim[3] = { ni, nj, nk };
				double p = phi->a[cc], inv2 = 0;
				int in = p < 0, a, any = 0;
				if (p == 0) {
					d[cc] = 0;
					frozen[cc] = 1;
					nseed++;
					continue;
				}
				for (a = 0; a < 3; a++) {
					double th = INFINITY;
					int s;
					for (s = -1; s <= 1; s += 2) {
						size_t nb;
						double q;
						if ((s < 0 && idx[a] == 0) ||
						    (s > 0 && idx[a] == dim[a] - 1))
							continue;
						nb = s < 0 ? cc - stride[a] : cc + stride[a];
						q = phi->a[nb];
						if ((q < 0) == in)
							continue;
						/* crossing at fraction p/(p-q) of dx */
						if (p / (p - q) < th)
							th = p / (p - q);
					}
					if (th < INFINITY) {
						any = 1;
						th = fmax(th, 0) * dx;
						inv2 += th > 0 ? 1 / (th * th) : INFINITY;
					}
				}
				if (any) {
					d[cc] = inv2 == INFINITY ? 0 : (float)(1 / sqrt(inv2));
					frozen[cc] = 1;
					nseed++;
				}
			}
	if (!nseed) {
		rc = 0;
		goto out;
	}
	if (fmm_march(ni, nj, nk, dx, d, frozen, NULL, dmax, err))
		goto out;
	for (c = 0; c < n; c++)
		phi->a[c] = phi->a[c] < 0 ? -d[c] : d[c];
	rc = 0;
out:
	free(d);
	free(frozen);
	return rc;
}

int
redistance_rec(const slc_rec *r, double width, slc_rec *out, slc_err *err)
{
	field f, c;
	int rc;

	if (field_from_rec(&f, r, NULL, err) || field_alloc_like(&c, &f, err))
		return -1;
	memcpy(c.a, f.a, field_count(&f) * sizeof *f.a);
	rc = redistance(&c, width * c.dx, err) ||
	     field_to_rec(&c, out, r->name, r->time, err) ? -1 : 0;
	field_free(&c);
	return rc;
}
