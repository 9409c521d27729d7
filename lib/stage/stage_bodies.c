/* stage_bodies.c: the collision bodies of clothstep and hairstep, read
 * from a frame and their options (stage_bodies.h). */
#include "stage/stage_bodies.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/meta.h"
#include "fluid/recfield.h"

/* Body velocity fields, one per axis, from the cell-centred f32x3 grid
 * record r (recfield_vec3), pointed to from vp. */
static int
vel_fields(const slc_rec *r, field vb[3], const field *vp[3], slc_err *err)
{
	if (r->grid.stagger != SLC_CELL)
		return slc_fail(err, "record '%s': expected a cell-centred grid", r->name);
	if (recfield_vec3(r, vb, err))
		return -1;
	for (int k = 0; k < 3; k++)
		vp[k] = vb + k;
	return 0;
}

/* The key after sr, NAME_next (with NAME_next_vel), when the frame has
 * one: the body becomes the two-sided interpolation between the keys
 * (selle2008 thesis §7.5.1).  It must reach the frame's end t0 + T. */
static int
next_key(stage_bodies *B, const slc_frame *F, const stage_body_opts *o, const slc_rec *sr,
	 const field *const vp[3], double t0, double T, slc_err *err)
{
	char name[SLC_NAME_MAX + 16];
	const field *vn[3] = {NULL, NULL, NULL};
	slc_rec *nr, *vr;

	snprintf(name, sizeof name, "%s_next", o->solid);
	if (slc_frame_get(F, name, SLC_GRID, &nr, err))
		return -1;
	if (!nr)
		return 0;
	if (field_from_rec(&B->phi_next, nr, NULL, err))
		return slc_failctx(err, "record '%s': ", name);
	/* within 1e-9 of a frame: the times are sums of frame lengths
	 * written to 12 or 17 digits */
	if (!(nr->time >= t0 + T * (1 - 1e-9)))
		return slc_fail(err, "record '%s' at time %.17g: the next key must come at "
				"or after the frame's end %.17g", name, nr->time, t0 + T);
	snprintf(name, sizeof name, "%s_next_vel", o->solid);
	if (slc_frame_get(F, name, SLC_GRID, &vr, err) ||
	    (vr && vel_fields(vr, B->vb_next, vn, err)))
		return -1;
	if (body_grid2_init(B->b + B->n, &B->phi, vp, sr->time, &B->phi_next, vn, nr->time,
			    o->mu, err))
		return slc_failctx(err, "record '%s': ", o->solid);
	return 0;
}

int
stage_bodies_load(stage_bodies *B, const slc_frame *F, const stage_body_opts *o,
		  double t0, double T, slc_err *err)
{
	slc_rec *sr, *vr;

	if (slc_frame_get(F, o->solid, SLC_GRID, &sr, err))
		return -1;
	if (sr) {
		char vname[SLC_NAME_MAX + 8];
		const field *vp[3] = {NULL, NULL, NULL};

		if (field_from_rec(&B->phi, sr, NULL, err))
			return slc_failctx(err, "record '%s': ", o->solid);
		snprintf(vname, sizeof vname, "%s_vel", o->solid);
		if (slc_frame_get(F, vname, SLC_GRID, &vr, err) ||
		    (vr && vel_fields(vr, B->vb, vp, err)))
			return -1;
		/* the level set is the body at the record's own time, moved
		 * from there by its velocity (collide_body.h) */
		body_grid_init(B->b + B->n, &B->phi, vp, sr->time, o->mu);
		if (next_key(B, F, o, sr, vp, t0, T, err))
			return -1;
		B->n++;
	}
	if (!isnan(o->ground)) {
		cloth_body *b = B->b + B->n++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_PLANE;
		b->c[1] = o->ground;
		b->a[1] = 1;
		b->mu = o->mu;
	}
	if (o->sphere_r > 0) {
		cloth_body *b = B->b + B->n++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_SPHERE;
		memcpy(b->c, o->sphere, sizeof o->sphere);
		b->r = o->sphere_r;
		b->mu = o->mu;
	}
	return 0;
}

int
stage_scene_read(const slc_rec *scene, double *fps, double *frame, double g[3],
		 slc_err *err)
{
	if (!scene)
		return 0;
	if ((!*fps && slc_scene_fps(scene, fps, err) < 0) ||
	    slc_meta_get_f64(scene, "frame", frame, err) < 0 ||
	    (isnan(g[0]) && slc_scene_gravity(scene, g, err) < 0))
		return slc_failctx(err, "record 'scene': ");
	return 0;
}

void
stage_bodies_free(stage_bodies *B)
{
	field_free(&B->phi);
	field_free(&B->phi_next);
	for (int k = 0; k < 3; k++) {
		field_free(B->vb + k);
		field_free(B->vb_next + k);
	}
	B->n = 0;
}
