/* render_slice.c: axis-aligned slices of scalar grids through a colour
 * map, with the zero contour for level sets; the speed of a MAC velocity
 * for such slices. */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>

#include "render/colormap.h"

/* Picture axes of a slice: horizontal and vertical world axes and
 * whether the vertical one grows upwards in the picture. */
static const int slice_h[3] = {2, 0, 0};
static const int slice_v[3] = {1, 2, 1};
static const int slice_up[3] = {1, 0, 1};

int
render_slice(rimage *im, int x0, int y0, int pw, int ph, const field *f,
	     int axis, double pos, const slice_style *st, double *lo_out,
	     double *hi_out, slc_err *err)
{
	int nc[3], ha, va, w, h, ox, oy, x, y;
	double blo[3], bhi[3], scale, lo = st->lo, hi = st->hi;
	double *val;
	size_t n;

	if (axis < 0 || axis > 2)
		return slc_fail(err, "bad slice axis %d", axis);
	if (x0 < 0 || y0 < 0 || pw < 1 || ph < 1 || x0 + pw > im->w ||
	    y0 + ph > im->h)
		return slc_fail(err, "slice panel outside the picture");
	field_cell_dims(f, &nc[0], &nc[1], &nc[2]);
	for (x = 0; x < 3; x++) {
		blo[x] = f->origin[x];
		bhi[x] = f->origin[x] + f->dx * (nc[x] > 0 ? nc[x] : 1);
		/* the panel's scale and every sample position come from
		 * the extent: it must be finite and not lost in rounding */
		if (!isfinite(bhi[x]))
			return slc_fail(err, "grid extent overflows on %c: origin %g + %d cells of dx %g is not finite",
					"xyz"[x], f->origin[x], nc[x], f->dx);
		if (!(bhi[x] > blo[x]))
			return slc_fail(err, "grid extent on %c is lost in rounding: origin %g + %d cells of dx %g gives %g",
					"xyz"[x], f->origin[x], nc[x], f->dx, bhi[x]);
	}
	if (!(pos >= blo[axis] && pos <= bhi[axis]))
		return slc_fail(err, "slice %c=%g is outside the grid [%g, %g]",
				"xyz"[axis], pos, blo[axis], bhi[axis]);
	ha = slice_h[axis];
	va = slice_v[axis];
	/* fit the grid's extent with square pixels, centred */
	scale = fmin(pw / (bhi[ha] - blo[ha]), ph / (bhi[va] - blo[va]));
	w = (int)fmax(1, fmin(pw, floor(scale * (bhi[ha] - blo[ha]) + 0.5)));
	h = (int)fmax(1, fmin(ph, floor(scale * (bhi[va] - blo[va]) + 0.5)));
	ox = x0 + (pw - w) / 2;
	oy = y0 + (ph - h) / 2;
	n = (size_t)w * h;
	val = slc_calloc(n, sizeof *val, err);
	if (!val)
		return -1;
#pragma omp parallel for schedule(static)
	for (y = 0; y < h; y++) {
		int xx;

		for (xx = 0; xx < w; xx++) {
			double p[3];

			p[axis] = pos;
			p[ha] = blo[ha] + (xx + 0.5) * (bhi[ha] - blo[ha]) / w;
			p[va] = slice_up[axis]
				? bhi[va] - (y + 0.5) * (bhi[va] - blo[va]) / h
				: blo[va] + (y + 0.5) * (bhi[va] - blo[va]) / h;
			val[(size_t)xx + (size_t)w * y] = field_sample(f, p);
		}
	}
	if (lo == hi) {
		size_t k;

		lo = INFINITY;
		hi = -INFINITY;
		for (k = 0; k < n; k++) {
			if (st->map == SLICE_DIVERGING) {
				hi = fmax(hi, fabs(val[k]));
			} else {
				lo = fmin(lo, val[k]);
				hi = fmax(hi, val[k]);
			}
		}
		if (st->map == SLICE_DIVERGING)
			lo = -hi;
		if (!(lo < hi)) {     /* a constant slice: mid colour */
			lo -= 1;
			hi += 1;
		}
	}
#pragma omp parallel for schedule(static)
	for (y = 0; y < h; y++) {
		int xx, c;

		for (xx = 0; xx < w; xx++) {
			size_t k = (size_t)xx + (size_t)w * y;
			size_t p = (size_t)(ox + xx) + (size_t)im->w * (oy + y);
			double t = (val[k] - lo) / (hi - lo), rgb[3];
			int edge = 0;

			if (st->contour) {
				/* a sign change to a neighbour is drawn on the
				 * pixel nearer to zero, one pixel wide */
				int nb[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}, q;

				for (q = 0; q < 4; q++) {
					int xn = xx + nb[q][0], yn = y + nb[q][1];
					double vn;

					if (xn < 0 || yn < 0 || xn >= w || yn >= h)
						continue;
					vn = val[(size_t)xn + (size_t)w * yn];
					if ((val[k] < 0) != (vn < 0) &&
					    (fabs(val[k]) < fabs(vn) ||
					     (fabs(val[k]) == fabs(vn) && val[k] < 0)))
						edge = 1;
				}
			}
			if (edge) {
				for (c = 0; c < 3; c++)
					rgb[c] = st->contour_rgb[c];
			} else if (st->map == SLICE_DIVERGING) {
				cmap_diverging(t, rgb);
			} else {
				cmap_viridis(t, rgb);
			}
			for (c = 0; c < 3; c++)
				im->rgb[3 * p + c] = (float)srgb_to_linear(rgb[c]);
		}
	}
	free(val);
	if (lo_out)
		*lo_out = lo;
	if (hi_out)
		*hi_out = hi;
	return 0;
}

int
render_speed(const field *u, const field *v, const field *w, field *speed,
	     slc_err *err)
{
	int ni, nj, nk, i, j, k;

	if (u->stagger != SLC_FACE_X || v->stagger != SLC_FACE_Y ||
	    w->stagger != SLC_FACE_Z)
		return slc_fail(err, "u, v, w must be on x, y and z faces");
	field_cell_dims(u, &ni, &nj, &nk);
	if (!field_same_cells(v, u, &slc_place_exact) ||
	    !field_same_cells(w, u, &slc_place_exact))
		return slc_fail(err, "u %dx%dx%d, v %dx%dx%d and w %dx%dx%d are not one MAC grid",
				u->ni, u->nj, u->nk, v->ni, v->nj, v->nk,
				w->ni, w->nj, w->nk);
	if (field_alloc(speed, ni, nj, nk, SLC_CELL, u->origin, u->dx, err))
		return -1;
#pragma omp parallel for schedule(static)
	for (k = 0; k < nk; k++)
		for (j = 0; j < nj; j++)
			for (i = 0; i < ni; i++) {
				double a = 0.5 * (u->a[FIELD_IDX(u, i, j, k)] +
						  u->a[FIELD_IDX(u, i + 1, j, k)]);
				double b = 0.5 * (v->a[FIELD_IDX(v, i, j, k)] +
						  v->a[FIELD_IDX(v, i, j + 1, k)]);
				double c = 0.5 * (w->a[FIELD_IDX(w, i, j, k)] +
						  w->a[FIELD_IDX(w, i, j, k + 1)]);

				speed->a[FIELD_IDX(speed, i, j, k)] =
					(float)sqrt(a * a + b * b + c * c);
			}
	return 0;
}
