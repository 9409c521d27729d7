/* shell_sweep.h: the samples of a grid that a moving thin shell passes
 * over during a step (guendelman2005 §3, selle2008 thesis §4.3): their
 * values came from the wrong side and are invalid until shell_fill
 * revalidates them.
 */
#ifndef SLC_SHELL_SWEEP_H
#define SLC_SHELL_SWEEP_H

#include <stddef.h>

#include "grid/field.h"
#include "shell/shell_track.h"

/* Mark (set to 1; marks already there stay) in bad, one byte per sample
 * of f, every sample that a triangle of t passes through while the
 * shells move from fraction s0 to fraction s1 of the frame, nodes on
 * straight lines: a time when the sample and the triangle's corners are
 * coplanar (ccd_coplanar_times, Bridson et al. 2002 as guendelman2005 §3
 * uses it) at which the sample lies in the triangle's wedge; and every
 * sample inside a wedge at s0 or at s1.  Returns how many samples it
 * marked that were not marked before. */
size_t shell_sweep_mark(const shell_track *t, double s0, double s1, const field *f,
			unsigned char *bad);

/* Does a point moving on a straight line from p0 (at fraction s0) to p1
 * (at s1) meet a shell of t in between: its segment blocked in the sets
 * at0 and at1 (t at s0 and s1), or the point in a triangle's wedge at a
 * time the two are coplanar (the point and the triangle both moving;
 * guendelman2005 §4.4.2's moving-triangle test for particles)?  Only the
 * triangles binned in the cubes around the path in at0 and at1 are
 * tested: a shell moving at most a cube per step cannot be missed. */
int shell_sweep_point(const shell_track *t, const shell_set *at0, const shell_set *at1,
		      double s0, double s1, const double p0[3], const double p1[3]);

#endif
