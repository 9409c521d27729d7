/* advect_stage.c: the frame physics of advect, substep by substep, each
 * phase a function of its own (advect_stage.h). */
#include "stage/advect_stage.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fluid/forces.h"
#include "fluid/recfield.h"
#include "grid/extrapolate.h"

#ifdef SLC_MPI
#include <stdlib.h>

#include "comm/halo.h"
#include "comm/migrate.h"
#include "liquid/pls_redist.h"
#include "liquid/pls_solid.h"
#endif

/* A rest of the frame this close (relative) to the substep length is one
 * whole substep, so that rounding neither leaves a vanishing last
 * substep nor makes the last one differ from it in its last bits. */
#define SUBSTEP_SLACK 1e-9

/* Cells of velocity extrapolation into the air of a liquid (thesis §2.9). */
#define EXTRAP_BAND 5

/* Vortex seeding draws its own random stream in every substep of every
 * frame (vortex_seed's `call`), keyed by the substep's place in the whole
 * bake: this many keys per frame, as many as a frame may have substeps
 * (ADVECT_MAX_SUBSTEPS when the key was made), so that no two substeps of
 * any frames share a stream.  The value fixes the seeded particles of
 * every bake made so far: it stays, whatever the substep cap becomes. */
#define VORTEX_KEYS_PER_FRAME 100000
_Static_assert(ADVECT_MAX_SUBSTEPS <= VORTEX_KEYS_PER_FRAME,
	       "a frame's substeps would share vortex seeding streams with the next frame's");

static const double no_g[3];

int
advect_stage_ghost(int scheme, double c, double d)
{
	int pass = scheme == ADVECT_BFECC ? 3 : scheme == ADVECT_MACCORMACK ? 2 : 1;
	double g = pass * (ceil(c) + 2), e = ceil(d) + 2;

	g = g > e ? g : e;
	g = g > ADVECT_FORCE_GHOST ? g : ADVECT_FORCE_GHOST;
	return g < 1e6 ? (int)g : 1000000;
}

int
advect_stage_opts_ghost(const advect_stage_opts *o)
{
	if (o->substep > 0 || !(o->cfl > 0))
		return -1;
	return advect_stage_ghost(o->scheme, o->cfl, o->cfl + 2);
}

void
advect_stage_defaults(advect_stage_opts *o)
{
	static const vortex_opts vortex = { 0, 2e-3, 4, VORTEX_GAUSSIAN, 1 };

	memset(o, 0, sizeof *o);
	o->scheme = ADVECT_MACCORMACK;
	o->limiter = ADVECT_LIMIT_REVERT;
	o->cfl = 1;
	o->dt = NAN;
	o->gravity[0] = o->gravity[1] = o->gravity[2] = NAN;
	o->source_density = 1;
	o->source_temperature = 1;
	o->source_velocity[0] = o->source_velocity[1] = o->source_velocity[2] = NAN;
	o->vortex = vortex;
	o->pls = ADVECT_PLS_AUTO;
	o->reseed = 10;
	o->per_cell = 16;
	o->shell_eps = ADVECT_SHELL_EPS;
}

/* The message in err prefixed with the frame being made.  -1. */
static int
in_frame(const advect_stage *S, slc_err *err)
{
	return slc_failctx(err, "frame %.0f: ", S->frame + 1);
}

/* --- load ----------------------------------------------------------- */

/* The vortex particles of the frame: checked, or made when seeding
 * needs them. */
static int
load_vortex(advect_stage *S, slc_err *err)
{
	const advect_stage_opts *o = &S->o;

	if (slc_frame_get(S->F, "vortex", SLC_PARTICLES, &S->vort, err))
		return -1;
	if (S->vort && vortex_check(S->vort, err))
		return -1;
	if (o->vortex.rate > 0 && !S->AF.have_src)
		return slc_fail(err, "vortex seeding needs a source region");
	if (o->vortex.rate > 0 && !S->vort) {
		if (!(S->vort = slc_frame_add(S->F, SLC_PARTICLES, "vortex", err)))
			return -1;
		if (vortex_new(S->vort, err)) {
			slc_frame_remove(S->F, S->vort);
			S->vort = NULL;
			return -1;
		}
	}
	return 0;
}

#ifdef SLC_MPI
/* A liquid over MPI ranks: its marker particles are divided among the
 * ranks (mk_*, below), the grid phases (velocity extrapolation, the
 * level set, spray, the walls) run on the whole grids, gathered to every
 * rank from the owned planes of each, with the serial code: the same
 * bits on every rank and as one process.  Vortex particles are divided
 * too (vx_*), their force summed on the whole velocity.
 *
 * Why the level set's redistancing and the velocity extrapolation are
 * not computed per slab with ghost planes: owned values would equal the
 * serial ones only if no owned value depended on a sample beyond the
 * ghosts, and that does not hold for any width.
 *  - Fast marching (pls_redistance, grid/fmm.c): a sample's value
 *    depends on its accepted neighbours, all smaller, but only the
 *    smallest is smaller by dx/sqrt(3) or more; the update sum_a (d -
 *    m_a)^2 = dx^2 also takes neighbours only a little smaller, with a
 *    weight (d - m_a) / sum_b (d - m_b) <= (d - m_a) / dx.  Along a
 *    surface nearly parallel to the slab face the chain of such
 *    neighbours runs across any number of planes; a ghost plane that
 *    lacks its outer neighbour reaches an owned sample B sqrt(3) + 1 =
 *    15 planes away (band B = 8) through a product of weights that can
 *    be (8/15)^15 ~ 1e-4: far above a float's rounding.
 *  - Extrapolation (pls_step.c, extrapolate_comp): faces are visited in
 *    order of (phi, index); a flat surface gives a whole layer equal
 *    phi, and each face then averages its neighbour of lower index,
 *    already set: a chain along k through every plane.  Its
 *    divergence-free band (divfree_band) is lexicographic SOR with a
 *    stopping test over the whole band: one sweep carries a change
 *    across every plane.
 * Either would need a change of the serial algorithm (red-black sweeps,
 * an order that does not chain along k), and with it a new baseline. */

/* The whole grid of slab field s into w on every rank (w allocated on
 * first use: s's placement over its nk_all planes).  Collective. */
static int
mpi_whole(slc_comm *c, const field *s, field *w, slc_err *err)
{
	if (!w->a) {
		*w = *s;
		w->nk = s->nk_all;
		w->k0 = w->nk_all = 0;
		w->owned = 1;
		if (!(w->a = slc_malloc(field_count(w), sizeof *w->a, err)))
			return -1;
	}
	return slc_comm_whole_planes(c, s->a, s->k0, s->nk_all, w->a,
				     (size_t)s->ni * (size_t)s->nj * sizeof *s->a, err);
}

/* The planes slab field s holds (ghosts too), from the whole w. */
static void
mpi_slab(field *s, const field *w)
{
	memcpy(s->a, w->a + (size_t)s->k0 * (size_t)s->ni * (size_t)s->nj,
	       field_count(s) * sizeof *s->a);
}

/* The velocity (and with solid, the solid) whole on every rank (nothing
 * alone). */
static int
mpi_whole_in(advect_stage *S, int solid, slc_err *err)
{
	if (!S->comm)
		return 0;
	for (int a = 0; a < 3; a++)
		if (mpi_whole(S->comm, mac_comp(&S->AF.vel, a), mac_comp(&S->velw, a), err))
			return -1;
	return solid && S->sol ? mpi_whole(S->comm, S->sol, &S->solw, err) : 0;
}

/* The slab's velocity (and with phi, level set) from the whole grids
 * (nothing alone). */
static void
mpi_whole_out(advect_stage *S, int phi)
{
	if (!S->comm)
		return;
	for (int a = 0; a < 3; a++)
		mpi_slab(mac_comp(&S->AF.vel, a), mac_comp(&S->velw, a));
	if (phi)
		mpi_slab(&S->phi, &S->phiw);
}

/* The smoke source whole on every rank (vortex seeding). */
static int
mpi_whole_src(advect_stage *S, slc_err *err)
{
	return S->comm ? mpi_whole(S->comm, &S->AF.src, &S->srcw, err) : 0;
}

/* The source and the solid vortex particles see. */
static const field *
whole_src(advect_stage *S)
{
	return S->comm ? &S->srcw : &S->AF.src;
}

static const field *
whole_sol(advect_stage *S)
{
	return S->comm && S->sol ? &S->solw : S->sol;
}

/* The liquid's whole level set at load. */
static int
mpi_liquid_load(advect_stage *S, slc_err *err)
{
	return S->comm ? mpi_whole(S->comm, &S->phi, &S->phiw, err) : 0;
}

/* The level set the liquid's phases run on. */
static field *
liquid_phi(advect_stage *S)
{
	return S->comm ? &S->phiw : &S->phi;
}

/* The velocity the liquid's and vortex particles' phases read and
 * change. */
static macgrid *
whole_vel(advect_stage *S)
{
	return S->comm ? &S->velw : &S->AF.vel;
}

/* --- marker particles owned by slabs --------------------------------- */

