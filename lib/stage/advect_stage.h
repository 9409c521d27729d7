/* advect_stage.h: the frame physics of advect: what it does to a frame
 * between reading and writing it.
 *
 * One frame (core/frame.h) is carried over its length (the scene's dt or
 * a given one) in CFL or fixed substeps: every grid field and particle
 * set moved through the MAC velocity (lib/fluid/advect.c, selle2008 ch.
 * 2), the velocity through itself, the solid the fluid sees extended into
 * (houston2003 §4.2), a liquid carried as a particle level set with spray
 * (lib/liquid/pls_step.h, guendelman2005 §4.4.2), smoke sources, body
 * forces (lib/fluid/forces.h), rigid bodies (lib/fluid/rigid_set.h) and
 * vortex particles (lib/fluid/vortex.h, selle2008 ch. 3).
 *
 * Use: advect_stage_load, then advect_stage_substep until
 * advect_stage_done, advect_stage_store (the results into the frame),
 * advect_stage_free.  The stage borrows the frame's records between load
 * and free.
 */
#ifndef SLC_ADVECT_STAGE_H
#define SLC_ADVECT_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"
#include "fluid/advect.h"
#include "fluid/advect_frame.h"
#include "fluid/rigid_set.h"
#include "fluid/vortex.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "liquid/pls_step.h"
#include "stage/advect_shells.h"

/* A frame needing more substeps than this is an error. */
#define ADVECT_MAX_SUBSTEPS 100000

/* How a frame with a liquid level set 'phi' is carried. */
enum advect_pls {
	ADVECT_PLS_AUTO = 0,    /* with marker particles when phi is there */
	ADVECT_PLS_ON = 1,      /* the same, and a frame without phi is an error */
	ADVECT_PLS_OFF = 2      /* the level set alone (advected, redistanced) */
};

/* Every knob of the stage (advect(1) names the options after them). */
typedef struct advect_stage_opts {
	int scheme;             /* enum advect_scheme */
	int limiter;            /* enum advect_limiter */
	int open;               /* the grid box is open: no walls */
	double cfl;             /* substeps of at most cfl cells of travel;
				   0: the frame in one step */
	double substep;         /* > 0: substeps of this many seconds, the
				   last one shortened (cfl unused) */
	double dt;              /* frame length, s; NaN: the scene's dt */
	double gravity[3];      /* m/s^2; NaN: the scene's (advect_scene_gravity) */
	double buoyancy[2];     /* alpha, beta of forces_buoyancy; 0,0: none
				   (and the scene's gravity gives only the
				   upward direction) */
	double ambient;         /* ambient temperature */
	double confinement;     /* vorticity confinement eps; 0: none */
	const char *source;     /* grid level set record of the smoke source
				   (and vortex seeding region), or NULL */
	double source_density, source_temperature;      /* injected at least */
	double source_velocity[3];      /* set in the source; NaN: not set */
	vortex_opts vortex;     /* rate > 0 seeds in the source */
	long seed;              /* random seed of the vortex and marker
				   particle seeding, >= 0 */
	int pls;                /* enum advect_pls */
	long reseed;            /* reseed the markers every reseed frames
				   (counted by the scene's frame); 0 never */
	long per_cell;          /* markers of each sign per band cell */
	const char *const *shells;      /* mesh records that are thin shells
				   (advect_shells.h), nshell of them */
	size_t nshell;
	int shell_mode;         /* enum advect_shell_mode */
	double shell_eps;       /* wedge thickness, cells */
} advect_stage_opts;

/* The numbers the stage reports (advect -v). */
typedef struct advect_stage_stats {
	int substeps;
	advect_stats adv;       /* samples advected, limited, first order
				   near walls, over every substep */
	int liquid;             /* the frame has a liquid; the rest is set */
	double volume;          /* liquid volume, m^3 (pls_liquid_volume) */
	double spray_volume;    /* m^3 */
	size_t spray, pos, neg; /* spray and marker particles */
	pls_step_stats water;   /* where the volume went, particle counts */
	size_t shell_samples;   /* samples advected one-sided near shells */
	size_t shell_swept;     /* samples swept over, refilled */
	size_t shell_fallback;  /* of which by the fallback */
	size_t migrated;        /* MPI: marker particles moved to the rank
				   of another slab, over every substep */
} advect_stage_stats;

/* The state of one frame between load and free.  Holds pointers into
 * itself: it must stay where it was loaded. */
