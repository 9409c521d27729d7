/* test_cloth_self.c: self-collisions of cloth (selle2008 thesis §6.3-6.4).
 * The swept tests against known crossings, then the torture test of
 * figure 6.3 at a size for the test suite: a sheet drapes over a sphere
 * and is then twisted by a spinning cylinder around the sphere's equator;
 * at the end of every frame no two triangles may intersect, checked by
 * an independent triangle/triangle test written here (edges of each
 * triangle against the other by signs of volumes, neighbours included),
 * and the collision step must have acted during the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "cloth/cloth_vec.h"
#include "cloth/collide_self.h"
#include "ctest.h"

/* Volumes below this fraction of the product of the edge lengths count as
 * flat: rounding leaves pieces of a flat sheet moved rigidly (an impact
 * zone) with volumes of random sign at about 1e-16, and a sign test on
 * them would see crossings that are not there. */
#define FLAT_REL 1e-9

/* sign of the volume of (a, b, c, d), 0 when flat */
static int
orient(const double *a, const double *b, const double *c, const double *d)
{
	double u[3], v[3], w[3], cr[3];
	v3sub(b, a, u);
	v3sub(c, a, v);
	v3sub(d, a, w);
	v3cross(u, v, cr);
	double o = v3dot(cr, w);
	if (fabs(o) <= FLAT_REL * v3norm(u) * v3norm(v) * v3norm(w))
		return 0;
	return (o > 0) - (o < 0);
}

/* Does segment pq cross triangle abc (proper crossing)? */
static int
seg_tri(const double *p, const double *q, const double *a, const double *b,
	const double *c)
{
	int s1 = orient(a, b, c, p), s2 = orient(a, b, c, q);
	if (s1 == 0 || s2 == 0 || s1 == s2)
		return 0;
	int e1 = orient(p, q, a, b), e2 = orient(p, q, b, c),
		e3 = orient(p, q, c, a);
	return e1 != 0 && e1 == e2 && e2 == e3;
}

/* Do triangles A and B, sharing the edge uw (A = u w a, B = u w b), meet
 * beyond that edge?  Their planes meet in the line uw, so unless they are
 * coplanar they touch only along the shared edge; coplanar, they overlap
 * exactly when a and b lie on the same side of uw (the sheet folded flat
 * onto itself). */
static int
shared_edge_meet(const double *u, const double *w, const double *a,
		 const double *b)
{
	if (orient(u, w, a, b) != 0)
		return 0;
	double e[3], da[3], db[3], ca[3], cb[3];
	v3sub(w, u, e);
	v3sub(a, u, da);
	v3sub(b, u, db);
	v3cross(e, da, ca);
	v3cross(e, db, cb);
	return v3dot(ca, cb) > 0;
}

/* Count pairs of triangles that intersect anywhere but at the vertices
 * and edges they share (an edge flat in the other's plane is not counted
 * as crossing it, see FLAT_REL).  No shared vertex: any edge of one properly
 * crossing the other.  One shared vertex v: the planes meet in a line
 * through v, each triangle cuts that line in a segment from v to its
 * edge opposite v, so the triangles meet beyond v exactly when an
 * opposite edge crosses the other triangle.  A shared edge:
 * shared_edge_meet. */
