/* hair_stage.c: hairstep's frame physics (see hair_stage.h): the strands
 * record and the bodies in, one frame of hair (selle2008 thesis ch. 7),
 * the new state and the figures out. */
#include "stage/hair_stage.h"

#include "cloth/collide_self.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/collide_self.h"
#include "core/meta.h"

static int put_chan(slc_rec *r, const char *name, uint32_t type,
		    uint32_t ncomp, uint32_t domain, size_t n, const void *src,
		    slc_err *err);

/* The frame rate when neither the options nor the scene give one. */
#define DEFAULT_FPS 24
/* notes §1 item 12 (SPEC): axis points 0 and 1 and segment 0's virtual
 * pinned, three points that hold the root's position and orientation
 * (thesis §7.6: "first few points at the hair root embedded"). */
#define DEFAULT_ROOT 2

void
hair_stage_opts_default(hair_stage_opts *o)
{
	memset(o, 0, sizeof *o);
	o->hair = "hair";
	o->solid = "solid";
	o->grav[0] = o->grav[1] = o->grav[2] = NAN;
	o->root = DEFAULT_ROOT;
	o->mu = 0.3;
	o->ground = NAN;
	o->frames = 1;
	o->self = 1;
	hair_params_default(&o->par);
	o->steps = o->par.steps;
	o->max_steps = o->par.max_steps;
}


/* Optional channel name of the strands record, count elements of ncomp
 * doubles, into *out (left NULL when absent). */
static int
get_chan(const hair_stage *s, const char *name, uint32_t ncomp, size_t count,
	 double **out, slc_err *err)
{
	uint64_t n;

	if (!slc_rec_find(s->hr, name))
		return 0;
	if (!(*out = slc_rec_get_f64(s->hr, name, ncomp, &n, err)))
		return slc_failctx(err, "record '%s': channel %s: ", s->o.hair,
				   name);
	if (n != count)
		return slc_fail(err, "record '%s': channel %s: %llu elements, "
				"expected %zu", s->o.hair, name,
				(unsigned long long)n, count);
	return 0;
}

/* The strands record's channels and the persisted virtuals. */
static int
read_hair(hair_stage *s, const uint32_t **offset, const uint8_t **pin,
	  const uint32_t **vseg, slc_err *err)
{
	const char *name = s->o.hair;
	uint64_t np;

	if (!(s->P = slc_rec_get_f64(s->hr, "P", 3, &np, err)))
		return slc_failctx(err, "record '%s': ", name);
	s->naxis = np;
	if (!(*offset = slc_rec_get(s->hr, "offset", SLC_U32, 1, 0, err)))
		return slc_failctx(err, "record '%s': ", name);
	s->nstrands = slc_rec_find(s->hr, "offset")->count - 1;
	if (get_chan(s, "v", 3, np, &s->v, err) ||
	    get_chan(s, "rest", 3, np, &s->rest, err) ||
	    get_chan(s, "goal", 3, np, &s->goal, err) ||
	    get_chan(s, "mass", 1, np, &s->m, err) ||
	    get_chan(s, "kscale", 1, s->nstrands, &s->kscale, err))
		return -1;
	if (slc_rec_find(s->hr, "pinned") &&
	    !(*pin = slc_rec_get(s->hr, "pinned", SLC_U8, 1, np, err)))
		return slc_failctx(err, "record '%s': ", name);
	if (!slc_rec_find(s->hr, "virt_seg"))
		return 0;
	if (!(*vseg = slc_rec_get(s->hr, "virt_seg", SLC_U32, 1, 0, err)))
		return slc_failctx(err, "record '%s': ", name);
	s->nvirt = slc_rec_find(s->hr, "virt_seg")->count;
	if (slc_rec_find(s->hr, "virt_pinned") &&
	    !(s->vpin = slc_rec_get(s->hr, "virt_pinned", SLC_U8, 1, s->nvirt,
				    err)))
		return slc_failctx(err, "record '%s': ", name);
	if (get_chan(s, "virt_P", 3, s->nvirt, &s->vP, err) ||
	    get_chan(s, "virt_v", 3, s->nvirt, &s->vv, err) ||
	    get_chan(s, "virt_rest", 3, s->nvirt, &s->vrest, err) ||
	    get_chan(s, "virt_mass", 1, s->nvirt, &s->vm, err) ||
	    get_chan(s, "virt_goal", 3, s->nvirt, &s->vgoal, err))
		return -1;
	if (!s->vP || !s->vrest)
		return slc_fail(err, "record '%s': virt_seg without virt_P and "
				"virt_rest", name);
	return 0;
}

