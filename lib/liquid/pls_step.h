/* pls_step.h: one substep of a liquid with the particle level set.
 *
 * guendelman2005 §4.4.2 and selle2008 thesis §2.9 (after Enright et al.
 * 2002): the level set phi (negative in the liquid) moves by first order
 * semi-Lagrangian advection while the marker particles (pls.h) carry the
 * accuracy; escaped particles correct phi, phi is made a distance again in
 * a band (redistance.h), corrected again, the radii follow phi and strayed
 * particles are removed.  Negative particles escaped far into the air
 * become spray (spray.h).  The velocity is extrapolated from the liquid
 * across the interface first, so that advection near the surface sees
 * liquid velocities.
 */
#ifndef SLC_PLS_STEP_H
#define SLC_PLS_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "fluid/advect.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "liquid/pls.h"
#include "core/slc.h"
#include "liquid/spray.h"
#include "shell/shell_track.h"

/* Record names in a frame. */
#define PLS_REC_POS "pls_pos"
#define PLS_REC_NEG "pls_neg"
#define PLS_REC_SPRAY "spray"

typedef struct pls_step_opts {
	pls_params p;           /* marker particles (pls.h) */
	int particles;          /* 1: particle level set; 0: level set only */
	double redist_band;     /* redistance within this many cells */
	advect_opts ao;         /* phi advection of the level-set-only path
				   (the particle path uses first order SL) */
} pls_step_opts;

typedef struct pls_step_stats {
	size_t corrected;       /* escaped particles used by the corrections */
	size_t removed;         /* marker particles pruned */
	size_t sprayed;         /* negative particles turned into spray */
	size_t landed;          /* spray particles rejoined the liquid */
	size_t collided;        /* marker particles removed at solids */
	/* where the liquid volume went (pls_liquid_volume, m^3, summed over
	 * substeps): advection of phi, spray landing, the two particle
	 * corrections, redistancing */
	double dv_advect, dv_spray, dv_correct, dv_redist;
} pls_step_stats;

/* The liquid state that advect carries between substeps. */
typedef struct pls_water {
	pls_set pos, neg;
	spray spr;
	pls_step_opts o;
	pls_step_stats st;
	macgrid u0;             /* the frame's velocity (pls_water_freeze) */
	int have_u0;
	int fresh;              /* the markers were (re)seeded by
				   pls_water_load and not yet checked
				   against w->solid */
	/* set by the caller after pls_water_load, may stay NULL: */
	const field *solid;     /* solid level set on phi's cells, negative
				   inside: particles and spray kept out */
	macgrid *live;          /* the velocity being advanced: landed spray
				   gives its momentum to it */
	struct pls_shell *shell;        /* thin shells over the substep
				   (liquid/pls_shell.h): the level set
				   swept, markers that would cross one
				   removed; or NULL */
} pls_water;

/* Defaults: pls_default particles, particle level set on, redistance in
 * 8 cells, MacCormack with the reversion limiter and walls. */
void pls_step_defaults(pls_step_opts *o);

/* Velocity extrapolation across the interface (Enright et al. 2002 as
 * guendelman2005 §4.4 uses it; thesis §2.9): a face is known when one of
 * the two cells beside it holds liquid (phi < 0); the unknown faces whose
 * phi (the mean of the cells beside it) is at most band cells are visited
 * in order of increasing phi and take the mean of their already known
 * neighbours of the same component (the 6 faces along the axes); faces
 * with no known neighbour, and air faces beyond the band, get 0.  Then
 * the air cells within the band are made divergence free (selle2008
 * thesis §2.9) by changing only faces between two air cells: the faces
 * beside liquid (the projection's) stay, and the band's outer faces carry
 * its flux out.  Faces on the grid box (the walls) keep their values.
 * phi is cell-centred on the velocity's cells.  Deterministic.  0, or -1
 * with err (placement, memory). */
int pls_extrapolate(macgrid *vel, const field *phi, double band, slc_err *err);

/* pls_extrapolate next to thin shells sh moving as trk (both NULL: none;
 * guendelman2005 §4.4): a face takes only neighbours it can see; one
 * with known neighbours all hidden is refilled from its side by
 * shell_fill, the shell's velocity at last. */
int pls_extrapolate_shell(macgrid *vel, const field *phi, double band, const shell_set *sh,
			  const shell_track *trk, slc_err *err);

/* Zero the normal velocity on the faces of the grid box (closed walls:
 * body forces add to every face, and project keeps a wall's stored
 * velocity as the boundary condition).  Axes with one cell are left
 * alone (2D grids).  Never fails. */
void pls_walls(macgrid *vel);

/* Keep a copy of vel in w->u0: the velocity that moves phi, the particles
 * and the spray through every substep of a frame.  Called once a frame,
 * with the projected (divergence free in the liquid) and extrapolated
 * velocity: the substeps of a frame run without a projection in between,
 * and a velocity that is not divergence free would not keep the volume.
 * 0, or -1 with err (memory). */
int pls_water_freeze(pls_water *w, const macgrid *vel, slc_err *err);

/* One substep of dt seconds (guendelman2005 §4.4.2): advect phi (first
 * order SL with particles, else o.ao's scheme) and the particles through
 * vel, move the spray under gravity g and land it, correct phi, redistance
 * it (pls_redistance: the zero crossing stays; the level set alone uses
 * redistance.h), correct again, adjust the
 * radii, prune; escaped negative particles become spray with the grid
 * velocity at their place.  With w->solid, markers that pls_water_load
 * has just seeded are first removed where they lie inside it
 * (pls_drop_inside), and marker particles are collided
 * with it after they move (pls_collide) and spray is kept out of it; with
 * w->live, landed spray gives its momentum to that velocity
 * (spray_give_momentum).  The volume change of each stage is added to
 * w->st.dv_*.  phi is changed in
 * place.  w->st accumulates.  0, or -1 with err (memory). */
int pls_step(pls_water *w, field *phi, const macgrid *vel, double dt,
	     const double g[3], slc_err *err);

/* Load the particle sets and spray of frame F (particle records
 * PLS_REC_POS, PLS_REC_NEG, PLS_REC_SPRAY).  With particles on and no
 * marker records the sets are seeded (pls_seed) from phi; with reseed > 0
 * and frame > 0 a multiple of reseed they are reseeded (pls_reseed).  The
 * random sequence depends only on seed and frame.  w->o must be set.
 * 0, or -1 with err. */
int pls_water_load(pls_water *w, const slc_frame *F, const field *phi,
		   uint64_t seed, long frame, int reseed, slc_err *err);

/* The random key pls_water_load seeds and reseeds the markers of frame
 * `frame` with (pls_seed's g). */
void pls_water_rng(rng *g, uint64_t seed, long frame);

/* Write the sets back into frame F at stream time `time`: the contents
 * of the particle records of those names are replaced where they are,
 * missing ones appended (pos, neg, spray in that order).  Level set
 * only: nothing is written.  0, or -1 with err (memory). */
int pls_water_store(const pls_water *w, slc_frame *F, double time, slc_err *err);

/* Is r one of the records the liquid path moves itself (grid phi, the
 * particles PLS_REC_POS, PLS_REC_NEG, PLS_REC_SPRAY)? */
int pls_water_owns(const slc_rec *r);

void pls_water_free(pls_water *w);

#endif
