/* spring.c: edge, bending, altitude and fixed-weight four-point springs
 * (see spring.h). */
#include "cloth/spring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"

/* selle2008 table 6.1 */
#define TABLE61_E_E 4.14
#define TABLE61_XI_E 15.0
#define TABLE61_E_B 0.41
#define TABLE61_XI_B 8.0

/* §5.3.4: an altitude spring is not used when one of its vectors is
 * shorter than this fraction of the element's rest length (the edge has
 * collapsed and edge springs restore it) or when sin^2 of the angle
 * between them is below ALT_MIN_SIN2 (the four particles are colinear). */
#define ALT_MIN_LEN 1e-6
#define ALT_MIN_SIN2 1e-8
/* An edge spring shorter than this fraction of its rest length has no
 * direction; it applies no force until it opens again. */
#define EDGE_MIN_LEN 1e-9

void
spring_params_default(spring_params *p)
{
	p->E_e = TABLE61_E_E;
	p->xi_e = TABLE61_XI_E;
	p->E_b = TABLE61_E_B;
	p->xi_b = TABLE61_XI_B;
	p->compress_scale = 1;
	p->altitude = 1;
}

/* The seven altitude springs of a tetrahedron (§5.3.4): four point/face
 * (point first, then the face) and three edge/edge (two edges). */
static const int alt_pf[4][4] = {
	{0, 1, 2, 3}, {1, 0, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 2}
};
static const int alt_ee[3][4] = {
	{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}
};

/* Evaluate candidate c (0..3 point/face, 4..6 edge/edge) on the four
 * points p[]: its vectors u, v, cross u x v; returns |u x v|^2 and fills
 * |u|^2, |v|^2. */
static double
alt_cross(const double *const p[4], int c, double cr[3], double *uu,
	  double *vv)
{
	double u[3], v[3];

	if (c < 4) {
		const int *q = alt_pf[c];
		v3sub(p[q[2]], p[q[1]], u);
		v3sub(p[q[3]], p[q[1]], v);
	} else {
		const int *q = alt_ee[c - 4];
		v3sub(p[q[1]], p[q[0]], u);
		v3sub(p[q[3]], p[q[2]], v);
	}
	v3cross(u, v, cr);
	*uu = v3dot(u, u);
	*vv = v3dot(v, v);
	return v3dot(cr, cr);
}

static double
clamp01(double a)
{
	return a < 0 ? 0 : a > 1 ? 1 : a;
}

/* Direction n, weights alpha (per tetrahedron slot) and signed length of
 * candidate c.  Weights are those of the closest points (projection of
 * the point on the face plane, closest points of the two lines), clamped
 * to the simplex: Theorem 1 of §5.3.4 guarantees they already lie there
 * for the shortest altitude, and since n is normal to the face (to both
 * edges) clamping never changes l. */
static double
alt_eval(const double *const p[4], int c, const double cr[3], double n[3],
	 double alpha[4])
{
	double len = v3norm(cr);

	for (int k = 0; k < 3; k++)
		n[k] = cr[k] / len;
	memset(alpha, 0, 4 * sizeof *alpha);
	if (c < 4) {
		const int *q = alt_pf[c];
		double u[3], v[3], w[3];
		v3sub(p[q[2]], p[q[1]], u);
		v3sub(p[q[3]], p[q[1]], v);
		v3sub(p[q[0]], p[q[1]], w);
		double d00 = v3dot(u, u), d01 = v3dot(u, v), d11 = v3dot(v, v);
		double d20 = v3dot(w, u), d21 = v3dot(w, v);
		double den = d00 * d11 - d01 * d01;
		double wr = clamp01((d11 * d20 - d01 * d21) / den);
		double ws = clamp01((d00 * d21 - d01 * d20) / den);
		double wq = clamp01(1 - wr - ws), sum = wq + wr + ws;
		alpha[q[0]] = 1;
		alpha[q[1]] = -wq / sum;
		alpha[q[2]] = -wr / sum;
		alpha[q[3]] = -ws / sum;
		return v3dot(n, w);
	} else {
		const int *q = alt_ee[c - 4];
		double u[3], v[3], w[3], d[3];
		v3sub(p[q[1]], p[q[0]], u);
		v3sub(p[q[3]], p[q[2]], v);
		v3sub(p[q[0]], p[q[2]], w);
		double a = v3dot(u, u), b = v3dot(u, v), cc = v3dot(v, v);
		double dd = v3dot(u, w), e = v3dot(v, w);
		double den = a * cc - b * b;
		double s = clamp01((b * e - cc * dd) / den);
		double t = clamp01((a * e - b * dd) / den);
		alpha[q[0]] = -(1 - s);
		alpha[q[1]] = -s;
		alpha[q[2]] = 1 - t;
		alpha[q[3]] = t;
		v3sub(p[q[2]], p[q[0]], d);
		return v3dot(n, d);
	}
}

