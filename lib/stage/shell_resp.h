/* shell_resp.h: how a cloth shell answers a force over one fluid step,
 * for shellcouple's implicit coupling (batty2007 §3 with the cloth's
 * nodes as the bodies, and the cloth's stiffness in place of a rigid
 * body's mass).
 *
 * The pressure solve of one frame (dt) needs, for the faces the shell
 * cuts, the velocity the shell will have over that frame as a linear
 * function of the force the pressure puts on it.  A cloth answers a
 * force through its implicit system, not its mass alone: a sheet held by
 * its springs carries the water above it, which J^T M^-1 J (the nodes as
 * free masses) cannot see.  The response here is one backward Euler step
 * of the frame, built from clothstep's own springs and system
 * (cloth/spring.h, cloth/cloth_sys.h, selle2008 thesis §5.4-5.5):
 *
 *   A V = M V0 + dt (F(x) + M g) + dt f,
 *   A = M - dt dF/dv - dt^2 dF/dx = M - dt D,
 *
 * D the damping matrix with the implicit-spring term tau K at tau = dt
 * (spring_linearize, cloth_sys_assemble), x the nodes now (x^(n+1)), V0
 * the velocity the fluid was last held at.  Why these choices:
 *   - dt is the frame's, not one of clothstep's substeps: the pressure
 *     acts over the frame, and the load is held through all of them.
 *     At rest (F(x) + M g + f = 0, V0 = 0) V = 0 for any step, so the
 *     load carried in equilibrium is exact; in motion the step is a
 *     model of clothstep's substeps, not a copy.
 *   - V is the shell's mean velocity over the frame, which the
 *     projection after clothstep holds the cut faces at (eq 4's v_eff =
 *     (x^(n+2) - x^(n+1))/dt), and V0 = (P - P_prev)/dt the one it held
 *     them at last frame: the fluid's own state (its face velocities are
 *     frame means, advanced by dt g), so the two step alike.  Free fall:
 *     V = V0 + dt g on both sides, no load.  The cloth's v (the end of
 *     clothstep's frame) is used only without P_prev.
 *   - The fluid in each cut face's control volume (mass m_f, from one
 *     cell centre to the other: shell_stage.c) moves with the face, so it
 *     joins the shell: A += sum_f m_f (w_f e_ax)(w_f e_ax)^T and the
 *     right-hand side m_f u*_f w_f e_ax (as rigid_cut_mass does for a
 *     rigid shell).  Its change of momentum is part of the force the
 *     shell gets (shell_stage.c's extra), so that a sheet carries all the
 *     water above it, not only the water above the first cell centres.
 * Pinned nodes have infinite mass (batty2007 §3's scripted body): their
 * velocity is prescribed (vfix) and they take no part in the solves.
 * Collisions, self-repulsions and wind are clothstep's alone.
 *
 * A^-1 is applied by conjugate gradient on the free nodes to a relative
 * residual of SHELL_RESP_TOL: tight enough that the outer pressure CG
 * sees a fixed symmetric operator.  Its preconditioner is A's exact
 * banded Cholesky factor (band_chol.h, one chain per mesh, its free
 * nodes in the order of node_order.h that keeps the band narrower: every
 * coupling inside the band, so the factor is A's own), factored once in
 * shell_resp_faces: each solve is then two triangular sweeps and one or
 * two CG iterations that mop up the factor's rounding.  Where the band is
 * too wide (SHELL_RESP_BAND_MAX), the 3x3 diagonal blocks of A (block
 * Jacobi) instead, with the many iterations a stiff cloth needs.  Products and sums in a fixed order: the
 * result does not depend on the number of threads.
 *
 *   shell_resp R;
 *   shell_resp_init(&R, meshes, nm, &opts, err);
 *   shell_resp_faces(&R, nf, node, w, ax, mf, uf);
 *   shell_resp_unloaded(&R, V);      the V with no fluid force
 *   ps_shell.resp = shell_resp_apply, ps_shell.ctx = &R;
 *   shell_resp_free(&R);
 */
#ifndef SLC_SHELL_RESP_H
#define SLC_SHELL_RESP_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/band_chol.h"
#include "cloth/cloth_mesh.h"
#include "cloth/cloth_sys.h"
#include "cloth/spring.h"
#include "core/err.h"

/* The inner solves' relative residual (2-norm against the right-hand
 * side's) and iteration cap: the outer CG's operator must be symmetric
 * to well below its own tolerance (shellcouple's 1e-6). */
