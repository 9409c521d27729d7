/* cloth_stage.h: what clothstep does to a frame between reading and
 * writing it: find the cloth mesh record and the bodies, advance the cloth
 * one frame (selle2008 thesis ch. 5-6, lib/cloth/cloth.h) and write its
 * new state and the advanced scene back into the frame.
 *
 * Use: cloth_stage_opts_default, set the options, cloth_stage_load on a
 * frame, cloth_stage_step, cloth_stage_store, cloth_stage_free.  The stage
 * changes only the cloth record and (without keep_scene) the scene record
 * of the frame; the figures of the step (counts, timings) are left in the
 * stage for the caller to report.
 *
 * Two-way coupling with a fluid (guendelman2005 §5, §6; formats/slc.md,
 * "Thin shells"): a point channel `f_fluid` (x3, N per node) on the cloth
 * record is added to every free node's force and held constant through
 * the frame's steps; `P_prev` (f64 x3) receives the positions the step
 * started from, so that the stages after it see both x^n and x^{n+1};
 * keep_scene leaves the scene's frame and time alone, the cloth running
 * one frame ahead of the fluid.
 *
 * Every entry point takes the communicator of an MPI build (core/comm.h;
 * the serial build runs on one rank, so there comm must be NULL).  Over
 * several ranks (selle2008 thesis §8.2) every rank holds the whole frame
 * and the whole cloth, and the ranks share cloth/'s fixed blocks
 * (stage/stage_split.h): each computes the forces, the CG's products and
 * dot partials of its own DOT_BLOCKS and the collision candidates of its
 * own QUERY_BLOCKS, gathered to every rank in block order; the rest of
 * the step (bodies, repulsions, the collision response) runs alike on
 * every rank.  Every rank ends with the serial bits.  The mean rest edge
 * that bounds the repulsion thickness is computed whole on every rank.
 */
#ifndef SLC_CLOTH_STAGE_H
#define SLC_CLOTH_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/cloth.h"
#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "stage/stage_bodies.h"
#include "stage/stage_split.h"

/* What the stage is asked to do; defaults from cloth_stage_opts_default. */
typedef struct cloth_stage_opts {
	const char *cloth;      /* mesh record to advance ("cloth") */
	const char *solid;      /* grid level set of the bodies, with
				   NAME_vel ("solid") */
	long steps;             /* time steps per frame (8), >= 1 */
	long loops;             /* time steps per collision step (8), >= 1 */
	double fps;             /* frames per second; 0: the scene's, else 24 */
	double grav[3];         /* gravity, m/s^2; NaN: the scene's, else
				   par.g */
	double mass;            /* node mass, kg, when the record has no
				   'mass' channel (table 6.1: 1e-6) */
	double mu;              /* friction coefficient with the bodies (0.3) */
	double ground;          /* height of a ground plane; NaN: none */
	double sphere[3];       /* centre of a still sphere body */
	double sphere_r;        /* its radius, m; 0: no sphere */
	double thickness;       /* repulsion thickness, m; 0: table 6.1's,
				   at most a quarter of the mean rest edge */
	int keep_scene;         /* 1: leave the scene record's frame and time
				   as they are (the shell leads the fluid) */
	int keep_prev;          /* 1: write the start positions into
				   `P_prev`; it is written anyway when the
				   record has one, which would be stale */
	cloth_params par;       /* springs, CG, self-interactions (self on),
				   wind; par.loops and par.thickness are set
				   from loops and thickness by the stage */
} cloth_stage_opts;

/* The defaults above, and cloth_params_default with self-interactions
 * on. */
void cloth_stage_opts_default(cloth_stage_opts *o);

/* The figures of one step, for the caller to report. */
typedef struct cloth_stage_figures {
	size_t np;              /* cloth points */
	cloth_stats st;         /* counters and seconds (cloth.h) */
	int cg_max;             /* CG iteration cap */
	double cg_tol;          /* CG tolerance, m/s */
	int self;               /* self-interactions were on */
	int ranks;              /* MPI ranks sharing the work (1: alone) */
	double t_comm;          /* seconds in their gathers */
} cloth_stage_figures;

/* A frame's cloth being advanced.  The records pointed to belong to the
 * frame given to cloth_stage_load, which must outlive the stage. */
typedef struct cloth_stage {
	cloth_stage_opts o;
	slc_rec *cr;            /* the cloth mesh record */
	slc_rec *scene;         /* the scene record, or NULL */
	double frame;           /* the scene's frame number (0 without) */
	double t0, T;           /* the cloth record's time and the frame
				   length 1/fps, s */
	size_t np, nt;
	double *P, *v, *rest, *m, *goal;  /* the record's channels in double
					     (owned; v, rest, goal may be
					     NULL) */
	double *f;              /* its `f_fluid`, N per node (owned), or
				   NULL */
	int prev;               /* `P_prev` is written */
	const uint8_t *pin;     /* the record's 'pinned' channel, or NULL */
	cloth c;
	stage_bodies B;         /* the solid, ground and sphere bodies */
	cloth_split split;      /* the ranks' shares (stage_split.h) */
	cloth_split *sp;        /* &split over several ranks, else NULL */
	cloth_stage_figures fig;
} cloth_stage;

/* Find in F the cloth mesh record o->cloth (its optional `f_fluid` held
 * on the nodes over the frame), the scene record (fps, frame,
 * gravity) and the bodies (grid level set o->solid with its f32x3 cell
 * grid NAME_vel, and when given its next key NAME_next with NAME_next_vel
 * at or after the frame's end, interpolated both ways in time between
 * the keys; o->ground, o->sphere), and set the cloth up, its pinned
 * points constrained to reach their goal (or stay) over the frame.  s is
 * set up even on failure, so that cloth_stage_free is always called.  0,
 * or -1 with err naming the record ("no mesh record 'cloth'", "record
 * 'cloth': channel v: wrong count", ...). */
int cloth_stage_load(cloth_stage *s, slc_frame *F, const cloth_stage_opts *o,
		     slc_comm *comm, slc_err *err);

/* Advance the cloth one frame, 1/fps seconds in o.steps time steps; the
 * figures are left in s->fig.  0, or -1 with err ("frame N: ...") when
 * self-collisions cannot be resolved or memory runs out. */
int cloth_stage_step(cloth_stage *s, slc_comm *comm, slc_err *err);

/* Write the new state into the cloth record (P, v, rest and mass in
 * double precision, in place of the old channels; with o.keep_prev or a
 * `P_prev` channel in the record, P_prev f64 x3 = the positions the step
 * started from; its time one frame on; `f_fluid` and every other channel
 * left as they are) and, without o.keep_scene, advance the scene record's
 * frame and time.  0, or -1 with err. */
int cloth_stage_store(cloth_stage *s, slc_comm *comm, slc_err *err);

/* Free what the stage owns (not the frame); s is left zeroed. */
void cloth_stage_free(cloth_stage *s);

#endif
