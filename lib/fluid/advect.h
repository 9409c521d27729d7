/* advect.h: moving grid fields and points through a MAC velocity.
 *
 * selle2008 thesis ch. 2: the semi-Lagrangian step (§2.3) with a second
 * order (midpoint, RK2) characteristic, and the MacCormack and BFECC
 * schemes built from semi-Lagrangian steps (§2.4), with the extrema limiter
 * of §2.7 (clamping, or reversion to the first order result) and the
 * reversion to first order near solid walls of §2.9.  Any staggering
 * (cell, node, face) is advected: every sample is traced back from its own
 * position and the field is interpolated trilinearly (lib/grid/field.h).
 */
#ifndef SLC_ADVECT_H
#define SLC_ADVECT_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "fluid/advect_pool.h"

enum advect_scheme {
	ADVECT_SL = 0,          /* one semi-Lagrangian step, first order */
	ADVECT_MACCORMACK = 1,  /* two steps: forward, backward, correction */
	ADVECT_BFECC = 2        /* three steps: forward, backward, forward */
};

enum advect_limiter {
	ADVECT_LIMIT_REVERT = 0,  /* new extremum: take the first SL result */
	ADVECT_LIMIT_CLAMP = 1,   /* new extremum: clamp to the SL stencil */
	ADVECT_LIMIT_NONE = 2     /* no limiting (may oscillate) */
};

struct advect_shell;            /* fluid/advect_shell.h */

typedef struct advect_opts {
	int scheme;             /* enum advect_scheme */
	int limiter;            /* enum advect_limiter */
	const field *solid;     /* solid level set, negative inside; or NULL */
	int walls;              /* the faces of the velocity's grid box are
				   solid walls (axes with one cell excepted) */
	double vmax;            /* speed bound (m/s) for the reversion band;
				   <= 0: computed from the velocity */
	advect_pool *pool;      /* temporaries from here; NULL: allocated
				   and freed per call */
	const struct advect_shell *shell;       /* thin shells: one-sided
				   first order near them (advect_shell.h);
				   NULL: none */
} advect_opts;

typedef struct advect_stats {
	size_t samples;         /* samples updated */
	size_t limited;         /* samples where the limiter acted */
	size_t near_wall;       /* samples reverted to first order near solids */
} advect_stats;

/* Default options: MacCormack, reversion limiter, no solid, no walls,
 * no pool. */
void advect_opts_default(advect_opts *o);

/* The foot of the characteristic through x over time dt (seconds; a
 * negative dt traces forward): midpoint rule, xm = x - dt/2 V(x),
 * xb = x - dt V(xm).  Positions in metres. */
void advect_trace(const macgrid *vel, const double x[3], double dt,
		  double xb[3]);

/* One semi-Lagrangian step (thesis §2.3): out(X) = I(q, trace(X, dt)) for
 * every sample X of out.  out must have the placement of q and distinct
 * storage.  If lo and hi are not NULL they receive, per sample, the
 * minimum and maximum of the q samples of the interpolation stencil (the
 * bounds of the §2.7 limiter).  Never fails. */
void advect_sl(const macgrid *vel, double dt, const field *q, field *out,
	       float *lo, float *hi);

/* Advect q over dt with the scheme, limiter and wall reversion of o into
 * out (allocated by the caller with the placement of q, distinct from q).
 * vel must pass mac_check and must not share storage with q or out.
 * stats may be NULL.  0, or -1 with err (placement mismatch, memory). */
int advect_field(const macgrid *vel, double dt, const field *q, field *out,
		 const advect_opts *o, advect_stats *stats, slc_err *err);

/* Move n points P (x,y,z interleaved, metres) forward over dt through the
 * velocity with the midpoint rule.  Never fails. */
void advect_points(const macgrid *vel, double dt, float *P, size_t n);

/* --- limiter helpers (advect_limiter.c) ----------------------------- */

/* The thesis §2.7 limiter applied to one corrected value c, given the
 * first order value sl and the stencil bounds: returns c, the clamped c,
 * or sl; *hit is set to 1 when c lay outside [lo, hi]. */
double advect_limit(int limiter, double c, double sl, double lo, double hi,
		    int *hit);

#endif
