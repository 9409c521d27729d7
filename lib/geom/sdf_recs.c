/* sdf_recs.c: level sets and occlusion velocities of stream records (the
 * record side of sdf.c and occlusion.c): points, radii, triangles and
 * vertex velocities read from their channels, and the grid placed around
 * them. */
#include "geom/sdf_recs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/occlusion.h"

/* Channel chan of r, 3 components per point, as doubles (caller frees),
 * or NULL with err naming r. */
static double *
points(const slc_rec *r, const char *chan, uint64_t *n, slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, chan);
	double *p = slc_rec_get_f64(r, chan, 3, n, err);

	/* slc_rec_get_f64 names the record itself, unless memory ran out */
	if (!p && c && c->ncomp == 3)
		slc_failctx(err, "record '%s': ", r->name);
	return p;
}

void
sdf_recs_select(const slc_frame *F, const char *from, int *use,
		int *nmesh, int *npart, int *nhair, double *t0)
{
	*nmesh = *npart = *nhair = 0;
	for (size_t q = 0; q < F->n; q++) {
		const slc_rec *r = F->r[q];
		uint32_t k = r->kind;

		use[q] = (k == SLC_MESH || k == SLC_PARTICLES || k == SLC_STRANDS) &&
			 (!from || slc_name_listed(r->name, from));
		*nmesh += use[q] && k == SLC_MESH;
		*npart += use[q] && k == SLC_PARTICLES;
		*nhair += use[q] && k == SLC_STRANDS;
		if (use[q] && *nmesh + *npart + *nhair == 1)
			*t0 = r->time;
	}
}

int
sdf_recs_bounds(const slc_frame *F, const int *use, double grow,
		double lo[3], double hi[3], slc_err *err)
{
	for (int m = 0; m < 3; m++) {
		lo[m] = INFINITY;
		hi[m] = -INFINITY;
	}
	for (size_t q = 0; q < F->n; q++) {
		uint64_t np;
		double *P, g = 0;

		if (!use[q])
			continue;
		if (slc_frame_decode(F, F->r[q], err) || !(P = points(F->r[q], "P", &np, err)))
			return -1;
		if (F->r[q]->kind != SLC_MESH)
			g = grow > 0 ? grow : 0;
		for (uint64_t p = 0; p < 3 * np; p++) {
			lo[p % 3] = fmin(lo[p % 3], P[p] - g);
			hi[p % 3] = fmax(hi[p % 3], P[p] + g);
		}
		free(P);
	}
	if (!(lo[0] <= hi[0]))
		return slc_fail(err, "the input records have no points to place a grid around");
	return 0;
}

int
sdf_recs_like(const slc_frame *F, slc_grid *g, slc_err *err)
{
	size_t q;
	uint32_t s;

	for (q = 0; q < F->n && F->r[q]->kind != SLC_GRID; q++)
		;
	if (q == F->n)
		return slc_fail(err, "no grid record to take the placement from");
	*g = F->r[q]->grid;
	s = F->r[q]->grid.stagger;
	g->stagger = SLC_CELL;
	g->ni -= s == SLC_NODE || s == SLC_FACE_X;
	g->nj -= s == SLC_NODE || s == SLC_FACE_Y;
	g->nk -= s == SLC_NODE || s == SLC_FACE_Z;
	return 0;
}

int
sdf_recs_place(const slc_frame *F, const int *use, const slc_frame *like,
	       const double *box, double pad, double dx, long res, double grow,
	       slc_grid *g, slc_err *err)
{
	double lo[3], hi[3];

	if (like)
		return sdf_recs_like(like, g, err);
	if (box) {
		memcpy(lo, box, sizeof lo);
		memcpy(hi, box + 3, sizeof hi);
	} else if (sdf_recs_bounds(F, use, grow, lo, hi, err)) {
		return -1;
	}
	return sdf_place(lo, hi, box ? 0 : pad, dx, res, g, err);
}

int
sdf_recs_replaces(const char *name, const char *out, int occl)
{
	size_t l = strlen(out);

	return !strcmp(name, out) || (occl && !strncmp(name, out, l) &&
				      (!strcmp(name + l, "_vel") || !strcmp(name + l, "_slip")));
}

int
sdf_rec(field *phi, const slc_rec *r, double radius, const sdf_opts *o,
	int32_t *closest, sdf_stats *st, slc_err *err)
{
	uint64_t nv, np;
	double *P, *rad = NULL;
	int rc;

	if (!(P = points(r, "P", &nv, err)))
		return -1;
	if (r->kind != SLC_MESH && slc_rec_find(r, "radius") &&
	    !(rad = slc_rec_get_f64(r, "radius", 1, &np, err))) {
		free(P);
		return slc_failctx(err, "%s '%s': ", slc_kind_name(r->kind), r->name);
	}
	if (r->kind == SLC_PARTICLES) {
		rc = sdf_particles(phi, P, rad, radius, nv, o, err);
	} else if (r->kind == SLC_STRANDS) {
		const uint32_t *off = slc_rec_get(r, "offset", SLC_U32, 1, 0, err);

		rc = !off || sdf_strands(phi, P, rad, radius, nv, off,
					 slc_rec_find(r, "offset")->count - 1, o, err) ? -1 : 0;
	} else if (r->kind == SLC_MESH) {
		const uint32_t *tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err);

		if (st)
			memset(st, 0, sizeof *st);
		rc = !tri || sdf_mesh(phi, P, nv, tri, slc_rec_find(r, "tri")->count, o,
				      closest, st, err) ? -1 : 0;
	} else {
		rc = slc_fail(err, "not a mesh, particles or strands");
	}
	free(rad);
	free(P);
	return rc ? slc_failctx(err, "%s '%s': ", slc_kind_name(r->kind), r->name) : 0;
}

