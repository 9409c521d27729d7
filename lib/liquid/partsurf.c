/* partsurf.c: the particle surface on a lattice (Zhu-Bridson 2005 and the
 * Yu-Turk 2013 density of anisotropic kernels), its union with a grid level
 * set (kdsm-vof §4.2) and the path to a mesh.  See partsurf.h. */
#include "liquid/partsurf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "liquid/mcubes.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define PS_SLAB 16              /* lattice layers per parallel slab */
#define PS_BIN 8                /* samples per sorting bin along i and j */
#define PS_LATTICE_MAX ((size_t)1 << 31)  /* samples, a sanity limit */
/* Yu and Turk 2013 §4: the surface is the level of the density sum at
 * half the density of the full interior (which the kernels normalize to 1) */
static const double YT_ISO = 0.5;
/* Yu and Turk's largest semi-axis over R: with eigenvalues clamped to
 * sigma1/kr (kr = 4) and det G kept, a1 <= 4^(1/3) R */
static const double YT_AMAX = 1.5874010519681994;
/* volume a particle of radius r stands for: the cube of the spacing 2r */
#define PS_VOLUME(r) (8 * (r) * (r) * (r))

/* Lattice coordinates beyond this are clamped to it before they become
 * ints: far outside any lattice (PS_LATTICE_MAX samples), yet a particle
 * far off a fine grid (1e30 samples away) or a kernel wider than an int
 * (Rl with dx 1e-30) would overflow the conversion. */
#define PS_COORD_MAX 1e9

/* floor and ceil to int without a libm call, clamped to +-PS_COORD_MAX */
static inline int
ifloor(double x)
{
	int i;

	x = x > -PS_COORD_MAX ? (x < PS_COORD_MAX ? x : PS_COORD_MAX) : -PS_COORD_MAX;
	i = (int)x;
	return i - (x < i);
}

static inline int
iceil(double x)
{
	int i;

	x = x > -PS_COORD_MAX ? (x < PS_COORD_MAX ? x : PS_COORD_MAX) : -PS_COORD_MAX;
	i = (int)x;
	return i + (x > i);
}

void
ps_params_default(ps_params *p, double radius)
{
	memset(p, 0, sizeof *p);
	p->kernel = PS_ZHU_BRIDSON;
	p->radius = radius;
	p->support = 4;
	p->dx = radius;
	p->refine = 1;
	p->iso = 0;
}

int
ps_params_check(const ps_params *p, slc_err *err)
{
	if (!(p->radius > 0) || !(p->radius <= PS_RADIUS_MAX))
		return slc_fail(err, "particle radius %g: must be positive and at most %g m",
				p->radius, PS_RADIUS_MAX);
	if (!(p->support >= 1) || !isfinite(p->support) || p->support > 64)
		return slc_fail(err, "kernel support %g: must be between 1 and 64 radii",
				p->support);
	if (!(p->dx > 0) || !isfinite(p->dx))
		return slc_fail(err, "lattice spacing %g: must be positive", p->dx);
	if (p->refine < 1 || p->refine > 16)
		return slc_fail(err, "refinement %d: must be between 1 and 16", p->refine);
	if (p->kernel != PS_ZHU_BRIDSON && p->kernel != PS_YU_TURK)
		return slc_fail(err, "unknown kernel %d", p->kernel);
	if (!isfinite(p->iso))
		return slc_fail(err, "iso value %g: must be finite", p->iso);
	return 0;
}

