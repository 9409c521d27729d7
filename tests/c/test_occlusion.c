/* test_occlusion.c: the occlusion fields (lib/geom/occlusion.c): velocity of
 * the nearest surface point, houston2003 §2 union, and the level set
 * between frames of selle2008 §7.5.1 against a translating sphere. */
#include <math.h>
#include <stdlib.h>

#include "ctest.h"
#include "meshgen.h"
#include "geom/occlusion.h"
#include "geom/sdf.h"

#define N 32
#define R 0.25

static void
sphere_field(field *f, const double c[3])
{
	for (int k = 0; k < f->nk; k++)
		for (int j = 0; j < f->nj; j++)
			for (int i = 0; i < f->ni; i++) {
				double x[3];
				field_pos(f, i, j, k, x);
				f->a[FIELD_IDX(f, i, j, k)] = (float)(sqrt(
					(x[0] - c[0]) * (x[0] - c[0]) +
					(x[1] - c[1]) * (x[1] - c[1]) +
					(x[2] - c[2]) * (x[2] - c[2])) - R);
			}
}

static void
test_between_frames(void)
{
	double org[3] = { -0.5, -0.5, -0.5 }, dx = 1.0 / N, dt = 0.04;
	double v[3] = { 4.0, -1.0, 0.5 }, c0[3] = { -0.05, 0.02, 0 }, c1[3];
	field p0, p1, out, truth;
	float *vel = calloc((size_t)N * N * N * 3, sizeof *vel);
	double err_sl = 0, err_lerp = 0;
	slc_err err;

	for (int m = 0; m < 3; m++)
		c1[m] = c0[m] + v[m] * dt;
	for (size_t q = 0; q < (size_t)N * N * N; q++)
		for (int m = 0; m < 3; m++)
			vel[3 * q + m] = (float)v[m];
	field_alloc(&p0, N, N, N, SLC_CELL, org, dx, NULL);
	field_alloc(&p1, N, N, N, SLC_CELL, org, dx, NULL);
	field_alloc(&out, N, N, N, SLC_CELL, org, dx, NULL);
	field_alloc(&truth, N, N, N, SLC_CELL, org, dx, NULL);
	sphere_field(&p0, c0);
	sphere_field(&p1, c1);
	double cm[3] = { c0[0] + 0.5 * v[0] * dt, c0[1] + 0.5 * v[1] * dt,
			 c0[2] + 0.5 * v[2] * dt };
	sphere_field(&truth, cm);
	CHECK(occlusion_at(&p0, vel, &p1, vel, dt, 0.5, &out, &err) == 0,
	      "between frames: succeeds");
	for (size_t q = 0; q < (size_t)N * N * N; q++) {
		if (fabs(truth.a[q]) > 3 * dx)
			continue;
		err_sl = fmax(err_sl, fabs(out.a[q] - truth.a[q]));
		err_lerp = fmax(err_lerp, fabs(0.5 * (p0.a[q] + p1.a[q]) - truth.a[q]));
	}
	CHECK(err_sl < 0.05 * dx,
	      "§7.5.1 at alpha 1/2: %.4f dx from the moved sphere near the surface",
	      err_sl / dx);
	CHECK(err_lerp > 5 * err_sl,
	      "plain blending of the frames is worse (%.4f dx)", err_lerp / dx);
	CHECK(occlusion_at(&p0, vel, &p1, vel, dt, 0, &out, NULL) == 0 &&
	      out.a[1234] == p0.a[1234], "alpha 0 gives frame n");
	CHECK(occlusion_at(&p0, vel, &p1, vel, dt, 1.5, &out, &err) == -1,
	      "alpha outside [0,1] refused: %s", err.msg);
	field_free(&p0);
	field_free(&p1);
	field_free(&out);
	field_free(&truth);
	free(vel);
}

