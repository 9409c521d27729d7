/* project_stage.c: project's frame: records in, pressure projection,
 * records out (batty2007; selle2008 §4.4.2); see project_stage.h. */
#include "stage/project_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gridplace.h"
#include "core/meta.h"
#include "fluid/rigid.h"
#include "grid/field.h"

#ifdef SLC_MPI
#include "comm/halo.h"
#endif

const char *const project_precond_names[] = {"mg", "mic0", NULL};
const char *const project_weight_names[] = {"variational", "binary", NULL};
const char *const project_bc_names[] = {"wall", "stored", "open", NULL};

/* The communicator of the stage's calls: NULL for one process; in an
 * MPI build the ranks whose k slabs the frame's grids are (the same in
 * every call). */
static int
stage_comm(project_stage *S, slc_comm *comm, int load, slc_err *err)
{
#ifdef SLC_MPI
	if (load)
		S->comm = comm;
	else if (comm != S->comm)
		return slc_fail(err, "project stage: another communicator than at load");
	return 0;
#else
	(void)S;
	(void)load;
	return slc_comm_serial(comm, err);
#endif
}

/* The record of F with this name and kind, or NULL; more than one is an
 * error. */
static int
find(slc_frame *F, const char *name, uint32_t kind, slc_rec **out, slc_err *err)
{
	return slc_frame_find_unique(F, name, kind, out, err);
}

/* Channel chan (f32 x ncomp) of the cell-centred grid record `name` on
 * the velocity's cells, or NULL in *out when F has no such record. */
static int
cell_grid(project_stage *S, const char *name, int ncomp, int chan, const float **out,
	  slc_err *err)
{
	slc_rec *r;
	field g;

	*out = NULL;
	if (find(S->F, name, SLC_GRID, &r, err))
		return -1;
	if (!r)
		return 0;
	field_place_rec(&g, r);
	if (g.stagger != SLC_CELL || !field_same_cells(&g, &S->m.u, &slc_place_rounded))
		return slc_fail(err, "record '%s': %s grid %dx%dx%d, expected the velocity's "
				"%dx%dx%d cells", name, slc_stagger_name((uint32_t)g.stagger),
				g.ni, g.nj, g.nk, S->ni, S->nj, S->nk);
	if ((uint32_t)chan >= r->nchan)
		return slc_fail(err, "record '%s': %u channels, expected at least %d", name,
				r->nchan, chan + 1);
	slc_chan *c = &r->chan[chan];
	if (c->type != SLC_F32 || c->ncomp != (uint32_t)ncomp)
		return slc_fail(err, "record '%s' channel '%s': %s x%d, expected f32 x%d", name,
				c->name, slc_type_name(c->type), c->ncomp, ncomp);
	if (slc_rec_check_finite(r, S->frame, err))
		return -1;
	*out = c->data;
	return 0;
}

/* The scene's frame number (for messages) and, unless given, its dt. */
static int
load_scene(project_stage *S, slc_err *err)
{
	slc_rec *scene;
	slc_scene sc = {-1, 0, S->o.dt > 0 ? S->o.dt : NAN};

	if (find(S->F, "scene", SLC_META, &scene, err))
		return -1;
	if (slc_scene_read(scene, &sc, err))
		return slc_failctx(err, "record 'scene': ");
	S->frame = (long)sc.frame;
	S->dt = sc.dt > 0 ? sc.dt : 0;
	return 0;
}

/* u, v, w: one MAC grid of finite values, borrowed from their records. */
static int
load_velocity(project_stage *S, slc_err *err)
{
	static const char *const vn[3] = {"u", "v", "w"};

	for (int a = 0; a < 3; a++) {
		if (find(S->F, vn[a], SLC_GRID, &S->vel[a], err))
			return -1;
		if (!S->vel[a])
			return slc_fail(err, "no '%s' grid record (project needs the velocity "
					"u, v, w)", vn[a]);
		if (slc_rec_check_finite(S->vel[a], S->frame, err))
			return -1;
		if (field_from_rec(mac_comp(&S->m, a), S->vel[a], NULL, err))
			return slc_failctx(err, "record '%s': ", vn[a]);
	}
	if (mac_check(&S->m, err))
		return -1;
	field_cell_dims(&S->m.u, &S->ni, &S->nj, &S->nk);
	return 0;
}

