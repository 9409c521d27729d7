/* shell_stage.h: what shellcouple does to a frame: thin shells (triangle
 * meshes with no inside) in the pressure solve, two ways (guendelman2005
 * §4.3, §5; selle2008 thesis §4.4.2; batty2007 §3).
 *
 * The shells are mesh records named by the caller (`P`, `tri`, optional
 * `P_prev`, `v`, `mass`, `pinned`, `rest`, `goal`; formats/shell.md).  In the
 * shell pipe the shell runs one frame ahead of the fluid:
 *
 *   advect | shellcouple --stage force | clothstep | shellcouple --stage project
 *
 * force (before the shell moves, the shell at P = x^(n+1)): the pressure
 * the fluid would put on the shell over the next frame, handed to its
 * nodes as the point channel `f_fluid` (N, f64 x3), and P_prev := P.  Two
 * ways to get it (shell_coupling):
 *   split     guendelman2005 §5 eqs 5-6: a variable-density solve in
 *             which each cut face has the shell's mass sigma dx^2 and its
 *             velocity (no Neumann condition); the fluid's velocity from
 *             it is thrown away.
 *   implicit  batty2007 §3 with the shell's nodes as the bodies and
 *             the cloth's implicit system as their response: the cut
 *             faces move with the nodes' mean velocity over the frame,
 *             and the system gains (rho/dx) J A^-1 J^T with A = M - dt
 *             dF/dv - dt^2 dF/dx, clothstep's springs over the frame
 *             (stage/shell_resp.h: why this A, from which velocity;
 *             pinned nodes: infinite mass).  The pressure problem is the
 *             Schur complement of the coupled system, S = L + J A^-1 J^T
 *             (L the fluid's operator), solved by project's PCG with A^-1
 *             applied inside each product by an inner CG solved tightly:
 *             symmetric positive definite like L, so the same CG and
 *             preconditioner serve (the preconditioner sees L alone, as
 *             for rigid bodies: a stiff cloth's J A^-1 J^T is small, its
 *             faces nearly closed, which L's multigrid fits; the
 *             mass-only system as the preconditioner would need a solve
 *             of its own per application), and neither the fluid nor the cloth
 *             code learns of the other (fluid/ cannot call cloth/: the
 *             response is a callback, ps_shell.resp).  A monolithic solve
 *             of (p, V) would be indefinite, beyond CG.  The fluid in the
 *             cut faces' control volumes joins the shell (shell_resp.h),
 *             its change of momentum part of the force.
 * project (after the shell moved to P = x^(n+2)): project's solve
 * (project_stage.h) with every face the shell cuts at P_prev a Neumann
 * face holding v_eff = (P - P_prev)/dt at the crossing (guendelman2005
 * eq 4), pockets with the compatibility condition; a mesh with no P_prev
 * is still, cut at P.
 * Both write the metadata record `shellcouple`.
 *
 *   shell_stage S;
 *   shell_stage_load(&S, F, &opts, comm, err);
 *   shell_stage_run(&S, &stats, comm, err);
 *   shell_stage_store(&S, comm, err);
 *   shell_stage_free(&S);
 */
#ifndef SLC_SHELL_STAGE_H
#define SLC_SHELL_STAGE_H

#include "core/comm.h"
#include "core/err.h"
#include "core/frame.h"
#include "shell/shell_faces.h"
#include "shell/shell_vis.h"
#include "cloth/spring.h"
#include "stage/project_stage.h"
#include "stage/shell_resp.h"

enum { SHELL_STAGE_FORCE = 0, SHELL_STAGE_PROJECT = 1 };
enum { SHELL_SPLIT = 0, SHELL_IMPLICIT = 1 };
enum { SHELL_TRANSFER_FACE = 0, SHELL_TRANSFER_PAPER = 1 };

/* The names of the choices, in the order of their values. */
extern const char *const shell_stage_names[];      /* force, project */
extern const char *const shell_coupling_names[];   /* split, implicit */
extern const char *const shell_transfer_names[];   /* face, paper */

/* The wedge thickness eps as a fraction of dx when none is given:
 * guendelman2005 §3 gives no value; a small one, so that the thickened
 * triangles close gaps of round-off size only. */
