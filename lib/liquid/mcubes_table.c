/* mcubes_table.c: the marching cubes case table, built once from one
 * rule per cube face (see mcubes_table.h), so that neighbouring cubes
 * always agree on their shared face.
 *
 * Cube corners are numbered c = x | y<<1 | z<<2.  Edge e = 4*d + (a | b<<1)
 * runs along axis d from the corner with coordinate a on axis u and b on
 * axis v (u < v the other two axes) and 0 on d, to the same corner with 1
 * on d.  Case bit c is set when corner c is inside (phi < iso).
 */
#include "liquid/mcubes_table.h"
#include "liquid/mcubes.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>


static const int other_axes[3][2] = { { 1, 2 }, { 0, 2 }, { 0, 1 } };

static mc_table tab;
static int bad_case;            /* first case that failed, or -1 */
static const char *why;

static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

int
mc_edge_lo(int e)
{
	int d = e / 4, r = e % 4;

	return ((r & 1) << other_axes[d][0]) | ((r >> 1) << other_axes[d][1]);
}

/* The edge joining corners c0 and c1 (which differ in one bit). */
static int
edge_of(int c0, int c1)
{
	int x = c0 ^ c1, d = x == 1 ? 0 : x == 2 ? 1 : 2, lo = c0 & c1;

	return 4 * d + ((lo >> other_axes[d][0]) & 1) + 2 * ((lo >> other_axes[d][1]) & 1);
}

static void
edge_mid(int e, double p[3])
{
	int lo = mc_edge_lo(e), a;

	for (a = 0; a < 3; a++)
		p[a] = (lo >> a) & 1;
	p[e / 4] = 0.5;
}

/* Bit mask of the faces (2*axis + side) an edge lies on. */
static int
edge_faces(int e)
{
	int d = e / 4, r = e % 4, u = other_axes[d][0], v = other_axes[d][1];

	return 1 << (2 * u + (r & 1)) | 1 << (2 * v + (r >> 1));
}

/* Triangle quality at the edge midpoints: area over the sum of squared
 * edge lengths (larger is rounder). */
static double
tri_quality(int e0, int e1, int e2)
{
	double a[3], b[3], c[3], u[3], v[3], w[3], n[3], s = 0;
	int q;

	edge_mid(e0, a);
	edge_mid(e1, b);
	edge_mid(e2, c);
	for (q = 0; q < 3; q++) {
		u[q] = b[q] - a[q];
		v[q] = c[q] - a[q];
		w[q] = c[q] - b[q];
		s += u[q] * u[q] + v[q] * v[q] + w[q] * w[q];
	}
	n[0] = u[1] * v[2] - u[2] * v[1];
	n[1] = u[2] * v[0] - u[0] * v[2];
	n[2] = u[0] * v[1] - u[1] * v[0];
	return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) / s;
}

/* Triangulate loop[0..n-1] (in loop order, which gives the orientation)
 * by dynamic programming over sub-polygons, maximizing the smallest
 * triangle quality, never using a diagonal whose ends lie on one cube
 * face (that edge could be shared with the neighbouring cube).  Appends
 * to out; returns the triangle count or -1 if no such triangulation. */
static int
triangulate(const int *loop, int n, uint8_t *out)
{
	double best[12][12];
	int arg[12][12], i, j, k, len, cnt = 0;
	int stack[24][2], sp = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			best[i][j] = j == i + 1 ? INFINITY : -1;
			arg[i][j] = -1;
		}
	for (len = 2; len < n; len++)
		for (i = 0; i + len < n; i++) {
			j = i + len;
			/* (i, j) is a diagonal unless it closes the loop */
			if (!(i == 0 && j == n - 1) &&
			    (edge_faces(loop[i]) & edge_faces(loop[j])))
				continue;
			for (k = i + 1; k < j; k++) {
				double q = tri_quality(loop[i], loop[k], loop[j]);

				if (best[i][k] < 0 || best[k][j] < 0)
					continue;
				q = fmin(q, fmin(best[i][k], best[k][j]));
				if (q > best[i][j]) {
					best[i][j] = q;
					arg[i][j] = k;
				}
			}
		}
	if (n < 3 || best[0][n - 1] < 0)
		return -1;
	stack[sp][0] = 0;
	stack[sp++][1] = n - 1;
	while (sp) {
		sp--;
		i = stack[sp][0];
		j = stack[sp][1];
		if (j <= i + 1)
			continue;
		k = arg[i][j];
		out[3 * cnt] = (uint8_t)loop[i];
		out[3 * cnt + 1] = (uint8_t)loop[k];
		out[3 * cnt + 2] = (uint8_t)loop[j];
		cnt++;
		stack[sp][0] = i;
		stack[sp++][1] = k;
		stack[sp][0] = k;
		stack[sp++][1] = j;
	}
	return cnt;
}