/* The rigid bodies (fluid/rigid.h) and their level sets. */
static int
load_bodies(project_stage *S, slc_err *err)
{
	slc_rec *phib;

	if (find(S->F, "rigid", SLC_PARTICLES, &S->rigid, err))
		return -1;
	if (S->rigid && rigid_read(S->rigid, &S->body, &S->nbody, err))
		return slc_failctx(err, "record 'rigid': ");
	S->phib = slc_calloc(S->nbody ? (size_t)S->nbody : 1, sizeof *S->phib, err);
	if (!S->phib)
		return -1;
	/* bodies shaped by a shell have no level set (rigid_shell.h) */
	if (S->nbody && rigid_shells_load(&S->rsh, S->F, S->nbody, err))
		return -1;
	if (S->comm && S->rsh.n)
		return slc_fail(err, "rigid bodies shaped by a shell run on one rank only");
	int nls = 0;
	for (int b = 0; b < S->nbody; b++)
		nls += !S->rsh.has[b];
	if (nls && find(S->F, "rigid_phi", SLC_GRID, &phib, err))
		return -1;
	if (nls && !phib)
		return slc_fail(err, "%d rigid bodies but no 'rigid_phi' record", nls);
	for (int b = 0, c = 0; b < S->nbody; b++)
		if (!S->rsh.has[b] && cell_grid(S, "rigid_phi", 1, c++, &S->phib[b], err))
			return -1;
	return 0;
}

/* The face weights of the solve (batty2007 §2.1): the open fraction of
 * each face, from the solid level set and the rigid bodies' (binary with
 * --weights binary).  Whatever else the fluid must not flow through
 * closes its faces here. */
static int
face_weights(project_stage *S, slc_err *err)
{
	S->wx = slc_calloc(field_count(&S->m.u), sizeof *S->wx, err);
	S->wy = S->wx ? slc_calloc(field_count(&S->m.v), sizeof *S->wy, err) : NULL;
	S->wz = S->wy ? slc_calloc(field_count(&S->m.w), sizeof *S->wz, err) : NULL;
	if (!S->wz)
		return -1;
	if (rigid_weights(S->solid, S->phib, S->body, S->nbody, S->ni, S->nj, S->nk,
			  S->o.binary, S->wx, S->wy, S->wz, err))
		return -1;
	return rigid_shells_cut(&S->rsh, S->body, S->ni, S->nj, S->nk, S->m.u.dx,
				S->m.u.origin, S->wx, S->wy, S->wz, &S->rcut, err);
}

/* Over MPI ranks, the face fractions of the ghost planes (the open ones
 * and each body's) from their owners: a slab's own computation of its
 * outermost planes lacks the level set beyond them (weights.c reads a
 * cell either side of a face), and the multigrid's coarse ghost planes
 * are made from the fine ones.  The faces above the last cell plane
 * held by a rank below the top are read by nothing the owned cells
 * depend on.  0, or -1 with err. */
static int
halo_weights(project_stage *S, slc_err *err)
{
#ifdef SLC_MPI
	size_t ni = (size_t)S->ni, nj = (size_t)S->nj, e = sizeof *S->wx;

	if (!S->comm)
		return 0;
	if (slc_halo_cells(S->comm, S->wx, (ni + 1) * nj * e, err) ||
	    slc_halo_cells(S->comm, S->wy, ni * (nj + 1) * e, err) ||
	    slc_halo_cells(S->comm, S->wz, ni * nj * e, err))
		return -1;
	for (int b = 0; b < S->nbody; b++)
		if (slc_halo_cells(S->comm, (void *)S->body[b].bx, (ni + 1) * nj * e, err) ||
		    slc_halo_cells(S->comm, (void *)S->body[b].by, ni * (nj + 1) * e, err) ||
		    slc_halo_cells(S->comm, (void *)S->body[b].bz, ni * nj * e, err))
			return -1;
#else
	(void)S;
	(void)err;
#endif
	return 0;
}

