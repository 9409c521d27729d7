/* test_hair_stiction.c: hair stiction (lib/cloth/stiction.h, the
 * four-point springs of spring.h, strand_self.h; selle2008 thesis §7.5.2,
 * check 10 of the hairstep notes): parallel strands closer than eps_s
 * bond, at most n a segment; pulled apart, every bond breaks at the first
 * check past the break distance and none before; the four-point spring's
 * force is the gradient of its energy; bonded strands resist separation
 * where unbonded ones drift apart; bonds survive a save and load. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/masspring.h"
#include "cloth/spring.h"
#include "cloth/stiction.h"
#include "cloth/strand_self.h"
#include "ctest.h"

#define NPT 11                  /* points a strand */
#define SEGLEN 0.01             /* rest segment length, m */
#define EPS_S 0.002             /* bonding distance, m */

/* Strand s of ns: NPT points along x from x0, at y = s * gap, z = 0;
 * segments (i, i+1) root first. */
static void
strands(int ns, double gap, double *x, uint32_t *seg)
{
	for (int s = 0; s < ns; s++)
		for (int i = 0; i < NPT; i++) {
			double *p = x + 3 * (s * NPT + i);
			p[0] = i * SEGLEN;
			p[1] = s * gap;
			p[2] = 0;
			if (i + 1 < NPT) {
				uint32_t *e = seg + 2 * (s * (NPT - 1) + i);
				e[0] = (uint32_t)(s * NPT + i);
				e[1] = (uint32_t)(s * NPT + i + 1);
			}
		}
}

static stiction_params
stic_params(int nmax)
{
	stiction_params p = {
		.eps_s = EPS_S, .eps_break = 2 * EPS_S, .nmax = nmax,
		.k = 0.05, .xi = 1,
	};
	return p;
}

/* Bonds held by each segment, and whether all join different strands. */
static int
check_counts(const stiction *st, int *most, int *least)
{
	int cnt[4 * NPT] = {0}, cross = 1;

	for (size_t b = 0; b < st->nb; b++) {
		uint32_t a = st->bseg[2 * b], c = st->bseg[2 * b + 1];
		cnt[a]++;
		cnt[c]++;
		if (a / (NPT - 1) == c / (NPT - 1))
			cross = 0;
	}
	*most = 0;
	*least = 1 << 20;
	for (size_t i = 0; i < st->nseg; i++) {
		if (cnt[i] > *most)
			*most = cnt[i];
		if (cnt[i] < *least)
			*least = cnt[i];
	}
	return cross;
}

