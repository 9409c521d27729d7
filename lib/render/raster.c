/* raster.c: the picture buffer, shading, and z-buffer rasterization of
 * triangle meshes, sphere splats and strand ribbons (see raster.h). */
#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/colormap.h"

/* Rows per band: primitives are binned by band and bands are drawn in
 * parallel, each by one thread, so no two threads touch one pixel. */
#define RASTER_BAND 16
/* Screen-space margin of a splat's bounding square, in pixels and as a
 * factor of its projected radius: perspective stretches a sphere's
 * silhouette into an ellipse slightly larger than the radius at its
 * centre's depth. */
#define SPLAT_MARGIN_PX 1.0
#define SPLAT_MARGIN_FACTOR 1.5

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int
rimage_alloc(rimage *im, int w, int h, const double bg[3], slc_err *err)
{
	size_t n, k;
	float lin[3];
	int c;

	memset(im, 0, sizeof *im);
	if (w < 1 || h < 1 || slc_mul((size_t)w, (size_t)h, &n))
		return slc_fail(err, "bad picture size %dx%d", w, h);
	im->rgb = slc_calloc(n, 3 * sizeof *im->rgb, err);
	im->z = im->rgb ? slc_calloc(n, sizeof *im->z, err) : NULL;
	if (!im->z) {
		free(im->rgb);
		im->rgb = NULL;
		return -1;
	}
	im->w = w;
	im->h = h;
	for (c = 0; c < 3; c++)
		lin[c] = (float)srgb_to_linear(bg[c]);
	for (k = 0; k < n; k++) {
		memcpy(im->rgb + 3 * k, lin, sizeof lin);
		im->z[k] = INFINITY;
	}
	return 0;
}

void
rimage_free(rimage *im)
{
	free(im->rgb);
	free(im->z);
	memset(im, 0, sizeof *im);
}

void
rimage_to_rgb8(const rimage *im, int n, uint8_t *out)
{
	int w = im->w / n, h = im->h / n, y;

#pragma omp parallel for schedule(static)
	for (y = 0; y < h; y++) {
		int x, c, a, b;

		for (x = 0; x < w; x++)
			for (c = 0; c < 3; c++) {
				double sum = 0;

				for (b = 0; b < n; b++)
					for (a = 0; a < n; a++)
						sum += im->rgb[3 * ((size_t)(n * x + a) +
								    (size_t)im->w * (n * y + b)) + c];
				out[3 * ((size_t)x + (size_t)w * y) + c] =
					(uint8_t)lrint(255 * linear_to_srgb(sum / (n * n)));
			}
	}
}

void
shade_default_light(double light[3])
{
	double l[3] = {-0.4, 1, 0.6}, n = sqrt(dot3(l, l));

	light[0] = l[0] / n, light[1] = l[1] / n, light[2] = l[2] / n;
}

void
shade(const shade_style *st, const double n[3], const double d[3], float c[3])
{
	double s = dot3(n, d) > 0 ? -1 : 1;     /* face the viewer */
	double diff = s * dot3(n, st->light), k;
	int a;

	if (!(diff > 0))
		diff = 0;
	k = st->ambient + (1 - st->ambient) * diff;
	for (a = 0; a < 3; a++)
		c[a] = (float)(st->albedo[a] * k);
}

/* --- binning of primitives into bands of rows ------------------------ */

typedef struct bands {
	int nband;
	size_t *start;      /* nband+1 offsets into idx */
	size_t *idx;        /* primitive indices, in input order per band */
} bands;

/* Bin n primitives whose row ranges are [y0[k], y1[k]] (inclusive;
 * y0 > y1 means not drawn). */