void
spring_free(spring_set *s)
{
	free(s->idx);
	free(s->npart);
	free(s->k);
	free(s->L);
	free(s->l0);
	free(s->xi);
	free(s->l0alt);
	free(s->alpha);
	free(s->n);
	free(s->l);
	free(s->K);
	free(s->fe);
	free(s->c);
	free(s->g);
	free(s->inc_off);
	free(s->inc);
	free(s->w4);
	memset(s, 0, sizeof *s);
}

/* The incidence lists of ns springs idx, npart over np particles: inc_off
 * (np + 1, zeroed by the caller) and *inc, allocated.  0 / -1. */
static int
incidence(size_t ns, size_t np, const uint32_t *idx, const uint8_t *npart,
	  size_t *inc_off, uint32_t **inc, slc_err *err)
{
	size_t i;

	for (i = 0; i < ns; i++)
		for (int c = 0; c < npart[i]; c++)
			inc_off[idx[4 * i + c] + 1]++;
	for (i = 0; i < np; i++)
		inc_off[i + 1] += inc_off[i];
	*inc = slc_calloc(inc_off[np] + 1, sizeof **inc, err);
	if (!*inc)
		return -1;
	size_t *fill = slc_calloc(np + 1, sizeof *fill, err);
	if (!fill) {
		free(*inc);
		*inc = NULL;
		return -1;
	}
	for (i = 0; i < ns; i++)
		for (int c = 0; c < npart[i]; c++) {
			uint32_t v = idx[4 * i + c];
			(*inc)[inc_off[v] + fill[v]++] = (uint32_t)(4 * i + (size_t)c);
		}
	free(fill);
	return 0;
}

/* Per-spring value, or the uniform one when the list has none. */
static double
list_val(const double *a, size_t i, double uniform)
{
	return a ? a[i] : uniform;
}