int
ps_lattice(const ps_params *p, const double *P, size_t np, const field *g,
	   field *f, slc_err *err)
{
	double lo[3], hi[3], margin, o[3];
	int a, n[3];
	size_t q, cnt;

	memset(f, 0, sizeof *f);
	if (ps_params_check(p, err))
		return -1;
	if (g && p->refine == 1)
		return field_alloc_like(f, g, err);
	if (g) {
		double off[3], d = g->dx / p->refine;
		int gn[3] = { g->ni, g->nj, g->nk };

		field_offset(g, off);
		for (a = 0; a < 3; a++) {
			o[a] = g->origin[a] + off[a] * g->dx;
			n[a] = (gn[a] - 1) * p->refine;
		}
		if (slc_mul3((size_t)n[0] + 1, (size_t)n[1] + 1, (size_t)n[2] + 1, &cnt) ||
		    cnt > PS_LATTICE_MAX)
			return slc_fail(err, "refined lattice %dx%dx%d is too large",
					n[0] + 1, n[1] + 1, n[2] + 1);
		return field_alloc(f, n[0] ? n[0] : 1, n[1] ? n[1] : 1, n[2] ? n[2] : 1,
				   SLC_NODE, o, d, err);
	}
	if (np == 0)
		return slc_fail(err, "no particles and no grid: nothing to sample");
	for (a = 0; a < 3; a++) {
		lo[a] = INFINITY;
		hi[a] = -INFINITY;
	}
	for (q = 0; q < np; q++)
		for (a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], P[3 * q + a]);
			hi[a] = fmax(hi[a], P[3 * q + a]);
		}
	margin = p->support * p->radius + 2 * p->dx;
	for (a = 0; a < 3; a++) {
		double cells = ceil((hi[a] - lo[a] + 2 * margin) / p->dx);

		if (!isfinite(cells) || cells > 1 << 20)
			return slc_fail(err, "particles span %g m along %c: %g samples of "
					"%g m; raise the lattice spacing", hi[a] - lo[a],
					"xyz"[a], cells, p->dx);
		n[a] = (int)cells;
		o[a] = lo[a] - margin;
	}
	if (slc_mul3((size_t)n[0] + 1, (size_t)n[1] + 1, (size_t)n[2] + 1, &cnt) ||
	    cnt > PS_LATTICE_MAX)
		return slc_fail(err, "lattice %dx%dx%d for the particles is too large; "
				"raise the lattice spacing", n[0] + 1, n[1] + 1, n[2] + 1);
	return field_alloc(f, n[0], n[1], n[2], SLC_NODE, o, p->dx, err);
}

/* Particles sorted by bins of PS_BIN^3 samples, k-major (stable: ties
 * keep input order), so that consecutive particles touch nearby samples.
 * first[kb] is the first sorted particle of bin layer kb (kb = 0..nbk). */
typedef struct ps_sorted {
	uint32_t *order;
	size_t *first;
} ps_sorted;

static int
sort_particles(const field *f, const double *C, size_t np, ps_sorted *s,
	       slc_err *err)
{
	int nbi = (f->ni + PS_BIN - 1) / PS_BIN, nbj = (f->nj + PS_BIN - 1) / PS_BIN;
	int nbk = (f->nk + PS_BIN - 1) / PS_BIN;
	size_t nkey, q, *cnt;
	uint32_t *key;
	double off[3];

	field_offset(f, off);
	if (np > UINT32_MAX)
		return slc_fail(err, "%zu particles: more than 2^32", np);
	if (slc_mul3((size_t)nbk, (size_t)nbj, (size_t)nbi, &nkey) || nkey > UINT32_MAX)
		return slc_fail(err, "lattice too large to sort particles on");
	cnt = slc_calloc(nkey + 1, sizeof *cnt, err);
	key = slc_calloc(np ? np : 1, sizeof *key, err);
	s->order = slc_calloc(np ? np : 1, sizeof *s->order, err);
	s->first = slc_calloc((size_t)nbk + 1, sizeof *s->first, err);
	if (!cnt || !key || !s->order || !s->first) {
		free(cnt);
		free(key);
		free(s->order);
		free(s->first);
		return -1;
	}
	for (q = 0; q < np; q++) {
		int c[3], n[3] = { f->ni, f->nj, f->nk }, a;

		for (a = 0; a < 3; a++) {
			double u = (C[3 * q + a] - f->origin[a]) / f->dx - off[a];

			u = u < 0 ? 0 : u > n[a] - 1 ? n[a] - 1 : u;
			c[a] = (int)u;
		}
		key[q] = (uint32_t)(((size_t)(c[2] / PS_BIN) * nbj + c[1] / PS_BIN) * nbi +
				    c[0] / PS_BIN);
		cnt[key[q] + 1]++;
	}
	for (q = 0; q < nkey; q++)
		cnt[q + 1] += cnt[q];
	for (q = 0; q <= (size_t)nbk; q++)
		s->first[q] = cnt[q * nbj * nbi];
	for (q = 0; q < np; q++)
		s->order[cnt[key[q]]++] = (uint32_t)q;
	free(cnt);
	free(key);
	return 0;
}