int
sdf_rec_velocity(const field *phi, const slc_rec *r, const slc_frame *prev,
		 double dt, const int32_t *closest, float *vel, int *bad_dt,
		 slc_err *err)
{
	const uint32_t *tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err);
	const slc_rec *r0;
	uint64_t nv, n0;
	double *P, *V = NULL, *P0;
	int rc;

	if (!tri)
		return slc_failctx(err, "mesh '%s': ", r->name);
	if (!(P = points(r, "P", &nv, err)))
		return -1;
	if (slc_rec_find(r, "v")) {
		if (!(V = points(r, "v", &n0, err))) {
			free(P);
			return -1;
		}
	} else if (prev) {
		if (!(r0 = slc_frame_find(prev, r->name, SLC_MESH))) {
			free(P);
			return slc_fail(err, "no mesh named '%s'", r->name);
		}
		if (!(P0 = points(r0, "P", &n0, err))) {
			free(P);
			return -1;
		}
		if (n0 != nv) {
			free(P0);
			free(P);
			return slc_fail(err, "mesh '%s' has %llu vertices, this frame %llu",
					r->name, (unsigned long long)n0,
					(unsigned long long)nv);
		}
		if (dt <= 0)
			dt = r->time - r0->time;
		V = slc_calloc(nv ? nv : 1, 3 * sizeof *V, err);
		/* a bad time step is occlusion_frame_velocity's only failure */
		rc = V ? occlusion_frame_velocity(P0, P, nv, dt, V, err) : -1;
		if (V && rc && bad_dt)
			*bad_dt = 1;
		if (rc) {
			free(V);
			free(P0);
			free(P);
			return slc_failctx(err, "mesh '%s': ", r->name);
		}
		free(P0);
	}
	occlusion_velocity(phi, P, V, tri, closest, vel);
	free(V);
	free(P);
	return 0;
}

void
sdf_recs_out_free(sdf_recs_out *out)
{
	field_free(&out->phi);
	free(out->vel);
	free(out->slip);
	out->vel = out->slip = NULL;
}

/* One record's level set into obj (and, for a mesh with in->occl, its
 * velocity into ovel), united into out with slip s.  0, or -1 with err and
 * out's failure figures. */
static int
levelset_one(const slc_rec *r, const sdf_recs_in *in, field *obj, float *ovel,
	     float s, sdf_recs_out *out, slc_err *err)
{
	size_t n = field_count(obj);
	int32_t *closest = NULL;
	sdf_stats st = { 0 };  /* sdf_rec zeroes it only once it has a mesh's points */

	if (in->occl && r->kind == SLC_MESH &&
	    !(closest = slc_calloc(n, sizeof *closest, err)))
		return -1;
	if (sdf_rec(obj, r, in->radius, &in->o, closest, &st, err)) {
		out->step = SDF_RECS_SHAPE;
		out->thin_shell = r->kind == SLC_MESH && st.thin_shell;
		free(closest);
		return -1;
	}
	if (r->kind == SLC_MESH && in->mesh_done)
		in->mesh_done(in->ctx, r, &st);
	if (closest && sdf_rec_velocity(obj, r, in->prev, in->dt, closest, ovel,
					&out->bad_dt, err)) {
		out->step = SDF_RECS_VELOCITY;
		free(closest);
		return -1;
	}
	/* houston2003 §2: union of the occlusions, sample by sample */
	occlusion_union(n, out->phi.a, out->vel, out->slip, obj->a, ovel, s);
	free(closest);
	return 0;
}

int
sdf_recs_levelset(const slc_frame *F, const sdf_recs_in *in, const slc_grid *g,
		  sdf_recs_out *out, slc_err *err)
{
	field obj = { 0 };
	float *ovel = NULL;
	size_t n, q;
	int rc = 0;

	memset(out, 0, sizeof *out);
	out->bad = F->n;
	out->step = SDF_RECS_GRIDS;
	if (field_alloc(&out->phi, g->ni, g->nj, g->nk, SLC_CELL, g->origin, g->dx, err) ||
	    field_alloc_like(&obj, &out->phi, err))
		return -1;
	n = field_count(&out->phi);
	if (in->occl && (!(out->vel = slc_calloc(n, 3 * sizeof *out->vel, err)) ||
			 !(ovel = slc_calloc(n, 3 * sizeof *ovel, err)) ||
			 !(out->slip = slc_calloc(n, sizeof *out->slip, err)))) {
		field_free(&obj);
		free(ovel);
		return -1;
	}
	for (size_t c = 0; c < n; c++)
		out->phi.a[c] = INFINITY;
	for (q = 0; q < F->n && !rc; q++) {
		if (!in->use[q])
			continue;
		rc = slc_frame_decode(F, F->r[q], err) ? -1
		     : levelset_one(F->r[q], in, &obj, ovel,
				    (float)(in->slip ? in->slip[q] : 0), out, err);
		if (rc)
			out->bad = q;
	}
	field_free(&obj);
	free(ovel);
	return rc;
}
