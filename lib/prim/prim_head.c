/* prim_head.c: the turning and nodding head of prim_head.h, its pose as a
 * one-bone skeleton, and rigid motion of points by a bone's matrix. */
#include "prim/prim_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"

/* Where an interval t0..t1 is at t: 0 before, 1 after, else (t-t0)/(t1-t0);
 * *dudt its rate (0 outside). */
static double
progress(double t, double t0, double t1, double *dudt)
{
	*dudt = 0;
	if (t <= t0)
		return 0;
	if (t >= t1)
		return 1;
	*dudt = 1 / (t1 - t0);
	return (t - t0) / (t1 - t0);
}

void
prim_head_angles(const prim_head *h, double t, double ang[2], double rate[2])
{
	const double deg = M_PI / 180;
	double du, u = progress(t, h->turn[1], h->turn[2], &du);

	/* smootherstep: still, then turning, then still with no jerk at
	 * either end */
	ang[0] = h->turn[0] * deg * u * u * u * (10 + u * (6 * u - 15));
	rate[0] = h->turn[0] * deg * 30 * u * u * (1 - u) * (1 - u) * du;
	u = progress(t, h->nod[1], h->nod[2], &du);
	ang[1] = h->nod[0] * deg * sin(M_PI * u) * sin(M_PI * u);
	rate[1] = h->nod[0] * deg * M_PI * sin(2 * M_PI * u) * du;
}

/* Rotation by a about axis ax (0 x, 1 y), and its derivative in a. */
static void
rot(int ax, double a, double R[9], double dR[9])
{
	int u = (ax + 1) % 3, v = (ax + 2) % 3;

	memset(R, 0, 9 * sizeof *R);
	memset(dR, 0, 9 * sizeof *dR);
	R[4 * ax] = 1;
	R[3 * u + u] = R[3 * v + v] = cos(a);
	R[3 * u + v] = -sin(a);
	R[3 * v + u] = sin(a);
	dR[3 * u + u] = dR[3 * v + v] = -sin(a);
	dR[3 * u + v] = -cos(a);
	dR[3 * v + u] = cos(a);
}

/* C = A B (3x3) */
static void
mul3(const double A[9], const double B[9], double C[9])
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] +
				       A[3 * i + 2] * B[6 + j];
}

/* y = A x (3x3 times 3) */
static void
mulv(const double A[9], const double x[3], double y[3])
{
	for (int i = 0; i < 3; i++)
		y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

void
prim_head_pose(const prim_head *h, double t, double M[12], double Mdot[12])
{
	double ang[2], rate[2], Ry[9], dRy[9], Rx[9], dRx[9];
	double A[9], dA[9], T1[9], T2[9], n[3], Rxn[3], d[3], w[3];
	double e[3], f[3], g[3];

	prim_head_angles(h, t, ang, rate);
	rot(1, ang[0], Ry, dRy);
	rot(0, ang[1], Rx, dRx);
	for (int i = 0; i < 9; i++) {
		dRy[i] *= rate[0];
		dRx[i] *= rate[1];
	}
	memcpy(n, h->c, sizeof n);
	n[1] -= h->r;
	/* x = Ry (Rx (X - n) + n - c) + c = A X + Ry (n - c - Rx n) + c */
	mul3(Ry, Rx, A);
	mul3(dRy, Rx, T1);
	mul3(Ry, dRx, T2);
	for (int i = 0; i < 9; i++)
		dA[i] = T1[i] + T2[i];
	mulv(Rx, n, Rxn);
	for (int i = 0; i < 3; i++)
		d[i] = n[i] - h->c[i] - Rxn[i];
	mulv(Ry, d, e);
	mulv(dRy, d, f);
	mulv(dRx, n, w);
	mulv(Ry, w, g);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			M[4 * i + j] = A[3 * i + j];
			Mdot[4 * i + j] = dA[3 * i + j];
		}
		M[4 * i + 3] = e[i] + h->c[i];
		Mdot[4 * i + 3] = f[i] - g[i];
	}
}

void
prim_rigid_apply(const double M[12], const double *X, size_t n, double *x)
{
	for (size_t p = 0; p < n; p++)
		for (int i = 0; i < 3; i++)
			x[3 * p + i] = M[4 * i] * X[3 * p] + M[4 * i + 1] * X[3 * p + 1] +
				       M[4 * i + 2] * X[3 * p + 2] + M[4 * i + 3];
}

int
prim_bone_read(const slc_rec *skel, int b, double M[12], slc_err *err)
{
	char key[32], val[1024], *s, *end;

	snprintf(key, sizeof key, "bone.%d", b);
	if (!slc_meta_get(skel, key, val, sizeof val))
		return slc_fail(err, "meta '%s': no key %s", skel->name, key);
	s = val;
	for (int k = 0; k < 12; k++) {
		M[k] = strtod(s, &end);
		if (end == s || !isfinite(M[k]) || (k < 11 ? *end != ',' : *end != '\0'))
			return slc_fail(err, "meta '%s': %s: expected 12 "
					"comma-separated finite numbers", skel->name, key);
		s = end + 1;
	}
	return 0;
}

/* Channel name of hr moved by M into channel goal (f64 x3, domain). */
static int
move_chan(slc_rec *hr, const char *name, const char *goal, uint32_t domain,
	  const double M[12], slc_err *err)
{
	uint64_t n;
	double *X = slc_rec_get_f64(hr, name, 3, &n, err), *x;

	if (!X)
		return slc_failctx(err, "record '%s': ", hr->name);
	if (slc_rec_remove(hr, goal) ||
	    !(x = slc_rec_add(hr, goal, SLC_F64, 3, domain, n, err))) {
		free(X);
		return slc_failctx(err, "record '%s': ", hr->name);
	}
	prim_rigid_apply(M, X, n, x);
	free(X);
	return 0;
}

int
prim_rigid_goals(slc_rec *hr, const double M[12], slc_err *err)
{
	if (move_chan(hr, slc_rec_find(hr, "rest") ? "rest" : "P", "goal",
		      SLC_POINT, M, err))
		return -1;
	if (slc_rec_find(hr, "virt_rest") &&
	    move_chan(hr, "virt_rest", "virt_goal", SLC_DETAIL, M, err))
		return -1;
	return 0;
}