/* Per-slab sums at a sample, one array each (ns samples apart): Zhu and
 * Bridson need sum k, sum k (x_i - x) (lattice units) and sum k r_i;
 * Yu and Turk the density alone. */
#define ZB_ACC 5
/* rows of the sums are padded so that the splat loops run whole vectors */
#define PS_PAD 4
#define PS_ROW(f) ((size_t)(f)->ni + PS_PAD)

/* Zhu and Bridson 2005: scatter k(|x - x_i| / R) of one particle at
 * lattice coordinates u into the samples of layers k0..k1-1. */
static void
zb_splat(const field *f, const double u[3], double r, double Rl, int k0, int k1,
	 float *acc, size_t ns, int uniform)
{
	const float inv = (float)(1 / (Rl * Rl)), fr = (float)r, fu = (float)u[0];
	double R2 = Rl * Rl;
	float *a0 = acc, *a1 = acc + ns, *a2 = acc + 2 * ns, *a3 = acc + 3 * ns;
	/* sum k r_i only with radii of their own: else rbar = r exactly */
	float *a4 = uniform ? NULL : acc + 4 * ns;
	int kk, j, i;
	int kmin = iceil(u[2] - Rl), kmax = ifloor(u[2] + Rl);

	kmin = kmin < k0 ? k0 : kmin;
	kmax = kmax > k1 - 1 ? k1 - 1 : kmax;
	for (kk = kmin; kk <= kmax; kk++) {
		double dz = kk - u[2], rz = R2 - dz * dz, ey;
		int jmin, jmax, imin, imax;

		if (rz <= 0)
			continue;
		ey = sqrt(rz);
		jmin = iceil(u[1] - ey);
		jmax = ifloor(u[1] + ey);
		jmin = jmin < 0 ? 0 : jmin;
		jmax = jmax > f->nj - 1 ? f->nj - 1 : jmax;
		/* every row of the layer spans the layer's disc (w = 0 past a
		 * row's own chord): no per-row square root or rounding */
		imin = iceil(u[0] - ey);
		imax = ifloor(u[0] + ey);
		imin = imin < 0 ? 0 : imin;
		imax = imax > f->ni - 1 ? f->ni - 1 : imax;
		if (imin > imax)
			continue;
		/* whole vectors: the samples past imax get w = 0, or land in
		 * the row's padding */
		imax = imin + ((imax - imin + PS_PAD) & ~(PS_PAD - 1)) - 1;
		for (j = jmin; j <= jmax; j++) {
			float fdy = (float)(j - u[1]), fdz = (float)dz;
			float dyz2 = fdy * fdy + fdz * fdz;
			size_t ro = PS_ROW(f) * (j + (size_t)f->nj * (kk - k0));

#pragma omp simd
			for (i = imin; i <= imax; i++) {
				float dx = (float)i - fu, w = 1 - (dx * dx + dyz2) * inv;

				w = 0.5f * (w + fabsf(w));     /* max(w, 0), branch free */
				w = w * w * w;
				a0[ro + i] += w;
				a1[ro + i] -= w * dx;
				a2[ro + i] -= w * fdy;
				a3[ro + i] -= w * fdz;
			}
			if (a4)
#pragma omp simd
				for (i = imin; i <= imax; i++) {
					float dx = (float)i - fu, w = 1 - (dx * dx + dyz2) * inv;

					w = 0.5f * (w + fabsf(w));
					a4[ro + i] += w * w * w * fr;
				}
		}
	}
}

/* Yu and Turk 2013 §4: scatter V W(|G (x - xbar)|) of one ellipsoidal
 * kernel (M = G^T G in lattice units) into layers k0..k1-1. */