int
spring_build_lists(spring_set *s, const spring_lists *l, const double *xrest,
		   slc_err *err)
{
	size_t ns, i;
	const size_t pstride = l->pair_stride ? l->pair_stride : 2;

	memset(s, 0, sizeof *s);
	s->np = l->np;
	s->nedge = l->nedge;
	s->nbend = l->npair;
	s->nalt = l->ntet;
	s->compress_scale = l->compress_scale;
	if (s->nedge > SIZE_MAX / 8 || s->nbend > SIZE_MAX / 8 ||
	    s->nalt > SIZE_MAX / 8)
		return slc_fail(err, "too many springs");
	ns = s->ns = s->nedge + s->nbend + s->nalt;
	if (ns > UINT32_MAX / 4)
		return slc_fail(err, "too many springs (%zu)", ns);
	for (i = 0; i < 2 * l->nedge; i++)
		if (l->edge[i] >= l->np)
			return slc_fail(err, "spring point %u out of range",
					l->edge[i]);
	for (i = 0; i < l->npair; i++)
		for (size_t c = 0; c < 2; c++)
			if (l->pair[pstride * i + c] >= l->np)
				return slc_fail(err, "spring point %u out of "
						"range", l->pair[pstride * i + c]);
	for (i = 0; i < 4 * l->ntet; i++)
		if (l->tet[i] >= l->np)
			return slc_fail(err, "spring point %u out of range",
					l->tet[i]);
	for (i = 0; l->tet_norm && i < l->ntet; i++)
		if (l->tet_norm[i] >= l->npair)
			return slc_fail(err, "altitude normaliser %u out of range",
					l->tet_norm[i]);
	if (!l->tet_norm && l->ntet > l->npair)
		return slc_fail(err, "%zu tetrahedra without normalisers",
				l->ntet);
	s->idx = slc_calloc(4 * ns + 1, sizeof *s->idx, err);
	s->npart = slc_calloc(ns + 1, 1, err);
	s->k = slc_calloc(ns + 1, sizeof *s->k, err);
	s->L = slc_calloc(ns + 1, sizeof *s->L, err);
	s->l0 = slc_calloc(ns + 1, sizeof *s->l0, err);
	s->xi = slc_calloc(ns + 1, sizeof *s->xi, err);
	s->l0alt = slc_calloc(7 * s->nalt + 1, sizeof *s->l0alt, err);
	s->alpha = slc_calloc(4 * ns + 1, sizeof *s->alpha, err);
	s->n = slc_calloc(3 * ns + 1, sizeof *s->n, err);
	s->l = slc_calloc(ns + 1, sizeof *s->l, err);
	s->K = slc_calloc(ns + 1, sizeof *s->K, err);
	s->fe = slc_calloc(ns + 1, sizeof *s->fe, err);
	s->c = slc_calloc(ns + 1, sizeof *s->c, err);
	s->g = slc_calloc(ns + 1, sizeof *s->g, err);
	s->inc_off = slc_calloc(l->np + 1, sizeof *s->inc_off, err);
	if (!s->idx || !s->npart || !s->k || !s->L || !s->l0 || !s->xi ||
	    !s->l0alt || !s->alpha || !s->n || !s->l || !s->K || !s->fe ||
	    !s->c || !s->g || !s->inc_off) {
		spring_free(s);
		return -1;
	}
	for (i = 0; i < s->nedge; i++) {
		uint32_t a = l->edge[2 * i], b = l->edge[2 * i + 1];
		double d[3];
		s->idx[4 * i] = a;
		s->idx[4 * i + 1] = b;
		s->idx[4 * i + 2] = s->idx[4 * i + 3] = a;
		s->npart[i] = 2;
		v3sub(xrest + 3 * b, xrest + 3 * a, d);
		s->l0[i] = s->L[i] = v3norm(d);
		s->k[i] = list_val(l->edge_k, i, l->k_e);
		s->xi[i] = list_val(l->edge_xi, i, l->xi_e);
		if (!(s->L[i] > 0)) {
			spring_free(s);
			return slc_fail(err, "edge %u-%u has zero rest length",
					a, b);
		}
	}
	for (size_t j = 0; j < s->nbend; j++) {
		size_t q = s->nedge + j;
		const uint32_t *b = l->pair + pstride * j;
		double d[3];
		s->idx[4 * q] = b[0];
		s->idx[4 * q + 1] = b[1];
		s->idx[4 * q + 2] = s->idx[4 * q + 3] = b[0];
		s->npart[q] = 2;
		v3sub(xrest + 3 * b[1], xrest + 3 * b[0], d);
		s->l0[q] = s->L[q] = v3norm(d);
		s->k[q] = list_val(l->pair_k, j, l->k_p);
		s->xi[q] = list_val(l->pair_xi, j, l->xi_p);
		if (!(s->L[q] > 0)) {
			spring_free(s);
			return slc_fail(err, "bending pair %u-%u has zero rest "
					"length", b[0], b[1]);
		}
	}
	for (size_t j = 0; j < s->nalt; j++) {
		size_t q = s->nedge + s->nbend + j;
		const uint32_t *b = l->tet + 4 * j;
		const double *pt[4];
		for (int c = 0; c < 4; c++) {
			s->idx[4 * q + c] = b[c];
			pt[c] = xrest + 3 * b[c];
		}
		s->npart[q] = 4;
		/* the altitude is normalised by the rest length of a two-point
		 * spring on the same tetrahedron */
		s->L[q] = s->L[s->nedge + (l->tet_norm ? l->tet_norm[j] : j)];
		s->k[q] = list_val(l->tet_k, j, l->k_t);
		s->xi[q] = list_val(l->tet_xi, j, l->xi_t);
		for (int c = 0; c < 7; c++) {
			double cr[3], uu, vv, n[3], al[4];
			double c2 = alt_cross(pt, c, cr, &uu, &vv);
			double Lmin = ALT_MIN_LEN * s->L[q];
			if (uu < Lmin * Lmin || vv < Lmin * Lmin ||
			    c2 < ALT_MIN_SIN2 * uu * vv)
				s->l0alt[7 * j + c] = 0;
			else
				s->l0alt[7 * j + c] = alt_eval(pt, c, cr, n, al);
		}
	}
	if (incidence(ns, l->np, s->idx, s->npart, s->inc_off, &s->inc, err)) {
		spring_free(s);
		return -1;
	}
	return 0;
}

