/* test_hair.c: hair strands (lib/hair/, selle2008 thesis ch. 7): the
 * particles and springs of fig. 7.2, rest shapes that stay put and their
 * mirror images that do not, hanging strands against the analytic stretch
 * and the strain limit, a jerked root with and without limiting, the
 * pendulum period, torsion driven from the root, and
 * stability at one step per frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"
#include "ctest.h"
#include "hair/hair.h"

#define FPS 24.0

/* A straight strand of M segments of length l from o along unit d. */
static double *
straight(int M, double l, const double o[3], const double d[3])
{
	double *P = calloc(3 * (size_t)(M + 1), sizeof *P);
	for (int i = 0; i <= M; i++)
		for (int k = 0; k < 3; k++)
			P[3 * i + k] = o[k] + i * l * d[k];
	return P;
}

/* A helix of M points-to-points segments, radius r, pitch p (m per turn),
 * turns t, axis -y from the origin, equally spaced in arclength. */
static double *
helix(int M, double r, double p, double t)
{
	double *P = calloc(3 * (size_t)(M + 1), sizeof *P);
	for (int i = 0; i <= M; i++) {
		double a = 2 * M_PI * t * i / M;
		P[3 * i] = r * cos(a);
		P[3 * i + 1] = -p * t * i / M;
		P[3 * i + 2] = r * sin(a);
	}
	return P;
}

/* One strand of n points. */
static int
one(hair *h, size_t n, const double *P, const double *rest,
    const hair_params *par)
{
	uint32_t off[2] = {0, (uint32_t)n};
	slc_err err;
	int rc = hair_init(h, 1, off, n, P, NULL, rest, NULL, NULL, NULL, par,
			   &err);
	if (rc)
		printf("# hair_init: %s\n", err.msg);
	return rc;
}

static void
test_counts(void)
{
	hair_params par;
	hair h;
	int M = 6;
	double o[3] = {0, 0, 0}, d[3] = {0, -1, 0};
	double *P = straight(M, 0.01, o, d);

	hair_params_default(&par);
	CHECK(one(&h, (size_t)M + 1, P, NULL, &par) == 0, "straight strand");
	const spring_set *s = &h.ms.spr;
	CHECK(h.ms.np == (size_t)(2 * M + 1), "straight, %d segments: %zu "
	      "particles, expected 2M+1", M, h.ms.np);
	CHECK(s->nedge == (size_t)(3 * M), "%zu edge-class springs: 2M "
	      "edges and M parents", s->nedge);
	CHECK(s->nbend == (size_t)(M - 1 + 2 * M - 2), "%zu two-point "
	      "springs: M-1 bends and 2M-2 torsions", s->nbend);
	CHECK(s->nalt == (size_t)(2 * M - 2), "%zu altitude springs: 2M-2 "
	      "tetrahedra", s->nalt);
	/* every tetrahedron of a straight strand has volume (the virtuals
	 * turn about the axis) */
	int flat = 0;
	for (size_t q = s->nedge + s->nbend; q < s->ns; q++) {
		const uint32_t *id = s->idx + 4 * q;
		double a[3], b[3], c[3], x[3];
		v3sub(h.rest + 3 * id[1], h.rest + 3 * id[0], a);
		v3sub(h.rest + 3 * id[2], h.rest + 3 * id[0], b);
		v3sub(h.rest + 3 * id[3], h.rest + 3 * id[0], c);
		v3cross(a, b, x);
		if (fabs(v3dot(x, c)) < 1e-9)
			flat++;
	}
	CHECK(flat == 0, "%d flat tetrahedra on the straight strand", flat);
	hair_free(&h);
	free(P);

	P = helix(40, 0.01, 0.01, 3);
	CHECK(one(&h, 41, P, NULL, &par) == 0, "helix");
	CHECK(h.ms.np == 41 && h.ms.spr.nedge == 40 &&
	      h.ms.spr.nbend == 39 + 38 && h.ms.spr.nalt == 38,
	      "helix of 40 segments: no virtuals (%zu particles), 40 edges, "
	      "39 bends + 38 torsions (%zu), 38 altitudes (%zu)", h.ms.np,
	      h.ms.spr.nbend, h.ms.spr.nalt);
	hair_free(&h);
	free(P);
}

