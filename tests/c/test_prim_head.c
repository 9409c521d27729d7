/* test_prim_head.c: the head of lib/prim/prim_head.h: its schedule's
 * angles at known times, its pose (a rotation about the right points, Mdot
 * the derivative of M), hair goals moved rigidly with it, the bone read
 * back from a skeleton record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/meta.h"
#include "prim/prim_head.h"
#include "ctest.h"

static const double deg = M_PI / 180;

/* x = Ry(yaw) (Rx(pitch) (X - n) + n - c) + c, written out apart from
 * prim_head.c */
static void
by_hand(const prim_head *h, double yaw, double pitch, const double X[3], double x[3])
{
	double n[3] = { h->c[0], h->c[1] - h->r, h->c[2] }, a[3], b[3];

	for (int i = 0; i < 3; i++)
		a[i] = X[i] - n[i];
	b[0] = a[0];
	b[1] = cos(pitch) * a[1] - sin(pitch) * a[2];
	b[2] = sin(pitch) * a[1] + cos(pitch) * a[2];
	for (int i = 0; i < 3; i++)
		b[i] += n[i] - h->c[i];
	x[0] = cos(yaw) * b[0] + sin(yaw) * b[2] + h->c[0];
	x[1] = b[1] + h->c[1];
	x[2] = -sin(yaw) * b[0] + cos(yaw) * b[2] + h->c[2];
}

