/* surface.c: indexed triangle meshes of the surfacer: storage, the mesh
 * record, area and volume, exact topology checks, volume-keeping Taubin
 * smoothing. */
#include "liquid/surface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Taubin 1995, §4: lambda > 0 shrinks, mu < -lambda inflates; the pass
 * band edge k_PB = 1/lambda + 1/mu ~ 0.1 for these values. */
static const double TAUBIN_LAMBDA = 0.5;
static const double TAUBIN_MU = -0.53;
/* offsets along the normals per pass that bring the volume back */
#define VOLUME_FIXES 3

void
surf_mesh_free(surf_mesh *m)
{
	free(m->P);
	free(m->N);
	free(m->tri);
	memset(m, 0, sizeof *m);
}

int
surf_mesh_reserve(surf_mesh *m, size_t nv, size_t nt, slc_err *err)
{
	size_t bv, bt;
	void *p, *n, *t;

	if (slc_mul(nv, 3 * sizeof(float), &bv) || slc_mul(nt, 3 * sizeof(uint32_t), &bt))
		return slc_fail(err, "mesh of %zu vertices, %zu triangles overflows", nv, nt);
	p = realloc(m->P, bv ? bv : 1);
	if (p)
		m->P = p;
	n = realloc(m->N, bv ? bv : 1);
	if (n)
		m->N = n;
	t = realloc(m->tri, bt ? bt : 1);
	if (t)
		m->tri = t;
	if (!p || !n || !t)
		return slc_fail(err, "out of memory for a mesh of %zu vertices", nv);
	return 0;
}

int
surf_mesh_to_rec(const surf_mesh *m, slc_rec *r, const char *name, double time,
		 slc_err *err)
{
	float *P, *N;
	uint32_t *tri;

	if (m->nv > UINT32_MAX)
		return slc_fail(err, "mesh has %zu vertices, more than 32-bit indices hold",
				m->nv);
	slc_rec_init(r, SLC_MESH, name);
	r->time = time;
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, m->nv, err);
	N = P ? slc_rec_add(r, "N", SLC_F32, 3, SLC_POINT, m->nv, err) : NULL;
	tri = N ? slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, m->nt, err) : NULL;
	if (!tri) {
		slc_rec_free(r);
		return -1;
	}
	if (m->nv) {
		memcpy(P, m->P, m->nv * 3 * sizeof *P);
		memcpy(N, m->N, m->nv * 3 * sizeof *N);
	}
	if (m->nt)
		memcpy(tri, m->tri, m->nt * 3 * sizeof *tri);
	return 0;
}

static void
sub3(const float *a, const float *b, double r[3])
{
	r[0] = (double)a[0] - b[0];
	r[1] = (double)a[1] - b[1];
	r[2] = (double)a[2] - b[2];
}

static void
cross3(const double a[3], const double b[3], double r[3])
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

