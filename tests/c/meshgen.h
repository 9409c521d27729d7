/* meshgen.h: triangle meshes for the C tests of the distance code: an
 * icosphere and a box, both closed and oriented outward.  Test-only. */
#ifndef SLC_TEST_MESHGEN_H
#define SLC_TEST_MESHGEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tmesh {
	double *P;
	uint32_t *tri;
	size_t nv, nt;
} tmesh;

static inline void
tmesh_free(tmesh *m)
{
	free(m->P);
	free(m->tri);
	memset(m, 0, sizeof *m);
}

/* Midpoint of edge (a, b), pushed to the unit sphere; a small cache keyed
 * by the vertex pair keeps the mesh watertight. */
static inline uint32_t
ico_mid(tmesh *m, uint32_t a, uint32_t b, uint32_t *key, uint32_t *val,
	size_t *nkey)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a, v;
	size_t s;
	double x[3], l;
	int c;

	for (s = 0; s < *nkey; s++)
		if (key[2 * s] == lo && key[2 * s + 1] == hi)
			return val[s];
	for (c = 0; c < 3; c++)
		x[c] = (m->P[3 * a + c] + m->P[3 * b + c]) / 2;
	l = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
	v = (uint32_t)m->nv++;
	for (c = 0; c < 3; c++)
		m->P[3 * v + c] = x[c] / l;
	key[2 * *nkey] = lo;
	key[2 * *nkey + 1] = hi;
	val[(*nkey)++] = v;
	return v;
}

/* Unit icosphere subdivided `sub` times (20 * 4^sub triangles), then
 * scaled by r and moved to centre c. */
static inline void
icosphere(tmesh *m, int sub, double r, const double c[3])
{
	static const double ico_v[12][3] = {
		{ -1, 1.618033988749895, 0 }, { 1, 1.618033988749895, 0 },
		{ -1, -1.618033988749895, 0 }, { 1, -1.618033988749895, 0 },
		{ 0, -1, 1.618033988749895 }, { 0, 1, 1.618033988749895 },
		{ 0, -1, -1.618033988749895 }, { 0, 1, -1.618033988749895 },
		{ 1.618033988749895, 0, -1 }, { 1.618033988749895, 0, 1 },
		{ -1.618033988749895, 0, -1 }, { -1.618033988749895, 0, 1 },
	};
	static const uint32_t ico_f[20][3] = {
		{ 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 },
		{ 0, 10, 11 }, { 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 },
		{ 10, 7, 6 }, { 7, 1, 8 }, { 3, 9, 4 }, { 3, 4, 2 },
		{ 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 }, { 4, 9, 5 },
		{ 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 },
	};
	size_t maxt = 20, maxv, t, s;
	int i, q;

	for (i = 0; i < sub; i++)
		maxt *= 4;
	maxv = maxt / 2 + 2;
	m->P = calloc(maxv * 3, sizeof *m->P);
	m->tri = calloc(maxt * 3, sizeof *m->tri);
	m->nv = 12;
	m->nt = 20;
	for (i = 0; i < 12; i++) {
		double l = sqrt(ico_v[i][0] * ico_v[i][0] +
				ico_v[i][1] * ico_v[i][1] +
				ico_v[i][2] * ico_v[i][2]);
		for (q = 0; q < 3; q++)
			m->P[3 * i + q] = ico_v[i][q] / l;
	}
	memcpy(m->tri, ico_f, sizeof ico_f);
	for (i = 0; i < sub; i++) {
		uint32_t *nt = calloc(m->nt * 12, sizeof *nt);
		uint32_t *key = calloc(m->nt * 3 * 2, sizeof *key);
		uint32_t *val = calloc(m->nt * 3, sizeof *val);
		size_t nkey = 0;
		for (t = 0; t < m->nt; t++) {
			uint32_t a = m->tri[3 * t], b = m->tri[3 * t + 1],
				 c3 = m->tri[3 * t + 2];
			uint32_t ab = ico_mid(m, a, b, key, val, &nkey);
			uint32_t bc = ico_mid(m, b, c3, key, val, &nkey);
			uint32_t ca = ico_mid(m, c3, a, key, val, &nkey);
			uint32_t f[12] = { a, ab, ca, b, bc, ab, c3, ca, bc,
					   ab, bc, ca };
			memcpy(nt + 12 * t, f, sizeof f);
		}
		free(m->tri);
		free(key);
		free(val);
		m->tri = nt;
		m->nt *= 4;
	}
	for (s = 0; s < m->nv; s++)
		for (q = 0; q < 3; q++)
			m->P[3 * s + q] = m->P[3 * s + q] * r + c[q];
}

/* Axis-aligned box [lo, hi] as 12 triangles, outward. */
static inline void
boxmesh(tmesh *m, const double lo[3], const double hi[3])
{
	static const uint32_t f[12][3] = {
		{ 0, 2, 1 }, { 1, 2, 3 }, { 4, 5, 6 }, { 5, 7, 6 },
		{ 0, 1, 4 }, { 1, 5, 4 }, { 2, 6, 3 }, { 3, 6, 7 },
		{ 0, 4, 2 }, { 2, 4, 6 }, { 1, 3, 5 }, { 3, 7, 5 },
	};
	int v, q;

	m->nv = 8;
	m->nt = 12;
	m->P = calloc(24, sizeof *m->P);
	m->tri = calloc(36, sizeof *m->tri);
	for (v = 0; v < 8; v++)
		for (q = 0; q < 3; q++)
			m->P[3 * v + q] = (v >> q) & 1 ? hi[q] : lo[q];
	memcpy(m->tri, f, sizeof f);
}

/* Inside test for a closed convex mesh oriented outward: behind every
 * face plane. */
static inline int
convex_inside(const tmesh *m, const double x[3])
{
	size_t t;

	for (t = 0; t < m->nt; t++) {
		const double *a = m->P + 3 * m->tri[3 * t];
		const double *b = m->P + 3 * m->tri[3 * t + 1];
		const double *c = m->P + 3 * m->tri[3 * t + 2];
		double e1[3], e2[3], n[3], s = 0;
		int q;
		for (q = 0; q < 3; q++)
			e1[q] = b[q] - a[q], e2[q] = c[q] - a[q];
		n[0] = e1[1] * e2[2] - e1[2] * e2[1];
		n[1] = e1[2] * e2[0] - e1[0] * e2[2];
		n[2] = e1[0] * e2[1] - e1[1] * e2[0];
		for (q = 0; q < 3; q++)
			s += n[q] * (x[q] - a[q]);
		if (s > 0)
			return 0;
	}
	return 1;
}

#endif