static int
bands_build(bands *b, int h, size_t n, const int *y0, const int *y1,
	    slc_err *err)
{
	size_t k, total = 0;
	int t;

	memset(b, 0, sizeof *b);
	b->nband = (h + RASTER_BAND - 1) / RASTER_BAND;
	b->start = slc_calloc((size_t)b->nband + 1, sizeof *b->start, err);
	if (!b->start)
		return -1;
	for (k = 0; k < n; k++)
		if (y0[k] <= y1[k])
			for (t = y0[k] / RASTER_BAND; t <= y1[k] / RASTER_BAND; t++)
				b->start[t + 1]++;
	for (t = 0; t < b->nband; t++)
		b->start[t + 1] += b->start[t];
	total = b->start[b->nband];
	b->idx = slc_calloc(total ? total : 1, sizeof *b->idx, err);
	if (!b->idx) {
		free(b->start);
		return -1;
	}
	{
		size_t *fill = slc_calloc((size_t)b->nband, sizeof *fill, err);

		if (!fill) {
			free(b->start);
			free(b->idx);
			return -1;
		}
		for (k = 0; k < n; k++)
			if (y0[k] <= y1[k])
				for (t = y0[k] / RASTER_BAND; t <= y1[k] / RASTER_BAND; t++)
					b->idx[b->start[t] + fill[t]++] = k;
		free(fill);
	}
	return 0;
}

static void
bands_free(bands *b)
{
	free(b->start);
	free(b->idx);
}

/* --- triangle meshes ------------------------------------------------- */

/* A triangle after projection: picture coordinates, reciprocal view
 * depth (interpolated linearly in picture space) and the world normals
 * at its corners. */
typedef struct stri {
	double sx[3], sy[3], iz[3];
	float n[3][3];
} stri;

/* A clipped polygon corner: view-space position and normal. */
typedef struct cvert {
	double v[3];        /* right, up, depth */
	double n[3];
} cvert;

static void
cvert_lerp(const cvert *a, const cvert *b, double t, cvert *r)
{
	int c;

	for (c = 0; c < 3; c++) {
		r->v[c] = a->v[c] + t * (b->v[c] - a->v[c]);
		r->n[c] = a->n[c] + t * (b->n[c] - a->n[c]);
	}
}

/* Clip a triangle to depth >= CAMERA_NEAR (Sutherland-Hodgman against
 * one plane): at most 4 corners out. */
static int
clip_near(const cvert in[3], cvert out[4])
{
	int k, m = 0;

	for (k = 0; k < 3; k++) {
		const cvert *a = &in[k], *b = &in[(k + 1) % 3];
		int ina = a->v[2] >= CAMERA_NEAR, inb = b->v[2] >= CAMERA_NEAR;

		if (ina)
			out[m++] = *a;
		if (ina != inb)
			cvert_lerp(a, b, (CAMERA_NEAR - a->v[2]) / (b->v[2] - a->v[2]),
				   &out[m++]);
	}
	return m;
}

static void
stri_from(const camera *cam, const cvert *a, const cvert *b, const cvert *c,
	  stri *t)
{
	const cvert *v[3] = {a, b, c};
	double s = cam->h / (2 * cam->tan_half);
	int k, q;

	for (k = 0; k < 3; k++) {
		t->iz[k] = 1 / v[k]->v[2];
		t->sx[k] = 0.5 * cam->w + v[k]->v[0] * s * t->iz[k];
		t->sy[k] = 0.5 * cam->h - v[k]->v[1] * s * t->iz[k];
		for (q = 0; q < 3; q++)
			t->n[k][q] = (float)v[k]->n[q];
	}
}

