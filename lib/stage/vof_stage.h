/* vof_stage.h: what vofstep does to a frame between reading and writing
 * it: the water on the KDSM (lib/vof, lee2019 §3.2-§5) taken from the
 * mesh of frame n to that of n+1, coupled with the grid's liquid once a
 * frame in the order of §4's list, and the volume ledger of the frame in
 * the meta record `vofstep`.
 *
 * One frame of a character in a pool is a pipe of five processes, each
 * boundary an exchange point of §4 (HACKING.md, "The frame pipe of water
 * on a character"):
 *
 *   vofstep advect --kdsm kdsm-N --next kdsm-N+1 frame-N |  (1) VOF advect
 *   advect |                                               (1) grid, PLS, spray
 *   vofstep conserve --kdsm kdsm-N+1 |                     (2)-(4) VOF
 *   project |                                              (4) grid
 *   vofstep finish --kdsm kdsm-N+1 -o frame-N+1            (5)
 *
 * and without a grid one process, `vofstep step`.  `vofstep init` puts
 * the first water on a mesh.  Every mode reads the bake frames it is
 * given (kdsmbake frame) and the frame's records `vof` (the water),
 * `vofstep` (the ledger so far), `scene`, `spray`, and with the grid
 * `phi`, `u`, `v`, `w`.
 *
 * Use: vof_stage_opts_default, set the options, vof_stage_load,
 * vof_stage_step, vof_stage_store, vof_stage_free.  Every entry point
 * takes the communicator of an MPI build (core/comm.h); this build runs
 * on one rank, so comm must be NULL.
 */
#ifndef SLC_VOF_STAGE_H
#define SLC_VOF_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "kdsm/kdsm.h"
#include "vof/vof.h"
#include "vof/vof_grid.h"

enum vof_stage_mode {
	VOF_MODE_INIT,          /* the first water: dry, or the tets inside --fill */
	VOF_MODE_ADVECT,        /* §4 (1): mesh n to n+1; the bake's solid swapped in */
	VOF_MODE_CONSERVE,      /* §4 (2)-(4): grid in, particles in, forces, conserve */
	VOF_MODE_FINISH,        /* §4 (5): the projected velocity copied back */
	VOF_MODE_STEP           /* advect and conserve in one, no grid stage between */
};

/* Not from the paper: the ledger must balance to this fraction of the
 * water on the mesh (the bound); looser is reported. */
#define VOF_STAGE_LEDGER_TOL 1e-12

typedef struct vof_stage_opts {
	int mode;               /* enum vof_stage_mode */
	const char *name;       /* the water's tets record ("vof") */
	const char *spray;      /* the spray particles record ("spray") */
	const char *fill;       /* init: level set grid whose inside is filled,
				   or NULL: dry */
	int grid;               /* couple with phi, u, v, w when there (1) */
	int absorb;             /* absorb spray into wet tets (1) */
	double beta;            /* VOF to grid blend, 0..1 (0: off) */
	double dt;              /* s; 0: the scene's dt, else 1/fps */
	double grav[3];         /* m/s^2; NaN: the scene's, else (0, -9.81, 0) */
	uint64_t seed;          /* spray jitter */
	double jitter;          /* of the tet's max edge (VOF_JITTER) */
	int fraction;           /* vof_advect_opts.fraction */
	double adh, dmax, mu;   /* vof_forces_opts */
	double k_across, k_along;
} vof_stage_opts;

void vof_stage_opts_default(vof_stage_opts *o);

/* A frame's water being stepped.  The meshes borrow from the bake frames
 * given to vof_stage_load, which must outlive the stage. */
typedef struct vof_stage {
	vof_stage_opts o;
	slc_frame *F;
	const slc_frame *bake0, *bake1;
	slc_rec *scene;
	kdsm_mesh m0, m1;       /* mesh n (advect, step), mesh n+1 (every mode) */
	long f0, f1;            /* their bake frame numbers */
	double t1;              /* the time of mesh n+1, s */
	vof_state s;
	vof_spray sp;           /* spray made by this stage */
	vof_ledger L;           /* the frame's ledger so far */
	field phi;              /* borrowed from the frame, when coupled */
	macgrid vel;
	vof_grid g;
	double dt, gr[3], frame;
	size_t nold;            /* spray particles found in the frame */
	double *oP, *ov, *ovol; /* their positions, velocities, volumes */
	uint8_t *gone;          /* absorbed this stage */
	size_t n_over;          /* tets above cap after pushout, enclosed aside */
	size_t n_faces;         /* grid faces the blend changed */
	int blended;            /* u, v, w changed */
	slc_rec *changed[12];    /* records this stage wrote */
	int nchanged;
} vof_stage;

/* Find in F the scene, the water (not for init), the ledger so far, the
 * spray and, with o->grid, phi and u, v, w; read the meshes of bake1
 * (the frame the water goes to, or is on) and, for advect and step,
 * bake0 (the frame it comes from).  Checks that the water lies on the
 * mesh it should (the ledger's mesh_frame), that the stages come in
 * order (advect after finish, step or init; conserve after advect;
 * finish after conserve) and that the water is what the ledger last
 * left.  S is set up even on failure.  0, or -1 with err naming the
 * record. */
int vof_stage_load(vof_stage *S, slc_frame *F, const slc_frame *bake0, const slc_frame *bake1,
		   const vof_stage_opts *o, slc_comm *comm, slc_err *err);

/* The mode's steps (above).  0, or -1 with err. */
int vof_stage_step(vof_stage *S, slc_comm *comm, slc_err *err);

/* Write the water (record o->name on mesh n+1), the ledger (meta
 * `vofstep`: stage, mesh_frame, before, grid_in, grid_fill, particles_in,
 * particles_out, after, residual as %.17g, and the step's figures), the
 * spray when it changed, u, v, w when blended, the bake's solid, solid_vel,
 * solid_slip (advect), and the advanced scene (step) into the frame.  0,
 * or -1 with err. */
int vof_stage_store(vof_stage *S, slc_comm *comm, slc_err *err);

/* Did this stage write record r (the tool writes it, passes the others)? */
int vof_stage_changed(const vof_stage *S, const slc_rec *r);

/* |residual| / max(before, after, tiny): how well the ledger balances. */
double vof_stage_balance(const vof_stage *S);

void vof_stage_free(vof_stage *S);

#endif
