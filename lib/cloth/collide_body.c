/* collide_body.c: level-set collision bodies and the Gamma function of
 * selle2008 thesis §6.5 (see collide_body.h). */
#include "cloth/collide_body.h"

#include <math.h>
#include <string.h>

#include "cloth/cloth_vec.h"

static void
unit(double *a)
{
	double l = v3norm(a);
	if (l > 0)
		v3scale(1 / l, a);
}

void
body_eval(const cloth_body *b, double t, const double x[3], double *phi,
	  double N[3], double vB[3])
{
	double d[3];

	vB[0] = vB[1] = vB[2] = 0;
	switch (b->shape) {
	case BODY_PLANE:
		v3sub(x, b->c, d);
		*phi = v3dot(d, b->a);
		memcpy(N, b->a, 3 * sizeof *N);
		memcpy(vB, b->vel, 3 * sizeof *vB);
		break;
	case BODY_SPHERE: {
		double cc[3];
		for (int k = 0; k < 3; k++)
			cc[k] = b->c[k] + t * b->vel[k];
		v3sub(x, cc, d);
		double l = v3norm(d);
		*phi = l - b->r;
		if (l > 0) {
			for (int k = 0; k < 3; k++)
				N[k] = d[k] / l;
		} else {
			N[0] = 0; N[1] = 1; N[2] = 0;
		}
		memcpy(vB, b->vel, 3 * sizeof *vB);
		break;
	}
	case BODY_CYLINDER: {
		double ax = 0, rad[3], rl, w[3];
		v3sub(x, b->c, d);
		ax = v3dot(d, b->a);
		for (int k = 0; k < 3; k++)
			rad[k] = d[k] - ax * b->a[k];
		rl = v3norm(rad);
		double pr = rl - b->r, pa = fabs(ax) - b->hl;
		if (pr > 0 && pa > 0) {
			/* outside both: distance to the rim */
			*phi = sqrt(pr * pr + pa * pa);
			for (int k = 0; k < 3; k++)
				N[k] = (rl > 0 ? pr * rad[k] / rl : 0) +
					pa * (ax > 0 ? 1 : -1) * b->a[k];
			unit(N);
		} else if (pr > pa) {
			*phi = pr;
			for (int k = 0; k < 3; k++)
				N[k] = rl > 0 ? rad[k] / rl : 0;
		} else {
			*phi = pa;
			for (int k = 0; k < 3; k++)
				N[k] = (ax > 0 ? 1 : -1) * b->a[k];
		}
		/* spin: vB = omega a x (x - c) */
		v3cross(b->a, d, w);
		for (int k = 0; k < 3; k++)
			vB[k] = b->omega * w[k] + b->vel[k];
		break;
	}
	case BODY_GRID:
		b->eval(b, t, x, phi, N, vB);
		break;
	default:
		*phi = 1;
		N[0] = 0; N[1] = 1; N[2] = 0;
	}
}

void
body_gamma(const double v[3], const double N[3], const double vB[3],
	   double mu, double out[3])
{
	double vN = v3dot(v, N), vBN = v3dot(vB, N);
	double vsN = vN > vBN ? vN : vBN;
	double vT[3], vBT[3], rel[3];

	for (int k = 0; k < 3; k++) {
		vT[k] = v[k] - vN * N[k];
		vBT[k] = vB[k] - vBN * N[k];
		rel[k] = vT[k] - vBT[k];
	}
	double lr = v3norm(rel), s = 0;
	if (lr > 0) {
		s = 1 - mu * (vsN - vN) / lr;
		if (s < 0)
			s = 0;
	}
	for (int k = 0; k < 3; k++)
		out[k] = vsN * N[k] + vBT[k] + s * rel[k];
}