#define SHELL_EPS_DX 1e-3

typedef struct shell_opts {
	int stage;              /* SHELL_STAGE_* */
	int coupling;           /* SHELL_SPLIT or SHELL_IMPLICIT (force) */
	const char *const *names;   /* the shells' mesh records */
	int nnames;
	double eps;             /* wedge thickness / dx, > 0 */
	double sigma;           /* areal density kg/m^2 for every node, or
				   NaN: from the nodes' mass and area */
	project_opts po;        /* the solve's options (project) */
	spring_params spring;   /* implicit: the cloth's springs, as
				   clothstep is given them */
	double g[3];            /* implicit: gravity, m/s^2; NaN: the
				   scene's, else clothstep's default */
	int transfer;           /* split: how the pressure reaches the nodes,
				   SHELL_TRANSFER_FACE (each cut face's force
				   to its crossing's nodes by barycentric
				   weight: sums to the faces' total exactly)
				   or SHELL_TRANSFER_PAPER (guendelman2005
				   §5.1: nodal jumps, a band, barycentres;
				   shell_faces_force_paper) */
} shell_opts;

/* One shell mesh of the frame. */
typedef struct shell_one {
	slc_rec *r;             /* borrowed */
	size_t np, ntri;
	const uint32_t *tri;
	double *P, *Pprev;      /* owned; Pprev NULL when absent */
	double *v, *mass;       /* v, mass, or NULL */
	double *rest, *goal;    /* rest, goal, or NULL */
	const uint8_t *pin;     /* borrowed, or NULL */
	double *vel;            /* the node velocity of the cut faces */
	double *sigma;          /* areal density per node, kg/m^2 */
	double *force;          /* the result, N per node */
} shell_one;

typedef struct shell_stats {
	pcg_stats pcg;
	size_t cut;             /* cut faces */
	double force[3];        /* on the shells: sum over their nodes, N */
	double face_force[3];   /* sum over the cut faces of F_f, N */
	double torque[3];       /* about the mean of the nodes, N m */
	double compat;          /* net flow removed from pockets, m^3/s */
	long inner_solves, inner_iters;  /* implicit: the solves with A */
	double inner_residual;  /* their largest relative residual */
} shell_stats;

typedef struct shell_stage {
	shell_opts o;
	slc_frame *F;
	project_stage P;        /* the frame's fluid and its solve */
	shell_one *m;
	int nm;
	shell_set set;
	shell_faces faces;
	float *hv[3];           /* held face velocities, owned */
	ps_shell sh;            /* implicit coupling's nodes */
	size_t *lo, *hi;
	uint8_t *ax;
	uint32_t *node;
	double *w, *minv, *V;
	shell_resp R;           /* implicit: the shells' response */
	double *mf, *uf;        /* implicit: per cut face, its fluid's mass
				   (kg) and u* (m/s) */
	double *p;              /* pressure, Pa per cell */
	double *extra;          /* project: per cut face, the impulse of its
				   own fluid (face_impulse), N */
	shell_stats st;
	int done;
} shell_stage;

/* Find the fluid records as project does (project_stage_load) and the
 * shells named in o, and find the faces they cut.  0, or -1 with err
 * naming the record; S is then empty.  comm: the communicator handle
 * (core/comm.h), NULL: one rank (the only one served yet). */
int shell_stage_load(shell_stage *S, slc_frame *F, const shell_opts *o, slc_comm *comm,
		     slc_err *err);

/* Solve (force: split or implicit; project: eq 4) and compute the force
 * on the shells.  comm: NULL.  0, or -1 with err. */
int shell_stage_run(shell_stage *S, shell_stats *st, slc_comm *comm, slc_err *err);

/* Put the results into the frame: force: each shell's f_fluid and
 * P_prev; project: what project stores (u, v, w, p, rigid, 'project');
 * both: the metadata record 'shellcouple'.  comm: NULL.  0, or -1 with
 * err. */
int shell_stage_store(shell_stage *S, slc_comm *comm, slc_err *err);

/* Did the stage change or make record r? */
int shell_stage_changed(const shell_stage *S, const slc_rec *r);

void shell_stage_free(shell_stage *S);

#endif