/* Pinned points move to their goal (or stay) at constant velocity over
 * the frame: the record's 'pinned' points, else the first o.root axis
 * points of every strand; a virtual is pinned by 'virt_pinned', else when
 * both ends of its segment are, and moves to its virt_goal or with their
 * mean velocity. */
static void
constrain_pins(hair_stage *s)
{
	const hair_topo *t = &s->h.topo;
	const uint8_t *pin = s->pin;
	const double *x = s->h.ms.x;
	double *vel = s->h.ms.vfix;

	for (size_t q = 0; q < t->nstrands; q++)
		for (uint32_t i = t->offset[q]; i < t->offset[q + 1]; i++) {
			int p = pin ? pin[i] != 0 :
				(long)(i - t->offset[q]) < s->o.root;
			if (!p)
				continue;
			double w[3] = {0, 0, 0};
			for (int k = 0; s->goal && k < 3; k++)
				w[k] = (s->goal[3 * i + k] - x[3 * i + k]) / s->T;
			hair_constrain(&s->h, i, w);
		}
	for (size_t k = 0; k < t->nvirt; k++) {
		uint32_t i = t->virt_seg[k], v = (uint32_t)(t->naxis + k);
		if (s->vpin ? !s->vpin[k] :
		    !s->h.ms.fixed[i] || !s->h.ms.fixed[i + 1])
			continue;
		double w[3];
		for (int d = 0; d < 3; d++)
			w[d] = s->vgoal ? (s->vgoal[3 * k + d] -
					   x[3 * v + d]) / s->T :
				0.5 * (vel[3 * i + d] + vel[3 * i + 3 + d]);
		hair_constrain(&s->h, v, w);
	}
}



/* The stiction bonds of the frame before, stic_seg and stic_frac, when
 * stiction is on (off: they are dropped on store). */
static int
load_bonds(hair_stage *s, slc_err *err)
{
	const char *name = s->o.hair;
	const uint32_t *seg;
	double *frac = NULL;
	uint64_t n;

	if (!s->h.par.self.stiction || !slc_rec_find(s->hr, "stic_seg"))
		return 0;
	if (!(seg = slc_rec_get(s->hr, "stic_seg", SLC_U32, 2, 0, err)))
		return slc_failctx(err, "record '%s': ", name);
	n = slc_rec_find(s->hr, "stic_seg")->count;
	if (!slc_rec_find(s->hr, "stic_frac"))
		return slc_fail(err, "record '%s': stic_seg without stic_frac",
				name);
	if (get_chan(s, "stic_frac", 2, (size_t)n, &frac, err))
		return -1;
	int rc = hair_load_bonds(&s->h, (size_t)n, seg, frac, err);
	free(frac);
	return rc ? slc_failctx(err, "record '%s': stic_seg: ", name) : 0;
}

/* The bonds into the detail channels stic_seg and stic_frac, or neither
 * with stiction off. */
static int
store_bonds(hair_stage *s, slc_err *err)
{
	slc_rec *r = s->hr;
	size_t nb = hair_nbonds(&s->h);

	slc_rec_remove(r, "stic_seg");
	slc_rec_remove(r, "stic_frac");
	if (!s->h.par.self.stiction)
		return 0;
	uint32_t *seg = slc_calloc(2 * nb + 1, sizeof *seg, err);
	double *frac = slc_calloc(2 * nb + 1, sizeof *frac, err);
	int rc = -1;
	if (seg && frac) {
		hair_save_bonds(&s->h, seg, frac);
		rc = put_chan(r, "stic_seg", SLC_U32, 2, SLC_DETAIL, nb, seg,
			      err) ||
			put_chan(r, "stic_frac", SLC_F64, 2, SLC_DETAIL, nb,
				 frac, err) ? -1 : 0;
	}
	free(seg);
	free(frac);
	return rc;
}