/* Largest distance between particles of x and y (3n). */
static double
maxdist(const double *x, const double *y, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++) {
		double d[3];
		v3sub(x + 3 * i, y + 3 * i, d);
		if (v3norm(d) > m)
			m = v3norm(d);
	}
	return m;
}

/* Rest: a rigidly moved rest shape stays put; its mirror image moves. */
static void
test_rest(void)
{
	hair_params par;
	hair h;
	slc_err err;
	const int M = 30;
	double *rest = helix(M, 0.01, 0.008, 2.5);
	double *P = calloc(3 * (M + 1), sizeof *P);
	double *Q = calloc(3 * (M + 1), sizeof *Q);
	/* R: 40 degrees about (1, 2, 2)/3, then moved by (0.3, -0.1, 0.2) */
	double ax[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0}, th = 40 * M_PI / 180;

	hair_params_default(&par);
	par.mp.g[1] = 0;
	for (int i = 0; i <= M; i++) {
		const double *r = rest + 3 * i;
		double c[3], dd = v3dot(ax, r);
		v3cross(ax, r, c);
		for (int k = 0; k < 3; k++)
			P[3 * i + k] = r[k] * cos(th) + c[k] * sin(th) +
				ax[k] * dd * (1 - cos(th)) + (k == 0 ? 0.3 :
							     k == 1 ? -0.1 : 0.2);
		Q[3 * i] = -rest[3 * i];
		Q[3 * i + 1] = rest[3 * i + 1];
		Q[3 * i + 2] = rest[3 * i + 2];
	}
	for (int sub = 0; sub < 2; sub++) {
		double *x0 = calloc(3 * (M + 1), sizeof *x0);
		par.subdivide = sub ? HAIR_SUB_ALL : HAIR_SUB_AUTO;
		CHECK(one(&h, M + 1, P, rest, &par) == 0, "moved helix");
		memcpy(x0, h.ms.x, 3 * (M + 1) * sizeof *x0);
		for (int f = 0; f < 10; f++)
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
		double dm = maxdist(x0, h.ms.x, M + 1);
		CHECK(dm < 1e-9, "subdivide %s: the rigidly moved rest helix "
		      "moves %.3g m in 10 frames, expected < 1e-9",
		      sub ? "all" : "auto", dm);
		hair_free(&h);
		memcpy(x0, Q, 3 * (M + 1) * sizeof *x0);
		CHECK(one(&h, M + 1, Q, rest, &par) == 0, "mirrored helix");
		for (int f = 0; f < 10; f++)
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
		dm = maxdist(x0, h.ms.x, M + 1);
		CHECK(dm > 1e-4, "subdivide %s: the mirror image of the rest "
		      "helix moves (%.3g m): signed altitudes",
		      sub ? "all" : "auto", dm);
		hair_free(&h);
		free(x0);
	}
	free(rest);
	free(P);
	free(Q);
}

static const double zero3[3] = {0, 0, 0};

/* Hanging strand, bending off: edge j = l0 (1 + W_j / k) when that is
 * within the strain limit.  Where the limit binds, the edge sits at
 * (1+s) l0 and so do the edges below it: the limiter changes only the
 * velocity that moves the points (§7.4.1), the evolution velocity keeps
 * the downward drift that the clamped edges' excess weight gives it, and
 * every point below moves down with it each step and is clamped back. */