typedef struct advect_stage {
	slc_frame *F;
	advect_stage_opts o;
	slc_rec *scene;         /* F's scene record, or NULL */
	slc_rec *vort;          /* F's vortex particles, or NULL */
	advect_frame AF;        /* velocity, solid, smoke fields; the pool */
	rigid_set rs;
	pls_water water;
	int liquid;             /* F has phi: the liquid path */
	field phi;              /* borrowed from F's phi */
	macgrid wt;             /* fluid weights of the faces (with sol) */
	int have_wt;
	const field *sol;       /* the solid the fluid sees, or NULL */
	const field *uop;       /* its object velocity (3 fields), or NULL */
	field *den, *tem;       /* smoke fields, or NULL */
	advect_opts ao;
	advect_stats st;
	double gravity[3], up[3];
	int have_g;             /* advect_scene_gravity */
	double frame, time0;    /* the scene's frame (-1 without) and time */
	double T, t;            /* frame length and time reached, s */
	int nsub;               /* substeps taken */
	slc_comm *comm;         /* the other ranks, or NULL: alone */
	double wmax;            /* MPI: largest |w| of the substep, m/s */
	advect_shells shells;   /* thin shells (o.shells) */
	/* MPI with a liquid or vortex particles: the whole grids their
	 * phases run on, the same on every rank (advect_stage.c, mpi_whole) */
	field phiw, solw, srcw;
	macgrid velw;
	/* MPI with marker particles: water.pos and water.neg hold the
	 * markers in this rank's cell planes, mid[0] and mid[1] their ids
	 * (their places in the serial arrays, comm/migrate.h), mall[] the
	 * serial arrays' lengths; counts of this rank, summed at store */
	uint64_t *mid[2];
	uint64_t mall[2];
	size_t mused, migrated;
	/* MPI with vortex particles: vort holds those in this rank's cell
	 * planes, in the order of vid, their places in the serial record;
	 * vall its length */
	uint64_t *vid;
	uint64_t vall;
} advect_stage;

/* The ghost planes a k slab needs each side under MPI (comm/halo.h) for
 * substeps of at most c cells of travel along k, d cells of travel of
 * the solid's extrapolation band (extrapolate_solid: c + 2): a
 * characteristic's foot and its trilinear stencil reach ceil(c) + 2
 * samples of any staggering, once per semi-Lagrangian pass of the scheme
 * (1, 2, 3: SL, MacCormack, BFECC), the extrapolation one plane per
 * layer, the body forces' stencils (vorticity, its gradient, faces) at
 * most ADVECT_FORCE_GHOST.  The halo is refreshed between these phases. */
int advect_stage_ghost(int scheme, double c, double d);
#define ADVECT_FORCE_GHOST 4

/* The ghost planes of the options: advect_stage_ghost at o->cfl cells
 * (when substeps follow the CFL number), or -1 when the substeps are not
 * bounded in cells (--cfl 0, --substep): the widest the slabs allow. */
int advect_stage_opts_ghost(const advect_stage_opts *o);

/* The defaults of advect(1): MacCormack with the reversion limiter,
 * walls, --cfl 1, frame length and gravity from the scene (NaN), source
 * density and temperature 1, no source velocity, vortex particles
 * {0, 2e-3, 4 cells, Gaussian, 1}, seed 0, particle level set auto,
 * reseed every 10 frames, 16 markers per cell, no shells (wedges
 * ADVECT_SHELL_EPS cells thick when there are). */
void advect_stage_defaults(advect_stage_opts *o);

/* Prepare S to carry frame F (which S borrows until advect_stage_free,
 * and to which it adds records: a 'vortex' record when o->vortex.rate >
 * 0 and F has none) with the options o (copied; o->source must outlive
 * S).  comm: NULL (one rank), or in an MPI build the ranks, F then this
 * rank's k slab (comm/slabframe.h) of a frame with grid records on the
 * velocity's cells, rigid bodies with level sets, a liquid and vortex
 * particles (no other particles or rigid shells yet, each refused with a
 * message).  0, or -1 with err: a
 * message about the frame (no velocity or frame length, bad records,
 * "--pls on: no grid record 'phi'", memory); S is freed with
 * advect_stage_free either way. */
int advect_stage_load(advect_stage *S, slc_frame *F, const advect_stage_opts *o,
		      slc_comm *comm, slc_err *err);

/* One substep: its length from the CFL speed (or o.substep), then in
 * order the liquid's velocity extrapolation, the solid the fluid sees and
 * the velocity extended into it, the advection of every record, the
 * liquid, the velocity, sources, forces, rigid bodies, vortex particles.
 * Call only while !advect_stage_done.  0, or -1 with err ("frame N: ..."
 * for a NaN or Inf in the velocity or too many substeps, "record 'NAME':
 * ..." for a record that cannot be advected, memory). */
int advect_stage_substep(advect_stage *S, slc_err *err);

/* Has S reached the end of the frame? */
int advect_stage_done(const advect_stage *S);

/* How far S is into the frame, percent (0 .. 100). */
double advect_stage_percent(const advect_stage *S);

/* The results into the frame: the velocity checked for NaN and Inf, the
 * particle level set and rigid body records written back (records
 * replaced where they are, new ones appended), the changed records'
 * stream time set to the end of the frame and the scene record's frame
 * and time advanced.  Once, after the last substep.  0, or -1 with err
 * ("frame N: field ...: NaN at ...", memory). */
int advect_stage_store(advect_stage *S, slc_err *err);

/* The numbers so far into st. */
void advect_stage_stats_get(const advect_stage *S, advect_stage_stats *st);

/* Did the stage change record r of the frame (to be written as new),
 * rather than leave it as read (passed on byte-identical)?  The scene
 * record is not counted: it changes in advect_stage_store. */
int advect_stage_changed(const advect_stage *S, const slc_rec *r);

/* The number of the frame written (the scene's frame + 1), or -1 without
 * a scene record: for messages about the results. */
long advect_stage_frame(const advect_stage *S);

/* Free what S owns (not the frame's records). */
void advect_stage_free(advect_stage *S);

#endif
