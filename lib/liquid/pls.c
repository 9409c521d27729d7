/* pls.c: marker particles of the particle level set (see pls.h). */
#include "liquid/pls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell_fill.h"

/* Enright et al. 2002 §3.1-3.2 values (in cells). */
#define PLS_BAND 3.0
#define PLS_RMIN 0.1
#define PLS_RMAX 0.5
#define PLS_ATTRACT_ITER 15
#define PLS_PER_CELL 16
#define PLS_ESCAPE_REMOVE 1.5
#define TRIM_FACTOR 2           /* a cell may hold this many x per_cell */
#define SEED_TRIES 3            /* attempts per particle a cell lacks */

void
pls_default(pls_params *p)
{
	p->band = PLS_BAND;
	p->per_cell = PLS_PER_CELL;
	p->rmin = PLS_RMIN;
	p->rmax = PLS_RMAX;
	p->attract_iter = PLS_ATTRACT_ITER;
	p->escape_remove = PLS_ESCAPE_REMOVE;
}

void
pls_set_init(pls_set *s, int sign)
{
	memset(s, 0, sizeof *s);
	s->sign = sign < 0 ? -1 : 1;
}

void
pls_set_free(pls_set *s)
{
	free(s->x);
	free(s->r);
	pls_set_init(s, s->sign);
}

int
pls_set_push(pls_set *s, const double x[3], double r, slc_err *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024, b3, b1;
		float *nx, *nr;

		if (slc_mul(cap, 3 * sizeof *nx, &b3) || slc_mul(cap, sizeof *nr, &b1))
			return slc_fail(err, "too many particles");
		nx = realloc(s->x, b3);
		if (!nx)
			return slc_fail(err, "out of memory for %zu particles", cap);
		s->x = nx;
		nr = realloc(s->r, b1);
		if (!nr)
			return slc_fail(err, "out of memory for %zu particles", cap);
		s->r = nr;
		s->cap = cap;
	}
	s->x[3 * s->n] = (float)x[0];
	s->x[3 * s->n + 1] = (float)x[1];
	s->x[3 * s->n + 2] = (float)x[2];
	s->r[s->n] = (float)r;
	s->n++;
	return 0;
}

void
pls_set_swap_remove(pls_set *s, size_t q)
{
	size_t last = s->n - 1;

	s->x[3 * q] = s->x[3 * last];
	s->x[3 * q + 1] = s->x[3 * last + 1];
	s->x[3 * q + 2] = s->x[3 * last + 2];
	s->r[q] = s->r[last];
	s->n--;
}

static void
get_x(const pls_set *s, size_t q, double x[3])
{
	x[0] = s->x[3 * q];
	x[1] = s->x[3 * q + 1];
	x[2] = s->x[3 * q + 2];
}

/* Is x inside the box spanned by the samples of phi? */
static int
in_box(const field *phi, const double x[3])
{
	double lo[3], hi[3];

	field_pos(phi, 0, 0, 0, lo);
	field_pos(phi, phi->ni - 1, phi->nj - 1, phi->nk - 1, hi);
	return x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] &&
	       x[2] >= lo[2] && x[2] <= hi[2];
}

/* Seed one particle of sign s in the box of sample (i,j,k) and attract
 * it to a random level (Enright et al. 2002 §3.1).  Returns 1 if kept. */