static double
len3(const double a[3])
{
	return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Area and signed volume, summed in triangle order (deterministic). */
static void
measure(const surf_mesh *m, double *area, double *vol)
{
	double A = 0, V = 0;
	size_t t;

	for (t = 0; t < m->nt; t++) {
		const float *p0 = m->P + 3 * (size_t)m->tri[3 * t];
		const float *p1 = m->P + 3 * (size_t)m->tri[3 * t + 1];
		const float *p2 = m->P + 3 * (size_t)m->tri[3 * t + 2];
		double a[3], b[3], c[3], o[3] = { p0[0], p0[1], p0[2] };

		sub3(p1, p0, a);
		sub3(p2, p0, b);
		cross3(a, b, c);
		A += 0.5 * len3(c);
		/* divergence theorem: V = sum over triangles of p0.(a x b)/6 */
		V += (o[0] * c[0] + o[1] * c[1] + o[2] * c[2]) / 6;
	}
	*area = A;
	*vol = V;
}

int
surf_check(const surf_mesh *m, surf_stats *st, slc_err *err)
{
	uint64_t *e;
	unsigned char *used;
	size_t t, q, n = 3 * m->nt, nused = 0;

	memset(st, 0, sizeof *st);
	st->min_area = st->min_edge = INFINITY;
	for (q = 0; q < n; q++)
		if (m->tri[q] >= m->nv)
			return slc_fail(err, "triangle %zu: vertex %u out of range (%zu vertices)",
					q / 3, m->tri[q], m->nv);
	measure(m, &st->area, &st->volume);
	e = slc_calloc(n ? n : 1, sizeof *e, err);
	used = slc_calloc(m->nv ? m->nv : 1, 1, err);
	if (!e || !used) {
		free(e);
		free(used);
		return -1;
	}
	for (t = 0; t < m->nt; t++) {
		const uint32_t *v = m->tri + 3 * t;
		double a[3], b[3], c[3], area;
		int s;

		for (s = 0; s < 3; s++) {
			uint32_t a0 = v[s], a1 = v[(s + 1) % 3];
			uint64_t lo = a0 < a1 ? a0 : a1, hi = a0 < a1 ? a1 : a0;
			double d[3];

			/* key: undirected edge, low bit says the direction */
			e[3 * t + s] = (lo << 33) | (hi << 1) | (uint64_t)(a0 > a1);
			used[a0] = 1;
			sub3(m->P + 3 * (size_t)a1, m->P + 3 * (size_t)a0, d);
			if (len3(d) < st->min_edge)
				st->min_edge = len3(d);
		}
		sub3(m->P + 3 * (size_t)v[1], m->P + 3 * (size_t)v[0], a);
		sub3(m->P + 3 * (size_t)v[2], m->P + 3 * (size_t)v[0], b);
		cross3(a, b, c);
		area = 0.5 * len3(c);
		if (area < st->min_area)
			st->min_area = area;
		if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || !(area > 0))
			st->degenerate++;
	}
	qsort(e, n, sizeof *e, cmp_u64);
	for (q = 0; q < n;) {
		size_t r = q, fwd = 0;

		while (r < n && (e[r] >> 1) == (e[q] >> 1)) {
			fwd += !(e[r] & 1);
			r++;
		}
		st->nedges++;
		if (r - q == 1)
			st->boundary++;
		else if (r - q > 2)
			st->nonmanifold++;
		else if (fwd != 1)
			st->misoriented++;
		q = r;
	}
	for (q = 0; q < m->nv; q++)
		nused += used[q];
	st->unused = m->nv - nused;
	st->euler = (long)nused - (long)st->nedges + (long)m->nt;
	free(e);
	free(used);
	return 0;
}

/* Vertex neighbours as compressed rows: nbr[off[v] .. off[v+1]-1]. */
static int
neighbours(const surf_mesh *m, size_t **off_out, uint32_t **nbr_out, slc_err *err)
{
	size_t n = 6 * m->nt, q, w = 0, *off;
	uint64_t *e = slc_calloc(n ? n : 1, sizeof *e, err);
	uint32_t *nbr;

	if (!e)
		return -1;
	for (q = 0; q < m->nt; q++) {
		int s;

		for (s = 0; s < 3; s++) {
			uint64_t a = m->tri[3 * q + s], b = m->tri[3 * q + (s + 1) % 3];

			e[6 * q + 2 * s] = a << 32 | b;
			e[6 * q + 2 * s + 1] = b << 32 | a;
		}
	}
	qsort(e, n, sizeof *e, cmp_u64);
	off = slc_calloc(m->nv + 1, sizeof *off, err);
	nbr = slc_calloc(n ? n : 1, sizeof *nbr, err);
	if (!off || !nbr) {
		free(e);
		free(off);
		free(nbr);
		return -1;
	}
	for (q = 0; q < n; q++) {
		if (q && e[q] == e[q - 1])
			continue;
		nbr[w++] = (uint32_t)e[q];
		off[(e[q] >> 32) + 1]++;
	}
	for (q = 0; q < m->nv; q++)
		off[q + 1] += off[q];
	free(e);
	*off_out = off;
	*nbr_out = nbr;
	return 0;
}