int
project_stage_load(project_stage *S, slc_frame *F, const project_opts *o,
		   slc_comm *comm, slc_err *err)
{
	memset(S, 0, sizeof *S);
	S->F = F;
	S->o = *o;
	if (stage_comm(S, comm, 1, err))
		return -1;
	if (load_scene(S, err) || load_velocity(S, err) ||
	    cell_grid(S, "solid", 1, 0, &S->solid, err) ||
	    cell_grid(S, "phi", 1, 0, &S->phi, err) ||
	    cell_grid(S, "solid_vel", 3, 0, &S->solid_vel, err) ||
	    load_bodies(S, err))
		goto fail;
	if (face_weights(S, err) || halo_weights(S, err))
		goto fail;
	return 0;
fail:
	project_stage_free(S);
	return -1;
}

int
project_stage_solve(project_stage *S, project_stats *st, slc_comm *comm, slc_err *err)
{
	psys *ps = &S->ps;
	macgrid *m = &S->m;

	memset(st, 0, sizeof *st);
	if (stage_comm(S, comm, 0, err))
		return -1;
	psys_in in = {.ni = S->ni, .nj = S->nj, .nk = S->nk, .dx = m->u.dx,
		      .origin = m->u.origin, .rho = S->o.density,
		      .wx = S->wx, .wy = S->wy, .wz = S->wz, .phi = S->phi,
		      .body = S->body, .nbody = S->nbody, .bc = S->o.bc,
		      .held = {S->held[0], S->held[1], S->held[2]},
		      .hv = {S->hv[0], S->hv[1], S->hv[2]}, .shell = S->shell,
		      .comm = S->comm, .k0 = m->u.k0};
	if (psys_init(ps, &in, err))
		return -1;
	psys_set_voxelized(ps, S->o.binary);
	const float *const vel[3] = {m->u.a, m->v.a, m->w.a};
	if (rigid_cut_mass(&S->rcut, ps, S->body, S->nbody, vel, S->phi, S->o.density, err))
		return -1;
	S->b = slc_calloc(ps->n, sizeof *S->b, err);
	S->x = S->b ? slc_calloc(ps->n, sizeof *S->x, err) : NULL;
	if (!S->x)
		return -1;
	if (psys_rhs(ps, m->u.a, m->v.a, m->w.a, S->solid_vel, S->b, &S->removed, err))
		return -1;
	pcg_opts po = {S->o.precond, S->o.tol, S->o.maxiter};
	if (pcg_solve(ps, S->b, S->x, &po, &S->st, err))
		return -1;
	psys_update(ps, S->x, m->u.a, m->v.a, m->w.a, S->solid_vel);
	rigid_cut_hold(&S->rcut, S->body, (float *const[3]){m->u.a, m->v.a, m->w.a}, m->u.dx,
		       m->u.origin);
	S->solved = 1;
	st->pcg = S->st;
	st->nregion = ps->nregion;
	st->nenclosed = ps->nenclosed;
	st->have_dt = S->dt > 0;
	return 0;
}

/* A cell grid record made on the velocity's cells: over ranks, the same
 * slab of the whole grid as the velocity's (core/slc.h's k0, nk_all). */
static void
slab_of(const project_stage *S, slc_rec *r)
{
	r->k0 = S->m.u.k0;
	r->nk_all = S->m.u.nk_all;
}

/* The pressure in Pa (psys_pressure) into every grid record 'p' of the
 * frame, or a new one at its end. */