static void
test_bond(void)
{
	double x[3 * 3 * NPT];
	uint32_t seg[2 * 3 * (NPT - 1)];
	stiction st;
	slc_err err;

	for (int nmax = 1; nmax <= 3; nmax++) {
		/* two strands 0.5 eps_s apart, a third 1.5 eps_s from the
		 * second (too far), segments never bond along a strand */
		strands(2, 0.5 * EPS_S, x, seg);
		for (int i = 0; i < NPT; i++) {
			double *p = x + 3 * (2 * NPT + i);
			p[0] = i * SEGLEN;
			p[1] = 2.0 * EPS_S;
			p[2] = 0;
			if (i + 1 < NPT) {
				seg[2 * (2 * (NPT - 1) + i)] = (uint32_t)(2 * NPT + i);
				seg[2 * (2 * (NPT - 1) + i) + 1] = (uint32_t)(2 * NPT + i + 1);
			}
		}
		stiction_params p = stic_params(nmax);
		CHECK(stiction_init(&st, 3 * NPT, 3 * (NPT - 1), seg, &p, &err) == 0,
		      "init: %s", err.msg);
		long made = stiction_create(&st, x, &err);
		int most, least, cross = check_counts(&st, &most, &least);
		int third = 0;
		for (size_t b = 0; b < st.nb; b++)
			if (st.bseg[2 * b + 1] >= 2 * (NPT - 1))
				third++;
		CHECK(made > 0 && made == (long)st.nb && cross && third == 0,
		      "nmax %d: %ld bonds between the close strands, none along a "
		      "strand, %d to the far one", nmax, made, third);
		int least_close = 1 << 20;
		for (size_t i = 0; i < 2 * (NPT - 1); i++) {
			int c = 0;
			for (size_t b = 0; b < 2 * st.nb; b++)
				c += st.bseg[b] == i;
			if (c < least_close)
				least_close = c;
		}
		CHECK(most <= nmax && least_close >= 1,
		      "nmax %d: every segment holds 1..%d bonds (most %d, least %d)",
		      nmax, nmax, most, least_close);
		if (nmax == 1) {
			int beside = st.nb == NPT - 1;
			for (size_t b = 0; beside && b < st.nb; b++)
				beside = st.bseg[2 * b + 1] == st.bseg[2 * b] + NPT - 1;
			CHECK(beside, "nmax 1: each segment bonds the one beside it "
			      "(%zu bonds)", st.nb);
		}
		/* a second pass at the same positions makes none: every
		 * segment that could bond has */
		long again = stiction_create(&st, x, &err);
		check_counts(&st, &most, &least);
		CHECK(most <= nmax, "nmax %d: a second pass keeps at most n a "
		      "segment (made %ld, most %d)", nmax, again, most);
		stiction_free(&st);
	}
	/* strands at 1.01 eps_s: nothing */
	strands(2, 1.01 * EPS_S, x, seg);
	stiction_params p = stic_params(2);
	stiction_init(&st, 2 * NPT, 2 * (NPT - 1), seg, &p, &err);
	CHECK(stiction_create(&st, x, &err) == 0 && st.nb == 0,
	      "strands 1.01 eps_s apart do not bond");
	stiction_free(&st);
}

/* Both strands scripted (A still, B moving away at a constant speed):
 * every bond has the same length, which crosses the break distance
 * between two checks; all must break at the first check past it. */
static void
test_break(void)
{
	double x[3 * 2 * NPT], m[2 * NPT];
	uint32_t seg[2 * 2 * (NPT - 1)];
	spring_set spr;
	masspring ms;
	strand_self ss;
	slc_err err;
	const double vy = 0.05, dt = 1e-3, gap0 = 0.5 * EPS_S;

	strands(2, gap0, x, seg);
	for (int i = 0; i < 2 * NPT; i++)
		m[i] = 1e-5;
	spring_lists l = {
		.np = 2 * NPT, .nedge = 2 * (NPT - 1), .edge = seg,
		.k_e = 1, .xi_e = 1, .compress_scale = 1,
	};
	masspring_params mp = { .cg_tol = 1e-9, .cg_max = 200,
		.implicit_springs = 1 };
	CHECK(spring_build_lists(&spr, &l, x, &err) == 0 &&
	      masspring_init(&ms, 2 * NPT, x, NULL, m, &spr, &mp, &err) == 0,
	      "body: %s", err.msg);
	const double zero[3] = {0, 0, 0}, away[3] = {0, vy, 0};
	for (int i = 0; i < NPT; i++) {
		masspring_constrain(&ms, (size_t)i, zero);
		masspring_constrain(&ms, (size_t)(NPT + i), away);
	}
	strand_self_params sp = { .stiction = 1, .stic = stic_params(2) };
	CHECK(strand_self_init(&ss, &ms, 2 * (NPT - 1), seg, &sp, &err) == 0,
	      "strand_self: %s", err.msg);
	int early = 0, late = 0, first_past = -1, broke_at = -1;
	size_t nb0 = 0;
	for (int step = 0; step < 200; step++) {
		double gap = ms.x[3 * NPT + 1] - ms.x[1];
		size_t before = ss.stic.nb;
		if (strand_self_begin(&ss, dt, &err)) {
			CHECK(0, "step A: %s", err.msg);
			break;
		}
		if (step == 0)
			nb0 = ss.stic.nb;
		if (first_past < 0 && gap > 2 * EPS_S)
			first_past = step;
		if (step > 0 && ss.stic.nb < before) {
			if (broke_at < 0)
				broke_at = step;
			if (gap <= 2 * EPS_S)
				early++;
			if (ss.stic.nb != 0)
				late++;
		}
		if (ms.spr.nfour != ss.stic.nb) {
			CHECK(0, "springs %zu, bonds %zu", ms.spr.nfour, ss.stic.nb);
			break;
		}
		masspring_step(&ms, step * dt, dt, NULL, 0);
	}
	CHECK(nb0 > 0 && broke_at == first_past && early == 0 && late == 0 &&
	      ss.stic.nb == 0 && ss.st.broken == (long)nb0,
	      "%zu bonds all break at check %d, the first past the break "
	      "distance (%d), none before", nb0, broke_at, first_past);
	strand_self_free(&ss);
	masspring_free(&ms);
}

