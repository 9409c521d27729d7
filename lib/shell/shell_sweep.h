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

#endif
