/* render_oneside.c: robust one-sided interpolation of a level set next to
 * thin shells, after selle2008 thesis §4.3 (visibility by ray casting
 * against thickened triangle wedges, Figure 4.1) and §4.4.3 "Level Set
 * Method" (replacing samples that are not visible from the one ring, two
 * ring or three ring neighbours of the cell), used for rendering as §4.6
 * describes: "we use the robust interpolation scheme to evaluate the phi
 * implicit function". */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Points tested along the part of a segment that lies in a wedge's slab. */
#define WEDGE_SAMPLES 5

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int
oneside_init(oneside *os, const field *phi, double eps, slc_err *err)
{
	memset(os, 0, sizeof *os);
	if (!(eps > 0))
		return slc_fail(err, "shell thickness %g must be positive", eps);
	os->phi = phi;
	os->eps = eps;
	return 0;
}

void
oneside_free(oneside *os)
{
	free(os->tv);
	free(os->start);
	free(os->list);
	memset(os, 0, sizeof *os);
}

int
oneside_add_mesh(oneside *os, const float *P, size_t np, const uint32_t *tri,
		 size_t ntri, slc_err *err)
{
	size_t k, need;

	if (slc_add(os->ntri, ntri, &need) || need > UINT32_MAX)
		return slc_fail(err, "too many shell triangles");
	if (need > os->cap) {
		size_t cap = need > 2 * os->cap ? need : 2 * os->cap, bytes;
		float *tv;

		if (slc_mul(cap, 9 * sizeof *tv, &bytes))
			return slc_fail(err, "too many shell triangles");
		tv = realloc(os->tv, bytes);
		if (!tv)
			return slc_fail(err, "out of memory (%zu bytes)", bytes);
		os->tv = tv;
		os->cap = cap;
	}
	for (k = 0; k < ntri; k++) {
		int q;

		for (q = 0; q < 3; q++) {
			if (tri[3 * k + q] >= np)
				return slc_fail(err, "triangle %zu: point index %u out of range",
						k, tri[3 * k + q]);
			memcpy(os->tv + 9 * (os->ntri + k) + 3 * q,
			       P + 3 * (size_t)tri[3 * k + q], 3 * sizeof(float));
		}
	}
	os->ntri = need;
	return 0;
}

/* Sample-space coordinate of world coordinate x on axis a. */
static double
to_sample(const field *f, int a, double x)
{
	double off[3];

	field_offset(f, off);
	return (x - f->origin[a]) / f->dx - off[a];
}

/* Lattice cell range [lo, hi] on axis a touched by [x0, x1] (world). */
static void
cell_range(const oneside *os, int a, double x0, double x1, int n, int *lo,
	   int *hi)
{
	double s0 = floor(to_sample(os->phi, a, x0));
	double s1 = floor(to_sample(os->phi, a, x1));

	*lo = (int)fmax(0, fmin(n - 1, s0));
	*hi = (int)fmax(0, fmin(n - 1, s1));
}

/* Does the triangle's thickened plane come near lattice cell (i,j,k)?
 * The cell's centre must be within half its diagonal plus eps of it. */
static int
near_cell(const oneside *os, const float *t, int i, int j, int k)
{
	const field *f = os->phi;
	double c[3], e1[3], e2[3], n[3], ln, d;
	int a;

	field_pos(f, i, j, k, c);
	for (a = 0; a < 3; a++) {
		c[a] += 0.5 * f->dx;
		e1[a] = (double)t[3 + a] - t[a];
		e2[a] = (double)t[6 + a] - t[a];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	ln = sqrt(dot3(n, n));
	if (!(ln > 0))
		return 1;
	d = ((c[0] - t[0]) * n[0] + (c[1] - t[1]) * n[1] + (c[2] - t[2]) * n[2]) / ln;
	return fabs(d) <= 0.5 * sqrt(3.0) * f->dx + os->eps;
}

/* Visit every lattice cell near triangle q: count (list NULL) or fill. */
static void
bin_tri(oneside *os, size_t q, uint32_t *fill)
{
	const float *t = os->tv + 9 * q;
	int lo[3], hi[3], n[3] = {os->ci, os->cj, os->ck}, a, i, j, k;

	for (a = 0; a < 3; a++) {
		double mn = fmin(t[a], fmin(t[3 + a], t[6 + a])) - os->eps;
		double mx = fmax(t[a], fmax(t[3 + a], t[6 + a])) + os->eps;

		cell_range(os, a, mn, mx, n[a], &lo[a], &hi[a]);
	}
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t c = (size_t)i + (size_t)os->ci * ((size_t)j + (size_t)os->cj * k);

				if (!near_cell(os, t, i, j, k))
					continue;
				if (fill)
					os->list[os->start[c] + fill[c]++] = (uint32_t)q;
				else
					os->start[c + 1]++;
			}
}

