/* kdsm_hair.c: the hair volume fraction and mean hair direction per tet
 * of a baked frame (lee2019 §5): the water a tet holds at saturation is
 * lowered by the volume its hair takes, and the direction lets the water
 * stage drag more across the strands than along them.  See
 * kdsm_hair_fraction in kdsm.h. */
#include "kdsm/kdsm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Point location: the live tets binned by their boxes over a uniform
 * grid of cells about a fine edge wide. */
typedef struct tetbins {
	double lo[3], c;        /* origin and cell size */
	int n[3];
	size_t *start;          /* ncell + 1 */
	uint32_t *list;         /* tets per cell, ascending */
} tetbins;

static void
tet_box(const kdsm_mesh *m, size_t t, double lo[3], double hi[3])
{
	for (int a = 0; a < 3; a++) {
		lo[a] = INFINITY;
		hi[a] = -INFINITY;
		for (int k = 0; k < 4; k++) {
			double x = m->P[3 * m->tet[4 * t + k] + a];

			lo[a] = fmin(lo[a], x);
			hi[a] = fmax(hi[a], x);
		}
	}
}

static void
cell_range(const tetbins *B, const double lo[3], const double hi[3], int c0[3], int c1[3])
{
	for (int a = 0; a < 3; a++) {
		c0[a] = (int)fmax(0, floor((lo[a] - B->lo[a]) / B->c));
		c1[a] = (int)fmin(B->n[a] - 1, floor((hi[a] - B->lo[a]) / B->c));
	}
}

static int
bins_build(tetbins *B, const kdsm_mesh *m, double c, slc_err *err)
{
	double hi[3] = { -INFINITY, -INFINITY, -INFINITY }, lo[3], h[3];
	size_t t, ncell, *fill;
	int pass;

	memset(B, 0, sizeof *B);
	for (int a = 0; a < 3; a++)
		B->lo[a] = INFINITY;
	for (t = 0; t < m->nt; t++) {
		if (!m->alive[t])
			continue;
		tet_box(m, t, lo, h);
		for (int a = 0; a < 3; a++) {
			B->lo[a] = fmin(B->lo[a], lo[a]);
			hi[a] = fmax(hi[a], h[a]);
		}
	}
	B->c = c;
	for (int a = 0; a < 3; a++)
		B->n[a] = B->lo[a] <= hi[a] ? (int)fmin(1 << 12, floor((hi[a] - B->lo[a]) / c) + 1) : 1;
	if (!(B->lo[0] <= hi[0]))
		B->lo[0] = B->lo[1] = B->lo[2] = 0;
	if (slc_mul3((size_t)B->n[0], (size_t)B->n[1], (size_t)B->n[2], &ncell))
		return slc_fail(err, "hair: too many location cells");
	B->start = slc_calloc(ncell + 1, sizeof *B->start, err);
	fill = B->start ? slc_calloc(ncell, sizeof *fill, err) : NULL;
	if (!fill) {
		free(B->start);
		return -1;
	}
	/* count, then fill in tet order */
	for (pass = 0; pass < 2; pass++) {
		for (t = 0; t < m->nt; t++) {
			int c0[3], c1[3];

			if (!m->alive[t])
				continue;
			tet_box(m, t, lo, h);
			cell_range(B, lo, h, c0, c1);
			for (int k = c0[2]; k <= c1[2]; k++)
				for (int j = c0[1]; j <= c1[1]; j++)
					for (int i = c0[0]; i <= c1[0]; i++) {
						size_t q = (size_t)i + (size_t)B->n[0] * (j + (size_t)B->n[1] * k);

						if (pass == 0)
							B->start[q + 1]++;
						else
							B->list[B->start[q] + fill[q]++] = (uint32_t)t;
					}
		}
		if (pass == 0) {
			for (size_t q = 0; q < ncell; q++)
				B->start[q + 1] += B->start[q];
			B->list = slc_calloc(B->start[ncell] ? B->start[ncell] : 1, sizeof *B->list, err);
			if (!B->list) {
				free(fill);
				free(B->start);
				return -1;
			}
		}
	}
	free(fill);
	return 0;
}

/* The first live tet (in index order) holding x, or -1. */
static int64_t
locate(const tetbins *B, const kdsm_mesh *m, const double x[3])
{
	int c[3];
	size_t q, e;

	for (int a = 0; a < 3; a++) {
		double f = floor((x[a] - B->lo[a]) / B->c);

		if (!(f >= 0 && f < B->n[a]))
			return -1;
		c[a] = (int)f;
	}
	q = (size_t)c[0] + (size_t)B->n[0] * (c[1] + (size_t)B->n[1] * c[2]);
	for (e = B->start[q]; e < B->start[q + 1]; e++) {
		const uint32_t *T = m->tet + 4 * B->list[e];
		const double *p[4] = { m->P + 3 * T[0], m->P + 3 * T[1], m->P + 3 * T[2],
				       m->P + 3 * T[3] };
		double V = kdsm_tet_volume(p[0], p[1], p[2], p[3]), tol = -1e-9 * fabs(V);
		int in = V > 0;

		for (int k = 0; k < 4 && in; k++) {
			const double *r[4] = { p[0], p[1], p[2], p[3] };

			r[k] = x;
			in = kdsm_tet_volume(r[0], r[1], r[2], r[3]) >= tol;
		}
		if (in)
			return B->list[e];
	}
	return -1;
}

