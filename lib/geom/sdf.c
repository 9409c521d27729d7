/* sdf.c: signed distance from triangle meshes (houston2003 §3.1) and the
 * union-of-spheres level set of particles (sdf.h). */
#include "geom/sdf.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/bvh.h"
#include "grid/fmm.h"
#include "geom/tri.h"

#define SDF_SLAB 4              /* k-planes per scatter task */
#define SDF_VOTES 6             /* three axes, two senses each */

/* --- placement ------------------------------------------------------ */

typedef struct place {
	int n[3];
	double o[3];            /* position of sample 0 on each axis */
	double dx;
	size_t stride[3];
} place;

static void
place_of(const field *phi, place *p)
{
	double off[3];
	int m;

	field_offset(phi, off);
	p->n[0] = phi->ni, p->n[1] = phi->nj, p->n[2] = phi->nk;
	p->dx = phi->dx;
	for (m = 0; m < 3; m++)
		p->o[m] = phi->origin[m] + off[m] * phi->dx;
	p->stride[0] = 1;
	p->stride[1] = (size_t)phi->ni;
	p->stride[2] = (size_t)phi->ni * phi->nj;
}

/* Sample index range [*lo, *hi] on axis m covering [a, b] (metres);
 * returns 0 if empty. */
static int
index_range(const place *p, int m, double a, double b, int *lo, int *hi)
{
	double fa = ceil((a - p->o[m]) / p->dx), fb = floor((b - p->o[m]) / p->dx);

	if (fa < 0)
		fa = 0;
	if (fb > p->n[m] - 1)
		fb = p->n[m] - 1;
	if (fa > fb)
		return 0;
	*lo = (int)fa;
	*hi = (int)fb;
	return 1;
}

/* Elements (triangles or particles) binned by the k-slabs their boxes
 * touch: slab s holds list[start[s] .. start[s+1]). */
typedef struct slabs {
	size_t nslab;
	size_t *start;
	uint32_t *list;
} slabs;

static int
slabs_build(slabs *sl, const place *p, size_t ne, const int *klo,
	    const int *khi, slc_err *err)
{
	size_t e, s, total = 0;
	size_t *fill;

	sl->nslab = ((size_t)p->n[2] + SDF_SLAB - 1) / SDF_SLAB;
	sl->start = slc_calloc(sl->nslab + 1, sizeof *sl->start, err);
	sl->list = NULL;
	if (!sl->start)
		return -1;
	for (e = 0; e < ne; e++)
		if (klo[e] <= khi[e])
			for (s = (size_t)klo[e] / SDF_SLAB;
			     s <= (size_t)khi[e] / SDF_SLAB; s++)
				sl->start[s + 1]++;
	for (s = 0; s < sl->nslab; s++) {
		sl->start[s + 1] += sl->start[s];
	}
	total = sl->start[sl->nslab];
	sl->list = slc_calloc(total ? total : 1, sizeof *sl->list, err);
	fill = slc_calloc(sl->nslab, sizeof *fill, err);
	if (!sl->list || !fill) {
		free(fill);
		free(sl->start);
		free(sl->list);
		return -1;
	}
	for (e = 0; e < ne; e++)
		if (klo[e] <= khi[e])
			for (s = (size_t)klo[e] / SDF_SLAB;
			     s <= (size_t)khi[e] / SDF_SLAB; s++)
				sl->list[sl->start[s] + fill[s]++] = (uint32_t)e;
	free(fill);
	return 0;
}

static void
slabs_free(slabs *sl)
{
	free(sl->start);
	free(sl->list);
}

/* --- step (4), first half: exact distance in the band ---------------- */

/* The samples of row (j, k) along i that can lie within bw of a
 * triangle: inside its bounding sphere grown by bw, and within bw of its
 * plane.  Narrows [*i0, *i1]; returns 0 if the row misses. */
static int
row_range(const place *p, const double *sp, const double *un, const double *a,
	  double bw, double y, double z, int *i0, int *i1)
{
	double reach = sp[3] + bw, ey = y - sp[1], ez = z - sp[2];
	double h2 = reach * reach - ey * ey - ez * ez, h, lo, hi;
	double s0, nx = un[0] * p->dx;

	if (h2 < 0)
		return 0;
	h = sqrt(h2);
	lo = (sp[0] - h - p->o[0]) / p->dx;
	hi = (sp[0] + h - p->o[0]) / p->dx;
	/* signed plane distance at i: s0 + nx*i */
	s0 = un[0] * (p->o[0] - a[0]) + un[1] * (y - a[1]) + un[2] * (z - a[2]);
	if (fabs(nx) > 1e-12 * p->dx) {
		double ia = (-bw - s0) / nx, ib = (bw - s0) / nx;
		lo = fmax(lo, fmin(ia, ib));
		hi = fmin(hi, fmax(ia, ib));
	} else if (fabs(s0) > bw) {
		return 0;
	}
	lo = ceil(lo - 1e-9);
	hi = floor(hi + 1e-9);
	/* out of the row first: lo and hi are cast to int only when they lie
	 * within [*i0, *i1] (a triangle near 1e38 m put hi at -1e10) */
	if (lo > *i1 || hi < *i0)
		return 0;
	if (lo > *i0)
		*i0 = (int)lo;
	if (hi < *i1)
		*i1 = (int)hi;
	return *i0 <= *i1;
}

