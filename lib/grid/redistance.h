/* redistance.h: reinitialize a level set to signed distance.
 *
 * The samples next to the zero crossing get their distance to the
 * linearly interpolated interface (so the crossing stays where it was, to
 * a small fraction of dx); every other sample gets the fast-marching
 * distance from them (fmm.h; houston2003 §3.1 step 4, "smoothed via a
 * standard re-initialization algorithm").  Used by mklevelset --redistance
 * and by any stage that needs its level set made a distance again.
 */
#ifndef SLC_REDISTANCE_H
#define SLC_REDISTANCE_H

#include "core/err.h"
#include "grid/field.h"

/* Reinitialize phi (any staggering; samples on a uniform grid of spacing
 * phi->dx) in place to signed distance, negative inside.  The sign of
 * every sample is kept (phi < 0 inside, phi >= 0 outside).  A sample with
 * a neighbour of the other sign along an axis gets the distance to the
 * interface found by linear interpolation along each such axis,
 * d = 1 / sqrt(sum_a 1/theta_a^2) (exact for a planar interface); the rest
 * are fast-marched from those.  Samples farther than width (metres) are
 * set to +-width; width <= 0 or INFINITY marches the whole grid.  A field
 * with no sign change is left unchanged (there is no interface to measure
 * from).  Fails only on bad sizes or memory. */
int redistance(field *phi, double width, slc_err *err);

/* The level set of the grid record r (its channel named like it, or its
 * only channel) redistanced as above, width in cells of r, into the new
 * record out (empty before; the caller frees it), named and timed like r.
 * 0, or -1 with err (out left empty). */
int redistance_rec(const slc_rec *r, double width, slc_rec *out, slc_err *err);

#endif
