/* rigid_set.c: the rigid bodies of a frame inside advect (rigid_set.h). */
#include "fluid/rigid_set.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Channel b of a level set record: the record's name for body 0 (a
 * one-body record is an ordinary one-channel grid), NAME.b after. */
static void
chan_name(char *buf, size_t len, const char *rec, int b)
{
	if (b == 0)
		snprintf(buf, len, "%s", rec);
	else
		snprintf(buf, len, "%s.%d", rec, b);
}

/* A field made on the cells of `cells`: over MPI ranks, the same k slab
 * of the whole grid (field.h's k0, nk_all; cells' k planes are its
 * cells'), so that positions are the whole grid's. */
static void
slab_of(field *f, const field *cells)
{
	f->k0 = cells->k0;
	f->nk_all = cells->nk_all;
}

/* Borrow channel b of grid record r as a cell-centred field. */
static int
borrow(field *f, const slc_rec *r, int b, int n, slc_err *err)
{
	if (r->grid.stagger != SLC_CELL)
		return slc_fail(err, "record '%s': %s grid, expected cell-centred", r->name,
				slc_stagger_name(r->grid.stagger));
	if (r->nchan < (uint32_t)n)
		return slc_fail(err, "record '%s': %u channels for %d rigid bodies", r->name,
				r->nchan, n);
	const slc_chan *c = &r->chan[b];
	if (c->type != SLC_F32 || c->ncomp != 1 || c->domain != SLC_SAMPLE)
		return slc_fail(err, "record '%s' channel '%s': %s x%u, expected f32 x1 samples",
				r->name, c->name, slc_type_name(c->type), c->ncomp);
	if (field_from_rec(f, r, c->name, err))
		return -1;
	for (size_t s = 0, m = field_count(f); s < m; s++)
		if (!isfinite(f->a[s]))
			return slc_fail(err, "record '%s' channel '%s': sample %zu not finite",
					r->name, c->name, s);
	return 0;
}

/* rigid_phi0 from an older frame's rigid_phi: the world grid moved to the
 * first such body's centre of mass; each body's level set read back at its
 * pose (exactly the stored samples for the first body when it is not
 * rotated, trilinear otherwise). */
static int
phi0_from_world(rigid_set *rs, const slc_rec *pw, slc_err *err)
{
	slc_grid g = pw->grid;
	field w;
	char nm[SLC_NAME_MAX + 1];

	int b0 = 0;
	while (rs->sh.has[b0])
		b0++;   /* the first body with a level set */
	for (int a = 0; a < 3; a++)
		g.origin[a] -= rs->b[b0].P[a];
	slc_rec *r = &rs->phi0_new;
	if (!slc_grid_new(r, "rigid_phi0", &g, 1, err))
		return -1;
	for (int c = 1; c < rs->nls; c++) {
		chan_name(nm, sizeof nm, "rigid_phi0", c);
		if (!slc_rec_add(r, nm, SLC_F32, 1, SLC_SAMPLE, r->chan[0].count, err))
			return -1;
	}
	for (int b = 0, c = 0; b < rs->n; b++) {
		if (rs->sh.has[b])
			continue;
		if (borrow(&w, pw, c, rs->nls, err) || borrow(&rs->phi0[b], r, c, rs->nls, err))
			return -1;
		c++;
		field *f = &rs->phi0[b];
		for (int k = 0; k < f->nk; k++)
			for (int j = 0; j < f->nj; j++)
				for (int i = 0; i < f->ni; i++) {
					double y[3], x[3];
					field_pos(f, i, j, k, y);
					rigid_rotate(rs->b[b].q, y, x);
					for (int a = 0; a < 3; a++)
						x[a] += rs->b[b].P[a];
					f->a[FIELD_IDX(f, i, j, k)] = (float)field_sample(&w, x);
				}
	}
	return 0;
}

