/* cloth_stage.c: clothstep's frame physics (see cloth_stage.h): the
 * records of the cloth and the bodies in, one frame of cloth (selle2008
 * thesis ch. 5-6), the new state out. */
#include "stage/cloth_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "fluid/recfield.h"

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

/* The scene's fps (unless given), frame number and gravity (unless
 * given) into *fps, s->frame and g. */
static int
read_scene(cloth_stage *s, double *fps, double g[3], slc_err *err)
{
	if (!s->scene)
		return 0;
	if (!*fps && slc_scene_fps(s->scene, fps, err) < 0)
		return slc_failctx(err, "record 'scene': ");
	if (slc_meta_get_f64(s->scene, "frame", &s->frame, err) < 0 ||
	    (isnan(g[0]) && slc_scene_gravity(s->scene, g, err) < 0))
		return slc_failctx(err, "record 'scene': ");
	return 0;
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
 * mass (o.mass at every point without one) and pinned. */
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
	    get_point_chan(s, "mass", 1, &s->m, err))
		return -1;
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

/* Body velocity fields, one per axis, from a cell-centred f32x3 grid
 * record (recfield_vec3). */
static int
vel_fields(const slc_rec *r, field vb[3], slc_err *err)
{
	if (r->grid.stagger != SLC_CELL)
		return slc_fail(err, "record '%s': expected a cell-centred grid", r->name);
	return recfield_vec3(r, vb, err);
}

/* The key after sr, NAME_next (with NAME_next_vel), when the frame has
 * one: the body becomes the two-sided interpolation between the keys
 * (selle2008 thesis §7.5.1).  It must reach the frame's end. */
static int
next_key(cloth_stage *s, const slc_frame *F, const slc_rec *sr,
	 const field *const vp[3], slc_err *err)
{
	char name[SLC_NAME_MAX + 16];
	const field *vn[3] = {NULL, NULL, NULL};
	slc_rec *nr, *vr;

	snprintf(name, sizeof name, "%s_next", s->o.solid);
	if (slc_frame_get(F, name, SLC_GRID, &nr, err))
		return -1;
	if (!nr)
		return 0;
	if (field_from_rec(&s->phi_next, nr, NULL, err))
		return slc_failctx(err, "record '%s': ", name);
	if (!(nr->time >= s->t0 + s->T * (1 - 1e-9)))
		return slc_fail(err, "record '%s' at time %.17g: the next key must come at "
				"or after the frame's end %.17g", name, nr->time, s->t0 + s->T);
	snprintf(name, sizeof name, "%s_next_vel", s->o.solid);
	if (slc_frame_get(F, name, SLC_GRID, &vr, err))
		return -1;
	if (vr) {
		if (vel_fields(vr, s->vb_next, err))
			return -1;
		for (int k = 0; k < 3; k++)
			vn[k] = s->vb_next + k;
	}
	if (body_grid2_init(s->bodies + s->nb, &s->phi, vp, sr->time, &s->phi_next,
			    vn, nr->time, s->o.mu, err))
		return slc_failctx(err, "record '%s': ", s->o.solid);
	return 0;
}

/* The bodies: the grid level set o.solid (with NAME_vel, and the next key
 * NAME_next with NAME_next_vel), the ground plane, the sphere. */
static int
find_bodies(cloth_stage *s, const slc_frame *F, slc_err *err)
{
	const cloth_stage_opts *o = &s->o;
	slc_rec *sr, *vr;

	if (slc_frame_get(F, o->solid, SLC_GRID, &sr, err))
		return -1;
	if (sr) {
		char vname[SLC_NAME_MAX + 8];
		const field *vp[3] = {NULL, NULL, NULL};
		if (field_from_rec(&s->phi, sr, NULL, err))
			return slc_failctx(err, "record '%s': ", o->solid);
		snprintf(vname, sizeof vname, "%s_vel", o->solid);
		if (slc_frame_get(F, vname, SLC_GRID, &vr, err))
			return -1;
		if (vr) {
			if (vel_fields(vr, s->vb, err))
				return -1;
			for (int k = 0; k < 3; k++)
				vp[k] = s->vb + k;
		}
		/* the level set is the body at the record's own time, moved
		 * from there by its velocity (collide_body.h) */
		body_grid_init(s->bodies + s->nb, &s->phi, vp, sr->time, o->mu);
		if (next_key(s, F, sr, vp, err))
			return -1;
		s->nb++;
	}
	if (!isnan(o->ground)) {
		cloth_body *b = s->bodies + s->nb++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_PLANE;
		b->c[1] = o->ground;
		b->a[1] = 1;
		b->mu = o->mu;
	}
	if (o->sphere_r > 0) {
		cloth_body *b = s->bodies + s->nb++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_SPHERE;
		memcpy(b->c, o->sphere, sizeof o->sphere);
		b->r = o->sphere_r;
		b->mu = o->mu;
	}
	return 0;
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
	if (slc_comm_serial(comm, err))
		return -1;
	s->cr = slc_frame_find(F, o->cloth, SLC_MESH);
	s->scene = slc_frame_find(F, "scene", SLC_META);
	if (!s->cr)
		return slc_fail(err, "no mesh record '%s'", o->cloth);
	s->t0 = s->cr->time;
	memcpy(g, o->grav, sizeof g);
	if (read_scene(s, &fps, g, err))
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
	s->T = 1 / fps;
	constrain_pins(s);
	return find_bodies(s, F, err);
}

int
cloth_stage_step(cloth_stage *s, slc_comm *comm, slc_err *err)
{
	if (slc_comm_serial(comm, err))
		return -1;
	if (cloth_advance(&s->c, s->t0, s->T, (int)s->o.steps, s->bodies,
			  s->nb, err))
		return slc_failctx(err, "frame %.0f: ", s->frame);
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

	if (slc_comm_serial(comm, err))
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
	cr->time = s->t0 + s->T;
	if (!s->scene)
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
	field_free(&s->phi);
	field_free(&s->phi_next);
	for (int k = 0; k < 3; k++) {
		field_free(s->vb + k);
		field_free(s->vb_next + k);
	}
	memset(s, 0, sizeof *s);
}