/* Scatter every triangle's exact distance into the samples within bw of
 * it (candidates cut by its bounding sphere and its plane, row by row);
 * keep the smallest (ties: lowest triangle index, so the order of the
 * scatter does not matter).  Slabs of k-planes are independent, so they
 * run in parallel. */
static int
band_scatter(const place *p, const double *P, const uint32_t *tri,
	     size_t nt, double bw, float *dist, int32_t *near, slc_err *err)
{
	int *box = slc_calloc(nt, 6 * sizeof(int), err);
	int *klo = NULL, *khi = NULL;
	double *sph = slc_calloc(nt, 7 * sizeof(double), err);
	tri_pre *pre = slc_calloc(nt, sizeof *pre, err);
	slabs sl;
	size_t t;
	double bw2 = bw * bw;
	int rc = -1;

	if (!box || !sph || !pre)
		goto out;
	klo = slc_calloc(nt, sizeof *klo, err);
	khi = slc_calloc(nt, sizeof *khi, err);
	if (!klo || !khi)
		goto out;
	for (t = 0; t < nt; t++) {
		const double *v[3];
		double lo[3], hi[3], r2 = 0, *sp = sph + 7 * t, l;
		int m, c, ok = 1;
		for (c = 0; c < 3; c++)
			v[c] = P + 3 * (size_t)tri[3 * t + c];
		tri_prepare(&pre[t], v[0], v[1], v[2]);
		for (m = 0; m < 3; m++) {
			lo[m] = fmin(v[0][m], fmin(v[1][m], v[2][m])) - bw;
			hi[m] = fmax(v[0][m], fmax(v[1][m], v[2][m])) + bw;
			ok &= index_range(p, m, lo[m], hi[m], &box[6 * t + m],
					  &box[6 * t + 3 + m]);
			sp[m] = (v[0][m] + v[1][m] + v[2][m]) / 3;
		}
		for (c = 0; c < 3; c++) {
			double e2 = 0;
			for (m = 0; m < 3; m++) {
				double e = v[c][m] - sp[m];
				e2 += e * e;
			}
			r2 = fmax(r2, e2);
		}
		/* a hair over the circumradius so rounding never cuts a
		 * sample that is within bw */
		sp[3] = sqrt(r2) * (1 + 1e-9) + 1e-9 * p->dx;
		l = sqrt(pre[t].nn);
		for (m = 0; m < 3; m++)
			sp[4 + m] = pre[t].degenerate ? 0 : pre[t].n[m] / l;
		klo[t] = ok ? box[6 * t + 2] : 1;
		khi[t] = ok ? box[6 * t + 5] : 0;
	}
	if (slabs_build(&sl, p, nt, klo, khi, err))
		goto out;
	#pragma omp parallel for schedule(dynamic, 1)
	for (size_t s = 0; s < sl.nslab; s++) {
		int k0 = (int)(s * SDF_SLAB), k1 = k0 + SDF_SLAB - 1;
		for (size_t e = sl.start[s]; e < sl.start[s + 1]; e++) {
			uint32_t tt = sl.list[e];
			const int *bx = box + 6 * (size_t)tt;
			const tri_pre *tp = &pre[tt];
			const double *sp = sph + 7 * (size_t)tt;
			double un[3] = { sp[4], sp[5], sp[6] };
			int ka = bx[2] > k0 ? bx[2] : k0;
			int kb = bx[5] < k1 ? bx[5] : k1;
			if (tp->degenerate)
				un[0] = un[1] = un[2] = 0;
			for (int k = ka; k <= kb; k++) {
				double x[3];
				x[2] = p->o[2] + k * p->dx;
				for (int j = bx[1]; j <= bx[4]; j++) {
					int i0 = bx[0], i1 = bx[3];
					x[1] = p->o[1] + j * p->dx;
					/* a degenerate triangle has no plane: its
					 * zero normal keeps only the sphere cut */
					if (!row_range(p, sp, un, tp->a,
						       tp->degenerate ? INFINITY : bw,
						       x[1], x[2], &i0, &i1))
						continue;
					for (int i = i0; i <= i1; i++) {
						size_t cc = (size_t)i + p->stride[1] * j +
							    p->stride[2] * k;
						double d2;
						float df;
						x[0] = p->o[0] + i * p->dx;
						d2 = tri_pre_d2(tp, x);
						if (d2 > bw2)
							continue;
						df = (float)sqrt(d2);
						if (df < dist[cc] ||
						    (df == dist[cc] &&
						     (int32_t)tt < near[cc])) {
							dist[cc] = df;
							near[cc] = (int32_t)tt;
						}
					}
				}
			}
		}
	}
	slabs_free(&sl);
	rc = 0;
out:
	free(box);
	free(sph);
	free(pre);
	free(klo);
	free(khi);
	return rc;
}