static void
test_hanging(void)
{
	const int M = 10;
	const double l = 0.01, o[3] = {0, 0, 0}, d[3] = {0, -1, 0};
	double ks[2] = {1e-4, 2e-5};
	slc_err err;

	for (int c = 0; c < 2; c++) {
		hair_params par;
		hair h;
		double *P = straight(M, l, o, d);
		hair_params_default(&par);
		par.subdivide = HAIR_SUB_NONE;
		par.k.k_edge = ks[c];
		par.k.k_bend = par.k.k_tors = par.k.k_alt = 0;
		one(&h, M + 1, P, NULL, &par);
		hair_constrain(&h, 0, zero3);
		for (int f = 0; f < 96; f++)
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
		double worst = 0, smax = 0;
		for (int j = 0; j < M; j++) {
			double W = (M - j) * h.ms.m[j + 1] * 9.8, e[3];
			double want = l * (1 + W / ks[c]);
			if (want > 1.1 * l || (j > 0 && c == 1))
				want = 1.1 * l;
			v3sub(h.ms.x + 3 * (j + 1), h.ms.x + 3 * j, e);
			double r = fabs(v3norm(e) - want) / l;
			if (r > worst)
				worst = r;
			if (v3norm(e) / l - 1 > smax)
				smax = v3norm(e) / l - 1;
		}
		CHECK(worst < 1e-3, "hanging, k %g N (top strain %.3f): every "
		      "edge within %.2g of the %s, expected 1e-3", ks[c], smax,
		      worst, c ? "strain limit" : "analytic stretch");
		hair_free(&h);
		free(P);
	}
}

/* Largest axis strain. */
static double
max_strain(const hair *h)
{
	double m = 0;
	for (size_t i = 0; i + 1 < h->topo.naxis; i++) {
		double e[3];
		v3sub(h->ms.x + 3 * (i + 1), h->ms.x + 3 * i, e);
		double s = fabs(v3norm(e) / h->seg_l0[i] - 1);
		if (s > m)
			m = s;
	}
	return m;
}

/* Pin the particles id (HAIR_NONE: none) with velocity vel plus the
 * velocities taking them by angle th about the axis through o along a
 * over T; pin_root: the root triangle (axis points 0, 1 and segment 0's
 * virtual). */
static void
pin_three(hair *h, const uint32_t id[3], const double vel[3], double th,
	  const double o[3], const double a[3], double T)
{
	for (int k = 0; k < 3; k++) {
		if (id[k] == HAIR_NONE)
			continue;
		const double *x = h->ms.x + 3 * id[k];
		double r[3], c[3], w[3];
		v3sub(x, o, r);
		v3cross(a, r, c);
		double dd = v3dot(a, r);
		for (int j = 0; j < 3; j++)
			w[j] = vel[j] + (r[j] * cos(th) + c[j] * sin(th) +
					 a[j] * dd * (1 - cos(th)) - r[j]) / T;
		hair_constrain(h, id[k], w);
	}
}

static void
pin_root(hair *h, const double vel[3], double th, const double o[3],
	 const double a[3], double T)
{
	uint32_t id[3] = {0, 1, h->topo.seg_virt[0]};
	pin_three(h, id, vel, th, o, a, T);
}

static void
test_jerk(void)
{
	const int M = 12;
	const double l = 0.01, o[3] = {0, 0, 0}, d[3] = {0, -1, 0};
	const double a[3] = {0, 1, 0};
	slc_err err;

	for (int lim = 1; lim >= 0; lim--) {
		hair_params par;
		hair h;
		double *P = straight(M, l, o, d), vel[3] = {0.5 * FPS, 0, 0};
		hair_params_default(&par);
		par.k.k_edge = 1e-3;
		par.strain = lim ? 0.1 : 0;
		one(&h, M + 1, P, NULL, &par);
		pin_root(&h, vel, 0, o, a, 1 / FPS);
		hair_advance(&h, 0, 1 / FPS, NULL, 0, &err);
		double s = max_strain(&h);
		if (lim)
			CHECK(s <= 0.1 + 1e-9, "root jerked 0.5 m in a frame: "
			      "largest axis strain %.6f <= 0.1", s);
		else
			CHECK(s > 0.1, "without strain limiting the same jerk "
			      "stretches an edge by %.3f > 0.1", s);
		hair_free(&h);
		free(P);
	}
}

