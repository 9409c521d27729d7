/* hair_limit.h: biased strain limiting of hair strands (selle2008 thesis
 * §7.4.1).
 *
 * After the first half step, the positions the step would reach,
 * x~ = x^n + dt v~^{n+1/2}, are marched from root to tip; every axis edge
 * longer or shorter than its rest length by more than the fraction s is
 * brought back by moving only its tipward particle along the edge (the
 * rootward one is final already: the bias that makes one pass enough),
 * and on a subdivided segment the edge from the segment's root to its
 * virtual likewise.  Only the position-update velocity changes, by the
 * move over dt; the velocity the next step starts from does not.
 * Constrained particles never move.  Strands are independent: the work
 * is split over them, the result does not depend on the thread count.
 */
#ifndef SLC_HAIR_LIMIT_H
#define SLC_HAIR_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "hair/hair_build.h"

/* Limit the strands [s0, s1) of t (each strand reads and writes only its
 * own particles, so a rank of an MPI build limits its own): x0 (3 np) start positions, vh (3 np) the
 * position-update velocity, changed in place; fixed (np) constrained
 * particles; seg_l0 (naxis) the rest length of the axis segment from
 * point i, tri_l0 (nvirt) that of virtual k's edge from its segment's
 * root; s the strain limit (> 0); dt the step, s.  Returns the number of
 * edges brought back. */
long hair_limit(const hair_topo *t, size_t s0, size_t s1,
		const double *x0, double *vh,
		const uint8_t *fixed, const double *seg_l0,
		const double *tri_l0, double s, double dt);

#endif
