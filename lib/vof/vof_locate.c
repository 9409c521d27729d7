/* vof_locate.c: point location in a KDSM frame (see vof_locate.h). */
#include "vof/vof_locate.h"

#include <math.h>
#include <stdlib.h>

static const double *
node(const kdsm_mesh *m, size_t t, int k)
{
	return m->P + 3 * (size_t)m->tet[4 * t + k];
}

int
vof_loc_build(vof_loc *loc, const kdsm_mesh *m, slc_err *err)
{
	double *lo, *hi;
	size_t t;
	int k, a, rc;

	loc->m = m;
	lo = slc_malloc(m->nt ? m->nt : 1, 3 * sizeof *lo, err);
	hi = lo ? slc_malloc(m->nt ? m->nt : 1, 3 * sizeof *hi, err) : NULL;
	if (!hi) {
		free(lo);
		return -1;
	}
	for (t = 0; t < m->nt; t++) {
		for (a = 0; a < 3; a++) {
			double l = INFINITY, h = -INFINITY, pad;

			for (k = 0; k < 4; k++) {
				l = fmin(l, node(m, t, k)[a]);
				h = fmax(h, node(m, t, k)[a]);
			}
			pad = 4 * VOF_LOC_EPS * (h - l);
			lo[3 * t + a] = l - pad;
			hi[3 * t + a] = h + pad;
		}
	}
	rc = boxtree_build(&loc->bt, m->nt, lo, hi, err);
	free(lo);
	free(hi);
	return rc;
}

void
vof_loc_free(vof_loc *loc)
{
	boxtree_free(&loc->bt);
	loc->m = NULL;
}

typedef struct find_ctx {
	const kdsm_mesh *m;
	const double *x;
	long best;
	int best_alive;
	double b[4];
} find_ctx;

static void
find_one(void *vctx, uint32_t i)
{
	find_ctx *c = vctx;
	const kdsm_mesh *m = c->m;
	const double *p[4] = { node(m, i, 0), node(m, i, 1), node(m, i, 2), node(m, i, 3) };
	double V = kdsm_tet_volume(p[0], p[1], p[2], p[3]), b[4];
	int k, alive = m->alive[i] != 0;

	if (!(V > 0))
		return;
	/* barycentric k: the volume of the tet with node k replaced by x */
	b[0] = kdsm_tet_volume(c->x, p[1], p[2], p[3]) / V;
	b[1] = kdsm_tet_volume(p[0], c->x, p[2], p[3]) / V;
	b[2] = kdsm_tet_volume(p[0], p[1], c->x, p[3]) / V;
	b[3] = kdsm_tet_volume(p[0], p[1], p[2], c->x) / V;
	for (k = 0; k < 4; k++)
		if (!(b[k] >= -VOF_LOC_EPS))
			return;
	if (c->best >= 0 && (c->best_alive > alive ||
			     (c->best_alive == alive && c->best < (long)i)))
		return;
	c->best = (long)i;
	c->best_alive = alive;
	for (k = 0; k < 4; k++)
		c->b[k] = b[k];
}

long
vof_loc_find(const vof_loc *loc, const double x[3], double b[4])
{
	find_ctx c = { loc->m, x, -1, 0, { 0, 0, 0, 0 } };
	int k;

	boxtree_query(&loc->bt, x, x, find_one, &c);
	for (k = 0; k < 4 && b; k++)
		b[k] = c.b[k];
	return c.best;
}

double
vof_loc_sdf(const vof_loc *loc, const double x[3])
{
	double b[4], s = 0;
	long t = vof_loc_find(loc, x, b);
	int k;

	if (t < 0)
		return INFINITY;
	for (k = 0; k < 4; k++)
		s += b[k] * loc->m->sdf[loc->m->tet[4 * (size_t)t + k]];
	return s;
}

int
vof_loc_move(const vof_loc *loc, const double p[3], const double d[3], double q[3])
{
	double lo = 0, hi = 1, x[3];
	int a, i;

	for (a = 0; a < 3; a++)
		q[a] = p[a] + d[a];
	if (!(vof_loc_sdf(loc, q) < 0) || vof_loc_sdf(loc, p) < 0)
		return 0;
	/* lo stays outside the skin, hi inside */
	for (i = 0; i < VOF_CLAMP_ITERS; i++) {
		double mid = 0.5 * (lo + hi);

		for (a = 0; a < 3; a++)
			x[a] = p[a] + mid * d[a];
		if (vof_loc_sdf(loc, x) < 0)
			hi = mid;
		else
			lo = mid;
	}
	for (a = 0; a < 3; a++)
		q[a] = p[a] + lo * d[a];
	return 1;
}
