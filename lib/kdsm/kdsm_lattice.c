/* kdsm_lattice.c: the KDSM's fixed part (kdsm.h): the BCC lattice around
 * the rest skin, the tets of the thickened level set, the skin anchors and
 * every node's nearest skin point; the sample rules and volumes. */
#include "kdsm/kdsm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/bvh.h"
#include "geom/bvh_box.h"
#include "geom/sdf.h"
#include "grid/field.h"

/* Cells of a lattice along an axis, at most (node indices stay in 32 bits). */
#define KDSM_AXIS_MAX 1024
/* Exact-distance band of the rest level set beyond the shell, in lattice
 * cells (sdf_mesh is exact within its band, an upper bound beyond). */
#define KDSM_REST_BAND 2

double
kdsm_tet_volume(const double *a, const double *b, const double *c, const double *d)
{
	double u[3], v[3], w[3];
	int i;

	for (i = 0; i < 3; i++) {
		u[i] = b[i] - a[i];
		v[i] = c[i] - a[i];
		w[i] = d[i] - a[i];
	}
	return ((u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] +
		(u[0] * v[1] - u[1] * v[0]) * w[2]) / 6;
}

double
kdsm_skin_volume(const double *P, const uint32_t *tri, size_t nt)
{
	static const double o[3] = { 0, 0, 0 };
	double V = 0;
	size_t t;

	for (t = 0; t < nt; t++)
		V += kdsm_tet_volume(o, P + 3 * tri[3 * t], P + 3 * tri[3 * t + 1],
				     P + 3 * tri[3 * t + 2]);
	return V;
}

/* The 8 red children of the tet with barycentric corners c[4][4], the
 * octahedron split along the midpoints of edges 01 and 23, into out. */
static void
children(const double c[4][4], double out[8][4][4])
{
	static const int edge[6][2] = { { 0, 1 }, { 2, 3 }, { 0, 2 }, { 1, 3 }, { 0, 3 }, { 1, 2 } };
	static const int corner[4][4] = { { -1, 0, 2, 4 }, { 0, -1, 5, 3 },
					  { 2, 5, -1, 1 }, { 4, 3, 1, -1 } };
	/* diagonal m01-m23, the ring m02, m03, m13, m12 around it */
	static const int oct[4][4] = { { 0, 1, 2, 4 }, { 0, 1, 4, 3 }, { 0, 1, 3, 5 },
				       { 0, 1, 5, 2 } };
	double m[6][4];
	int e, k, q, t;

	for (e = 0; e < 6; e++)
		for (k = 0; k < 4; k++)
			m[e][k] = 0.5 * (c[edge[e][0]][k] + c[edge[e][1]][k]);
	for (t = 0; t < 4; t++)
		for (q = 0; q < 4; q++)
			for (k = 0; k < 4; k++) {
				out[t][q][k] = corner[t][q] < 0 ? c[t][k] : m[corner[t][q]][k];
				out[4 + t][q][k] = m[oct[t][q]][k];
			}
}

/* Append the nsamp-point rule of the tet c to b (recursive for 32, 64). */
static void
rule_in(const double c[4][4], int nsamp, double *b)
{
	static const double a4 = 0.5854101966249685, b4 = 0.1381966011250105;
	double ch[8][4][4];
	int s, q, k;

	if (nsamp == 1 || nsamp == 4) {
		for (s = 0; s < nsamp; s++)
			for (k = 0; k < 4; k++) {
				b[4 * s + k] = 0;
				for (q = 0; q < 4; q++)
					b[4 * s + k] += c[q][k] * (nsamp == 1 ? 0.25 :
								   q == s ? a4 : b4);
			}
		return;
	}
	children(c, ch);
	for (s = 0; s < 8; s++)
		rule_in(ch[s], nsamp / 8, b + 4 * (size_t)s * (nsamp / 8));
}

