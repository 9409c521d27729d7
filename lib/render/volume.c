/* volume.c: smoke density volume rendering: ray marching with absorption
 * and single scattering of one directional light (the emission-absorption
 * model with in-scattering; shadowing by the optical depth towards the
 * light, swept once over the grid). */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_sample.h"

/* March step in cells: half a cell samples every cell at least twice. */
#define VOLUME_STEP_CELLS 0.5
/* Stop a ray once less than this fraction of the light behind gets
 * through. */
#define VOLUME_T_MIN 1e-4

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Bilinear value at (s, t) in sample units of plane data q (n0 x n1,
 * strides s0, s1 in the grid); 0 outside the plane (no smoke beyond the
 * grid). */
static double
plane_sample(const float *q, int n0, int n1, size_t s0, size_t s1, double s,
	     double t)
{
	int i, j;
	double a, b, v00, v10, v01, v11;

	if (!(s >= 0) || !(t >= 0) || s > n0 - 1 || t > n1 - 1)
		return 0;
	i = (int)s;
	j = (int)t;
	if (i > n0 - 2)
		i = n0 > 1 ? n0 - 2 : 0;
	if (j > n1 - 2)
		j = n1 > 1 ? n1 - 2 : 0;
	a = s - i;
	b = t - j;
	v00 = q[i * s0 + j * s1];
	v10 = n0 > 1 ? q[(i + 1) * s0 + j * s1] : v00;
	v01 = n1 > 1 ? q[i * s0 + (j + 1) * s1] : v00;
	v11 = n0 > 1 && n1 > 1 ? q[(i + 1) * s0 + (j + 1) * s1] : v00;
	return (1 - b) * ((1 - a) * v00 + a * v10) + b * ((1 - a) * v01 + a * v11);
}

int
volume_shadow(const field *rho, const double light[3], field *tau,
	      slc_err *err)
{
	int n[3] = {rho->ni, rho->nj, rho->nk}, ax = 0, b, c, p, first, dir;
	size_t st[3] = {1, (size_t)rho->ni, (size_t)rho->ni * rho->nj};
	double h, db, dc;

	if (field_alloc_like(tau, rho, err))
		return -1;
	/* sweep planes across the axis most aligned with the light */
	if (fabs(light[1]) > fabs(light[ax]))
		ax = 1;
	if (fabs(light[2]) > fabs(light[ax]))
		ax = 2;
	if (!(fabs(light[ax]) > 0)) {
		field_free(tau);
		return slc_fail(err, "light direction is zero");
	}
	b = (ax + 1) % 3;
	c = (ax + 2) % 3;
	/* from a sample, one plane towards the light is a path of length h,
	 * shifted by (db, dc) samples within the plane */
	h = rho->dx / fabs(light[ax]);
	db = light[b] / fabs(light[ax]);
	dc = light[c] / fabs(light[ax]);
	dir = light[ax] > 0 ? 1 : -1;
	first = dir > 0 ? n[ax] - 1 : 0;
	for (p = first - dir; p >= 0 && p < n[ax]; p -= dir) {
		const float *r_up = rho->a + (size_t)(p + dir) * st[ax];
		const float *t_up = tau->a + (size_t)(p + dir) * st[ax];
		int jc;

		/* serial: one cheap pass, not worth a parallel region per plane */
		for (jc = 0; jc < n[c]; jc++) {
			int ib;

			for (ib = 0; ib < n[b]; ib++) {
				size_t at = (size_t)p * st[ax] + ib * st[b] + jc * st[c];
				double s = ib + db, t = jc + dc;
				double ru = plane_sample(r_up, n[b], n[c], st[b], st[c], s, t);
				double tu = plane_sample(t_up, n[b], n[c], st[b], st[c], s, t);

				/* trapezoid rule along the path segment; no density
				 * below 0 (as render_volume's march): a negative one
				 * would make the light grow through it, to Inf */
				tau->a[at] = (float)(tu + 0.5 * h * (fmax(rho->a[at], 0) + fmax(ru, 0)));
			}
		}
	}
	return 0;
}