static int
seed_one(pls_set *set, const field *phi, int i, int j, int k,
	 const pls_params *p, rng *g, slc_err *err)
{
	double c[3], x[3], goal, dx = phi->dx, lambda = 1, v;
	double lo = p->rmin * dx, hi = p->band * dx, glo, ghi, sc, half;
	int it, a, flat[3] = { phi->ni == 1, phi->nj == 1, phi->nk == 1 };

	field_pos(phi, i, j, k, c);
	for (a = 0; a < 3; a++)
		x[a] = flat[a] ? c[a] : c[a] + rng_range(g, -0.5, 0.5) * dx;
	/* the goal level is drawn from the levels this sample's box spans, so
	 * that particles stay near their box and per-box counts stay even for
	 * reseeding; over the band the levels are still uniform */
	half = 0.5 * dx * sqrt((double)(!flat[0] + !flat[1] + !flat[2]));
	sc = set->sign * phi->a[FIELD_IDX(phi, i, j, k)];
	glo = sc - half > lo ? sc - half : lo;
	ghi = sc + half < hi ? sc + half : hi;
	if (glo >= ghi)
		return 0;
	goal = set->sign * rng_range(g, glo, ghi);
	for (it = 0; it < p->attract_iter; it++) {
		double gr[3], len, y[3];

		v = field_sample(phi, x);
		if (fabs(v - goal) < 0.1 * lo)
			break;
		field_gradient(phi, x, gr);
		for (a = 0; a < 3; a++)
			if (flat[a])
				gr[a] = 0;
		len = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
		if (!(len > 0))
			break;
		for (a = 0; a < 3; a++)
			y[a] = x[a] + lambda * (goal - v) * gr[a] / len;
		v = field_sample(phi, y);
		if (in_box(phi, y) && set->sign * v >= lo && set->sign * v <= hi)
			memcpy(x, y, sizeof x);
		else
			lambda *= 0.5;
	}
	v = set->sign * field_sample(phi, x);
	if (!(v >= lo && v <= hi))
		return 0;
	if (pls_set_push(set, x, v < p->rmax * dx ? v : p->rmax * dx, err))
		return -1;
	return 1;
}

/* Flat index of the sample whose box holds x, or -1 outside. */
static long long
sample_of(const field *phi, const double x[3])
{
	double off[3];
	long long ijk[3];
	int n[3] = { phi->ni, phi->nj, phi->nk }, a;

	field_offset(phi, off);
	for (a = 0; a < 3; a++) {
		double s = floor((x[a] - phi->origin[a]) / phi->dx - off[a] + 0.5);

		if (!(s >= 0 && s < n[a]))
			return -1;
		ijk[a] = (long long)s;
	}
	return ijk[0] + (long long)n[0] * (ijk[1] + (long long)n[1] * ijk[2]);
}

/* May sign s seed in the box of a sample with value v?  The box must lie
 * within the band and reach the side of s: a particle of the other side's
 * box would only be attracted away, and reseeding would add it again and
 * again. */
static int
eligible(int s, double v, const field *phi, const pls_params *p)
{
	int dims = (phi->ni > 1) + (phi->nj > 1) + (phi->nk > 1);
	double half_diag = 0.5 * phi->dx * sqrt((double)dims);

	return fabs(v) < p->band * phi->dx && s * v > -half_diag;
}

/* Seed into the box of (i,j,k) until it holds per_cell particles, allowing
 * SEED_TRIES attempts per missing particle (attraction can fail). */
static int
top_up(pls_set *set, const field *phi, int i, int j, int k, int have,
       const pls_params *p, rng *g, slc_err *err)
{
	int need = p->per_cell - have, tries = SEED_TRIES * need, rc;

	while (need > 0 && tries-- > 0) {
		rc = seed_one(set, phi, i, j, k, p, g, err);
		if (rc < 0)
			return -1;
		need -= rc;
	}
	return 0;
}

/* splitmix64's output mix (core/rng.h): a bijection of 64 bits whose
 * outputs for neighbouring inputs look independent. */
static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The random stream of the sample box with global index cell (the whole
 * grid's, k counted from plane 0 of the whole grid: phi's k0) and sign s,
 * from the caller's key g: counter-based, so that a box draws the same
 * numbers whichever boxes are seeded before it or on which MPI rank
 * (mpi.md §3.5), instead of one stream through the boxes in grid order. */
static void
box_stream(rng *out, const rng *g, uint64_t cell, int s)
{
	rng_init(out, mix64(g->s ^ mix64(2 * cell + (s > 0))));
}

int
pls_fill_planes(pls_set *pos, pls_set *neg, const field *phi, const pls_params *p,
		const uint16_t *count_pos, const uint16_t *count_neg, const rng *g, int klo,
		int khi, slc_err *err)
{
	int i, j, k;

	for (k = klo < 0 ? 0 : klo; k < khi && k < phi->nk; k++)
		for (j = 0; j < phi->nj; j++)
			for (i = 0; i < phi->ni; i++) {
				size_t s = FIELD_IDX(phi, i, j, k);
				uint64_t cell = (uint64_t)i + (uint64_t)phi->ni *
					((uint64_t)j + (uint64_t)phi->nj * (uint64_t)(k + phi->k0));
				rng b;

				box_stream(&b, g, cell, 1);
				if (eligible(1, phi->a[s], phi, p) &&
				    top_up(pos, phi, i, j, k, count_pos ? count_pos[s] : 0,
					   p, &b, err))
					return -1;
				box_stream(&b, g, cell, -1);
				if (eligible(-1, phi->a[s], phi, p) &&
				    top_up(neg, phi, i, j, k, count_neg ? count_neg[s] : 0,
					   p, &b, err))
					return -1;
			}
	return 0;
}