static void
test_velocity_union(void)
{
	tmesh m;
	double c[3] = { 0.1, 0, 0 }, org[3] = { -0.5, -0.5, -0.5 };
	field phi, phib;
	int32_t *cl;
	double *V;
	float *vel, *velb, *slip;
	sdf_opts o = { 3, 0, 0 };
	size_t n, bad = 0, checked = 0;

	icosphere(&m, 2, 0.2, c);
	field_alloc(&phi, 24, 24, 24, SLC_CELL, org, 1.0 / 24, NULL);
	field_alloc(&phib, 24, 24, 24, SLC_CELL, org, 1.0 / 24, NULL);
	n = field_count(&phi);
	cl = calloc(n, sizeof *cl);
	vel = calloc(3 * n, sizeof *vel);
	velb = calloc(3 * n, sizeof *velb);
	slip = calloc(n, sizeof *slip);
	V = calloc(3 * m.nv, sizeof *V);
	/* a rigid rotation about the y axis through c: v = w x (P - c) */
	for (size_t p = 0; p < m.nv; p++) {
		V[3 * p] = 3 * (m.P[3 * p + 2] - c[2]);
		V[3 * p + 2] = -3 * (m.P[3 * p] - c[0]);
	}
	sdf_mesh(&phi, m.P, m.nv, m.tri, m.nt, &o, cl, NULL, NULL);
	occlusion_velocity(&phi, m.P, V, m.tri, cl, vel);
	/* near the surface, the velocity is the rotation at the closest
	 * surface point: tangential, |v| = 3 * distance from the axis */
	for (int k = 0; k < 24; k++)
		for (int j = 0; j < 24; j++)
			for (int i = 0; i < 24; i++) {
				size_t q = FIELD_IDX(&phi, i, j, k);
				double x[3], rx, rz, r, s;
				field_pos(&phi, i, j, k, x);
				rx = x[0] - c[0], rz = x[2] - c[2];
				r = sqrt(rx * rx + rz * rz);
				if (fabs(phi.a[q]) > phi.dx || r < 0.05)
					continue;
				/* scale to the surface point, |x - c| -> ~R */
				s = 0.2 / sqrt(rx * rx + rz * rz + pow(x[1] - c[1], 2));
				checked++;
				if (fabs(vel[3 * q] - 3 * rz * s) > 0.05 ||
				    fabs(vel[3 * q + 2] + 3 * rx * s) > 0.05 ||
				    fabs(vel[3 * q + 1]) > 1e-6)
					bad++;
			}
	CHECK(bad == 0 && checked > 500,
	      "velocity of the nearest surface point (%zu of %zu bad)", bad, checked);
	/* union with a still second object (a plane y = 0.1, slip 0.7):
	 * each sample keeps the object with the smaller level set */
	float *phi0 = calloc(n, sizeof *phi0), *vel0 = calloc(3 * n, sizeof *vel0);
	size_t nb = 0;
	for (size_t q = 0; q < n; q++) {
		double x[3];
		field_pos(&phib, (int)(q % 24), (int)(q / 24 % 24), (int)(q / 576), x);
		phib.a[q] = (float)(x[1] - 0.1);
		phi0[q] = phi.a[q];
		for (int a = 0; a < 3; a++)
			vel0[3 * q + a] = vel[3 * q + a];
	}
	occlusion_union(n, phi.a, vel, slip, phib.a, velb, 0.7f);
	bad = 0;
	for (size_t q = 0; q < n; q++) {
		int b_wins = phib.a[q] < phi0[q];
		nb += b_wins;
		if (phi.a[q] != fminf(phi0[q], phib.a[q]) ||
		    (b_wins ? slip[q] != 0.7f || vel[3 * q] != 0 || vel[3 * q + 2] != 0
			    : slip[q] != 0 || vel[3 * q] != vel0[3 * q] ||
			      vel[3 * q + 2] != vel0[3 * q + 2]))
			bad++;
	}
	CHECK(nb > n / 4 && nb < n, "both objects win somewhere (%zu of %zu)", nb, n);
	free(phi0);
	free(vel0);
	CHECK(bad == 0, "union takes the smaller level set with its velocity and slip");
	field_free(&phi);
	field_free(&phib);
	free(cl);
	free(vel);
	free(velb);
	free(slip);
	free(V);
	tmesh_free(&m);
}

int
main(void)
{
	test_between_frames();
	test_velocity_union();
	return ctest_done();
}
