/* recfield.c: grid records of several channels or components as fields
 * (recfield.h). */
#include "fluid/recfield.h"

#include "core/gridplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An owned zeroed field with the placement of grid record r. */
static int
like_rec(field *f, const slc_rec *r, slc_err *err)
{
	int32_t d[3];

	slc_grid_cells(&r->grid, d);    /* field_alloc takes cell dims */
	if (field_alloc(f, d[0], d[1], d[2], (int)r->grid.stagger, r->grid.origin,
			r->grid.dx, err))
		return -1;
	f->k0 = r->k0;          /* a slab's planes (slc_rec.k0) */
	f->nk_all = r->nk_all;
	return 0;
}

/* The placement of grid record r, without samples; 0, or -1 with err
 * (bad dims or dx, sample count overflows). */
static int
place_rec(field *f, const slc_rec *r, slc_err *err)
{
	size_t n;

	field_place_rec(f, r);
	if (f->ni < 1 || f->nj < 1 || f->nk < 1 || !(f->dx > 0) || !isfinite(f->dx))
		return slc_fail(err, "bad grid dims %dx%dx%d or dx %g", f->ni, f->nj, f->nk, f->dx);
	if (slc_mul3((size_t)f->ni, (size_t)f->nj, (size_t)f->nk, &n))
		return slc_fail(err, "grid %dx%dx%d overflows", f->ni, f->nj, f->nk);
	return 0;
}

int
recfield_advect(slc_rec *r, const macgrid *vel, double dt, const advect_opts *o,
		advect_stats *st, slc_err *err)
{
	field q = {0}, out = {0};
	size_t n = 0;
	int rc = 0;

	/* every channel has the record's placement: one output field (and
	 * one gather buffer for interleaved components) serves them all; both
	 * are written in full before they are read */
	for (uint32_t c = 0; c < r->nchan && !rc; c++) {
		slc_chan *ch = &r->chan[c];
		float *d = ch->data;
		uint32_t nc = ch->ncomp;

		if (ch->type != SLC_F32 || ch->domain != SLC_SAMPLE)
			continue;
		if (!out.a) {
			if (place_rec(&out, r, err) ||
			    !(out.a = advect_pool_take(o->pool, field_count(&out), err))) {
				rc = -1;
				break;
			}
			n = field_count(&out);
			q = out;
		}
		if ((size_t)ch->count != n) {
			rc = slc_fail(err, "channel '%s': %zu samples, grid has %zu", ch->name,
				      (size_t)ch->count, n);
			break;
		}
		if (nc == 1) {
			/* the channel's own samples are the field */
			field v = out;

			v.a = d;
			v.owned = 0;
			if (!(rc = advect_field(vel, dt, &v, &out, o, st, err)))
				memcpy(d, out.a, n * sizeof *d);
			continue;
		}
		if (q.a == out.a && !(q.a = advect_pool_take(o->pool, n, err))) {
			rc = -1;
			break;
		}
		for (uint32_t m = 0; m < nc && !rc; m++) {
			for (size_t s = 0; s < n; s++)
				q.a[s] = d[s * nc + m];
			rc = advect_field(vel, dt, &q, &out, o, st, err);
			for (size_t s = 0; s < n && !rc; s++)
				d[s * nc + m] = out.a[s];
		}
	}
	if (q.a != out.a)
		advect_pool_give(o->pool, q.a);
	advect_pool_give(o->pool, out.a);
	return rc;
}

int
recfield_vec3(const slc_rec *r, field f[3], slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, r->name);

	memset(f, 0, 3 * sizeof *f);
	if (!c || c->type != SLC_F32 || c->ncomp != 3)
		return slc_fail(err, "grid '%s': expected channel '%s' f32 x3", r->name, r->name);
	for (int a = 0; a < 3; a++) {
		if (like_rec(&f[a], r, err)) {
			for (int b = 0; b < a; b++)
				field_free(&f[b]);
			return -1;
		}
		size_t n = field_count(&f[a]);
		if (n != c->count) {
			for (int b = 0; b <= a; b++)
				field_free(&f[b]);
			return slc_fail(err, "grid '%s': %llu samples, grid has %zu", r->name,
					(unsigned long long)c->count, n);
		}
		for (size_t s = 0; s < n; s++)
			f[a].a[s] = ((const float *)c->data)[3 * s + a];
	}
	return 0;
}