/* Grow the per-spring array *a of `old` springs to `now` springs of `per`
 * elements of `size` bytes each, keeping the first `keep` springs, into
 * *out (the old array is left alone).  0 / -1. */
static int
regrow(void **out, const void *a, size_t keep, size_t now, size_t per,
       size_t size, slc_err *err)
{
	*out = slc_calloc(per * now + 1, size, err);
	if (!*out)
		return -1;
	if (keep)
		memcpy(*out, a, per * keep * size);
	return 0;
}

int
spring_set_four(spring_set *s, const spring_four_list *f, slc_err *err)
{
	const size_t keep = s->nedge + s->nbend + s->nalt;
	size_t ns, nb = 0;
	int fail = 0;

	if (f->n > UINT32_MAX / 4 || keep + f->n > UINT32_MAX / 4)
		return slc_fail(err, "too many springs (%zu)", keep + f->n);
	ns = keep + f->n;
	for (size_t i = 0; i < 4 * f->n; i++)
		if (f->idx[i] >= s->np)
			return slc_fail(err, "spring point %u out of range",
					f->idx[i]);
	if (f->n && !(f->L > 0))
		return slc_fail(err, "four-point springs: normalising length %g "
				"is not positive", f->L);
	/* every array the spring count sizes, with its elements per spring
	 * and element size; the new ones are built aside, so that a failure
	 * leaves s as it was */
	struct { void **cur; size_t per, size; void *nw; } a[] = {
		{ (void **)&s->idx, 4, sizeof *s->idx, NULL },
		{ (void **)&s->npart, 1, 1, NULL },
		{ (void **)&s->k, 1, sizeof *s->k, NULL },
		{ (void **)&s->L, 1, sizeof *s->L, NULL },
		{ (void **)&s->l0, 1, sizeof *s->l0, NULL },
		{ (void **)&s->xi, 1, sizeof *s->xi, NULL },
		{ (void **)&s->alpha, 4, sizeof *s->alpha, NULL },
		{ (void **)&s->n, 3, sizeof *s->n, NULL },
		{ (void **)&s->l, 1, sizeof *s->l, NULL },
		{ (void **)&s->K, 1, sizeof *s->K, NULL },
		{ (void **)&s->fe, 1, sizeof *s->fe, NULL },
		{ (void **)&s->c, 1, sizeof *s->c, NULL },
		{ (void **)&s->g, 1, sizeof *s->g, NULL },
	};
	const size_t na = sizeof a / sizeof *a;
	for (size_t j = 0; j < na && !fail; j++, nb++)
		fail = regrow(&a[j].nw, *a[j].cur, keep, ns, a[j].per, a[j].size,
			      err);
	double *w4 = NULL;
	size_t *inc_off = NULL;
	uint32_t *inc = NULL;
	if (!fail) {
		w4 = slc_calloc(4 * f->n + 1, sizeof *w4, err);
		inc_off = slc_calloc(s->np + 1, sizeof *inc_off, err);
		fail = !w4 || !inc_off;
	}
	if (!fail) {
		uint32_t *idx = a[0].nw;
		uint8_t *npart = a[1].nw;
		double *k = a[2].nw, *L = a[3].nw, *l0 = a[4].nw, *xi = a[5].nw;
		for (size_t j = 0; j < f->n; j++) {
			size_t q = keep + j;
			memcpy(idx + 4 * q, f->idx + 4 * j, 4 * sizeof *idx);
			memcpy(w4 + 4 * j, f->w + 4 * j, 4 * sizeof *w4);
			npart[q] = 4;
			k[q] = f->k;
			L[q] = f->L;
			l0[q] = f->l0;
			xi[q] = f->xi;
		}
		fail = incidence(ns, s->np, idx, npart, inc_off, &inc, err);
	}
	if (fail) {
		for (size_t j = 0; j < nb; j++)
			free(a[j].nw);
		free(w4);
		free(inc_off);
		return -1;
	}
	for (size_t j = 0; j < na; j++) {
		free(*a[j].cur);
		*a[j].cur = a[j].nw;
	}
	free(s->w4);
	free(s->inc_off);
	free(s->inc);
	s->w4 = w4;
	s->inc_off = inc_off;
	s->inc = inc;
	s->nfour = f->n;
	s->ns = ns;
	return 0;
}