int
hair_stage_load(hair_stage *s, slc_frame *F, const hair_stage_opts *o,
		slc_comm *comm, slc_err *err)
{
	hair_params par = o->par;
	double fps = o->fps, g[3];
	const uint32_t *offset = NULL, *vseg = NULL;
	const uint8_t *pin = NULL;

	memset(s, 0, sizeof *s);
	s->o = *o;
	s->F = F;
	if (stage_split_open(&s->split, &s->sp, comm, err))
		return -1;
	s->hr = slc_frame_find(F, o->hair, SLC_STRANDS);
	s->scene = slc_frame_find(F, "scene", SLC_META);
	if (!s->hr)
		return slc_fail(err, "no strands record '%s'", o->hair);
	s->t0 = s->hr->time;
	memcpy(g, o->grav, sizeof g);
	if (stage_scene_read(s->scene, &fps, &s->frame, g, err))
		return -1;
	if (!(fps > 0))
		fps = DEFAULT_FPS;
	s->T = 1 / fps;
	par.steps = (int)o->steps;
	par.max_steps = (int)o->max_steps;
	if (!isnan(g[0]))
		memcpy(par.mp.g, g, sizeof g);
	if (read_hair(s, &offset, &pin, &vseg, err))
		return -1;
	hair_virt hv = {
		.nvirt = s->nvirt, .seg = vseg, .P = s->vP, .v = s->vv,
		.rest = s->vrest, .mass = s->vm,
	};
	if (hair_init(&s->h, s->nstrands, offset, s->naxis, s->P, s->v,
		      s->rest, s->m, s->kscale, vseg ? &hv : NULL, &par, err))
		return slc_failctx(err, "record '%s': ", o->hair);
	s->h.ms.split = s->sp;
	if (s->h.has_ss && s->h.ss.cs)
		collide_self_set_split(s->h.ss.cs, s->sp);
	if (s->h.has_ss && s->h.ss.has_stic)
		s->h.ss.stic.split = s->sp;
	s->pin = pin;
	if (load_bonds(s, err))
		return -1;
	if (slc_rec_find(s->hr, "acc_last")) {
		double *acc = NULL;
		if (get_chan(s, "acc_last", 3, s->h.ms.np, &acc, err))
			return -1;
		memcpy(s->h.ms.acc, acc, 3 * s->h.ms.np * sizeof *acc);
		free(acc);
	}
	{
		stage_body_opts bo = { o->solid, o->mu, o->ground,
				       { o->sphere[0], o->sphere[1], o->sphere[2] }, o->sphere_r };

		return stage_bodies_load(&s->B, F, &bo, s->t0, s->T, err);
	}
}

/* The communicator given after hair_stage_load: the serial build's must
 * be NULL; an MPI build's was taken by the load. */
static int
comm_check(slc_comm *comm, slc_err *err)
{
#ifdef SLC_MPI
	(void)comm;
	(void)err;
	return 0;
#else
	return slc_comm_serial(comm, err);
#endif
}

int
hair_stage_step(hair_stage *s, slc_comm *comm, slc_err *err)
{
	if (comm_check(comm, err))
		return -1;
	for (long f = 0; f < s->o.frames; f++) {
		constrain_pins(s);
		if (hair_advance(&s->h, s->t0 + f * s->T, s->T, s->B.b, s->B.n,
				 err))
			return slc_failctx(err, "frame %.0f: ", s->frame + f);
	}
	if (s->sp && s->sp->failed)
		return slc_fail(err, "frame %.0f: a gather between the ranks failed", s->frame);
	return 0;
}

/* The meta record 'hairstep' of the step's figures, replacing any. */
static int
put_meta(hair_stage *s, slc_err *err)
{
	const hair_stats *st = &s->h.st;
	slc_rec rec, *meta = &rec, *old;
	char val[64];

	while ((old = slc_frame_find(s->F, "hairstep", SLC_META)))
		slc_frame_remove(s->F, old);
	if (slc_meta_init(meta, "hairstep", err))
		return -1;
#define SETV(k, ...) do { snprintf(val, sizeof val, __VA_ARGS__); \
		if (slc_meta_set(meta, k, val, err)) goto fail; } while (0)
	SETV("steps", "%ld", st->steps);
	SETV("cg_iters", "%ld", st->cg_iters);
	SETV("max_strain", "%.9g", st->max_strain);
	SETV("limited", "%ld", st->limited);
	SETV("contacts", "%ld", st->contacts);
	SETV("stiction", "%zu", st->bonds);
	SETV("made", "%ld", st->made);
	SETV("broken", "%ld", st->broken);
	SETV("collisions", "%ld", st->collisions);
	SETV("unresolved", "%ld", st->unresolved);
	if (s->B.n)
		SETV("min_phi", "%.9g", st->min_phi);
	else
		SETV("min_phi", "none");
	SETV("particles", "%zu", s->h.ms.np);
	SETV("virtuals", "%zu", s->h.topo.nvirt);
