/* tri.h: exact geometry of one triangle: closest point and distance from a
 * point, and ray intersection.  Everything in double precision; vertices
 * are given as pointers to three doubles (x, y, z) in metres.
 */
#ifndef SLC_TRI_H
#define SLC_TRI_H

/* Closest point on triangle (a, b, c) to point p.  Writes the closest
 * point to cp (if non-NULL) and its barycentric weights (wa, wb, wc),
 * summing to 1, to w (if non-NULL); returns the squared distance.
 * Degenerate triangles (collinear or coincident vertices) are handled as
 * the union of their edges, so the result is always the exact minimum
 * over the closed triangle (up to rounding). */
double tri_closest(const double p[3], const double a[3], const double b[3],
		   const double c[3], double cp[3], double w[3]);

/* A triangle prepared for many closest-distance queries: edges, their
 * dot products and the normal, so that each query costs three dot
 * products and the region tests of tri_closest. */
typedef struct tri_pre {
	double a[3], b[3], c[3];        /* vertices */
	double ab[3], ac[3], n[3];      /* edges from a, normal ab x ac */
	double d00, d01, d11, dbc, nn;  /* ab.ab, ab.ac, ac.ac, bc.bc, n.n */
	int degenerate;                 /* zero area: tri_closest's fallback */
} tri_pre;

/* Prepare triangle (a, b, c) for tri_pre_d2. */
void tri_prepare(tri_pre *t, const double a[3], const double b[3],
		 const double c[3]);

/* Squared distance from p to the prepared triangle: the same value as
 * tri_closest (up to rounding of a few ulps of |p - a|^2). */
double tri_pre_d2(const tri_pre *t, const double p[3]);

/* Distance from p to the closed triangle (a, b, c), metres. */
double tri_dist(const double p[3], const double a[3], const double b[3],
		const double c[3]);

/* Intersection of the ray o + t*d (d need not be unit) with triangle
 * (a, b, c), either side.  Returns 1 and sets *t when it hits with t in
 * [tmin, tmax], else 0.  Rays in the triangle's plane never hit. */
int tri_ray(const double o[3], const double d[3], const double a[3],
	    const double b[3], const double c[3], double tmin, double tmax,
	    double *t);

/* Crossing of the axis-aligned line {x : x[u] = q[u], x[v] = q[v]} (with
 * u, v the two axes other than `axis`) through triangle (a, b, c), decided
 * with a symbolic perturbation of the line so that a line through an
 * edge or vertex shared by several triangles crosses exactly one of them
 * on each side, and a triangle seen edge-on is never crossed.  Returns 1
 * and sets *t to the coordinate along `axis` of the crossing, else 0.
 * The decision depends only on the coordinates of the vertices, so two
 * triangles sharing an edge with bit-identical vertices always agree. */
int tri_axis_line(int axis, const double q[3], const double a[3],
		  const double b[3], const double c[3], double *t);

#endif
