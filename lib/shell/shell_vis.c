/* shell_vis.c: thickened-triangle visibility and its binning over a
 * lattice of cubes (guendelman2005 §3, selle2008 thesis §4.3, Figure
 * 4.1).  See shell_vis.h. */
#include "shell/shell_vis.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Points tested along the part of a segment that lies in a wedge's slab. */
#define WEDGE_SAMPLES 5
/* A barycentric coordinate this far (relative to 1 + its size) beyond a
 * grown edge at both ends of that part is beyond it at every point
 * tested: far above the rounding of coordinates computed in double. */
#define BARY_MARGIN 1e-9

/* min and max of two numbers that are not NaN, inline (fmin and fmax
 * are calls at -O2, and these run for every segment) */
static inline double
dmin(double a, double b)
{
	return a < b ? a : b;
}

static inline double
dmax(double a, double b)
{
	return a > b ? a : b;
}

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int
shell_init(shell_set *s, double eps, slc_err *err)
{
	memset(s, 0, sizeof *s);
	if (!(eps > 0) || !isfinite(eps))
		return slc_fail(err, "shell thickness %g must be positive", eps);
	s->eps = eps;
	return 0;
}

void
shell_free(shell_set *s)
{
	free(s->tv);
	free(s->tmesh);
	free(s->tlocal);
	free(s->start);
	free(s->list);
	free(s->tbox);
	free(s->pre);
	free(s->cbox);
	free(s->occ);
	memset(s, 0, sizeof *s);
}

/* The box of triangle t's wedge e thick into box: the wedge grows the
 * triangle by e/2 across each edge, which moves a corner of angle theta
 * out by e/(2 sin(theta/2)), and by e/2 along the normal; every point of
 * it lies within the largest of those plus e/2 of the triangle. */
static void
wedge_box(const float *t, double e, float box[6])
{
	double r = 0, h = 0.5 * e;
	int c, a;

	for (c = 0; c < 3; c++) {
		const float *p = t + 3 * c, *q = t + 3 * ((c + 1) % 3), *w = t + 3 * ((c + 2) % 3);
		double u[3], v[3], lu, lv, cosang, sinhalf;

		for (a = 0; a < 3; a++) {
			u[a] = (double)q[a] - p[a];
			v[a] = (double)w[a] - p[a];
		}
		lu = sqrt(dot3(u, u));
		lv = sqrt(dot3(v, v));
		cosang = lu > 0 && lv > 0 ? dot3(u, v) / (lu * lv) : 1;
		sinhalf = sqrt(fmax(0, 0.5 * (1 - cosang)));
		r = fmax(r, sinhalf > 0 ? h / sinhalf : INFINITY);
	}
	r += h;
	for (a = 0; a < 3; a++) {
		double mn = fmin(t[a], fmin(t[3 + a], t[6 + a]));
		double mx = fmax(t[a], fmax(t[3 + a], t[6 + a]));

		/* widened by a float's rounding either way */
		box[a] = (float)(mn - r) - FLT_EPSILON * (float)fabs(mn - r) - FLT_MIN;
		box[3 + a] = (float)(mx + r) + FLT_EPSILON * (float)fabs(mx + r) + FLT_MIN;
		if (!isfinite(box[a]) || !isfinite(box[3 + a])) {
			box[a] = -INFINITY;
			box[3 + a] = INFINITY;
		}
	}
}

/* Grow the per-triangle arrays to hold need triangles. */
static int
reserve(shell_set *s, size_t need, slc_err *err)
{
	size_t cap, bytes;
	float *tv;
	uint32_t *tm, *tl;

	if (need <= s->cap)
		return 0;
	cap = need > 2 * s->cap ? need : 2 * s->cap;
	if (slc_mul(cap, 9 * sizeof *tv, &bytes))
		return slc_fail(err, "too many shell triangles");
	tv = realloc(s->tv, bytes);
	if (!tv)
		return slc_fail(err, "out of memory (%zu bytes)", bytes);
	s->tv = tv;
	tm = realloc(s->tmesh, cap * sizeof *tm);
	if (!tm)
		return slc_fail(err, "out of memory (%zu triangles)", cap);
	s->tmesh = tm;
	tl = realloc(s->tlocal, cap * sizeof *tl);
	if (!tl)
		return slc_fail(err, "out of memory (%zu triangles)", cap);
	s->tlocal = tl;
	s->cap = cap;
	return 0;
}

