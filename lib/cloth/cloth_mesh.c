/* cloth_mesh.c: edges, bending pairs, normals and sheets (see cloth_mesh.h). */
#include "cloth/cloth_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A half-edge key for sorting: (min vertex, max vertex, triangle, opposite). */
typedef struct hedge {
	uint32_t a, b, t, opp;
} hedge;

static int
hedge_cmp(const void *pa, const void *pb)
{
	const hedge *p = pa, *q = pb;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	return 0;
}

int
cloth_mesh_build(cloth_mesh *m, size_t np, size_t nt, const uint32_t *tri,
		 slc_err *err)
{
	hedge *h;
	size_t n3, i, e, nh;

	memset(m, 0, sizeof *m);
	if (np > UINT32_MAX - 1 || nt > UINT32_MAX - 1)
		return slc_fail(err, "mesh too large (%zu points, %zu triangles)",
				np, nt);
	if (slc_mul(nt, 3, &n3))
		return slc_fail(err, "triangle count overflows");
	m->np = np;
	m->nt = nt;
	m->tri = slc_calloc(n3 ? n3 : 1, sizeof *m->tri, err);
	if (!m->tri)
		return -1;
	memcpy(m->tri, tri, n3 * sizeof *tri);
	for (i = 0; i < nt; i++) {
		const uint32_t *t = m->tri + 3 * i;
		if (t[0] >= np || t[1] >= np || t[2] >= np) {
			cloth_mesh_free(m);
			return slc_fail(err, "triangle %zu: vertex index out of "
					"range (%zu points)", i, np);
		}
		if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
			cloth_mesh_free(m);
			return slc_fail(err, "triangle %zu: repeated vertex", i);
		}
	}
	h = slc_calloc(n3 ? n3 : 1, sizeof *h, err);
	if (!h) {
		cloth_mesh_free(m);
		return -1;
	}
	for (i = 0; i < nt; i++)
		for (int c = 0; c < 3; c++) {
			uint32_t a = m->tri[3 * i + c], b = m->tri[3 * i + (c + 1) % 3];
			hedge *q = h + 3 * i + c;
			q->a = a < b ? a : b;
			q->b = a < b ? b : a;
			q->t = (uint32_t)i;
			q->opp = m->tri[3 * i + (c + 2) % 3];
		}
	nh = n3;
	qsort(h, nh, sizeof *h, hedge_cmp);
	/* count unique edges and interior edges */
	for (i = 0; i < nh; ) {
		size_t j = i + 1;
		while (j < nh && h[j].a == h[i].a && h[j].b == h[i].b)
			j++;
		if (j - i > 2) {
			uint32_t a = h[i].a, b = h[i].b;
			free(h);
			cloth_mesh_free(m);
			return slc_fail(err, "edge %u-%u is shared by %zu triangles "
					"(non-manifold)", a, b, j - i);
		}
		m->ne++;
		m->nb += (j - i == 2);
		i = j;
	}
	m->edge = slc_calloc(2 * m->ne + 1, sizeof *m->edge, err);
	m->edge_tri = slc_calloc(2 * m->ne + 1, sizeof *m->edge_tri, err);
	m->bend = slc_calloc(4 * m->nb + 1, sizeof *m->bend, err);
	if (!m->edge || !m->edge_tri || !m->bend) {
		free(h);
		cloth_mesh_free(m);
		return -1;
	}
	e = 0;
	size_t b = 0;
	for (i = 0; i < nh; ) {
		size_t j = i + 1;
		while (j < nh && h[j].a == h[i].a && h[j].b == h[i].b)
			j++;
		m->edge[2 * e] = h[i].a;
		m->edge[2 * e + 1] = h[i].b;
		m->edge_tri[2 * e] = h[i].t;
		m->edge_tri[2 * e + 1] = j - i == 2 ? h[i + 1].t : UINT32_MAX;
		if (j - i == 2) {
			m->bend[4 * b] = h[i].a;
			m->bend[4 * b + 1] = h[i].b;
			m->bend[4 * b + 2] = h[i].opp;
			m->bend[4 * b + 3] = h[i + 1].opp;
			b++;
		}
		e++;
		i = j;
	}
	free(h);
	return 0;
}