int
kdsm_hair_fraction(kdsm_mesh *m, const float *P, size_t np, const uint32_t *off,
		   size_t ns, double r, kdsm_stats *st, slc_err *err)
{
	double *hv = NULL, *hd = NULL, edge = 0, piece;
	size_t t, s, nedge = 0;
	tetbins B;

	if (!(r >= 0) || !isfinite(r))
		return slc_fail(err, "hair: radius %g, expected >= 0", r);
	if (off[0] != 0 || off[ns] != np)
		return slc_fail(err, "hair: strand offsets run 0..%u, expected 0..%zu", off[ns], np);
	for (s = 0; s < ns; s++)
		if (off[s + 1] < off[s])
			return slc_fail(err, "hair: strand %zu: offsets decrease", s);
	/* the mean fine edge sets the piece length */
	for (t = 0; t < m->nt; t++)
		for (int k = 1; k < 4 && m->alive[t]; k++) {
			const double *a = m->P + 3 * m->tet[4 * t], *b = m->P + 3 * m->tet[4 * t + k];

			edge += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
				     (a[2] - b[2]) * (a[2] - b[2]));
			nedge++;
		}
	if (!nedge)
		return slc_fail(err, "hair: no live tet");
	edge /= (double)nedge;
	piece = KDSM_HAIR_PIECE * edge;
	free(m->hair);
	free(m->hair_dir);
	m->hair = slc_calloc(m->nt ? m->nt : 1, sizeof *m->hair, err);
	m->hair_dir = m->hair ? slc_calloc(m->nt ? m->nt : 1, 3 * sizeof *m->hair_dir, err) : NULL;
	hv = m->hair_dir ? slc_calloc(m->nt ? m->nt : 1, sizeof *hv, err) : NULL;
	hd = hv ? slc_calloc(m->nt ? m->nt : 1, 3 * sizeof *hd, err) : NULL;
	if (!hd || bins_build(&B, m, edge, err)) {
		free(hv);
		free(hd);
		return -1;
	}
	for (s = 0; s < ns; s++)
		for (size_t p = off[s]; p + 1 < off[s + 1]; p++) {
			double a[3], d[3], len;
			int n;

			for (int c = 0; c < 3; c++) {
				a[c] = P[3 * p + c];
				d[c] = (double)P[3 * p + 3 + c] - a[c];
			}
			len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
			if (!(len > 0))
				continue;
			n = (int)fmin(1e6, ceil(len / piece));
			for (int q = 0; q < n; q++) {
				double x[3], f = (q + 0.5) / n, w = len / n, sg;
				int64_t tt;

				for (int c = 0; c < 3; c++)
					x[c] = a[c] + f * d[c];
				if ((tt = locate(&B, m, x)) < 0) {
					st->hair_outside++;
					continue;
				}
				hv[tt] += M_PI * r * r * w;
				st->hair_volume += M_PI * r * r * w;
				/* a strand has no sign: turn it to agree */
				sg = hd[3 * tt] * d[0] + hd[3 * tt + 1] * d[1] + hd[3 * tt + 2] * d[2] < 0 ? -1 : 1;
				for (int c = 0; c < 3; c++)
					hd[3 * tt + c] += sg * w * d[c] / len;
			}
		}
	for (t = 0; t < m->nt; t++) {
		const uint32_t *T = m->tet + 4 * t;
		double V = kdsm_tet_volume(m->P + 3 * T[0], m->P + 3 * T[1], m->P + 3 * T[2],
					   m->P + 3 * T[3]);
		double f = V > 0 ? hv[t] / V : 0, room = fmax(0, 1 - m->occ[t]);
		double l = sqrt(hd[3 * t] * hd[3 * t] + hd[3 * t + 1] * hd[3 * t + 1] +
				hd[3 * t + 2] * hd[3 * t + 2]);

		if (!m->alive[t])
			continue;
		if (f > room) {
			f = room;
			st->hair_clamped++;
		}
		m->hair[t] = (float)f;
		for (int c = 0; c < 3 && l > 0; c++)
			m->hair_dir[3 * t + c] = (float)(hd[3 * t + c] / l);
		/* §3.1, §5: the saturation volume V (1 - occ - hair) */
		m->cap[t] = V * fmax(0, 1 - m->occ[t] - f);
	}
	free(B.start);
	free(B.list);
	free(hv);
	free(hd);
	return 0;
}