/* The four-point spring's force is minus the gradient of its energy
 * (K/2)(l - l0)^2, by central differences. */
static void
test_force(void)
{
	double x[12] = { 0, 0, 0,  0.01, 0.001, 0,  0.002, 0.003, 0.001,
			 0.012, 0.0035, -0.0005 }, m[4] = {1, 1, 1, 1};
	uint32_t seg[4] = {0, 1, 2, 3}, idx[4] = {0, 1, 2, 3};
	double w[4] = { -(1 - 0.3), -0.3, 1 - 0.6, 0.6 };
	spring_set s;
	slc_err err;
	spring_lists l = { .np = 4, .nedge = 2, .edge = seg, .k_e = 0,
		.xi_e = 0, .compress_scale = 1 };
	spring_four_list f = { .n = 1, .idx = idx, .w = w, .l0 = EPS_S,
		.k = 0.05, .L = EPS_S, .xi = 0 };

	CHECK(spring_build_lists(&s, &l, x, &err) == 0 &&
	      spring_set_four(&s, &f, &err) == 0 && s.ns == 3 && s.nfour == 1,
	      "four-point spring added: %s", err.msg);
	double F[12] = {0}, worst = 0, Fmax = 0;
	spring_linearize(&s, x, m, 0);
	spring_force(&s, F);
	for (int k = 0; k < 12; k++) {
		const double hstep = 1e-7;
		double xp[12], Fd;
		memcpy(xp, x, sizeof xp);
		xp[k] += hstep;
		spring_linearize(&s, xp, m, 0);
		double ep = spring_energy(&s);
		xp[k] -= 2 * hstep;
		spring_linearize(&s, xp, m, 0);
		double em = spring_energy(&s);
		Fd = -(ep - em) / (2 * hstep);
		worst = fmax(worst, fabs(Fd - F[k]));
		Fmax = fmax(Fmax, fabs(F[k]));
	}
	CHECK(Fmax > 0 && worst < 1e-6 * Fmax,
	      "force = -grad energy (worst %.2e of %.2e N)", worst, Fmax);
	/* replacing by none restores the plain set */
	f.n = 0;
	CHECK(spring_set_four(&s, &f, &err) == 0 && s.ns == 2 && s.nfour == 0,
	      "four-point springs removed");
	spring_free(&s);
}

/* Strand A pinned, strand B free with a velocity away from A, no gravity:
 * bonded, B is held within the break distance; with stiction off it
 * drifts past it. */