void
cloth_mesh_free(cloth_mesh *m)
{
	free(m->tri);
	free(m->edge);
	free(m->edge_tri);
	free(m->bend);
	memset(m, 0, sizeof *m);
}

int
cloth_sheet(int nu, int nv, const double o[3], const double eu[3],
	    const double ev[3], double su, double sv, double **x, size_t *np,
	    uint32_t **tri, size_t *nt, slc_err *err)
{
	size_t n, ntr;

	*x = NULL;
	*tri = NULL;
	if (nu < 1 || nv < 1 || nu > 1 << 15 || nv > 1 << 15)
		return slc_fail(err, "bad sheet resolution %dx%d", nu, nv);
	n = (size_t)(nu + 1) * (size_t)(nv + 1);
	ntr = 2 * (size_t)nu * (size_t)nv;
	*x = slc_calloc(3 * n, sizeof **x, err);
	*tri = slc_calloc(3 * ntr, sizeof **tri, err);
	if (!*x || !*tri) {
		free(*x);
		free(*tri);
		*x = NULL;
		*tri = NULL;
		return -1;
	}
	for (int j = 0; j <= nv; j++)
		for (int i = 0; i <= nu; i++) {
			double *p = *x + 3 * ((size_t)j * (nu + 1) + i);
			for (int c = 0; c < 3; c++)
				p[c] = o[c] + su * i / nu * eu[c] + sv * j / nv * ev[c];
		}
	size_t t = 0;
	for (int j = 0; j < nv; j++)
		for (int i = 0; i < nu; i++) {
			uint32_t v00 = (uint32_t)(j * (nu + 1) + i);
			uint32_t v10 = v00 + 1, v01 = v00 + (uint32_t)(nu + 1);
			uint32_t v11 = v01 + 1;
			uint32_t *q = *tri + 3 * t;
			/* herring-bone: the diagonal flips with the column */
			if (i % 2 == 0) {
				q[0] = v00; q[1] = v10; q[2] = v11;
				q[3] = v00; q[4] = v11; q[5] = v01;
			} else {
				q[0] = v00; q[1] = v10; q[2] = v01;
				q[3] = v10; q[4] = v11; q[5] = v01;
			}
			t += 2;
		}
	*np = n;
	*nt = ntr;
	return 0;
}

void
cloth_mesh_normals(const cloth_mesh *m, const double *x, double *n,
		   double *area)
{
	if (n)
		memset(n, 0, 3 * m->np * sizeof *n);
	if (area)
		memset(area, 0, m->np * sizeof *area);
	for (size_t t = 0; t < m->nt; t++) {
		const uint32_t *q = m->tri + 3 * t;
		const double *a = x + 3 * q[0], *b = x + 3 * q[1], *c = x + 3 * q[2];
		double u[3], w[3], cr[3];
		for (int k = 0; k < 3; k++) {
			u[k] = b[k] - a[k];
			w[k] = c[k] - a[k];
		}
		cr[0] = u[1] * w[2] - u[2] * w[1];
		cr[1] = u[2] * w[0] - u[0] * w[2];
		cr[2] = u[0] * w[1] - u[1] * w[0];
		double ar = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
		for (int k = 0; k < 3; k++) {
			if (n)
				for (int c2 = 0; c2 < 3; c2++)
					n[3 * q[k] + c2] += cr[c2];
			if (area)
				area[q[k]] += ar / 3;
		}
	}
	if (n)
		for (size_t i = 0; i < m->np; i++) {
			double *p = n + 3 * i;
			double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
			if (l > 0)
				for (int c = 0; c < 3; c++)
					p[c] /= l;
		}
}
