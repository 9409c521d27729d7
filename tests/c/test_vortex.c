/* test_vortex.c: vortex particles (selle2008 thesis §3.3-3.4): kernels,
 * stretching with magnitude kept, motion, seeding, culling and the
 * per-particle confinement force against closed forms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "fluid/vortex.h"

static void
fill(macgrid *m, double gam, double c0)
{
	int a, i, j, k;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(m, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					/* a shear u = c0 + gam y, v = w = 0 */
					f->a[FIELD_IDX(f, i, j, k)] = (float)(a == 0 ? c0 + gam * x[1] : 0);
				}
	}
}

/* Add n particles at x with vorticity w to r. */
static void
put(slc_rec *r, size_t n, const double *x, const double *w)
{
	slc_err err;
	size_t p;
	float *P, *W;

	slc_rec_free(r);
	slc_rec_init(r, SLC_PARTICLES, "vortex");
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, n, &err);
	W = slc_rec_add(r, "omega", SLC_F32, 3, SLC_POINT, n, &err);
	for (p = 0; p < 3 * n; p++) {
		P[p] = (float)x[p];
		W[p] = (float)w[p];
	}
}

int
main(void)
{
	const double org[3] = { 0, 0, 0 }, dx = 0.05;
	macgrid m;
	slc_rec r;
	slc_err err;
	vortex_opts o = { 0, 2e-3, 4, VORTEX_GAUSSIAN, 1 };
	double sum[2] = { 0, 0 }, h = 0.01, R = 0.2;
	int i, j, k, kern;

	/* kernels: the tent integrates to one; the clamped Gaussian to
	 * P(chi_3 <= 1) = erf(1/sqrt 2) - sqrt(2/pi) e^(-1/2) = 0.1987 */
	for (kern = 0; kern < 2; kern++)
		for (k = -25; k < 25; k++)
			for (j = -25; j < 25; j++)
				for (i = -25; i < 25; i++) {
					double d = h * sqrt((i + 0.5) * (i + 0.5) + (j + 0.5) * (j + 0.5) +
							    (k + 0.5) * (k + 0.5));

					sum[kern] += vortex_kernel(kern, d, R) * h * h * h;
				}
	CHECK(fabs(sum[1] - 1) < 0.01, "tent kernel integrates to 1 (%.4f)", sum[1]);
	CHECK(fabs(sum[0] - (erf(1 / sqrt(2)) - sqrt(2 / M_PI) * exp(-0.5))) < 0.01,
	      "clamped gaussian integrates to P(|X| <= r) (%.4f)", sum[0]);
	CHECK(vortex_kernel(0, 0.21, 0.2) == 0 && vortex_kernel(1, 0.2, 0.2) == 0,
	      "kernels vanish at and beyond r");

	/* stretching in a shear u = 0.3 + 2 y: omega = (0,1,0) tilts toward x
	 * by dt (omega . grad) u = (2 dt, 0, 0), magnitude kept; the particle
	 * moves with u */
	mac_alloc(&m, 20, 20, 20, org, dx, &err);
	fill(&m, 2, 0.3);
	memset(&r, 0, sizeof r);
	put(&r, 1, (double[3]){ 0.5, 0.5, 0.5 }, (double[3]){ 0, 1.5, 0 });
	CHECK(vortex_check(&r, &err) == 0, "vortex record checks");
	vortex_step(&r, &m, 0.1);
	{
		const float *P = slc_rec_find(&r, "P")->data, *W = slc_rec_find(&r, "omega")->data;
		double mag = sqrt(W[0] * W[0] + W[1] * W[1] + W[2] * W[2]);

		CHECK(fabs(mag - 1.5) < 1e-6 && fabs(W[0] / W[1] - 0.2) < 1e-5 && W[2] == 0,
		      "stretch and tilt: omega (%.4f %.4f %.4f), |omega| kept", W[0], W[1], W[2]);
		CHECK(fabs(P[0] - (0.5 + 0.1 * 1.3)) < 1e-6 && fabs(P[1] - 0.5) < 1e-6,
		      "particle moves with the velocity (%.5f, %.5f)", P[0], P[1]);
	}

	/* confinement force of one particle, omega = (0,0,W): at a v face at
	 * x_p - (d,0,0), N = +x and F = eps xi(d) W (x cross z) = -eps xi W y */
	{
		macgrid z;
		double W = 3e-3, xp[3] = { 0.5, 0.5, 0.5 };
		int bad = 0, nchk = 0;
		size_t s;

		mac_alloc(&z, 20, 20, 20, org, dx, &err);
		put(&r, 1, xp, (double[3]){ 0, 0, W });
		o.eps = 2;
		vortex_force(&r, &z, &o, 0.5);
		for (i = 0; i < z.v.ni; i++) {
			double y[3], d, want, got;

			field_pos(&z.v, i, 10, 10, y);
			got = z.v.a[FIELD_IDX(&z.v, i, 10, 10)];
			/* the v face row at y = 0.5 (j = 10), z = 0.525 */
			d = sqrt((y[0] - 0.5) * (y[0] - 0.5) + (y[2] - 0.5) * (y[2] - 0.5));
			want = -0.5 * o.eps * vortex_kernel(o.kernel, d, o.radius * dx) * W *
			       (xp[0] - y[0]) / d;
			bad += fabs(got - want) > 1e-6 * fabs(want) + 1e-12;
			nchk += want != 0;
		}
		for (s = 0; s < field_count(&z.w); s++)
			bad += z.w.a[s] != 0;       /* N x z has no z part */
		CHECK(bad == 0 && nchk >= 6, "particle force eps N x xi omega (%d faces checked)", nchk);
		mac_free(&z);
	}

	/* seeding: count, inside the region, magnitude, tangent, repeatable */
	{
		field reg;
		slc_rec r2;
		const float *P, *Wv;
		size_t n, p;
		int inside = 1, tangent = 1, same;

		field_alloc(&reg, 20, 20, 20, SLC_CELL, org, dx, &err);
		for (k = 0; k < 20; k++)
			for (j = 0; j < 20; j++)
				for (i = 0; i < 20; i++) {
					double y[3];

					field_pos(&reg, i, j, k, y);
					reg.a[FIELD_IDX(&reg, i, j, k)] = (float)(sqrt((y[0] - 0.5) * (y[0] - 0.5) +
						(y[1] - 0.3) * (y[1] - 0.3) + (y[2] - 0.5) * (y[2] - 0.5)) - 0.15);
				}
		vortex_new(&r2, &err);
		o.rate = 1000;
		vortex_seed(&r2, &reg, &o, 0.1, 7, 1, &err);
		vortex_seed(&r2, &reg, &o, 0.1, 7, 2, &err);
		P = slc_rec_find(&r2, "P")->data;
		Wv = slc_rec_find(&r2, "omega")->data;
		n = (size_t)slc_rec_find(&r2, "P")->count;
		for (p = 0; p < n; p++) {
			double y[3] = { P[3 * p], P[3 * p + 1], P[3 * p + 2] };
			double mag = sqrt(Wv[3 * p] * Wv[3 * p] + Wv[3 * p + 2] * Wv[3 * p + 2]);

			inside &= field_sample(&reg, y) < 0;
			tangent &= fabs(mag - o.omega) < 1e-9 && Wv[3 * p + 1] == 0 &&
				   fabs(Wv[3 * p] * (y[0] - 0.5) + Wv[3 * p + 2] * (y[2] - 0.5)) < 1e-3 * o.omega;
		}
		CHECK(n == 200, "seeding: rate * dt particles per call (%zu)", n);
		CHECK(inside && tangent, "seeded inside the region, tangent to the cylinder, |omega| as asked");
		put(&r, 0, NULL, NULL);
		vortex_seed(&r, &reg, &o, 0.1, 7, 1, &err);
		vortex_seed(&r, &reg, &o, 0.1, 7, 2, &err);
		same = memcmp(slc_rec_find(&r, "P")->data, P, n * 12) == 0;
		CHECK(same, "seeding repeats with the same seed");
		/* culling: the region as a solid removes them all */
		vortex_cull(&r2, &reg, &err);
		CHECK(slc_rec_find(&r2, "P")->count == 0 && slc_rec_find(&r2, "omega")->count == 0,
		      "particles inside a solid are deleted");
		slc_rec_free(&r2);
		field_free(&reg);
	}
	slc_rec_free(&r);
	mac_free(&m);
	return ctest_done();
}
