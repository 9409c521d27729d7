/* test_collide_grid.c: grid collision bodies (lib/cloth/collide_grid.c).
 * The two-key body of selle2008 thesis §7.5.1 equals its keys exactly at
 * their times, and a sphere moved between keys is, midway, the midway
 * sphere (fig. 7.7c), where a plain blend of the keys (the same body with
 * no velocity) shrinks it at the sides; the one-key body is still
 * phi(x - (t - t_grid) vB). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/collide_body.h"
#include "ctest.h"

#define DX 0.05         /* cell size, m */
#define NC 32           /* cells a side */
#define R (8 * DX)      /* sphere radius */
#define MOVE (4 * DX)   /* the sphere's travel between the keys */
#define DT (1.0 / 60)   /* key spacing, s: the thesis' 60 Hz level sets */
#define NRAY 400        /* rays from the midway centre */

static const double O[3] = {0, 0, 0};

/* A cell-centred field of the signed distance to the sphere (c, R). */
static void
sphere_field(field *f, const double c[3])
{
	slc_err err;

	if (field_alloc(f, NC, NC, NC, SLC_CELL, O, DX, &err))
		abort();
	for (int k = 0; k < NC; k++)
		for (int j = 0; j < NC; j++)
			for (int i = 0; i < NC; i++) {
				double x[3];
				field_pos(f, i, j, k, x);
				f->a[FIELD_IDX(f, i, j, k)] = (float)(sqrt(
					pow(x[0] - c[0], 2) + pow(x[1] - c[1], 2) +
					pow(x[2] - c[2], 2)) - R);
			}
}

/* A constant field of value a on the same cells. */
static void
const_field(field *f, double a)
{
	slc_err err;

	if (field_alloc(f, NC, NC, NC, SLC_CELL, O, DX, &err))
		abort();
	for (size_t n = 0; n < field_count(f); n++)
		f->a[n] = (float)a;
}

static double
phi_at(const cloth_body *b, double t, const double x[3])
{
	double phi, N[3], vB[3];

	body_eval(b, t, x, &phi, N, vB);
	return phi;
}

/* Where, from c along unit d, the body's zero set lies at time t:
 * bisection between 4 and 12 cells. */
static double
zero_along(const cloth_body *b, double t, const double c[3], const double d[3])
{
	double lo = 4 * DX, hi = 12 * DX;

	for (int it = 0; it < 60; it++) {
		double s = 0.5 * (lo + hi), x[3];
		for (int k = 0; k < 3; k++)
			x[k] = c[k] + s * d[k];
		if (phi_at(b, t, x) < 0)
			lo = s;
		else
			hi = s;
	}
	return 0.5 * (lo + hi);
}

/* Ray n of NRAY spread evenly over the sphere (golden-angle spiral). */
static void
ray(int n, double d[3])
{
	double z = 1 - (2 * n + 1) / (double)NRAY, r = sqrt(1 - z * z);
	double a = n * M_PI * (3 - sqrt(5.0));

	d[0] = z;
	d[1] = r * cos(a);
	d[2] = r * sin(a);
}

/* The largest distance, over the rays, of the body's zero set at t from
 * the sphere (c, R); *side: the same over the rays within 10 degrees of
 * square to the motion (x). */
static double
sphere_error(const cloth_body *b, double t, const double c[3], double *side)
{
	double worst = 0;

	*side = 0;
	for (int n = 0; n < NRAY; n++) {
		double d[3], e;
		ray(n, d);
		e = fabs(zero_along(b, t, c, d) - R);
		if (e > worst)
			worst = e;
		if (fabs(d[0]) < sin(10 * M_PI / 180) && e > *side)
			*side = e;
	}
	return worst;
}