/* Over MPI ranks the marker particles are divided (mpi.md §3.5): each
 * rank holds those in its cell planes, with their ids, their places in
 * the serial arrays (comm/migrate.h).  Everything a substep does to one
 * marker depends on that marker and the whole grids alone (its move,
 * collision, radius, pruning), or is a maximum or minimum over markers
 * (the corrections' spheres): each rank does it to its own, and the
 * removals are renumbered as the serial swap-remove loops would have
 * placed the survivors.  Spray stays whole on every rank: a landing
 * changes phi and the velocity that the next landing reads, in the
 * serial loop's order. */

/* A marker between ranks: its id, position (m) and radius (m). */
typedef struct mk_item {
	uint64_t id;
	float x[3], r;
} mk_item;

/* A removed marker: its id, where it was, escaped (2) or not (1). */
typedef struct mk_gone {
	uint64_t id;
	float x[3], r;
	uint32_t how, pad;
} mk_gone;

/* The markers of sign index a: 0 positive, 1 negative. */
static pls_set *
mk_set(advect_stage *S, int a)
{
	return a ? &S->water.neg : &S->water.pos;
}

/* The rank owning the cell plane of height z (m) of the liquid's grid. */
static int
mk_owner(const advect_stage *S, double z)
{
	double k = floor((z - S->phiw.origin[2]) / S->phiw.dx);

	return slc_comm_owner(S->comm, k < 0 ? -1 : k >= S->comm->nk ? S->comm->nk : (int)k);
}

/* Set a from n items (its ids with them).  0, or -1 with err. */
static int
mk_from_items(advect_stage *S, int a, const mk_item *it, size_t n, slc_err *err)
{
	pls_set *s = mk_set(S, a);
	uint64_t *id = slc_malloc(n ? n : 1, sizeof *id, err);
	size_t q;

	if (!id)
		return -1;
	s->n = 0;
	for (q = 0; q < n; q++) {
		double x[3] = { it[q].x[0], it[q].x[1], it[q].x[2] };

		if (pls_set_push(s, x, it[q].r, err)) {
			free(id);
			return -1;
		}
		id[q] = it[q].id;
	}
	free(S->mid[a]);
	S->mid[a] = id;
	return 0;
}

/* The markers of set a as items (malloc'd), or NULL with err. */
static mk_item *
mk_items(advect_stage *S, int a, slc_err *err)
{
	const pls_set *s = mk_set(S, a);
	mk_item *it = slc_malloc(s->n ? s->n : 1, sizeof *it, err);
	size_t q;

	for (q = 0; it && q < s->n; q++) {
		it[q].id = S->mid[a][q];
		memcpy(it[q].x, &s->x[3 * q], sizeof it[q].x);
		it[q].r = s->r[q];
	}
	return it;
}

/* The markers that moved into another rank's planes sent there, those
 * that moved into this rank's received (after every move).  Collective.
 * 0, or -1 with err. */
static int
mk_migrate(advect_stage *S, slc_err *err)
{
	for (int a = 0; a < 2; a++) {
		const pls_set *s = mk_set(S, a);
		mk_item *it = mk_items(S, a, err), *got = NULL;
		int *dest = it ? slc_malloc(s->n ? s->n : 1, sizeof *dest, err) : NULL;
		size_t q, n = 0, sent = 0;
		int rc;

		for (q = 0; dest && q < s->n; q++)
			dest[q] = mk_owner(S, s->x[3 * q + 2]);
		rc = !dest || slc_migrate(S->comm, it, s->n, sizeof *it, dest, (void **)&got, &n,
					  &sent, err) ||
		     mk_from_items(S, a, got, n, err);
		free(got);
		free(dest);
		free(it);
		if (rc)
			return -1;
		S->migrated += sent;
	}
	return 0;
}

static int
gone_cmp(const void *pa, const void *pb)
{
	const mk_gone *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* The markers of set a with flag[q] nonzero removed, the survivors'
 * ids their places after the serial loop r replays. */
static void
mk_compact(advect_stage *S, int a, const unsigned char *flag, const slc_swap_replay *r)
{
	pls_set *s = mk_set(S, a);
	uint64_t *id = S->mid[a];
	size_t q, keep = 0;

	for (q = 0; q < s->n; q++)
		if (!flag[q]) {
			memmove(&s->x[3 * keep], &s->x[3 * q], 3 * sizeof *s->x);
			s->r[keep] = s->r[q];
			id[keep++] = slc_swap_replay_place(r, id[q]);
		}
	s->n = keep;
	S->mall[a] = r->n;
}

/* A removal pass over set a as the serial swap-remove loop makes it over
 * the whole set: flag[q] 1 for a marker of this rank going, 2 for one
 * going as escaped (appended to esc, when not NULL, in the order the
 * serial loop removes them).  The survivors' ids become their places
 * after that loop (slc_swap_replay).  *gone: the number removed over
 * every rank.  Collective.  0, or -1 with err. */
static int
mk_remove(advect_stage *S, int a, const unsigned char *flag, pls_set *esc, size_t *gone,
	  slc_err *err)
{
	pls_set *s = mk_set(S, a);
	uint64_t *id = S->mid[a], *cand = NULL;
	size_t q, n = 0, nall = 0, m;
	mk_gone *mine, *all = NULL;
	slc_swap_replay r = { 0 };
	int rc = -1;

	for (q = 0; q < s->n; q++)
		n += flag[q] != 0;
	if (!(mine = slc_malloc(n ? n : 1, sizeof *mine, err)))
		return -1;
	for (q = 0, n = 0; q < s->n; q++)
		if (flag[q]) {
			mine[n].id = id[q];
			memcpy(mine[n].x, &s->x[3 * q], sizeof mine[n].x);
			mine[n].r = s->r[q];
			mine[n].how = flag[q];
			mine[n++].pad = 0;
		}
	if (slc_allgather_items(S->comm, mine, n, sizeof *mine, (void **)&all, &nall, err))
		goto out;
	qsort(all, nall, sizeof *all, gone_cmp);
	if (!(cand = slc_malloc(nall ? nall : 1, sizeof *cand, err)))
		goto out;
	for (m = 0; m < nall; m++)
		cand[m] = all[m].id;
	if (slc_swap_replay_run(S->mall[a], cand, nall, NULL, NULL, &r, err))
		goto out;
	for (m = 0; esc && m < r.nremoved; m++) {
		const mk_gone *g = &all[r.order[m]];
		double x[3] = { g->x[0], g->x[1], g->x[2] };

		if (g->how == 2 && pls_set_push(esc, x, g->r, err))
			goto out;
	}
	mk_compact(S, a, flag, &r);
	*gone = r.nremoved;
	rc = 0;
out:
	slc_swap_replay_free(&r);
	free(cand);
	free(all);
	free(mine);
	return rc;
}

/* The removal passes of pls_step over the markers of this rank. */
enum mk_pass_kind {
	MK_INSIDE,      /* a fresh seeding's markers inside the solid
			   (pls_drop_inside) */
	MK_COLLIDE,     /* pls_collide */
	MK_PRUNE        /* pls_prune, the negative escaped ones into esc */
};

/* One removal pass over both sets, positive then negative as pls_step
 * makes them; *gone: the number removed over every rank.  Collective.
 * 0, or -1 with err. */
static int
mk_pass(advect_stage *S, enum mk_pass_kind kind, pls_set *esc, size_t *gone, slc_err *err)
{
	const pls_water *w = &S->water;

	*gone = 0;
	for (int a = 0; a < 2; a++) {
		pls_set *s = mk_set(S, a);
		unsigned char *flag = slc_malloc(s->n ? s->n : 1, 1, err);
		size_t q, g = 0;
		int rc;

		if (!flag)
			return -1;
		for (q = 0; q < s->n; q++) {
			double x[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] };
			int t = 0;

			if (kind == MK_INSIDE)
				t = field_sample(w->solid, x) < 0;
			else if (kind == MK_COLLIDE)
				t = pls_collide_one(s, q, w->solid);
			else if ((t = pls_prune_test(s, q, &S->phiw, &w->o.p)) && !a)
				t = 1;  /* pls_step keeps no escaped positive one */
			flag[q] = (unsigned char)t;
		}
		rc = mk_remove(S, a, flag, a ? esc : NULL, &g, err);
		free(flag);
		if (rc)
			return -1;
		*gone += g;
	}
	return 0;
}

/* pls_correct_shell over the ranks: each applies its markers' spheres,
 * the maxima and minima folded over every rank (exact in any order),
 * then every rank picks alike. */
static int
mk_correct(advect_stage *S, slc_err *err)
{
	field *phi = &S->phiw;
	size_t n = field_count(phi);
	float *plus = slc_malloc(n, sizeof *plus, err);
	float *minus = plus ? slc_malloc(n, sizeof *minus, err) : NULL;
	int rc = -1;

	if (minus) {
		memcpy(plus, phi->a, n * sizeof *plus);
		memcpy(minus, phi->a, n * sizeof *minus);
		S->mused += pls_correct_spheres(phi, &S->water.pos, &S->water.neg, NULL, plus, minus);
		if (!slc_comm_fold_max(S->comm, plus, n, err) &&
		    !slc_comm_fold_min(S->comm, minus, n, err)) {
			pls_correct_pick(phi, plus, minus);
			rc = 0;
		}
	}
	free(plus);
	free(minus);
	return rc;
}

