/* test_hair_self.c: strand/strand repulsions and collisions (the strand
 * mode of lib/cloth/collide_self.h and strand_self.h; selle2008 thesis
 * §7.5.3 on §6.3-6.4): two strands swept through each other in one step
 * end uncrossed (crossed with collisions off, and when their pair is in
 * the skip set); repulsions hold a strand resting on another at about
 * the thickness (with collisions alone it does not);
 * collisions left after the passes are counted, never an error; the same
 * bytes with 1 and 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/collide_self.h"
#include "cloth/masspring.h"
#include "cloth/strand_self.h"
#include "ctest.h"

#define NPT 11                  /* points a strand */
#define SEGLEN 0.01             /* m */
#define H 1e-3                  /* thickness, m */

/* A body of ns strands of NPT points, positions x (3 ns NPT), segments
 * seg, edge springs and bending pairs; masses m each. */
static int
body(masspring *ms, int ns, const double *x, const double *v, uint32_t *seg,
     double m, const double g[3])
{
	size_t np = (size_t)ns * NPT, nseg = (size_t)ns * (NPT - 1);
	uint32_t *pair = calloc(2 * (size_t)ns * NPT, sizeof *pair);
	double *mass = calloc(np, sizeof *mass);
	size_t npair = 0;
	spring_set spr;
	slc_err err;

	for (int s = 0; s < ns; s++)
		for (int i = 0; i < NPT; i++) {
			uint32_t p = (uint32_t)(s * NPT + i);
			if (i + 1 < NPT) {
				seg[2 * (s * (NPT - 1) + i)] = p;
				seg[2 * (s * (NPT - 1) + i) + 1] = p + 1;
			}
			if (i + 2 < NPT) {
				pair[2 * npair] = p;
				pair[2 * npair++ + 1] = p + 2;
			}
		}
	for (size_t i = 0; i < np; i++)
		mass[i] = m;
	spring_lists l = {
		.np = np, .nedge = nseg, .edge = seg, .k_e = 1, .xi_e = 1,
		.npair = npair, .pair = pair, .k_p = 0.01, .xi_p = 1,
		.compress_scale = 1,
	};
	masspring_params mp = { .cg_tol = 1e-9, .cg_max = 500,
		.implicit_springs = 1 };
	memcpy(mp.g, g, sizeof mp.g);
	int rc = spring_build_lists(&spr, &l, x, &err) ||
		masspring_init(ms, np, x, v, mass, &spr, &mp, &err);
	free(pair);
	free(mass);
	return rc;
}

static strand_self_params
self_params(int repulse, int collide)
{
	strand_self_params p = {
		.thickness = H, .k_rep = 30, .mu_self = 0.1, .coll_iters = 8,
		.repulse = repulse, .collide = collide,
	};
	return p;
}

/* Strand A along x at z = 0 (pinned), strand B along y at z = 0.5 SEGLEN
 * crossing A's middle, moving down at vz so that one step of dt takes it
 * to z = -0.5 SEGLEN.  Returns B's crossing point's height above A after
 * the step; counts through *ncoll, *nskip. */
static double
sweep(int collide, int skip, long *ncoll, long *nskip, long *unres,
      double *verr)
{
	double x[3 * 2 * NPT], v[3 * 2 * NPT] = {0};
	uint32_t seg[2 * 2 * (NPT - 1)];
	const double g[3] = {0, 0, 0}, dt = 1e-2, zero[3] = {0, 0, 0};
	masspring ms;
	strand_self ss;
	slc_err err;

	for (int i = 0; i < NPT; i++) {
		double *a = x + 3 * i, *b = x + 3 * (NPT + i);
		a[0] = i * SEGLEN;
		a[1] = 5 * SEGLEN + 0.3 * SEGLEN;
		a[2] = 0;
		b[0] = 5 * SEGLEN + 0.4 * SEGLEN;
		b[1] = i * SEGLEN;
		b[2] = 0.5 * SEGLEN;
		v[3 * (NPT + i) + 2] = -SEGLEN / dt;
	}
	body(&ms, 2, x, v, seg, 1e-5, g);
	for (int i = 0; i < NPT; i++)
		masspring_constrain(&ms, (size_t)i, zero);
	strand_self_params p = self_params(0, collide);
	strand_self_init(&ss, &ms, 2 * (NPT - 1), seg, &p, &err);
	if (skip) {
		/* A's middle segment 5 and B's segment 5 cross */
		uint32_t pr[2] = { 5, (NPT - 1) + 5 };
		collide_self_skip(ss.cs, 1, pr, &err);
	}
	strand_self_begin(&ss, dt, &err);
	masspring_step(&ms, 0, dt, NULL, 0);
	double xb[3 * 2 * NPT];
	memcpy(xb, ms.x, sizeof xb);
	if (strand_self_end(&ss, dt, &err))
		CHECK(0, "step C failed: %s", err.msg);
	/* step C's moved points take the velocity of their path from the
	 * start of the step (§6.3): the largest miss of a point step C moved */
	*verr = 0;
	for (int k = 0; k < 3 * 2 * NPT; k++)
		if (fabs(ms.x[k] - xb[k]) > 1e-12)
			*verr = fmax(*verr, fabs(ms.v[k] - (ms.x[k] - ss.xs[k]) / dt));
	*ncoll = ss.st.collisions;
	*nskip = ss.st.skipped;
	*unres = ss.st.unresolved;
	/* B's segment 5 over A's segment 5: closest points' height */
	double sp, tp;
	const double *a0 = ms.x + 15, *a1 = ms.x + 18;
	const double *b0 = ms.x + 3 * (NPT + 5), *b1 = ms.x + 3 * (NPT + 6);
	seg_seg_dist2(a0, a1, b0, b1, &sp, &tp);
	double za = a0[2] + sp * (a1[2] - a0[2]);
	double zb = b0[2] + tp * (b1[2] - b0[2]);
	strand_self_free(&ss);
	masspring_free(&ms);
	return zb - za;
}