int
oneside_build(oneside *os, slc_err *err)
{
	const field *f = os->phi;
	size_t ncell, c, q;
	uint32_t *fill;

	os->ci = f->ni > 1 ? f->ni - 1 : 1;
	os->cj = f->nj > 1 ? f->nj - 1 : 1;
	os->ck = f->nk > 1 ? f->nk - 1 : 1;
	if (slc_mul3((size_t)os->ci, (size_t)os->cj, (size_t)os->ck, &ncell))
		return slc_fail(err, "level set too large");
	os->start = slc_calloc(ncell + 1, sizeof *os->start, err);
	if (!os->start)
		return -1;
	for (q = 0; q < os->ntri; q++)
		bin_tri(os, q, NULL);
	for (c = 0; c < ncell; c++) {
		if (os->start[c + 1] > UINT32_MAX - os->start[c])
			return slc_fail(err, "shells too large for the level set grid");
		os->start[c + 1] += os->start[c];
	}
	os->list = slc_calloc(os->start[ncell] ? os->start[ncell] : 1,
			      sizeof *os->list, err);
	fill = os->list ? slc_calloc(ncell, sizeof *fill, err) : NULL;
	if (!fill)
		return -1;
	for (q = 0; q < os->ntri; q++)
		bin_tri(os, q, fill);
	free(fill);
	return 0;
}

/* selle2008 §4.3, Figure 4.1: the wedge of a triangle is the triangle
 * extended by eps/2 along its normal and in its plane.  The segment is
 * clipped to the slab |distance to the plane| <= eps/2 and points of the
 * clipped part (its ends, the plane crossing and points in between) are
 * tested against the triangle grown by eps/2 across each edge: a hit means
 * the far end is occluded, or is inside the wedge.  Growing the wedge
 * only ever labels more points occluded, which is the safe side. */
