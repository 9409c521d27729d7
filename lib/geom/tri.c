/* tri.c: closest point on a triangle, ray/triangle and robust axis-line
 * crossing tests, used by the box hierarchy (bvh.c) and the signed distance
 * builder (sdf.c). */
#include "geom/tri.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
sub3(const double a[3], const double b[3], double r[3])
{
	r[0] = a[0] - b[0];
	r[1] = a[1] - b[1];
	r[2] = a[2] - b[2];
}

static void
cross3(const double a[3], const double b[3], double r[3])
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

/* Closest point on segment (a, b) to p: squared distance, parameter s. */
static double
seg_closest(const double p[3], const double a[3], const double b[3],
	    double *s)
{
	double ab[3], ap[3], l2, t, d2 = 0;
	int m;

	sub3(b, a, ab);
	sub3(p, a, ap);
	l2 = dot3(ab, ab);
	t = l2 > 0 ? dot3(ap, ab) / l2 : 0;
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	for (m = 0; m < 3; m++) {
		double e = ap[m] - t * ab[m];
		d2 += e * e;
	}
	*s = t;
	return d2;
}

/* Degenerate triangle: the best of its three edges. */
static double
degenerate_closest(const double p[3], const double a[3], const double b[3],
		   const double c[3], double w[3])
{
	double s, best, d;

	best = seg_closest(p, a, b, &s);
	w[0] = 1 - s, w[1] = s, w[2] = 0;
	d = seg_closest(p, b, c, &s);
	if (d < best) {
		best = d;
		w[0] = 0, w[1] = 1 - s, w[2] = s;
	}
	d = seg_closest(p, c, a, &s);
	if (d < best) {
		best = d;
		w[0] = s, w[1] = 0, w[2] = 1 - s;
	}
	return best;
}

/* Voronoi-region classification of p against the vertices, edges and face
 * of the triangle (the standard barycentric region test, e.g. Ericson,
 * Real-Time Collision Detection §5.1.5), with the face case solved in
 * barycentric form. */
double
tri_closest(const double p[3], const double a[3], const double b[3],
	    const double c[3], double cp[3], double w[3])
{
	double ab[3], ac[3], ap[3], bp[3], cpv[3], n[3];
	double d1, d2, d3, d4, d5, d6, va, vb, vc, denom, v, ww, wl[3], d2s;
	int m;

	if (!w)
		w = wl;
	sub3(b, a, ab);
	sub3(c, a, ac);
	cross3(ab, ac, n);
	if (dot3(n, n) <= 1e-30 * dot3(ab, ab) * dot3(ac, ac) ||
	    dot3(n, n) == 0) {
		d2s = degenerate_closest(p, a, b, c, w);
		goto out;
	}
	sub3(p, a, ap);
	d1 = dot3(ab, ap);
	d2 = dot3(ac, ap);
	if (d1 <= 0 && d2 <= 0) {
		w[0] = 1, w[1] = 0, w[2] = 0;
		goto dist;
	}
	sub3(p, b, bp);
	d3 = dot3(ab, bp);
	d4 = dot3(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		w[0] = 0, w[1] = 1, w[2] = 0;
		goto dist;
	}
	vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		v = d1 / (d1 - d3);
		w[0] = 1 - v, w[1] = v, w[2] = 0;
		goto dist;
	}
	sub3(p, c, cpv);
	d5 = dot3(ab, cpv);
	d6 = dot3(ac, cpv);
	if (d6 >= 0 && d5 <= d6) {
		w[0] = 0, w[1] = 0, w[2] = 1;
		goto dist;
	}
	vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		ww = d2 / (d2 - d6);
		w[0] = 1 - ww, w[1] = 0, w[2] = ww;
		goto dist;
	}
	va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		ww = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		w[0] = 0, w[1] = 1 - ww, w[2] = ww;
		goto dist;
	}
	denom = 1 / (va + vb + vc);
	w[1] = vb * denom;
	w[2] = vc * denom;
	w[0] = 1 - w[1] - w[2];
	/* Face region: the distance is the distance to the plane, which is
	 * more accurate than |p - cp| with cp rebuilt from weights. */
	{
		double s = dot3(ap, n);
		d2s = s * s / dot3(n, n);
		goto out;
	}
dist:
	d2s = 0;
	for (m = 0; m < 3; m++) {
		double q = w[0] * a[m] + w[1] * b[m] + w[2] * c[m] - p[m];
		d2s += q * q;
	}
out:
	if (cp)
		for (m = 0; m < 3; m++)
			cp[m] = w[0] * a[m] + w[1] * b[m] + w[2] * c[m];
	return d2s;
}

double
tri_dist(const double p[3], const double a[3], const double b[3],
	 const double c[3])
{
	return sqrt(tri_closest(p, a, b, c, NULL, NULL));
}