static void
test_sweep(void)
{
	long nc, ns, nu;
	double ve;
	double on = sweep(1, 0, &nc, &ns, &nu, &ve);
	CHECK(on > 0 && nc > 0 && nu == 0,
	      "swept through in one step with collisions: B ends above A "
	      "(%.3g m, %ld collisions, %ld unresolved)", on, nc, nu);
	CHECK(ve < 1e-9, "step C: the points it moved take the velocity of "
	      "their new path (largest miss %.3g m/s)", ve);
	double off = sweep(0, 0, &nc, &ns, &nu, &ve);
	CHECK(off < -0.4 * SEGLEN, "control, collisions off: B ends below A "
	      "(%.3g m)", off);
	double sk = sweep(1, 1, &nc, &ns, &nu, &ve);
	CHECK(sk < -0.4 * SEGLEN && ns > 0,
	      "the crossing pair skipped (stiction): detected %ld times, not "
	      "answered, B ends below (%.3g m)", ns, sk);
}

/* Strand B lying on pinned strand A (parallel, directly above, 2h up)
 * under gravity for 0.5 s: the gap at the end, and the smallest. */
static double
rest(int repulse, double *gmin)
{
	double x[3 * 2 * NPT];
	uint32_t seg[2 * 2 * (NPT - 1)];
	const double g[3] = {0, 0, -9.8}, dt = 1e-3, zero[3] = {0, 0, 0};
	const int loops = 4;
	masspring ms;
	strand_self ss;
	slc_err err;

	for (int i = 0; i < NPT; i++) {
		double *a = x + 3 * i, *b = x + 3 * (NPT + i);
		a[0] = b[0] = i * SEGLEN;
		a[1] = b[1] = 0;
		a[2] = 0;
		b[2] = 2 * H;
	}
	body(&ms, 2, x, NULL, seg, 1e-5, g);
	for (int i = 0; i < NPT; i++)
		masspring_constrain(&ms, (size_t)i, zero);
	strand_self_params p = self_params(repulse, 1);
	strand_self_init(&ss, &ms, 2 * (NPT - 1), seg, &p, &err);
	ms.hk.ctx = &ss;
	ms.hk.repulse = strand_self_repulse;
	*gmin = 1;
	for (int s = 0; s < 500; s += loops) {
		if (strand_self_begin(&ss, loops * dt, &err))
			break;
		for (int k = 0; k < loops; k++)
			masspring_step(&ms, (s + k) * dt, dt, NULL, 0);
		if (strand_self_end(&ss, loops * dt, &err))
			break;
		for (int i = 0; i < NPT; i++)
			*gmin = fmin(*gmin, ms.x[3 * (NPT + i) + 2]);
	}
	double gap = 0;
	for (int i = 0; i < NPT; i++)
		gap += ms.x[3 * (NPT + i) + 2] / NPT;
	strand_self_free(&ss);
	masspring_free(&ms);
	return gap;
}

static void
test_rest(void)
{
	double gmin, gmin0;
	double on = rest(1, &gmin), off = rest(0, &gmin0);

	CHECK(on > 0.8 * H && on < 1.05 * H && gmin > 0.5 * H,
	      "repulsions hold B on A at about h: mean gap %.3g h, smallest "
	      "%.3g h", on / H, gmin / H);
	CHECK(off < 0.5 * H,
	      "control, collisions only: B does not rest at h (ends at %.3g h)",
	      off / H);
}

/* coll_iters 0: the one pass only counts; the collisions are reported as
 * unresolved, the positions are left alone, and it is no error. */
