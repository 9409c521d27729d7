/* rigid_move.h: rigid bodies moved through a frame (the "Solids" part of
 * advect), scripted and dynamic, and their level sets carried with them.
 *
 * The `rigid` particles record (rigid.h) holds one point per body:
 *   P         x3  centre of mass, m (world)
 *   mass      x1  kg
 *   inertia   x9  world-frame inertia tensor about P, kg m^2, row-major
 *   v         x3  linear velocity, m/s
 *   omega     x3  angular velocity, rad/s (world)
 *   orient    x4  optional: unit quaternion (x, y, z, w), body frame to
 *                 world; missing: identity (written from then on)
 *   scripted  x1  optional: 0 dynamic (default), 1 scripted (kinematic)
 *   accel     x3  optional: a scripted body's prescribed acceleration,
 *                 m/s^2 (default 0: constant velocity; the gravity vector:
 *                 a ballistic throw)
 *   stop      x1  optional: the time (s, stream time) at which a scripted
 *                 body comes to rest: v = omega = 0 from then on (default
 *                 never)
 * A dynamic body falls under gravity here and is pushed by the liquid in
 * project (batty2007 §3); a scripted body follows
 *   P(t) = P0 + v0 t + accel t^2 / 2,  orientation turning at omega,
 * until `stop`, whatever the liquid does, and enters project's right-hand
 * side only.  Any numeric channel type is read; P, orient, v, omega and
 * inertia are written back in their own type (f64 keeps a scripted path
 * exact to rounding; mkprim writes f64).
 *
 * Level sets: `rigid_phi0` is a cell-centred grid record in the body
 * frame (coordinates relative to the centre of mass, before rotation),
 * one f32 channel per body in point order, shared placement; `rigid_phi`
 * (rigid.h) is each body's level set on the velocity's cells at the
 * current pose, resampled from rigid_phi0 after every move, so that no
 * error accumulates from step to step.
 */
#ifndef SLC_RIGID_MOVE_H
#define SLC_RIGID_MOVE_H

#include "core/err.h"
#include "grid/field.h"
#include "core/slc.h"

/* |q| may differ from 1 by this much on input (f32 rounding and hand
 * edits); q is then renormalized.  More is a bad record. */
#define RIGID_ORIENT_TOL 1e-3

/* A `rigid` record with more bodies than this is refused as damaged
 * before anything is allocated for it: the bound is far above the bodies
 * any grid of a frame could couple (each needs cells of its own). */
#define RIGID_MAX_BODIES 1000000

typedef struct rigid_body {
	double P[3];            /* centre of mass, m */
	double q[4];            /* orientation (x, y, z, w), body to world */
	double v[3], omega[3];  /* m/s, rad/s (world) */
	double accel[3];        /* scripted only: prescribed acceleration */
	double stop;            /* scripted only: time of rest (INFINITY: never) */
	double mass;            /* kg */
	double inertia[9];      /* world frame, about P, kg m^2 */
	int scripted;
} rigid_body;

/* Read every body of a `rigid` record (channels above) into a new array
 * (caller frees).  -1 with err naming the body and the channel on a
 * missing or mis-sized channel, a non-finite value, a non-positive mass,
 * a quaternion whose length is off by more than RIGID_ORIENT_TOL, or a
 * `scripted` value other than 0 or 1. */
int rigid_bodies_read(const slc_rec *r, rigid_body **b, int *n, slc_err *err);

/* Write P, orient, v, omega and inertia of n bodies into r (which must
 * own its channels: slc_rec_own), each in the channel's own type; orient
 * is added (f64 x4) when missing.  0 or -1 with err. */
int rigid_bodies_write(slc_rec *r, const rigid_body *b, int n, slc_err *err);

/* Advance one body from stream time t by dt seconds.  g: gravity (m/s^2)
 * for a dynamic body, or NULL.  Position and velocity move exactly for a
 * constant acceleration a (a = g dynamic, accel scripted):
 *   P += v dt + a dt^2 / 2,  v += a dt;
 * the orientation turns exactly by the rotation omega dt (q <- dq q,
 * renormalized), the world inertia follows it (I <- dR I dR^T) and a
 * dynamic body keeps its angular momentum L = I omega (torque free), a
 * scripted one its omega.  A scripted body whose stop time falls inside
 * the step moves until then and is at rest after. */
void rigid_body_step(rigid_body *b, const double g[3], double t, double dt);

/* Contact of a dynamic body with the walls of a box [lo, hi] (the grid
 * box, solid when project's --boundary is wall).  The body's extent along
 * each axis at its pose is estimated from its body-frame level set phi0:
 * a sample at world offset w = R x from P with value phi bounds the body's
 * lowest point along axis a by w[a] + phi and its highest by w[a] - phi
 * (a signed distance), exact for the sample on the axis-parallel line
 * through the extreme point.  A body beyond a wall is moved back along the
 * wall's normal until it touches, and the contact is inelastic and
 * frictionless: the velocity of the centre of mass into the wall is
 * removed, the tangential velocity and omega are kept.  The impulse acts
 * through the centre of mass, exact for a sphere; the torque a contact off
 * that line would give a body of another shape is not modelled (a contact
 * point taken from samples that turn with the body feeds a spin back into
 * itself, which a sphere must not have).  Scripted bodies are left alone.
 * Returns the number of walls touched (0 to 6).  Deterministic. */
int rigid_body_box_contact(rigid_body *b, const field *phi0, const double lo[3],
			   const double hi[3]);

/* The contact of rigid_body_box_contact for a body whose extremes at
 * its pose are given: ext[0][a] its lowest and ext[1][a] its highest
 * offset from P along axis a (a shell's nodes, rigid_shell.h).  Returns
 * the number of walls touched. */
int rigid_body_box_push(rigid_body *b, const double ext[2][3], const double lo[3],
			const double hi[3]);

/* y = R(q) x and y = R(q)^T x for a unit quaternion q = (x, y, z, w). */
void rigid_rotate(const double q[4], const double x[3], double y[3]);
void rigid_rotate_inv(const double q[4], const double x[3], double y[3]);

/* Body level set at world position x: phi0 (body frame) sampled
 * trilinearly at R^T (x - P); beyond phi0's sample box, the value at the
 * nearest point of the box plus the distance to it (a bound that stays
 * positive away from the body). */
double rigid_phi_at(const field *phi0, const rigid_body *b, const double x[3]);

/* Cells farther than this many cells beyond a body's reach get a cheap
 * lower bound of the distance instead of the sampled level set: more than
 * the band any reader of rigid_phi looks at (RIGID_BAND_CELLS, the face
 * weights' one cell). */
#define RIGID_NEAR_CELLS 4.0

/* Fill the cell-centred field phi (allocated, any placement) with body
 * b's level set at its current pose: rigid_phi_at within RIGID_NEAR_CELLS
 * of the sphere of radius rigid_reach(phi0) around P, beyond it the
 * distance to that sphere (positive, at most the distance to the body).
 * The cost is in the body's neighbourhood.  OpenMP over k; deterministic. */
void rigid_phi_place(field *phi, const field *phi0, const rigid_body *b);

/* The largest distance from the centre of mass to a corner of phi0's
 * sample box: no point of the body moves faster than |v| + |omega| reach. */
double rigid_reach(const field *phi0);

#endif