static double
separate(int stic, size_t *bonds)
{
	double x[3 * 2 * NPT], m[2 * NPT], v[3 * 2 * NPT] = {0};
	uint32_t seg[2 * 2 * (NPT - 1)];
	uint32_t pair[2 * (NPT - 2)];
	spring_set spr;
	masspring ms;
	strand_self ss;
	slc_err err;
	const double dt = 1e-3;

	strands(2, 0.5 * EPS_S, x, seg);
	for (int i = 0; i < 2 * NPT; i++)
		m[i] = 1e-5;
	for (int i = 0; i < NPT; i++)
		v[3 * (NPT + i) + 1] = 0.05;
	for (int i = 0; i + 2 < NPT; i++) {
		pair[2 * i] = (uint32_t)(NPT + i);
		pair[2 * i + 1] = (uint32_t)(NPT + i + 2);
	}
	spring_lists l = {
		.np = 2 * NPT, .nedge = 2 * (NPT - 1), .edge = seg,
		.k_e = 1, .xi_e = 1, .npair = NPT - 2, .pair = pair,
		.k_p = 0.1, .xi_p = 1, .compress_scale = 1,
	};
	masspring_params mp = { .cg_tol = 1e-9, .cg_max = 500,
		.implicit_springs = 1 };
	spring_build_lists(&spr, &l, x, &err);
	masspring_init(&ms, 2 * NPT, x, v, m, &spr, &mp, &err);
	const double zero[3] = {0, 0, 0};
	for (int i = 0; i < NPT; i++)
		masspring_constrain(&ms, (size_t)i, zero);
	strand_self_params sp = { .stiction = stic, .stic = stic_params(2) };
	strand_self_init(&ss, &ms, 2 * (NPT - 1), seg, &sp, &err);
	double worst = 0;
	for (int step = 0; step < 500; step++) {
		strand_self_begin(&ss, dt, &err);
		masspring_step(&ms, step * dt, dt, NULL, 0);
		for (int i = 0; i < NPT; i++)
			worst = fmax(worst, ms.x[3 * (NPT + i) + 1] - ms.x[3 * i + 1]);
	}
	*bonds = ss.stic.nb;
	strand_self_free(&ss);
	masspring_free(&ms);
	return worst;
}

static void
test_resist(void)
{
	size_t nb_on, nb_off;
	double on = separate(1, &nb_on), off = separate(0, &nb_off);

	CHECK(on < 2 * EPS_S && nb_on > 0,
	      "bonded: B stays within the break distance (widest gap %.3g m "
	      "< %.3g, %zu bonds)", on, 2 * EPS_S, nb_on);
	CHECK(off > 5 * EPS_S,
	      "control without stiction: B drifts off (gap %.3g m > %.3g)",
	      off, 5 * EPS_S);
}

/* save then load into a fresh stiction gives the same bonds; bad bonds
 * are refused and leave the bonds as they were */
static void
test_save_load(void)
{
	double x[3 * 2 * NPT];
	uint32_t seg[2 * 2 * (NPT - 1)];
	stiction a, b;
	slc_err err;
	stiction_params p = stic_params(2);

	strands(2, 0.5 * EPS_S, x, seg);
	stiction_init(&a, 2 * NPT, 2 * (NPT - 1), seg, &p, &err);
	stiction_init(&b, 2 * NPT, 2 * (NPT - 1), seg, &p, &err);
	stiction_create(&a, x, &err);
	uint32_t *name = calloc(2 * a.nb + 2, sizeof *name);
	double *frac = calloc(2 * a.nb + 2, sizeof *frac);
	stiction_save(&a, name, frac);
	int ok = stiction_load(&b, a.nb, name, frac, &err) == 0 && b.nb == a.nb &&
		!memcmp(a.bseg, b.bseg, 2 * a.nb * sizeof *a.bseg) &&
		!memcmp(a.bfrac, b.bfrac, 2 * a.nb * sizeof *a.bfrac);
	CHECK(ok && a.nb > 0, "%zu bonds saved and loaded alike", a.nb);
	size_t nb = b.nb;
	uint32_t bad_name[2] = { (uint32_t)(NPT - 1), (uint32_t)NPT };
	double bad_frac[2] = { 0.5, 0.5 };
	CHECK(stiction_load(&b, 1, bad_name, bad_frac, &err) == -1 &&
	      strstr(err.msg, "starts no segment") && b.nb == nb,
	      "a strand's last point names no segment: '%s'", err.msg);
	uint32_t two[4] = { 0, (uint32_t)NPT, 0, (uint32_t)NPT };
	double ff[4] = { 0.5, 0.5, 0.5, 0.5 };
	CHECK(stiction_load(&b, 2, two, ff, &err) == -1 &&
	      strstr(err.msg, "twice") && b.nb == nb,
	      "a pair bonded twice is refused: '%s'", err.msg);
	free(name);
	free(frac);
	stiction_free(&a);
	stiction_free(&b);
}

int
main(void)
{
	test_bond();
	test_break();
	test_force();
	test_resist();
	test_save_load();
	return ctest_done();
}