int
shell_add_mesh(shell_set *s, const float *P, size_t np, const uint32_t *tri,
	       size_t ntri, slc_err *err)
{
	size_t k, need;

	if (slc_add(s->ntri, ntri, &need) || need > UINT32_MAX ||
	    s->nmesh >= UINT32_MAX)
		return slc_fail(err, "too many shell triangles");
	if (reserve(s, need, err))
		return -1;
	for (k = 0; k < ntri; k++) {
		int q;

		for (q = 0; q < 3; q++) {
			if (tri[3 * k + q] >= np)
				return slc_fail(err, "triangle %zu: point index %u out of range",
						k, tri[3 * k + q]);
			memcpy(s->tv + 9 * (s->ntri + k) + 3 * q,
			       P + 3 * (size_t)tri[3 * k + q], 3 * sizeof(float));
		}
		s->tmesh[s->ntri + k] = (uint32_t)s->nmesh;
		s->tlocal[s->ntri + k] = (uint32_t)k;
	}
	s->ntri = need;
	s->nmesh++;
	return 0;
}

/* The cube index on axis a holding world coordinate x, clamped. */
static int
cube_of(const shell_set *s, int a, double x)
{
	int n = a == 0 ? s->ci : a == 1 ? s->cj : s->ck;
	double c = (x - s->origin[a]) / s->h;

	/* floor clamped to [0, n - 1] (NaN to n - 1), without the calls
	 * into libm that floor, fmin and fmax are at -O2: this runs for
	 * every sample near a shell */
	if (c < 0)
		return 0;
	if (!(c < n - 1))
		return n - 1;
	return (int)c;
}

void
shell_cube_range(const shell_set *s, const double mn[3], const double mx[3],
		 int lo[3], int hi[3])
{
	int a;

	for (a = 0; a < 3; a++) {
		lo[a] = cube_of(s, a, mn[a]);
		hi[a] = cube_of(s, a, mx[a]);
	}
}

/* The unnormalised normal n of triangle t (9 floats) and its length ln,
 * for near_cube. */