static void
yt_splat(const field *f, const double u[3], const double M[6], const double ext[3],
	 double vol, int k0, int k1, float *acc)
{
	const float fv = (float)vol, m0 = (float)M[0];
	int kk, j, i;
	int kmin = iceil(u[2] - ext[2]), kmax = ifloor(u[2] + ext[2]);
	int jmin = iceil(u[1] - ext[1]), jmax = ifloor(u[1] + ext[1]);

	kmin = kmin < k0 ? k0 : kmin;
	kmax = kmax > k1 - 1 ? k1 - 1 : kmax;
	jmin = jmin < 0 ? 0 : jmin;
	jmax = jmax > f->nj - 1 ? f->nj - 1 : jmax;
	for (kk = kmin; kk <= kmax; kk++) {
		double dz = kk - u[2];

		for (j = jmin; j <= jmax; j++) {
			double dy = j - u[1];
			/* s^2(t) = M00 t^2 + 2 b t + c along the row */
			double b = M[1] * dy + M[2] * dz;
			double c = M[3] * dy * dy + 2 * M[4] * dy * dz + M[5] * dz * dz;
			double disc = b * b - M[0] * (c - 1), h, t0;
			float fb2 = (float)(2 * b), fc = (float)c, fu = (float)u[0];
			int imin, imax;
			float *row;

			if (disc <= 0)
				continue;
			h = sqrt(disc) / M[0];
			t0 = -b / M[0];
			imin = iceil(u[0] + t0 - h);
			imax = ifloor(u[0] + t0 + h);
			imin = imin < 0 ? 0 : imin;
			imax = imax > f->ni - 1 ? f->ni - 1 : imax;
			row = acc + PS_ROW(f) * (j + (size_t)f->nj * (kk - k0));
			if (imin > imax)
				continue;
			imax = imin + ((imax - imin + PS_PAD) & ~(PS_PAD - 1)) - 1;
#pragma omp simd
			for (i = imin; i <= imax; i++) {
				float t = (float)i - fu, w = 1 - ((m0 * t + fb2) * t + fc);

				w = 0.5f * (w + fabsf(w));     /* max(w, 0), branch free */
				row[i] += fv * w * w * w;
			}
		}
	}
}