/* --- duplicate triangles ------------------------------------------- */

typedef struct tkey {
	double v[9];            /* vertices sorted lexicographically */
	uint32_t t;
} tkey;

static int
vcmp(const double *a, const double *b)
{
	int m;

	for (m = 0; m < 3; m++)
		if (a[m] != b[m])
			return a[m] < b[m] ? -1 : 1;
	return 0;
}

static int
tkey_cmp(const void *x, const void *y)
{
	const tkey *a = x, *b = y;
	int m, c;

	for (m = 0; m < 3; m++)
		if ((c = vcmp(a->v + 3 * m, b->v + 3 * m)))
			return c;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Triangles with the same three vertex positions (in any order, so either
 * orientation) are kept once: a duplicate would count a crossing twice. */
static int
dedupe(const double *P, const uint32_t *tri, size_t nt, uint32_t **out,
       size_t *nout, slc_err *err)
{
	tkey *k = slc_calloc(nt, sizeof *k, err);
	uint32_t *u;
	size_t t, n = 0;

	if (!k)
		return -1;
	u = slc_calloc(nt, 3 * sizeof *u, err);
	if (!u) {
		free(k);
		return -1;
	}
	for (t = 0; t < nt; t++) {
		const double *v[3];
		int c;
		for (c = 0; c < 3; c++)
			v[c] = P + 3 * (size_t)tri[3 * t + c];
		/* sort three vertices */
		if (vcmp(v[0], v[1]) > 0) { const double *s = v[0]; v[0] = v[1]; v[1] = s; }
		if (vcmp(v[1], v[2]) > 0) { const double *s = v[1]; v[1] = v[2]; v[2] = s; }
		if (vcmp(v[0], v[1]) > 0) { const double *s = v[0]; v[0] = v[1]; v[1] = s; }
		for (c = 0; c < 3; c++)
			memcpy(k[t].v + 3 * c, v[c], 3 * sizeof(double));
		k[t].t = (uint32_t)t;
	}
	qsort(k, nt, sizeof *k, tkey_cmp);
	for (t = 0; t < nt; t++) {
		if (t > 0 && !memcmp(k[t].v, k[t - 1].v, sizeof k[t].v))
			continue;
		memcpy(u + 3 * n, tri + 3 * (size_t)k[t].t, 3 * sizeof *u);
		n++;
	}
	free(k);
	*out = u;
	*nout = n;
	return 0;
}

/* --- steps (2) and (3): sign by voting ------------------------------ */

typedef struct hits {
	double *t;
	size_t n, cap;
	int oom;
} hits;

static void
add_hit(void *ctx, uint32_t tri, double t)
{
	hits *h = ctx;

	(void)tri;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		double *nt = realloc(h->t, cap * sizeof *nt);
		if (!nt) {
			h->oom = 1;
			return;
		}
		h->t = nt;
		h->cap = cap;
	}
	h->t[h->n++] = t;
}

static int
dcmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* houston2003 §3.1 step (2): every line of samples along each axis is
 * intersected with the mesh; a sample gets one inside vote from each
 * sense of the line if the number of crossings between it and that end is
 * odd.  Lines are independent (and each sample belongs to one line per
 * axis), so lines of one axis run in parallel. */
