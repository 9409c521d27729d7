/* render_levelset.c: the zero level set of a grid, ray-marched (sphere
 * tracing with a bisection for the root) and shaded with normals from the
 * gradient; optionally evaluated one-sidedly next to thin shells
 * (selle2008 thesis §4.6, see render_oneside.c). */
#include "render/render.h"

#include <math.h>

#include "render/render_sample.h"

/* March step as a fraction of |phi| (phi is a distance, so a step of
 * |phi| cannot cross the surface; the margin covers interpolation), and
 * its bounds in cells: the lower bound ends grazing marches, the upper
 * one guards level sets that are not distances. */
#define MARCH_SAFETY 0.9
#define MARCH_MIN_CELLS 0.1
#define MARCH_MAX_CELLS 4.0
/* Bisection steps for the root: 2^-24 of a step (at most 4 cells) is far
 * below a pixel. */
#define ROOT_ITERS 24
/* Half width, in cells, of the central difference for normals next to
 * shells (the trilinear gradient is used elsewhere). */
#define NORMAL_HALF_CELLS 0.5

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double
eval(const rsampler *rs, const oneside *os, const double x[3])
{
	double v;

	if (os)
		return oneside_phi(os, x);
	rsampler_get(rs, x, &v);
	return v;
}

static void
normal_at(const field *phi, const oneside *os, const double x[3],
	  double n[3])
{
	int a;

	if (!os) {
		field_gradient(phi, x, n);
	} else {
		for (a = 0; a < 3; a++) {
			double y[3] = {x[0], x[1], x[2]}, hi, lo;
			double h = NORMAL_HALF_CELLS * phi->dx;

			y[a] = x[a] + h;
			hi = oneside_phi(os, y);
			y[a] = x[a] - h;
			lo = oneside_phi(os, y);
			n[a] = (hi - lo) / (2 * h);
		}
	}
}

/* The ray's parameter interval inside the box [lo, hi]; the axis and
 * side of the entry face in *face (axis + 3 * (entering from above)). */
static int
clip_box(const double o[3], const double d[3], const double lo[3],
	 const double hi[3], double *t0, double *t1, int *face)
{
	int a;

	*t0 = -INFINITY;
	*t1 = INFINITY;
	*face = 0;
	for (a = 0; a < 3; a++) {
		if (d[a] == 0) {
			if (o[a] < lo[a] || o[a] > hi[a])
				return -1;
			continue;
		}
		{
			double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
			int upper = ta > tb;

			if (upper) {
				double s = ta;

				ta = tb;
				tb = s;
			}
			if (ta > *t0) {
				*t0 = ta;
				*face = a + 3 * upper;
			}
			if (tb < *t1)
				*t1 = tb;
		}
	}
	return *t0 <= *t1 ? 0 : -1;
}

/* The grid box of a field: its cells. */
static void
field_box(const field *f, double lo[3], double hi[3])
{
	int nc[3], a;

	field_cell_dims(f, &nc[0], &nc[1], &nc[2]);
	for (a = 0; a < 3; a++) {
		lo[a] = f->origin[a];
		hi[a] = f->origin[a] + f->dx * (nc[a] > 0 ? nc[a] : 1);
	}
}

/* March one ray; returns 1 with the hit parameter and normal. */
static int
march(const field *phi, const rsampler *rs, const oneside *os, const double o[3],
      const double d[3], double t0, double t1, int entered, int face,
      double *th, double n[3])
{
	double x[3], t = t0, f, dx = phi->dx;
	int a;

	for (a = 0; a < 3; a++)
		x[a] = o[a] + t * d[a];
	f = eval(rs, os, x);
	if (f <= 0) {
		/* inside already: the box face the ray came through, or the
		 * eye itself is inside */
		*th = t0;
		for (a = 0; a < 3; a++)
			n[a] = entered ? 0 : -d[a];
		if (entered)
			n[face % 3] = face >= 3 ? 1 : -1;
		return 1;
	}
	while (t < t1) {
		double step = fmin(fmax(MARCH_SAFETY * f, MARCH_MIN_CELLS * dx),
				   MARCH_MAX_CELLS * dx);
		double tn = fmin(t + step, t1), fn;

		for (a = 0; a < 3; a++)
			x[a] = o[a] + tn * d[a];
		fn = eval(rs, os, x);
		if (fn <= 0) {
			double lo = t, hi = tn;
			int it;

			for (it = 0; it < ROOT_ITERS; it++) {
				double mid = 0.5 * (lo + hi);

				for (a = 0; a < 3; a++)
					x[a] = o[a] + mid * d[a];
				if (eval(rs, os, x) > 0)
					lo = mid;
				else
					hi = mid;
			}
			*th = hi;
			for (a = 0; a < 3; a++)
				x[a] = o[a] + hi * d[a];
			normal_at(phi, os, x, n);
			return 1;
		}
		t = tn;
		f = fn;
	}
	return 0;
}

int
render_levelset(rimage *im, const camera *cam, const field *phi,
		const oneside *os, const shade_style *st, slc_err *err)
{
	double lo[3], hi[3];
	rsampler rs;
	int y;

	if (!(phi->dx > 0) || phi->ni < 1 || phi->nj < 1 || phi->nk < 1)
		return slc_fail(err, "bad level set grid");
	field_box(phi, lo, hi);
	rsampler_init(&rs, phi, phi->a, 1);
#pragma omp parallel for schedule(dynamic, 1)
	for (y = 0; y < im->h; y++) {
		int x;

		for (x = 0; x < im->w; x++) {
			size_t p = (size_t)x + (size_t)im->w * y;
			double o[3], d[3], t0, t1, cosd, tnear, th, n[3], l;
			int face, entered;

			camera_ray(cam, x + 0.5, y + 0.5, o, d);
			if (clip_box(o, d, lo, hi, &t0, &t1, &face))
				continue;
			cosd = dot3(d, cam->fwd);
			if (!(cosd > 0))
				continue;
			tnear = CAMERA_NEAR / cosd;
			entered = t0 > tnear;
			if (!entered)
				t0 = tnear;
			if (isfinite(im->z[p]))
				t1 = fmin(t1, im->z[p] / cosd);
			if (!(t0 < t1))
				continue;
			if (!march(phi, &rs, os, o, d, t0, t1, entered, face, &th, n))
				continue;
			l = sqrt(dot3(n, n));
			if (l > 0) {
				n[0] /= l, n[1] /= l, n[2] /= l;
			} else {
				n[0] = -d[0], n[1] = -d[1], n[2] = -d[2];
			}
			im->z[p] = (float)(th * cosd);
			shade(st, n, d, im->rgb + 3 * p);
		}
	}
	return 0;
}
