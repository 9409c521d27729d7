/* stiction.h: hair stiction, selle2008 thesis §7.5.2: segments that come
 * closer than eps_s are bonded by a spring between two points embedded in
 * them, of rest length eps_s, so that the pair resists being pulled apart
 * and being pushed together; the embedded points stay where they were
 * made until the spring is longer than the break distance, when it breaks
 * at once (no force threshold, no fading stiffness: hair separates
 * discontinuously, Fig. 7.4c).
 *
 * Segments are pairs of particle indices, each given root side first, of
 * strands: a particle starts at most one segment, so a segment is named
 * by its rootward particle (the name the bonds are saved and loaded
 * under).  Segments sharing a particle are never bonded.  A segment holds
 * at most nmax bonds: each keeps the nmax closest candidates (the thesis'
 * max heap; ties to the closer midpoints, then the lower index: strands
 * side by side bond segment to the segment beside it, not to one that
 * touches it end to end) and a pair is bonded only if each is
 * in the other's list, found through a box hierarchy over the segments
 * (geom/bvh_box.h).  Bonds are kept sorted by their segment pair, so the
 * result does not depend on the number of threads.
 */
#ifndef SLC_STICTION_H
#define SLC_STICTION_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/cloth_split.h"
#include "cloth/spring.h"
#include "core/err.h"

typedef struct stiction_params {
	double eps_s;           /* bonding distance and rest length, m */
	double eps_break;       /* a bond longer than this breaks, m
				   (>= eps_s) */
	int nmax;               /* most bonds a segment holds (>= 1) */
	double k;               /* spring stiffness, N, over the
				   normalising length eps_s */
	double xi;              /* overdamping fraction */
} stiction_params;

typedef struct stiction {
	stiction_params par;
	size_t np, nseg;
	uint32_t *seg;          /* 2 nseg particles (copied) */
	uint32_t *name;         /* np: the segment particle i starts, or
				   UINT32_MAX */
	size_t nb;              /* bonds */
	uint32_t *bseg;         /* 2 nb segments, lower first, pairs
				   ascending */
	double *bfrac;          /* 2 nb fractions of the embedded points
				   along bseg[2b], bseg[2b + 1] */
	long made, broken;      /* bonds made and broken since init */
	/* work */
	uint8_t *nbond;         /* nseg bonds held */
	uint32_t *cand;         /* nseg * nmax candidates of each segment */
	double *cd2, *cm2;      /* their squared distances, and those
				   between the midpoints */
	double *cs, *ct;        /* their fractions */
	uint8_t *ncand;         /* nseg candidate counts */
	double *lo, *hi;        /* 3 nseg boxes */
	cloth_split *split;     /* NULL: one process; else set by the owner
				   (an MPI build's stage): each rank finds
				   the candidates of its own query blocks,
				   gathered to every rank (cloth_split.h) */
} stiction;

/* Set up for np particles and the nseg segments seg (2 nseg particle
 * indices, root side first), no bonds.  Fails on an index out of range,
 * a segment of one particle, a particle starting two segments, bad
 * parameters (eps_s not positive, eps_break < eps_s, nmax not in
 * 1..255, k or xi negative), out of memory.  0 / -1 with err. */
int stiction_init(stiction *st, size_t np, size_t nseg, const uint32_t *seg,
		  const stiction_params *p, slc_err *err);

void stiction_free(stiction *st);

/* Break every bond whose spring, between its embedded points at positions
 * x (3 np), is longer than eps_break.  Returns the number broken. */
size_t stiction_break(stiction *st, const double *x);

/* Make the new bonds at positions x: pairs of segments not sharing a
 * particle and not bonded yet, closer than eps_s, each among the other's
 * nmax - (bonds held) closest; embedded points at their closest points
 * (strand_seg_dist2).  Returns the number made, or -1 with err. */
long stiction_create(stiction *st, const double *x, slc_err *err);

/* The bonds as four-point springs of s (spring_set_four), weights
 * (-(1-s), -s, 1-t, t) on the particles of the two segments, rest length
 * and normalising length eps_s.  0 / -1 with err. */
int stiction_springs(const stiction *st, spring_set *s, slc_err *err);

/* Replace the bonds by the n bonds of arrays (the detail channels
 * stic_seg u32x2 and stic_frac f64x2): name[2b], name[2b + 1] the
 * rootward particles of the two segments, frac[2b], frac[2b + 1] the
 * fractions along them.  Fails (bonds unchanged) on a particle starting
 * no segment, fractions outside [0, 1] or not finite, a segment bonded
 * to itself or to one sharing a particle, a pair given twice, more than
 * nmax bonds on a segment.  0 / -1 with err. */
int stiction_load(stiction *st, size_t n, const uint32_t *name,
		  const double *frac, slc_err *err);

/* The bonds into arrays of 2 st->nb each, as stiction_load reads them. */
void stiction_save(const stiction *st, uint32_t *name, double *frac);

#endif