#define SHELL_RESP_TOL 1e-11
#define SHELL_RESP_MAXITER 20000
/* The exact factor replaces block Jacobi as the inner CG's
 * preconditioner when the free nodes' block bandwidth in their narrower
 * order (node_order.h: the mesh's own or reverse Cuthill-McKee) is at
 * most this and the factor takes at most SHELL_RESP_BAND_MEM doubles
 * (256 MiB): its cost, n bw^2 blocks once a frame, then beats even a
 * few hundred CG iterations (a stiff 81 x 81 sheet's take thousands). */
#define SHELL_RESP_BAND_MAX 512
#define SHELL_RESP_BAND_MEM ((size_t)1 << 25)
/* A final relative residual above this (the cap reached) is worth a
 * warning: the outer CG's operator is then symmetric to this only. */
#define SHELL_RESP_WARN 1e-8

/* One cloth mesh; every array borrowed for shell_resp_init only. */
typedef struct shell_resp_mesh {
	size_t np, ntri;
	const uint32_t *tri;    /* 3 per triangle */
	const double *P;        /* 3 per node: now (x^(n+1)), m */
	const double *rest;     /* 3 per node: rest state, or NULL: P */
	const double *V0;       /* 3 per node: the velocity before the step, m/s */
	const double *mass;     /* per node, kg, positive and finite */
	const uint8_t *fixed;   /* per node, 1: velocity prescribed, or NULL */
	const double *vfix;     /* 3 per node: that velocity, or NULL: 0 */
} shell_resp_mesh;

typedef struct shell_resp_opts {
	spring_params spring;   /* clothstep's (its --stiffness, ...) */
	double g[3];            /* gravity, m/s^2 */
	double dt;              /* the frame, s, > 0 */
} shell_resp_opts;

typedef struct shell_resp {
	int nm;
	size_t nn;              /* nodes of every mesh, one after the other */
	size_t *base;           /* nm: mesh q's first node */
	cloth_mesh *mesh;
	spring_set *spr;
	cloth_sys *sys;         /* M - dt D of each mesh */
	double dt;
	double *m, *P, *V0, *vfix, *F;  /* nn, 3nn, 3nn, 3nn, 3nn */
	uint8_t *fixed;         /* nn */
	size_t nf;              /* cut faces (shell_resp_faces), borrowed: */
	const uint32_t *fnode;  /* 3 per face, global node numbers */
	const double *fw;       /* 3 per face, barycentric weights */
	const uint8_t *fax;     /* per face, its axis */
	const double *mf, *uf;  /* per face: fluid mass kg, u* m/s */
	double *diag;           /* 9 nn: inverse diagonal blocks of A */
	size_t *arp;            /* nn + 1: A's block rows over every mesh, */
	uint32_t *acol;         /* their global block columns, ascending, */
	double *aval;           /* 9 per block, row-major (shell_resp_faces) */
	band_chol band;         /* A's exact factor in a narrow order, */
	int banded;             /* 1: in use (SHELL_RESP_BAND_MAX) */
	double *b, *r, *z, *p, *q, *x;  /* 3nn work */
	long solves, iters;     /* inner solves and their iterations */
	double worst;           /* largest final relative residual */
} shell_resp;

/* Build the springs (clothstep's: edge, bending and altitude springs of
 * each mesh from its rest state, cloth_mesh.h, spring.h), linearize them
 * at P with tau = dt and assemble A.  0, or -1 with err (a mesh refused
 * by cloth_mesh_build, memory); R is then empty. */
int shell_resp_init(shell_resp *R, const shell_resp_mesh *m, int nm,
		    const shell_resp_opts *o, slc_err *err);

/* The cut faces' fluid (arrays borrowed, kept until shell_resp_free): nf
 * faces, face q on axis ax[q] crossing the triangle of global nodes
 * node[3q..3q+2] with weights w[3q..3q+2], the fluid of its control
 * volume mf[q] kg moving at uf[q] m/s along the axis.  Call before the
 * solves. */
void shell_resp_faces(shell_resp *R, size_t nf, const uint32_t *node, const double *w,
		      const uint8_t *ax, const double *mf, const double *uf);

/* V (3 nn) = the mean velocity over the frame with no pressure: A V =
 * M V0 + dt (F(x) + M g) + sum_f m_f u*_f w_f e_ax on the free nodes,
 * vfix on the fixed ones. */
void shell_resp_unloaded(shell_resp *R, double *V);

/* t (3 nn forces, any unit u) := A^-1 t on the free nodes (u/kg), 0 on
 * the fixed ones: the shell's response, the ps_shell.resp of
 * fluid/pressure.h (ctx: the shell_resp). */
void shell_resp_apply(void *ctx, double *t);

void shell_resp_free(shell_resp *R);

#endif