/* Area-weighted vertex normals (unit; zero where no triangle). */
static void
face_normals(const surf_mesh *m, double *acc)
{
	size_t t, v;

	memset(acc, 0, m->nv * 3 * sizeof *acc);
	for (t = 0; t < m->nt; t++) {
		const uint32_t *tv = m->tri + 3 * t;
		double a[3], b[3], c[3];
		int s, d;

		sub3(m->P + 3 * (size_t)tv[1], m->P + 3 * (size_t)tv[0], a);
		sub3(m->P + 3 * (size_t)tv[2], m->P + 3 * (size_t)tv[0], b);
		cross3(a, b, c);
		for (s = 0; s < 3; s++)
			for (d = 0; d < 3; d++)
				acc[3 * (size_t)tv[s] + d] += c[d] / 2;
	}
	for (v = 0; v < m->nv; v++) {
		double l = len3(acc + 3 * v);

		for (int d = 0; d < 3; d++)
			acc[3 * v + d] = l > 0 ? acc[3 * v + d] / l : 0;
	}
}

/* One umbrella step x += f * (mean of neighbours - x), Jacobi style. */
static void
umbrella(surf_mesh *m, const size_t *off, const uint32_t *nbr, double f,
	 float *tmp)
{
	long v, nv = (long)m->nv;

#pragma omp parallel for schedule(static)
	for (v = 0; v < nv; v++) {
		double c[3] = { 0, 0, 0 };
		size_t q, deg = off[v + 1] - off[v];
		int d;

		for (q = off[v]; q < off[v + 1]; q++)
			for (d = 0; d < 3; d++)
				c[d] += m->P[3 * (size_t)nbr[q] + d];
		for (d = 0; d < 3; d++) {
			double x = m->P[3 * v + d];

			tmp[3 * v + d] = deg ? (float)(x + f * (c[d] / deg - x)) : (float)x;
		}
	}
	memcpy(m->P, tmp, m->nv * 3 * sizeof *tmp);
}

int
surf_smooth(surf_mesh *m, int n, double *vol_err, slc_err *err)
{
	size_t *off = NULL, v;
	uint32_t *nbr = NULL;
	float *tmp;
	double *nrm, A, V0, V;
	int pass, fix;

	if (vol_err)
		*vol_err = 0;
	if (m->nv == 0)
		return 0;
	tmp = slc_calloc(m->nv * 3, sizeof *tmp, err);
	nrm = slc_calloc(m->nv * 3, sizeof *nrm, err);
	if (!tmp || !nrm || neighbours(m, &off, &nbr, err)) {
		free(tmp);
		free(nrm);
		return -1;
	}
	measure(m, &A, &V0);
	for (pass = 0; pass < n; pass++) {
		umbrella(m, off, nbr, TAUBIN_LAMBDA, tmp);
		umbrella(m, off, nbr, TAUBIN_MU, tmp);
		/* volume correction: moving every vertex by h along its unit
		 * area-weighted normal changes V by h*A + O(h^2) */
		for (fix = 0; fix < VOLUME_FIXES; fix++) {
			double h;

			measure(m, &A, &V);
			if (!(A > 0))
				break;
			h = (V0 - V) / A;
			face_normals(m, nrm);
			for (v = 0; v < 3 * m->nv; v++)
				m->P[v] = (float)(m->P[v] + h * nrm[v]);
		}
	}
	measure(m, &A, &V);
	if (vol_err)
		*vol_err = V0 != 0 ? (V - V0) / fabs(V0) : V;
	face_normals(m, nrm);
	for (v = 0; v < 3 * m->nv; v++)
		m->N[v] = (float)nrm[v];
	free(tmp);
	free(nrm);
	free(off);
	free(nbr);
	return 0;
}
