/* cloth_stage.c: clothstep's frame physics (see cloth_stage.h): the
 * records of the cloth and the bodies in, one frame of cloth (selle2008
 * thesis ch. 5-6), the new state out. */
#include "stage/cloth_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/collide_self.h"
#include "core/meta.h"

/* selle2008 table 6.1: the node mass when the record has none. */
#define TABLE61_MASS 1e-6
/* Default repulsion thickness: table 6.1's, but at most this fraction of
 * the mean rest edge (a thickness above the edge length would repel
 * neighbours within the sheet). */
#define THICK_EDGE_FRAC 0.25
/* The frame rate when neither the options nor the scene give one. */
#define DEFAULT_FPS 24

void
cloth_stage_opts_default(cloth_stage_opts *o)
{
	memset(o, 0, sizeof *o);
	o->cloth = "cloth";
	o->solid = "solid";
	o->steps = 8;
	o->loops = 8;
	o->grav[0] = o->grav[1] = o->grav[2] = NAN;
	o->mass = TABLE61_MASS;
	o->mu = 0.3;
	o->ground = NAN;
	cloth_params_default(&o->par);
	o->par.self = 1;
}


/* Optional per-point channel name of the cloth record, ncomp doubles per
 * point, into *out (left NULL when absent). */
static int
get_point_chan(const cloth_stage *s, const char *name, uint32_t ncomp,
	       double **out, slc_err *err)
{
	uint64_t n;

	if (!slc_rec_find(s->cr, name))
		return 0;
	if (!(*out = slc_rec_get_f64(s->cr, name, ncomp, &n, err)))
		return slc_failctx(err, "record '%s': channel %s: ", s->o.cloth, name);
	if (n != s->np)
		return slc_fail(err, "record '%s': channel %s: wrong count",
				s->o.cloth, name);
	return 0;
}

/* The cloth record's channels: P, tri, and the optional v, rest, goal,
 * f_fluid, mass (o.mass at every point without one) and pinned; whether
 * P_prev is to be written. */
static int
read_cloth(cloth_stage *s, const uint32_t **tri, slc_err *err)
{
	const char *name = s->o.cloth;
	uint64_t np;

	if (!(s->P = slc_rec_get_f64(s->cr, "P", 3, &np, err)))
		return slc_failctx(err, "record '%s': ", name);
	s->np = np;
	if (!(*tri = slc_rec_get(s->cr, "tri", SLC_U32, 3, 0, err)))
		return slc_failctx(err, "record '%s': ", name);
	s->nt = slc_rec_find(s->cr, "tri")->count;
	if (get_point_chan(s, "v", 3, &s->v, err) ||
	    get_point_chan(s, "rest", 3, &s->rest, err) ||
	    get_point_chan(s, "goal", 3, &s->goal, err) ||
	    get_point_chan(s, "f_fluid", 3, &s->f, err) ||
	    get_point_chan(s, "mass", 1, &s->m, err))
		return -1;
	s->prev = s->o.keep_prev || slc_rec_find(s->cr, "P_prev") != NULL;
	if (!s->m) {
		if (!(s->m = slc_calloc(np ? np : 1, sizeof *s->m, err)))
			return slc_failctx(err, "record '%s': ", name);
		for (uint64_t i = 0; i < np; i++)
			s->m[i] = s->o.mass;
	}
	if (slc_rec_find(s->cr, "pinned") &&
	    !(s->pin = slc_rec_get(s->cr, "pinned", SLC_U8, 1, np, err)))
		return slc_failctx(err, "record '%s': ", name);
	return 0;
}

/* The mean rest edge over the triangles' edges (an edge shared by two
 * triangles counts twice) of rest positions X, m, into *edge.  This is
 * the stage's reduction: an MPI build sums over the ranks here.  -1 with
 * err on a vertex index out of range. */
static int
mean_rest_edge(const cloth_stage *s, const uint32_t *tri, const double *X,
	       double *edge, slc_err *err)
{
	double sum = 0;

	for (uint64_t t = 0; t < s->nt; t++)
		for (int e = 0; e < 3; e++) {
			uint32_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
			if (a >= s->np || b >= s->np)
				return slc_fail(err, "record '%s': triangle %llu: index out of range",
						s->o.cloth, (unsigned long long)t);
			sum += sqrt(pow(X[3 * a] - X[3 * b], 2) + pow(X[3 * a + 1] - X[3 * b + 1], 2) +
				    pow(X[3 * a + 2] - X[3 * b + 2], 2));
		}
	*edge = sum / (3.0 * (double)s->nt);
	return 0;
}

/* Pinned points move to their goal (or stay) at constant velocity over
 * the frame. */
static void
constrain_pins(cloth_stage *s)
{
	const uint8_t *pin = s->pin;

	for (size_t i = 0; pin && i < s->np; i++)
		if (pin[i]) {
			double vel[3] = {0, 0, 0};
			for (int k = 0; s->goal && k < 3; k++)
				vel[k] = (s->goal[3 * i + k] - s->P[3 * i + k]) / s->T;
			cloth_constrain(&s->c, i, vel);
		}
}




