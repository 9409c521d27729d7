/* rigid_set.h: the rigid bodies of one frame inside advect: read from the
 * frame's records, moved substep by substep with their level sets
 * resampled at each new pose, shown to the fluid as a solid moving at
 * v + omega x r, and written back.  Records and channels: rigid_move.h.
 */
#ifndef SLC_RIGID_SET_H
#define SLC_RIGID_SET_H

#include <stddef.h>

#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "fluid/rigid_move.h"
#include "fluid/rigid_shell.h"
#include "core/slc.h"

/* Cells within this many cells of a body's surface (outside or inside)
 * get the body's velocity as the solid velocity the fluid sees; farther
 * cells keep solid_vel (or rest).  Two cells cover every face whose
 * control volume the body touches and the stencil of the extrapolation. */
#define RIGID_BAND_CELLS 2.0

typedef struct rigid_set {
	int n;                  /* bodies; 0: the frame has no `rigid` record */
	rigid_body *b;
	field *phi0;            /* n body-frame level sets (borrowed or owned) */
	field *phi;             /* n level sets on the velocity's cells (owned) */
	double *reach;          /* n: rigid_reach of phi0 */
	slc_rec phi0_new;       /* rigid_phi0 built from an older frame's
				   rigid_phi (kind SLC_END when not built) */
	field solid, uo[3];     /* what the fluid sees (rigid_set_solid) */
	int walls;              /* the grid box is solid: dynamic bodies touch
				   its walls (rigid_body_box_contact); 1 after
				   rigid_set_load */
	rigid_shells sh;        /* bodies shaped by a shell (rigid_shell.h):
				   no level set; phi0[b], phi[b] unused */
	int nls;                /* bodies with a level set */
} rigid_set;

/* Find `rigid` in F and read its bodies; a body shaped by a shell (a
 * mesh with body_P, rigid_shell.h) is moved with its mesh, the others'
 * body-frame level sets (one channel per body without a shell, in point
 * order) come from `rigid_phi0` or, in a frame written before it
 * existed, from `rigid_phi` taken as the bodies at their current pose
 * (rigid_phi0 is then built and written by rigid_set_store).  cells: the
 * velocity's cell grid (placement only).  Each body's level set on cells
 * is placed at once.  rs->n = 0 and 0 without a rigid record; -1 with err
 * on a bad record or a missing or mis-shaped level set. */
int rigid_set_load(rigid_set *rs, const slc_frame *F, const field *cells,
		   slc_err *err);

/* Is r a record rigid_set moves itself (particles `rigid`, grids
 * `rigid_phi`, `rigid_phi0`, the meshes of rigid shells)?  Such records
 * must not be advected. */
int rigid_set_owns(const slc_rec *r);

/* An upper bound of the speed of any point of any body, m/s. */
double rigid_set_max_speed(const rigid_set *rs);

/* The solid the fluid sees, on the cells, into rs->solid and rs->uo[3]
 * (needs rs->n > 0): rs->solid = min(solid, every body's level set) and
 * rs->uo the object velocity: uo (or 0 when NULL) except within
 * RIGID_BAND_CELLS of a body nearer than the solid, where it is the rigid
 * velocity v + omega x (x - P) of the nearest body.  solid (a level set)
 * and uo (three fields) are on the same cells, or NULL.  houston2003 §4.2
 * then extends the fluid velocity into the bodies as into any solid. */
void rigid_set_solid(rigid_set *rs, const field *solid, const field *uo);

/* Move every body from stream time t by dt (rigid_body_step; g: gravity
 * for the dynamic ones, or NULL), with rs->walls keep the dynamic ones
 * inside the box of the velocity's cells (rigid_body_box_contact: moved
 * back to touch a wall they went through, the normal velocity into it
 * removed, frictionless), and place its level set at the new pose
 * (resampled from phi0, never from the previous step), or its shells
 * at the new pose (P = R body_P + X, from body_P every step). */
void rigid_set_step(rigid_set *rs, const double g[3], double t, double dt);

/* Write the bodies back into frame F at stream time `time`: the rigid
 * record's P, orient, v, omega and inertia, `rigid_phi` (its contents
 * replaced where it is, or appended to F; not without a body with a
 * level set), a rigid_phi0 built by rigid_set_load (appended), and each
 * rigid shell's P and v (rigid_shells_store).  Ownership of built records passes to F.
 * 0 or -1 with err (memory); nothing is stored without a rigid record
 * or bodies. */
int rigid_set_store(rigid_set *rs, slc_frame *F, double time, slc_err *err);

void rigid_set_free(rigid_set *rs);

#endif