static void
face_normal(const float *p0, const float *p1, const float *p2, double n[3])
{
	double e1[3], e2[3];
	int c;

	for (c = 0; c < 3; c++) {
		e1[c] = (double)p1[c] - p0[c];
		e2[c] = (double)p2[c] - p0[c];
	}
	/* length: twice the area, so sums are area weighted */
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static void
normalize3(double n[3])
{
	double l = sqrt(dot3(n, n));

	if (l > 0)
		n[0] /= l, n[1] /= l, n[2] /= l;
}

/* Draw the triangles of one band. */
static void
draw_tris_band(rimage *im, const camera *cam, const stri *tr,
	       const size_t *idx, size_t nidx, int row0, int row1,
	       const shade_style *st)
{
	size_t q;

	for (q = 0; q < nidx; q++) {
		const stri *t = &tr[idx[q]];
		double area = (t->sx[1] - t->sx[0]) * (t->sy[2] - t->sy[0]) -
			      (t->sx[2] - t->sx[0]) * (t->sy[1] - t->sy[0]);
		double mnx = fmin(t->sx[0], fmin(t->sx[1], t->sx[2]));
		double mxx = fmax(t->sx[0], fmax(t->sx[1], t->sx[2]));
		double mny = fmin(t->sy[0], fmin(t->sy[1], t->sy[2]));
		double mxy = fmax(t->sy[0], fmax(t->sy[1], t->sy[2]));
		int x0, x1, y0, y1, x, y;

		if (!(fabs(area) > 1e-12))
			continue;
		x0 = (int)fmax(0, ceil(mnx - 0.5));
		x1 = (int)fmin(im->w - 1, floor(mxx - 0.5));
		y0 = (int)fmax(row0, ceil(mny - 0.5));
		y1 = (int)fmin(row1 - 1, floor(mxy - 0.5));
		for (y = y0; y <= y1; y++)
			for (x = x0; x <= x1; x++) {
				double px = x + 0.5, py = y + 0.5, b[3], iz, z;
				size_t p = (size_t)x + (size_t)im->w * y;
				int k;

				b[0] = ((t->sx[1] - px) * (t->sy[2] - py) -
					(t->sx[2] - px) * (t->sy[1] - py)) / area;
				b[1] = ((t->sx[2] - px) * (t->sy[0] - py) -
					(t->sx[0] - px) * (t->sy[2] - py)) / area;
				b[2] = 1 - b[0] - b[1];
				if (b[0] < 0 || b[1] < 0 || b[2] < 0)
					continue;
				iz = b[0] * t->iz[0] + b[1] * t->iz[1] + b[2] * t->iz[2];
				z = 1 / iz;
				if (!(z < im->z[p]))
					continue;
				{
					double n[3] = {0, 0, 0}, o[3], d[3];
					int c;

					/* perspective-correct weights */
					for (k = 0; k < 3; k++)
						for (c = 0; c < 3; c++)
							n[c] += b[k] * t->iz[k] * z * t->n[k][c];
					normalize3(n);
					camera_ray(cam, px, py, o, d);
					im->z[p] = (float)z;
					shade(st, n, d, im->rgb + 3 * p);
				}
			}
	}
}

int
raster_mesh(rimage *im, const camera *cam, const float *P, size_t np,
	    const uint32_t *tri, size_t ntri, const shade_style *st,
	    slc_err *err)
{
	double *vn = NULL;
	stri *tr = NULL;
	int *ty0 = NULL, *ty1 = NULL;
	size_t nt = 0, cap, k;
	bands b;
	int band, rc = -1;

	for (k = 0; k < 3 * ntri; k++)
		if (tri[k] >= np)
			return slc_fail(err, "triangle %zu: point index %u out of range (%zu points)",
					k / 3, tri[k], np);
	if (st->smooth) {
		vn = slc_calloc(np ? np : 1, 3 * sizeof *vn, err);
		if (!vn)
			return -1;
		for (k = 0; k < ntri; k++) {
			const uint32_t *t = tri + 3 * k;
			double n[3];
			int q, c;

			face_normal(P + 3 * t[0], P + 3 * t[1], P + 3 * t[2], n);
			for (q = 0; q < 3; q++)
				for (c = 0; c < 3; c++)
					vn[3 * t[q] + c] += n[c];
		}
		for (k = 0; k < np; k++)
			normalize3(vn + 3 * k);
	}
	/* a clipped triangle becomes at most two */
	if (slc_mul(ntri, 2, &cap)) {
		slc_fail(err, "mesh of %zu triangles is too large", ntri);
		goto out;
	}
	tr = slc_calloc(cap ? cap : 1, sizeof *tr, err);
	ty0 = slc_calloc(cap ? cap : 1, sizeof *ty0, err);
	ty1 = slc_calloc(cap ? cap : 1, sizeof *ty1, err);
	if (!tr || !ty0 || !ty1)
		goto out;
	for (k = 0; k < ntri; k++) {
		const uint32_t *t = tri + 3 * k;
		cvert cv[3], cl[4];
		double fn[3];
		int q, c, m;

		face_normal(P + 3 * t[0], P + 3 * t[1], P + 3 * t[2], fn);
		normalize3(fn);
		for (q = 0; q < 3; q++) {
			const float *p = P + 3 * t[q];
			double r[3] = {p[0] - cam->eye[0], p[1] - cam->eye[1],
				       p[2] - cam->eye[2]};

			cv[q].v[0] = dot3(r, cam->right);
			cv[q].v[1] = dot3(r, cam->upv);
			cv[q].v[2] = dot3(r, cam->fwd);
			for (c = 0; c < 3; c++)
				cv[q].n[c] = vn ? vn[3 * t[q] + c] : fn[c];
		}
		m = clip_near(cv, cl);
		for (q = 1; q + 1 < m; q++) {
			stri *s = &tr[nt];
			double mny, mxy;

			stri_from(cam, &cl[0], &cl[q], &cl[q + 1], s);
			mny = fmin(s->sy[0], fmin(s->sy[1], s->sy[2]));
			mxy = fmax(s->sy[0], fmax(s->sy[1], s->sy[2]));
			/* rows whose centres the triangle may cover */
			ty0[nt] = (int)fmax(0, fmin(im->h, ceil(mny - 0.5)));
			ty1[nt] = (int)fmin(im->h - 1, fmax(-1, floor(mxy - 0.5)));
			if (!isfinite(mny) || !isfinite(mxy))
				ty0[nt] = 1, ty1[nt] = 0;
			nt++;
		}
	}
	if (bands_build(&b, im->h, nt, ty0, ty1, err))
		goto out;
#pragma omp parallel for schedule(dynamic, 1)
	for (band = 0; band < b.nband; band++) {
		int r0 = band * RASTER_BAND, r1 = r0 + RASTER_BAND;

		draw_tris_band(im, cam, tr, b.idx + b.start[band],
			       b.start[band + 1] - b.start[band], r0,
			       r1 < im->h ? r1 : im->h, st);
	}
	bands_free(&b);
	rc = 0;
out:
	free(vn);
	free(tr);
	free(ty0);
	free(ty1);
	return rc;
}

/* --- spheres ---------------------------------------------------------- */

static void
draw_spheres_band(rimage *im, const camera *cam, const float *P,
		  const float *radii, double r0, const size_t *idx,
		  size_t nidx, int row0, int row1, const shade_style *st)
{
	size_t q;

	for (q = 0; q < nidx; q++) {
		size_t k = idx[q];
		double c[3] = {P[3 * k], P[3 * k + 1], P[3 * k + 2]};
		double r = radii ? radii[k] : r0, sx, sy, z, rp;
		int x0, x1, y0, y1, x, y;

		camera_project(cam, c, &sx, &sy, &z);
		rp = SPLAT_MARGIN_FACTOR * camera_pixels(cam, r, z - r) +
		     SPLAT_MARGIN_PX;
		x0 = (int)fmax(0, floor(sx - rp));
		x1 = (int)fmin(im->w - 1, ceil(sx + rp));
		y0 = (int)fmax(row0, floor(sy - rp));
		y1 = (int)fmin(row1 - 1, ceil(sy + rp));
		for (y = y0; y <= y1; y++)
			for (x = x0; x <= x1; x++) {
				double o[3], d[3], oc[3], bb, cc, disc, t, zz;
				double hit[3], n[3];
				size_t p = (size_t)x + (size_t)im->w * y;
				int a;

				camera_ray(cam, x + 0.5, y + 0.5, o, d);
				for (a = 0; a < 3; a++)
					oc[a] = o[a] - c[a];
				bb = dot3(oc, d);
				cc = dot3(oc, oc) - r * r;
				disc = bb * bb - cc;
				if (disc < 0)
					continue;
				t = -bb - sqrt(disc);
				zz = t * dot3(d, cam->fwd);
				if (!(zz >= CAMERA_NEAR) || !(zz < im->z[p]))
					continue;
				for (a = 0; a < 3; a++) {
					hit[a] = o[a] + t * d[a];
					n[a] = (hit[a] - c[a]) / r;
				}
				im->z[p] = (float)zz;
				shade(st, n, d, im->rgb + 3 * p);
			}
	}
}

int
raster_spheres(rimage *im, const camera *cam, const float *P, size_t n,
	       const float *radii, double r0, const shade_style *st,
	       slc_err *err)
{
	int *y0 = slc_calloc(n ? n : 1, sizeof *y0, err);
	int *y1 = y0 ? slc_calloc(n ? n : 1, sizeof *y1, err) : NULL;
	size_t k;
	bands b;
	int band;

	if (!y1) {
		free(y0);
		return -1;
	}
	for (k = 0; k < n; k++) {
		double c[3] = {P[3 * k], P[3 * k + 1], P[3 * k + 2]};
		double r = radii ? radii[k] : r0, sx, sy, z, rp;

		y0[k] = 1, y1[k] = 0;
		if (!(r > 0) || camera_project(cam, c, &sx, &sy, &z) ||
		    !(z - r >= CAMERA_NEAR))
			continue;
		rp = SPLAT_MARGIN_FACTOR * camera_pixels(cam, r, z - r) +
		     SPLAT_MARGIN_PX;
		if (!isfinite(rp) || sx + rp < 0 || sx - rp > im->w ||
		    sy + rp < 0 || sy - rp > im->h)
			continue;
		y0[k] = (int)fmax(0, floor(sy - rp));
		y1[k] = (int)fmin(im->h - 1, ceil(sy + rp));
	}
	if (bands_build(&b, im->h, n, y0, y1, err)) {
		free(y0);
		free(y1);
		return -1;
	}
#pragma omp parallel for schedule(dynamic, 1)
	for (band = 0; band < b.nband; band++) {
		int r0b = band * RASTER_BAND, r1 = r0b + RASTER_BAND;

		draw_spheres_band(im, cam, P, radii, r0, b.idx + b.start[band],
				  b.start[band + 1] - b.start[band], r0b,
				  r1 < im->h ? r1 : im->h, st);
	}
	bands_free(&b);
	free(y0);
	free(y1);
	return 0;
}

/* --- strands ---------------------------------------------------------- */

void
shade_hair(const strand_style *st, const double albedo[3], const double T[3],
	   const double E[3], float c[3])
{
	double tl = dot3(T, st->light), te = dot3(T, E);
	double sl = sqrt(fmax(0, 1 - tl * tl)), se = sqrt(fmax(0, 1 - te * te));
	double k = st->ambient + (1 - st->ambient) * sl;
	/* cos of the angle from E to the reflected cone (T.R = -T.L) */
	double cone = sl * se - tl * te, hi = 0;
	int a;

	if (cone > 0 && st->spec > 0)
		hi = st->spec * pow(cone, st->shine);
	for (a = 0; a < 3; a++)
		c[a] = (float)(albedo[a] * k + hi);
}

/* A segment after projection: picture points, reciprocal view depths,
 * half widths in pixels, unit tangents and colours at both ends. */
typedef struct sseg {
	double sx[2], sy[2], iz[2], hw[2];
	float T[2][3], c[2][3];
} sseg;

static void
draw_segs_band(rimage *im, const camera *cam, const sseg *sg,
	       const size_t *idx, size_t nidx, int row0, int row1,
	       const strand_style *st)
{
	for (size_t q = 0; q < nidx; q++) {
		const sseg *g = &sg[idx[q]];
		double dx = g->sx[1] - g->sx[0], dy = g->sy[1] - g->sy[0];
		double l2 = dx * dx + dy * dy, hm = fmax(g->hw[0], g->hw[1]);
		int x0 = (int)fmax(0, floor(fmin(g->sx[0], g->sx[1]) - hm));
		int x1 = (int)fmin(im->w - 1, ceil(fmax(g->sx[0], g->sx[1]) + hm));
		int y0 = (int)fmax(row0, floor(fmin(g->sy[0], g->sy[1]) - hm));
		int y1 = (int)fmin(row1 - 1, ceil(fmax(g->sy[0], g->sy[1]) + hm));

		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++) {
				double px = x + 0.5, py = y + 0.5, t = 0, ex, ey, iz, z, w;
				double T[3], E[3], o[3], alb[3];
				size_t p = (size_t)x + (size_t)im->w * y;

				/* nearest point of the segment on the picture */
				if (l2 > 0)
					t = fmin(1, fmax(0, ((px - g->sx[0]) * dx +
							     (py - g->sy[0]) * dy) / l2));
				ex = px - (g->sx[0] + t * dx);
				ey = py - (g->sy[0] + t * dy);
				if (ex * ex + ey * ey > pow(g->hw[0] + t * (g->hw[1] - g->hw[0]), 2))
					continue;
				/* 1/z is linear along the picture; w is the
				 * fraction along the segment in space */
				iz = (1 - t) * g->iz[0] + t * g->iz[1];
				z = 1 / iz;
				if (!(z < im->z[p]))
					continue;
				w = t * g->iz[1] / iz;
				for (int a = 0; a < 3; a++) {
					T[a] = (1 - w) * g->T[0][a] + w * g->T[1][a];
					alb[a] = (1 - w) * g->c[0][a] + w * g->c[1][a];
				}
				normalize3(T);
				camera_ray(cam, px, py, o, E);
				for (int a = 0; a < 3; a++)
					E[a] = -E[a];
				im->z[p] = (float)z;
				shade_hair(st, alb, T, E, im->rgb + 3 * p);
			}
	}
}

