/* vortex.c: vortex particles of selle2008 thesis §3.3-3.4: motion,
 * stretching with magnitude kept, seeding, culling, and the per-particle
 * confinement force. */
#include "fluid/vortex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid/advect.h"
#include "core/rng.h"

#define SEED_TRIES 100  /* rejection samples per seeded particle */

int
vortex_new(slc_rec *r, slc_err *err)
{
	slc_rec_init(r, SLC_PARTICLES, "vortex");
	if (!slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 0, err) ||
	    !slc_rec_add(r, "omega", SLC_F32, 3, SLC_POINT, 0, err)) {
		slc_rec_free(r);
		return -1;
	}
	return 0;
}

int
vortex_check(const slc_rec *r, slc_err *err)
{
	const slc_chan *P = slc_rec_find(r, "P"), *w = slc_rec_find(r, "omega");

	if (r->kind != SLC_PARTICLES)
		return slc_fail(err, "'%s' is not a particles record", r->name);
	if (!P || P->type != SLC_F32 || P->ncomp != 3)
		return slc_fail(err, "particles '%s': expected P f32 x3", r->name);
	if (!w || w->type != SLC_F32 || w->ncomp != 3 || w->domain != SLC_POINT ||
	    w->count != P->count)
		return slc_fail(err, "particles '%s': expected omega f32 x3 per point", r->name);
	return 0;
}

double
vortex_kernel(int kernel, double d, double r)
{
	if (!(d <= r))
		return 0;
	if (kernel == VORTEX_TENT)
		return 3 * (1 - d / r) / (M_PI * r * r * r);
	/* thesis §3.5: clamped Gaussian */
	return exp(-d * d / (2 * r * r)) / (r * r * r * pow(2 * M_PI, 1.5));
}

void
vortex_step(slc_rec *r, const macgrid *vel, double dt)
{
	slc_chan *P = slc_rec_find(r, "P");
	float *w = slc_rec_find(r, "omega")->data, *x = P->data;
	size_t n = (size_t)P->count, p;

	/* stretching uses the velocity gradient where the particle starts */
	for (p = 0; p < n; p++) {
		double xp[3] = { x[3 * p], x[3 * p + 1], x[3 * p + 2] };
		double w0[3] = { w[3 * p], w[3 * p + 1], w[3 * p + 2] }, g[3][3];
		double w1[3], m0, m1;
		int a;

		for (a = 0; a < 3; a++)
			field_gradient(mac_ccomp(vel, a), xp, g[a]);
		/* omega += dt (omega . grad) u, then keep |omega| (§3.4.1) */
		for (a = 0; a < 3; a++)
			w1[a] = w0[a] + dt * (w0[0] * g[a][0] + w0[1] * g[a][1] + w0[2] * g[a][2]);
		m0 = sqrt(w0[0] * w0[0] + w0[1] * w0[1] + w0[2] * w0[2]);
		m1 = sqrt(w1[0] * w1[0] + w1[1] * w1[1] + w1[2] * w1[2]);
		if (!(m1 > 0))
			continue;
		for (a = 0; a < 3; a++)
			w[3 * p + a] = (float)(w1[a] * m0 / m1);
	}
	advect_points(vel, dt, x, n);
}

/* Rebuild r keeping the points keep[0..nkeep) (indices into the old
 * points) followed by nadd zeroed points; other channels are copied. */
static int
repoint(slc_rec *r, const size_t *keep, size_t nkeep, size_t nadd, slc_err *err)
{
	slc_rec n;
	uint32_t c;

	slc_rec_init(&n, r->kind, r->name);
	n.time = r->time;
	for (c = 0; c < r->nchan; c++) {
		const slc_chan *o = &r->chan[c];
		size_t esz = slc_type_size(o->type) * o->ncomp, q;
		uint64_t cnt = o->domain == SLC_POINT ? nkeep + nadd : o->count;
		unsigned char *d = slc_rec_add(&n, o->name, o->type, o->ncomp,
					       o->domain, cnt, err);

		if (!d) {
			slc_rec_free(&n);
			return -1;
		}
		if (o->domain != SLC_POINT) {
			if (cnt)
				memcpy(d, o->data, (size_t)cnt * esz);
			continue;
		}
		for (q = 0; q < nkeep; q++)
			memcpy(d + q * esz, (const unsigned char *)o->data + keep[q] * esz, esz);
	}
	slc_rec_free(r);
	*r = n;
	return 0;
}

int
vortex_cull(slc_rec *r, const field *solid, slc_err *err)
{
	const float *x = slc_rec_find(r, "P")->data;
	size_t n = (size_t)slc_rec_find(r, "P")->count, p, m = 0, *keep;
	int rc;

	if (!(keep = slc_calloc(n ? n : 1, sizeof *keep, err)))
		return -1;
	for (p = 0; p < n; p++) {
		double xp[3] = { x[3 * p], x[3 * p + 1], x[3 * p + 2] };

		if (!(field_sample(solid, xp) < 0))
			keep[m++] = p;
	}
	rc = m == n ? 0 : repoint(r, keep, m, 0, err);
	free(keep);
	return rc;
}