/* Pendulum of one segment, root pinned: 2 pi sqrt(L/g)(1 + th0^2/16). */
static void
test_pendulum(void)
{
	const double L = 0.2, th0 = 0.1, g = 9.8;
	const double T0 = 2 * M_PI * sqrt(L / g) * (1 + th0 * th0 / 16);
	double P[6] = {0, 0, 0, L * sin(th0), -L * cos(th0), 0};
	hair_params par;
	hair h;
	slc_err err;
	const double dt = 1 / 240.0;

	hair_params_default(&par);
	par.subdivide = HAIR_SUB_NONE;
	par.steps = 1;
	one(&h, 2, P, NULL, &par);
	hair_constrain(&h, 1 - 1, zero3);
	double xprev = h.ms.x[3], tprev = 0, first = -1, last = -1, amp = 0;
	int cross = 0;
	for (int k = 1; k * dt < 5.3 * T0; k++) {
		hair_advance(&h, (k - 1) * dt, dt, NULL, 0, &err);
		double x = h.ms.x[3], t = k * dt;
		if (xprev > 0 && x <= 0) {
			double tc = tprev + dt * xprev / (xprev - x);
			if (first < 0)
				first = tc;
			last = tc;
			cross++;
		}
		if (cross == 5 && fabs(x) > amp)
			amp = fabs(x);
		xprev = x;
		tprev = t;
	}
	double T = (last - first) / (cross - 1);
	CHECK(cross == 6 && fabs(T / T0 - 1) < 0.01, "pendulum: period %.5f s "
	      "over %d periods, expected %.5f within 1%%", T, cross - 1, T0);
	CHECK(amp > 0.95 * L * sin(th0), "pendulum: amplitude %.4f m after "
	      "five periods, > 95%% of %.4f", amp, L * sin(th0));
	hair_free(&h);
}

/* Azimuth (radians) of virtual k about the segment's axis, measured from
 * the direction ref (unit, normal to the axis). */
static double
azimuth(const hair *h, const double *x, uint32_t k, const double ref[3])
{
	uint32_t i = h->topo.virt_seg[k], v = (uint32_t)h->topo.naxis + k;
	double u[3], m[3], r[3], c[3];
	v3sub(x + 3 * (i + 1), x + 3 * i, u);
	v3scale(1 / v3norm(u), u);
	for (int j = 0; j < 3; j++)
		m[j] = 0.5 * (x[3 * i + j] + x[3 * i + 3 + j]);
	v3sub(x + 3 * v, m, r);
	v3axpy(-v3dot(r, u), u, r);
	v3cross(ref, r, c);
	return atan2(v3dot(c, u), v3dot(ref, r));
}

static double
wrap(double a)
{
	while (a > M_PI)
		a -= 2 * M_PI;
	while (a < -M_PI)
		a += 2 * M_PI;
	return a;
}