/* Moller-Trumbore ray/triangle intersection. */
int
tri_ray(const double o[3], const double d[3], const double a[3],
	const double b[3], const double c[3], double tmin, double tmax,
	double *t)
{
	double e1[3], e2[3], pv[3], tv[3], qv[3], det, inv, u, v, tt;

	sub3(b, a, e1);
	sub3(c, a, e2);
	cross3(d, e2, pv);
	det = dot3(e1, pv);
	if (det == 0)
		return 0;
	inv = 1 / det;
	sub3(o, a, tv);
	u = dot3(tv, pv) * inv;
	if (u < 0 || u > 1)
		return 0;
	cross3(tv, e1, qv);
	v = dot3(d, qv) * inv;
	if (v < 0 || u + v > 1)
		return 0;
	tt = dot3(e2, qv) * inv;
	if (tt < tmin || tt > tmax)
		return 0;
	*t = tt;
	return 1;
}

/* Orientation of q against the directed 2D edge (a, b), in the plane of
 * axes (u, v).  Written so that swapping a and b negates the result
 * exactly: the two products are the same numbers in either order. */
static double
orient2(const double a[3], const double b[3], const double q[3], int u, int v)
{
	return (a[u] - q[u]) * (b[v] - q[v]) - (a[v] - q[v]) * (b[u] - q[u]);
}

/* Sign of orient2 at q + eps*(-delta, 1), 0 < delta << 1 << 1/eps: the
 * symbolic perturbation that decides points exactly on an edge.  The
 * derivative of orient2 along that direction is (b[u]-a[u]) to first
 * order in eps, then (b[v]-a[v])*delta, so the reversed edge always
 * gets the opposite sign. */
static int
edge_sign(const double a[3], const double b[3], const double q[3], int u,
	  int v)
{
	double o = orient2(a, b, q, u, v);

	if (o > 0)
		return 1;
	if (o < 0)
		return -1;
	if (b[u] != a[u])
		return b[u] > a[u] ? 1 : -1;
	if (b[v] != a[v])
		return b[v] > a[v] ? 1 : -1;
	return 0;       /* coincident projected vertices: no crossing */
}

int
tri_axis_line(int axis, const double q[3], const double a[3],
	      const double b[3], const double c[3], double *t)
{
	int u = (axis + 1) % 3, v = (axis + 2) % 3;
	int s0, s1, s2;
	double w0, w1, w2, sum;

	s0 = edge_sign(b, c, q, u, v);
	s1 = edge_sign(c, a, q, u, v);
	s2 = edge_sign(a, b, q, u, v);
	if (s0 == 0 || s0 != s1 || s1 != s2)
		return 0;
	w0 = orient2(b, c, q, u, v);
	w1 = orient2(c, a, q, u, v);
	w2 = orient2(a, b, q, u, v);
	sum = w0 + w1 + w2;
	if (sum == 0)
		return 0;       /* edge-on: zero projected area */
	*t = (w0 * a[axis] + w1 * b[axis] + w2 * c[axis]) / sum;
	return 1;
}

void
tri_prepare(tri_pre *t, const double a[3], const double b[3],
	    const double c[3])
{
	double bc[3];

	memcpy(t->a, a, sizeof t->a);
	memcpy(t->b, b, sizeof t->b);
	memcpy(t->c, c, sizeof t->c);
	sub3(b, a, t->ab);
	sub3(c, a, t->ac);
	sub3(c, b, bc);
	cross3(t->ab, t->ac, t->n);
	t->d00 = dot3(t->ab, t->ab);
	t->d01 = dot3(t->ab, t->ac);
	t->d11 = dot3(t->ac, t->ac);
	t->dbc = dot3(bc, bc);
	t->nn = dot3(t->n, t->n);
	t->degenerate = t->nn == 0 || t->nn <= 1e-30 * t->d00 * t->d11;
}

/* tri_closest's region tests with every dot product expressed through
 * d1 = ab.ap and d2 = ac.ap: d3 = d1 - d00, d4 = d2 - d01, d5 = d1 - d01,
 * d6 = d2 - d11; the edge distances by Pythagoras along the edge. */
double
tri_pre_d2(const tri_pre *t, const double p[3])
{
	double ap[3], d1, d2, d3, d4, d5, d6, va, vb, vc, ap2, s;

	if (t->degenerate)
		return tri_closest(p, t->a, t->b, t->c, NULL, NULL);
	sub3(p, t->a, ap);
	d1 = dot3(t->ab, ap);
	d2 = dot3(t->ac, ap);
	ap2 = dot3(ap, ap);
	if (d1 <= 0 && d2 <= 0)
		return ap2;
	d3 = d1 - t->d00;
	d4 = d2 - t->d01;
	if (d3 >= 0 && d4 <= d3) {
		double bp[3];
		sub3(p, t->b, bp);
		return dot3(bp, bp);
	}
	vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0)
		return fmax(ap2 - d1 * d1 / t->d00, 0);
	d5 = d1 - t->d01;
	d6 = d2 - t->d11;
	if (d6 >= 0 && d5 <= d6) {
		double cp[3];
		sub3(p, t->c, cp);
		return dot3(cp, cp);
	}
	vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0)
		return fmax(ap2 - d2 * d2 / t->d11, 0);
	va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		double bp[3], e = d4 - d3;      /* bc . bp */
		sub3(p, t->b, bp);
		return fmax(dot3(bp, bp) - e * e / t->dbc, 0);
	}
	s = dot3(ap, t->n);
	return s * s / t->nn;
}