static int
vote(const place *p, const bvh *b, uint8_t *votes, size_t *lhit,
     size_t *lodd, slc_err *err)
{
	int axis, oom = 0;
	size_t hit = 0, odd = 0;

	for (axis = 0; axis < 3; axis++) {
		int u = (axis + 1) % 3, v = (axis + 2) % 3;
		long nl = (long)p->n[u] * p->n[v];
		#pragma omp parallel reduction(+:hit, odd) reduction(|:oom)
		{
			hits h = { 0 };
			#pragma omp for schedule(dynamic, 64)
			for (long l = 0; l < nl; l++) {
				int iu = (int)(l % p->n[u]), iv = (int)(l / p->n[u]);
				double q[3];
				size_t base, s, before = 0;
				q[axis] = 0;
				q[u] = p->o[u] + iu * p->dx;
				q[v] = p->o[v] + iv * p->dx;
				h.n = 0;
				bvh_axis_line(b, axis, q, add_hit, &h);
				if (h.oom)
					continue;
				if (!h.n)
					continue;
				hit++;
				odd += h.n & 1;
				qsort(h.t, h.n, sizeof *h.t, dcmp);
				base = p->stride[u] * iu + p->stride[v] * iv;
				for (s = 0; s < (size_t)p->n[axis]; s++) {
					double x = p->o[axis] + (double)s * p->dx;
					while (before < h.n && h.t[before] < x)
						before++;
					votes[base + p->stride[axis] * s] +=
						(uint8_t)((before & 1) +
							  ((h.n - before) & 1));
				}
			}
			oom |= h.oom;
			free(h.t);
		}
	}
	*lhit = hit;
	*lodd = odd;
	if (oom)
		return slc_fail(err, "out of memory casting rays");
	return 0;
}

/* houston2003 §3.1 step (3): a sample whose six votes tie takes the sign
 * of the majority of its decided face neighbours, repeated (Jacobi
 * sweeps) until nothing changes; what stays undecided is outside. */
static int
resolve_ties(const place *p, const uint8_t *votes, int8_t *sgn,
	     size_t *ntie, slc_err *err)
{
	size_t n = p->stride[2] * p->n[2], c, ties = 0;
	int8_t *nx = slc_calloc(n, 1, err);
	int changed = 1;

	if (!nx)
		return -1;
	for (c = 0; c < n; c++) {
		sgn[c] = votes[c] > SDF_VOTES / 2 ? -1
			 : votes[c] < SDF_VOTES / 2 ? 1 : 0;
		ties += sgn[c] == 0;
	}
	*ntie = ties;
	while (ties && changed) {
		changed = 0;
		memcpy(nx, sgn, n);
		#pragma omp parallel for schedule(static) reduction(+:changed)
		for (int k = 0; k < p->n[2]; k++)
			for (int j = 0; j < p->n[1]; j++)
				for (int i = 0; i < p->n[0]; i++) {
					size_t cc = (size_t)i + p->stride[1] * j +
						    p->stride[2] * k;
					int sum = 0;
					if (sgn[cc])
						continue;
					if (i > 0) sum += sgn[cc - 1];
					if (i < p->n[0] - 1) sum += sgn[cc + 1];
					if (j > 0) sum += sgn[cc - p->stride[1]];
					if (j < p->n[1] - 1) sum += sgn[cc + p->stride[1]];
					if (k > 0) sum += sgn[cc - p->stride[2]];
					if (k < p->n[2] - 1) sum += sgn[cc + p->stride[2]];
					if (sum) {
						nx[cc] = sum > 0 ? 1 : -1;
						changed++;
					}
				}
		memcpy(sgn, nx, n);
		ties = 0;
		for (c = 0; c < n; c++)
			ties += sgn[c] == 0;
	}
	for (c = 0; c < n; c++)
		if (!sgn[c])
			sgn[c] = 1;
	free(nx);
	return 0;
}

/* phi is stored in float: a distance past FLT_MAX metres (elements or a
 * grid placed beyond 1e38 m, or a dx near DBL_MAX) became Inf, and a
 * segment whose ends lie 1e308 m apart gives NaN.  Refuses such a field
 * (-1, err naming the first such sample and its nearest element: what
 * near[c] indexes, or with seg, the first point of segment near[c])
 * rather than returning it. */
static int
check_float_range(const field *phi, const int32_t *near, const uint32_t *seg,
		  const char *what, slc_err *err)
{
	size_t n = field_count(phi);

	for (size_t c = 0; c < n; c++) {
		if (isfinite(phi->a[c]))
			continue;
		if (near && near[c] >= 0)
			return slc_fail(err, "sample %zu: the distance to %s %ld does not "
					"fit a float (%g)", c, what,
					seg ? (long)seg[2 * near[c]] : (long)near[c], phi->a[c]);
		return slc_fail(err, "sample %zu: the distance does not fit a float "
				"(grid of dx %g m)", c, phi->dx);
	}
	return 0;
}

/* --- the mesh ------------------------------------------------------- */

static int
check_mesh(const double *P, size_t nv, const uint32_t *tri, size_t nt,
	   slc_err *err)
{
	size_t q;

	if (nt == 0)
		return slc_fail(err, "mesh has no triangles");
	if (nt > INT32_MAX)
		return slc_fail(err, "mesh has too many triangles (%zu)", nt);
	for (q = 0; q < 3 * nt; q++)
		if (tri[q] >= nv)
			return slc_fail(err,
					"triangle %zu: vertex index %u out of range (%zu vertices)",
					q / 3, tri[q], nv);
	for (q = 0; q < 3 * nv; q++)
		if (!isfinite(P[q]))
			return slc_fail(err, "vertex %zu is not finite", q / 3);
	return 0;
}