static void
near_normal(const float *t, double n[3], double *ln)
{
	double e1[3], e2[3];
	int a;

	for (a = 0; a < 3; a++) {
		e1[a] = (double)t[3 + a] - t[a];
		e2[a] = (double)t[6 + a] - t[a];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	*ln = sqrt(dot3(n, n));
}

/* Does the thickened plane of triangle t (its normal n of length ln,
 * near_normal) come near cube (i,j,k)?  The cube's centre must be within
 * half its diagonal plus eps of it. */
static int
near_cube(const shell_set *s, const float *t, const double n[3], double ln,
	  int i, int j, int k)
{
	double c[3], d;
	int a, ijk[3] = {i, j, k};

	for (a = 0; a < 3; a++)
		c[a] = s->origin[a] + (ijk[a] + 0.5) * s->h;
	if (!(ln > 0))
		return 1;
	d = ((c[0] - t[0]) * n[0] + (c[1] - t[1]) * n[1] + (c[2] - t[2]) * n[2]) / ln;
	return fabs(d) <= 0.5 * sqrt(3.0) * s->h + s->eps;
}

/* The box of cube (i,j,k) along axis a, grown by a margin for the
 * rounding of cube_of, open to infinity beyond the lattice's faces (its
 * boundary cubes hold what lies beyond). */
static void
cube_box(const shell_set *s, const int ijk[3], double lo[3], double hi[3])
{
	int n[3] = {s->ci, s->cj, s->ck}, a;

	for (a = 0; a < 3; a++) {
		double m = 1e-6 * s->h + 1e-12 * fabs(s->origin[a]);

		lo[a] = ijk[a] == 0 ? -INFINITY : s->origin[a] + ijk[a] * s->h - m;
		hi[a] = ijk[a] == n[a] - 1 ? INFINITY : s->origin[a] + (ijk[a] + 1) * s->h + m;
	}
}

/* A double rounded to the float at or below it, or at or above it. */
static float
float_down(double x)
{
	float f = (float)x;

	return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static float
float_up(double x)
{
	float f = (float)x;

	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Visit every cube near triangle q (its wedge box tbox made): count
 * (fill NULL) or fill the lists and grow the cubes' boxes.  A degenerate
 * triangle blocks nothing and is listed nowhere. */
static void
bin_tri(shell_set *s, size_t q, uint32_t *fill)
{
	const float *t = s->tv + 9 * q, *bx = s->tbox + 6 * q;
	double mn[3], mx[3], n[3], ln;
	int lo[3], hi[3], a, i, j, k;

	if (!(s->pre[q].area2 > 0))
		return;
	near_normal(t, n, &ln);
	for (a = 0; a < 3; a++) {
		mn[a] = bx[a];
		mx[a] = bx[3 + a];
	}
	shell_cube_range(s, mn, mx, lo, hi);
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t c = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				int ijk[3] = {i, j, k};
				double clo[3], chi[3];
				float *cb;

				if (!near_cube(s, t, n, ln, i, j, k))
					continue;
				if (!fill) {
					s->start[c + 1]++;
					continue;
				}
				cb = s->cbox + 6 * (size_t)s->start[c];
				if (fill[c] == 0)
					for (a = 0; a < 3; a++) {
						cb[a] = INFINITY;
						cb[3 + a] = -INFINITY;
					}
				s->list[s->start[c] + fill[c]++] = (uint32_t)q;
				/* the part of the wedge's box inside the cube */
				cube_box(s, ijk, clo, chi);
				for (a = 0; a < 3; a++) {
					float l = float_down(fmax(bx[a], clo[a]));
					float h = float_up(fmin(bx[3 + a], chi[a]));

					cb[a] = fminf(cb[a], l);
					cb[3 + a] = fmaxf(cb[3 + a], h);
				}
			}
}

/* The wedge test's numbers of the triangle t (9 floats), computed as
 * shell_tri_blocked always did. */
static void
pre_of(const float *t, shell_pre *P)
{
	double n[3];
	int c;

	for (c = 0; c < 3; c++) {
		P->p[c] = t[c];
		P->e1[c] = (double)t[3 + c] - t[c];
		P->e2[c] = (double)t[6 + c] - t[c];
	}
	n[0] = P->e1[1] * P->e2[2] - P->e1[2] * P->e2[1];
	n[1] = P->e1[2] * P->e2[0] - P->e1[0] * P->e2[2];
	n[2] = P->e1[0] * P->e2[1] - P->e1[1] * P->e2[0];
	P->area2 = sqrt(dot3(n, n));
	for (c = 0; c < 3; c++)
		P->n[c] = P->area2 > 0 ? n[c] / P->area2 : 0;
	/* lengths of the edges opposite each corner */
	for (c = 0; c < 3; c++) {
		const float *p = t + 3 * ((c + 1) % 3), *q = t + 3 * ((c + 2) % 3);
		double e[3] = {(double)q[0] - p[0], (double)q[1] - p[1],
			       (double)q[2] - p[2]};

		P->el[c] = sqrt(dot3(e, e));
	}
}

/* The prefix sums occ of the cubes that list a triangle (shell_vis.h),
 * from the lists, over the cubes olo..ohi of the box of every wedge
 * (gbox): no cube beyond them lists one. */
static int
build_occ(shell_set *s, slc_err *err)
{
	double mn[3], mx[3];
	size_t oi, oj, no;
	int i, j, k, a;

	for (a = 0; a < 3; a++) {
		mn[a] = s->gbox[a];
		mx[a] = s->gbox[3 + a];
		s->olo[a] = 1;
		s->ohi[a] = 0;
	}
	if (!(mn[0] <= mx[0] && mn[1] <= mx[1] && mn[2] <= mx[2]))
		return 0;       /* nothing binned: every range is empty */
	shell_cube_range(s, mn, mx, s->olo, s->ohi);
	oi = (size_t)(s->ohi[0] - s->olo[0]) + 2;
	oj = (size_t)(s->ohi[1] - s->olo[1]) + 2;
	if (slc_mul3(oi, oj, (size_t)(s->ohi[2] - s->olo[2]) + 2, &no))
		return slc_fail(err, "shell lattice %dx%dx%d too large", s->ci, s->cj, s->ck);
	if (!(s->occ = slc_calloc(no, sizeof *s->occ, err)))
		return -1;
	for (k = s->olo[2]; k <= s->ohi[2]; k++)
		for (j = s->olo[1]; j <= s->ohi[1]; j++)
			for (i = s->olo[0]; i <= s->ohi[0]; i++) {
				size_t c = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				size_t o = (size_t)(i - s->olo[0] + 1) +
					   oi * ((size_t)(j - s->olo[1] + 1) + oj * (size_t)(k - s->olo[2] + 1));

				/* inclusion-exclusion over the seven lower
				 * neighbours; counts stay below ci*cj*ck */
				s->occ[o] = (uint32_t)(s->start[c] != s->start[c + 1]) +
					    s->occ[o - 1] + s->occ[o - oi] + s->occ[o - oi * oj] -
					    s->occ[o - 1 - oi] - s->occ[o - 1 - oi * oj] -
					    s->occ[o - oi - oi * oj] + s->occ[o - 1 - oi - oi * oj];
			}
	return 0;
}

int
shell_range_empty(const shell_set *s, const int lo[3], const int hi[3])
{
	size_t oi, oj, x0, x1, y0, y1, z0, z1;
	const uint32_t *o = s->occ;
	int l[3], h[3], a;

	if (!o)
		return 1;
	/* the range clipped to olo..ohi, outside which no cube lists a
	 * triangle */
	for (a = 0; a < 3; a++) {
		l[a] = (lo[a] > s->olo[a] ? lo[a] : s->olo[a]) - s->olo[a];
		h[a] = (hi[a] < s->ohi[a] ? hi[a] : s->ohi[a]) - s->olo[a];
		if (l[a] > h[a])
			return 1;
	}
	oi = (size_t)(s->ohi[0] - s->olo[0]) + 2;
	oj = (size_t)(s->ohi[1] - s->olo[1]) + 2;
	x0 = (size_t)l[0];
	x1 = (size_t)h[0] + 1;
	y0 = oi * (size_t)l[1];
	y1 = oi * ((size_t)h[1] + 1);
	z0 = oi * oj * (size_t)l[2];
	z1 = oi * oj * ((size_t)h[2] + 1);
	/* unsigned wrap-around cancels in the sum */
	return o[x1 + y1 + z1] - o[x0 + y1 + z1] - o[x1 + y0 + z1] - o[x1 + y1 + z0] +
	       o[x0 + y0 + z1] + o[x0 + y1 + z0] + o[x1 + y0 + z0] - o[x0 + y0 + z0] == 0;
}

int
shell_build(shell_set *s, const double origin[3], double h, int ci, int cj,
	    int ck, slc_err *err)
{
	size_t ncube, c, q;
	uint32_t *fill;

	free(s->start);
	free(s->list);
	free(s->tbox);
	free(s->pre);
	free(s->cbox);
	free(s->occ);
	s->occ = NULL;
	s->start = NULL;
	s->list = NULL;
	s->tbox = NULL;
	s->pre = NULL;
	s->cbox = NULL;
	if (!(h > 0) || !isfinite(h) || ci < 1 || cj < 1 || ck < 1)
		return slc_fail(err, "shell lattice %dx%dx%d of %g m is empty",
				ci, cj, ck, h);
	memcpy(s->origin, origin, sizeof s->origin);
	s->h = h;
	s->ci = ci;
	s->cj = cj;
	s->ck = ck;
	if (slc_mul3((size_t)ci, (size_t)cj, (size_t)ck, &ncube) ||
	    ncube == SIZE_MAX)
		return slc_fail(err, "shell lattice %dx%dx%d too large", ci, cj, ck);
	if (!(s->tbox = slc_malloc(s->ntri ? 6 * s->ntri : 1, sizeof *s->tbox, err)) ||
	    !(s->pre = slc_malloc(s->ntri ? s->ntri : 1, sizeof *s->pre, err)) ||
	    !(s->start = slc_calloc(ncube + 1, sizeof *s->start, err)))
		return -1;
	for (c = 0; c < 3; c++) {
		s->gbox[c] = INFINITY;
		s->gbox[3 + c] = -INFINITY;
	}
	for (q = 0; q < s->ntri; q++) {
		const float *bx = s->tbox + 6 * q;

		wedge_box(s->tv + 9 * q, 2 * s->eps, s->tbox + 6 * q);
		pre_of(s->tv + 9 * q, &s->pre[q]);
		/* as bin_tri: a degenerate triangle is listed nowhere */
		if (!(s->pre[q].area2 > 0))
			continue;
		for (c = 0; c < 3; c++) {
			s->gbox[c] = fminf(s->gbox[c], bx[c]);
			s->gbox[3 + c] = fmaxf(s->gbox[3 + c], bx[3 + c]);
		}
	}
	for (q = 0; q < s->ntri; q++)
		bin_tri(s, q, NULL);
	for (c = 0; c < ncube; c++) {
		if (s->start[c + 1] > UINT32_MAX - s->start[c])
			return slc_fail(err, "shells too large for their lattice");
		s->start[c + 1] += s->start[c];
	}
	s->list = slc_calloc(s->start[ncube] ? s->start[ncube] : 1,
			     sizeof *s->list, err);
	/* a box for each cube that lists a triangle, at its list's start:
	 * as many as the lists' entries at most, not the lattice's cubes */
	s->cbox = s->list ? slc_malloc(s->start[ncube] ? s->start[ncube] : 1,
				       6 * sizeof *s->cbox, err) : NULL;
	fill = s->cbox ? slc_calloc(ncube, sizeof *fill, err) : NULL;
	if (!fill)
		return -1;
	for (q = 0; q < s->ntri; q++)
		bin_tri(s, q, fill);
	free(fill);
	return build_occ(s, err);
}

/* guendelman2005 §3, selle2008 Figure 4.1: the wedge of a triangle is the
 * triangle extended by eps/2 along its normal and in its plane.  The
 * segment is clipped to the slab |distance to the plane| <= eps/2 and
 * points of the clipped part (its ends, the plane crossing and points in
 * between) are tested against the triangle grown by eps/2 across each
 * edge: a hit means the far end is occluded, or is inside the wedge. */
static int
blocked_pre(const double a[3], const double b[3], const shell_pre *P, double eps)
{
	const double *e1 = P->e1, *e2 = P->e2, *n = P->n, *t = P->p, *el = P->el;
	double area2 = P->area2, d0, d1, h = 0.5 * eps, tlo, thi;
	int c, s;

	if (!(area2 > 0))
		return 0;
	d0 = (a[0] - t[0]) * n[0] + (a[1] - t[1]) * n[1] + (a[2] - t[2]) * n[2];
	d1 = (b[0] - t[0]) * n[0] + (b[1] - t[1]) * n[1] + (b[2] - t[2]) * n[2];
	if ((d0 > h && d1 > h) || (d0 < -h && d1 < -h))
		return 0;
	if (fabs(d1 - d0) < 1e-300) {
		tlo = 0;
		thi = 1;
	} else {
		double ta = (h - d0) / (d1 - d0), tb = (-h - d0) / (d1 - d0);

		tlo = dmax(0, dmin(ta, tb));
		thi = dmin(1, dmax(ta, tb));
	}
	/* the barycentric coordinates are affine along the segment: when
	 * both ends of the clipped part lie clearly beyond one grown edge,
	 * so does every point tested below (the margin covers rounding) */
	{
		double lo[2][3];
		int e, c2;

		for (e = 0; e < 2; e++) {
			double u = e ? thi : tlo, p[3], r[3], cr[3];

			for (c = 0; c < 3; c++) {
				p[c] = a[c] + u * (b[c] - a[c]);
				r[c] = p[c] - t[c];
			}
			cr[0] = r[1] * e2[2] - r[2] * e2[1];
			cr[1] = r[2] * e2[0] - r[0] * e2[2];
			cr[2] = r[0] * e2[1] - r[1] * e2[0];
			lo[e][1] = dot3(cr, n) / area2;
			cr[0] = e1[1] * r[2] - e1[2] * r[1];
			cr[1] = e1[2] * r[0] - e1[0] * r[2];
			cr[2] = e1[0] * r[1] - e1[1] * r[0];
			lo[e][2] = dot3(cr, n) / area2;
			lo[e][0] = 1 - lo[e][1] - lo[e][2];
		}
		for (c2 = 0; c2 < 3; c2++) {
			double bound = -h * el[c2] / area2;

			if (lo[0][c2] < bound - BARY_MARGIN * (1 + fabs(lo[0][c2])) &&
			    lo[1][c2] < bound - BARY_MARGIN * (1 + fabs(lo[1][c2])))
				return 0;
		}
	}
	for (s = 0; s <= WEDGE_SAMPLES; s++) {
		double u, p[3], r[3], l1, l2, l0, cr[3];

		if (s < WEDGE_SAMPLES)
			u = tlo + (thi - tlo) * s / (WEDGE_SAMPLES - 1);
		else if (d0 * d1 < 0)
			u = d0 / (d0 - d1);     /* the plane crossing */
		else
			break;
		for (c = 0; c < 3; c++)
			p[c] = a[c] + u * (b[c] - a[c]);
		/* barycentric coordinates of p projected on the plane */
		for (c = 0; c < 3; c++)
			r[c] = p[c] - t[c];
		cr[0] = r[1] * e2[2] - r[2] * e2[1];
		cr[1] = r[2] * e2[0] - r[0] * e2[2];
		cr[2] = r[0] * e2[1] - r[1] * e2[0];
		l1 = dot3(cr, n) / area2;
		cr[0] = e1[1] * r[2] - e1[2] * r[1];
		cr[1] = e1[2] * r[0] - e1[0] * r[2];
		cr[2] = e1[0] * r[1] - e1[1] * r[0];
		l2 = dot3(cr, n) / area2;
		l0 = 1 - l1 - l2;
		/* moving a distance h across the edge opposite corner c
		 * changes that corner's coordinate by h * el[c] / area2 */
		if (l0 >= -h * el[0] / area2 && l1 >= -h * el[1] / area2 &&
		    l2 >= -h * el[2] / area2)
			return 1;
	}
	return 0;
}

/* guendelman2005 §3, selle2008 Figure 4.1: the wedge of a triangle is the
 * triangle extended by eps/2 along its normal and in its plane.  The
 * segment is clipped to the slab |distance to the plane| <= eps/2 and
 * points of the clipped part (its ends, the plane crossing and points in
 * between) are tested against the triangle grown by eps/2 across each
 * edge: a hit means the far end is occluded, or is inside the wedge. */
int
shell_tri_blocked(const double a[3], const double b[3], const float *t,
		  double eps)
{
	shell_pre P;

	pre_of(t, &P);
	return blocked_pre(a, b, &P, eps);
}

/* Does the box [mn, mx] miss the float box bx (min xyz, max xyz)? */
static int
box_misses(const double mn[3], const double mx[3], const float *bx)
{
	return mx[0] < bx[0] || mx[1] < bx[1] || mx[2] < bx[2] ||
	       mn[0] > bx[3] || mn[1] > bx[4] || mn[2] > bx[5];
}

int
shell_tri_blocked_at(const shell_set *s, size_t q, const double a[3], const double b[3])
{
	double mn[3], mx[3];
	int c;

	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	return !box_misses(mn, mx, s->tbox + 6 * q) && blocked_pre(a, b, &s->pre[q], s->eps);
}

/* Triangles already tested in one query (a triangle is listed in every
 * cube it comes near): the first SEEN_MAX are remembered, the rest are
 * tested again, which costs time only. */
#define SEEN_MAX 64

static int
seen_before(uint32_t *seen, int *ns, uint32_t q)
{
	int m;

	for (m = 0; m < *ns; m++)
		if (seen[m] == q)
			return 1;
	if (*ns < SEEN_MAX)
		seen[(*ns)++] = q;
	return 0;
}

/* The cube range of the segment a-b's box. */
static void
segment_cubes(const shell_set *s, const double a[3], const double b[3],
	      int lo[3], int hi[3])
{
	double mn[3], mx[3];
	int c;

	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	shell_cube_range(s, mn, mx, lo, hi);
}

int
shell_visible(const shell_set *s, const double a[3], const double b[3])
{
	return shell_visible_eps(s, a, b, s->eps);
}

int
shell_visible_eps(const shell_set *s, const double a[3], const double b[3],
		  double eps)
{
	int lo[3], hi[3], i, j, k, c, ns = 0;
	/* a wedge at most 2 eps thick lies in its box (tbox, cbox) */
	int boxed = eps <= 2 * s->eps;
	double mn[3], mx[3];
	uint32_t seen[SEEN_MAX];

	if (!s->start || s->ntri == 0)
		return 1;
	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	if (boxed && box_misses(mn, mx, s->gbox))
		return 1;
	segment_cubes(s, a, b, lo, hi);
	if (shell_range_empty(s, lo, hi))
		return 1;
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t cu = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				uint32_t q;

				if (s->start[cu] == s->start[cu + 1] ||
				    (boxed && box_misses(mn, mx, s->cbox + 6 * (size_t)s->start[cu])))
					continue;
				for (q = s->start[cu]; q < s->start[cu + 1]; q++) {
					uint32_t tq = s->list[q];

					if (boxed && (box_misses(mn, mx, s->tbox + 6 * (size_t)tq) ||
						      seen_before(seen, &ns, tq)))
						continue;
					if (blocked_pre(a, b, &s->pre[tq], eps))
						return 0;
				}
			}
	return 1;
}

int
shell_near(const shell_set *s, const double x[3])
{
	size_t c;

	if (!s->start || s->ntri == 0)
		return 0;
	c = (size_t)cube_of(s, 0, x[0]) + (size_t)s->ci *
	    ((size_t)cube_of(s, 1, x[1]) + (size_t)s->cj * cube_of(s, 2, x[2]));
	return s->start[c] != s->start[c + 1];
}

/* Where the segment a->b meets triangle t's mid-plane (parameter along
 * it, clamped to [0,1]; the end nearer the plane when it does not cross)
 * and the barycentric weights of that point's projection, clamped to the
 * triangle and renormalised. */
static void
crossing(const double a[3], const double b[3], const float *t, shell_hit *hit)
{
	double e1[3], e2[3], n[3], nn, d0, d1, u, p[3], r[3], cr[3], l[3], sum;
	int c;

	for (c = 0; c < 3; c++) {
		e1[c] = (double)t[3 + c] - t[c];
		e2[c] = (double)t[6 + c] - t[c];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	nn = dot3(n, n);
	d0 = (a[0] - t[0]) * n[0] + (a[1] - t[1]) * n[1] + (a[2] - t[2]) * n[2];
	d1 = (b[0] - t[0]) * n[0] + (b[1] - t[1]) * n[1] + (b[2] - t[2]) * n[2];
	if (d0 * d1 < 0)
		u = d0 / (d0 - d1);
	else
		u = fabs(d0) <= fabs(d1) ? 0 : 1;
	hit->t = u;
	for (c = 0; c < 3; c++) {
		p[c] = a[c] + u * (b[c] - a[c]);
		r[c] = p[c] - t[c];
	}
	cr[0] = r[1] * e2[2] - r[2] * e2[1];
	cr[1] = r[2] * e2[0] - r[0] * e2[2];
	cr[2] = r[0] * e2[1] - r[1] * e2[0];
	l[1] = nn > 0 ? dot3(cr, n) / nn : 1.0 / 3;
	cr[0] = e1[1] * r[2] - e1[2] * r[1];
	cr[1] = e1[2] * r[0] - e1[0] * r[2];
	cr[2] = e1[0] * r[1] - e1[1] * r[0];
	l[2] = nn > 0 ? dot3(cr, n) / nn : 1.0 / 3;
	l[0] = 1 - l[1] - l[2];
	sum = 0;
	for (c = 0; c < 3; c++) {
		l[c] = fmax(0, l[c]);
		sum += l[c];
	}
	for (c = 0; c < 3; c++)
		hit->bary[c] = sum > 0 ? l[c] / sum : 1.0 / 3;
}

/* Keep in *hit the crossing of a->b with triangle tq (which blocks it)
 * when it is nearer t0 than *hit's (found: *hit holds one). */
static void
keep_nearest(const shell_set *s, const double a[3], const double b[3], double t0,
	     size_t tq, int found, shell_hit *hit)
{
	shell_hit h;

	crossing(a, b, s->tv + 9 * tq, &h);
	h.tri = tq;
	/* nearest t0; ties to the lower index, so the answer does not depend
	 * on the order the triangles are visited in */
	if (!found || fabs(h.t - t0) < fabs(hit->t - t0) ||
	    (fabs(h.t - t0) == fabs(hit->t - t0) && tq < hit->tri))
		*hit = h;
}

int
shell_segment_hit(const shell_set *s, const double a[3], const double b[3],
		  double t0, shell_hit *hit)
{
	int lo[3], hi[3], i, j, k, c, found = 0, ns = 0;
	double mn[3], mx[3];
	uint32_t seen[SEEN_MAX];

	if (!s->start || s->ntri == 0)
		return 0;
	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	if (box_misses(mn, mx, s->gbox))
		return 0;
	segment_cubes(s, a, b, lo, hi);
	if (shell_range_empty(s, lo, hi))
		return 0;
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t cu = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				uint32_t q;

				if (s->start[cu] == s->start[cu + 1] ||
				    box_misses(mn, mx, s->cbox + 6 * (size_t)s->start[cu]))
					continue;
				for (q = s->start[cu]; q < s->start[cu + 1]; q++) {
					uint32_t tq = s->list[q];

					if (box_misses(mn, mx, s->tbox + 6 * (size_t)tq) ||
					    seen_before(seen, &ns, tq) ||
					    !blocked_pre(a, b, &s->pre[tq], s->eps))
						continue;
					keep_nearest(s, a, b, t0, tq, found, hit);
					found = 1;
				}
			}
	return found;
}

int
shell_gather(const shell_set *s, const double mn[3], const double mx[3], shell_cand *C)
{
	int lo[3], hi[3], i, j, k, a;

	C->n = 0;
	for (a = 0; a < 3; a++) {
		C->mn[a] = mn[a];
		C->mx[a] = mx[a];
	}
	if (!s->start || s->ntri == 0 || box_misses(mn, mx, s->gbox))
		return 0;
	shell_cube_range(s, mn, mx, lo, hi);
	if (shell_range_empty(s, lo, hi))
		return 0;
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t cu = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				uint32_t q;

				if (s->start[cu] == s->start[cu + 1] ||
				    box_misses(mn, mx, s->cbox + 6 * (size_t)s->start[cu]))
					continue;
				for (q = s->start[cu]; q < s->start[cu + 1]; q++) {
					uint32_t tq = s->list[q];
					int l = 0, r = C->n;

					if (box_misses(mn, mx, s->tbox + 6 * (size_t)tq))
						continue;
					/* insert in order, once */
					while (l < r) {
						int m = (l + r) / 2;

						if (C->tri[m] < tq)
							l = m + 1;
						else
							r = m;
					}
					if (l < C->n && C->tri[l] == tq)
						continue;
					if (C->n == SHELL_GATHER_MAX) {
						C->n = -1;
						return -1;
					}
					memmove(C->tri + l + 1, C->tri + l,
						(size_t)(C->n - l) * sizeof *C->tri);
					C->tri[l] = tq;
					C->n++;
				}
			}
	return C->n;
}