int
rigid_set_load(rigid_set *rs, const slc_frame *F, const field *cells, slc_err *err)
{
	int ni, nj, nk;
	slc_rec *rig, *p0, *pw;

	memset(rs, 0, sizeof *rs);
	rs->walls = 1;
	if (slc_frame_get(F, "rigid", SLC_PARTICLES, &rig, err))
		return -1;
	if (!rig)
		return 0;
	if (rigid_bodies_read(rig, &rs->b, &rs->n, err)) {
		char m[sizeof err->msg];
		snprintf(m, sizeof m, "%s", err->msg);
		return strncmp(m, "record '", 8) ? slc_fail(err, "record 'rigid': %s", m) : -1;
	}
	if (!rs->n)
		return 0;
	rs->phi0 = slc_calloc((size_t)rs->n, sizeof *rs->phi0, err);
	rs->phi = slc_calloc((size_t)rs->n, sizeof *rs->phi, err);
	rs->reach = slc_calloc((size_t)rs->n, sizeof *rs->reach, err);
	if (!rs->phi0 || !rs->phi || !rs->reach)
		return -1;
	if (rigid_shells_load(&rs->sh, F, rs->n, err))
		return -1;
	for (int b = 0; b < rs->n; b++)
		rs->nls += !rs->sh.has[b];
	if (!rs->nls) {
		/* every body is a shell: no level set to read */
	} else if (slc_frame_get(F, "rigid_phi0", SLC_GRID, &p0, err)) {
		return -1;
	} else if (p0) {
		for (int b = 0, c = 0; b < rs->n; b++)
			if (!rs->sh.has[b] && borrow(&rs->phi0[b], p0, c++, rs->nls, err))
				return -1;
	} else if (slc_frame_get(F, "rigid_phi", SLC_GRID, &pw, err)) {
		return -1;
	} else if (pw) {
		if (pw->nk_all > 0)
			return slc_fail(err, "no 'rigid_phi0' record (an older frame): run advect on one "
					"MPI rank for this frame, which writes it");
		if (phi0_from_world(rs, pw, err))
			return -1;
	} else {
		return slc_fail(err, "%d rigid bodies but no 'rigid_phi0' or 'rigid_phi' record",
				rs->nls);
	}
	field_cell_dims(cells, &ni, &nj, &nk);
	if (field_alloc(&rs->solid, ni, nj, nk, SLC_CELL, cells->origin, cells->dx, err) ||
	    field_alloc(&rs->uo[0], ni, nj, nk, SLC_CELL, cells->origin, cells->dx, err) ||
	    field_alloc(&rs->uo[1], ni, nj, nk, SLC_CELL, cells->origin, cells->dx, err) ||
	    field_alloc(&rs->uo[2], ni, nj, nk, SLC_CELL, cells->origin, cells->dx, err))
		return -1;
	slab_of(&rs->solid, cells);
	for (int a = 0; a < 3; a++)
		slab_of(&rs->uo[a], cells);
	for (int b = 0; b < rs->n; b++) {
		if (rs->sh.has[b]) {
			rs->reach[b] = rigid_shells_reach(&rs->sh, b);
			rigid_shells_place(&rs->sh, b, rs->b[b].P, rs->b[b].q);
			continue;
		}
		if (field_alloc(&rs->phi[b], ni, nj, nk, SLC_CELL, cells->origin, cells->dx, err))
			return -1;
		slab_of(&rs->phi[b], cells);
		rs->reach[b] = rigid_reach(&rs->phi0[b]);
		rigid_phi_place(&rs->phi[b], &rs->phi0[b], &rs->b[b]);
	}
	return 0;
}

int
rigid_set_owns(const slc_rec *r)
{
	if (r->kind == SLC_GRID)
		return !strcmp(r->name, "rigid_phi") || !strcmp(r->name, "rigid_phi0");
	if (rigid_shell_rec(r))
		return 1;
	return r->kind == SLC_PARTICLES && !strcmp(r->name, "rigid");
}

double
rigid_set_max_speed(const rigid_set *rs)
{
	double m = 0;

	for (int b = 0; b < rs->n; b++) {
		const rigid_body *B = &rs->b[b];
		double s = sqrt(B->v[0] * B->v[0] + B->v[1] * B->v[1] + B->v[2] * B->v[2]) +
			   rs->reach[b] * sqrt(B->omega[0] * B->omega[0] + B->omega[1] * B->omega[1] +
					       B->omega[2] * B->omega[2]);
		m = s > m ? s : m;
	}
	return m;
}

void
rigid_set_solid(rigid_set *rs, const field *solid, const field *uo)
{
	const field *c0 = &rs->solid;
	field *csolid = &rs->solid, *cuo = rs->uo;
	double band = RIGID_BAND_CELLS * c0->dx;

#pragma omp parallel for schedule(static)
	for (int k = 0; k < c0->nk; k++)
		for (int j = 0; j < c0->nj; j++)
			for (int i = 0; i < c0->ni; i++) {
				size_t c = FIELD_IDX(c0, i, j, k);
				double s = solid ? solid->a[c] : INFINITY, bp = INFINITY, x[3];
				int best = -1;
				for (int b = 0; b < rs->n; b++)
					/* a shell has no inside: project's cut faces */
					if (!rs->sh.has[b] && rs->phi[b].a[c] < bp)
						bp = rs->phi[b].a[c], best = b;
				csolid->a[c] = (float)(bp < s ? bp : s);
				if (best >= 0 && bp < band && bp <= s) {
					const rigid_body *B = &rs->b[best];
					field_pos(c0, i, j, k, x);
					double r[3] = {x[0] - B->P[0], x[1] - B->P[1], x[2] - B->P[2]};
					/* the rigid velocity v + omega x r */
					cuo[0].a[c] = (float)(B->v[0] + B->omega[1] * r[2] - B->omega[2] * r[1]);
					cuo[1].a[c] = (float)(B->v[1] + B->omega[2] * r[0] - B->omega[0] * r[2]);
					cuo[2].a[c] = (float)(B->v[2] + B->omega[0] * r[1] - B->omega[1] * r[0]);
				} else {
					for (int a = 0; a < 3; a++)
						cuo[a].a[c] = uo ? uo[a].a[c] : 0.0f;
				}
			}
}