/* Build one case: segments on each face, oriented so that the outside
 * lies to the left seen from outside the cube (then the loops run
 * counter-clockwise around the outward normal of the surface), chained
 * into loops and triangulated. */
static int
build_case(int cs)
{
	int next[12], prev[12], e, face;
	int seen[12] = { 0 };

	for (e = 0; e < 12; e++) {
		next[e] = prev[e] = -1;
		if (((cs >> mc_edge_lo(e)) & 1) != ((cs >> (mc_edge_lo(e) | 1 << (e / 4))) & 1))
			tab.edges[cs] |= (uint16_t)(1 << e);
	}
	for (face = 0; face < 6; face++) {
		int a = face / 2, s = face % 2, u = other_axes[a][0], v = other_axes[a][1];
		int cc[4], fe[4], crossed[4], nc = 0, q;
		double f[3] = { 0, 0, 0 };

		f[a] = s ? 1 : -1;
		/* corners in cyclic order around the face, and the edges between */
		cc[0] = s << a;
		cc[1] = cc[0] | 1 << u;
		cc[2] = cc[1] | 1 << v;
		cc[3] = cc[0] | 1 << v;
		for (q = 0; q < 4; q++) {
			fe[q] = edge_of(cc[q], cc[(q + 1) % 4]);
			if ((tab.edges[cs] >> fe[q]) & 1)
				crossed[nc++] = q;
		}
		for (q = 0; q < nc; q += 2) {
			int p0, p1, c, no = 0, x;
			double P[3] = { 0, 0, 0 }, A[3], B[3], t[3], cr[3];

			if (nc == 2) {
				p0 = fe[crossed[0]];
				p1 = fe[crossed[1]];
				for (c = 0; c < 4; c++)
					if (!((cs >> cc[c]) & 1)) {
						for (x = 0; x < 3; x++)
							P[x] += (cc[c] >> x) & 1;
						no++;
					}
				for (x = 0; x < 3; x++)
					P[x] /= no;
			} else {
				/* ambiguous face: cut off each outside corner c by
				 * joining the edges before and after it */
				int k = q / 2, oc = -1, n = 0;

				for (c = 0; c < 4; c++)
					if (!((cs >> cc[c]) & 1) && n++ == k)
						oc = c;
				p0 = fe[(oc + 3) % 4];
				p1 = fe[oc];
				for (x = 0; x < 3; x++)
					P[x] = (cc[oc] >> x) & 1;
			}
			edge_mid(p0, A);
			edge_mid(p1, B);
			for (x = 0; x < 3; x++)
				t[x] = B[x] - A[x];
			cr[0] = f[1] * t[2] - f[2] * t[1];
			cr[1] = f[2] * t[0] - f[0] * t[2];
			cr[2] = f[0] * t[1] - f[1] * t[0];
			if (cr[0] * (P[0] - A[0]) + cr[1] * (P[1] - A[1]) +
			    cr[2] * (P[2] - A[2]) < 0) {
				x = p0;
				p0 = p1;
				p1 = x;
			}
			if (next[p0] >= 0 || prev[p1] >= 0) {
				why = "a point with two segments on one side";
				return -1;
			}
			next[p0] = p1;
			prev[p1] = p0;
		}
	}
	for (e = 0; e < 12; e++) {
		int loop[12], n = 0, x = e, nt;

		if (!((tab.edges[cs] >> e) & 1) || seen[e])
			continue;
		while (!seen[x]) {
			if (next[x] < 0) {
				why = "an open loop of face segments";
				return -1;
			}
			seen[x] = 1;
			loop[n++] = x;
			x = next[x];
		}
		if (x != e) {
			why = "loops that cross";
			return -1;
		}
		if (tab.ntri[cs] + n - 2 > MC_MAXTRI) {
			why = "too many triangles";
			return -1;
		}
		nt = triangulate(loop, n, tab.tri[cs] + 3 * tab.ntri[cs]);
		if (nt < 0) {
			why = "a loop with no triangulation off the faces";
			return -1;
		}
		tab.ntri[cs] = (uint8_t)(tab.ntri[cs] + nt);
	}
	return 0;
}

static void
build_table(void)
{
	int cs;

	bad_case = -1;
	for (cs = 0; cs < 256; cs++)
		if (build_case(cs) && bad_case < 0)
			bad_case = cs;
}

int
mc_table_check(slc_err *err)
{
	pthread_once(&tab_once, build_table);
	if (bad_case >= 0)
		return slc_fail(err, "marching cubes case %d: %s", bad_case, why);
	return 0;
}

const mc_table *
mc_table_get(void)
{
	pthread_once(&tab_once, build_table);
	return bad_case >= 0 ? NULL : &tab;
}