/* Top up every band sample box to per_cell particles of each sign,
 * given the present counts (NULL: none), each box from its own stream
 * (box_stream).  g is not advanced. */
static int
fill_band(pls_set *pos, pls_set *neg, const field *phi, const pls_params *p,
	  const uint16_t *count_pos, const uint16_t *count_neg, const rng *g,
	  slc_err *err)
{
	return pls_fill_planes(pos, neg, phi, p, count_pos, count_neg, g, 0, phi->nk, err);
}

int
pls_seed(pls_set *pos, pls_set *neg, const field *phi, const pls_params *p,
	 rng *g, slc_err *err)
{
	pos->n = 0;
	neg->n = 0;
	return fill_band(pos, neg, phi, p, NULL, NULL, g, err);
}

void
pls_advect(pls_set *s, const macgrid *vel, double dt)
{
	long long q;

#pragma omp parallel for schedule(static)
	for (q = 0; q < (long long)s->n; q++) {
		double x[3], y[3], u0[3], u1[3];
		int a;

		get_x(s, (size_t)q, x);
		mac_velocity(vel, x, u0);
		for (a = 0; a < 3; a++)
			y[a] = x[a] + dt * u0[a];
		mac_velocity(vel, y, u1);
		for (a = 0; a < 3; a++)
			s->x[3 * q + a] = (float)(x[a] + 0.5 * dt * (u0[a] + u1[a]));
	}
}

/* phi at x: trilinear, or next to thin shells sh one-sided as at the
 * base of a semi-Lagrangian ray (guendelman2005 §4.4.2: escaped
 * particles and radii are judged "in the same fashion"), so that a
 * particle beside a shell does not read the other side's phi. */
static double
phi_at(const field *phi, const shell_set *sh, const double x[3])
{
	const shell_fallback fb = { SHELL_FILL_PHI, 0, 0, NULL };

	return sh ? shell_sample(phi, sh, &fb, x, NULL) : field_sample(phi, x);
}

/* Is particle q escaped: across the interface by more than its radius?
 * Sets *phi_p to phi at the particle (one-sided with shells sh). */
static int
escaped(const pls_set *s, size_t q, const field *phi, const shell_set *sh, double *phi_p)
{
	double x[3];

	get_x(s, q, x);
	*phi_p = phi_at(phi, sh, x);
	return s->sign * *phi_p < 0 && fabs(*phi_p) > s->r[q];
}

/* Apply the spheres of the escaped particles of s to phi+ (s > 0, max)
 * or phi- (s < 0, min) at the 8 samples around each; with shells sh,
 * only at the samples visible from the particle (guendelman2005 §4.4.2:
 * "only visible particles" correct the level set). */
static size_t
apply_spheres(const pls_set *s, const field *phi, float *ext, const shell_set *sh)
{
	double off[3], dx = phi->dx;
	int n[3] = { phi->ni, phi->nj, phi->nk };
	size_t q, used = 0;

	field_offset(phi, off);
	for (q = 0; q < s->n; q++) {
		double x[3], v;
		int base[3], a, di, dj, dk;

		if (!escaped(s, q, phi, sh, &v))
			continue;
		used++;
		get_x(s, q, x);
		for (a = 0; a < 3; a++) {
			double c = floor((x[a] - phi->origin[a]) / dx - off[a]);

			base[a] = c < 0 ? 0 : c > n[a] - 1 ? n[a] - 1 : (int)c;
		}
		for (dk = 0; dk < 2; dk++)
			for (dj = 0; dj < 2; dj++)
				for (di = 0; di < 2; di++) {
					int i = base[0] + di, j = base[1] + dj, k = base[2] + dk;
					double y[3], d, sp;
					size_t at;

					if (i >= n[0] || j >= n[1] || k >= n[2])
						continue;
					field_pos(phi, i, j, k, y);
					if (sh && !shell_visible(sh, x, y))
						continue;
					d = sqrt((y[0] - x[0]) * (y[0] - x[0]) +
						 (y[1] - x[1]) * (y[1] - x[1]) +
						 (y[2] - x[2]) * (y[2] - x[2]));
					sp = s->sign * (s->r[q] - d);
					at = FIELD_IDX(phi, i, j, k);
					if (s->sign > 0 ? sp > ext[at] : sp < ext[at])
						ext[at] = (float)sp;
				}
	}
	return used;
}

