/* fmm.h: fast marching of an unsigned distance on a uniform grid.
 *
 * The distance is extended from a set of frozen samples (whose values are
 * trusted, e.g. exact distances in a narrow band) to the rest of the grid
 * by solving |grad d| = 1 with the first-order upwind scheme in increasing
 * order of d (Sethian's fast marching method; the reinitialization step 4
 * of houston2003 §3.1).  Optionally each sample also inherits a source id
 * (e.g. the closest triangle) from the neighbour that fixed its value, the
 * nearest-point extension used for occlusion velocities.
 */
#ifndef SLC_FMM_H
#define SLC_FMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Grid of ni*nj*nk samples a[i + ni*(j + nj*k)], spacing dx (metres).
 * d: on input, values >= 0 at samples with frozen[c] != 0 (others are
 * ignored); on output, frozen values unchanged and every other sample set
 * to its fast-marching distance, or to dmax if that exceeds dmax (pass
 * INFINITY to march the whole grid).  src (may be NULL): read at frozen
 * samples, written at every other sample (-1 where the march stopped at
 * dmax).  Ties in the marching order go to the lower flat index, so the
 * result is deterministic.  Fails (-1, err) with no frozen sample, bad
 * sizes or out of memory. */
int fmm_march(int ni, int nj, int nk, double dx, float *d,
	      const uint8_t *frozen, int32_t *src, double dmax, slc_err *err);

/* Chooses a sample's source among the distinct sources of its accepted
 * neighbours (n >= 1 candidates); returns one of them.  For a mesh the
 * best choice is the triangle closest to the sample, which keeps the
 * extension from drifting to the wrong triangle far from the surface. */
typedef int32_t (*fmm_choose_fn)(void *ctx, size_t cell, const int32_t *cand,
				 int n);

/* fmm_march with the source of each sample chosen by fn when it is
 * accepted (instead of that of its smallest accepted neighbour).  fn
 * must be deterministic. */
int fmm_march_choose(int ni, int nj, int nk, double dx, float *d,
		     const uint8_t *frozen, int32_t *src, fmm_choose_fn fn,
		     void *ctx, double dmax, slc_err *err);

/* Can sample b take part in the update of its neighbour a (flat
 * indices)?  Read-only; for marches that must not cross thin shells. */
typedef int (*fmm_sees_fn)(void *ctx, size_t a, size_t b);

/* fmm_march_choose in which a sample's update uses only the accepted
 * neighbours b with sees(sctx, a, b) (sees NULL: all), guendelman2005
 * §4.4.1's march that "skips non-visible neighbours"; a sample no
 * visible neighbour reaches ends at dmax. */
int fmm_march_sees(int ni, int nj, int nk, double dx, float *d,
		   const uint8_t *frozen, int32_t *src, fmm_choose_fn fn,
		   void *ctx, fmm_sees_fn sees, void *sctx, double dmax, slc_err *err);

#endif