int
shell_box_clear(const shell_set *s, const double mn[3], const double mx[3])
{
	int lo[3], hi[3], i, j, k;

	if (!s->start || s->ntri == 0 || box_misses(mn, mx, s->gbox))
		return 1;
	shell_cube_range(s, mn, mx, lo, hi);
	if (shell_range_empty(s, lo, hi))
		return 1;
	/* the cubes and triangles shell_gather visits, in its order */
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t cu = (size_t)i + (size_t)s->ci * ((size_t)j + (size_t)s->cj * k);
				uint32_t q;

				if (s->start[cu] == s->start[cu + 1] ||
				    box_misses(mn, mx, s->cbox + 6 * (size_t)s->start[cu]))
					continue;
				for (q = s->start[cu]; q < s->start[cu + 1]; q++)
					if (!box_misses(mn, mx, s->tbox + 6 * (size_t)s->list[q]))
						return 0;
			}
	return 1;
}

int
shell_visible_in(const shell_set *s, const shell_cand *C, const double a[3],
		 const double b[3])
{
	double mn[3], mx[3];
	int c, m;

	if (C->n < 0)
		return shell_visible(s, a, b);
	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	for (m = 0; m < C->n; m++) {
		uint32_t tq = C->tri[m];

		if (!box_misses(mn, mx, s->tbox + 6 * (size_t)tq) &&
		    blocked_pre(a, b, &s->pre[tq], s->eps))
			return 0;
	}
	return 1;
}