int
cloth_stage_load(cloth_stage *s, slc_frame *F, const cloth_stage_opts *o,
		 slc_comm *comm, slc_err *err)
{
	cloth_params par = o->par;
	double fps = o->fps, g[3];
	const uint32_t *tri = NULL;

	memset(s, 0, sizeof *s);
	s->o = *o;
	if (stage_split_open(&s->split, &s->sp, comm, err))
		return -1;
	s->cr = slc_frame_find(F, o->cloth, SLC_MESH);
	s->scene = slc_frame_find(F, "scene", SLC_META);
	if (!s->cr)
		return slc_fail(err, "no mesh record '%s'", o->cloth);
	s->t0 = s->cr->time;
	memcpy(g, o->grav, sizeof g);
	if (stage_scene_read(s->scene, &fps, &s->frame, g, err))
		return -1;
	if (!(fps > 0))
		fps = DEFAULT_FPS;
	if (!isnan(g[0]))
		memcpy(par.g, g, sizeof g);
	par.loops = (int)o->loops;
	if (read_cloth(s, &tri, err))
		return -1;
	if (o->thickness > 0) {
		par.thickness = o->thickness;
	} else if (s->nt) {
		double edge = 0;
		if (mean_rest_edge(s, tri, s->rest ? s->rest : s->P, &edge, err))
			return -1;
		if (par.thickness > THICK_EDGE_FRAC * edge)
			par.thickness = THICK_EDGE_FRAC * edge;
	}
	if (cloth_init(&s->c, s->np, s->nt, tri, s->P, s->v, s->rest, s->m,
		       &par, err))
		return slc_failctx(err, "record '%s': ", o->cloth);
	s->c.ms.split = s->sp;
	if (s->c.cs)
		collide_self_set_split(s->c.cs, s->sp);
	if (s->f && cloth_set_force(&s->c, s->f, err))
		return slc_failctx(err, "record '%s': f_fluid: ", o->cloth);
	s->T = 1 / fps;
	constrain_pins(s);
	{
		stage_body_opts bo = { o->solid, o->mu, o->ground,
				       { o->sphere[0], o->sphere[1], o->sphere[2] }, o->sphere_r };

		return stage_bodies_load(&s->B, F, &bo, s->t0, s->T, err);
	}
}

/* The communicator given after cloth_stage_load: the serial build's must
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
cloth_stage_step(cloth_stage *s, slc_comm *comm, slc_err *err)
{
	if (comm_check(comm, err))
		return -1;
	if (cloth_advance(&s->c, s->t0, s->T, (int)s->o.steps, s->B.b,
			  s->B.n, err))
		return slc_failctx(err, "frame %.0f: ", s->frame);
	if (s->sp && s->sp->failed)
		return slc_fail(err, "frame %.0f: a gather between the ranks failed", s->frame);
	s->fig.ranks = s->sp ? s->sp->size : 1;
	s->fig.t_comm = s->sp ? s->sp->t_comm : 0;
	s->fig.np = s->c.np;
	s->fig.st = s->c.st;
	s->fig.cg_max = s->c.par.cg_max;
	s->fig.cg_tol = s->c.par.cg_tol;
	s->fig.self = s->o.par.self;
	return 0;
}

int
cloth_stage_store(cloth_stage *s, slc_comm *comm, slc_err *err)
{
	slc_rec *cr = s->cr;
	const size_t np = s->np;
	double *Po, *vo, *ro, *mo;
	char buf[64];

	if (comm_check(comm, err))
		return -1;
	/* the new state in place of the old channels, double precision */
	slc_rec_remove(cr, "P");
	slc_rec_remove(cr, "v");
	slc_rec_remove(cr, "rest");
	slc_rec_remove(cr, "mass");
	if (!(Po = slc_rec_add(cr, "P", SLC_F64, 3, SLC_POINT, np, err)) ||
	    !(vo = slc_rec_add(cr, "v", SLC_F64, 3, SLC_POINT, np, err)) ||
	    !(ro = slc_rec_add(cr, "rest", SLC_F64, 3, SLC_POINT, np, err)) ||
	    !(mo = slc_rec_add(cr, "mass", SLC_F64, 1, SLC_POINT, np, err)))
		return slc_failctx(err, "record '%s': ", s->o.cloth);
	memcpy(Po, s->c.x, 3 * np * sizeof *Po);
	memcpy(vo, s->c.v, 3 * np * sizeof *vo);
	memcpy(ro, s->rest ? s->rest : s->P, 3 * np * sizeof *ro);
	memcpy(mo, s->m, np * sizeof *mo);
	if (s->prev) {
		double *pp;

		slc_rec_remove(cr, "P_prev");
		if (!(pp = slc_rec_add(cr, "P_prev", SLC_F64, 3, SLC_POINT, np, err)))
			return slc_failctx(err, "record '%s': ", s->o.cloth);
		memcpy(pp, s->P, 3 * np * sizeof *pp);
	}
	cr->time = s->t0 + s->T;
	if (!s->scene || s->o.keep_scene)
		return 0;
	/* the time in full precision (slc_scene_advance rounds to 12
	 * digits): the next frame starts exactly where this one ended */
	snprintf(buf, sizeof buf, "%.0f", s->frame + 1);
	if (slc_meta_set(s->scene, "frame", buf, err))
		return slc_failctx(err, "scene: ");
	snprintf(buf, sizeof buf, "%.17g", s->t0 + s->T);
	if (slc_meta_set(s->scene, "time", buf, err))
		return slc_failctx(err, "scene: ");
	return 0;
}

void
cloth_stage_free(cloth_stage *s)
{
	cloth_free(&s->c);
	free(s->P);
	free(s->v);
	free(s->rest);
	free(s->m);
	free(s->goal);
	free(s->f);
	stage_bodies_free(&s->B);
	memset(s, 0, sizeof *s);
}