#undef SETV
	if (!slc_frame_put(s->F, meta, err))
		goto fail;
	return 0;
fail:
	slc_rec_free(meta);
	return -1;
}

/* Add channel name of n elements of ncomp values from src, replacing any. */
static int
put_chan(slc_rec *r, const char *name, uint32_t type, uint32_t ncomp,
	 uint32_t domain, size_t n, const void *src, slc_err *err)
{
	size_t sz = type == SLC_F64 ? 8 : type == SLC_U32 ? 4 : 1;
	void *dst;

	slc_rec_remove(r, name);
	if (!(dst = slc_rec_add(r, name, type, ncomp, domain, n, err)))
		return -1;
	memcpy(dst, src, n * ncomp * sz);
	return 0;
}

int
hair_stage_store(hair_stage *s, slc_comm *comm, slc_err *err)
{
	slc_rec *r = s->hr;
	const hair *h = &s->h;
	const size_t na = s->naxis, nv = h->topo.nvirt;
	const double *xv = h->ms.x + 3 * na, *vv = h->ms.v + 3 * na;
	char buf[64];

	if (comm_check(comm, err))
		return -1;
	const double tend = s->t0 + s->o.frames * s->T;
	uint8_t *vpin = slc_calloc(nv + 1, 1, err);
	if (!vpin)
		return -1;
	for (size_t k = 0; k < nv; k++)
		vpin[k] = h->ms.fixed[na + k];
	int rc = put_chan(r, "virt_pinned", SLC_U8, 1, SLC_DETAIL, nv, vpin, err);
	free(vpin);
	if (rc || put_chan(r, "acc_last", SLC_F64, 3, SLC_DETAIL, h->ms.np,
			   h->ms.acc, err) || store_bonds(s, err))
		return slc_failctx(err, "record '%s': ", s->o.hair);
	slc_rec_remove(r, "virt_goal");
	if (put_chan(r, "P", SLC_F64, 3, SLC_POINT, na, h->ms.x, err) ||
	    put_chan(r, "v", SLC_F64, 3, SLC_POINT, na, h->ms.v, err) ||
	    put_chan(r, "rest", SLC_F64, 3, SLC_POINT, na, h->rest, err) ||
	    put_chan(r, "mass", SLC_F64, 1, SLC_POINT, na, h->ms.m, err) ||
	    put_chan(r, "virt_P", SLC_F64, 3, SLC_DETAIL, nv, xv, err) ||
	    put_chan(r, "virt_v", SLC_F64, 3, SLC_DETAIL, nv, vv, err) ||
	    put_chan(r, "virt_rest", SLC_F64, 3, SLC_DETAIL, nv,
		     h->rest + 3 * na, err) ||
	    put_chan(r, "virt_mass", SLC_F64, 1, SLC_DETAIL, nv, h->ms.m + na,
		     err) ||
	    put_chan(r, "virt_seg", SLC_U32, 1, SLC_DETAIL, nv,
		     h->topo.virt_seg, err))
		return slc_failctx(err, "record '%s': ", s->o.hair);
	r->time = tend;
	if (put_meta(s, err))
		return slc_failctx(err, "meta 'hairstep': ");
	if (!s->scene)
		return 0;
	/* the time in full precision: the next frame starts exactly where
	 * this one ended */
	snprintf(buf, sizeof buf, "%.0f", s->frame + (double)s->o.frames);
	if (slc_meta_set(s->scene, "frame", buf, err))
		return slc_failctx(err, "scene: ");
	snprintf(buf, sizeof buf, "%.17g", tend);
	if (slc_meta_set(s->scene, "time", buf, err))
		return slc_failctx(err, "scene: ");
	return 0;
}

void
hair_stage_free(hair_stage *s)
{
	hair_free(&s->h);
	free(s->P); free(s->v); free(s->rest); free(s->m); free(s->goal);
	free(s->kscale); free(s->vP); free(s->vv); free(s->vrest); free(s->vm);
	free(s->vgoal);
	stage_bodies_free(&s->B);
	memset(s, 0, sizeof *s);
}