static void
test_two_sided_sphere(void)
{
	double c0[3] = {12 * DX, 16 * DX, 16 * DX}, c1[3], cm[3];
	field p0, p1, vx, zero;
	const field *vb[3], *vz[3];
	cloth_body b, blend;
	slc_err err;

	memcpy(c1, c0, sizeof c1);
	c1[0] += MOVE;
	memcpy(cm, c0, sizeof cm);
	cm[0] += 0.5 * MOVE;
	sphere_field(&p0, c0);
	sphere_field(&p1, c1);
	const_field(&vx, MOVE / DT);
	const_field(&zero, 0);
	vb[0] = &vx, vb[1] = vb[2] = NULL;
	vz[0] = vz[1] = vz[2] = &zero;
	CHECK(body_grid2_init(&b, &p0, vb, 1.0, &p1, vb, 1.0 + DT, 0.3, &err) == 0,
	      "two-key body");
	/* the plain blend of the keys: the same body without velocity */
	CHECK(body_grid2_init(&blend, &p0, vz, 1.0, &p1, NULL, 1.0 + DT, 0.3,
			      &err) == 0, "two-key body, still");

	/* exact at both keys, at points off the samples */
	int exact = 1;
	for (int n = 0; n < 200; n++) {
		double x[3] = {(3 + 0.137 * n) * DX, (9 + 0.071 * n) * DX,
			       (20 - 0.053 * n) * DX};
		if (phi_at(&b, 1.0, x) != field_sample(&p0, x) ||
		    phi_at(&b, 1.0 + DT, x) != field_sample(&p1, x))
			exact = 0;
	}
	CHECK(exact, "phi(x, 0) = phi^n and phi(x, 1) = phi^n+1 exactly");
	/* and continuous into the keys: within a hair of them just inside */
	double x[3] = {21 * DX, 17.3 * DX, 15.2 * DX}, eps = 1e-9 * DT;
	CHECK(fabs(phi_at(&b, 1.0 + eps, x) - field_sample(&p0, x)) < 1e-6 * DX &&
	      fabs(phi_at(&b, 1.0 + DT - eps, x) - field_sample(&p1, x)) < 1e-6 * DX,
	      "continuous at the keys");

	double side, side_bl;
	double err2 = sphere_error(&b, 1.0 + 0.5 * DT, cm, &side);
	double errb = sphere_error(&blend, 1.0 + 0.5 * DT, cm, &side_bl);
	CHECK(err2 < 0.1 * DX, "two-sided midway zero set within %.4f dx of the midway sphere (< 0.1), sides %.4f dx",
	      err2 / DX, side / DX);
	CHECK(side_bl > 0.2 * DX && side_bl < 0.3 * DX,
	      "linear blend off by %.4f dx at the sides (about 0.25), %.4f dx at most",
	      side_bl / DX, errb / DX);

	/* normal outward from the midway centre, velocity the body's */
	double ok_n = 1, phi, N[3], vB[3], d[3];
	for (int n = 0; n < NRAY; n += 7) {
		ray(n, d);
		for (int k = 0; k < 3; k++)
			x[k] = cm[k] + R * d[k];
		body_eval(&b, 1.0 + 0.5 * DT, x, &phi, N, vB);
		double dot = N[0] * d[0] + N[1] * d[1] + N[2] * d[2];
		if (!(dot > cos(3 * M_PI / 180)) || vB[0] != (double)(float)(MOVE / DT) ||
		    vB[1] != 0 || vB[2] != 0)
			ok_n = 0;
	}
	CHECK(ok_n, "midway normals radial within 3 degrees, vB the sphere's");

	field_free(&p0);
	field_free(&p1);
	field_free(&vx);
	field_free(&zero);
}

/* v_B = (1 - alpha) v^n + alpha v^n+1; outside the keys each key moves
 * by its own velocity. */
static void
test_two_sided_velocity(void)
{
	double c[3] = {16 * DX, 16 * DX, 16 * DX};
	field p, va, vb_, vc;
	const field *v0[3], *v1[3];
	cloth_body b;
	slc_err err;
	double x[3] = {16.2 * DX, 25.1 * DX, 15.7 * DX}, phi, N[3], vB[3];

	sphere_field(&p, c);
	const_field(&va, 1.0);
	const_field(&vb_, 3.0);
	const_field(&vc, -2.0);
	v0[0] = &va, v0[1] = NULL, v0[2] = &vc;
	v1[0] = &vb_, v1[1] = &vc, v1[2] = NULL;
	CHECK(body_grid2_init(&b, &p, v0, 0, &p, v1, 0.1, 0, &err) == 0, "keys");
	body_eval(&b, 0.025, x, &phi, N, vB);
	CHECK(fabs(vB[0] - 1.5) < 1e-12 && fabs(vB[1] + 0.5) < 1e-12 &&
	      fabs(vB[2] + 1.5) < 1e-12, "vB at alpha 1/4: %g %g %g", vB[0],
	      vB[1], vB[2]);
	/* after the second key: phi1(x - (t - t1) v1(x)) */
	double xs[3] = {x[0] - 0.05 * 3.0, x[1] + 0.05 * 2.0, x[2]};
	body_eval(&b, 0.15, x, &phi, N, vB);
	CHECK(fabs(phi - field_sample(&p, xs)) < 1e-12 && vB[0] == 3 && vB[1] == -2,
	      "after the last key the last key moves on");
	xs[0] = x[0] + 0.05 * 1.0, xs[1] = x[1], xs[2] = x[2] - 0.05 * 2.0;
	body_eval(&b, -0.05, x, &phi, N, vB);
	CHECK(fabs(phi - field_sample(&p, xs)) < 1e-12, "before the first key the first key moves");
	CHECK(body_grid2_init(&b, &p, v0, 0.1, &p, v1, 0.1, 0, &err) == -1,
	      "keys at one time rejected: %s", err.msg);
	field_free(&p);
	field_free(&va);
	field_free(&vb_);
	field_free(&vc);
}

/* The one-key body: phi_grid(x - (t - t_grid) vB(x)). */
static void
test_one_key(void)
{
	double c[3] = {16 * DX, 16 * DX, 16 * DX}, x[3] = {20.3 * DX, 17 * DX, 14 * DX};
	double xs[3], phi, N[3], vB[3], g[3];
	field p, v;
	const field *vb[3];
	cloth_body b;

	sphere_field(&p, c);
	const_field(&v, 0.5);
	vb[0] = NULL, vb[1] = &v, vb[2] = NULL;
	body_grid_init(&b, &p, vb, 2.0, 0.1);
	body_eval(&b, 2.25, x, &phi, N, vB);
	memcpy(xs, x, sizeof xs);
	xs[1] -= 0.25 * 0.5;
	field_gradient(&p, xs, g);
	double l = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
	CHECK(phi == field_sample(&p, xs) && vB[1] == 0.5 && vB[0] == 0 &&
	      fabs(N[0] - g[0] / l) < 1e-15 && fabs(N[1] - g[1] / l) < 1e-15,
	      "one key moved by its velocity");
	field_free(&p);
	field_free(&v);
}

int
main(void)
{
	test_two_sided_sphere();
	test_two_sided_velocity();
	test_one_key();
	return ctest_done();
}