void
rigid_set_step(rigid_set *rs, const double g[3], double t, double dt)
{
	for (int b = 0; b < rs->n; b++) {
		rigid_body_step(&rs->b[b], g, t, dt);
		if (rs->walls) {
			const field *c = &rs->solid;
			double lo[3], hi[3], ext[2][3];
			int n[3] = {c->ni, c->nj, c->nk_all > 0 ? c->nk_all : c->nk};
			for (int a = 0; a < 3; a++) {
				lo[a] = c->origin[a];
				hi[a] = c->origin[a] + c->dx * n[a];
			}
			if (rs->sh.has[b]) {
				rigid_shells_extent(&rs->sh, b, rs->b[b].q, ext);
				rigid_body_box_push(&rs->b[b], ext, lo, hi);
			} else
				rigid_body_box_contact(&rs->b[b], &rs->phi0[b], lo, hi);
		}
		if (rs->sh.has[b])
			rigid_shells_place(&rs->sh, b, rs->b[b].P, rs->b[b].q);
		else
			rigid_phi_place(&rs->phi[b], &rs->phi0[b], &rs->b[b]);
	}
}

/* Each rigid shell's P and v at its body's pose. */
static int
store_shells(rigid_set *rs, double time, slc_err *err)
{
	double *x = slc_malloc(9 * (size_t)rs->n, sizeof *x, err);

	if (!x)
		return -1;
	for (int b = 0; b < rs->n; b++)
		for (int a = 0; a < 3; a++) {
			x[3 * b + a] = rs->b[b].P[a];
			x[3 * (rs->n + b) + a] = rs->b[b].v[a];
			x[3 * (2 * rs->n + b) + a] = rs->b[b].omega[a];
		}
	int rc = rigid_shells_store(&rs->sh, x, x + 3 * rs->n, x + 6 * rs->n, time, err);
	free(x);
	return rc;
}

int
rigid_set_store(rigid_set *rs, slc_frame *F, double time, slc_err *err)
{
	slc_rec *rig, *old, out;
	char nm[SLC_NAME_MAX + 1];
	slc_grid g;

	if (slc_frame_get(F, "rigid", SLC_PARTICLES, &rig, err))
		return -1;
	if (!rig || !rs->n)
		return 0;
	if (slc_rec_own(rig, err) || rigid_bodies_write(rig, rs->b, rs->n, err))
		return -1;
	rig->time = time;
	if (rs->sh.n && store_shells(rs, time, err))
		return -1;
	if (!rs->nls)
		return 0;
	int b0 = 0;
	while (rs->sh.has[b0])
		b0++;
	const field *f = &rs->phi[b0];
	g = (slc_grid){f->ni, f->nj, f->nk, SLC_CELL, {f->origin[0], f->origin[1], f->origin[2]},
		       f->dx};
	memset(&out, 0, sizeof out);
	if (!slc_grid_new(&out, "rigid_phi", &g, 1, err))
		return -1;
	out.k0 = f->k0;         /* an MPI rank's slab, gathered by the tool */
	out.nk_all = f->nk_all;
	for (int b = 0, c = 0; b < rs->n; b++) {
		float *d = out.chan[0].data;
		if (rs->sh.has[b])
			continue;
		if (c++ > 0) {
			chan_name(nm, sizeof nm, "rigid_phi", c - 1);
			if (!(d = slc_rec_add(&out, nm, SLC_F32, 1, SLC_SAMPLE, out.chan[0].count, err))) {
				slc_rec_free(&out);
				return -1;
			}
		}
		memcpy(d, rs->phi[b].a, field_count(f) * sizeof *d);
	}
	out.time = time;
	if ((old = slc_frame_find_undecoded(F, "rigid_phi", SLC_GRID))) {
		/* in its place in the stream */
		slc_rec_free(old);
		*old = out;
	} else if (!slc_frame_put(F, &out, err)) {
		slc_rec_free(&out);
		return -1;
	}
	if (rs->phi0_new.kind == SLC_GRID) {
		rs->phi0_new.time = time;
		/* moved: rs->phi0, which borrows its samples, stays valid */
		if (!slc_frame_put(F, &rs->phi0_new, err))
			return -1;
	}
	return 0;
}

void
rigid_set_free(rigid_set *rs)
{
	for (int b = 0; b < rs->n && rs->phi; b++)
		field_free(&rs->phi[b]);
	rigid_shells_free(&rs->sh);
	free(rs->phi);
	free(rs->phi0);
	field_free(&rs->solid);
	for (int a = 0; a < 3; a++)
		field_free(&rs->uo[a]);
	free(rs->reach);
	free(rs->b);
	slc_rec_free(&rs->phi0_new);
	memset(rs, 0, sizeof *rs);
}