static long
intersections(const cloth_mesh *m, const double *x)
{
	long n = 0;
	for (size_t i = 0; i < m->nt; i++) {
		const uint32_t *A = m->tri + 3 * i;
		double lo[3], hi[3];
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(x[3 * A[0] + k], fmin(x[3 * A[1] + k], x[3 * A[2] + k]));
			hi[k] = fmax(x[3 * A[0] + k], fmax(x[3 * A[1] + k], x[3 * A[2] + k]));
		}
		for (size_t j = i + 1; j < m->nt; j++) {
			const uint32_t *B = m->tri + 3 * j;
			int nshare = 0, sa[3] = {0, 0, 0}, sb[3] = {0, 0, 0}, out = 0;
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					if (A[a] == B[b]) {
						sa[a] = sb[b] = 1;
						nshare++;
					}
			for (int k = 0; k < 3 && !out; k++) {
				double l = fmin(x[3 * B[0] + k], fmin(x[3 * B[1] + k], x[3 * B[2] + k]));
				double h = fmax(x[3 * B[0] + k], fmax(x[3 * B[1] + k], x[3 * B[2] + k]));
				out = l > hi[k] || h < lo[k];
			}
			if (out || nshare == 3)
				continue;
			if (nshare == 2) {
				int ia = 0, ib = 0, u = -1, w = -1;
				while (sa[ia]) ia++;
				while (sb[ib]) ib++;
				for (int a = 0; a < 3; a++)
					if (sa[a] && u < 0)
						u = a;
					else if (sa[a])
						w = a;
				n += shared_edge_meet(x + 3 * A[u], x + 3 * A[w],
						      x + 3 * A[ia], x + 3 * B[ib]);
				continue;
			}
			int hit = 0;
			for (int e = 0; e < 3 && !hit; e++) {
				/* with a shared vertex, only the edges opposite it */
				int ea = !sa[e] && !sa[(e + 1) % 3];
				int eb = !sb[e] && !sb[(e + 1) % 3];
				if (ea)
					hit |= seg_tri(x + 3 * A[e], x + 3 * A[(e + 1) % 3],
						       x + 3 * B[0], x + 3 * B[1], x + 3 * B[2]);
				if (eb)
					hit |= seg_tri(x + 3 * B[e], x + 3 * B[(e + 1) % 3],
						       x + 3 * A[0], x + 3 * A[1], x + 3 * A[2]);
			}
			n += hit;
		}
	}
	return n;
}

static void
test_swept(void)
{
	/* the checker itself: two crossing triangles, then apart */
	double xx[18] = {0, 0, 0, 1, 0, 0, 0, 0, 1,
			 0.2, -0.5, 0.2, 0.3, 0.5, 0.2, 0.2, 0.5, 0.4};
	uint32_t tt[6] = {0, 1, 2, 3, 4, 5};
	cloth_mesh mm;
	slc_err e;
	cloth_mesh_build(&mm, 6, 2, tt, &e);
	CHECK(intersections(&mm, xx) == 1, "the checker sees two crossing "
	      "triangles");
	xx[10] = 0.1;
	CHECK(intersections(&mm, xx) == 0, "and not two apart");
	cloth_mesh_free(&mm);
	/* sharing vertex 0: B's edge opposite it pierces A, then B tilted
	 * away so that the two meet only at the shared vertex */
	double xv[15] = {0, 0, 0, 1, 0, 0, 0, 0, 1,
			 0.6, -0.3, 0.2, 0.2, 0.3, 0.6};
	uint32_t tv[6] = {0, 1, 2, 0, 3, 4};
	cloth_mesh_build(&mm, 5, 2, tv, &e);
	CHECK(intersections(&mm, xv) == 1, "the checker sees triangles "
	      "sharing a vertex cross");
	xv[10] = 0.1;
	CHECK(intersections(&mm, xv) == 0, "and not when they only share it");
	cloth_mesh_free(&mm);
	/* sharing edge 0-1: folded flat onto each other, then opened */
	double xe[12] = {0, 0, 0, 1, 0, 0, 0.3, 0, 0.5, 0.6, 0, 0.4};
	uint32_t te[6] = {0, 1, 2, 1, 0, 3};
	cloth_mesh_build(&mm, 4, 2, te, &e);
	CHECK(intersections(&mm, xe) == 1, "the checker sees a flat fold "
	      "across a shared edge");
	xe[11] = -0.4;
	CHECK(intersections(&mm, xe) == 0, "and not the flat sheet");
	xe[10] = 1e-3;
	xe[11] = 0.4;
	CHECK(intersections(&mm, xe) == 0, "nor a fold that is not flat");
	cloth_mesh_free(&mm);

	/* a point falling through a triangle: coplanar at t = 0.4 */
	double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 0, 1};
	double p[3] = {0.2, 0.4, 0.2}, z[3] = {0, 0, 0}, dp[3] = {0, -1, 0};
	const double *x[4] = {p, a, b, c}, *d[4] = {dp, z, z, z};
	double t[3];
	int n = ccd_coplanar_times(x, d, t);
	CHECK(n == 1 && fabs(t[0] - 0.4) < 1e-12, "point through triangle at "
	      "t = %.15g (%d roots)", n ? t[0] : -1, n);
	/* two edges crossing: coplanar at t = 0.25 */
	double e0[3] = {-1, 0.25, 0}, e1[3] = {1, 0.25, 0};
	double f0[3] = {0, 0, -1}, f1[3] = {0, 0, 1}, de[3] = {0, -1, 0};
	const double *y[4] = {e0, e1, f0, f1}, *dy[4] = {de, de, z, z};
	n = ccd_coplanar_times(y, dy, t);
	CHECK(n == 1 && fabs(t[0] - 0.25) < 1e-12, "edge through edge at "
	      "t = %.15g", n ? t[0] : -1);
	/* a cubic with three roots in [0,1] */
	double q0[3] = {0, 0, 0}, q1[3] = {1, 0, 0}, q2[3] = {0, 1, 0};
	double q3[3] = {0.3, 0.3, 0.2}, dq[3] = {0, 0, 0};
	const double *w[4] = {q0, q1, q2, q3}, *dw[4] = {dq, dq, dq, dq};
	n = ccd_coplanar_times(w, dw, t);
	CHECK(n == 0, "still, non-coplanar points: no root");
	double sd2, sw[3];
	sd2 = tri_point_dist2(p, a, b, c, sw);
	CHECK(fabs(sd2 - 0.16) < 1e-14 && fabs(sw[1] - 0.2) < 1e-14 &&
	      fabs(sw[2] - 0.2) < 1e-14, "point/triangle distance");
}