#define SDF_SWEEP_ROUNDS 2       /* passes of the six axis sweeps */

/* Step (4), second half: beyond the band, closest-triangle sweeps.  Along
 * each axis, in both senses, every line of samples passes each sample's
 * closest triangle on to the next sample, which takes it if it is closer
 * than its own; values are exact distances to the triangle carried.
 * After the x, y and z sweeps every sample has seen the triangles of the
 * band along an axis-aligned path, and a second round mends the few that
 * a greedy pass missed.  Lines of one axis are independent and run in
 * parallel; ties go to the lower triangle index (deterministic). */
static void
sweep_closest(const place *p, const double *P, const uint32_t *tri,
	      const uint8_t *frozen, float *dist, int32_t *near)
{
	for (int round = 0; round < SDF_SWEEP_ROUNDS; round++)
		for (int axis = 0; axis < 3; axis++) {
			int u = (axis + 1) % 3, v = (axis + 2) % 3;
			long nl = (long)p->n[u] * p->n[v];
			size_t st = p->stride[axis];
			#pragma omp parallel for schedule(static)
			for (long l = 0; l < nl; l++) {
				int iu = (int)(l % p->n[u]), iv = (int)(l / p->n[u]);
				size_t base = p->stride[u] * iu + p->stride[v] * iv;
				double x[3];
				x[u] = p->o[u] + iu * p->dx;
				x[v] = p->o[v] + iv * p->dx;
				for (int sense = 0; sense < 2; sense++)
					for (int s = 1; s < p->n[axis]; s++) {
						int a = sense ? p->n[axis] - 1 - s : s;
						size_t c = base + st * (size_t)a;
						size_t pc = sense ? c + st : c - st;
						int32_t t = near[pc];
						const uint32_t *f;
						float df;
						if (t < 0 || t == near[c] || frozen[c])
							continue;
						x[axis] = p->o[axis] + a * p->dx;
						f = tri + 3 * (size_t)t;
						df = (float)sqrt(tri_closest(x,
							P + 3 * (size_t)f[0],
							P + 3 * (size_t)f[1],
							P + 3 * (size_t)f[2], NULL, NULL));
						if (df < dist[c] ||
						    (df == dist[c] && t < near[c])) {
							dist[c] = df;
							near[c] = t;
						}
					}
			}
		}
}

int
sdf_mesh(field *phi, const double *P, size_t nv, const uint32_t *tri,
	 size_t nt, const sdf_opts *o, int32_t *closest, sdf_stats *st,
	 slc_err *err)
{
	place p;
	size_t n, c, nu = 0;
	double bw;
	float *dist = NULL;
	int32_t *near = NULL, *own = NULL;
	uint8_t *votes = NULL, *frozen = NULL;
	int8_t *sgn = NULL;
	uint32_t *utri = NULL;
	bvh b = { 0 };
	sdf_stats sl = { 0 };
	int rc = -1;

	if (!st)
		st = &sl;
	memset(st, 0, sizeof *st);
	if (!(o->band >= 1) || !isfinite(o->band))
		return slc_fail(err, "band %g cells: must be at least 1", o->band);
	place_of(phi, &p);
	n = field_count(phi);
	bw = o->band * p.dx;
	if (check_mesh(P, nv, tri, nt, err))
		return -1;
	dist = slc_calloc(n, sizeof *dist, err);
	if (!closest)
		own = slc_calloc(n, sizeof *own, err);
	near = closest ? closest : own;
	frozen = slc_calloc(n, 1, err);
	if (!dist || !near || !frozen)
		goto out;
	if (!o->unsigned_dist) {
		bvh ub;
		votes = slc_calloc(n, 1, err);
		sgn = slc_calloc(n, 1, err);
		if (!votes || !sgn || dedupe(P, tri, nt, &utri, &nu, err))
			goto out;
		st->nduplicate = nt - nu;
		if (bvh_build(&ub, P, nv, utri, nu, err))
			goto out;
		if (vote(&p, &ub, votes, &st->lines_hit, &st->lines_odd, err)) {
			bvh_free(&ub);
			goto out;
		}
		bvh_free(&ub);
		st->odd_fraction = st->lines_hit ?
			(double)st->lines_odd / (double)st->lines_hit : 0;
		if (st->odd_fraction > SDF_SHELL_ODD_FRACTION) {
			st->thin_shell = 1;
			slc_fail(err, "no consistent inside: %.0f%% of the grid "
				 "lines that cross the mesh cross it an odd number "
				 "of times (a thin shell or open surface?)",
				 100 * st->odd_fraction);
			goto out;
		}
		if (resolve_ties(&p, votes, sgn, &st->ntie, err))
			goto out;
	}
	for (c = 0; c < n; c++) {
		dist[c] = INFINITY;
		near[c] = -1;
	}
	if (band_scatter(&p, P, tri, nt, bw, dist, near, err))
		goto out;
	for (c = 0; c < n; c++)
		if (dist[c] <= bw) {
			frozen[c] = 1;
			st->nband++;
		}
	if (o->narrow) {
		for (c = 0; c < n; c++)
			if (!frozen[c])
				dist[c] = (float)bw;
	} else if (st->nband) {
		sweep_closest(&p, P, tri, frozen, dist, near);
	} else {
		/* The grid lies wholly outside the band: exact distances. */
		if (bvh_build(&b, P, nv, tri, nt, err))
			goto out;
		#pragma omp parallel for schedule(dynamic, 1)
		for (int k = 0; k < p.n[2]; k++)
			for (int j = 0; j < p.n[1]; j++)
				for (int i = 0; i < p.n[0]; i++) {
					size_t cc = (size_t)i + p.stride[1] * j +
						    p.stride[2] * k;
					double x[3] = { p.o[0] + i * p.dx,
							p.o[1] + j * p.dx,
							p.o[2] + k * p.dx };
					bvh_hit h;
					bvh_closest(&b, x, INFINITY, &h);
					dist[cc] = (float)h.d;
					near[cc] = (int32_t)h.tri;
				}
	}
	for (c = 0; c < n; c++)
		phi->a[c] = sgn ? (float)sgn[c] * dist[c] : dist[c];
	rc = check_float_range(phi, near, NULL, "triangle", err);
out:
	bvh_free(&b);
	free(dist);
	free(own);
	free(frozen);
	free(votes);
	free(sgn);
	free(utri);
	return rc;
}

