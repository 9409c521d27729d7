/* shell_sweep.c: samples swept over by moving shells (shell_sweep.h). */
#include "shell/shell_sweep.h"

#include <math.h>
#include <stdlib.h>

#include "geom/ccd.h"
#include "shell/shell_vis.h"

/* The sample index range [lo, hi] of f along axis a within [mn, mx]
 * (world); empty when lo > hi. */
static void
sample_range(const field *f, int a, double mn, double mx, int *lo, int *hi)
{
	double off[3];
	int n = a == 0 ? f->ni : a == 1 ? f->nj : f->nk;

	field_offset(f, off);
	*lo = (int)fmax(0, ceil((mn - f->origin[a]) / f->dx - off[a]));
	*hi = (int)fmin(n - 1, floor((mx - f->origin[a]) / f->dx - off[a]));
}

/* The corners of triangle q of mesh m at fraction s, as floats (the
 * wedge test's form). */
static void
corners(const shell_track *t, size_t m, size_t q, double s, float tv[9], double x[3][3])
{
	const uint32_t *tr = t->m[m].tri + 3 * q;
	int c, a;

	for (c = 0; c < 3; c++) {
		shell_track_point(t, m, tr[c], s, x[c]);
		for (a = 0; a < 3; a++)
			tv[3 * c + a] = (float)x[c][a];
	}
}

/* Is p in the wedge of the triangle while it moves from x0 to x1 (its
 * corners), at either end or at a time it is coplanar with p? */
static int
swept(const double p[3], const float t0[9], const float t1[9],
      double x0[3][3], double x1[3][3], double eps)
{
	double d[3][3], r[3], zero[3] = {0, 0, 0};
	const double *X[4] = {p, x0[0], x0[1], x0[2]};
	const double *D[4] = {zero, d[0], d[1], d[2]};
	int c, a, n;

	if (shell_tri_blocked(p, p, t0, eps) || shell_tri_blocked(p, p, t1, eps))
		return 1;
	for (c = 0; c < 3; c++)
		for (a = 0; a < 3; a++)
			d[c][a] = x1[c][a] - x0[c][a];
	n = ccd_coplanar_times(X, D, r);
	for (c = 0; c < n; c++) {
		float tv[9];
		int q;

		for (q = 0; q < 3; q++)
			for (a = 0; a < 3; a++)
				tv[3 * q + a] = (float)(x0[q][a] + r[c] * d[q][a]);
		if (shell_tri_blocked(p, p, tv, eps))
			return 1;
	}
	return 0;
}

/* Mark in sw (or in bad where sw is NULL) the samples of f that triangle
 * q of mesh m sweeps over and that are not marked in bad or sw; with sw,
 * many threads may run it at once (the marks only ever go from 0 to 1).
 * Returns how many it marked. */
static size_t
sweep_tri(const shell_track *t, size_t m, size_t q, double s0, double s1,
	  const field *f, unsigned char *bad, unsigned char *sw)
{
	double x0[3][3], x1[3][3], mn[3], mx[3];
	float t0[9], t1[9];
	int lo[3], hi[3], a, c, i, j, k;
	size_t cnt = 0;

	corners(t, m, q, s0, t0, x0);
	corners(t, m, q, s1, t1, x1);
	for (a = 0; a < 3; a++) {
		mn[a] = INFINITY;
		mx[a] = -INFINITY;
		for (c = 0; c < 3; c++) {
			mn[a] = fmin(mn[a], fmin(x0[c][a], x1[c][a]));
			mx[a] = fmax(mx[a], fmax(x0[c][a], x1[c][a]));
		}
		/* the wedge reaches eps/2 beyond the triangle; a margin of
		 * eps covers rounding */
		sample_range(f, a, mn[a] - t->eps, mx[a] + t->eps, &lo[a], &hi[a]);
	}
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t s = FIELD_IDX(f, i, j, k);
				unsigned char seen;
				double p[3];

				if (bad[s])
					continue;
				if (sw) {
#pragma omp atomic read
					seen = sw[s];
				} else {
					seen = 0;
				}
				if (seen)
					continue;
				field_pos(f, i, j, k, p);
				if (!swept(p, t0, t1, x0, x1, t->eps))
					continue;
				if (sw) {
#pragma omp atomic write
					sw[s] = 1;
				} else {
					bad[s] = 1;
				}
				cnt++;
			}
	return cnt;
}

/* Below this many triangles shell_sweep_mark runs on one thread. */
#define SWEEP_PAR_MIN 256

