/* advect_frame.c: the records of one frame as advect finds them
 * (advect_frame.h). */
#include "fluid/advect_frame.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fluid/advect.h"
#include "core/frame.h"
#include "core/meta.h"
#include "fluid/recfield.h"
#include "fluid/rigid_set.h"

/* The one-channel f32 grid record `name` as a borrowed field: 1, 0 when
 * there is none (-1 with err if it is required), -1 with err when it is
 * not such a record. */
static int
grid_field(const slc_frame *F, const char *name, field *f, int required, slc_err *err)
{
	slc_rec *r;

	if (slc_frame_get(F, name, SLC_GRID, &r, err))
		return -1;
	if (!r)
		return required ? slc_fail(err, "no grid record '%s'", name) : 0;
	return field_from_rec(f, r, NULL, err) ? -1 : 1;
}

int
advect_frame_load(advect_frame *AF, const slc_frame *F, const char *source, slc_err *err)
{
	slc_rec *sv;
	int a;

	memset(AF, 0, sizeof *AF);
	if (grid_field(F, "u", &AF->vel.u, 1, err) < 0 ||
	    grid_field(F, "v", &AF->vel.v, 1, err) < 0 ||
	    grid_field(F, "w", &AF->vel.w, 1, err) < 0 || mac_check(&AF->vel, err))
		return -1;
	for (a = 0; a < 3; a++)
		if (field_count(mac_ccomp(&AF->vel, a)) > AF->pool.min)
			AF->pool.min = field_count(mac_ccomp(&AF->vel, a));
	if ((AF->have_solid = grid_field(F, "solid", &AF->solid, 0, err)) < 0)
		return -1;
	if (AF->have_solid) {
		if (slc_frame_get(F, "solid_vel", SLC_GRID, &sv, err))
			goto fail;
		if ((AF->have_uo = sv != NULL) && recfield_vec3(sv, AF->uo, err)) {
			AF->have_uo = 0;
			return -1;
		}
		if ((AF->have_slip = grid_field(F, "solid_slip", &AF->slip, 0, err)) < 0)
			goto fail;
	}
	if ((source && (AF->have_src = grid_field(F, source, &AF->src, 1, err)) < 0) ||
	    (AF->have_den = grid_field(F, "density", &AF->den, 0, err)) < 0 ||
	    (AF->have_tem = grid_field(F, "temperature", &AF->tem, 0, err)) < 0)
		goto fail;
	return 0;
fail:
	advect_frame_free(AF);
	return -1;
}

void
advect_frame_free(advect_frame *F)
{
	int a;

	for (a = 0; a < 3 && F->have_uo; a++)
		field_free(&F->uo[a]);
	F->have_uo = 0;
	advect_pool_free(&F->pool);
}

int
advect_frame_velocity(advect_frame *F, double dt, const advect_opts *o,
		      advect_stats *st, slc_err *err)
{
	field nv[3];
	int a, rc = 0;

	for (a = 0; a < 3; a++) {
		nv[a] = *mac_ccomp(&F->vel, a);
		nv[a].owned = 0;
		nv[a].a = NULL;
	}
	for (a = 0; a < 3 && !rc; a++)
		rc = !(nv[a].a = advect_pool_take(o->pool, field_count(&nv[a]), err)) ||
		     advect_field(&F->vel, dt, mac_ccomp(&F->vel, a), &nv[a], o, st, err) ? -1 : 0;
	for (a = 0; a < 3; a++) {
		if (!rc)
			memcpy(mac_comp(&F->vel, a)->a, nv[a].a, field_count(&nv[a]) * sizeof *nv[a].a);
		advect_pool_give(o->pool, nv[a].a);
	}
	return rc;
}

int
advect_frame_moves(const slc_rec *r, const char *source)
{
	static const char *const keep[] = { "u", "v", "w", "solid", "solid_vel", "solid_slip",
					    "p", "source", NULL };
	int q;

	for (q = 0; keep[q]; q++)
		if (!strcmp(r->name, keep[q]))
			return 0;
	return r->kind == SLC_GRID && !(source && !strcmp(r->name, source)) && !rigid_set_owns(r);
}

int
advect_frame_particles(slc_rec *r, const macgrid *vel, double dt, slc_err *err)
{
	slc_chan *P = slc_rec_find(r, "P");

	if (!P)
		return 0;
	if (P->type != SLC_F32 || P->ncomp != 3)
		return slc_fail(err, "particles '%s': P is %s x%u, expected f32 x3", r->name,
				slc_type_name(P->type), P->ncomp);
	advect_points(vel, dt, P->data, (size_t)P->count);
	return 0;
}

int
advect_scene_gravity(const slc_rec *scene, double gravity[3], int smoke, double up[3],
		     int *have, slc_err *err)
{
	double g;
	int a;

	*have = !isnan(gravity[0]);
	if (!*have) {
		if ((*have = slc_scene_gravity(scene, gravity, err)) < 0)
			return slc_failctx(err, "record 'scene': ");
		if (*have && smoke)
			*have = -1;     /* guendelman2005 §4.1: buoyancy instead */
	}
	g = *have ? sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] +
			 gravity[2] * gravity[2]) : 0;
	up[0] = 0;
	up[1] = 1;
	up[2] = 0;
	for (a = 0; a < 3 && g > 0; a++)
		up[a] = -gravity[a] / g;
	return 0;
}
