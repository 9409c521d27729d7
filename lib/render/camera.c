/* camera.c: a pinhole camera (see camera.h). */
#include "render/camera.h"

#include <math.h>

static double
dot(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
cross(const double a[3], const double b[3], double r[3])
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

static int
normalize(double a[3])
{
	double n = sqrt(dot(a, a));

	/* the squares of a long vector (a scene near the range of a double)
	 * overflow; hypot does not, and is kept for those so that other
	 * vectors round as they always have */
	if (!isfinite(n))
		n = hypot(hypot(a[0], a[1]), a[2]);
	if (!(n > 1e-300) || !isfinite(n))
		return -1;
	a[0] /= n, a[1] /= n, a[2] /= n;
	return 0;
}

int
camera_init(camera *c, const double eye[3], const double target[3],
	    const double up[3], double fov, int w, int h, slc_err *err)
{
	int a;

	if (!(fov > 0 && fov < 180))
		return slc_fail(err, "field of view %g degrees, expected 0 < fov < 180", fov);
	if (w < 1 || h < 1)
		return slc_fail(err, "bad picture size %dx%d", w, h);
	for (a = 0; a < 3; a++) {
		c->eye[a] = eye[a];
		c->target[a] = target[a];
		c->up[a] = up[a];
		c->fwd[a] = target[a] - eye[a];
	}
	c->fov = fov;
	c->w = w;
	c->h = h;
	if (normalize(c->fwd))
		return slc_fail(err, "camera target is at the eye");
	cross(c->fwd, up, c->right);
	if (normalize(c->right))
		return slc_fail(err, "camera up (%g,%g,%g) is parallel to the view",
				up[0], up[1], up[2]);
	cross(c->right, c->fwd, c->upv);
	c->tan_half = tan(fov * M_PI / 360);
	return 0;
}

void
camera_ray(const camera *c, double sx, double sy, double o[3], double d[3])
{
	/* image plane at depth 1: y spans [-tan_half, tan_half], x scaled by
	 * the aspect ratio; square pixels */
	double s = 2 * c->tan_half / c->h;
	double u = (sx - 0.5 * c->w) * s, v = (0.5 * c->h - sy) * s;
	int a;

	for (a = 0; a < 3; a++) {
		o[a] = c->eye[a];
		d[a] = c->fwd[a] + u * c->right[a] + v * c->upv[a];
	}
	normalize(d);
}

double
camera_depth(const camera *c, const double x[3])
{
	double r[3] = {x[0] - c->eye[0], x[1] - c->eye[1], x[2] - c->eye[2]};

	return dot(r, c->fwd);
}

int
camera_project(const camera *c, const double x[3], double *sx, double *sy,
	       double *z)
{
	double r[3] = {x[0] - c->eye[0], x[1] - c->eye[1], x[2] - c->eye[2]};
	double zz = dot(r, c->fwd), s;

	*z = zz;
	if (!(zz >= CAMERA_NEAR))
		return -1;
	s = c->h / (2 * c->tan_half * zz);
	*sx = 0.5 * c->w + dot(r, c->right) * s;
	*sy = 0.5 * c->h - dot(r, c->upv) * s;
	return 0;
}

double
camera_pixels(const camera *c, double r, double z)
{
	return r * c->h / (2 * c->tan_half * z);
}

/* Margin around a framed box, as a factor of the fitted distance. */
#define FRAME_MARGIN 1.05
/* How far the distance between eye and target, as doubles, may differ
 * from the distance meant, relative to it: far below a pixel of any
 * picture (1e-6 of the view's width at 16384 pixels is 1/60 pixel). */
#define FRAME_RTOL 1e-6

int
camera_frame(const double lo[3], const double hi[3], const double dir[3],
	     double fov, double aspect, double eye[3], double target[3],
	     slc_err *err)
{
	double d[3] = {dir[0], dir[1], dir[2]}, c[3], e[3], h[3], r, half, dist;
	double got, at;
	int a;

	for (a = 0; a < 3; a++)
		if (!isfinite(lo[a]) || !isfinite(hi[a]))
			return slc_fail(err, "the box (%g, %g, %g) .. (%g, %g, %g) is not finite",
					lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
	if (normalize(d))
		d[0] = 0, d[1] = 0, d[2] = 1;
	/* halves first: lo + hi, hi - lo and the squares of a box near the
	 * range of a double would overflow */
	r = 0;
	for (a = 0; a < 3; a++) {
		c[a] = 0.5 * lo[a] + 0.5 * hi[a];
		h[a] = 0.5 * hi[a] - 0.5 * lo[a];
		r += h[a] * h[a];
	}
	r = sqrt(r);
	if (!isfinite(r))
		r = hypot(hypot(h[0], h[1]), h[2]);
	if (!(r > 0))
		r = 1;
	/* the narrower of the vertical and horizontal half angles */
	half = atan(tan(fov * M_PI / 360) * (aspect < 1 ? aspect : 1));
	dist = FRAME_MARGIN * r / sin(half);
	for (a = 0; a < 3; a++)
		e[a] = c[a] + dist * d[a];
	if (!isfinite(dist) || !isfinite(e[0]) || !isfinite(e[1]) || !isfinite(e[2]))
		return slc_fail(err, "the box (%g, %g, %g) .. (%g, %g, %g) is %g m across: "
				"a camera framing it would stand %g m from its centre, beyond the range of a double",
				lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], 2 * r, dist);
	if (dist - r < CAMERA_NEAR)
		return slc_fail(err, "the box (%g, %g, %g) .. (%g, %g, %g) is %g m across: "
				"too small for the camera's nearest depth drawn, %g m",
				lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], 2 * r, CAMERA_NEAR);
	got = hypot(hypot(e[0] - c[0], e[1] - c[1]), e[2] - c[2]);
	at = hypot(hypot(c[0], c[1]), c[2]);
	if (!(fabs(got - dist) <= FRAME_RTOL * dist))
		return slc_fail(err, "the box (%g, %g, %g) .. (%g, %g, %g) is %g m across at %g m from the origin: "
				"a double there cannot place a camera %g m from its centre",
				lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], 2 * r, at, dist);
	for (a = 0; a < 3; a++) {
		eye[a] = e[a];
		target[a] = c[a];
	}
	return 0;
}

double
camera_box_diag(const double lo[3], const double hi[3])
{
	double d = 0;

	for (int a = 0; a < 3; a++)
		d += (hi[a] - lo[a]) * (hi[a] - lo[a]);
	d = sqrt(d);
	if (!isfinite(d))       /* the squares overflowed: halve first */
		d = 2 * hypot(hypot(0.5 * hi[0] - 0.5 * lo[0], 0.5 * hi[1] - 0.5 * lo[1]),
			      0.5 * hi[2] - 0.5 * lo[2]);
	return d;
}
