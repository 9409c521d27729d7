/* kdsm_refine.c: red subdivision of a tet mesh (kdsm.h), §3.1 "we
 * subdivide using [28] (Molino et al.), only the subdivision": every tet
 * into 4 corner tets and the 4 tets of its middle octahedron, split along
 * the octahedron's shortest diagonal in the rest positions, so that BCC
 * tets give BCC tets at half the spacing. */
#include "kdsm/kdsm.h"

#include <stdlib.h>
#include <string.h>

/* Edge midpoints by their end nodes: open addressing, keys a < b. */
typedef struct emap {
	size_t cap;             /* power of two */
	uint64_t *key;          /* (a << 32 | b) + 1, 0 empty */
	uint32_t *val;
} emap;

static uint32_t
emap_get(emap *h, uint32_t a, uint32_t b, uint32_t next, int *made)
{
	uint64_t key = (a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a) + 1;
	size_t s = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (h->cap - 1);

	while (h->key[s]) {
		if (h->key[s] == key) {
			*made = 0;
			return h->val[s];
		}
		s = (s + 1) & (h->cap - 1);
	}
	h->key[s] = key;
	h->val[s] = next;
	*made = 1;
	return next;
}

static double
dist2(const double *x, const double *y)
{
	return (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
	       (x[2] - y[2]) * (x[2] - y[2]);
}

void
kdsm_refine_points(double *x, size_t nn, size_t fnn, const uint32_t *par)
{
	size_t v;
	int a;

	for (v = nn; v < fnn; v++)
		for (a = 0; a < 3; a++)
			x[3 * v + a] = 0.5 * (x[3 * par[2 * (v - nn)] + a] +
					      x[3 * par[2 * (v - nn) + 1] + a]);
}

/* One level: tets T (nt) over nodes X (nn, room for the new ones) into
 * U (8 nt), new nodes' parents appended to par from slot nn - base. */
static int
level(const uint32_t *T, size_t nt, double *X, size_t *nn, size_t base,
      uint32_t *par, uint32_t *U, slc_err *err)
{
	static const int edge[6][2] = { { 0, 1 }, { 2, 3 }, { 0, 2 }, { 1, 3 }, { 0, 3 }, { 1, 2 } };
	/* edge slots of each corner's three edges, and the octahedron: the
	 * diagonal pair d (edges 2d, 2d+1) and its ring of the other four */
	static const int corner[4][3] = { { 0, 2, 4 }, { 0, 5, 3 }, { 2, 5, 1 }, { 4, 3, 1 } };
	static const int ring[3][4] = { { 2, 4, 3, 5 }, { 0, 4, 1, 5 }, { 0, 2, 1, 3 } };
	emap h;
	size_t t;

	for (h.cap = 16; h.cap < 4 * nt + 16; h.cap *= 2)
		;
	h.key = slc_calloc(h.cap, sizeof *h.key, err);
	h.val = h.key ? slc_malloc(h.cap, sizeof *h.val, err) : NULL;
	if (!h.val) {
		free(h.key);
		return -1;
	}
	for (t = 0; t < nt; t++) {
		const uint32_t *q = T + 4 * t;
		uint32_t m[6], *c = U + 32 * t;
		double best = 0;
		int e, d = 0, k, made;

		for (e = 0; e < 6; e++) {
			uint32_t a = q[edge[e][0]], b = q[edge[e][1]];

			m[e] = emap_get(&h, a, b, (uint32_t)*nn, &made);
			if (made) {
				par[2 * (*nn - base)] = a < b ? a : b;
				par[2 * (*nn - base) + 1] = a < b ? b : a;
				kdsm_refine_points(X, *nn, *nn + 1, par + 2 * (*nn - base));
				(*nn)++;
			}
		}
		for (k = 0; k < 3; k++) {
			double l = dist2(X + 3 * m[2 * k], X + 3 * m[2 * k + 1]);

			if (k == 0 || l < best) {
				best = l;
				d = k;
			}
		}
		for (k = 0; k < 4; k++) {
			uint32_t *u = c + 4 * k, *o = c + 16 + 4 * k;

			u[0] = q[k];
			u[1] = m[corner[k][0]];
			u[2] = m[corner[k][1]];
			u[3] = m[corner[k][2]];
			o[0] = m[2 * d];
			o[1] = m[2 * d + 1];
			o[2] = m[ring[d][k]];
			o[3] = m[ring[d][(k + 1) % 4]];
		}
		for (k = 0; k < 8; k++) {
			uint32_t *u = c + 4 * k;

			if (kdsm_tet_volume(X + 3 * u[0], X + 3 * u[1], X + 3 * u[2],
					    X + 3 * u[3]) < 0) {
				uint32_t sw = u[2];

				u[2] = u[3];
				u[3] = sw;
			}
		}
	}
	free(h.key);
	free(h.val);
	return 0;
}

int
kdsm_refine(const uint32_t *tet, size_t nt, const double *X, size_t nn,
	    int levels, uint32_t **ftet, size_t *fnt, uint32_t **par, size_t *fnn,
	    slc_err *err)
{
	size_t ntl = nt, maxn = nn, maxt = nt, nodes = nn;
	uint32_t *T = NULL, *U;
	double *Y;
	int l;

	*ftet = NULL;
	*par = NULL;
	for (l = 0; l < levels; l++) {
		/* at most 6 new nodes per tet and level */
		if (slc_mul(maxt, 8, &maxt) || slc_add(maxn, 6 * (maxt / 8), &maxn) ||
		    maxn > UINT32_MAX)
			return slc_fail(err, "subdivision: %zu tets after %d levels is too many",
					maxt, levels);
	}
	Y = slc_malloc(maxn, 3 * sizeof *Y, err);
	*par = Y ? slc_malloc(maxn - nn + 1, 2 * sizeof **par, err) : NULL;
	T = *par ? slc_malloc(maxt, 4 * sizeof *T, err) : NULL;
	U = T ? slc_malloc(maxt, 4 * sizeof *U, err) : NULL;
	if (!U) {
		free(Y);
		free(*par);
		free(T);
		*par = NULL;
		return -1;
	}
	memcpy(Y, X, nn * 3 * sizeof *Y);
	memcpy(T, tet, nt * 4 * sizeof *T);
	for (l = 0; l < levels; l++, ntl *= 8) {
		uint32_t *sw;

		if (level(T, ntl, Y, &nodes, nn, *par, U, err)) {
			free(Y);
			free(*par);
			free(T);
			free(U);
			*par = NULL;
			return -1;
		}
		sw = T;
		T = U;
		U = sw;
	}
	free(Y);
	free(U);
	*ftet = T;
	*fnt = ntl;
	*fnn = nodes;
	return 0;
}