size_t
shell_sweep_mark(const shell_track *t, double s0, double s1, const field *f,
		 unsigned char *bad)
{
	size_t m, q, cnt = 0, ntri = 0, n = field_count(f);
	unsigned char *sw;

	for (m = 0; m < t->nmesh; m++)
		ntri += t->m[m].ntri;
	/* many threads mark a sample of their own array sw (without it,
	 * one thread marks bad), then the marks that are new in bad are
	 * counted: the same marks and count whatever the threads' order */
	sw = ntri >= SWEEP_PAR_MIN ? calloc(n ? n : 1, 1) : NULL;
	if (!sw) {
		for (m = 0; m < t->nmesh; m++)
			for (q = 0; q < t->m[m].ntri; q++)
				cnt += sweep_tri(t, m, q, s0, s1, f, bad, NULL);
		return cnt;
	}
	for (m = 0; m < t->nmesh; m++) {
		long nq = (long)t->m[m].ntri, l;

#pragma omp parallel for schedule(dynamic, 64)
		for (l = 0; l < nq; l++)
			sweep_tri(t, m, (size_t)l, s0, s1, f, bad, sw);
	}
	for (q = 0; q < n; q++)
		if (sw[q] && !bad[q]) {
			bad[q] = 1;
			cnt++;
		}
	free(sw);
	return cnt;
}

/* Triangles remembered as tested by one shell_sweep_point (the rest are
 * tested again: time only). */
#define SWEEP_SEEN_MAX 128

/* Was triangle q tested before (among the first SWEEP_SEEN_MAX)?  Else
 * remember it. */
static int
seen_before(uint32_t *seen, int *ns, uint32_t q)
{
	int m;

	for (m = 0; m < *ns; m++)
		if (seen[m] == q)
			return 1;
	if (*ns < SWEEP_SEEN_MAX)
		seen[(*ns)++] = q;
	return 0;
}

/* Does the point moving p0 -> p1 meet triangle q of set `in` (its mesh
 * and index there) while it moves between s0 and s1? */
static int
point_tri(const shell_track *t, const shell_set *in, size_t q, double s0, double s1,
	  const double p0[3], const double p1[3])
{
	size_t m = in->tmesh[q], l = in->tlocal[q];
	double x0[3][3], x1[3][3], d[4][3], r[3];
	float t0[9], t1[9];
	const double *X[4] = {p0, x0[0], x0[1], x0[2]};
	const double *D[4] = {d[0], d[1], d[2], d[3]};
	int c, a, n;

	corners(t, m, l, s0, t0, x0);
	corners(t, m, l, s1, t1, x1);
	for (a = 0; a < 3; a++) {
		d[0][a] = p1[a] - p0[a];
		for (c = 0; c < 3; c++)
			d[c + 1][a] = x1[c][a] - x0[c][a];
	}
	n = ccd_coplanar_times(X, D, r);
	for (c = 0; c < n; c++) {
		double p[3];
		float tv[9];
		int k;

		for (a = 0; a < 3; a++)
			p[a] = p0[a] + r[c] * d[0][a];
		for (k = 0; k < 3; k++)
			for (a = 0; a < 3; a++)
				tv[3 * k + a] = (float)(x0[k][a] + r[c] * d[k + 1][a]);
		if (shell_tri_blocked(p, p, tv, t->eps))
			return 1;
	}
	return 0;
}

int
shell_sweep_point(const shell_track *t, const shell_set *at0, const shell_set *at1,
		  double s0, double s1, const double p0[3], const double p1[3])
{
	const shell_set *in[2] = {at0, at1};
	uint32_t seen[SWEEP_SEEN_MAX];
	int w, ns = 0;

	if (!shell_visible(at0, p0, p1) || !shell_visible(at1, p0, p1))
		return 1;
	if (s0 == s1 || !shell_track_moving(t))
		return 0;
	for (w = 0; w < 2; w++) {
		const shell_set *s = in[w];

		double mn[3], mx[3];
		int lo[3], hi[3], a, i, j, k;

		if (!s->start || !s->ntri)
			continue;
		for (a = 0; a < 3; a++) {
			mn[a] = fmin(p0[a], p1[a]) - s->h;
			mx[a] = fmax(p0[a], p1[a]) + s->h;
		}
		shell_cube_range(s, mn, mx, lo, hi);
		if (shell_range_empty(s, lo, hi))
			continue;
		for (k = lo[2]; k <= hi[2]; k++)
			for (j = lo[1]; j <= hi[1]; j++)
				for (i = lo[0]; i <= hi[0]; i++) {
					size_t c = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
					uint32_t q;

					for (q = s->start[c]; q < s->start[c + 1]; q++) {
						uint32_t tq = s->list[q];
						/* the same triangle of the track as
						 * at0's tq (point_tri reads only that) */
						int same = w == 0 || (tq < at0->ntri &&
								      at0->tmesh[tq] == s->tmesh[tq] &&
								      at0->tlocal[tq] == s->tlocal[tq]);

						/* a triangle is listed in every cube it
						 * comes near: tested once (the answer is
						 * whether any meets the point) */
						if ((!same || !seen_before(seen, &ns, tq)) &&
						    point_tri(t, s, tq, s0, s1, p0, p1))
							return 1;
					}
				}
	}
	return 0;
}