int
kdsm_rule(int nsamp, double *b)
{
	static const double id[4][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 },
					 { 0, 0, 0, 1 } };

	if (nsamp != 1 && nsamp != 4 && nsamp != 8 && nsamp != 32 && nsamp != 64)
		return -1;
	if (b)
		rule_in(id, nsamp, b);
	return 0;
}

void
kdsm_lattice_free(kdsm_lattice *L)
{
	free(L->X);
	free(L->tet);
	free(L->inside);
	free(L->ctri);
	free(L->cw);
	free(L->atet);
	free(L->R);
	free(L->ab);
	memset(L, 0, sizeof *L);
}

/* Barycentrics of p in tet t of L (rest), and the smallest of them. */
static double
bary(const kdsm_lattice *L, size_t t, const double p[3], double b[4])
{
	const uint32_t *q = L->tet + 4 * t;
	const double *x[4] = { L->X + 3 * q[0], L->X + 3 * q[1], L->X + 3 * q[2],
			       L->X + 3 * q[3] };
	double V = kdsm_tet_volume(x[0], x[1], x[2], x[3]), lo = INFINITY;
	int k;

	for (k = 0; k < 4; k++) {
		const double *y[4] = { x[0], x[1], x[2], x[3] };

		y[k] = p;
		b[k] = kdsm_tet_volume(y[0], y[1], y[2], y[3]) / V;
		lo = fmin(lo, b[k]);
	}
	return lo;
}

/* The tet holding a skin vertex: the candidate it is deepest in. */
typedef struct holder {
	const kdsm_lattice *L;
	const double *p;
	double best, b[4];
	int64_t t;
} holder;

static void
holder_try(void *ctx, uint32_t t)
{
	holder *h = ctx;
	double b[4], lo = bary(h->L, t, h->p, b);

	if (lo > h->best || (lo == h->best && (int64_t)t < h->t)) {
		h->best = lo;
		h->t = t;
		memcpy(h->b, b, sizeof b);
	}
}

/* Anchors (§2: zero-length springs from each skin vertex to its
 * barycentric point in the mesh) and each node's nearest rest skin point. */
static int
embed(kdsm_lattice *L, const kdsm_skin *s, const double *R, slc_err *err)
{
	double *lo = slc_malloc(L->nt, 3 * sizeof *lo, err), *hi;
	boxtree bt = { 0 };
	bvh b = { 0 };
	size_t t;
	long i;
	int k, a;

	hi = lo ? slc_malloc(L->nt, 3 * sizeof *hi, err) : NULL;
	if (!hi) {
		free(lo);
		return -1;
	}
	for (t = 0; t < L->nt; t++)
		for (a = 0; a < 3; a++) {
			lo[3 * t + a] = INFINITY;
			hi[3 * t + a] = -INFINITY;
			for (k = 0; k < 4; k++) {
				lo[3 * t + a] = fmin(lo[3 * t + a], L->X[3 * L->tet[4 * t + k] + a]);
				hi[3 * t + a] = fmax(hi[3 * t + a], L->X[3 * L->tet[4 * t + k] + a]);
			}
		}
	if (boxtree_build(&bt, L->nt, lo, hi, err) || bvh_build(&b, R, s->nv, s->tri, s->nt, err)) {
		boxtree_free(&bt);
		free(lo);
		free(hi);
		return -1;
	}
	free(lo);
	free(hi);
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)s->nv; i++) {
		holder h = { L, R + 3 * i, -INFINITY, { 0 }, -1 };

		boxtree_query(&bt, R + 3 * i, R + 3 * i, holder_try, &h);
		L->atet[i] = (int32_t)h.t;
		memcpy(L->ab + 4 * i, h.b, sizeof h.b);
	}
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)L->nn; i++) {
		bvh_hit hit;

		bvh_closest(&b, L->X + 3 * i, INFINITY, &hit);
		L->ctri[i] = (int32_t)hit.tri;
		memcpy(L->cw + 3 * i, hit.w, sizeof hit.w);
	}
	boxtree_free(&bt);
	bvh_free(&b);
	return 0;
}