int
pls_correct(field *phi, const pls_set *pos, const pls_set *neg, size_t *used,
	    slc_err *err)
{
	return pls_correct_shell(phi, pos, neg, NULL, used, err);
}

size_t
pls_correct_spheres(const field *phi, const pls_set *pos, const pls_set *neg, const shell_set *sh,
		    float *plus, float *minus)
{
	return apply_spheres(pos, phi, plus, sh) + apply_spheres(neg, phi, minus, sh);
}

void
pls_correct_pick(field *phi, const float *plus, const float *minus)
{
	size_t n = field_count(phi), q;

	for (q = 0; q < n; q++)
		phi->a[q] = fabsf(plus[q]) <= fabsf(minus[q]) ? plus[q] : minus[q];
}

int
pls_correct_shell(field *phi, const pls_set *pos, const pls_set *neg, const shell_set *sh,
		  size_t *used, slc_err *err)
{
	size_t n = field_count(phi), u;
	float *plus = slc_malloc(n, sizeof *plus, err);
	float *minus = plus ? slc_malloc(n, sizeof *minus, err) : NULL;

	if (!minus) {
		free(plus);
		return -1;
	}
	memcpy(plus, phi->a, n * sizeof *plus);
	memcpy(minus, phi->a, n * sizeof *minus);
	u = pls_correct_spheres(phi, pos, neg, sh, plus, minus);
	pls_correct_pick(phi, plus, minus);
	free(plus);
	free(minus);
	if (used)
		*used = u;
	return 0;
}

void
pls_adjust_radii(pls_set *s, const field *phi, const pls_params *p)
{
	pls_adjust_radii_shell(s, phi, p, NULL);
}

void
pls_adjust_radii_shell(pls_set *s, const field *phi, const pls_params *p, const shell_set *sh)
{
	double rmin = p->rmin * phi->dx, rmax = p->rmax * phi->dx;
	long long q;

#pragma omp parallel for schedule(static)
	for (q = 0; q < (long long)s->n; q++) {
		double x[3], v;

		get_x(s, (size_t)q, x);
		v = s->sign * phi_at(phi, sh, x);
		s->r[q] = (float)(v > rmax ? rmax : v < rmin ? rmin : v);
	}
}

/* pls_prune_test with phi one-sided next to the shells sh (may be NULL). */
static int
prune_test(const pls_set *s, size_t q, const field *phi, const shell_set *sh,
	   const pls_params *p)
{
	double band = p->band * phi->dx, x[3], v;

	get_x(s, q, x);
	v = s->sign * phi_at(phi, sh, x);
	if (v < -p->escape_remove * s->r[q] || v > band + s->r[q] || !in_box(phi, x))
		return v < 0 && in_box(phi, x) ? 2 : 1;
	return 0;
}

int
pls_prune_test(const pls_set *s, size_t q, const field *phi, const pls_params *p)
{
	return prune_test(s, q, phi, NULL, p);
}

size_t
pls_prune(pls_set *s, const field *phi, const pls_params *p, pls_set *esc,
	  slc_err *err)
{
	return pls_prune_shell(s, phi, p, esc, NULL, err);
}

size_t
pls_prune_shell(pls_set *s, const field *phi, const pls_params *p, pls_set *esc,
		const shell_set *sh, slc_err *err)
{
	size_t q = 0, removed = 0;

	while (q < s->n) {
		int t = prune_test(s, q, phi, sh, p);

		if (t) {
			double x[3];

			get_x(s, q, x);
			if (esc && t == 2 && pls_set_push(esc, x, s->r[q], err))
				return (size_t)-1;
			pls_set_swap_remove(s, q);
			removed++;
			continue;
		}
		q++;
	}
	return removed;
}

