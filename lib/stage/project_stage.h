/* project_stage.h: what project does to a frame between reading and
 * writing it: the pressure projection of batty2007 (fluid/pressure.h).
 *
 * The stage finds its records in the frame (HACKING.md, "Record names in
 * a frame"): the MAC velocity u, v, w (required), the solid level set
 * 'solid' and its velocity 'solid_vel', the liquid level set 'phi', the
 * rigid bodies 'rigid' with their level sets 'rigid_phi' (fluid/rigid.h)
 * or their shells (meshes with body_P, fluid/rigid_shell.h: the faces a
 * shell cuts are its body's) and the scene's dt.  It builds the variational pressure system, solves
 * it by preconditioned conjugate gradient (fluid/pcg.h) and puts back into
 * the frame the projected velocity, the pressure 'p' (when a time step is
 * known), the bodies' new velocities and the metadata record 'project'.
 *
 *   project_stage S;
 *   project_stage_load(&S, F, &opts, comm, err);    find and check
 *   project_stage_solve(&S, &stats, comm, err);     build, solve, update
 *   project_stage_store(&S, comm, err);             p, rigid, 'project'
 *   project_stage_free(&S);
 *
 * The reductions of a solve across the cells (the dot products and max
 * norms of conjugate gradient, the compatibility sums of each enclosed
 * region) are each one named function of fluid/pressure.c and
 * fluid/pcg.c, where an MPI build (core/comm.h) adds its sums over ranks.
 */
#ifndef SLC_PROJECT_STAGE_H
#define SLC_PROJECT_STAGE_H

#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"
#include "fluid/pcg.h"
#include "fluid/pressure.h"
#include "fluid/rigid_shell.h"
#include "grid/macgrid.h"

/* The names of the choices, as options and in the 'project' record, in
 * the order of their values (NULL-terminated). */
extern const char *const project_precond_names[];   /* PCG_MG, PCG_MIC0 */
extern const char *const project_weight_names[];    /* variational, binary */
extern const char *const project_bc_names[];        /* PS_BC_WALL, _STORED, _OPEN */

/* Ghost planes of the slabs of an MPI run: the operator of the planes
 * next to a slab's own is assembled from two planes beyond them, and the
 * multigrid restriction of the slab's coarse planes reads the fine
 * residual a plane past the slab, whose stencil reaches one more. */
#define PROJECT_GHOST 4

typedef struct project_opts {
	int precond;            /* PCG_MG or PCG_MIC0 */
	int binary;             /* face weights: 0 variational, 1 binary
				   (the voxelized solve) */
	int bc;                 /* the faces of the grid box: PS_BC_* */
	double tol;             /* relative residual (max norm) to reach, > 0 */
	int maxiter;            /* most CG iterations, >= 1 */
	double density;         /* fluid density, kg/m^3, > 0 */
	double dt;              /* time step of the pressure p, s; NaN: the
				   scene's dt (no p without either) */
} project_opts;

/* What a solve did, for the tool to report. */
typedef struct project_stats {
	pcg_stats pcg;          /* iterations, residual, converged, times */
	int nregion, nenclosed; /* pressure regions, those with no free surface */
	int have_dt;            /* a time step was known: p is stored */
} project_stats;

typedef struct project_stage {
	slc_frame *F;           /* borrowed */
	project_opts o;
	long frame;             /* the scene's frame number, -1 unknown */
	double dt;              /* time step of p, s, or 0: none */
	macgrid m;              /* u, v, w borrowed from their records */
	slc_rec *vel[3];        /* the records of u, v, w */
	slc_rec *rigid;         /* the 'rigid' record, or NULL */
	int ni, nj, nk;         /* cells */
	const float *solid, *phi, *solid_vel;   /* borrowed, or NULL */
	const float **phib;     /* nbody body level sets, borrowed */
	ps_body *body;          /* owned, with their face fractions */
	int nbody;
	rigid_shells rsh;       /* bodies shaped by a shell (fluid/rigid_shell.h) */
	rigid_cut rcut;         /* the faces they cut */
	float *wx, *wy, *wz;    /* fluid fractions of the faces, owned */
	psys ps;
	double *b, *x;          /* right-hand side and scaled pressure */
	double removed;         /* psys_rhs: net flow removed, / dx^2 */
	pcg_stats st;
	int solved;
	/* Thin shells (stage/shell_stage.h), set between load and solve:
	 * faces held at a velocity and shell nodes coupled two ways
	 * (psys_in); NULL for none.  The weights wx, wy, wz above are the
	 * caller's to close. */
	const uint8_t *held[3];
	const float *hv[3];
	ps_shell *shell;
	slc_comm *comm;         /* NULL, or (MPI builds) the ranks whose k
				   slabs the frame's grids are */
} project_stage;

/* Find and check the stage's records in F (which must outlive S): u, v, w
 * one MAC grid of finite values; solid, phi, solid_vel and rigid_phi (one
 * channel per body without a shell) cell-centred on the velocity's cells within
 * SLC_PLACE_ROUNDED (core/gridplace.h); the rigid bodies; the scene's
 * frame number and, when o->dt is NaN, its dt.  Then the face weights
 * (and each body's volume fractions).  comm: NULL (one rank), or in an
 * MPI build the ranks, F holding this rank's k slabs with
 * PROJECT_GHOST ghost planes (comm/slabframe.h): every rank calls the
 * stage's functions in turn, the same communicator in each.  0, or -1
 * with err naming the record ("no 'w' grid record ...", "record 'solid':
 * ..."); S is then empty. */
int project_stage_load(project_stage *S, slc_frame *F, const project_opts *o,
		       slc_comm *comm, slc_err *err);

/* Build the pressure system, solve it and update the velocity (in place
 * in the records of u, v, w) and the bodies' velocities; fill st.  A solve
 * that does not reach o->tol in o->maxiter iterations is not an error
 * (st->pcg.converged 0).  comm: load's.  0, or -1 with err (memory, a
 * singular body). */
int project_stage_solve(project_stage *S, project_stats *st, slc_comm *comm,
			slc_err *err);

/* Put the results into the frame: the bodies' velocities into 'rigid',
 * the pressure in Pa into every grid record 'p' (appended when there is
 * none; not when no time step is known), and a new metadata record
 * 'project' at the end in place of any old one.  Checks that the records
 * written hold finite values.  comm: load's.  0, or -1 with err. */
int project_stage_store(project_stage *S, slc_comm *comm, slc_err *err);

/* Did the stage change or make record r (so that it must be written
 * anew rather than passed through)? */
int project_stage_changed(const project_stage *S, const slc_rec *r);

/* Free what S owns; the records stay in the frame. */
void project_stage_free(project_stage *S);

#endif