/* --- particles and strands ------------------------------------------ */

/* An element is a capsule: the segment from point a to point b swept by a
 * sphere whose radius goes linearly from a's to b's.  A particle is the
 * capsule with a == b; a strand is the chain of its segments. */
typedef struct sphere_ctx {
	const place *p;
	const double *P, *radius;
	double r;
	const uint32_t *seg;    /* 2 point indices per element; NULL: element e is point e */
} sphere_ctx;

static void
elem_ends(const sphere_ctx *sx, size_t e, size_t *a, size_t *b)
{
	*a = sx->seg ? sx->seg[2 * e] : e;
	*b = sx->seg ? sx->seg[2 * e + 1] : e;
}

/* Distance from x to element e's surface: the distance to the closest
 * point of the segment, less the radius interpolated there (exact for a
 * sphere and for a capsule of constant radius). */
static double
elem_dist_at(const sphere_ctx *sx, const double x[3], size_t e)
{
	size_t a, b;
	const double *A, *B;
	double ab[3], ax[3], len2 = 0, t = 0, d2 = 0, ra, rb;
	int m;

	elem_ends(sx, e, &a, &b);
	A = sx->P + 3 * a;
	B = sx->P + 3 * b;
	for (m = 0; m < 3; m++) {
		ab[m] = B[m] - A[m];
		ax[m] = x[m] - A[m];
		len2 += ab[m] * ab[m];
		t += ab[m] * ax[m];
	}
	t = len2 > 0 ? fmin(fmax(t / len2, 0), 1) : 0;
	for (m = 0; m < 3; m++) {
		double q = ax[m] - t * ab[m];
		d2 += q * q;
	}
	ra = sx->radius ? sx->radius[a] : sx->r;
	rb = sx->radius ? sx->radius[b] : sx->r;
	return sqrt(d2) - (ra + t * (rb - ra));
}

static double
sphere_dist(const sphere_ctx *sx, size_t cell, int32_t e)
{
	const place *p = sx->p;
	double x[3] = {
		p->o[0] + (double)(cell % (size_t)p->n[0]) * p->dx,
		p->o[1] + (double)((cell / (size_t)p->n[0]) % (size_t)p->n[1]) * p->dx,
		p->o[2] + (double)(cell / p->stride[2]) * p->dx
	};

	return elem_dist_at(sx, x, (size_t)e);
}

/* For the march: the candidate element whose surface is nearest. */
static int32_t
nearest_sphere(void *ctx, size_t cell, const int32_t *cand, int n)
{
	double best = INFINITY;
	int32_t bt = cand[0];
	int a;

	for (a = 0; a < n; a++) {
		double v = sphere_dist(ctx, cell, cand[a]);
		if (v < best || (v == best && cand[a] < bt)) {
			best = v;
			bt = cand[a];
		}
	}
	return bt;
}

