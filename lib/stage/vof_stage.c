/* vof_stage.c: vofstep's frame work (see vof_stage.h): the water on the
 * KDSM from one bake frame to the next, its coupling with the grid in
 * §4's order, the spray, and the ledger carried from stage to stage. */
#include "stage/vof_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "vof/vof_recs.h"

/* Gravity without an option or a scene's, m/s^2 (as mkprim pool writes). */
#define VOF_STAGE_G (-9.81)
/* Water density of the spray record's mass, kg/m^3 (liquid/spray.h's). */
#define VOF_STAGE_RHO 1000.0

static const char *const mode_name[] = { "init", "advect", "conserve", "finish", "step" };

void
vof_stage_opts_default(vof_stage_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mode = VOF_MODE_STEP;
	o->name = "vof";
	o->spray = "spray";
	o->grid = 1;
	o->absorb = 1;
	o->grav[0] = o->grav[1] = o->grav[2] = NAN;
	o->jitter = VOF_JITTER;
	o->k_across = VOF_DRAG_ACROSS;
	o->k_along = VOF_DRAG_ALONG;
	o->mu = VOF_ADH_FRICTION;
}

/* The `kdsm` mesh of a bake frame and its frame number. */
static int
bake_mesh(const slc_frame *B, const char *which, kdsm_mesh *m, long *frame, double *t,
	  slc_err *err)
{
	const slc_rec *r = slc_frame_find(B, "kdsm", SLC_TETS), *k;
	double f = 0;

	if (!r)
		return slc_fail(err, "%s: no tets record 'kdsm' (a kdsmbake frame)", which);
	if (!(k = slc_frame_find(B, "kdsmbake", SLC_META)) ||
	    slc_meta_get_f64(k, "frame", &f, err) != 1 || f != floor(f) ||
	    fabs(f) > SLC_SCENE_FRAME_MAX)
		return slc_fail(err, "%s: meta 'kdsmbake': no whole frame number", which);
	*frame = (long)f;
	*t = r->time;
	if (vof_mesh_from_rec(m, r, err))
		return slc_failctx(err, "%s: ", which);
	return 0;
}

/* The ledger keys kept in the meta record, in the order written. */
#define LEDGER_F64(X) X(before) X(grid_in) X(grid_fill) X(particles_in) X(particles_out) \
	X(after) X(forwarded) X(smeared) X(pushed) X(enclosed) X(max_trace)
#define LEDGER_CNT(X) X(n_spray) X(n_enclosed) X(n_clamped) X(n_corrected) X(n_filled) \
	X(n_absorbed) X(n_overwritten)

