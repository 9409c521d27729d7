/* prim_hair.c: straight or curly (helical) hair strands rooted on a
 * spherical scalp, placed by a seeded pseudo-random sequence
 * (lib/core/rng.h; see prim.h).  Strands are sampled equally in
 * arclength, as the hair model of selle2008 thesis §7.3.1 takes them. */
#include "prim/prim.h"

#include "core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
prim_hair_spec_default(prim_hair_spec *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->nstrands = 200;
	sp->nseg = 16;
	sp->length = 0.3;
	sp->radius = 0.1;
	sp->cap_deg = PRIM_SCALP_CAP_DEG;
	sp->seed = 1;
}

void
prim_hair_free(prim_hair *h)
{
	free(h->P);
	memset(h, 0, sizeof *h);
}

/* Values out of range: -1 with err naming them. */
static int
check_spec(const prim_hair_spec *sp, slc_err *err)
{
	if (sp->nstrands < 1)
		return slc_fail(err, "strand count %zu, expected >= 1", sp->nstrands);
	if (sp->nseg < 1 || sp->nseg > PRIM_RES_MAX)
		return slc_fail(err, "segments per strand %d, expected 1..%d", sp->nseg,
				PRIM_RES_MAX);
	if (!(sp->length > 0) || !(sp->radius > 0) || !isfinite(sp->length) ||
	    !isfinite(sp->radius))
		return slc_fail(err, "strand length %g and scalp radius %g, expected > 0",
				sp->length, sp->radius);
	if (!(sp->jitter >= 0 && sp->jitter < 1))
		return slc_fail(err, "length jitter %g, expected 0 <= F < 1", sp->jitter);
	if (!(sp->cap_deg > 0 && sp->cap_deg <= 180))
		return slc_fail(err, "scalp cap %g degrees, expected 0 < DEG <= 180",
				sp->cap_deg);
	if (!(sp->curl_r >= 0 && isfinite(sp->curl_r)) ||
	    (sp->curl_r > 0 && !(sp->curl_pitch > 0 && isfinite(sp->curl_pitch))))
		return slc_fail(err, "curl radius %g and pitch %g, expected R >= 0 and, "
				"with R > 0, PITCH > 0", sp->curl_r, sp->curl_pitch);
	return 0;
}

/* Two unit vectors e1, e2 with (e1, e2, n) right-handed, e1 turned by
 * phase about n from n x (the world axis least aligned with n). */
static void
frame_about(const double n[3], double phase, double e1[3], double e2[3])
{
	double a[3] = { 0, 0, 0 }, u[3], w[3], l;
	int m = 0;

	for (int k = 1; k < 3; k++)
		if (fabs(n[k]) < fabs(n[m]))
			m = k;
	a[m] = 1;
	u[0] = n[1] * a[2] - n[2] * a[1];
	u[1] = n[2] * a[0] - n[0] * a[2];
	u[2] = n[0] * a[1] - n[1] * a[0];
	l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	for (int k = 0; k < 3; k++)
		u[k] /= l;
	w[0] = n[1] * u[2] - n[2] * u[1];
	w[1] = n[2] * u[0] - n[0] * u[2];
	w[2] = n[0] * u[1] - n[1] * u[0];
	for (int k = 0; k < 3; k++) {
		e1[k] = cos(phase) * u[k] + sin(phase) * w[k];
		e2[k] = cos(phase) * w[k] - sin(phase) * u[k];
	}
}

/* Strand points p[0..nseg] of length len from the scalp point along unit
 * normal n (root = c + radius n). */
static void
strand(const prim_hair_spec *sp, const double n[3], double len, double phase,
       double *p)
{
	const double *c = sp->c;
	const int nseg = sp->nseg;

	if (!(sp->curl_r > 0)) {
		for (int q = 0; q <= nseg; q++) {
			double l = sp->radius + len * q / nseg;
			for (int a = 0; a < 3; a++)
				p[3 * q + a] = c[a] + l * n[a];
		}
		return;
	}
	/* helix P(th) = root + R (e1 (cos th - 1) + e2 sin th) + n rise th:
	 * arclength R' th with R' = sqrt(R^2 + rise^2), so equal steps in
	 * th are equal steps in arclength */
	double e1[3], e2[3], R = sp->curl_r, rise = sp->curl_pitch / (2 * M_PI);
	double dth = len / nseg / sqrt(R * R + rise * rise);

	frame_about(n, phase, e1, e2);
	for (int q = 0; q <= nseg; q++) {
		double th = dth * q, cr = R * (cos(th) - 1), sr = R * sin(th);
		for (int a = 0; a < 3; a++)
			p[3 * q + a] = c[a] + sp->radius * n[a] + cr * e1[a] +
				       sr * e2[a] + rise * th * n[a];
	}
}

int
prim_hair_make(prim_hair *h, const prim_hair_spec *sp, slc_err *err)
{
	double cmin;
	rng g;
	size_t np;

	memset(h, 0, sizeof *h);
	if (check_spec(sp, err))
		return -1;
	if (slc_mul(sp->nstrands, (size_t)sp->nseg + 1, &np) || np > UINT32_MAX)
		return slc_fail(err, "%zu strands of %d segments are too many points",
				sp->nstrands, sp->nseg);
	h->P = slc_calloc(np, 3 * sizeof *h->P, err);
	if (!h->P)
		return -1;
	cmin = cos(sp->cap_deg * M_PI / 180);
	rng_init(&g, sp->seed);
	h->nstrands = sp->nstrands;
	h->nseg = sp->nseg;
	for (size_t s = 0; s < sp->nstrands; s++) {
		/* Archimedes: the height of a uniform point on a sphere is
		 * uniform, so y = cos(polar angle) uniform on [cmin, 1] and a
		 * uniform azimuth give a uniform density by area on the cap */
		double y = cmin + (1 - cmin) * rng_uniform(&g);
		double az = 2 * M_PI * rng_uniform(&g);
		double sxz = sqrt(fmax(0, 1 - y * y)), n[3], len = sp->length;
		double phase = 0;

		n[0] = sxz * cos(az);
		n[1] = y;
		n[2] = sxz * sin(az);
		/* further draws only when asked for, so that straight strands
		 * of one length keep their roots whatever is added */
		if (sp->jitter > 0)
			len *= 1 + sp->jitter * (2 * rng_uniform(&g) - 1);
		if (sp->curl_r > 0)
			phase = 2 * M_PI * rng_uniform(&g);
		strand(sp, n, len, phase, h->P + 3 * s * ((size_t)sp->nseg + 1));
	}
	return 0;
}