int
ps_sample(const ps_params *p, const double *P, const double *rad, size_t np,
	  field *f, slc_err *err)
{
	const int yt = p->kernel == PS_YU_TURK;
	const double R = p->support * p->radius, Rl = R / f->dx;
	double *xbar = NULL, off[3];
	float *M = NULL, *amax = NULL;
	const double *C = P;
	ps_sorted s = { NULL, NULL };
	int ext, nslab, nacc = yt ? 1 : ZB_ACC, fail = 0;
	size_t layer = (size_t)f->ni * (size_t)f->nj, alayer = PS_ROW(f) * (size_t)f->nj;
	long sl;

	if (ps_params_check(p, err))
		return -1;
	if (yt) {
		xbar = slc_calloc(np ? 3 * np : 1, sizeof *xbar, err);
		M = slc_calloc(np ? 6 * np : 1, sizeof *M, err);
		amax = slc_calloc(np ? np : 1, sizeof *amax, err);
		if (!xbar || !M || !amax || ps_aniso(p, P, np, xbar, M, amax, err)) {
			fail = 1;
			goto out;
		}
		C = xbar;
	}
	if (sort_particles(f, C, np, &s, err)) {
		fail = 1;
		goto out;
	}
	field_offset(f, off);
	ext = iceil(Rl * (yt ? YT_AMAX : 1)) + 1;
	nslab = (f->nk + PS_SLAB - 1) / PS_SLAB;
#pragma omp parallel reduction(|:fail)
	{
		float *acc = malloc(PS_SLAB * alayer * nacc * sizeof *acc);

		if (!acc)
			fail = 1;
#pragma omp for schedule(dynamic, 1)
		for (sl = 0; sl < nslab; sl++) {
			int k0 = (int)sl * PS_SLAB, k1 = k0 + PS_SLAB, lo, hi;
			int nbk = (f->nk + PS_BIN - 1) / PS_BIN;
			size_t q, n, ns = PS_SLAB * alayer;

			if (!acc)
				continue;
			k1 = k1 > f->nk ? f->nk : k1;
			/* bin layers holding particles within ext of the slab */
			lo = k0 - ext < 0 ? 0 : (k0 - ext) / PS_BIN;
			hi = (k1 - 1 + ext) / PS_BIN + 1;
			hi = hi > nbk ? nbk : hi;
			memset(acc, 0, ns * nacc * sizeof *acc);
			for (q = s.first[lo]; q < s.first[hi]; q++) {
				uint32_t id = s.order[q];
				double u[3], r = rad ? rad[id] : p->radius;
				int a;

				for (a = 0; a < 3; a++)
					u[a] = (C[3 * (size_t)id + a] - f->origin[a]) / f->dx - off[a];
				if (yt) {
					double Ml[6], ext3[3], d2 = f->dx * f->dx;
					const float *m = M + 6 * (size_t)id;
					double det, inv[3];

					for (a = 0; a < 6; a++)
						Ml[a] = m[a] * d2;
					/* half extents of the ellipsoid: sqrt of the
					 * diagonal of M^-1, from the cofactors */
					det = Ml[0] * (Ml[3] * Ml[5] - Ml[4] * Ml[4]) -
					      Ml[1] * (Ml[1] * Ml[5] - Ml[4] * Ml[2]) +
					      Ml[2] * (Ml[1] * Ml[4] - Ml[3] * Ml[2]);
					inv[0] = (Ml[3] * Ml[5] - Ml[4] * Ml[4]) / det;
					inv[1] = (Ml[0] * Ml[5] - Ml[2] * Ml[2]) / det;
					inv[2] = (Ml[0] * Ml[3] - Ml[1] * Ml[1]) / det;
					for (a = 0; a < 3; a++)
						ext3[a] = det > 0 && inv[a] > 0 ? sqrt(inv[a]) : 0;
					yt_splat(f, u, Ml, ext3, PS_VOLUME(r), k0, k1, acc);
				} else {
					zb_splat(f, u, r, Rl, k0, k1, acc, ns, !rad);
				}
			}
			n = (size_t)(k1 - k0) * layer;
			for (q = 0; q < n; q++) {
				float *out = f->a + (size_t)k0 * layer + q;
				/* the sums' row is padded */
				size_t c = q / (size_t)f->ni * PS_ROW(f) + q % (size_t)f->ni;

				if (yt) {
					/* poly6 normalization: the integral of
					 * (1 - s^2)^3 over the unit ball is 64 pi/315 */
					double rho = acc[c] * 315 / (64 * M_PI * R * R * R);

					*out = (float)(R * (YT_ISO - rho));
				} else {
					double w = acc[c], x = acc[c + ns], y = acc[c + 2 * ns];
					double z = acc[c + 3 * ns];
					double wr = rad ? acc[c + 4 * ns] : w * p->radius;

					if (w > 0) {
						double d = f->dx * sqrt(x * x + y * y + z * z) / w;

						*out = (float)(d - wr / w);
					} else {
						*out = (float)R;
					}
				}
			}
		}
		free(acc);
	}
	if (fail)
		slc_fail(err, "out of memory sampling %zu particles", np);
out:
	free(s.order);
	free(s.first);
	free(xbar);
	free(M);
	free(amax);
	return fail ? -1 : 0;
}

void
ps_union(const ps_params *p, const field *g, field *f)
{
	int same = g->ni == f->ni && g->nj == f->nj && g->nk == f->nk &&
		   g->stagger == f->stagger && g->dx == f->dx &&
		   !memcmp(g->origin, f->origin, sizeof g->origin);
	long k;

#pragma omp parallel for schedule(static)
	for (k = 0; k < f->nk; k++)
		for (int j = 0; j < f->nj; j++)
			for (int i = 0; i < f->ni; i++) {
				size_t q = FIELD_IDX(f, i, j, k);
				double x[3], v;

				if (same) {
					v = g->a[q];
				} else {
					field_pos(f, i, j, (int)k, x);
					v = field_sample(g, x);
				}
				v -= p->iso;
				if (v < f->a[q])
					f->a[q] = (float)v;
			}
}

int
ps_surface(const ps_params *p, const double *P, const double *rad, size_t np,
	   const field *g, surf_mesh *m, slc_err *err)
{
	field f;
	int rc;

	memset(m, 0, sizeof *m);
	if (ps_lattice(p, P, np, g, &f, err))
		return -1;
	rc = ps_sample(p, P, rad, np, &f, err);
	if (!rc && g)
		ps_union(p, g, &f);
	if (!rc)
		rc = mc_mesh(&f, 0, m, err);
	field_free(&f);
	return rc;
}
