/* test_bvh.c: the box hierarchy (lib/geom/bvh.c) against brute force: closest
 * points, first ray hits, and robust axis-line crossings (a line through
 * shared vertices and edges of a closed mesh crosses it an even number
 * of times). */
#include <math.h>
#include <stdlib.h>

#include "geom/bvh.h"
#include "ctest.h"
#include "meshgen.h"
#include "geom/tri.h"

static double
urand(void)
{
	return rand() / (double)RAND_MAX;
}

static void
count_hit(void *ctx, uint32_t t, double s)
{
	(void)t;
	(void)s;
	(*(size_t *)ctx)++;
}

int
main(void)
{
	tmesh m;
	bvh b;
	double c[3] = { 0.1, -0.2, 0.05 };
	int q, bad_closest = 0, bad_ray = 0, odd = 0, nrays = 0, lines = 0;
	size_t v;
	slc_err err;

	icosphere(&m, 3, 0.5, c);
	CHECK(bvh_build(&b, m.P, m.nv, m.tri, m.nt, &err) == 0,
	      "build over %zu triangles", m.nt);
	srand(3);
	for (q = 0; q < 500; q++) {
		double x[3], best = INFINITY;
		int64_t bt = -1;
		bvh_hit h;
		for (int a = 0; a < 3; a++)
			x[a] = c[a] + 1.6 * (urand() - 0.5);
		for (size_t t = 0; t < m.nt; t++) {
			const uint32_t *f = m.tri + 3 * t;
			double d = tri_dist(x, m.P + 3 * f[0], m.P + 3 * f[1],
					    m.P + 3 * f[2]);
			if (d < best)
				best = d, bt = (int64_t)t;
		}
		bvh_closest(&b, x, INFINITY, &h);
		/* the same distance; the triangle may differ from the brute
		 * force one only where several are equally close (a shared
		 * vertex or edge), up to rounding */
		if (fabs(h.d - best) > 1e-12 || h.tri < 0 ||
		    fabs(tri_dist(x, m.P + 3 * m.tri[3 * h.tri],
				  m.P + 3 * m.tri[3 * h.tri + 1],
				  m.P + 3 * m.tri[3 * h.tri + 2]) - best) > 1e-12)
			bad_closest++;
		(void)bt;
		/* ray from x towards a random direction */
		{
			double dir[3], tb = INFINITY, t;
			int64_t rb = -1, r;
			for (int a = 0; a < 3; a++)
				dir[a] = urand() - 0.5;
			for (size_t tt = 0; tt < m.nt; tt++) {
				const uint32_t *f = m.tri + 3 * tt;
				double s;
				if (tri_ray(x, dir, m.P + 3 * f[0], m.P + 3 * f[1],
					    m.P + 3 * f[2], 0, INFINITY, &s) &&
				    s < tb)
					tb = s, rb = (int64_t)tt;
			}
			r = bvh_ray(&b, x, dir, 0, INFINITY, &t);
			nrays += rb >= 0;
			if (r != rb || (r >= 0 && t != tb))
				bad_ray++;
		}
	}
	CHECK(bad_closest == 0, "closest point equals brute force (%d bad)",
	      bad_closest);
	CHECK(bad_ray == 0 && nrays > 100,
	      "first ray hit equals brute force (%d of %d bad)", bad_ray, nrays);
	{
		bvh_hit h;
		double x[3] = { 5, 5, 5 };
		CHECK(bvh_closest(&b, x, 0.5, &h) == 0 && h.tri == -1,
		      "nothing within dmax: no hit");
	}
	/* lines exactly through every vertex and every edge midpoint */
	for (v = 0; v < m.nv + m.nt; v++) {
		double p[3];
		if (v < m.nv) {
			for (int a = 0; a < 3; a++)
				p[a] = m.P[3 * v + a];
		} else {
			const uint32_t *f = m.tri + 3 * (v - m.nv);
			for (int a = 0; a < 3; a++)
				p[a] = (m.P[3 * f[0] + a] + m.P[3 * f[1] + a]) / 2;
		}
		for (int axis = 0; axis < 3; axis++) {
			size_t n = 0;
			bvh_axis_line(&b, axis, p, count_hit, &n);
			lines++;
			odd += (int)(n & 1);
		}
	}
	CHECK(odd == 0, "%d lines through vertices and edges: %d odd", lines,
	      odd);
	bvh_free(&b);
	{
		uint32_t badtri[3] = { 0, 1, (uint32_t)m.nv };
		CHECK(bvh_build(&b, m.P, m.nv, badtri, 1, &err) == -1,
		      "index out of range refused: %s", err.msg);
	}
	bvh_free(&b);
	tmesh_free(&m);
	return ctest_done();
}
