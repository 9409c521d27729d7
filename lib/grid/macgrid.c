/* macgrid.c: MAC velocity helpers (allocation, checks, point velocity). */
#include "grid/macgrid.h"

#include <math.h>
#include <string.h>

int
mac_alloc(macgrid *m, int nci, int ncj, int nck, const double origin[3],
	  double dx, slc_err *err)
{
	memset(m, 0, sizeof *m);
	if (field_alloc(&m->u, nci, ncj, nck, SLC_FACE_X, origin, dx, err) ||
	    field_alloc(&m->v, nci, ncj, nck, SLC_FACE_Y, origin, dx, err) ||
	    field_alloc(&m->w, nci, ncj, nck, SLC_FACE_Z, origin, dx, err)) {
		mac_free(m);
		return -1;
	}
	return 0;
}

int
mac_alloc_like(macgrid *m, const macgrid *g, slc_err *err)
{
	int nci, ncj, nck;

	field_cell_dims(&g->u, &nci, &ncj, &nck);
	if (mac_alloc(m, nci, ncj, nck, g->u.origin, g->u.dx, err))
		return -1;
	/* a slab's planes of the whole grid (field.k0) */
	m->u.k0 = m->v.k0 = m->w.k0 = g->u.k0;
	m->u.nk_all = g->u.nk_all;
	m->v.nk_all = g->v.nk_all;
	m->w.nk_all = g->w.nk_all;
	return 0;
}

void
mac_free(macgrid *m)
{
	field_free(&m->u);
	field_free(&m->v);
	field_free(&m->w);
}

int
mac_copy(macgrid *dst, const macgrid *src, slc_err *err)
{
	int a;

	for (a = 0; a < 3; a++) {
		const field *s = mac_ccomp(src, a);
		field *d = mac_comp(dst, a);

		if (s->ni != d->ni || s->nj != d->nj || s->nk != d->nk)
			return slc_fail(err, "velocity copy: %dx%dx%d into %dx%dx%d",
					s->ni, s->nj, s->nk, d->ni, d->nj, d->nk);
		memcpy(d->a, s->a, field_count(s) * sizeof *s->a);
	}
	return 0;
}

field *
mac_comp(macgrid *m, int a)
{
	return a == 0 ? &m->u : a == 1 ? &m->v : &m->w;
}

const field *
mac_ccomp(const macgrid *m, int a)
{
	return a == 0 ? &m->u : a == 1 ? &m->v : &m->w;
}

int
mac_check(const macgrid *m, slc_err *err)
{
	static const char *const nm[3] = { "u", "v", "w" };
	int c[3][3], a, b;

	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(m, a);

		if (f->stagger != SLC_FACE_X + a)
			return slc_fail(err, "velocity '%s' is %s, expected %s",
					nm[a], slc_stagger_name((uint32_t)f->stagger),
					slc_stagger_name((uint32_t)(SLC_FACE_X + a)));
		field_cell_dims(f, &c[a][0], &c[a][1], &c[a][2]);
	}
	for (a = 1; a < 3; a++) {
		const field *f = mac_ccomp(m, a);

		for (b = 0; b < 3; b++)
			if (c[a][b] != c[0][b])
				return slc_fail(err, "velocity '%s': %dx%dx%d cells, but 'u' has %dx%dx%d",
						nm[a], c[a][0], c[a][1], c[a][2],
						c[0][0], c[0][1], c[0][2]);
		if (!field_same_cells(f, &m->u, &slc_place_exact))
			return slc_fail(err, "velocity '%s': placement (origin, dx) differs from 'u'",
					nm[a]);
	}
	return 0;
}

void
mac_velocity(const macgrid *m, const double x[3], double vel[3])
{
	vel[0] = field_sample(&m->u, x);
	vel[1] = field_sample(&m->v, x);
	vel[2] = field_sample(&m->w, x);
}

double
mac_max_speed(const macgrid *m)
{
	return mac_max_speed_seen(m, NULL);
}

double
mac_max_speed_seen(const macgrid *m, const field *solid)
{
	double mx[3];
	int bad = mac_max_comps_seen(m, solid, mx);

	return bad < 0 ? NAN : bad ? INFINITY : mac_speed_of(mx);
}

double
mac_speed_of(const double mx[3])
{
	double s2 = 0;
	int a;

	for (a = 0; a < 3; a++)
		s2 += mx[a] * mx[a];
	return sqrt(s2);
}

int
mac_max_comps_seen(const macgrid *m, const field *solid, double out[3])
{
	int a, inf = 0;

	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(m, a);
		size_t n = field_count(f), i, nbad = 0, ninf = 0;
		double mx = 0, deep = -MAC_SEEN_CELLS * f->dx;

		/* a NaN compares false: counted apart, so that it is not lost */
#pragma omp parallel for reduction(max : mx) reduction(+ : nbad, ninf) schedule(static)
		for (i = 0; i < n; i++) {
			double s = fabs((double)f->a[i]), x[3];

			nbad += s != s;
			ninf += s == INFINITY;
			if (!(s > mx))
				continue;
			if (solid) {
				field_pos(f, (int)(i % (size_t)f->ni),
					  (int)(i / (size_t)f->ni % (size_t)f->nj),
					  (int)(i / (size_t)f->ni / (size_t)f->nj), x);
				if (field_sample(solid, x) <= deep)
					continue;
			}
			mx = s;
		}
		if (nbad)
			return -1;
		inf |= ninf > 0;
		out[a] = mx;
	}
	return inf;
}

int
mac_check_finite(const macgrid *m, slc_err *err)
{
	static const char *const name[3] = { "u", "v", "w" };
	int a;

	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(m, a);
		slc_chan c = { .type = SLC_F32, .ncomp = 1, .domain = SLC_SAMPLE,
			       .count = field_count(f), .data = f->a };
		int64_t q = slc_chan_first_nonfinite(&c, NULL, NULL);

		if (q >= 0)
			return slc_fail(err, "field '%s': %s at cell (%lld,%lld,%lld)", name[a],
					isnan(f->a[q]) ? "NaN" : "Inf", (long long)(q % f->ni),
					(long long)(q / f->ni % f->nj),
					(long long)(q / f->ni / f->nj));
	}
	return 0;
}