/* The ledger so far from meta m (conserve, finish). */
static int
ledger_read(const slc_rec *m, vof_ledger *L, slc_err *err)
{
	double v;

	memset(L, 0, sizeof *L);
#define RD(k)                                                                     \
	if (slc_meta_get_f64(m, #k, &v, err) != 1)                                \
		return slc_fail(err, "meta 'vofstep': no number " #k);            \
	L->k = v;
	LEDGER_F64(RD)
#undef RD
#define RC(k)                                                                     \
	if (slc_meta_get_f64(m, #k, &v, err) != 1 || !(v >= 0 && v < 1e18))       \
		return slc_fail(err, "meta 'vofstep': no count " #k);             \
	L->k = (size_t)v;
	LEDGER_CNT(RC)
#undef RC
	return 0;
}

/* The grid's liquid and velocity, when coupled and there. */
static int
load_grid(vof_stage *S, slc_err *err)
{
	slc_rec *r, *c[3];
	static const char *const nm[3] = { "u", "v", "w" };
	int a;

	if (!S->o.grid)
		return 0;
	if (slc_frame_get(S->F, "phi", SLC_GRID, &r, err))
		return -1;
	if (r) {
		if (field_from_rec(&S->phi, r, NULL, err))
			return slc_failctx(err, "record 'phi': ");
		S->g.phi = &S->phi;
	}
	for (a = 0; a < 3; a++)
		if (slc_frame_get(S->F, nm[a], SLC_GRID, &c[a], err))
			return -1;
	if (!c[0] && !c[1] && !c[2])
		return 0;
	for (a = 0; a < 3; a++) {
		if (!c[a])
			return slc_fail(err, "record '%s': missing (u, v, w go together)", nm[a]);
		if (field_from_rec(mac_comp(&S->vel, a), c[a], NULL, err))
			return slc_failctx(err, "record '%s': ", nm[a]);
	}
	if (mac_check(&S->vel, err))
		return -1;
	S->g.vel = &S->vel;
	return 0;
}

/* The spray particles in the frame: P, v, radius, and volume (f64) when
 * vofstep wrote it, else the volume of the radius. */
static int
load_spray(vof_stage *S, slc_err *err)
{
	slc_rec *r;
	uint64_t n = 0, k;
	int rc = -1;
	double *rad = NULL;

	if (slc_frame_get(S->F, S->o.spray, SLC_PARTICLES, &r, err))
		return -1;
	if (!r || !slc_rec_find(r, "P"))
		return 0;
	if (!(S->oP = slc_rec_get_f64(r, "P", 3, &n, err)) ||
	    !(S->ov = slc_rec_get_f64(r, "v", 3, &k, err)) ||
	    !(rad = slc_rec_get_f64(r, "radius", 1, &k, err)))
		goto out;
	if (slc_rec_find(r, "volume")) {
		if (!(S->ovol = slc_rec_get_f64(r, "volume", 1, &k, err)))
			goto out;
	} else {
		if (!(S->ovol = slc_malloc(n ? n : 1, sizeof *S->ovol, err)))
			goto out;
		for (k = 0; k < n; k++)
			S->ovol[k] = 4.0 / 3.0 * M_PI * rad[k] * rad[k] * rad[k];
	}
	for (k = 0; k < n; k++)
		if (!(S->ovol[k] >= 0)) {
			slc_fail(err, "particle %llu: volume %g, expected >= 0",
				 (unsigned long long)k, S->ovol[k]);
			goto out;
		}
	S->nold = (size_t)n;
	rc = 0;
out:
	free(rad);
	return rc ? slc_failctx(err, "record '%s': ", S->o.spray) : 0;
}

/* Is the stage named prev one that mode may follow? */
static int
follows(int mode, const char *prev)
{
	switch (mode) {
	case VOF_MODE_CONSERVE:
		return !strcmp(prev, "advect");
	case VOF_MODE_FINISH:
		return !strcmp(prev, "conserve");
	default:
		return !strcmp(prev, "init") || !strcmp(prev, "finish") || !strcmp(prev, "step");
	}
}

int
vof_stage_load(vof_stage *S, slc_frame *F, const slc_frame *bake0, const slc_frame *bake1,
	       const vof_stage_opts *o, slc_comm *comm, slc_err *err)
{
	const int mode = o->mode, two = mode == VOF_MODE_ADVECT || mode == VOF_MODE_STEP;
	slc_scene sc = { 0, 0, NAN };
	slc_rec *vr, *meta;
	double fps = 0, t0, mf, g[3];
	char prev[32] = "";

	memset(S, 0, sizeof *S);
	S->o = *o;
	S->F = F;
	S->bake0 = bake0;
	S->bake1 = bake1;
	if (slc_comm_serial(comm, err))
		return -1;
	if (mode < VOF_MODE_INIT || mode > VOF_MODE_STEP || (two && !bake0) || !bake1)
		return slc_fail(err, "mode %d: the bake frames it needs not given", mode);
	if (!(o->beta >= 0 && o->beta <= 1))
		return slc_fail(err, "beta %g, expected 0..1", o->beta);
	S->scene = slc_frame_find(F, "scene", SLC_META);
	if (slc_scene_read(S->scene, &sc, err))
		return slc_failctx(err, "scene: ");
	S->frame = sc.frame;
	S->dt = o->dt > 0 ? o->dt : sc.dt;
	if (isnan(S->dt) && slc_scene_fps(S->scene, &fps, err) < 0)
		return slc_failctx(err, "scene: ");
	if (isnan(S->dt) && fps > 0)
		S->dt = 1 / fps;
	if (!(S->dt >= 0) && mode != VOF_MODE_INIT && mode != VOF_MODE_FINISH)
		return slc_fail(err, "no frame length: give --dt or a scene record with dt or fps");
	memcpy(g, o->grav, sizeof g);
	if (isnan(g[0])) {
		g[0] = g[2] = 0;
		g[1] = VOF_STAGE_G;
		if (slc_scene_gravity(S->scene, g, err) < 0)
			return slc_failctx(err, "scene: ");
	}
	memcpy(S->gr, g, sizeof g);
	if (bake_mesh(bake1, two ? "next mesh" : "mesh", &S->m1, &S->f1, &S->t1, err) ||
	    (two && bake_mesh(bake0, "mesh", &S->m0, &S->f0, &t0, err)))
		return -1;
	if (two && (S->m0.nt != S->m1.nt || S->m0.nsamp != S->m1.nsamp))
		return slc_fail(err, "meshes of frames %ld and %ld: %zu and %zu tets, %d and %d "
				"samples: not one lattice", S->f0, S->f1, S->m0.nt, S->m1.nt,
				S->m0.nsamp, S->m1.nsamp);
	meta = slc_frame_find(F, "vofstep", SLC_META);
	if (meta)
		slc_meta_get(meta, "stage", prev, sizeof prev);
	if (mode != VOF_MODE_INIT) {
		static const char *const after[] = { "", "init, finish or step", "advect",
						     "conserve", "init, finish or step" };
		const kdsm_mesh *on = two ? &S->m0 : &S->m1;
		long want = two ? S->f0 : S->f1;

		if (!(vr = slc_frame_find(F, o->name, SLC_TETS)))
			return slc_fail(err, "no tets record '%s' (start with vofstep init)",
					o->name);
		if (!follows(mode, prev))
			return slc_fail(err, "meta 'vofstep': stage '%s': %s must follow %s",
					prev, mode_name[mode], after[mode]);
		if (slc_meta_get_f64(meta, "mesh_frame", &mf, err) != 1 || mf != (double)want)
			return slc_fail(err, "meta 'vofstep': the water is on mesh frame %.17g, "
					"this %s expects %ld", mf, mode_name[mode], want);
		if (vof_state_from_rec(&S->s, vr, on->nt, err))
			return -1;
		if (two) {
			vof_ledger_open(&S->L, &S->s);
		} else {
			if (ledger_read(meta, &S->L, err))
				return -1;
			if (vof_volume(&S->s) != S->L.after)
				return slc_fail(err, "record '%s': holds %.17g m^3, the ledger left "
						"%.17g: changed outside vofstep", o->name,
						vof_volume(&S->s), S->L.after);
		}
	} else if (vof_state_init(&S->s, S->m1.nt, err)) {
		return -1;
	}
	if (load_grid(S, err))
		return -1;
	if (mode == VOF_MODE_INIT && o->fill) {
		slc_rec *fr;

		if (slc_frame_get(F, o->fill, SLC_GRID, &fr, err))
			return -1;
		if (!fr)
			return slc_fail(err, "no grid record '%s' to fill from", o->fill);
		if (field_from_rec(&S->phi, fr, NULL, err))
			return slc_failctx(err, "record '%s': ", o->fill);
		S->g.phi = &S->phi;
	}
	if (mode != VOF_MODE_FINISH && mode != VOF_MODE_INIT && load_spray(S, err))
		return -1;
	return 0;
}

/* §4.1's spray of this stage shifted back by dt v: the grid's advect,
 * next in the pipe, moves it forward to where it left (not from the
 * paper, which has one process). */
static void
spray_premove(vof_stage *S)
{
	size_t q;
	int a;

	for (q = 0; q < S->sp.n; q++)
		for (a = 0; a < 3; a++)
			S->sp.P[3 * q + a] -= S->dt * S->sp.v[3 * q + a];
}

static int
do_advect(vof_stage *S, slc_err *err)
{
	vof_advect_opts ao;
	vof_state s1;

	vof_advect_defaults(&ao);
	ao.dt = S->dt;
	ao.seed = S->o.seed;
	ao.frame = S->f1;
	ao.jitter = S->o.jitter;
	ao.fraction = S->o.fraction;
	if (S->g.phi) {
		ao.grid = vof_grid_sample;
		ao.grid_ctx = &S->g;
	}
	if (vof_advect(&S->m0, &S->s, &S->m1, &s1, &ao, &S->sp, &S->L, err))
		return slc_failctx(err, "frame %ld to %ld: ", S->f0, S->f1);
	vof_state_free(&S->s);
	S->s = s1;
	return 0;
}

/* §4 (2)-(4) on mesh n+1: the mesh's velocity into the grid (beta), the
 * grid's liquid into the mesh, spray absorbed, forces, smear, pushout,
 * correction. */
static int
do_conserve(vof_stage *S, slc_err *err)
{
	const kdsm_mesh *m = &S->m1;
	vof_forces_opts fo;
	vof_conserve_opts co;
	vof_ledger Lp;
	size_t t;

	if (S->g.vel && S->o.beta > 0) {
		if (vof_to_grid(m, &S->s, &S->vel, S->o.beta, &S->n_faces, err))
			return -1;
		S->blended = S->n_faces > 0;
	}
	vof_grid_take(m, &S->s, &S->g, &S->L);
	if (S->o.absorb && S->nold) {
		if (!(S->gone = slc_calloc(S->nold, 1, err)) ||
		    vof_absorb(m, &S->s, S->nold, S->oP, S->ov, S->ovol, S->gone, &S->L, err))
			return -1;
	}
	vof_forces_defaults(&fo);
	fo.dt = S->dt;
	memcpy(fo.g, S->gr, sizeof fo.g);
	fo.adh = S->o.adh;
	fo.dmax = S->o.dmax;
	fo.mu = S->o.mu;
	fo.k_across = S->o.k_across;
	fo.k_along = S->o.k_along;
	vof_forces(m, &S->s, &fo);
	vof_conserve_defaults(&co);
	co.seed = S->o.seed;
	co.frame = S->f1;
	co.jitter = S->o.jitter;
	/* the enclosed count of this pushout alone, for the bound below */
	memset(&Lp, 0, sizeof Lp);
	if (vof_smear(m, &S->s, &S->L, err) || vof_pushout(m, &S->s, &co, &S->sp, &Lp, err))
		return slc_failctx(err, "frame %ld: ", S->f1);
	S->L.pushed += Lp.pushed;
	S->L.enclosed += Lp.enclosed;
	S->L.n_enclosed += Lp.n_enclosed;
	S->L.particles_out += Lp.particles_out;
	S->L.n_spray += Lp.n_spray;
	for (t = 0; t < m->nt; t++)
		S->n_over += S->s.W[t] > m->cap[t] + VOF_STAGE_LEDGER_TOL * m->cap[t];
	S->n_over = S->n_over > Lp.n_enclosed ? S->n_over - Lp.n_enclosed : 0;
	return vof_correct(m, &S->s, &S->L, err) ? slc_failctx(err, "frame %ld: ", S->f1) : 0;
}

int
vof_stage_step(vof_stage *S, slc_comm *comm, slc_err *err)
{
	if (slc_comm_serial(comm, err))
		return -1;
	switch (S->o.mode) {
	case VOF_MODE_INIT:
		vof_ledger_open(&S->L, &S->s);
		vof_grid_take(&S->m1, &S->s, &S->g, &S->L);
		break;
	case VOF_MODE_ADVECT:
		if (do_advect(S, err))
			return -1;
		spray_premove(S);
		break;
	case VOF_MODE_CONSERVE:
		if (do_conserve(S, err))
			return -1;
		break;
	case VOF_MODE_FINISH:
		vof_grid_velocity(&S->m1, &S->s, &S->g, &S->L);
		break;
	default:
		if (do_advect(S, err) || do_conserve(S, err))
			return -1;
	}
	vof_ledger_close(&S->L, &S->s);
	return 0;
}

double
vof_stage_balance(const vof_stage *S)
{
	double v = fmax(fmax(S->L.before, S->L.after), 1e-300);

	return fabs(vof_ledger_residual(&S->L)) / v;
}

/* Replace record old (may be NULL) of F by *r, remembered as changed. */
static int
replace(vof_stage *S, slc_rec *old, slc_rec *r, slc_err *err)
{
	slc_rec *put;

	if (old)
		slc_frame_remove(S->F, old);
	if (!(put = slc_frame_put(S->F, r, err))) {
		slc_rec_free(r);
		return -1;
	}
	if (S->nchanged < (int)(sizeof S->changed / sizeof *S->changed))
		S->changed[S->nchanged++] = put;
	return 0;
}

static int
put_ledger(vof_stage *S, slc_err *err)
{
	slc_rec rec, *old = slc_frame_find(S->F, "vofstep", SLC_META);
	char val[64];

	if (slc_meta_init(&rec, "vofstep", err))
		return -1;
	rec.time = S->t1;
#define SETV(k, ...)                                                              \
	do {                                                                      \
		snprintf(val, sizeof val, __VA_ARGS__);                            \
		if (slc_meta_set(&rec, k, val, err))                              \
			goto fail;                                                 \
	} while (0)
	SETV("stage", "%s", mode_name[S->o.mode]);
	SETV("mesh_frame", "%ld", S->f1);
#define WF(k) SETV(#k, "%.17g", S->L.k);
	LEDGER_F64(WF)
#undef WF
#define WC(k) SETV(#k, "%zu", S->L.k);
	LEDGER_CNT(WC)
#undef WC
	SETV("residual", "%.17g", vof_ledger_residual(&S->L));
	SETV("balance", "%.3g", vof_stage_balance(S));
	SETV("over_cap", "%zu", S->n_over);
	SETV("blended_faces", "%zu", S->n_faces);
	SETV("dt", "%.17g", S->dt);
#undef SETV
	return replace(S, old, &rec, err);
fail:
	slc_rec_free(&rec);
	return -1;
}

/* The spray record rebuilt: the particles not absorbed, then the new
 * ones; P, v, radius, mass in f32 (liquid/spray.h's record) and the
 * volume in f64, so that the ledger's particle terms are exact. */
static int
put_spray(vof_stage *S, slc_err *err)
{
	slc_rec rec, *old = NULL;
	size_t n = 0, q, i = 0;
	float *P, *v, *rad, *mass;
	double *vol, time = S->t1;
	int a;

	for (q = 0; q < S->nold; q++)
		n += !(S->gone && S->gone[q]);
	if (n == S->nold && !S->sp.n)
		return 0;
	slc_frame_get(S->F, S->o.spray, SLC_PARTICLES, &old, err);
	if (old)
		time = old->time;
	slc_rec_init(&rec, SLC_PARTICLES, S->o.spray);
	rec.time = time;
	n += S->sp.n;
	if (!(P = slc_rec_add(&rec, "P", SLC_F32, 3, SLC_POINT, n, err)) ||
	    !(v = slc_rec_add(&rec, "v", SLC_F32, 3, SLC_POINT, n, err)) ||
	    !(rad = slc_rec_add(&rec, "radius", SLC_F32, 1, SLC_POINT, n, err)) ||
	    !(mass = slc_rec_add(&rec, "mass", SLC_F32, 1, SLC_POINT, n, err)) ||
	    !(vol = slc_rec_add(&rec, "volume", SLC_F64, 1, SLC_POINT, n, err))) {
		slc_rec_free(&rec);
		return -1;
	}
	for (q = 0; q < S->nold + S->sp.n; q++) {
		int fresh = q >= S->nold;
		size_t j = fresh ? q - S->nold : q;
		const double *x = fresh ? S->sp.P + 3 * j : S->oP + 3 * j;
		const double *u = fresh ? S->sp.v + 3 * j : S->ov + 3 * j;
		double V = fresh ? S->sp.vol[j] : S->ovol[j];

		if (!fresh && S->gone && S->gone[j])
			continue;
		for (a = 0; a < 3; a++) {
			P[3 * i + a] = (float)x[a];
			v[3 * i + a] = (float)u[a];
		}
		rad[i] = (float)cbrt(3 * V / (4 * M_PI));
		mass[i] = (float)(VOF_STAGE_RHO * V);
		vol[i++] = V;
	}
	return replace(S, old, &rec, err);
}

/* The bake's solid grids in place of the frame's (advect: the grid
 * stages see the character's pose at n+1). */
static int
put_solids(vof_stage *S, slc_err *err)
{
	static const char *const nm[3] = { "solid", "solid_vel", "solid_slip" };
	int a;

	for (a = 0; a < 3; a++) {
		slc_rec *src, rec;

		if (slc_frame_get(S->bake1, nm[a], SLC_GRID, &src, err))
			return -1;
		if (!src)
			continue;
		if (slc_rec_copy(&rec, src, err) ||
		    replace(S, slc_frame_find_undecoded(S->F, nm[a], SLC_GRID), &rec, err))
			return -1;
	}
	return 0;
}

int
vof_stage_store(vof_stage *S, slc_comm *comm, slc_err *err)
{
	slc_rec rec;

	if (slc_comm_serial(comm, err))
		return -1;
	if (vof_state_to_rec(&S->s, &S->m1, &rec, S->o.name, S->t1, err) ||
	    replace(S, slc_frame_find(S->F, S->o.name, SLC_TETS), &rec, err) ||
	    put_ledger(S, err) || put_spray(S, err))
		return -1;
	if (S->o.mode == VOF_MODE_ADVECT && put_solids(S, err))
		return -1;
	if (S->blended) {
		static const char *const nm[3] = { "u", "v", "w" };

		for (int a = 0; a < 3; a++) {
			slc_rec *r;

			slc_frame_get(S->F, nm[a], SLC_GRID, &r, err);
			if (r && S->nchanged < (int)(sizeof S->changed / sizeof *S->changed))
				S->changed[S->nchanged++] = r;
		}
	}
	if (S->o.mode == VOF_MODE_STEP && S->scene) {
		slc_scene sc = { 0, 0, NAN };

		if (slc_scene_read(S->scene, &sc, err) ||
		    slc_scene_advance(S->scene, sc.frame + 1, sc.time + S->dt, err))
			return slc_failctx(err, "scene: ");
		if (S->nchanged < (int)(sizeof S->changed / sizeof *S->changed))
			S->changed[S->nchanged++] = S->scene;
	}
	return 0;
}

int
vof_stage_changed(const vof_stage *S, const slc_rec *r)
{
	for (int i = 0; i < S->nchanged; i++)
		if (S->changed[i] == r)
			return 1;
	return 0;
}

void
vof_stage_free(vof_stage *S)
{
	vof_state_free(&S->s);
	vof_spray_free(&S->sp);
	free(S->oP);
	free(S->ov);
	free(S->ovol);
	free(S->gone);
	memset(S, 0, sizeof *S);
}