int
spring_build(spring_set *s, const cloth_mesh *m, const double *xrest,
	     const spring_params *p, slc_err *err)
{
	/* §5.3.3-5.3.4: the bending pair is the opposite vertices of two
	 * triangles sharing an edge, the tetrahedron all four */
	spring_lists l = {
		.np = m->np,
		.nedge = m->ne, .edge = m->edge,
		.k_e = p->E_e, .xi_e = p->xi_e,
		.npair = m->nb, .pair = m->bend ? m->bend + 2 : NULL,
		.pair_stride = 4,
		.k_p = p->E_b, .xi_p = p->xi_b,
		.ntet = p->altitude ? m->nb : 0, .tet = m->bend,
		.k_t = p->E_b, .xi_t = p->xi_b,
		.compress_scale = p->compress_scale,
	};

	return spring_build_lists(s, &l, xrest, err);
}

void
spring_linearize(spring_set *s, const double *x, const double *m,
		 double tau)
{
	const ptrdiff_t ns = (ptrdiff_t)s->ns;
	const size_t first_alt = s->nedge + s->nbend;
	const size_t first_four = first_alt + s->nalt;

#pragma omp parallel for schedule(static) if (ns > CLOTH_OMP_MIN)
	for (ptrdiff_t q = 0; q < ns; q++) {
		double *n = s->n + 3 * q, *al = s->alpha + 4 * q;
		const uint32_t *id = s->idx + 4 * q;
		double l0, K = s->k[q] / s->L[q];

		if ((size_t)q < first_alt) {
			double d[3];
			v3sub(x + 3 * id[1], x + 3 * id[0], d);
			double l = v3norm(d);
			al[0] = -1;
			al[1] = 1;
			al[2] = al[3] = 0;
			l0 = s->l0[q];
			if (l < EDGE_MIN_LEN * s->L[q]) {
				n[0] = n[1] = n[2] = 0;
				s->l[q] = l0;
			} else {
				for (int k = 0; k < 3; k++)
					n[k] = d[k] / l;
				s->l[q] = l;
			}
			if ((size_t)q < s->nedge && s->l[q] < l0)
				K *= s->compress_scale;
		} else if ((size_t)q >= first_four) {
			/* §7.5.2: fixed embedded points, the direction
			 * between them; a spring through its own length
			 * zero has none and rests until it opens */
			const double *w = s->w4 + 4 * ((size_t)q - first_four);
			double d[3] = {0, 0, 0};
			for (int c = 0; c < 4; c++) {
				v3axpy(w[c], x + 3 * id[c], d);
				al[c] = w[c];
			}
			double l = v3norm(d);
			l0 = s->l0[q];
			if (l < EDGE_MIN_LEN * s->L[q]) {
				n[0] = n[1] = n[2] = 0;
				s->l[q] = l0;
			} else {
				for (int k = 0; k < 3; k++)
					n[k] = d[k] / l;
				s->l[q] = l;
			}
		} else {
			/* §5.3.4: use the one of the seven altitude springs
			 * with the largest |u x v|, i.e. the shortest */
			size_t j = (size_t)q - first_alt;
			const double *pt[4];
			double best = -1, cr[3], bcr[3], uu, vv;
			double Lmin = ALT_MIN_LEN * s->L[q];
			int bc = -1;
			for (int c = 0; c < 4; c++)
				pt[c] = x + 3 * id[c];
			for (int c = 0; c < 7; c++) {
				double c2 = alt_cross(pt, c, cr, &uu, &vv);
				if (uu < Lmin * Lmin || vv < Lmin * Lmin ||
				    c2 < ALT_MIN_SIN2 * uu * vv)
					continue;
				if (c2 > best) {
					best = c2;
					bc = c;
					memcpy(bcr, cr, sizeof bcr);
				}
			}
			if (bc < 0) {
				/* collapsed or colinear: no altitude force
				 * (edge springs restore it) */
				memset(n, 0, 3 * sizeof *n);
				memset(al, 0, 4 * sizeof *al);
				s->l[q] = l0 = 0;
			} else {
				s->l[q] = alt_eval(pt, bc, bcr, n, al);
				l0 = s->l0alt[7 * j + (size_t)bc];
			}
		}
		/* critical damping 2 sqrt(K m_eff) of the spring's own mode,
		 * m_eff = 1 / sum alpha_i^2 / m_i */
		double im = 0;
		for (int c = 0; c < s->npart[q]; c++)
			im += al[c] * al[c] / m[id[c]];
		double b = im > 0 ? s->xi[q] * 2 * sqrt(K / im) : 0;
		s->K[q] = K;
		s->fe[q] = -K * (s->l[q] - l0);
		s->c[q] = b + tau * K;
	}
}