/* pls_step with the markers divided over ranks, in pls_step's order
 * (guendelman2005 §4.4.2; thin shells are refused over ranks): the level
 * set and spray on the whole grids, the same on every rank; the markers
 * of each rank moved, collided, migrated to the ranks of their planes,
 * corrected with, their radii adjusted, pruned.  0, or -1 with err. */
static int
mpi_pls_step(advect_stage *S, double dt, const double g[3], slc_err *err)
{
	pls_water *w = &S->water;
	field *phi = &S->phiw, next;
	const macgrid *vel = &w->u0;
	advect_opts ao = w->o.ao;
	double v0 = pls_liquid_volume(phi), v1;
	size_t gone, q;
	pls_set esc;
	int rc;

	ao.scheme = ADVECT_SL;  /* thesis §2.9: first order SL phi */
	ao.limiter = ADVECT_LIMIT_NONE;
	if (field_alloc_like(&next, phi, err))
		return -1;
	if (advect_field(vel, dt, phi, &next, &ao, NULL, err)) {
		field_free(&next);
		return -1;
	}
	memcpy(phi->a, next.a, field_count(phi) * sizeof *phi->a);
	field_free(&next);
	if (w->fresh && w->solid) {
		if (mk_pass(S, MK_INSIDE, NULL, &gone, err))
			return -1;
		w->st.collided += gone;
		w->fresh = 0;
	}
	pls_advect(&w->pos, vel, dt);
	pls_advect(&w->neg, vel, dt);
	if (w->solid) {
		if (mk_pass(S, MK_COLLIDE, NULL, &gone, err))
			return -1;
		w->st.collided += gone;
	}
	if (mk_migrate(S, err))
		return -1;
	v1 = pls_liquid_volume(phi);
	w->st.dv_advect += v1 - v0;
	w->st.landed += spray_step(&w->spr, phi, w->solid, w->live, g, dt);
	v0 = pls_liquid_volume(phi);
	w->st.dv_spray += v0 - v1;
	if (mk_correct(S, err))
		return -1;
	v1 = pls_liquid_volume(phi);
	w->st.dv_correct += v1 - v0;
	if (pls_redistance(phi, w->o.redist_band * phi->dx, err))
		return -1;
	v0 = pls_liquid_volume(phi);
	w->st.dv_redist += v0 - v1;
	if (mk_correct(S, err))
		return -1;
	w->st.dv_correct += pls_liquid_volume(phi) - v0;
	pls_adjust_radii(&w->pos, phi, &w->o.p);
	pls_adjust_radii(&w->neg, phi, &w->o.p);
	pls_set_init(&esc, -1);
	rc = mk_pass(S, MK_PRUNE, &esc, &gone, err);
	/* escaped negative markers become spray moving with the grid
	 * velocity at their place (pls_step's to_spray) */
	for (q = 0; !rc && q < esc.n; q++) {
		double x[3] = { esc.x[3 * q], esc.x[3 * q + 1], esc.x[3 * q + 2] }, v[3];

		mac_velocity(vel, x, v);
		rc = spray_push(&w->spr, x, v, esc.r[q], err);
	}
	if (!rc) {
		w->st.sprayed += esc.n;
		w->st.removed += gone;
	}
	pls_set_free(&esc);
	return rc;
}

/* The markers of records rp (positive) and rn (negative), which every
 * rank holds whole: each rank keeps those in its planes, their ids their
 * indices, checked as pls_from_rec checks them; then the records are
 * emptied (rank 0 writes them anew at store), so that a rank holds its
 * own markers only.  0, or -1 with err. */
static int
mk_load(advect_stage *S, slc_rec *rp, slc_rec *rn, slc_err *err)
{
	slc_rec *rec[2] = { rp, rn };

	for (int a = 0; a < 2; a++) {
		pls_set *s = mk_set(S, a);
		const float *x = slc_rec_get(rec[a], "P", SLC_F32, 3, 0, err), *rad;
		uint64_t q, n;
		slc_rec empty;

		if (!x)
			return -1;
		n = slc_rec_find(rec[a], "P")->count;
		if (!(rad = slc_rec_get(rec[a], "radius", SLC_F32, 1, n, err)) ||
		    !(S->mid[a] = slc_malloc(n ? n : 1, sizeof *S->mid[a], err)))
			return -1;
		for (q = 0; q < n; q++) {
			double y[3] = { x[3 * q], x[3 * q + 1], x[3 * q + 2] };

			if (!isfinite(y[0]) || !isfinite(y[1]) || !isfinite(y[2]) || !(rad[q] > 0))
				return slc_fail(err, "particles '%s': particle %llu has a bad "
						"position or radius", rec[a]->name,
						(unsigned long long)q);
			if (mk_owner(S, y[2]) != S->comm->rank)
				continue;
			S->mid[a][s->n] = q;
			if (pls_set_push(s, y, rad[q], err))
				return -1;
		}
		S->mall[a] = n;
		if (pls_to_rec(&(pls_set){ 0 }, &empty, rec[a]->name, rec[a]->time, err))
			return -1;
		slc_rec_free(rec[a]);
		*rec[a] = empty;
	}
	return 0;
}

/* New markers appended to set a of this rank since it held n0: their
 * ids after the serial array and after those of the ranks below (the
 * serial seeding appends box by box in grid order, the ranks' planes in
 * rank order).  Collective.  0, or -1 with err. */
static int
mk_append_ids(advect_stage *S, int a, size_t n0, slc_err *err)
{
	const pls_set *s = mk_set(S, a);
	uint64_t mine = s->n - n0, below = 0, total = 0, *all = NULL, *id;
	size_t nall = 0, q;

	if (slc_allgather_items(S->comm, &mine, 1, sizeof mine, (void **)&all, &nall, err))
		return -1;
	for (q = 0; q < nall; q++) {
		below += (int)q < S->comm->rank ? all[q] : 0;
		total += all[q];
	}
	free(all);
	if (!(id = realloc(S->mid[a], (s->n ? s->n : 1) * sizeof *id)))
		return slc_fail(err, "out of memory for %zu particle ids", s->n);
	S->mid[a] = id;
	for (q = n0; q < s->n; q++)
		id[q] = S->mall[a] + below + (q - n0);
	S->mall[a] += total;
	return 0;
}

/* pls_seed's or pls_reseed's seeding (counts cp, cn; NULL: none) of the
 * boxes in this rank's planes, from the per-box streams of g; the new
 * markers then migrate to the ranks of the planes attraction took them
 * to.  Collective.  0, or -1 with err. */
static int
mk_fill(advect_stage *S, const rng *g, const uint16_t *cp, const uint16_t *cn, slc_err *err)
{
	pls_water *w = &S->water;
	size_t n0[2] = { w->pos.n, w->neg.n };
	int k0, k1;

	slc_comm_owned(S->comm, &k0, &k1);
	if (pls_fill_planes(&w->pos, &w->neg, &S->phiw, &w->o.p, cp, cn, g, k0, k1, err) ||
	    mk_append_ids(S, 0, n0[0], err) || mk_append_ids(S, 1, n0[1], err))
		return -1;
	return mk_migrate(S, err);
}

/* A marker of a crowded box: its id and box. */
typedef struct mk_crowd {
	uint64_t id;
	int64_t box;
} mk_crowd;