int
render_volume(rimage *im, const camera *cam, const field *rho,
	      const oneside *os, const volume_style *vs, slc_err *err)
{
	field tau;
	double lo[3], hi[3];
	int nc[3], a, y;
	float *rl;
	rsampler rs;
	size_t q, nsamp;

	if (rho->stagger != SLC_CELL && rho->stagger != SLC_NODE)
		return slc_fail(err, "density must be a cell or node grid");
	if (volume_shadow(rho, vs->light, &tau, err))
		return -1;
	/* density and the light reaching each sample, interleaved, so one
	 * set of trilinear weights serves both */
	nsamp = field_count(rho);
	rl = slc_calloc(nsamp, 2 * sizeof *rl, err);
	if (!rl) {
		field_free(&tau);
		return -1;
	}
	for (q = 0; q < nsamp; q++) {
		rl[2 * q] = rho->a[q];
		/* sigma 0 is clear air even where tau overflowed to Inf */
		rl[2 * q + 1] = (float)(vs->intensity * (vs->sigma > 0 ? exp(-vs->sigma * tau.a[q]) : 1) +
					vs->ambient);
	}
	field_free(&tau);
	rsampler_init(&rs, rho, rl, 2);
	field_cell_dims(rho, &nc[0], &nc[1], &nc[2]);
	for (a = 0; a < 3; a++) {
		lo[a] = rho->origin[a];
		hi[a] = rho->origin[a] + rho->dx * (nc[a] > 0 ? nc[a] : 1);
	}
#pragma omp parallel for schedule(dynamic, 1)
	for (y = 0; y < im->h; y++) {
		int x;

		for (x = 0; x < im->w; x++) {
			size_t p = (size_t)x + (size_t)im->w * y;
			double o[3], d[3], t0 = 0, t1 = INFINITY, cosd, L[3] = {0, 0, 0};
			double T = 1, ds;
			int q, ok = 1, nstep, s;

			camera_ray(cam, x + 0.5, y + 0.5, o, d);
			cosd = dot3(d, cam->fwd);
			for (q = 0; q < 3 && ok; q++) {
				double ta, tb;

				if (d[q] == 0) {
					ok = o[q] >= lo[q] && o[q] <= hi[q];
					continue;
				}
				ta = (lo[q] - o[q]) / d[q];
				tb = (hi[q] - o[q]) / d[q];
				t0 = fmax(t0, fmin(ta, tb));
				t1 = fmin(t1, fmax(ta, tb));
			}
			if (!ok || !(cosd > 0))
				continue;
			t0 = fmax(t0, CAMERA_NEAR / cosd);
			if (isfinite(im->z[p]))
				t1 = fmin(t1, im->z[p] / cosd);
			if (!(t0 < t1))
				continue;
			nstep = (int)ceil((t1 - t0) / (VOLUME_STEP_CELLS * rho->dx));
			ds = (t1 - t0) / nstep;
			for (s = 0; s < nstep && T > VOLUME_T_MIN; s++) {
				double t = t0 + (s + 0.5) * ds, xp[3], v[2], r, dT, Li;

				for (q = 0; q < 3; q++)
					xp[q] = o[q] + t * d[q];
				rsampler_get(&rs, xp, v);
				r = v[0];
				if (os && oneside_near(os, xp))
					r = oneside_phi(os, xp);    /* §4.6 */
				if (!(r > 0))
					continue;
				dT = vs->sigma > 0 ? exp(-vs->sigma * r * ds) : 1;
				/* light reaching the sample: the directional light
				 * through the smoke towards it, plus ambient */
				Li = v[1];
				for (q = 0; q < 3; q++)
					L[q] += T * (1 - dT) * vs->albedo * vs->color[q] * Li;
				T *= dT;
			}
			for (q = 0; q < 3; q++)
				im->rgb[3 * p + q] = (float)(L[q] + T * im->rgb[3 * p + q]);
		}
	}
	free(rl);
	return 0;
}