/* The union of the capsules of sx (ne elements over np points): exact in
 * the band, fast-marched beyond it (see sdf_particles). */
static int
sdf_capsules(field *phi, const sphere_ctx *sx0, size_t np, size_t ne,
	     const sdf_opts *o, slc_err *err)
{
	place p;
	sphere_ctx sx = *sx0;
	size_t n, c, nband = 0, e;
	double bw;
	int *box = NULL, *klo = NULL, *khi = NULL;
	uint8_t *frozen = NULL;
	float *d = NULL;
	int32_t *near = NULL;
	slabs sl;
	int rc = -1;

	if (!(o->band >= 1) || !isfinite(o->band))
		return slc_fail(err, "band %g cells: must be at least 1", o->band);
	if (ne > INT32_MAX)
		return slc_fail(err, "too many particles or segments (%zu)", ne);
	place_of(phi, &p);
	sx.p = &p;
	n = field_count(phi);
	bw = o->band * p.dx;
	for (e = 0; e < np; e++) {
		double re = sx.radius ? sx.radius[e] : sx.r;
		int m;
		if (!(re >= 0) || !isfinite(re))
			return slc_fail(err, "particle %zu: bad radius %g", e, re);
		for (m = 0; m < 3; m++)
			if (!isfinite(sx.P[3 * e + m]))
				return slc_fail(err, "particle %zu: position not finite", e);
	}
	d = slc_calloc(n, sizeof *d, err);
	frozen = slc_calloc(n, 1, err);
	box = slc_calloc(ne ? ne : 1, 6 * sizeof(int), err);
	klo = slc_calloc(ne ? ne : 1, sizeof(int), err);
	khi = slc_calloc(ne ? ne : 1, sizeof(int), err);
	near = slc_calloc(n, sizeof *near, err);
	if (!d || !frozen || !box || !klo || !khi || !near)
		goto out;
	for (c = 0; c < n; c++) {
		d[c] = INFINITY;
		near[c] = -1;
	}
	for (e = 0; e < ne; e++) {
		size_t a, b;
		int m, ok = 1;
		elem_ends(&sx, e, &a, &b);
		double re = fmax(sx.radius ? sx.radius[a] : sx.r,
				 sx.radius ? sx.radius[b] : sx.r) + bw;
		for (m = 0; m < 3; m++) {
			double lo = fmin(sx.P[3 * a + m], sx.P[3 * b + m]);
			double hi = fmax(sx.P[3 * a + m], sx.P[3 * b + m]);
			ok &= index_range(&p, m, lo - re, hi + re,
					  &box[6 * e + m], &box[6 * e + 3 + m]);
		}
		klo[e] = ok ? box[6 * e + 2] : 1;
		khi[e] = ok ? box[6 * e + 5] : 0;
	}
	if (slabs_build(&sl, &p, ne, klo, khi, err))
		goto out;
	#pragma omp parallel for schedule(dynamic, 1)
	for (size_t s = 0; s < sl.nslab; s++) {
		int k0 = (int)(s * SDF_SLAB), k1 = k0 + SDF_SLAB - 1;
		for (size_t q = sl.start[s]; q < sl.start[s + 1]; q++) {
			size_t pe = sl.list[q];
			const int *bx = box + 6 * pe;
			int ka = bx[2] > k0 ? bx[2] : k0;
			int kb = bx[5] < k1 ? bx[5] : k1;
			for (int k = ka; k <= kb; k++)
				for (int j = bx[1]; j <= bx[4]; j++)
					for (int i = bx[0]; i <= bx[3]; i++) {
						size_t cc = (size_t)i + p.stride[1] * j +
							    p.stride[2] * k;
						double x[3] = { p.o[0] + i * p.dx,
								p.o[1] + j * p.dx,
								p.o[2] + k * p.dx };
						float v = (float)elem_dist_at(&sx, x, pe);
						if (v < d[cc] || (v == d[cc] &&
								  (int32_t)pe < near[cc])) {
							d[cc] = v;
							near[cc] = (int32_t)pe;
						}
					}
		}
	}
	slabs_free(&sl);
	for (c = 0; c < n; c++)
		if (d[c] <= bw) {
			frozen[c] = 1;
			nband++;
		}
	if (!nband) {
		float far = (float)(p.dx * sqrt((double)p.n[0] * p.n[0] +
						(double)p.n[1] * p.n[1] +
						(double)p.n[2] * p.n[2]));
		for (c = 0; c < n; c++)
			phi->a[c] = far;
		rc = check_float_range(phi, NULL, NULL, NULL, err);
		goto out;
	}
	/* Unknown samples are outside every capsule by more than the band
	 * (the union distance is 1-Lipschitz), so their neighbours are all
	 * outside too and only the nonnegative band values seed the march. */
	for (c = 0; c < n; c++)
		phi->a[c] = d[c];
	for (c = 0; c < n; c++)
		if (frozen[c] && d[c] < 0)
			d[c] = 0;
	/* The march carries the nearest element; beyond the band the value
	 * is the exact distance to that element's capsule. */
	if (fmm_march_choose(p.n[0], p.n[1], p.n[2], p.dx, d, frozen,
			     near, nearest_sphere, &sx, INFINITY, err))
		goto out;
	#pragma omp parallel for schedule(static)
	for (size_t cc = 0; cc < n; cc++)
		if (!frozen[cc])
			phi->a[cc] = near[cc] >= 0 ?
				(float)sphere_dist(&sx, cc, near[cc]) : d[cc];
	rc = check_float_range(phi, near, sx.seg, sx.seg ? "point" : "particle", err);
out:
	free(d);
	free(frozen);
	free(box);
	free(klo);
	free(khi);
	free(near);
	return rc;
}

