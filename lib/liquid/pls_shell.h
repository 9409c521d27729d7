/* pls_shell.h: marker particles kept on their side of thin shells
 * (guendelman2005 §4.4.2: "no particle crosses the sheet").
 */
#ifndef SLC_PLS_SHELL_H
#define SLC_PLS_SHELL_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
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
	int sweep;                      /* invalidate and refill what the
					   shells swept over (pls_shell_sweep) */
	size_t swept, fallback;         /* counts of pls_shell_sweep */
} pls_shell;

/* The particles of s whose move over the substep, from x0 (3 n floats,
 * their places before it, in s's order) to where they are now, meets a
 * shell (shell_sweep_point), after guendelman2005 §4.4.2: a positive one
 * is removed; a negative one is put back on the side of the triangle it
 * started on, its radius (the collision distance) off the triangle's
 * plane at the substep's end, moved along the triangle's normal (a
 * sheet pushes the water's markers ahead of it), and removed only if
 * that place is not clear (a shell sweeps over it or the segment to it
 * crosses one).  Returns how many were removed. */
size_t pls_shell_cull(pls_set *s, const float *x0, const pls_shell *sh);

/* Remove the particles of s on the wrong side of the one-sided level
 * set phi (shell_sample with the ring rule, in the shells at the
 * substep's end): guendelman2005 §4.4.2 reseeds "ignoring the object"
 * and then deletes the particles of the wrong sign, which next to a
 * shell only a one-sided phi can tell.  Returns how many. */
size_t pls_shell_wrong_side(pls_set *s, const field *phi, const pls_shell *sh);

/* The level set's samples swept over by the shells during the substep
 * (or in a wedge at either end) invalid, refilled from their visible
 * neighbours (shell_sweep_mark, shell_fill; guendelman2005 §3), when
 * sh->sweep; counted into sh->swept and sh->fallback.  0, or -1 with err
 * (memory). */
int pls_shell_sweep(field *phi, pls_shell *sh, slc_err *err);

#endif