static int
store_pressure(project_stage *S, slc_err *err)
{
	field p;
	int have = 0;

	if (field_alloc(&p, S->ni, S->nj, S->nk, SLC_CELL, S->m.u.origin, S->m.u.dx, err))
		return -1;
	psys_pressure(&S->ps, S->x, S->dt, p.a);
	for (size_t q = 0; q < S->F->n; q++) {
		slc_rec *r = S->F->r[q];
		if (r->kind != SLC_GRID || strcmp(r->name, "p"))
			continue;
		slc_rec_free(r);
		if (field_to_rec(&p, r, "p", S->vel[0]->time, err))
			goto fail;
		slab_of(S, r);
		have = 1;
	}
	if (!have) {
		slc_rec r;
		slc_rec_init(&r, SLC_GRID, "p");
		if (field_to_rec(&p, &r, "p", S->vel[0]->time, err))
			goto fail;
		slab_of(S, &r);
		if (!slc_frame_put(S->F, &r, err)) {
			slc_rec_free(&r);
			goto fail;
		}
	}
	field_free(&p);
	return 0;
fail:
	field_free(&p);
	return -1;
}

/* The metadata record 'project': what the last solve did. */
static int
store_meta(project_stage *S, slc_err *err)
{
	slc_rec rec, *meta = &rec, *old;
	char val[64];

	while ((old = slc_frame_find(S->F, "project", SLC_META)))
		slc_frame_remove(S->F, old);
	if (slc_meta_init(meta, "project", err))
		goto fail;
#define SETV(k, ...) do { snprintf(val, sizeof val, __VA_ARGS__); \
		if (slc_meta_set(meta, k, val, err)) goto fail; } while (0)
	SETV("iterations", "%d", S->st.iters);
	SETV("residual", "%.6g", S->st.residual);
	SETV("converged", "%d", S->st.converged);
	SETV("precond", "%s", project_precond_names[S->o.precond]);
	SETV("weights", "%s", project_weight_names[S->o.binary]);
	SETV("tol", "%.6g", S->o.tol);
	SETV("boundary", "%s", project_bc_names[S->o.bc]);
	SETV("regions", "%d", S->ps.nregion);
	SETV("enclosed", "%d", S->ps.nenclosed);
	SETV("compat_flux", "%.6g", S->removed * S->m.u.dx * S->m.u.dx);
#undef SETV
	if (!slc_frame_put(S->F, meta, err))
		goto fail;
	return 0;
fail:
	slc_rec_free(meta);
	return -1;
}

int
project_stage_store(project_stage *S, slc_comm *comm, slc_err *err)
{
	if (stage_comm(S, comm, 0, err))
		return -1;
	if (!S->solved)
		return slc_fail(err, "nothing solved to store");
	if (S->dt > 0 && store_pressure(S, err))
		return -1;
	if (S->nbody && rigid_write(S->rigid, S->body, S->nbody, err))
		return slc_failctx(err, "record 'rigid': ");
	if (store_meta(S, err))
		return -1;
	for (size_t q = 0; q < S->F->n; q++)
		if (project_stage_changed(S, S->F->r[q]) && slc_rec_check_finite(S->F->r[q], S->frame, err))
			return -1;
	return 0;
}

int
project_stage_changed(const project_stage *S, const slc_rec *r)
{
	if (r == S->vel[0] || r == S->vel[1] || r == S->vel[2] || (S->nbody && r == S->rigid))
		return 1;
	if (r->kind == SLC_GRID && !strcmp(r->name, "p"))
		return S->dt > 0;
	return r->kind == SLC_META && !strcmp(r->name, "project");
}

void
project_stage_free(project_stage *S)
{
	psys_free(&S->ps);
	rigid_free_fractions(S->body, S->nbody);
	rigid_cut_free(&S->rcut);
	rigid_shells_free(&S->rsh);
	free(S->body);
	free(S->phib);
	free(S->wx);
	free(S->wy);
	free(S->wz);
	free(S->b);
	free(S->x);
	memset(S, 0, sizeof *S);
}