int
shell_segment_hit_in(const shell_set *s, const shell_cand *C, const double a[3],
		     const double b[3], double t0, shell_hit *hit)
{
	double mn[3], mx[3];
	int c, m, found = 0;

	if (C->n < 0)
		return shell_segment_hit(s, a, b, t0, hit);
	for (c = 0; c < 3; c++) {
		mn[c] = dmin(a[c], b[c]);
		mx[c] = dmax(a[c], b[c]);
	}
	for (m = 0; m < C->n; m++) {
		uint32_t tq = C->tri[m];

		if (box_misses(mn, mx, s->tbox + 6 * (size_t)tq) ||
		    !blocked_pre(a, b, &s->pre[tq], s->eps))
			continue;
		keep_nearest(s, a, b, t0, tq, found, hit);
		found = 1;
	}
	return found;
}

int
shell_fan_in(const shell_set *s, const shell_cand *C, const double a[3],
	     const double (*b)[3], int nb, int *vis, double t0, shell_hit *hit)
{
	double mn[SHELL_FAN_MAX][3], mx[SHELL_FAN_MAX][3], h = 0.5 * s->eps;
	int found[SHELL_FAN_MAX], c, k, m, nvis = 0, open = nb;

	if (C->n < 0 || nb > SHELL_FAN_MAX) {
		for (k = 0; k < nb; k++) {
			vis[k] = hit ? !(C->n < 0 ? shell_segment_hit(s, a, b[k], t0, &hit[k]) :
					 shell_segment_hit_in(s, C, a, b[k], t0, &hit[k])) :
				 shell_visible_in(s, C, a, b[k]);
			nvis += vis[k];
		}
		return nvis;
	}
	for (k = 0; k < nb; k++) {
		vis[k] = 1;
		found[k] = 0;
		for (c = 0; c < 3; c++) {
			mn[k][c] = dmin(a[c], b[k][c]);
			mx[k][c] = dmax(a[c], b[k][c]);
		}
	}
	/* the triangles outside, the segments inside: a's side of each
	 * plane is found once for the fan.  Each segment's answer is
	 * shell_visible_in's or shell_segment_hit_in's: the same wedge
	 * tests (blocked_pre, after the same box test), the plane test
	 * that opens blocked_pre made here with the same expression, and
	 * the nearest crossing kept in any order (keep_nearest) */
	for (m = 0; m < C->n && open > 0; m++) {
		uint32_t tq = C->tri[m];
		const shell_pre *P = &s->pre[tq];
		const float *bx = s->tbox + 6 * (size_t)tq;
		const double *n = P->n, *t = P->p;
		double d0;

		if (!(P->area2 > 0))
			continue;
		d0 = (a[0] - t[0]) * n[0] + (a[1] - t[1]) * n[1] + (a[2] - t[2]) * n[2];
		for (k = 0; k < nb; k++) {
			double d1;

			if ((!hit && !vis[k]) || box_misses(mn[k], mx[k], bx))
				continue;
			d1 = (b[k][0] - t[0]) * n[0] + (b[k][1] - t[1]) * n[1] +
			     (b[k][2] - t[2]) * n[2];
			if ((d0 > h && d1 > h) || (d0 < -h && d1 < -h))
				continue;
			if (!blocked_pre(a, b[k], P, s->eps))
				continue;
			if (hit) {
				keep_nearest(s, a, b[k], t0, tq, found[k], &hit[k]);
				found[k] = 1;
			} else {
				open--;
			}
			vis[k] = 0;
		}
	}
	for (k = 0; k < nb; k++)
		nvis += vis[k];
	return nvis;
}
