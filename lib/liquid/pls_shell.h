/* pls_shell.h: marker particles kept on their side of thin shells
 * (guendelman2005 §4.4.2: "no particle crosses the sheet").
 */
#ifndef SLC_PLS_SHELL_H
#define SLC_PLS_SHELL_H

#include <stddef.h>

#include "liquid/pls.h"
#include "shell/shell_track.h"
#include "shell/shell_vis.h"

/* The shells over one substep. */
typedef struct pls_shell {
	const shell_track *trk;
	const shell_set *at0, *at1;     /* the shells at the substep's start
					   and end (the same set for a still
					   one) */
	double s0, s1;                  /* their fractions of the frame */
} pls_shell;

/* Remove the particles of s whose move over the substep, from x0 (3 n
 * floats, their places before it, in s's order) to where they are now,
 * meets a shell (shell_sweep_point): guendelman2005 §4.4.2 deletes a
 * particle that hits an object rather than let it correct the level set
 * on the wrong side.  Returns how many were removed. */
size_t pls_shell_cull(pls_set *s, const float *x0, const pls_shell *sh);

#endif