/* Unit tangent at point k of the strand of points k0..k1-1: the central
 * difference, one-sided at the ends; 0 for a one-point strand. */
static void
strand_tangent(const float *P, size_t k0, size_t k1, size_t k, double T[3])
{
	size_t a = k > k0 ? k - 1 : k, b = k + 1 < k1 ? k + 1 : k;

	for (int c = 0; c < 3; c++)
		T[c] = (double)P[3 * b + c] - P[3 * a + c];
	normalize3(T);
}

/* The end of a segment at world point x with tangent T and colour c into
 * end e of g; the point is in front of the near plane. */
static void
sseg_end(const camera *cam, const strand_style *st, const double x[3],
	 const double T[3], const double c[3], sseg *g, int e)
{
	double z;

	camera_project(cam, x, &g->sx[e], &g->sy[e], &z);
	g->iz[e] = 1 / z;
	g->hw[e] = fmax(0.5 * STRAND_MIN_PX, camera_pixels(cam, 0.5 * st->width, z));
	for (int a = 0; a < 3; a++) {
		g->T[e][a] = (float)T[a];
		g->c[e][a] = (float)c[a];
	}
}

/* The colour of point k of strand s. */
static void
strand_color(const strand_style *st, size_t s, size_t k, double c[3])
{
	for (int a = 0; a < 3; a++)
		c[a] = st->cd ? st->cd[3 * (st->cd_point ? k : s) + a] : st->albedo[a];
}