int
main(void)
{
	prim_head h = { { 0.1, 1.6, -0.2 }, 0.1, { 60, 0.5, 1.5 }, { 20, 1, 2 } };
	double ang[2], rate[2], M[12], Md[12], Mp[12], Mm[12], Dm[12], err = 0;
	slc_err e;

	prim_head_angles(&h, 0.25, ang, rate);
	CHECK(ang[0] == 0 && ang[1] == 0 && rate[0] == 0 && rate[1] == 0,
	      "still before the turn and the nod");
	prim_head_angles(&h, 1.0, ang, rate);
	CHECK(fabs(ang[0] - 30 * deg) < 1e-15 && fabs(rate[0] - 60 * deg * 1.875) < 1e-12 &&
	      ang[1] == 0, "half the turn at mid-turn, at 1.875 times the mean rate");
	prim_head_angles(&h, 1.25, ang, rate);
	CHECK(fabs(ang[1] - 10 * deg) < 1e-15 && fabs(rate[1] - 20 * deg * M_PI) < 1e-12,
	      "nod: half way down at a quarter, rate pi times the amplitude: %g", ang[1] / deg);
	prim_head_angles(&h, 1.5, ang, rate);
	CHECK(fabs(ang[0] - 60 * deg) < 1e-15 && rate[0] == 0 && fabs(ang[1] - 20 * deg) < 1e-15 &&
	      fabs(rate[1]) < 1e-12, "turn done and still, nod at its lowest");
	prim_head_angles(&h, 3, ang, rate);
	CHECK(fabs(ang[0] - 60 * deg) < 1e-15 && fabs(ang[1]) < 1e-15 && rate[0] == 0 &&
	      rate[1] == 0, "stopped after the schedule");

	/* the pose against the rotations written out, and its derivative
	 * against central differences */
	for (double t = 0; t <= 2.5; t += 0.125) {
		const double X[3] = { 0.13, 1.72, -0.15 };
		double x[3], y[3], a[2], r[2];

		prim_head_angles(&h, t, a, r);
		prim_head_pose(&h, t, M, Md);
		prim_rigid_apply(M, X, 1, x);
		by_hand(&h, a[0], a[1], X, y);
		for (int i = 0; i < 3; i++)
			err = fmax(err, fabs(x[i] - y[i]));
	}
	CHECK(err < 1e-14, "M X = Ry (Rx (X - neck) + neck - c) + c: %g", err);
	err = 0;
	/* away from the ends of the nod, where its second derivative jumps */
	for (double t = 0.33; t <= 2.2; t += 0.1) {
		prim_head_pose(&h, t, M, Md);
		prim_head_pose(&h, t + 1e-6, Mp, Dm);
		prim_head_pose(&h, t - 1e-6, Mm, Dm);
		for (int k = 0; k < 12; k++)
			err = fmax(err, fabs(Md[k] - (Mp[k] - Mm[k]) / 2e-6));
	}
	CHECK(err < 1e-7, "Mdot is dM/dt: %g", err);

	/* roots moved rigidly: goal = M rest, every distance kept */
	{
		double rest[3 * 5] = { 0.1, 1.7, -0.2, 0.15, 1.65, -0.18, 0.05, 1.62, -0.1,
				       0.1, 1.5, -0.3, 0.2, 1.6, -0.2 };
		double vrest[3] = { 0.12, 1.68, -0.25 }, d0, d1, derr = 0, gerr = 0;
		uint32_t off[2] = { 0, 5 };
		slc_rec r;
		const double *g, *vg;
		uint64_t n;

		prim_head_pose(&h, 1.3, M, Md);
		slc_rec_init(&r, SLC_STRANDS, "hair");
		memcpy(slc_rec_add(&r, "rest", SLC_F64, 3, SLC_POINT, 5, &e), rest, sizeof rest);
		memcpy(slc_rec_add(&r, "P", SLC_F64, 3, SLC_POINT, 5, &e), rest, sizeof rest);
		memcpy(slc_rec_add(&r, "offset", SLC_U32, 1, SLC_STRAND, 2, &e), off, sizeof off);
		memcpy(slc_rec_add(&r, "virt_rest", SLC_F64, 3, SLC_DETAIL, 1, &e), vrest,
		       sizeof vrest);
		CHECK(prim_rigid_goals(&r, M, &e) == 0, "goals set");
		g = slc_rec_get(&r, "goal", SLC_F64, 3, 5, &e);
		vg = slc_rec_get(&r, "virt_goal", SLC_F64, 3, 1, &e);
		CHECK(g && vg, "goal and virt_goal written");
		for (int p = 0; g && vg && p < 6; p++) {
			const double *X = p < 5 ? rest + 3 * p : vrest, *x = p < 5 ? g + 3 * p : vg;
			double y[3], a[2], rt[2];

			prim_head_angles(&h, 1.3, a, rt);
			by_hand(&h, a[0], a[1], X, y);
			for (int i = 0; i < 3; i++)
				gerr = fmax(gerr, fabs(x[i] - y[i]));
			for (int q = 0; q < 5; q++) {
				d0 = d1 = 0;
				for (int i = 0; i < 3; i++) {
					d0 += pow(X[i] - rest[3 * q + i], 2);
					d1 += pow(x[i] - g[3 * q + i], 2);
				}
				derr = fmax(derr, fabs(sqrt(d0) - sqrt(d1)));
			}
		}
		CHECK(gerr < 1e-12 && derr < 1e-12, "roots and virtual moved rigidly with the head: "
		      "%g from the pose, distances kept to %g", gerr, derr);
		(void)n;
		slc_rec_free(&r);
	}

	/* the bone read back from a skeleton record, to the last bit */
	{
		slc_rec sk;
		char val[512] = "";
		double B[12];

		slc_meta_init(&sk, "skeleton", &e);
		for (int k = 0; k < 12; k++)
			snprintf(val + strlen(val), sizeof val - strlen(val), "%s%.17g",
				 k ? "," : "", M[k]);
		slc_meta_set(&sk, "bone.0", val, &e);
		CHECK(prim_bone_read(&sk, 0, B, &e) == 0 && !memcmp(B, M, sizeof B),
		      "bone.0 read back exactly");
		CHECK(prim_bone_read(&sk, 1, B, &e) == -1 && strstr(e.msg, "bone.1"),
		      "a missing bone named: %s", e.msg);
		slc_meta_set(&sk, "bone.0", "1,2,3", &e);
		CHECK(prim_bone_read(&sk, 0, B, &e) == -1, "a bone of 3 numbers refused: %s", e.msg);
		slc_rec_free(&sk);
	}
	return ctest_done();
}