static void
test_twist(void)
{
	const int M = 10;
	const double l = 0.01, o[3] = {0, 0, 0}, d[3] = {0, -1, 0};
	const double ax[3] = {0, -1, 0};
	hair_params par;
	hair h;
	slc_err err;
	double *P = straight(M, l, o, d);

	hair_params_default(&par);
	par.mp.g[1] = 0;
	one(&h, M + 1, P, NULL, &par);
	size_t nv = h.topo.nvirt;
	double *ref = calloc(3 * nv, sizeof *ref);
	for (uint32_t k = 0; k < nv; k++) {
		uint32_t i = h.topo.virt_seg[k];
		for (int j = 0; j < 3; j++)
			ref[3 * k + j] = h.rest[3 * (h.topo.naxis + k) + j] -
				0.5 * (h.rest[3 * i + j] + h.rest[3 * i + 3 + j]);
		v3scale(1 / v3norm(ref + 3 * k), ref + 3 * k);
	}
	/* the root triangle turned 90 degrees in 10 degree frames, then
	 * held */
	int f = 0;
	for (; f < 9; f++) {
		pin_root(&h, zero3, 10 * M_PI / 180, o, ax, 1 / FPS);
		hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
	}
	pin_root(&h, zero3, 0, o, ax, 1 / FPS);
	for (; f < 40; f++)
		hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
	double worst = 0;
	for (uint32_t k = 0; k < nv; k++) {
		double e = fabs(wrap(azimuth(&h, h.ms.x, k, ref + 3 * k) -
				     M_PI / 2));
		if (e > worst)
			worst = e;
	}
	CHECK(worst < 5 * M_PI / 180, "root turned 90 degrees: every virtual "
	      "to the tip turned 90 within %.2f degrees (5)",
	      worst * 180 / M_PI);
	/* released, it untwists: the turn between consecutive virtuals back
	 * to rest, elastic energy to nothing */
	spring_linearize(&h.ms.spr, h.ms.x, h.ms.m, 0);
	double e0 = spring_energy(&h.ms.spr);
	/* twist the tip further so that the strand holds a twist, then free
	 * everything */
	for (size_t i = 0; i < h.ms.np; i++)
		h.ms.fixed[i] = 0;
	for (uint32_t k = 0; k < nv; k++) {
		uint32_t v = (uint32_t)h.topo.naxis + k;
		double r[3];
		/* undo the root's turn on the root triangle only: the rest
		 * of the strand is now 90 degrees twisted against it */
		if (k == 0) {
			v3sub(h.ms.x + 3 * v, o, r);
			double c[3];
			v3cross(ax, r, c);
			for (int j = 0; j < 3; j++)
				h.ms.x[3 * v + j] = o[j] + r[j] * cos(-M_PI / 2) +
					c[j] * sin(-M_PI / 2) +
					ax[j] * v3dot(ax, r) * (1 + 0 * cos(M_PI / 2)) -
					ax[j] * v3dot(ax, r);
		}
	}
	spring_linearize(&h.ms.spr, h.ms.x, h.ms.m, 0);
	double e1 = spring_energy(&h.ms.spr);
	for (; f < 200; f++)
		hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
	spring_linearize(&h.ms.spr, h.ms.x, h.ms.m, 0);
	double e2 = spring_energy(&h.ms.spr);
	worst = 0;
	for (uint32_t k = 0; k + 1 < nv; k++) {
		double a0 = azimuth(&h, h.rest, k, ref + 3 * k);
		double a1 = azimuth(&h, h.rest, k + 1, ref + 3 * k);
		double b0 = azimuth(&h, h.ms.x, k, ref + 3 * k);
		double b1 = azimuth(&h, h.ms.x, k + 1, ref + 3 * k);
		(void)a0; (void)a1; (void)b0; (void)b1;
		double e = fabs(wrap((b1 - b0) - (a1 - a0)));
		if (e > worst)
			worst = e;
	}
	(void)e0;
	CHECK(e1 > 0 && e2 < 0.01 * e1, "released, the twisted strand "
	      "untwists: elastic energy %.3g J from %.3g J", e2, e1);
	CHECK(worst < 5 * M_PI / 180, "released: consecutive turns back to "
	      "rest within %.2f degrees (5)", worst * 180 / M_PI);
	hair_free(&h);
	free(ref);
	free(P);
}

/* One step per frame at 24 fps with stiff springs: finite, energy never
 * rises; the same with explicit springs blows up. */
static void
test_big_steps(void)
{
	const int M = 10;
	const double o[3] = {0, 0, 0}, d[3] = {1, 0, 0};
	slc_err err;

	for (int impl = 1; impl >= 0; impl--) {
		hair_params par;
		hair h;
		double *P = straight(M, 0.02, o, d);
		hair_params_default(&par);
		par.k.k_edge = 100;
		par.k.k_bend = par.k.k_tors = par.k.k_alt = 1;
		par.steps = par.max_steps = 1;
		par.mp.implicit_springs = impl;
		one(&h, M + 1, P, NULL, &par);
		pin_root(&h, zero3, 0, o, d, 1 / FPS);
		double e = hair_energy(&h), rise = 0;
		int finite = 1;
		for (int f = 0; f < 48; f++) {
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
			double e1 = hair_energy(&h);
			if (!isfinite(e1))
				finite = 0;
			if (e1 - e > rise)
				rise = e1 - e;
			e = e1;
		}
		if (impl)
			CHECK(finite && rise <= 1e-12, "one step a frame, "
			      "implicit springs: finite, energy rises by at most "
			      "%.3g J in a frame", rise);
		else
			CHECK(!finite || rise > 1e-6, "one step a frame, explicit "
			      "springs: blows up (energy rises by %.3g J)", rise);
		hair_free(&h);
		free(P);
	}
}