/* Project segment (ka, kb) of strand s (kb = ka for a dot), clipped to
 * the near plane, into g; 0 when nothing of it is in front. */
static int
sseg_make(const camera *cam, const strand_style *st, const float *P,
	  size_t k0, size_t k1, size_t s, size_t ka, size_t kb, sseg *g)
{
	double x[2][3], T[2][3], c[2][3], z[2];
	size_t kk[2] = {ka, kb};

	for (int e = 0; e < 2; e++) {
		for (int a = 0; a < 3; a++)
			x[e][a] = P[3 * kk[e] + a];
		strand_tangent(P, k0, k1, kk[e], T[e]);
		strand_color(st, s, kk[e], c[e]);
		z[e] = camera_depth(cam, x[e]);
	}
	if (!(z[0] >= CAMERA_NEAR) && !(z[1] >= CAMERA_NEAR))
		return 0;
	for (int e = 0; e < 2; e++)
		if (!(z[e] >= CAMERA_NEAR)) {
			/* move this end along the segment onto the near plane */
			double f = (CAMERA_NEAR - z[e]) / (z[1 - e] - z[e]);
			for (int a = 0; a < 3; a++) {
				x[e][a] += f * (x[1 - e][a] - x[e][a]);
				T[e][a] += f * (T[1 - e][a] - T[e][a]);
				c[e][a] += f * (c[1 - e][a] - c[e][a]);
			}
		}
	for (int e = 0; e < 2; e++)
		sseg_end(cam, st, x[e], T[e], c[e], g, e);
	return 1;
}

