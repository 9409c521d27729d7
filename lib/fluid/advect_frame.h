/* advect_frame.h: the records of one frame as advect finds them.
 *
 * The names agreed between stages (HACKING.md): the MAC velocity u, v, w;
 * the solid level set 'solid' with its object velocity 'solid_vel' and
 * slip 'solid_slip' (houston2003 §4.2); the smoke fields 'density' and
 * 'temperature' and a source region; the 'scene' record's gravity (its
 * frame, time and length: slc_scene_read, core/frame.h).  Also which
 * records advect moves, and how the points of a particle record move.
 */
#ifndef SLC_ADVECT_FRAME_H
#define SLC_ADVECT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "fluid/advect.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "core/slc.h"

typedef struct advect_frame {
	macgrid vel;            /* u, v, w, borrowed from their records */
	field solid, slip;      /* borrowed; valid with have_solid, have_slip */
	field uo[3];            /* solid_vel split in components, owned */
	field src, den, tem;    /* borrowed; valid with have_src, ... */
	int have_solid, have_uo, have_slip, have_src, have_den, have_tem;
	advect_pool pool;       /* the temporaries of every field, record and
				   substep (advect_opts.pool), owned; its
				   buffers hold any velocity component */
} advect_frame;

/* Find the fields of AF among the records of F, which must keep those
 * records while AF lives (the fields borrow their samples): u, v, w
 * (required, one MAC grid: mac_check), solid, and with it solid_vel (f32
 * x3) and solid_slip, the grid record named `source` (required when
 * source is not NULL), density and temperature.  0, or -1 with err (a
 * required record missing: "no grid record 'NAME'", a record not a one
 * channel f32 grid, a MAC mismatch, memory); on failure nothing is left
 * to free. */
int advect_frame_load(advect_frame *AF, const slc_frame *F, const char *source,
		      slc_err *err);

/* Advect the velocity F->vel through itself over dt, component by
 * component with the options o, and replace it by the result; the new
 * components are kept in buffers of o->pool until all three are done.
 * 0, or -1 with err (advect_field's errors). */
int advect_frame_velocity(advect_frame *F, double dt, const advect_opts *o,
			  advect_stats *st, slc_err *err);

/* Free what F owns (the object velocity components, the pool). */
void advect_frame_free(advect_frame *F);

/* Does advect move grid record r through the velocity: every grid record
 * except u, v, w (advected apart), solid, solid_vel, solid_slip, p,
 * source, the record named `source` (may be NULL) and the records of
 * rigid bodies (lib/fluid/rigid_set.h)? */
int advect_frame_moves(const slc_rec *r, const char *source);

/* Move the points P (f32 x3) of particle record r forward over dt through
 * vel (advect_points); a record without P is left alone.  0, or -1 with
 * err when P is not f32 x3. */
int advect_frame_particles(slc_rec *r, const macgrid *vel, double dt, slc_err *err);

/* Gravity and the upward direction into gravity, up and *have.  With
 * gravity[0] not NaN (given by the caller) *have is 1; else from the
 * scene's `gravity=X,Y,Z` (scene may be NULL, slc_scene_gravity): 1 to
 * apply it, or -1 when `smoke` is set (guendelman2005 §4.1: smoke feels
 * buoyancy instead, and gravity gives only the direction); 0 without
 * gravity.  up is the unit vector against gravity, or +y without
 * gravity (as the format says).  0, or -1 with err when the scene's
 * gravity is not three finite numbers. */
int advect_scene_gravity(const slc_rec *scene, double gravity[3], int smoke, double up[3],
			 int *have, slc_err *err);

#endif