/* Step C alone: one sheet pushed straight through another must stay on
 * its side, through collisions and impact zones. */
static void
test_resolve(int coll_iters)
{
	const int n = 6;
	double *xa, *xb, o1[3] = {0, 0, 0}, o2[3] = {0.013, 0.05, 0.021};
	double eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *ta, *tb;
	size_t na, nb, nta, ntb;
	slc_err err;

	cloth_sheet(n, n, o1, eu, ev, 1, 1, &xa, &na, &ta, &nta, &err);
	cloth_sheet(n, n, o2, eu, ev, 0.9, 0.9, &xb, &nb, &tb, &ntb, &err);
	size_t np = na + nb, nt = nta + ntb;
	double *x = calloc(3 * np, sizeof *x), *x1 = calloc(3 * np, sizeof *x1);
	double *m = calloc(np, sizeof *m);
	uint32_t *tri = calloc(3 * nt, sizeof *tri);
	uint8_t *moved = calloc(np, 1);
	memcpy(x, xa, 3 * na * sizeof *x);
	memcpy(x + 3 * na, xb, 3 * nb * sizeof *x);
	memcpy(tri, ta, 3 * nta * sizeof *tri);
	for (size_t i = 0; i < 3 * ntb; i++)
		tri[3 * nta + i] = tb[i] + (uint32_t)na;
	for (size_t i = 0; i < np; i++)
		m[i] = 1e-3;
	cloth c;
	cloth_params par;
	cloth_params_default(&par);
	par.self = 1;
	par.coll_iters = coll_iters;
	CHECK(cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err) == 0,
	      "two sheets, impact zones after %d passes", coll_iters);
	/* B falls 0.1 m (through A) with a twist; A rises a little */
	memcpy(x1, x, 3 * np * sizeof *x);
	for (size_t i = 0; i < np; i++) {
		double *p = x1 + 3 * i;
		if (i >= na) {
			p[1] -= 0.1 + 0.02 * sin(7 * p[0]);
			p[0] += 0.01 * p[2];
		} else {
			p[1] += 0.01 * cos(5 * p[2]);
		}
	}
	long nc = 0, nz = 0;
	int r = collide_self_resolve(c.cs, x, x1, 0.1, moved, &nc, &nz, &err);
	CHECK(r == 0, "resolved (%ld collisions, %ld impact-zone passes)", nc, nz);
	CHECK(nc > 0 && (coll_iters > 0 || nz > 0), "collisions were found%s",
	      coll_iters ? "" : " and made rigid impact zones");
	CHECK(intersections(&c.mesh, x1) == 0, "no intersection at the end");
	/* every B point above A's plane at the start stays above every A
	 * point it lies over at the end */
	int side = 1;
	for (size_t i = na; i < np; i++)
		for (size_t j = 0; j < na; j++) {
			const double *p = x1 + 3 * i, *q = x1 + 3 * j;
			if (fabs(p[0] - q[0]) < 0.02 && fabs(p[2] - q[2]) < 0.02 &&
			    p[1] < q[1])
				side = 0;
		}
	CHECK(side, "the falling sheet stayed on its side");
	cloth_free(&c);
	free(x); free(x1); free(m); free(tri); free(moved);
	free(xa); free(xb); free(ta); free(tb);
}