/* Signed volume (times 6) of tetrahedron q of the spring set at x. */
static double
tet_vol(const spring_set *s, const double *x, size_t q)
{
	const uint32_t *id = s->idx + 4 * q;
	double a[3], b[3], c[3], w[3];
	v3sub(x + 3 * id[1], x + 3 * id[0], a);
	v3sub(x + 3 * id[2], x + 3 * id[0], b);
	v3sub(x + 3 * id[3], x + 3 * id[0], c);
	v3cross(a, b, w);
	return v3dot(w, c);
}

/* Turns of the n points x about their principal axis (the line through
 * their centroid along the direction of largest spread): the azimuth
 * accumulated from point to point, over 2 pi. */
static double
turns(const double *x, size_t n)
{
	double c[3] = {0, 0, 0}, C[9] = {0}, a[3] = {0.3, 0.9, 0.1};
	for (size_t i = 0; i < n; i++)
		v3axpy(1.0 / (double)n, x + 3 * i, c);
	for (size_t i = 0; i < n; i++) {
		double r[3];
		v3sub(x + 3 * i, c, r);
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 3; k++)
				C[3 * j + k] += r[j] * r[k];
	}
	for (int it = 0; it < 200; it++) {
		double b[3];
		for (int j = 0; j < 3; j++)
			b[j] = C[3 * j] * a[0] + C[3 * j + 1] * a[1] +
				C[3 * j + 2] * a[2];
		v3scale(1 / v3norm(b), b);
		memcpy(a, b, sizeof a);
	}
	double tot = 0, pr[3] = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		double r[3], w[3];
		v3sub(x + 3 * i, c, r);
		v3axpy(-v3dot(r, a), a, r);
		if (i > 0) {
			v3cross(pr, r, w);
			tot += atan2(v3dot(w, a), v3dot(pr, r));
		}
		memcpy(pr, r, sizeof pr);
	}
	return fabs(tot) / (2 * M_PI);
}

/* Curl (thesis fig. 7.2a, 7.5): a 4-turn helix of 1 cm radius, 8 points
 * a turn, root pinned, hangs under gravity for 3 s with the default
 * springs: every tetrahedron keeps the sign of its rest volume and the
 * helix its turns within 0.1; and the stiffer the strand (kscale), the
 * shorter it hangs. */
static void
test_curl(void)
{
	const int M = 32;
	const double ks[3] = {0.3, 1, 3};
	double hang[3];
	slc_err err;

	for (int c = 0; c < 3; c++) {
		hair_params par;
		hair h;
		double *P = helix(M, 0.01, 0.02, 4);
		uint32_t off[2] = {0, (uint32_t)M + 1};
		hair_params_default(&par);
		CHECK(hair_init(&h, 1, off, (size_t)M + 1, P, NULL, NULL, NULL,
				ks + c, NULL, &par, &err) == 0, "curl");
		hair_constrain(&h, 0, zero3);
		hair_constrain(&h, 1, zero3);
		const spring_set *s = &h.ms.spr;
		int flips = 0;
		for (int f = 0; f < 72; f++) {
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
			for (size_t q = s->nedge + s->nbend; q < s->ns; q++)
				if (tet_vol(s, h.ms.x, q) * tet_vol(s, h.rest, q) <= 0)
					flips++;
		}
		hang[c] = h.ms.x[1] - h.ms.x[3 * M + 1];
		if (ks[c] == 1) {
			double t0 = turns(h.rest, (size_t)M + 1);
			double t1 = turns(h.ms.x, (size_t)M + 1);
			CHECK(flips == 0, "curl under gravity, default springs: "
			      "%d tetrahedra changed sign over 72 frames", flips);
			CHECK(fabs(t1 - t0) <= 0.1, "curl keeps its turns: %.3f "
			      "against %.3f at rest, within 0.1", t1, t0);
		}
		hair_free(&h);
		free(P);
	}
	CHECK(hang[0] > hang[1] && hang[1] > hang[2], "fig. 7.5: hanging "
	      "length falls as kscale rises: %.4f, %.4f, %.4f m at kscale "
	      "0.3, 1, 3 (rest 0.08)", hang[0], hang[1], hang[2]);
}

