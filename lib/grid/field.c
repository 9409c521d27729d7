/* field.c: allocation, placement and trilinear sampling of grid fields. */
#include "grid/field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
field_alloc(field *f, int nci, int ncj, int nck, int stagger,
	    const double origin[3], double dx, slc_err *err)
{
	size_t n;

	memset(f, 0, sizeof *f);
	if (nci < 1 || ncj < 1 || nck < 1)
		return slc_fail(err, "bad grid dims %dx%dx%d", nci, ncj, nck);
	if (!(dx > 0) || !isfinite(dx))
		return slc_fail(err, "bad dx %g", dx);
	if (stagger < 0 || stagger >= SLC_STAGGER_COUNT)
		return slc_fail(err, "bad staggering %d", stagger);
	f->ni = nci + (stagger == SLC_NODE || stagger == SLC_FACE_X);
	f->nj = ncj + (stagger == SLC_NODE || stagger == SLC_FACE_Y);
	f->nk = nck + (stagger == SLC_NODE || stagger == SLC_FACE_Z);
	f->stagger = stagger;
	memcpy(f->origin, origin, sizeof f->origin);
	f->dx = dx;
	if (slc_mul3((size_t)f->ni, (size_t)f->nj, (size_t)f->nk, &n))
		return slc_fail(err, "grid %dx%dx%d overflows", f->ni, f->nj, f->nk);
	f->a = slc_calloc(n, sizeof *f->a, err);
	if (!f->a)
		return -1;
	f->owned = 1;
	return 0;
}

int
field_alloc_like(field *f, const field *g, slc_err *err)
{
	int nci, ncj, nck;

	field_cell_dims(g, &nci, &ncj, &nck);
	if (field_alloc(f, nci, ncj, nck, g->stagger, g->origin, g->dx, err))
		return -1;
	f->k0 = g->k0;
	f->nk_all = g->nk_all;
	return 0;
}

void
field_free(field *f)
{
	if (f->owned)
		free(f->a);
	memset(f, 0, sizeof *f);
}

size_t
field_count(const field *f)
{
	return (size_t)f->ni * (size_t)f->nj * (size_t)f->nk;
}

void
field_cell_dims(const field *f, int *nci, int *ncj, int *nck)
{
	slc_grid g;
	int32_t c[3];

	field_grid(f, &g);
	slc_grid_cells(&g, c);
	*nci = c[0];
	*ncj = c[1];
	*nck = c[2];
}

void
field_offset(const field *f, double off[3])
{
	off[0] = (f->stagger == SLC_NODE || f->stagger == SLC_FACE_X) ? 0 : 0.5;
	off[1] = (f->stagger == SLC_NODE || f->stagger == SLC_FACE_Y) ? 0 : 0.5;
	off[2] = (f->stagger == SLC_NODE || f->stagger == SLC_FACE_Z) ? 0 : 0.5;
}

void
field_pos(const field *f, int i, int j, int k, double x[3])
{
	double off[3];

	field_offset(f, off);
	x[0] = f->origin[0] + f->dx * (i + off[0]);
	x[1] = f->origin[1] + f->dx * (j + off[1]);
	x[2] = f->origin[2] + f->dx * (k + f->k0 + off[2]);
}

/* Split a sample-space coordinate into a clamped base index and weight. */
static void
locate(double s, int n, int *i0, double *t)
{
	double fl;

	if (n < 2 || !(s > 0)) {    /* also catches NaN */
		*i0 = 0;
		*t = 0;
		return;
	}
	if (s >= n - 1) {
		*i0 = n - 2;
		*t = 1;
		return;
	}
	fl = floor(s);
	*i0 = (int)fl;
	*t = s - fl;
}

