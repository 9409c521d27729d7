/* stage_bodies.h: the collision bodies a solid stage (clothstep,
 * hairstep) finds in a frame and its options: a level-set grid with its
 * velocity, keyed once (moved from its time by its velocity) or twice
 * (selle2008 thesis §7.5.1, interpolated both ways in time), a ground
 * plane and a still sphere (cloth/collide_body.h).  One reading of the
 * records for both stages, so that cloth and hair meet the same bodies.
 */
#ifndef SLC_STAGE_BODIES_H
#define SLC_STAGE_BODIES_H

#include "cloth/collide_body.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"

/* Where the bodies come from. */
typedef struct stage_body_opts {
	const char *solid;      /* grid level set of the bodies, with
				   NAME_vel, NAME_next, NAME_next_vel */
	double mu;              /* friction coefficient with the bodies */
	double ground;          /* height of a ground plane y = ground; NaN: none */
	double sphere[3];       /* centre of a still sphere body */
	double sphere_r;        /* its radius, m; 0: no sphere */
} stage_body_opts;

/* The bodies found: b[0..n-1], borrowing the fields below. */
typedef struct stage_bodies {
	field phi, vb[3];            /* the solid's level set and velocity */
	field phi_next, vb_next[3];  /* its next key, when given */
	cloth_body b[3];             /* solid, ground, sphere: n of them */
	int n;
} stage_bodies;

/* Find the bodies of frame F for the frame from time t0 of length T: the
 * cell-centred grid o->solid (with the f32x3 cell grid NAME_vel, and the
 * next key NAME_next with NAME_next_vel, whose time must reach t0 + T),
 * the ground plane, the sphere.  B must be zeroed first; it is left for
 * stage_bodies_free on failure too.  0, or -1 with err naming the
 * record. */
int stage_bodies_load(stage_bodies *B, const slc_frame *F, const stage_body_opts *o,
		      double t0, double T, slc_err *err);

/* What a solid stage reads of the scene record (NULL: nothing): its fps
 * into *fps unless *fps is already set (nonzero), its frame number into
 * *frame, its gravity into g unless g[0] is set (not NaN).  0, or -1
 * with err naming the record (slc_scene_fps, slc_scene_gravity). */
int stage_scene_read(const slc_rec *scene, double *fps, double *frame, double g[3],
		     slc_err *err);

/* Release the fields; B is left empty (n = 0). */
void stage_bodies_free(stage_bodies *B);

#endif