static void
test_torture(void)
{
	const int n = 20, drape = 10, twist = 24, steps = 8;
	const double L = 1.4, R = 0.25, fps = 24;
	double *x, o[3] = {-0.5 * L, 0.3, -0.5 * L}, eu[3] = {1, 0, 0},
		ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	cloth c;
	cloth_params par;
	slc_err err;

	cloth_sheet(n, n, o, eu, ev, L, L, &x, &np, &tri, &nt, &err);
	double *m = calloc(np, sizeof *m);
	for (size_t i = 0; i < np; i++)
		m[i] = 0.1 * L * L / (double)np;
	cloth_params_default(&par);
	par.self = 1;
	par.loops = 4;
	par.wind_drag = 0.2;
	CHECK(cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err) == 0,
	      "init");
	CHECK(intersections(&c.mesh, c.x) == 0, "the flat sheet does not "
	      "intersect itself");
	cloth_body b[2];
	memset(b, 0, sizeof b);
	b[0].shape = BODY_SPHERE;
	b[0].r = R;
	b[0].mu = 0.3;
	b[1].shape = BODY_CYLINDER;
	b[1].a[1] = 1;
	/* a gripping band around the equator: high friction, a little
	 * wider than the sphere, so that it drags the skirt round until it
	 * folds onto itself (the collision step must then act) */
	b[1].r = R + 0.03;
	b[1].hl = 0.08;
	b[1].mu = 5;
	long worst = 0;
	int bad_frame = -1, ok = 1;
	for (int f = 0; f < drape + twist; f++) {
		b[1].omega = f < drape ? 0 : 12;
		if (cloth_advance(&c, f / fps, 1 / fps, steps, b, 2, &err)) {
			CHECK(0, "frame %d: %s", f, err.msg);
			ok = 0;
			break;
		}
		long k = intersections(&c.mesh, c.x);
		if (k > worst) {
			worst = k;
			bad_frame = f;
		}
	}
	if (ok)
		CHECK(worst == 0, "no self-intersection at the end of any of %d "
		      "frames (worst %ld pairs at frame %d); %ld collisions, "
		      "%ld impact-zone passes, %ld repulsion pairs",
		      drape + twist, worst, bad_frame, c.st.collisions,
		      c.st.impact_zones, c.st.repulsion_pairs);
	CHECK(c.st.collisions > 0 && c.st.repulsion_pairs > 0, "the run "
	      "exercised the collision step: %ld collisions, %ld repulsion "
	      "pairs", c.st.collisions, c.st.repulsion_pairs);
	/* it was twisted: the skirt turned about the axis */
	double ang = 0;
	int cnt = 0;
	for (size_t i = 0; i < np; i++) {
		const double *p = c.x + 3 * i, *p0 = x + 3 * i;
		if (p[1] > -0.2 && p[1] < 0.2 && hypot(p[0], p[2]) < R + 0.2) {
			double a0 = atan2(p0[2], p0[0]), a1 = atan2(p[2], p[0]);
			double da = a1 - a0;
			while (da > M_PI) da -= 2 * M_PI;
			while (da < -M_PI) da += 2 * M_PI;
			ang += da;
			cnt++;
		}
	}
	CHECK(cnt > 0 && fabs(ang / cnt) > 0.2, "the spinning cylinder "
	      "twisted the cloth (mean turn %.2f rad over %d points)",
	      cnt ? ang / cnt : 0, cnt);
	cloth_free(&c);
	free(m);
	free(x);
	free(tri);
}

int
main(void)
{
	test_swept();
	test_resolve(8);
	test_resolve(0);
	test_torture();
	return ctest_done();
}