double
field_sample(const field *f, const double x[3])
{
	double off[3], tx, ty, tz;
	int i, j, k;
	const float *p;
	size_t di, sj, sk;

	field_offset(f, off);
	locate((x[0] - f->origin[0]) / f->dx - off[0], f->ni, &i, &tx);
	locate((x[1] - f->origin[1]) / f->dx - off[1], f->nj, &j, &ty);
	/* a slab's plane: the whole grid's coordinate less k0, exact */
	locate(((x[2] - f->origin[2]) / f->dx - off[2]) - f->k0, f->nk, &k, &tz);
	/* a dimension of one sample has no neighbour to blend with */
	di = f->ni > 1;
	sj = f->nj > 1 ? (size_t)f->ni : 0;
	sk = f->nk > 1 ? (size_t)f->ni * f->nj : 0;
	p = f->a + FIELD_IDX(f, i, j, k);
	return (1 - tz) * ((1 - ty) * ((1 - tx) * p[0] + tx * p[di]) +
			   ty * ((1 - tx) * p[sj] + tx * p[sj + di])) +
	       tz * ((1 - ty) * ((1 - tx) * p[sk] + tx * p[sk + di]) +
		     ty * ((1 - tx) * p[sk + sj] + tx * p[sk + sj + di]));
}

void
field_gradient(const field *f, const double x[3], double g[3])
{
	double y[3];
	int a;

	/* central difference of the interpolant over one cell keeps the
	 * gradient continuous across cell faces */
	for (a = 0; a < 3; a++) {
		double hi, lo;

		memcpy(y, x, sizeof y);
		y[a] = x[a] + 0.5 * f->dx;
		hi = field_sample(f, y);
		y[a] = x[a] - 0.5 * f->dx;
		lo = field_sample(f, y);
		g[a] = (hi - lo) / f->dx;
	}
}

int
field_from_rec(field *f, const slc_rec *r, const char *chan, slc_err *err)
{
	const slc_chan *c = NULL;
	size_t n;

	memset(f, 0, sizeof *f);
	if (r->kind != SLC_GRID)
		return slc_fail(err, "record '%s' is a %s, not a grid", r->name,
				slc_kind_name(r->kind));
	if (chan)
		c = slc_rec_find(r, chan);
	else if (!(c = slc_rec_find(r, r->name)) && r->nchan == 1)
		c = &r->chan[0];
	if (!c)
		return slc_fail(err, "grid '%s' has no channel '%s'", r->name,
				chan ? chan : r->name);
	if (c->type != SLC_F32 || c->ncomp != 1)
		return slc_fail(err, "grid '%s' channel '%s' is %s x%u, expected f32 x1",
				r->name, c->name, slc_type_name(c->type), c->ncomp);
	if (slc_grid_count(&r->grid, &n) || n != c->count)
		return slc_fail(err, "grid '%s' channel '%s' has %llu samples for dims %dx%dx%d",
				r->name, c->name, (unsigned long long)c->count,
				r->grid.ni, r->grid.nj, r->grid.nk);
	field_place_rec(f, r);
	f->a = c->data;
	return 0;
}

void
field_grid(const field *f, slc_grid *g)
{
	g->ni = f->ni, g->nj = f->nj, g->nk = f->nk;
	g->stagger = (uint32_t)f->stagger;
	memcpy(g->origin, f->origin, sizeof g->origin);
	g->dx = f->dx;
}

int
field_same_cells(const field *a, const field *b, const slc_place_tol *tol)
{
	slc_grid ga, gb;

	field_grid(a, &ga);
	field_grid(b, &gb);
	return slc_grid_same_cells(&ga, &gb, tol);
}

int
field_same_place(const field *a, const field *b, const slc_place_tol *tol)
{
	return a->stagger == b->stagger && field_same_cells(a, b, tol);
}

void
field_place_rec(field *f, const slc_rec *r)
{
	memset(f, 0, sizeof *f);
	f->ni = r->grid.ni;
	f->nj = r->grid.nj;
	f->nk = r->grid.nk;
	f->stagger = (int)r->grid.stagger;
	memcpy(f->origin, r->grid.origin, sizeof f->origin);
	f->dx = r->grid.dx;
	f->k0 = r->k0;
	f->nk_all = r->nk_all;
}

int
field_to_rec(const field *f, slc_rec *r, const char *name, double time,
	     slc_err *err)
{
	slc_grid g;
	float *a;

	g.ni = f->ni;
	g.nj = f->nj;
	g.nk = f->nk;
	g.stagger = (uint32_t)f->stagger;
	memcpy(g.origin, f->origin, sizeof g.origin);
	g.dx = f->dx;
	a = slc_grid_new(r, name, &g, 1, err);
	if (!a)
		return -1;
	memcpy(a, f->a, field_count(f) * sizeof *a);
	r->time = time;
	return 0;
}