static void
test_unresolved(void)
{
	double x0[12] = { 0, 0, 0,  1, 0, 0,  0.5, -0.5, 0.1,  0.5, 0.5, 0.1 };
	double x1[12], keep[12];
	double m[4] = {1, 1, 1, 1};
	uint8_t fixed[4] = {0}, moved[4] = {0};
	uint32_t edge[4] = {0, 1, 2, 3};
	collide_self_params p = { .thickness = 0.01, .k_rep = 30,
		.coll_iters = 0, .zones = 0, .strands = 1 };
	slc_err err;
	long nc = 0, nz = 0, un = -1, sk = -1;

	memcpy(x1, x0, sizeof x1);
	x1[8] = x1[11] = -0.1;         /* the second edge passes through */
	memcpy(keep, x1, sizeof keep);
	collide_self *cs = collide_self_new_lists(4, m, fixed, 2, edge, 0, NULL,
						  &p, &err);
	int rc = collide_self_resolve(cs, x0, x1, 0.1, moved, &nc, &nz, &err);
	collide_self_counts(cs, &un, &sk);
	CHECK(rc == 0 && un == 1 && nc == 0 && !memcmp(x1, keep, sizeof keep),
	      "coll_iters 0: no error, 1 unresolved, positions kept (rc %d, "
	      "unresolved %ld)", rc, un);
	collide_self_free(cs);
	/* one pass answers it and the counting pass finds none */
	p.coll_iters = 1;
	cs = collide_self_new_lists(4, m, fixed, 2, edge, 0, NULL, &p, &err);
	memcpy(x1, keep, sizeof x1);
	nc = 0;
	rc = collide_self_resolve(cs, x0, x1, 0.1, moved, &nc, &nz, &err);
	collide_self_counts(cs, &un, &sk);
	CHECK(rc == 0 && un == 0 && nc == 1 && x1[8] > x1[2],
	      "coll_iters 1: answered, none left (collisions %ld, unresolved %ld)",
	      nc, un);
	collide_self_free(cs);
}

/* Many strands in a tangle, everything on, over two collision steps: the
 * final positions with 1 and 2 threads.  Enough particles (> 4096) that
 * the parallel loops run in parallel. */
static double *
tangle(int nthr, long *counts)
{
	const int ns = 420;
	size_t np = (size_t)ns * NPT;
	double *x = calloc(3 * np, sizeof *x), *v = calloc(3 * np, sizeof *v);
	uint32_t *seg = calloc(2 * (size_t)ns * (NPT - 1), sizeof *seg);
	const double g[3] = {0, -9.8, 0}, dt = 1e-3, zero[3] = {0, 0, 0};
	masspring ms;
	strand_self ss;
	slc_err err;

	omp_set_num_threads(nthr);
	/* strands in layers crossing at right angles, 1.5 h apart, each
	 * layer moving toward the next */
	for (int s = 0; s < ns; s++) {
		int layer = s / 21, k = s % 21;
		for (int i = 0; i < NPT; i++) {
			double *p = x + 3 * ((size_t)s * NPT + i);
			double a = (k - 10) * 0.5 * SEGLEN, b = (i - 5) * SEGLEN;
			p[0] = layer % 2 ? a : b;
			p[2] = layer % 2 ? b : a;
			p[1] = layer * 1.5 * H;
			v[3 * ((size_t)s * NPT + i) + 1] = layer % 2 ? -0.3 : 0.3;
		}
	}
	body(&ms, ns, x, v, seg, 1e-5, g);
	for (int s = 0; s < ns; s++)
		masspring_constrain(&ms, (size_t)s * NPT, zero);
	strand_self_params p = self_params(1, 1);
	p.stiction = 1;
	p.stic = (stiction_params){ .eps_s = H, .eps_break = 2 * H, .nmax = 2,
		.k = 0.01, .xi = 1 };
	strand_self_init(&ss, &ms, (size_t)ns * (NPT - 1), seg, &p, &err);
	ms.hk.ctx = &ss;
	ms.hk.repulse = strand_self_repulse;
	for (int c = 0; c < 2; c++) {
		strand_self_begin(&ss, 2 * dt, &err);
		for (int k = 0; k < 2; k++)
			masspring_step(&ms, (2 * c + k) * dt, dt, NULL, 0);
		strand_self_end(&ss, 2 * dt, &err);
	}
	counts[0] = ss.st.pairs;
	counts[1] = ss.st.collisions;
	counts[2] = ss.st.made;
	counts[3] = ss.st.unresolved;
	memcpy(x, ms.x, 3 * np * sizeof *x);
	strand_self_free(&ss);
	masspring_free(&ms);
	free(v);
	free(seg);
	return x;
}

static void
test_threads(void)
{
	long c1[4], c2[4];
	int nthr = omp_get_max_threads();
	double *a = tangle(1, c1), *b = tangle(2, c2);
	size_t n = 3 * (size_t)420 * NPT;

	CHECK(!memcmp(a, b, n * sizeof *a) && !memcmp(c1, c2, sizeof c1),
	      "1 and 2 threads: same positions and counts (%ld pairs, %ld "
	      "collisions, %ld bonds made, %ld unresolved)", c1[0], c1[1],
	      c1[2], c1[3]);
	CHECK(c1[0] > 0 && c1[2] > 0, "the tangle exercised repulsions and "
	      "stiction");
	omp_set_num_threads(nthr);
	free(a);
	free(b);
}

int
main(void)
{
	test_sweep();
	test_rest();
	test_unresolved();
	test_threads();
	return ctest_done();
}