int
kdsm_lattice_build(kdsm_lattice *L, const kdsm_skin *s, double h, double delta,
		   int levels, int nsamp, slc_err *err)
{
	const double *R = s->R ? s->R : s->P;
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	int n[3], a, k, rc = -1;
	field fc = { 0 }, fm = { 0 };
	sdf_opts o;
	size_t nc, nm, ntmax, v, t, nkeep = 0, q;
	uint32_t *old = NULL, *map = NULL;
	float *phi = NULL;

	memset(L, 0, sizeof *L);
	if (!(h > 0) || !(delta >= 0) || levels < 0 || levels > KDSM_LEVELS_MAX ||
	    kdsm_rule(nsamp, NULL))
		return slc_fail(err, "lattice: spacing %g, shell %g, levels %d, samples %d: "
				"expected > 0, >= 0, 0..%d, one of 1 4 8 32 64", h, delta,
				levels, nsamp, KDSM_LEVELS_MAX);
	if (!s->nv || !s->nt)
		return slc_fail(err, "lattice: the skin has no triangles");
	for (v = 0; v < s->nv; v++)
		for (a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], R[3 * v + a]);
			hi[a] = fmax(hi[a], R[3 * v + a]);
		}
	for (a = 0; a < 3; a++) {
		double ext = hi[a] - lo[a] + 2 * (delta + h);

		if (!(ext / h < KDSM_AXIS_MAX))
			return slc_fail(err, "lattice: %g cells along an axis, at most %d",
					ext / h, KDSM_AXIS_MAX);
		n[a] = (int)ceil(ext / h);
		lo[a] -= delta + h;
	}
	o = (sdf_opts){ ceil(delta / h) + KDSM_REST_BAND, 0, 0 };
	if (field_alloc(&fc, n[0], n[1], n[2], SLC_NODE, lo, h, err) ||
	    field_alloc(&fm, n[0], n[1], n[2], SLC_CELL, lo, h, err) ||
	    sdf_mesh(&fc, R, s->nv, s->tri, s->nt, &o, NULL, NULL, err) ||
	    sdf_mesh(&fm, R, s->nv, s->tri, s->nt, &o, NULL, NULL, err))
		goto out;
	nc = field_count(&fc);
	nm = field_count(&fm);
	ntmax = 12 * nm;
	old = slc_malloc(ntmax, 4 * sizeof *old, err);
	map = old ? slc_malloc(nc + nm, sizeof *map, err) : NULL;
	phi = map ? slc_malloc(nc + nm, sizeof *phi, err) : NULL;
	if (!phi)
		goto out;
	memcpy(phi, fc.a, nc * sizeof *phi);
	memcpy(phi + nc, fm.a, nm * sizeof *phi);
	/* Molino et al. (§2, fig. 2): each tet is two face-adjacent cube
	 * centres and one edge of their shared face, 12 per cube */
	for (a = 0; a < 3; a++) {
		int u = (a + 1) % 3, w = (a + 2) % 3, c[3];

		for (c[2] = 0; c[2] < n[2]; c[2]++)
			for (c[1] = 0; c[1] < n[1]; c[1]++)
				for (c[0] = 0; c[0] < n[0] - (a == 0); c[0]++) {
					int d[3] = { c[0], c[1], c[2] }, sq[4][3], e;

					if (d[a] + 1 >= n[a])
						continue;
					d[a]++;
					for (e = 0; e < 4; e++) {
						memcpy(sq[e], d, sizeof d);
						sq[e][u] += e == 1 || e == 2;
						sq[e][w] += e >= 2;
					}
					for (e = 0; e < 4; e++) {
						const int *p = sq[e], *pq = sq[(e + 1) % 4];
						uint32_t *T = old + 4 * nkeep;
						int keep = 0;

						T[0] = (uint32_t)(nc + c[0] + (size_t)n[0] * (c[1] + (size_t)n[1] * c[2]));
						T[1] = (uint32_t)(nc + d[0] + (size_t)n[0] * (d[1] + (size_t)n[1] * d[2]));
						T[2] = (uint32_t)(p[0] + (size_t)(n[0] + 1) * (p[1] + (size_t)(n[1] + 1) * p[2]));
						T[3] = (uint32_t)(pq[0] + (size_t)(n[0] + 1) * (pq[1] + (size_t)(n[1] + 1) * pq[2]));
						/* §2: the thickened level set phi - delta <= 0 */
						for (k = 0; k < 4; k++)
							keep |= phi[T[k]] - delta <= 0;
						nkeep += keep;
					}
				}
	}
	if (!nkeep) {
		slc_fail(err, "lattice: no tet within %g of the skin's inside", delta);
		goto out;
	}
	for (q = 0; q < nc + nm; q++)
		map[q] = UINT32_MAX;
	for (t = 0; t < 4 * nkeep; t++)
		map[old[t]] = 0;
	for (q = 0; q < nc + nm; q++)
		if (map[q] == 0)
			map[q] = (uint32_t)L->nn++;
	L->nt = nkeep;
	L->X = slc_malloc(L->nn, 3 * sizeof *L->X, err);
	L->tet = L->X ? slc_malloc(L->nt, 4 * sizeof *L->tet, err) : NULL;
	L->inside = L->tet ? slc_malloc(L->nn, 1, err) : NULL;
	L->ctri = L->inside ? slc_malloc(L->nn, sizeof *L->ctri, err) : NULL;
	L->cw = L->ctri ? slc_malloc(L->nn, 3 * sizeof *L->cw, err) : NULL;
	L->atet = L->cw ? slc_malloc(s->nv, sizeof *L->atet, err) : NULL;
	L->ab = L->atet ? slc_malloc(s->nv, 4 * sizeof *L->ab, err) : NULL;
	L->R = L->ab ? slc_malloc(s->nv, 3 * sizeof *L->R, err) : NULL;
	if (!L->R)
		goto out;
	memcpy(L->R, R, s->nv * 3 * sizeof *L->R);
	for (q = 0; q < nc + nm; q++) {
		double *x;

		if (map[q] == UINT32_MAX)
			continue;
		x = L->X + 3 * map[q];
		if (q < nc) {
			size_t i = q % (size_t)(n[0] + 1), j = q / (size_t)(n[0] + 1) % (size_t)(n[1] + 1),
			       kk = q / (size_t)(n[0] + 1) / (size_t)(n[1] + 1);

			x[0] = lo[0] + h * (double)i;
			x[1] = lo[1] + h * (double)j;
			x[2] = lo[2] + h * (double)kk;
		} else {
			size_t m = q - nc, i = m % (size_t)n[0], j = m / (size_t)n[0] % (size_t)n[1],
			       kk = m / (size_t)n[0] / (size_t)n[1];

			x[0] = lo[0] + h * ((double)i + 0.5);
			x[1] = lo[1] + h * ((double)j + 0.5);
			x[2] = lo[2] + h * ((double)kk + 0.5);
		}
		L->inside[map[q]] = phi[q] < 0;
	}
	for (t = 0; t < L->nt; t++) {
		uint32_t *T = L->tet + 4 * t;

		for (k = 0; k < 4; k++)
			T[k] = map[old[4 * t + k]];
		if (kdsm_tet_volume(L->X + 3 * T[0], L->X + 3 * T[1], L->X + 3 * T[2],
				    L->X + 3 * T[3]) < 0) {
			uint32_t sw = T[2];

			T[2] = T[3];
			T[3] = sw;
		}
	}
	L->h = h;
	L->levels = levels;
	L->nsamp = nsamp;
	L->ns = s->nv;
	L->nst = s->nt;
	rc = embed(L, s, R, err);
out:
	field_free(&fc);
	field_free(&fm);
	free(old);
	free(map);
	free(phi);
	if (rc)
		kdsm_lattice_free(L);
	return rc;
}
