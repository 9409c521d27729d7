/* strand_self.h: the strand/strand interactions of hair on a mass-spring
 * body (masspring.h), selle2008 thesis §7.5.2-7.5.3: stiction springs in
 * the implicit system (stiction.h), history-based edge/edge repulsions
 * and swept edge/edge collisions without impact zones (collide_self.h in
 * its strand mode), the collisions of bonded pairs detected but not
 * answered.
 *
 * Where it goes in the step (the outer collision loop of §6.3, §7.4): per
 * collision step of k_i time steps of length dt, span = k_i dt,
 *   A  strand_self_begin(ss, span): stiction breaks then makes bonds at
 *      the (collision-free) positions ms->x and rebuilds the springs and
 *      the system's block sparsity when they changed; the repulsion pairs
 *      and their history; remembers ms->x as the start of the step;
 *   B  k_i calls of masspring_step, with strand_self_repulse as the
 *      masspring_hooks repulse (its ctx the strand_self; an owner with a
 *      ctx of its own calls it from its hook with the strand_self);
 *   C  strand_self_end(ss, span): the straight paths from the start to
 *      ms->x made collision free as far as coll_iters passes go; moved
 *      particles take the velocity of their path.
 */
#ifndef SLC_STRAND_SELF_H
#define SLC_STRAND_SELF_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/collide_self.h"
#include "cloth/masspring.h"
#include "cloth/stiction.h"
#include "core/err.h"

typedef struct strand_self_params {
	double thickness;       /* repulsion thickness h, m */
	double k_rep;           /* repulsion stiffness, N/m (eq. 6.1) */
	double mu_self;         /* strand/strand friction */
	int coll_iters;         /* step C passes before stopping */
	int repulse;            /* B.2, B.8 repulsions on (1) */
	int collide;            /* step C on (1) */
	int stiction;           /* stiction on (1) */
	stiction_params stic;
} strand_self_params;

/* Counters since strand_self_init. */
typedef struct strand_self_stats {
	long pairs;             /* repulsion pairs found in steps A */
	long collisions;        /* collisions answered in steps C */
	long unresolved;        /* pairs still colliding when a step C
				   stopped (not an error: §7.5.3) */
	long skipped;           /* collisions of bonded pairs, not answered */
	long made, broken;      /* stiction bonds */
	size_t bonds;           /* bonds now */
} strand_self_stats;

typedef struct strand_self {
	strand_self_params par;
	masspring *ms;          /* borrowed */
	collide_self *cs;
	stiction stic;
	int has_stic;
	double *xs;             /* 3np: positions at the start of the step */
	uint8_t *moved;         /* np */
	strand_self_stats st;
} strand_self;

/* Set up on the body ms (borrowed: it must outlive ss, and its particle
 * count must not change) for the nseg strand segments seg (2 nseg
 * particle indices, root side first; a particle starts at most one
 * segment; hair: the axis segments), copied.  0 / -1 with err. */
int strand_self_init(strand_self *ss, masspring *ms, size_t nseg,
		     const uint32_t *seg, const strand_self_params *p,
		     slc_err *err);

void strand_self_free(strand_self *ss);

/* Bonds of a frame before (stiction_load's arrays) into the stiction and
 * the springs of ms.  0 / -1 with err (stiction off, bad bonds, out of
 * memory; then the bonds are as before). */
int strand_self_load(strand_self *ss, size_t n, const uint32_t *name,
		     const double *frac, slc_err *err);

/* Step A at ms->x, ms->v over span seconds (see above).  0 / -1 with err
 * (out of memory: the body's system may then be unusable; stop). */
int strand_self_begin(strand_self *ss, double span, slc_err *err);

/* masspring_hooks repulse: ctx is the strand_self. */
void strand_self_repulse(void *ctx, const double *x, double *v, double dt,
			 int elastic);

/* Step C over span seconds from the positions strand_self_begin kept to
 * ms->x (see above).  0 / -1 with err (out of memory only). */
int strand_self_end(strand_self *ss, double span, slc_err *err);

#endif