/* Fig. 7.4b: a straight strand, no gravity, its root and tip triangles
 * pinned; the tip is pushed to 0.9 L from the root, then turned tw times.
 * Unturned, it buckles off the line between its ends by more than 0.1 L
 * (Euler: 0.2 L for a clamped strand taking up 0.1 L of slack).  Turned
 * three times, the twist buckles it too (fig. 7.4b: a twisted end
 * tangles; notes' check: off the line by more than 0.1 L), where an even
 * coil taking up the slack, L sqrt(1 - 0.81) / (6 pi) = 0.023 L off the
 * line, would not.  (With the virtuals' tetrahedra at the altitude
 * stiffness of curls, 10 times the torsion, it stayed such a coil, 0.035
 * L: hair_build.c.) */
static void
test_buckle(void)
{
	const int M = 20, F = 36;
	const double l = 0.01, L = M * l, o[3] = {0, 0, 0}, d[3] = {0, -1, 0};

	for (int tw = 0; tw <= 3; tw += 3) {
		hair_params par;
		hair h;
		slc_err err;
		double *P = straight(M, l, o, d);
		hair_params_default(&par);
		par.mp.g[1] = 0;
		one(&h, (size_t)M + 1, P, NULL, &par);
		pin_root(&h, zero3, 0, o, d, 1 / FPS);
		const uint32_t tip[3] = {(uint32_t)M, (uint32_t)M - 1,
					 h.topo.seg_virt[M - 1]};
		const double up[3] = {0, 0.1 * L * FPS / (F / 2), 0};
		for (int f = 0; f < F + 48; f++) {
			if (f < F / 2)
				pin_three(&h, tip, up, 0, h.ms.x + 3 * M, d,
					  1 / FPS);
			else if (f < F)
				pin_three(&h, tip, zero3, tw * 2 * M_PI / (F / 2),
					  h.ms.x + 3 * M, d, 1 / FPS);
			else
				pin_three(&h, tip, zero3, 0, h.ms.x + 3 * M, d,
					  1 / FPS);
			hair_advance(&h, f / FPS, 1 / FPS, NULL, 0, &err);
		}
		double off = 0, ends[3];
		v3sub(h.ms.x + 3 * M, h.ms.x, ends);
		double span = v3norm(ends);
		v3scale(1 / span, ends);
		for (int i = 0; i <= M; i++) {
			double r[3];
			v3sub(h.ms.x + 3 * i, h.ms.x, r);
			v3axpy(-v3dot(r, ends), ends, r);
			if (v3norm(r) > off)
				off = v3norm(r);
		}
		double want = 0.1 * L;
		CHECK(fabs(span - 0.9 * L) < 1e-6 * L, "ends %.4f m apart, "
		      "expected 0.9 L = %.4f", span, 0.9 * L);
		CHECK(off > want, "fig. 7.4b: ends 0.9 L apart, %d turns: the "
		      "strand leaves the line by %.4f m = %.3f L, > %.4f m",
		      tw, off, off / L, want);
		hair_free(&h);
		free(P);
	}
}

int
main(void)
{
	test_counts();
	test_rest();
	test_hanging();
	test_jerk();
	test_pendulum();
	test_twist();
	test_big_steps();
	test_curl();
	test_buckle();
	return ctest_done();
}
