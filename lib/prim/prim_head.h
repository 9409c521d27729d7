/* prim_head.h: a head that turns, nods and stops, for hair driven by its
 * scalp (selle2008 thesis §7.6: the roots embedded in a moving body, figs.
 * 7.9-7.11 a circling, spinning, shaking head).  The head is a sphere moved
 * rigidly, one bone of a prim_char.h skeleton: a turn (yaw) about the
 * vertical axis through its centre and a nod (pitch) about the left-right
 * axis through its lowest point (the neck), each over its own interval of
 * time, still before and after it.  The roots of hair grown on the head at
 * rest follow it as x = M(t) X, their rest position X (hairgoal(1)).
 */
#ifndef SLC_PRIM_HEAD_H
#define SLC_PRIM_HEAD_H

#include <stddef.h>

#include "core/err.h"
#include "core/slc.h"

/* The schedule: turn by turn[0] degrees (positive: from +z towards +x,
 * right-handed about +y) over the times turn[1]..turn[2] s, eased so that
 * the angular velocity and acceleration are zero at both ends (smootherstep
 * 6u^5 - 15u^4 + 10u^3); nod down by nod[0] degrees and back over
 * nod[1]..nod[2] s as nod[0] sin^2(pi u) (zero velocity at both ends).  An
 * interval with t1 <= t0 is a jump at t0.  The head is centred at c with
 * radius r at rest. */
typedef struct prim_head {
	double c[3], r;
	double turn[3], nod[3];
} prim_head;

/* The yaw and pitch angles (radians) and their rates (rad/s) at time t. */
void prim_head_angles(const prim_head *h, double t, double ang[2],
		      double rate[2]);

/* The head's pose at time t as a 3x4 rest-to-pose matrix M (row-major,
 * x' = M[0..2] X + M[3] per row, as a prim_pose bone): M = Y(yaw) N(pitch),
 * the nod about the neck c - (0, r, 0) first, then the turn about the
 * vertical through c; Mdot its time derivative. */
void prim_head_pose(const prim_head *h, double t, double M[12], double Mdot[12]);

/* x = M X for n points X (3n doubles, x may not alias X): M a 3x4
 * rest-to-pose matrix, row-major, x' = M[0..2] X + M[3] per row. */
void prim_rigid_apply(const double M[12], const double *X, size_t n, double *x);

/* Bone b's rest-to-pose matrix from a `skeleton` meta record (key bone.b,
 * 12 comma-separated numbers, as prim_char_emit writes).  0, or -1 with
 * err naming the key. */
int prim_bone_read(const slc_rec *skel, int b, double M[12], slc_err *err);

/* Set the goals of a strands record hr (hairstep's pinned points at the
 * frame's end) to its rest shape moved by M: point channel goal = M rest
 * (rest f32 or f64; P where there is no rest), and detail channel
 * virt_goal = M virt_rest when hr has virt_rest (hairstep's virtual
 * particles), both f64, replacing any there.  0, or -1 with err naming the
 * channel. */
int prim_rigid_goals(slc_rec *hr, const double M[12], slc_err *err);

#endif