int
raster_strands(rimage *im, const camera *cam, const float *P, size_t np,
	       const uint32_t *offset, size_t nstrand, const strand_style *st,
	       slc_err *err)
{
	size_t s, n = 0, k;
	sseg *sg = NULL;
	int *y0 = NULL, *y1 = NULL, band, rc = -1;
	bands b;

	if (!(st->width > 0))
		return slc_fail(err, "strand width %g must be positive", st->width);
	for (s = 0; s < nstrand; s++)
		if (offset[s] > offset[s + 1] || offset[s + 1] > np)
			return slc_fail(err, "strand %zu: offsets %u..%u out of order or past %zu points",
					s, offset[s], offset[s + 1], np);
	/* a strand of m >= 2 points has m - 1 segments, of one point a dot:
	 * at most np in all */
	sg = slc_calloc(np ? np : 1, sizeof *sg, err);
	y0 = sg ? slc_calloc(np ? np : 1, sizeof *y0, err) : NULL;
	y1 = y0 ? slc_calloc(np ? np : 1, sizeof *y1, err) : NULL;
	if (!y1)
		goto out;
	for (s = 0; s < nstrand; s++) {
		size_t k0 = offset[s], k1 = offset[s + 1];

		for (k = k0; k < k1; k++) {
			sseg *g = &sg[n];
			double hm, mny, mxy, mnx, mxx;

			if (k + 1 == k1 && k1 - k0 > 1)
				break;
			if (!sseg_make(cam, st, P, k0, k1, s, k, k1 - k0 > 1 ? k + 1 : k, g))
				continue;
			hm = fmax(g->hw[0], g->hw[1]);
			mnx = fmin(g->sx[0], g->sx[1]) - hm;
			mxx = fmax(g->sx[0], g->sx[1]) + hm;
			mny = fmin(g->sy[0], g->sy[1]) - hm;
			mxy = fmax(g->sy[0], g->sy[1]) + hm;
			y0[n] = 1, y1[n] = 0;
			if (isfinite(mny) && isfinite(mxy) && mxx >= 0 && mnx <= im->w &&
			    mxy >= 0 && mny <= im->h) {
				y0[n] = (int)fmax(0, floor(mny));
				y1[n] = (int)fmin(im->h - 1, ceil(mxy));
			}
			n++;
		}
	}
	if (bands_build(&b, im->h, n, y0, y1, err))
		goto out;
#pragma omp parallel for schedule(dynamic, 1)
	for (band = 0; band < b.nband; band++) {
		int r0 = band * RASTER_BAND, r1 = r0 + RASTER_BAND;

		draw_segs_band(im, cam, sg, b.idx + b.start[band],
			       b.start[band + 1] - b.start[band], r0,
			       r1 < im->h ? r1 : im->h, st);
	}
	bands_free(&b);
	rc = 0;
out:
	free(sg);
	free(y0);
	free(y1);
	return rc;
}