long long
pls_box_of(const field *phi, const double x[3])
{
	return sample_of(phi, x);
}

int
pls_trim_limit(const pls_params *p)
{
	return TRIM_FACTOR * p->per_cell;
}

/* Count particles per sample box (saturating), and remove those beyond
 * TRIM_FACTOR x per_cell in a box. */
static int
count_and_trim(pls_set *s, const field *phi, const pls_params *p,
	       uint16_t *count)
{
	size_t q = 0;
	int limit = pls_trim_limit(p);

	while (q < s->n) {
		double x[3];
		long long at;

		get_x(s, q, x);
		at = sample_of(phi, x);
		if (at >= 0 && count[at] >= limit) {
			pls_set_swap_remove(s, q);
			continue;
		}
		if (at >= 0 && count[at] < UINT16_MAX)
			count[at]++;
		q++;
	}
	return 0;
}

int
pls_reseed(pls_set *pos, pls_set *neg, const field *phi, const pls_params *p,
	   rng *g, slc_err *err)
{
	size_t n = field_count(phi);
	uint16_t *cp, *cn;
	int rc;

	if (pls_prune(pos, phi, p, NULL, err) == (size_t)-1 ||
	    pls_prune(neg, phi, p, NULL, err) == (size_t)-1)
		return -1;
	cp = slc_calloc(n, sizeof *cp, err);
	cn = slc_calloc(n, sizeof *cn, err);
	if (!cp || !cn) {
		free(cp);
		free(cn);
		return -1;
	}
	count_and_trim(pos, phi, p, cp);
	count_and_trim(neg, phi, p, cn);
	rc = fill_band(pos, neg, phi, p, cp, cn, g, err);
	free(cp);
	free(cn);
	return rc;
}

double
pls_liquid_volume(const field *phi)
{
	double eps = phi->dx, sum = 0, cell = phi->dx * phi->dx * phi->dx;
	size_t q, n = field_count(phi);

	for (q = 0; q < n; q++) {
		double x = -phi->a[q];

		if (x >= eps)
			sum += 1;
		else if (x > -eps)
			sum += 0.5 + x / (2 * eps) + sin(M_PI * x / eps) / (2 * M_PI);
	}
	return sum * cell;
}

int
pls_to_rec(const pls_set *s, slc_rec *r, const char *name, double time,
	   slc_err *err)
{
	float *x, *rad;

	slc_rec_init(r, SLC_PARTICLES, name);
	r->time = time;
	x = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, s->n, err);
	rad = x ? slc_rec_add(r, "radius", SLC_F32, 1, SLC_POINT, s->n, err) : NULL;
	if (!rad) {
		slc_rec_free(r);
		return -1;
	}
	if (s->n) {     /* an empty set may have no arrays: memcpy wants them */
		memcpy(x, s->x, s->n * 3 * sizeof *x);
		memcpy(rad, s->r, s->n * sizeof *rad);
	}
	return 0;
}

int
pls_from_rec(pls_set *s, const slc_rec *r, int sign, slc_err *err)
{
	const float *x, *rad;
	uint64_t q, n;

	pls_set_init(s, sign);
	if (r->kind != SLC_PARTICLES)
		return slc_fail(err, "record '%s' is a %s, expected particles", r->name,
				slc_kind_name(r->kind));
	x = slc_rec_get(r, "P", SLC_F32, 3, 0, err);
	if (!x)
		return -1;
	n = slc_rec_find(r, "P")->count;
	rad = slc_rec_get(r, "radius", SLC_F32, 1, n, err);
	if (!rad)
		return -1;
	for (q = 0; q < n; q++) {
		double y[3] = { x[3 * q], x[3 * q + 1], x[3 * q + 2] };

		if (!isfinite(y[0]) || !isfinite(y[1]) || !isfinite(y[2]) ||
		    !(rad[q] > 0))
			return pls_set_free(s),
			       slc_fail(err, "particles '%s': particle %llu has a bad position or radius",
					r->name, (unsigned long long)q);
		if (pls_set_push(s, y, rad[q], err))
			return pls_set_free(s), -1;
	}
	return 0;
}