static int
crowd_cmp(const void *pa, const void *pb)
{
	const mk_crowd *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* The boxes of a trimming replay and how many markers it met in each. */
typedef struct mk_trim_ctx {
	const mk_crowd *c;
	uint32_t *met;
	uint32_t limit;
} mk_trim_ctx;

static int
mk_trim_visit(void *ctx, size_t q)
{
	mk_trim_ctx *t = ctx;
	uint32_t *m = &t->met[t->c[q].box];

	if (*m >= t->limit)
		return 1;
	++*m;
	return 0;
}

static int
u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* pls_reseed's trimming of set a: a box keeps the first
 * pls_trim_limit markers the serial loop meets in it.  The markers of a
 * box are all on its owner, but the order the loop meets them in
 * depends on the removals before, in every box: the markers of the
 * crowded boxes (more than the limit) are gathered with their boxes and
 * every rank replays the loop over them.  count (phi's samples, zeroed)
 * gets the markers each of this rank's boxes keeps.  Collective.  0, or
 * -1 with err. */
static int
mk_trim(advect_stage *S, int a, uint16_t *count, slc_err *err)
{
	pls_set *s = mk_set(S, a);
	size_t nbox = field_count(&S->phiw), q, n = 0, nall = 0, m;
	uint32_t limit = (uint32_t)pls_trim_limit(&S->water.o.p);
	uint32_t *tot = slc_calloc(nbox, sizeof *tot, err);
	int64_t *box = tot ? slc_malloc(s->n ? s->n : 1, sizeof *box, err) : NULL;
	mk_crowd *mine = box ? slc_malloc(s->n ? s->n : 1, sizeof *mine, err) : NULL, *all = NULL;
	uint64_t *cand = NULL, *gone = NULL;
	unsigned char *flag = NULL;
	slc_swap_replay r = { 0 };
	mk_trim_ctx t = { NULL, tot, limit };
	int rc = -1;

	if (!mine)
		goto out;
	for (q = 0; q < s->n; q++) {
		double x[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] };

		box[q] = pls_box_of(&S->phiw, x);
		if (box[q] >= 0)
			tot[box[q]]++;
	}
	for (q = 0; q < s->n; q++)
		if (box[q] >= 0 && tot[box[q]] > limit) {
			mine[n].id = S->mid[a][q];
			mine[n++].box = box[q];
		}
	for (q = 0; q < s->n; q++)
		if (box[q] >= 0)
			count[box[q]] = (uint16_t)(tot[box[q]] < limit ? tot[box[q]] : limit);
	if (slc_allgather_items(S->comm, mine, n, sizeof *mine, (void **)&all, &nall, err))
		goto out;
	qsort(all, nall, sizeof *all, crowd_cmp);
	memset(tot, 0, nbox * sizeof *tot);     /* now: met in the replay */
	t.c = all;
	if (!(cand = slc_malloc(nall ? nall : 1, sizeof *cand, err)) ||
	    !(flag = slc_calloc(s->n ? s->n : 1, 1, err)))
		goto out;
	for (m = 0; m < nall; m++)
		cand[m] = all[m].id;
	if (slc_swap_replay_run(S->mall[a], cand, nall, mk_trim_visit, &t, &r, err) ||
	    !(gone = slc_malloc(r.nremoved ? r.nremoved : 1, sizeof *gone, err)))
		goto out;
	for (m = 0; m < r.nremoved; m++)
		gone[m] = cand[r.order[m]];
	qsort(gone, r.nremoved, sizeof *gone, u64_cmp);
	for (q = 0; q < s->n; q++)
		flag[q] = bsearch(&S->mid[a][q], gone, r.nremoved, sizeof *gone, u64_cmp) != NULL;
	mk_compact(S, a, flag, &r);
	rc = 0;
out:
	slc_swap_replay_free(&r);
	free(gone);
	free(flag);
	free(cand);
	free(all);
	free(mine);
	free(box);
	free(tot);
	return rc;
}

/* pls_reseed over the ranks: markers pruned, crowded boxes trimmed,
 * every rank's boxes topped up.  Collective.  0, or -1 with err. */
static int
mk_reseed(advect_stage *S, const rng *g, slc_err *err)
{
	size_t n = field_count(&S->phiw), gone;
	uint16_t *cp = slc_calloc(n, sizeof *cp, err);
	uint16_t *cn = cp ? slc_calloc(n, sizeof *cn, err) : NULL;
	int rc = -1;

	if (cn && !mk_pass(S, MK_PRUNE, NULL, &gone, err) && !mk_trim(S, 0, cp, err) &&
	    !mk_trim(S, 1, cn, err))
		rc = mk_fill(S, g, cp, cn, err);
	free(cp);
	free(cn);
	return rc;
}

/* pls_water_load over the ranks: spray read whole on every rank; the
 * markers read from their records, each rank keeping those in its
 * planes (mk_load), or seeded, and reseeded when due, box by box in each
 * rank's planes.  Collective.  0, or -1
 * with err. */
static int
mk_water_load(advect_stage *S, uint64_t seed, long frame, int reseed, slc_err *err)
{
	pls_water *w = &S->water;
	slc_rec *rp, *rn;
	int fresh, rc;
	rng g;

	if (slc_frame_get(S->F, PLS_REC_POS, SLC_PARTICLES, &rp, err) ||
	    slc_frame_get(S->F, PLS_REC_NEG, SLC_PARTICLES, &rn, err))
		return -1;
	fresh = !rp || !rn;
	w->o.particles = 0;     /* the spray alone */
	rc = pls_water_load(w, S->F, &S->phiw, seed, frame, 0, err);
	w->o.particles = 1;
	if (rc || (!fresh && mk_load(S, rp, rn, err)))
		return -1;
	pls_water_rng(&g, seed, frame);
	if (fresh) {
		w->fresh = 1;
		return mk_fill(S, &g, NULL, NULL, err);
	}
	/* guendelman2005 §4.4.2: reseed every 10-20 frames */
	if (reseed > 0 && frame > 0 && frame % reseed == 0) {
		w->fresh = 1;
		return mk_reseed(S, &g, err);
	}
	return 0;
}

/* The counts of every rank summed; rank 0 writes the markers of every
 * rank in id order (the serial arrays), the spray it holds.  0, or -1
 * with err. */
static int
mk_store(advect_stage *S, double time, slc_err *err)
{
	pls_water w = S->water;
	pls_set whole[2];
	uint64_t sum[2] = { S->mused, S->migrated };
	int rc = 0, a;

	if (slc_comm_count_sum(S->comm, sum, 2, err))
		return -1;
	S->water.st.corrected += sum[0];
	S->mused = 0;
	S->migrated = sum[1];
	pls_set_init(&whole[0], 1);
	pls_set_init(&whole[1], -1);
	for (a = 0; a < 2 && !rc; a++) {
		mk_item *it = mk_items(S, a, err), *all = NULL;
		size_t q;

		if (!it)
			return -1;
		if (S->comm->rank == 0 &&
		    !(all = slc_malloc(S->mall[a] ? S->mall[a] : 1, sizeof *all, err)))
			rc = -1;
		/* every rank takes part: rank 0 fails it on its own */
		if (slc_gather_by_id(S->comm, it, mk_set(S, a)->n, sizeof *it, S->mall[a], all, err))
			rc = -1;
		for (q = 0; !rc && all && q < S->mall[a]; q++) {
			double x[3] = { all[q].x[0], all[q].x[1], all[q].x[2] };

			rc = pls_set_push(&whole[a], x, all[q].r, err);
		}
		free(all);
		free(it);
	}
	if (!rc && S->comm->rank == 0) {
		w.pos = whole[0];
		w.neg = whole[1];
		rc = pls_water_store(&w, S->F, time, err);
	}
	pls_set_free(&whole[0]);
	pls_set_free(&whole[1]);
	return rc;
}

/* --- vortex particles owned by slabs --------------------------------- */

/* Over MPI ranks each rank holds the vortex particles in its cell planes
 * (thesis §3.4), in the order of their ids, their places in the record
 * one process holds: moved and stretched on their rank, then migrated;
 * culling keeps the order of the survivors (a stable compaction: a
 * survivor's new place is its id less the removed ids below it); seeding
 * draws the same particles on every rank from the whole source, each
 * keeping those in its planes; the force on a face sums the particles
 * within the kernel's reach in record order, so that each rank sums its
 * own and copies of its neighbours' within that reach, in id order. */

/* The rank owning the cell plane of height z (m) of the velocity's
 * cells. */
static int
vx_owner(const advect_stage *S, double z)
{
	const field *u = &S->AF.vel.u;
	double k = floor((z - u->origin[2]) / u->dx);

	return slc_comm_owner(S->comm, k < 0 ? -1 : k >= S->comm->nk ? S->comm->nk : (int)k);
}

/* Bytes of one particle of r between ranks: its id, then its samples of
 * each point channel in the record's order. */
static size_t
vx_size(const slc_rec *r)
{
	size_t b = sizeof(uint64_t);

	for (uint32_t c = 0; c < r->nchan; c++)
		if (r->chan[c].domain == SLC_POINT)
			b += slc_type_size(r->chan[c].type) * r->chan[c].ncomp;
	return b;
}

/* The particles of vort (ids vid) as items (malloc'd), or NULL. */
static unsigned char *
vx_pack(const advect_stage *S, slc_err *err)
{
	const slc_rec *r = S->vort;
	size_t n = (size_t)slc_rec_find(r, "P")->count, sz = vx_size(r), q;
	unsigned char *it = slc_malloc(n ? n : 1, sz, err);

	for (q = 0; it && q < n; q++) {
		size_t off = sizeof(uint64_t);

		memcpy(it + q * sz, &S->vid[q], sizeof(uint64_t));
		for (uint32_t c = 0; c < r->nchan; c++) {
			const slc_chan *o = &r->chan[c];
			size_t e = slc_type_size(o->type) * o->ncomp;

			if (o->domain != SLC_POINT)
				continue;
			memcpy(it + q * sz + off, (const unsigned char *)o->data + q * e, e);
			off += e;
		}
	}
	return it;
}

static int
vx_cmp(const void *pa, const void *pb)
{
	uint64_t a, b;

	memcpy(&a, pa, sizeof a);
	memcpy(&b, pb, sizeof b);
	return a < b ? -1 : a > b;
}

/* Rebuild r (the layout of vort) from n items, their ids into *id
 * (malloc'd, the old freed): its point channels from the items, the
 * others as they were.  0, or -1 with err. */
static int
vx_unpack(slc_rec *r, uint64_t **id, const unsigned char *it, size_t n, slc_err *err)
{
	size_t sz = vx_size(r), off = sizeof(uint64_t), q;
	uint64_t *ni = slc_malloc(n ? n : 1, sizeof *ni, err);
	slc_rec nr;

	if (!ni)
		return -1;
	slc_rec_init(&nr, r->kind, r->name);
	nr.time = r->time;
	for (uint32_t c = 0; c < r->nchan; c++) {
		const slc_chan *o = &r->chan[c];
		size_t e = slc_type_size(o->type) * o->ncomp;
		uint64_t cnt = o->domain == SLC_POINT ? n : o->count;
		unsigned char *d = slc_rec_add(&nr, o->name, o->type, o->ncomp, o->domain, cnt, err);

		if (!d) {
			slc_rec_free(&nr);
			free(ni);
			return -1;
		}
		if (o->domain != SLC_POINT) {
			if (cnt)
				memcpy(d, o->data, (size_t)cnt * e);
			continue;
		}
		for (q = 0; q < n; q++)
			memcpy(d + q * e, it + q * sz + off, e);
		off += e;
	}
	for (q = 0; q < n; q++)
		memcpy(&ni[q], it + q * sz, sizeof *ni);
	slc_rec_free(r);
	*r = nr;
	free(*id);
	*id = ni;
	return 0;
}

/* Keep the particles of vort with keep[q], in their order (ids kept). */
static int
vx_keep(advect_stage *S, const unsigned char *keep, slc_err *err)
{
	size_t n = (size_t)slc_rec_find(S->vort, "P")->count, sz = vx_size(S->vort), q, m = 0;
	unsigned char *it = vx_pack(S, err);
	int rc;

	if (!it)
		return -1;
	for (q = 0; q < n; q++)
		if (keep[q])
			memmove(it + m++ * sz, it + q * sz, sz);
	rc = vx_unpack(S->vort, &S->vid, it, m, err);
	free(it);
	return rc;
}

/* At load: each rank keeps the particles in its planes, their ids their
 * indices.  0, or -1 with err. */
static int
vx_load(advect_stage *S, slc_err *err)
{
	size_t n, q;
	unsigned char *keep;
	const float *x;
	int rc;

	if (!S->comm || !S->vort)
		return 0;
	n = (size_t)slc_rec_find(S->vort, "P")->count;
	x = slc_rec_find(S->vort, "P")->data;
	if (!(S->vid = slc_malloc(n ? n : 1, sizeof *S->vid, err)) ||
	    !(keep = slc_malloc(n ? n : 1, 1, err)))
		return -1;
	for (q = 0; q < n; q++) {
		S->vid[q] = q;
		keep[q] = vx_owner(S, x[3 * q + 2]) == S->comm->rank;
	}
	S->vall = n;
	rc = vx_keep(S, keep, err);
	free(keep);
	return rc;
}

/* The particles that moved into another rank's planes sent there, the
 * rank's own in id order again.  Collective.  0, or -1 with err. */
static int
vx_migrate(advect_stage *S, slc_err *err)
{
	size_t n = (size_t)slc_rec_find(S->vort, "P")->count, sz = vx_size(S->vort), q, nget = 0,
	       sent = 0;
	const float *x = slc_rec_find(S->vort, "P")->data;
	unsigned char *it = vx_pack(S, err), *got = NULL;
	int *dest = it ? slc_malloc(n ? n : 1, sizeof *dest, err) : NULL, rc = -1;

	for (q = 0; dest && q < n; q++)
		dest[q] = vx_owner(S, x[3 * q + 2]);
	if (dest && !slc_migrate(S->comm, it, n, sz, dest, (void **)&got, &nget, &sent, err)) {
		qsort(got, nget, sz, vx_cmp);
		rc = vx_unpack(S->vort, &S->vid, got, nget, err);
	}
	free(got);
	free(dest);
	free(it);
	return rc;
}

/* vortex_cull over the ranks: a stable compaction, each survivor's id
 * less the removed ids below it.  Collective.  0, or -1 with err. */
static int
vx_cull(advect_stage *S, const field *solid, slc_err *err)
{
	size_t n = (size_t)slc_rec_find(S->vort, "P")->count, q, ng = 0, nall = 0;
	const float *x = slc_rec_find(S->vort, "P")->data;
	unsigned char *keep = slc_malloc(n ? n : 1, 1, err);
	uint64_t *gone = keep ? slc_malloc(n ? n : 1, sizeof *gone, err) : NULL, *all = NULL;
	int rc = -1;

	if (!gone)
		goto out;
	for (q = 0; q < n; q++) {
		double xp[3] = { x[3 * q], x[3 * q + 1], x[3 * q + 2] };

		keep[q] = !(field_sample(solid, xp) < 0);
		if (!keep[q])
			gone[ng++] = S->vid[q];
	}
	if (slc_allgather_items(S->comm, gone, ng, sizeof *gone, (void **)&all, &nall, err))
		goto out;
	qsort(all, nall, sizeof *all, u64_cmp);
	for (q = 0; q < n; q++) {
		size_t lo = 0, hi = nall;

		while (lo < hi) {       /* removed ids below this one */
			size_t mid = lo + (hi - lo) / 2;

			if (all[mid] < S->vid[q])
				lo = mid + 1;
			else
				hi = mid;
		}
		S->vid[q] -= lo;
	}
	S->vall -= nall;
	rc = nall ? vx_keep(S, keep, err) : 0;
out:
	free(all);
	free(gone);
	free(keep);
	return rc;
}

/* vortex_seed over the ranks: every rank draws the same new particles
 * (appended after its own by vortex_seed), their ids after the whole
 * record's; each keeps those in its planes.  0, or -1 with err. */
static int
vx_seed(advect_stage *S, const field *src, uint64_t call, double dt, slc_err *err)
{
	size_t n0 = (size_t)slc_rec_find(S->vort, "P")->count, n, q;
	const float *x;
	unsigned char *keep;
	uint64_t *id;
	int rc;

	if (vortex_seed(S->vort, src, &S->o.vortex, dt, (uint64_t)S->o.seed, call, err))
		return -1;
	n = (size_t)slc_rec_find(S->vort, "P")->count;
	if (n == n0)
		return 0;
	x = slc_rec_find(S->vort, "P")->data;
	if (!(id = realloc(S->vid, n * sizeof *id)))
		return slc_fail(err, "out of memory for %zu particle ids", n);
	S->vid = id;
	if (!(keep = slc_malloc(n, 1, err)))
		return -1;
	for (q = 0; q < n; q++) {
		keep[q] = q < n0 || vx_owner(S, x[3 * q + 2]) == S->comm->rank;
		if (q >= n0)
			id[q] = S->vall + (q - n0);
	}
	S->vall += n - n0;
	rc = vx_keep(S, keep, err);
	free(keep);
	return rc;
}

/* vortex_force over the ranks: the particles within the kernel's reach
 * of a rank's planes (its own, and copies of its neighbours' sent to
 * it) in id order, so that every face of its planes sums the serial
 * terms in the serial order.  Collective.  0, or -1 with err. */
static int
vx_force(advect_stage *S, double dt, slc_err *err)
{
	const slc_rec *r = S->vort;
	size_t n = (size_t)slc_rec_find(r, "P")->count, sz = vx_size(r), q, m = 0, nget = 0, sent;
	const float *x = slc_rec_find(r, "P")->data;
	/* a particle in cell plane kp reaches the samples of planes within
	 * radius of its place: kp - radius - 1 .. kp + radius + 1 */
	int reach = (int)ceil(S->o.vortex.radius) + 2, P = S->comm->size, d, rc = -1;
	unsigned char *it = vx_pack(S, err), *out = NULL, *got = NULL, *both = NULL;
	int *dest = it ? slc_malloc(n * (size_t)P + 1, sizeof *dest, err) : NULL;
	slc_rec tmp;
	uint64_t *tid = NULL;

	if (!dest || !(out = slc_malloc(n * (size_t)P + 1, sz, err)))
		goto done;
	for (q = 0; q < n; q++) {
		double k = floor((x[3 * q + 2] - S->AF.vel.u.origin[2]) / S->AF.vel.u.dx);

		for (d = 0; d < P; d++)
			if (d != S->comm->rank && k >= S->comm->k0[d] - reach &&
			    k < S->comm->k0[d + 1] + reach) {
				memcpy(out + m * sz, it + q * sz, sz);
				dest[m++] = d;
			}
	}
	if (slc_migrate(S->comm, out, m, sz, dest, (void **)&got, &nget, &sent, err) ||
	    !(both = slc_malloc(n + nget + 1, sz, err)))
		goto done;
	memcpy(both, it, n * sz);
	memcpy(both + n * sz, got, nget * sz);
	qsort(both, n + nget, sz, vx_cmp);
	slc_rec_init(&tmp, r->kind, r->name);
	for (uint32_t c = 0; c < r->nchan; c++)
		if (r->chan[c].domain == SLC_POINT &&
		    !slc_rec_add(&tmp, r->chan[c].name, r->chan[c].type, r->chan[c].ncomp,
				 SLC_POINT, 0, err)) {
			slc_rec_free(&tmp);
			goto done;
		}
	if (!vx_unpack(&tmp, &tid, both, n + nget, err)) {
		vortex_force(&tmp, whole_vel(S), &S->o.vortex, dt);
		rc = 0;
	}
	slc_rec_free(&tmp);
done:
	free(tid);
	free(both);
	free(got);
	free(out);
	free(dest);
	free(it);
	return rc;
}

/* Rank 0: the whole record in id order (the serial one) in vort.
 * Collective.  0, or -1 with err. */
static int
vx_store(advect_stage *S, slc_err *err)
{
	size_t n = (size_t)slc_rec_find(S->vort, "P")->count, sz = vx_size(S->vort);
	unsigned char *it = vx_pack(S, err), *all = NULL;
	uint64_t *id = NULL;
	int rc = -1;

	if (!it)
		return -1;
	if (S->comm->rank == 0 && !(all = slc_malloc(S->vall ? S->vall : 1, sz, err)))
		rc = -2;
	if (!slc_gather_by_id(S->comm, it, n, sz, S->vall, all, err) && rc != -2)
		rc = S->comm->rank ? 0 : vx_unpack(S->vort, &id, all, S->vall, err);
	free(id);
	free(all);
	free(it);
	return rc < 0 ? -1 : 0;
}
#else
static int
mpi_whole_in(advect_stage *S, int solid, slc_err *err)
{
	(void)S;
	(void)solid;
	(void)err;
	return 0;
}

static void
mpi_whole_out(advect_stage *S, int phi)
{
	(void)S;
	(void)phi;
}

static int
mpi_liquid_load(advect_stage *S, slc_err *err)
{
	(void)S;
	(void)err;
	return 0;
}

static int
mpi_whole_src(advect_stage *S, slc_err *err)
{
	(void)S;
	(void)err;
	return 0;
}

static const field *
whole_src(advect_stage *S)
{
	return &S->AF.src;
}

static const field *
whole_sol(advect_stage *S)
{
	return S->sol;
}

static field *
liquid_phi(advect_stage *S)
{
	return &S->phi;
}

static macgrid *
whole_vel(advect_stage *S)
{
	return &S->AF.vel;
}
#endif

/* The liquid of the frame, if it has one (guendelman2005 §4.4.2). */
static int
load_liquid(advect_stage *S, slc_err *err)
{
	const advect_stage_opts *o = &S->o;
	slc_rec *rphi;
	pls_water *w = &S->water;

	if (slc_frame_get(S->F, "phi", SLC_GRID, &rphi, err))
		return -1;
	if (o->pls == ADVECT_PLS_ON && !rphi)
		return slc_fail(err, "--pls on: no grid record 'phi'");
	if (!(S->liquid = rphi != NULL))
		return 0;
	pls_step_defaults(&w->o);
	w->o.particles = o->pls != ADVECT_PLS_OFF;
	w->o.p.per_cell = (int)o->per_cell;
	w->o.ao.scheme = o->scheme;
	w->o.ao.limiter = o->limiter;
	w->o.ao.walls = !o->open;
	if (field_from_rec(&S->phi, rphi, NULL, err) || mpi_liquid_load(S, err))
		return -1;
#ifdef SLC_MPI
	if (S->comm && w->o.particles) {
		if (mk_water_load(S, (uint64_t)o->seed, (long)S->frame, (int)o->reseed, err))
			return -1;
	} else
#endif
	if (pls_water_load(w, S->F, liquid_phi(S), (uint64_t)o->seed, (long)S->frame,
			   (int)o->reseed, err))
		return -1;
	w->solid = S->sol;      /* particles stay out, spray momentum to vel */
	w->live = &S->AF.vel;
#ifdef SLC_MPI
	if (S->comm) {
		w->solid = S->sol ? &S->solw : NULL;
		w->live = &S->velw;
	}
#endif
	return 0;
}

#ifdef SLC_MPI
/* What the slabs of an MPI run hold so far: a smoke frame, every grid
 * record it moves a slab on the velocity's cells.  0, or -1 with err
 * naming what is not yet carried over ranks. */
static int
mpi_load(advect_stage *S, slc_err *err)
{
	size_t i;

	if (!S->comm)
		return 0;
	if (S->rs.sh.n)
		return slc_fail(err, "rigid bodies shaped by a shell are not yet advected over "
				"several MPI ranks");
	if (S->o.nshell)
		return slc_fail(err, "thin shells (--shell) are not yet advected over several "
				"MPI ranks");
	for (i = 0; i < S->F->n; i++) {
		const slc_rec *r = S->F->r[i];

		if (r->kind == SLC_PARTICLES && !rigid_set_owns(r) && r != S->vort &&
		    !(S->liquid && pls_water_owns(r)))
			return slc_fail(err, "particles '%s' are not yet advected over several "
					"MPI ranks", r->name);
		if (r->kind == SLC_GRID && r->nk_all == 0 &&
		    (advect_frame_moves(r, S->o.source) || !strcmp(r->name, "solid") ||
		     !strcmp(r->name, "solid_vel") || !strcmp(r->name, "solid_slip") ||
		     (S->o.source && !strcmp(r->name, S->o.source))))
			return slc_fail(err, "grid record '%s' is not on the velocity's cells: not "
					"yet advected over several MPI ranks", r->name);
	}
	return 0;
}

/* Every slab's ghost planes from their owners. */
static int
mpi_halo(advect_stage *S, slc_err *err)
{
	return S->comm ? slc_halo_frame(S->comm, S->F, err) : 0;
}

/* The CFL speed's part of cfl_speed over every rank: the largest face
 * speeds of the whole grid (maxima, exact), and a check that the ghost
 * planes hold the substep dt at this speed. */
static int
mpi_speed(advect_stage *S, double *v, slc_err *err)
{
	double mx[6];
	int bad[1];

	bad[0] = mac_max_comps_seen(&S->AF.vel, S->sol, mx);
	if (bad[0] >= 0 && mac_max_comps_seen(&S->AF.vel, NULL, mx + 3) < 0)
		bad[0] = -1;
	bad[0] = bad[0] < 0 ? 2 : bad[0];
	if (slc_comm_imax(S->comm, bad, 1, err) || slc_comm_max(S->comm, mx, 6, err))
		return -1;
	if (bad[0]) {
		if (mac_check_finite(&S->AF.vel, err))
			return in_frame(S, err);
		return slc_fail(err, "frame %.0f: NaN or Inf in the velocity of another rank's slab",
				S->frame + 1);
	}
	*v = mac_speed_of(mx);
	S->wmax = mx[5];        /* |w| of every face: the reach along k */
	return 0;
}

/* A substep of dt moving nothing farther along k than the ghost planes
 * allow, else -1 with err naming the option. */
static int
mpi_reach(advect_stage *S, double vmax, double dt, slc_err *err)
{
	double dx = S->AF.vel.u.dx, c = dt * S->wmax / dx;
	int need;

	if (!S->comm)
		return 0;
	need = advect_stage_ghost(S->o.scheme, c, dt * vmax / dx + 2);
	if (need > S->comm->ghost)
		return slc_fail(err, "frame %.0f: a substep moves up to %.3g cells along k and "
				"needs %d ghost planes, the slabs hold %d: lower --cfl (or "
				"--substep), or run on fewer ranks", S->frame + 1, c, need,
				S->comm->ghost);
	return 0;
}
#else
static int
mpi_load(advect_stage *S, slc_err *err)
{
	(void)S;
	(void)err;
	return 0;
}

static int
mpi_halo(advect_stage *S, slc_err *err)
{
	(void)S;
	(void)err;
	return 0;
}

static int
mpi_reach(advect_stage *S, double vmax, double dt, slc_err *err)
{
	(void)S;
	(void)vmax;
	(void)dt;
	(void)err;
	return 0;
}
#endif

int
advect_stage_load(advect_stage *S, slc_frame *F, const advect_stage_opts *o,
		  slc_comm *comm, slc_err *err)
{
	slc_scene sc = { -1, 0, o->dt };
	int smoke = o->buoyancy[0] != 0 || o->buoyancy[1] != 0;

	memset(S, 0, sizeof *S);
	S->F = F;
	S->o = *o;
#ifdef SLC_MPI
	S->comm = comm;
#else
	if (slc_comm_serial(comm, err))
		return -1;
#endif
	S->scene = slc_frame_find(F, "scene", SLC_META);
	if (slc_scene_read(S->scene, &sc, err))
		return slc_failctx(err, "scene: ");
	S->frame = sc.frame;
	S->time0 = sc.time;
	if (!(sc.dt > 0))
		return slc_fail(err, "no frame length: give --dt or a scene record with dt");
	memcpy(S->gravity, o->gravity, sizeof S->gravity);
	if (advect_scene_gravity(S->scene, S->gravity, smoke, S->up, &S->have_g, err))
		return -1;
	if (advect_frame_load(&S->AF, F, o->source, err) ||
	    rigid_set_load(&S->rs, F, &S->AF.vel.u, err))
		return -1;
	S->rs.walls = !o->open; /* project --boundary wall: the box is solid */
	/* what the fluid sees: the bodies composed into it (fluid_solid) */
	S->sol = S->rs.n ? &S->rs.solid : S->AF.have_solid ? &S->AF.solid : NULL;
	S->uop = S->rs.n ? S->rs.uo : S->AF.have_uo ? S->AF.uo : NULL;
	S->den = S->AF.have_den ? &S->AF.den : NULL;
	S->tem = S->AF.have_tem ? &S->AF.tem : NULL;
	if (load_vortex(S, err) || load_liquid(S, err) ||
	    advect_shells_load(&S->shells, F, o->shells, o->nshell, o->shell_mode, o->shell_eps,
			       o->ambient, sc.dt, &S->AF.vel, err))
		return -1;
	if (S->liquid && S->shells.on) {        /* guendelman2005 §4.4 */
		S->water.shell = &S->shells.pls;
		S->water.o.ao.shell = advect_shells_for(&S->shells, "phi");
	}
	if (S->sol && mac_alloc_like(&S->wt, &S->AF.vel, err))
		return -1;
	S->have_wt = S->sol != NULL;
	advect_opts_default(&S->ao);
	S->ao.scheme = o->scheme;
	S->ao.limiter = o->limiter;
	S->ao.solid = S->sol;
	S->ao.walls = !o->open;
	S->ao.pool = &S->AF.pool;       /* temporaries kept across records and substeps */
	S->T = sc.dt;
#ifdef SLC_MPI
	if (vx_load(S, err))
		return -1;
#endif
	return mpi_load(S, err);
}

/* --- the phases of a substep ----------------------------------------- */

/* thesis §2.9: the velocity continued from the liquid into the air, so
 * that advection near the surface sees liquid velocities; the first
 * substep keeps it as the velocity that moves the liquid through the
 * frame (pls_water_freeze). */
static int
liquid_extrapolate(advect_stage *S, slc_err *err)
{
	const shell_set *sh;
	int failed;

	if (!S->liquid)
		return 0;
	/* guendelman2005 §4.4: not across the shells, where they are now */
	sh = advect_shells_start(&S->shells, S->t / S->T, &failed, err);
	if (failed)
		return -1;
	if (mpi_whole_in(S, 0, err) ||
	    pls_extrapolate_shell(whole_vel(S), liquid_phi(S), EXTRAP_BAND, sh, &S->shells.trk, err) ||
	    (S->nsub == 0 && pls_water_freeze(&S->water, whole_vel(S), err)))
		return -1;
	mpi_whole_out(S, 0);
	return 0;
}

/* The solid the fluid sees this substep, S->sol and S->uop: the frame's
 * solid with the rigid bodies at their present pose composed into it
 * (rigid_set_solid).  Never fails. */
static void
fluid_solid(advect_stage *S)
{
	if (S->rs.n)
		rigid_set_solid(&S->rs, S->AF.have_solid ? &S->AF.solid : NULL,
				S->AF.have_uo ? S->AF.uo : NULL);
}

/* The CFL speed of the substep, m/s: the largest of the face speeds the
 * fluid sees and of any point of a rigid body.  The reduction over the
 * whole grid (over every rank in an MPI build).  -1 with err on a NaN or
 * Inf. */
static int
cfl_speed(advect_stage *S, double *vmax, slc_err *err)
{
	double v = 0;

#ifdef SLC_MPI
	if (S->comm) {
		if (mpi_speed(S, &v, err))
			return -1;
		/* every rank holds every body: the same bits on each */
		if (!isfinite(v = fmax(v, rigid_set_max_speed(&S->rs))))
			return slc_fail(err, "frame %.0f: rigid body velocity NaN or Inf",
					S->frame + 1);
		*vmax = v;
		return 0;
	}
#endif
	/* faces deep in a solid are no part of the flow: not counted */
	if (!isfinite(v = mac_max_speed_seen(&S->AF.vel, S->sol)) &&
	    mac_check_finite(&S->AF.vel, err))
		return in_frame(S, err);
	v = fmax(v, advect_shells_speed(&S->shells));
	if (!isfinite(v = fmax(v, rigid_set_max_speed(&S->rs))))
		return slc_fail(err, "frame %.0f: rigid body velocity NaN or Inf", S->frame + 1);
	*vmax = v;
	return 0;
}

/* The length of the substep from the rest of the frame: o.substep, or the
 * rest split evenly so that nothing travels more than o.cfl cells; the
 * substep counted.  -1 with err beyond ADVECT_MAX_SUBSTEPS. */
static int
substep_length(advect_stage *S, double vmax, double rest, double *dt, slc_err *err)
{
	const advect_stage_opts *o = &S->o;
	double dx = S->AF.vel.u.dx;

	*dt = rest;
	if (o->substep > 0 && rest > o->substep * (1 - SUBSTEP_SLACK))
		*dt = o->substep;
	else if (o->substep == 0 && o->cfl > 0 && vmax * *dt > o->cfl * dx)
		*dt = rest / ceil(rest * vmax / (o->cfl * dx));
	if (++S->nsub > ADVECT_MAX_SUBSTEPS)
		return slc_fail(err, "frame %.0f: more than %d substeps", S->frame + 1,
				ADVECT_MAX_SUBSTEPS);
	return 0;
}

/* houston2003 §4.2: the advecting velocity continues into the solid as
 * far as a ray and its stencil can reach; body forces act where fluid is
 * (batty2007 §2.1 weights > 0, again whenever bodies move); guendelman2005
 * §4.1: stencils in a solid read clear air. */
static int
solid_extrapolate(advect_stage *S, double vmax, double dt, slc_err *err)
{
	double dx = S->AF.vel.u.dx;

	if (!S->sol)
		return 0;
	if ((S->rs.n || S->nsub == 1) && forces_fluid_weights(S->sol, &S->wt, err))
		return -1;
	if (extrapolate_solid(&S->AF.vel, S->sol, S->uop, S->AF.have_slip ? &S->AF.slip : NULL,
			      dt * vmax + 2 * dx, err))
		return -1;
	forces_solid_smoke(S->sol, S->den, S->tem, S->o.ambient);
	return 0;
}

/* Every record of the frame that moves with the fluid moved over dt: grid
 * fields (recfield_advect), vortex particles (thesis §3.4.1) and the
 * points of other particle records; the liquid's records and the rigid
 * bodies are moved by their own phases. */
static int
advect_records(advect_stage *S, double dt, slc_err *err)
{
	const char *source = S->o.source;
	size_t i;

	for (i = 0; i < S->F->n; i++) {
		slc_rec *r = S->F->r[i];

		if (S->liquid && pls_water_owns(r))
			;       /* liquid_step */
		else if (advect_frame_moves(r, source)) {
			advect_opts ao = S->ao;

			ao.shell = advect_shells_for(&S->shells, r->name);
			if (slc_frame_decode(S->F, r, err) ||
			    recfield_advect(r, &S->AF.vel, dt, &ao, &S->st, err))
				return slc_failctx(err, "record '%s': ", r->name);
		} else if (r == S->vort) {
			if (mpi_whole_in(S, 0, err))
				return -1;
			vortex_step(r, whole_vel(S), dt);
#ifdef SLC_MPI
			if (S->comm && vx_migrate(S, err))
				return -1;
#endif
		} else if (r->kind == SLC_PARTICLES && !rigid_set_owns(r) &&
			   (slc_frame_decode(S->F, r, err) ||
			    advect_frame_particles(r, &S->AF.vel, dt, err))) {
			return -1;
		}
	}
	return 0;
}

/* guendelman2005 §4.4.2: the liquid's level set, marker particles and
 * spray over dt, through the velocity frozen at the first substep. */
static int
liquid_step(advect_stage *S, double dt, slc_err *err)
{
	if (!S->liquid)
		return 0;
	const double *g = S->have_g > 0 ? S->gravity : no_g;

	if (mpi_whole_in(S, 1, err))
		return -1;
#ifdef SLC_MPI
	if (S->comm && S->water.o.particles) {
		if (mpi_pls_step(S, dt, g, err))
			return -1;
		mpi_whole_out(S, 1);
		return 0;
	}
#endif
	if (pls_step(&S->water, liquid_phi(S), &S->water.u0, dt, g, err))
		return -1;
	mpi_whole_out(S, 1);
	return 0;
}

/* The velocity through itself over dt (advect_frame_velocity). */
static int
advect_velocity(advect_stage *S, double dt, slc_err *err)
{
	advect_opts ao = S->ao;

	ao.shell = advect_shells_for(&S->shells, "u");
	return advect_frame_velocity(&S->AF, dt, &ao, &S->st, err);
}

/* guendelman2005 §3: after advecting with the shells at the substep's
 * start, they move to its end; the samples they swept over are refilled
 * from their visible neighbours: the velocity and every one-channel grid
 * record that moves with the fluid (the level set in pls_step). */
static int
shell_sweeps(advect_stage *S, slc_err *err)
{
	static const char *const uvw[3] = { "u", "v", "w" };
	size_t i;
	int a;

	if (!S->shells.on)
		return 0;
	for (a = 0; a < 3; a++)
		if (advect_shells_sweep(&S->shells, mac_comp(&S->AF.vel, a), uvw[a], err))
			return -1;
	for (i = 0; i < S->F->n; i++) {
		slc_rec *r = S->F->r[i];

		if ((S->liquid && pls_water_owns(r)) || !advect_frame_moves(r, S->o.source))
			continue;
		/* every f32 sample channel, component by component, as
		 * recfield_advect advected them */
		for (uint32_t c = 0; c < r->nchan; c++) {
			slc_chan *ch = &r->chan[c];
			float *d = ch->data;
			field f;
			size_t n, s;

			if (ch->type != SLC_F32 || ch->domain != SLC_SAMPLE)
				continue;
			field_place_rec(&f, r);
			n = field_count(&f);
			if ((size_t)ch->count != n)
				continue;       /* recfield_advect refused it */
			if (ch->ncomp == 1) {
				f.a = d;
				if (advect_shells_sweep(&S->shells, &f, r->name, err))
					return slc_failctx(err, "record '%s': ", r->name);
				continue;
			}
			if (!(f.a = advect_pool_take(&S->AF.pool, n, err)))
				return -1;
			for (uint32_t m = 0; m < ch->ncomp; m++) {
				for (s = 0; s < n; s++)
					f.a[s] = d[s * ch->ncomp + m];
				if (advect_shells_sweep(&S->shells, &f, r->name, err)) {
					advect_pool_give(&S->AF.pool, f.a);
					return slc_failctx(err, "record '%s': ", r->name);
				}
				for (s = 0; s < n; s++)
					d[s * ch->ncomp + m] = f.a[s];
			}
			advect_pool_give(&S->AF.pool, f.a);
		}
	}
	return 0;
}

/* The smoke source (density, temperature, velocity); then no smoke stays
 * inside a solid.  Never fails. */
static void
sources(advect_stage *S)
{
	const advect_stage_opts *o = &S->o;

	if (S->AF.have_src)
		forces_smoke_source(&S->AF.src, S->den, S->tem, o->source_density,
				    o->source_temperature, &S->AF.vel,
				    isnan(o->source_velocity[0]) ? NULL : o->source_velocity);
	if (S->sol)
		forces_solid_smoke(S->sol, S->den, S->tem, o->ambient);
}

/* Body forces over dt on the faces with fluid: gravity, smoke buoyancy
 * (guendelman2005 §4.1), vorticity confinement (thesis §3.2.1). */
static int
forces(advect_stage *S, double dt, slc_err *err)
{
	const advect_stage_opts *o = &S->o;
	const macgrid *wt = S->sol ? &S->wt : NULL;

	if (S->have_g > 0)
		forces_gravity(&S->AF.vel, S->gravity, dt, wt);
	if (o->buoyancy[0] != 0 || o->buoyancy[1] != 0)
		forces_buoyancy(&S->AF.vel, S->den, S->tem, o->buoyancy[0], o->buoyancy[1],
				o->ambient, S->up, dt, wt);
	if (o->confinement != 0 &&
	    forces_confinement_shell(&S->AF.vel, o->confinement, dt, &S->AF.pool,
				     advect_shells_end(&S->shells), &S->shells.trk, err))
		return -1;
	return 0;
}

/* The bodies move last, from the pose the fluid saw; gravity on a dynamic
 * body is its body force, added here once per substep like the fluid's;
 * project adds only the pressure's push (batty2007 §3).  They read
 * nothing the forces change.  Never fails. */
static void
rigid_bodies(advect_stage *S, double dt)
{
	rigid_set_step(&S->rs, S->have_g > 0 ? S->gravity : NULL, S->time0 + S->t, dt);
}

/* Which random stream seeds vortex particles in substep nsub (from 1) of
 * the frame after `frame`: VORTEX_KEYS_PER_FRAME keys per frame, frame
 * f + 1 from (f + 1) VORTEX_KEYS_PER_FRAME on (a frame before 0 as 0). */
static uint64_t
vortex_stream_key(double frame, int nsub)
{
	return (uint64_t)fmax(frame + 1, 0) * VORTEX_KEYS_PER_FRAME + (uint64_t)nsub;
}

/* Vortex particles: those inside a solid deleted, new ones seeded in the
 * source (thesis §3.5), then their force on the velocity (thesis
 * §3.4.2).  They read nothing the forces change. */
static int
vortex_particles(advect_stage *S, double dt, slc_err *err)
{
	const advect_stage_opts *o = &S->o;

	if (!S->vort)
		return 0;
	if (mpi_whole_in(S, 1, err) || (o->vortex.rate > 0 && mpi_whole_src(S, err)))
		return -1;
#ifdef SLC_MPI
	if (S->comm) {
		if ((S->sol && vx_cull(S, whole_sol(S), err)) ||
		    (o->vortex.rate > 0 &&
		     vx_seed(S, whole_src(S), vortex_stream_key(S->frame, S->nsub), dt, err)) ||
		    vx_force(S, dt, err))
			return -1;
		mpi_whole_out(S, 0);
		return 0;
	}
#endif
	if ((S->sol && vortex_cull(S->vort, whole_sol(S), err)) ||
	    (o->vortex.rate > 0 && vortex_seed(S->vort, whole_src(S), &o->vortex, dt, (uint64_t)o->seed,
					       vortex_stream_key(S->frame, S->nsub), err)))
		return -1;
	vortex_force(S->vort, whole_vel(S), &o->vortex, dt);
	mpi_whole_out(S, 0);
	return 0;
}

/* A liquid in a closed box: no flow through its walls. */
static int
liquid_walls(advect_stage *S, slc_err *err)
{
	if (!S->liquid || S->o.open)
		return 0;
	if (mpi_whole_in(S, 0, err))
		return -1;
	pls_walls(whole_vel(S));
	mpi_whole_out(S, 0);
	return 0;
}

int
advect_stage_substep(advect_stage *S, slc_err *err)
{
	double vmax = 0, dt = 0, rest = S->T - S->t;
	const advect_stage_opts *o = &S->o;

	/* over MPI ranks, the ghost planes are refreshed before each phase
	 * that reads its neighbours' samples (advect_stage_ghost) */
	if (mpi_halo(S, err) || liquid_extrapolate(S, err))
		return -1;
	fluid_solid(S);
	if (cfl_speed(S, &vmax, err) || substep_length(S, vmax, rest, &dt, err) ||
	    mpi_reach(S, vmax, dt, err))
		return -1;
	S->ao.vmax = vmax;
	if (advect_shells_begin(&S->shells, S->t / S->T, fmin(1, (S->t + dt) / S->T), err) ||
	    solid_extrapolate(S, vmax, dt, err) || (S->sol && mpi_halo(S, err)) ||
	    advect_records(S, dt, err) || liquid_step(S, dt, err) ||
	    advect_velocity(S, dt, err) || shell_sweeps(S, err))
		return -1;
	sources(S);
	if (mpi_halo(S, err) || forces(S, dt, err))
		return -1;
	rigid_bodies(S, dt);
	if (vortex_particles(S, dt, err) || liquid_walls(S, err))
		return -1;
	S->t = o->substep > 0 && rest < o->substep * (1 + SUBSTEP_SLACK) ? S->T : S->t + dt;
	return 0;
}

int
advect_stage_done(const advect_stage *S)
{
	return !(S->t < S->T);
}

double
advect_stage_percent(const advect_stage *S)
{
	return 100 * S->t / S->T;
}

/* --- store ------------------------------------------------------------ */

int
advect_stage_changed(const advect_stage *S, const slc_rec *r)
{
	return advect_frame_moves(r, S->o.source) || r->kind == SLC_PARTICLES ||
	       (S->rs.n && rigid_set_owns(r)) || !strcmp(r->name, "u") ||
	       !strcmp(r->name, "v") || !strcmp(r->name, "w");
}

int
advect_stage_store(advect_stage *S, slc_err *err)
{
	double time = S->time0 + S->T;
	size_t i;

	if (mac_check_finite(&S->AF.vel, err))
		return in_frame(S, err);
#ifdef SLC_MPI
	if (S->liquid && S->comm && S->water.o.particles) {
		if (mk_store(S, time, err))
			return -1;
	} else
#endif
	if (S->liquid && pls_water_store(&S->water, S->F, time, err))
		return -1;
	if (rigid_set_store(&S->rs, S->F, time, err))
		return -1;
#ifdef SLC_MPI
	if (S->comm && S->vort && vx_store(S, err))
		return -1;
#endif
	for (i = 0; i < S->F->n; i++)
		if (S->F->r[i] != S->scene && advect_stage_changed(S, S->F->r[i]))
			S->F->r[i]->time = time;
	if (S->scene && slc_scene_advance(S->scene, S->frame + 1, time, err))
		return -1;
	return 0;
}

void
advect_stage_stats_get(const advect_stage *S, advect_stage_stats *st)
{
	memset(st, 0, sizeof *st);
	st->substeps = S->nsub;
	st->adv = S->st;
	st->shell_samples = S->shells.samples;
	st->shell_swept = S->shells.swept + S->shells.pls.swept;
	st->shell_fallback = S->shells.fallback + S->shells.pls.fallback;
	if (!(st->liquid = S->liquid))
		return;
#ifdef SLC_MPI
	st->volume = pls_liquid_volume(S->comm ? &S->phiw : &S->phi);
#else
	st->volume = pls_liquid_volume(&S->phi);
#endif
	st->spray_volume = spray_volume(&S->water.spr);
	st->spray = S->water.spr.n;
	st->pos = S->water.pos.n;
	st->neg = S->water.neg.n;
	st->water = S->water.st;
	st->migrated = S->migrated;
#ifdef SLC_MPI
	if (S->comm && S->water.o.particles) {
		st->pos = S->mall[0];
		st->neg = S->mall[1];
	}
#endif
}

long
advect_stage_frame(const advect_stage *S)
{
	return S->scene ? (long)S->frame + 1 : -1;
}

void
advect_stage_free(advect_stage *S)
{
	if (S->have_wt)
		mac_free(&S->wt);
	pls_water_free(&S->water);
	advect_shells_free(&S->shells);
#ifdef SLC_MPI
	field_free(&S->phiw);
	field_free(&S->solw);
	field_free(&S->srcw);
	free(S->mid[0]);
	free(S->mid[1]);
	free(S->vid);
	for (int a = 0; a < 3; a++)
		field_free(mac_comp(&S->velw, a));
#endif
	rigid_set_free(&S->rs);
	advect_frame_free(&S->AF);
	memset(S, 0, sizeof *S);
}
