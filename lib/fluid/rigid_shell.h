/* rigid_shell.h: rigid bodies whose shape is a thin shell (a hull, a cup
 * on a dynamic body) rather than a level set: coupled to the pressure
 * through batty2007 §3 with the faces the shell cuts as the body's faces
 * (guendelman2005 §5, §6: "rigid bodies ... sum forces and torques").
 *
 * A rigid shell is a mesh record with a point channel `body_P` (x3, the
 * nodes in the body frame, relative to the centre of mass) and a detail
 * channel `body` (u32 x1, its point in the `rigid` record), as `mkprim
 * hull --motion dynamic` writes it (formats/shell.md).  Its `P` is the
 * world position at the record's time, P = R(orient) body_P + X, which
 * advect writes after moving the body (rigid_set.h).  A body with a
 * shell has no level set: `rigid_phi` and `rigid_phi0` hold one channel
 * per body that has no shell, in point order.
 *
 * In the pressure system every face the shell cuts (the ray between its
 * two cell centres crosses a triangle, shell_faces.h) is the body's:
 * fluid fraction w_f = 0 and body fraction beta_f = 1.  The face's J
 * column (e_ax, r x e_ax) is taken at the crossing: the crossing lies on
 * the line through the face centre along e_ax, and r x e_ax does not
 * depend on r's component along e_ax, so it is the face centre's column
 * that pressure.c builds, exactly.
 */
#ifndef SLC_RIGID_SHELL_H
#define SLC_RIGID_SHELL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/frame.h"
#include "fluid/pressure.h"
#include "shell/shell_faces.h"
#include "shell/shell_vis.h"

/* The wedge thickness of a rigid shell's triangles as a fraction of dx:
 * guendelman2005 §3 gives no value; as shellcouple's default, small, so
 * that the thickened triangles close gaps of round-off size only. */
#define RIGID_SHELL_EPS_DX 1e-3

typedef struct rigid_shell {
	slc_rec *r;             /* the mesh record, borrowed */
	int body;               /* its point in `rigid` */
	size_t np, ntri;
	const uint32_t *tri;    /* borrowed */
	double *bodyP;          /* 3 per node, body frame, owned */
	double *P;              /* 3 per node, world, owned */
} rigid_shell;

typedef struct rigid_shells {
	int n;
	rigid_shell *s;
	int nbody;
	uint8_t *has;           /* per body: 1 when some shell is its shape */
} rigid_shells;

/* Is r a rigid shell's mesh record (a mesh with a `body_P` channel)? */
int rigid_shell_rec(const slc_rec *r);

/* Find every rigid shell of F for a `rigid` record of nbody bodies:
 * body_P (f32 or f64 x3, one per point of P), detail body < nbody, P
 * and tri finite and in range.  S->n = 0 without any.  0, or -1 with
 * err naming the record. */
int rigid_shells_load(rigid_shells *S, const slc_frame *F, int nbody, slc_err *err);

void rigid_shells_free(rigid_shells *S);

/* The largest distance of a node of body b's shells from its centre of
 * mass (0 without shells): no point of the shell moves faster than
 * |v| + |omega| reach. */
double rigid_shells_reach(const rigid_shells *S, int b);

/* World positions of every shell of body b at the pose (X, q): P = R(q)
 * body_P + X, into each shell's P. */
void rigid_shells_place(rigid_shells *S, int b, const double X[3], const double q[4]);

/* The extremes of body b's shells at orientation q, as offsets from the
 * centre of mass: ext[0][a] the lowest along axis a, ext[1][a] the
 * highest (rigid_body_box_push); infinite without shells. */
void rigid_shells_extent(const rigid_shells *S, int b, const double q[4], double ext[2][3]);

/* Write each shell's P (and v, when the record has it: the rigid
 * velocity v + omega x (P - X) of its body) into its record, in the
 * channels' own types, at stream time `time`.  X, q, v, omega: 3, 4, 3, 3
 * doubles per body.  0, or -1 with err. */
int rigid_shells_store(rigid_shells *S, const double *X, const double *v,
		       const double *omega, double time, slc_err *err);

/* The faces the shells cut, on project's grid. */
typedef struct rigid_cut {
	shell_set set;
	shell_faces faces;      /* mesh q of the faces is shell q of S */
	int *body;              /* per shell, its body */
} rigid_cut;

/* Cut the grid (ni x nj x nk cells of size dx, minimum corner origin)
 * with the shells at their P: for every cut face, w = 0 in wx, wy, wz and
 * body fraction 1 in its body's bx, by, bz (allocated by rigid_weights
 * with the body's level set NULL).  0, or -1 with err; C is then empty. */
int rigid_shells_cut(const rigid_shells *S, ps_body *body, int ni, int nj, int nk,
		     double dx, const double origin[3], float *wx, float *wy,
		     float *wz, rigid_cut *C, slc_err *err);

/* The fluid in a cut face's own control volume (from one cell centre to
 * the other, liquid on a side where phi < 0 up to the crossing; all of
 * it without phi) moves with the body once the face is the body's
 * (rigid_cut_hold): its mass m_f = rho dx^3 frac joins the body's, M +=
 * m_f Phi_f Phi_f^T with Phi_f the face's J column, and its momentum
 * m_f u*_f Phi_f the body's, so that V becomes the velocity of the body
 * and that fluid together.  Without it the pressure, which holds up the
 * fluid to the first cell centres, would push the body alone: up to a
 * cell of draft too little.  Sets each body's Minv (after psys_init,
 * which set it from mass and inertia) and V; call before psys_rhs.
 * vel: u*, v*, w* (stream layouts).  0, or -1 with err (a singular
 * mass). */
int rigid_cut_mass(const rigid_cut *C, const psys *ps, ps_body *body, int nbody,
		   const float *const vel[3], const float *phi, double rho, slc_err *err);

/* After the solve: each cut face takes its body's velocity at the
 * crossing along the face's axis, (v + omega x r) . e_ax (a Neumann
 * face moving with the body). */
void rigid_cut_hold(const rigid_cut *C, const ps_body *body, float *const vel[3],
		    double dx, const double origin[3]);

void rigid_cut_free(rigid_cut *C);

#endif
