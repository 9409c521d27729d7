/* hair_stage.h: what hairstep does to a frame between reading and writing
 * it: find the strands record and the bodies, advance the hair one frame
 * (selle2008 thesis ch. 7, lib/hair/hair.h) and write its new state, the
 * advanced scene and the step's figures back into the frame.
 *
 * The virtual particles (§7.3.1) are state the strands record keeps as
 * detail channels (virt_P, virt_v, virt_rest, virt_mass, virt_seg), so
 * that other tools never see them as points and a frame-by-frame bake
 * equals one long run; without them they are built from `rest`.
 *
 * Use: hair_stage_opts_default, set the options, hair_stage_load on a
 * frame, hair_stage_step, hair_stage_store, hair_stage_free.  Every entry
 * point takes the communicator of an MPI build (core/comm.h; the serial
 * build runs on one rank, so there comm must be NULL).  Over several
 * ranks every rank holds the whole frame and every strand, and the ranks
 * share the mass-spring body's work by runs of whole strands of about
 * equal particle counts (hair.h's units, stage/stage_split.h): forces,
 * system rows, the strands' band factor and solves, the CG's products and
 * dot partials, the strain limiting and the body collisions of its own
 * strands, gathered in unit order; the candidates of new stiction bonds
 * and of the strand collisions by fixed blocks of queries; making and
 * breaking bonds, the repulsions and the collision response run alike on
 * every rank.  Every rank ends with the serial
 * bits.
 */
#ifndef SLC_HAIR_STAGE_H
#define SLC_HAIR_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "hair/hair.h"
#include "stage/stage_bodies.h"
#include "stage/stage_split.h"

/* What the stage is asked to do; defaults from hair_stage_opts_default. */
typedef struct hair_stage_opts {
	const char *hair;       /* strands record to advance ("hair") */
	const char *solid;      /* grid level set of the bodies, with
				   NAME_vel ("solid") */
	double fps;             /* frames per second; 0: the scene's, else 24 */
	double grav[3];         /* gravity, m/s^2; NaN: the scene's, else
				   par.mp.g */
	long steps;             /* fewest time steps per frame (8) */
	long max_steps;         /* most time steps per frame (10000) */
	long root;              /* axis points pinned at each root when the
				   record has no 'pinned' channel (2) */
	double mu;              /* friction coefficient with the bodies (0.3) */
	double ground;          /* height of a ground plane; NaN: none */
	double sphere[3];       /* centre of a still sphere body */
	double sphere_r;        /* its radius, m; 0: no sphere */
	long frames;            /* frames advanced in one step (1) */
	int self;               /* repulsions and self-collisions (1): the
				   tool's switch for par.self.repulse and
				   par.self.collide */
	hair_params par;        /* springs, limiter, wind, CG; its steps and
				   max_steps are set from the two above */
} hair_stage_opts;

void hair_stage_opts_default(hair_stage_opts *o);

/* A frame's hair being advanced.  The records pointed to belong to the
 * frame given to hair_stage_load, which must outlive the stage. */
typedef struct hair_stage {
	hair_stage_opts o;
	slc_rec *hr;            /* the strands record */
	slc_rec *scene;         /* the scene record, or NULL */
	slc_frame *F;
	double frame, t0, T;
	size_t naxis, nstrands;
	double *P, *v, *rest, *m, *goal, *kscale;  /* owned copies, or NULL */
	double *vP, *vv, *vrest, *vm, *vgoal;      /* virt_* channels */
	size_t nvirt;           /* virtuals read (0: built) */
	const uint8_t *pin, *vpin;  /* 'pinned', 'virt_pinned' or NULL */
	hair h;
	stage_bodies B;         /* the solid, ground and sphere bodies */
	cloth_split split;      /* the ranks' shares (stage_split.h) */
	cloth_split *sp;        /* &split over several ranks, else NULL */
} hair_stage;

/* Find in F the strands record o->hair, the scene (fps, frame, gravity)
 * and the bodies, and set the hair up, its pinned points moving to their
 * goal (or staying) over the frame.  s is set up even on failure.  0, or
 * -1 with err naming the record and channel. */
int hair_stage_load(hair_stage *s, slc_frame *F, const hair_stage_opts *o,
		    slc_comm *comm, slc_err *err);

/* Advance the hair o.frames frames of 1/fps seconds, the pinned points
 * moving to their goals in each (there after the first); figures of the
 * last frame in s->h.st. */
int hair_stage_step(hair_stage *s, slc_comm *comm, slc_err *err);

/* Write P, v, rest, mass (f64), the virt_* detail channels and the last
 * step's accelerations (detail acc_last, every particle: the next frame's
 * first CG guess) into the strands record (its time o.frames frames on),
 * so that frames baked one at a time equal one run; advance the scene and put the
 * meta record `hairstep` (steps, cg_iters, max_strain, limited, contacts,
 * min_phi) into the frame.  0, or -1 with err. */
int hair_stage_store(hair_stage *s, slc_comm *comm, slc_err *err);

void hair_stage_free(hair_stage *s);

#endif
