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

void
camera_frame(const double lo[3], const double hi[3], const double dir[3],
	     double fov, double aspect, double eye[3], double target[3])
{
	double d[3] = {dir[0], dir[1], dir[2]}, r = 0, half, dist;
	int a;

	if (normalize(d))
		d[0] = 0, d[1] = 0, d[2] = 1;
	for (a = 0; a < 3; a++) {
		target[a] = 0.5 * (lo[a] + hi[a]);
		r += 0.25 * (hi[a] - lo[a]) * (hi[a] - lo[a]);
	}
	r = sqrt(r);
	if (!(r > 0))
		r = 1;
	/* the narrower of the vertical and horizontal half angles */
	half = atan(tan(fov * M_PI / 360) * (aspect < 1 ? aspect : 1));
	dist = FRAME_MARGIN * r / sin(half);
	for (a = 0; a < 3; a++)
		eye[a] = target[a] + dist * d[a];
}