int
sdf_particles(field *phi, const double *P, const double *radius, double r,
	      size_t np, const sdf_opts *o, slc_err *err)
{
	sphere_ctx sx = { NULL, P, radius, r, NULL };

	return sdf_capsules(phi, &sx, np, np, o, err);
}

int
sdf_strands(field *phi, const double *P, const double *radius, double r,
	    size_t np, const uint32_t *offset, size_t nstrand,
	    const sdf_opts *o, slc_err *err)
{
	uint32_t *seg;
	size_t ne = 0, s, q;
	int rc;

	if (!offset || offset[0] != 0 || offset[nstrand] != np)
		return slc_fail(err, "strand offsets do not run from 0 to %zu points", np);
	for (s = 0; s < nstrand; s++) {
		if (offset[s + 1] < offset[s])
			return slc_fail(err, "strand %zu: offsets fall (%u after %u)", s,
					offset[s + 1], offset[s]);
		/* a single-point strand is one sphere */
		ne += offset[s + 1] - offset[s] > 1 ? offset[s + 1] - offset[s] - 1
						    : offset[s + 1] - offset[s];
	}
	if (!(seg = slc_calloc(ne ? ne : 1, 2 * sizeof *seg, err)))
		return -1;
	for (s = 0, q = 0; s < nstrand; s++) {
		uint32_t a = offset[s], b = offset[s + 1];
		if (b - a == 1) {
			seg[2 * q] = seg[2 * q + 1] = a;
			q++;
		}
		for (uint32_t v = a; v + 1 < b; v++, q++) {
			seg[2 * q] = v;
			seg[2 * q + 1] = v + 1;
		}
	}
	sphere_ctx sx = { NULL, P, radius, r, seg };
	rc = sdf_capsules(phi, &sx, np, ne, o, err);
	free(seg);
	return rc;
}

/* --- placement ------------------------------------------------------ */

#define PLACE_ROUNDOFF 1e-4     /* cells: float vertices on a cell boundary */

int
sdf_place(const double lo[3], const double hi[3], double pad, double dx,
	  long res, slc_grid *g, slc_err *err)
{
	double ext = 0;
	int32_t *dim[3] = { &g->ni, &g->nj, &g->nk };
	int m;

	for (m = 0; m < 3; m++) {
		if (!isfinite(lo[m]) || !isfinite(hi[m]) || hi[m] < lo[m])
			return slc_fail(err, "bad box along %c: %g .. %g", "xyz"[m],
					lo[m], hi[m]);
		ext = fmax(ext, hi[m] - lo[m]);
	}
	if (!(pad >= 0) || !isfinite(pad))
		return slc_fail(err, "bad padding %g", pad);
	if (!(dx > 0)) {
		double cells = (double)res - 2 * pad;
		if (cells < 1)
			return slc_fail(err, "%ld cells leave none inside a margin of %g",
					res, pad);
		dx = ext > 0 ? ext / cells : 1.0 / cells;
	}
	for (m = 0; m < 3; m++) {
		double n = ceil((hi[m] - lo[m]) / dx + 2 * pad - PLACE_ROUNDOFF);
		if (n < 1)
			n = 1;
		if (!(n <= SDF_AXIS_MAX))
			return slc_fail(err, "grid of %g cells along %c is too large",
					n, "xyz"[m]);
		g->origin[m] = lo[m] - pad * dx;
		*dim[m] = (int32_t)n;
	}
	g->dx = dx;
	g->stagger = SLC_CELL;
	return 0;
}