int
vortex_seed(slc_rec *r, const field *region, const vortex_opts *o, double dt,
	    uint64_t seed, uint64_t call, slc_err *err)
{
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	double c[3] = { 0, 0, 0 }, cnt = 0;
	size_t n0 = (size_t)slc_rec_find(r, "P")->count, nadd, p, *keep;
	float *x, *w;
	int i, j, k, a;
	rng g;

	for (k = 0; k < region->nk; k++)
		for (j = 0; j < region->nj; j++)
			for (i = 0; i < region->ni; i++) {
				double y[3];

				if (!(region->a[FIELD_IDX(region, i, j, k)] < 0))
					continue;
				field_pos(region, i, j, k, y);
				for (a = 0; a < 3; a++) {
					lo[a] = fmin(lo[a], y[a] - 0.5 * region->dx);
					hi[a] = fmax(hi[a], y[a] + 0.5 * region->dx);
					c[a] += y[a];
				}
				cnt++;
			}
	if (cnt == 0)
		return 0;
	rng_init(&g, seed * 0x9e3779b97f4a7c15ULL ^ call);
	nadd = (size_t)floor(o->rate * dt + rng_uniform(&g));
	if (!nadd)
		return 0;
	if (!(keep = slc_calloc(n0 ? n0 : 1, sizeof *keep, err)))
		return -1;
	for (p = 0; p < n0; p++)
		keep[p] = p;
	i = repoint(r, keep, n0, nadd, err);
	free(keep);
	if (i)
		return -1;
	x = slc_rec_find(r, "P")->data;
	w = slc_rec_find(r, "omega")->data;
	for (a = 0; a < 3; a++)
		c[a] /= cnt;
	for (p = n0; p < n0 + nadd; p++) {
		double y[3], t[3], tl;
		int tries;

		for (tries = 0; tries < SEED_TRIES; tries++) {
			for (a = 0; a < 3; a++)
				y[a] = lo[a] + (hi[a] - lo[a]) * rng_uniform(&g);
			if (field_sample(region, y) < 0)
				break;
		}
		/* tangent to the vertical cylinder about the centroid: y x r */
		t[0] = (y[2] - c[2]);
		t[1] = 0;
		t[2] = -(y[0] - c[0]);
		tl = hypot(t[0], t[2]);
		if (!(tl > 0)) {
			t[0] = 1;
			tl = 1;
		}
		for (a = 0; a < 3; a++) {
			x[3 * p + a] = (float)y[a];
			w[3 * p + a] = (float)(o->omega * t[a] / tl);
		}
	}
	return 0;
}

void
vortex_force(const slc_rec *r, macgrid *vel, const vortex_opts *o, double dt)
{
	const slc_chan *P = slc_rec_find(r, "P");
	const float *x = P->data, *w = slc_rec_find(r, "omega")->data;
	size_t n = (size_t)P->count;
	double rad = o->radius * vel->u.dx;
	int a;

	/* components in parallel, particles in order within each: the sums
	 * do not depend on the thread count */
#pragma omp parallel for schedule(static, 1)
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		double off[3];
		size_t p;

		field_offset(f, off);
		for (p = 0; p < n; p++) {
			double xp[3] = { x[3 * p], x[3 * p + 1], x[3 * p + 2] };
			double wp[3] = { w[3 * p], w[3 * p + 1], w[3 * p + 2] };
			int lo[3], hi[3], nn[3] = { f->ni, f->nj, f->nk }, b, i, j, k;

			for (b = 0; b < 3; b++) {
				double s = (xp[b] - f->origin[b]) / f->dx - off[b];

				lo[b] = (int)fmax(0, ceil(s - o->radius));
				hi[b] = (int)fmin(nn[b] - 1, floor(s + o->radius));
			}
			for (k = lo[2]; k <= hi[2]; k++)
				for (j = lo[1]; j <= hi[1]; j++)
					for (i = lo[0]; i <= hi[0]; i++) {
						double y[3], N[3], d, xi, F;

						field_pos(f, i, j, k, y);
						for (b = 0; b < 3; b++)
							N[b] = xp[b] - y[b];
						d = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
						xi = vortex_kernel(o->kernel, d, rad);
						if (!(xi > 0) || !(d > 0))
							continue;
						/* §3.4.2: F = eps (N x xi omega_p) */
						b = (a + 1) % 3;
						F = N[b] * wp[(a + 2) % 3] - N[(a + 2) % 3] * wp[b];
						f->a[FIELD_IDX(f, i, j, k)] +=
							(float)(dt * o->eps * xi * F / d);
					}
		}
	}
}
