/* camera.h: a pinhole camera: where pixels look, and where points land.
 *
 * Pixel (px, py) has its centre at (px + 0.5, py + 0.5), x to the right,
 * y down, so rows run top to bottom as in a PNG.  Depth is measured along
 * the viewing direction (view-space z, metres): every renderer writes that
 * same depth so that records drawn by different methods composite
 * correctly in one z-buffer.
 */
#ifndef SLC_CAMERA_H
#define SLC_CAMERA_H

#include "core/err.h"

/* Nearest view depth drawn, metres. */
#define CAMERA_NEAR 1e-4

typedef struct camera {
	double eye[3], target[3], up[3];
	double fov;             /* vertical field of view, degrees */
	int w, h;               /* picture size, pixels */
	/* derived by camera_init: an orthonormal frame, fwd from eye to
	 * target, right = fwd x up, upv completing it; the half height of
	 * the image plane at depth 1 */
	double fwd[3], right[3], upv[3];
	double tan_half;
} camera;

/* Set up a camera.  fov in (0, 180) degrees, w and h >= 1, target not at
 * the eye, up not parallel to the view.  0, or -1 with err. */
int camera_init(camera *c, const double eye[3], const double target[3],
		const double up[3], double fov, int w, int h, slc_err *err);

/* The ray through picture point (sx, sy) (pixel units; a pixel centre is
 * at i + 0.5): origin o (the eye) and unit direction d. */
void camera_ray(const camera *c, double sx, double sy, double o[3],
		double d[3]);

/* View depth of the point x (negative behind the eye). */
double camera_depth(const camera *c, const double x[3]);

/* Project x to picture coordinates (sx, sy) (pixel units) and its view
 * depth z.  Returns 0, or -1 (and leaves sx, sy unset) when x is nearer
 * than CAMERA_NEAR. */
int camera_project(const camera *c, const double x[3], double *sx,
		   double *sy, double *z);

/* Place a camera that sees the whole box [lo, hi]: target at its
 * centre, eye along dir (need not be unit) from it, far enough that the
 * box's bounding sphere fits the vertical field of view fov (degrees) and
 * the horizontal one of a picture of the given aspect (w / h).  0, or -1
 * with err (eye and target unset) when no such camera can be placed: a
 * corner of the box is not finite, the eye would be beyond the range of a
 * double, the box is so small that its nearest point is within
 * CAMERA_NEAR of the eye, or so small for its distance from the origin
 * that a double cannot place the eye apart from the target. */
int camera_frame(const double lo[3], const double hi[3], const double dir[3],
		 double fov, double aspect, double eye[3], double target[3],
		 slc_err *err);

/* Picture-space radius, in pixels, of a length r seen at view depth z. */
double camera_pixels(const camera *c, double r, double z);

/* The length of the diagonal of the box lo..hi, also for a box near the
 * range of a double (whose squared sides overflow). */
double camera_box_diag(const double lo[3], const double hi[3]);

#endif