/* F_i += sum over i's entries of alpha * scalar[s] * n_s */
static void
gather_rows(const spring_set *s, const double *scalar, double *F, size_t i0, size_t i1)
{
	const ptrdiff_t lo = (ptrdiff_t)i0, hi = (ptrdiff_t)i1;

#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
	for (ptrdiff_t i = lo; i < hi; i++) {
		double f[3] = {0, 0, 0};
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2, c = s->inc[e] & 3;
			v3axpy(s->alpha[4 * q + c] * scalar[q], s->n + 3 * q, f);
		}
		v3axpy(1, f, F + 3 * i);
	}
}

static void
gather(const spring_set *s, const double *scalar, double *F)
{
	gather_rows(s, scalar, F, 0, s->np);
}

void
spring_force(spring_set *s, double *F)
{
	gather(s, s->fe, F);
}

void
spring_force_rows(spring_set *s, double *F, size_t i0, size_t i1)
{
	gather_rows(s, s->fe, F, i0, i1);
}

void
spring_damp_force(spring_set *s, const double *v, double *F)
{
	const ptrdiff_t ns = (ptrdiff_t)s->ns;

#pragma omp parallel for schedule(static) if (ns > CLOTH_OMP_MIN)
	for (ptrdiff_t q = 0; q < ns; q++) {
		double r[3] = {0, 0, 0};
		for (int c = 0; c < s->npart[q]; c++)
			v3axpy(s->alpha[4 * q + c], v + 3 * s->idx[4 * q + c], r);
		s->g[q] = -s->c[q] * v3dot(r, s->n + 3 * q);
	}
	gather(s, s->g, F);
}

void
spring_damp_diag(const spring_set *s, double *d)
{
	const ptrdiff_t np = (ptrdiff_t)s->np;

#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
	for (ptrdiff_t i = 0; i < np; i++)
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2, c = s->inc[e] & 3;
			double a = s->alpha[4 * q + c];
			for (int k = 0; k < 3; k++)
				d[3 * i + k] += s->c[q] * a * a *
					s->n[3 * q + k] * s->n[3 * q + k];
		}
}

double
spring_energy(const spring_set *s)
{
	double e = 0;

	/* (K/2)(l - l0)^2 = fe^2 / (2K) since fe = -K (l - l0) */
	for (size_t q = 0; q < s->ns; q++)
		if (s->K[q] > 0)
			e += 0.5 * s->fe[q] * s->fe[q] / s->K[q];
	return e;
}
