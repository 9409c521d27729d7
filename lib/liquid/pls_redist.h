/* pls_redist.h: redistancing a liquid level set without moving its zero
 * crossing.
 *
 * Enright et al. 2002 (as guendelman2005 §4.4.2 uses it) count on the
 * reinitialization to keep the interface where advection and the particle
 * correction put it: every shift of the crossing is volume the particles
 * have to win back.  The seeding of redistance.h (the distance to the
 * crossings found along the axes) is exact for a plane but pulls a
 * curved interface inwards on its convex side by a fraction of a cell
 * every time it runs, which a small drop feels at once (a sphere of 3
 * cells loses 16% of its volume in ten passes).  Here a sample beside the
 * interface keeps its value when phi is close to a distance there
 * (|grad phi| in [1/2, 2]), so the crossing does not move at all, and is
 * scaled to |phi| / |grad phi| otherwise (the first-order distance
 * estimate near the interface, as in Chopp 2001); the rest is fast
 * marched from those samples as before.
 */
#ifndef SLC_PLS_REDIST_H
#define SLC_PLS_REDIST_H

#include "core/err.h"
#include "grid/field.h"
#include "shell/shell_vis.h"

/* Reinitialize phi (any staggering, uniform spacing phi->dx) in place to
 * signed distance within width metres (+-width beyond; width <= 0 or
 * INFINITY: the whole grid).  A sample with a neighbour of the other sign
 * along an axis keeps |phi| if 1/2 <= |grad phi| <= 2 (central
 * differences, one-sided at the grid's edge), else gets |phi| / |grad
 * phi|; either is bounded by the distance to the nearest crossing found
 * along an axis by linear interpolation (the interface is at least that
 * close).  Every other sample is fast-marched from them (fmm.h).
 * Signs are kept.  No sign change: phi is left unchanged.  0, or -1 with
 * err (sizes, memory). */
int pls_redistance(field *phi, double width, slc_err *err);

/* pls_redistance next to thin shells sh (NULL: none): the seeds of
 * guendelman2005 §4.4.1 (near_distance in pls_redist.c): no crossing is
 * seen through a shell, a liquid sample beside one is a seed at
 * min(distance to it, |phi|); the march takes no step through a shell
 * (fmm_march_sees). */
int pls_redistance_shell(field *phi, double width, const shell_set *sh, slc_err *err);

#endif