int
oneside_blocked(const double a[3], const double b[3], const float *t,
		double eps)
{
	double e1[3], e2[3], n[3], area2, d0, d1, h = 0.5 * eps, tlo, thi;
	double el[3];
	int c, s;

	for (c = 0; c < 3; c++) {
		e1[c] = (double)t[3 + c] - t[c];
		e2[c] = (double)t[6 + c] - t[c];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	area2 = sqrt(dot3(n, n));
	if (!(area2 > 0))
		return 0;
	for (c = 0; c < 3; c++)
		n[c] /= area2;
	d0 = (a[0] - t[0]) * n[0] + (a[1] - t[1]) * n[1] + (a[2] - t[2]) * n[2];
	d1 = (b[0] - t[0]) * n[0] + (b[1] - t[1]) * n[1] + (b[2] - t[2]) * n[2];
	if ((d0 > h && d1 > h) || (d0 < -h && d1 < -h))
		return 0;
	if (fabs(d1 - d0) < 1e-300) {
		tlo = 0;
		thi = 1;
	} else {
		double ta = (h - d0) / (d1 - d0), tb = (-h - d0) / (d1 - d0);

		tlo = fmax(0, fmin(ta, tb));
		thi = fmin(1, fmax(ta, tb));
	}
	/* lengths of the edges opposite each corner */
	for (c = 0; c < 3; c++) {
		const float *p = t + 3 * ((c + 1) % 3), *q = t + 3 * ((c + 2) % 3);
		double e[3] = {(double)q[0] - p[0], (double)q[1] - p[1],
			       (double)q[2] - p[2]};

		el[c] = sqrt(dot3(e, e));
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

/* Split a sample-space coordinate into a clamped base index and weight,
 * as field_sample does. */
static void
locate(double s, int n, int *i0, double *w)
{
	if (n < 2 || !(s > 0)) {
		*i0 = 0;
		*w = 0;
	} else if (s >= n - 1) {
		*i0 = n - 2;
		*w = 1;
	} else {
		*i0 = (int)floor(s);
		*w = s - *i0;
	}
}

/* The lattice cell holding x, clamped as field_sample clamps. */
static size_t
lattice_cell(const oneside *os, const double x[3], int b[3], double w[3])
{
	const field *f = os->phi;
	int a;

	for (a = 0; a < 3; a++) {
		int n = a == 0 ? f->ni : a == 1 ? f->nj : f->nk;

		locate(to_sample(f, a, x[a]), n, &b[a], &w[a]);
	}
	return (size_t)b[0] + (size_t)os->ci * ((size_t)b[1] + (size_t)os->cj * b[2]);
}

int
oneside_near(const oneside *os, const double x[3])
{
	const field *f = os->phi;
	int b[3];
	double w[3];
	size_t c;

	if (!os->start || os->ntri == 0 || f->ni < 2 || f->nj < 2 || f->nk < 2)
		return 0;
	c = lattice_cell(os, x, b, w);
	return os->start[c] != os->start[c + 1];
}

double
oneside_phi(const oneside *os, const double x[3])
{
	const field *f = os->phi;
	double w[3], v[8], pos[8][3];
	int b[3], vis[8], corner, nvis = 0;
	size_t c, q;

	if (!os->start || os->ntri == 0 || f->ni < 2 || f->nj < 2 || f->nk < 2)
		return field_sample(f, x);
	c = lattice_cell(os, x, b, w);
	if (os->start[c] == os->start[c + 1])
		return field_sample(f, x);     /* far from every shell */
	for (corner = 0; corner < 8; corner++) {
		int i = b[0] + (corner & 1), j = b[1] + (corner >> 1 & 1);
		int k = b[2] + (corner >> 2);

		v[corner] = f->a[FIELD_IDX(f, i, j, k)];
		field_pos(f, i, j, k, pos[corner]);
		vis[corner] = 1;
		for (q = os->start[c]; q < os->start[c + 1]; q++)
			if (oneside_blocked(x, pos[corner],
					    os->tv + 9 * (size_t)os->list[q], os->eps)) {
				vis[corner] = 0;
				break;
			}
		nvis += vis[corner];
	}
	if (nvis < 8) {
		double r[8];

		/* §4.4.3: one ring (corners differing in one index bit), then
		 * two ring (two bits), then three ring (the opposite corner) */
		for (corner = 0; corner < 8; corner++) {
			int ring, m;

			r[corner] = v[corner];
			if (vis[corner])
				continue;
			for (ring = 1; ring <= 3; ring++) {
				double sum = 0;
				int cnt = 0;

				for (m = 0; m < 8; m++)
					if (__builtin_popcount((unsigned)(m ^ corner)) == ring &&
					    vis[m]) {
						sum += v[m];
						cnt++;
					}
				if (cnt) {
					r[corner] = sum / cnt;
					break;
				}
			}
			if (ring > 3) {
				/* §4.3: no visible sample: "a zero density ...
				 * the positive distance to the object" (air on
				 * the far side of the shell) */
				double d[3] = {pos[corner][0] - x[0],
					       pos[corner][1] - x[1],
					       pos[corner][2] - x[2]};

				r[corner] = os->zero_fallback ? 0 : sqrt(dot3(d, d));
			}
		}
		memcpy(v, r, sizeof v);
	}
	return (1 - w[2]) * ((1 - w[1]) * ((1 - w[0]) * v[0] + w[0] * v[1]) +
			     w[1] * ((1 - w[0]) * v[2] + w[0] * v[3])) +
	       w[2] * ((1 - w[1]) * ((1 - w[0]) * v[4] + w[0] * v[5]) +
		       w[1] * ((1 - w[0]) * v[6] + w[0] * v[7]));
}
