/* vof_render.c: lee2019 §4.2, the water on the KDSM drawn as particles:
 * every wet tet of a `vof` record becomes a few unjittered particles at
 * the points of a symmetric sample rule, sized by the water they stand
 * for, for surfacer to mesh with an anisotropic kernel and unite with
 * the pool's level set (notes §2.7). */
#include "vof/vof_recs.h"

#include <math.h>
#include <string.h>

/* The 4-point symmetric rule on a tet (exact for quadratics): each point
 * has barycentrics (a, b, b, b) in some order.  Its points sit inside the
 * tet, clear of its faces, so a full mesh of them is evenly spaced. */
static const double RULE_A = 0.5854101966249685, RULE_B = 0.1381966011250105;

int
vof_render_rec(const slc_rec *vof, slc_rec *out, const char *name, double fmin, slc_err *err)
{
	const slc_chan *cP = slc_rec_find(vof, "P"), *cT = slc_rec_find(vof, "tet");
	const double *W, *X;
	const float *fill;
	const uint32_t *tet;
	float *P, *rad;
	double *vol;
	size_t nt, nn, t, n = 0, i = 0;

	if (vof->kind != SLC_TETS || !cP || !cT)
		return slc_fail(err, "record '%s': not a tets record with P and tet", vof->name);
	nn = (size_t)cP->count;
	nt = (size_t)cT->count;
	if (!(X = slc_rec_get(vof, "P", SLC_F64, 3, nn, err)) ||
	    !(tet = slc_rec_get(vof, "tet", SLC_U32, 4, nt, err)) ||
	    !(W = slc_rec_get(vof, "water", SLC_F64, 1, nt, err)) ||
	    !(fill = slc_rec_get(vof, "fill", SLC_F32, 1, nt, err)))
		return slc_failctx(err, "record '%s': ", vof->name);
	for (t = 0; t < nt; t++) {
		for (int k = 0; k < 4; k++)
			if (tet[4 * t + k] >= nn)
				return slc_fail(err, "record '%s': tet %zu: node %u of %zu",
						vof->name, t, tet[4 * t + k], nn);
		n += W[t] > 0 && fill[t] > fmin;
	}
	slc_rec_init(out, SLC_PARTICLES, name);
	out->time = vof->time;
	if (!(P = slc_rec_add(out, "P", SLC_F32, 3, SLC_POINT, 4 * (uint64_t)n, err)) ||
	    !(rad = slc_rec_add(out, "radius", SLC_F32, 1, SLC_POINT, 4 * (uint64_t)n, err)) ||
	    !(vol = slc_rec_add(out, "volume", SLC_F64, 1, SLC_POINT, 4 * (uint64_t)n, err))) {
		slc_rec_free(out);
		return -1;
	}
	for (t = 0; t < nt; t++) {
		const uint32_t *q = tet + 4 * t;
		/* notes §2.7, not from the paper: a partly filled tet's
		 * particles are smaller, r = (3 W / (4 pi N))^(1/3) */
		double r = cbrt(3 * W[t] / (4 * M_PI * 4));

		if (!(W[t] > 0 && fill[t] > fmin))
			continue;
		for (int s = 0; s < 4; s++, i++) {
			for (int a = 0; a < 3; a++) {
				double p = 0;

				for (int k = 0; k < 4; k++)
					p += (k == s ? RULE_A : RULE_B) * X[3 * (size_t)q[k] + a];
				P[3 * i + a] = (float)p;
			}
			rad[i] = (float)r;
			vol[i] = W[t] / 4;
		}
	}
	return 0;
}
