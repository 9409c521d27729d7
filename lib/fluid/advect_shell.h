/* advect_shell.h: one-sided semi-Lagrangian advection next to thin shells
 * (guendelman2005 §4.1, selle2008 thesis §4.4.1).
 *
 * advect_field runs its scheme everywhere and then, when advect_opts
 * names shells, recomputes the samples in a band around them: each one
 * is traced back as usual, the trace is clipped against wedges 2 eps
 * thick so that its foot is visible, and the interpolation stencil's
 * samples that the foot cannot see (rays against eps wedges) are replaced
 * (shell_fill.h: the shell's velocity, 0 density, ambient temperature,
 * the level set's ring rule).  The band is where a characteristic, its
 * stencil or (for MacCormack and BFECC) the back and forth steps of the
 * correction could reach a shell.  Semi-Lagrangian samples of the band
 * all take the one-sided value; MacCormack and BFECC revert to it only
 * where one of their steps is blocked (guendelman2005 §4.1): the sample's
 * own trace or stencil, the back step's (MacCormack), the back steps of
 * the samples of its stencil (BFECC), or a step reading a sample whose
 * first step was blocked; elsewhere they keep the scheme's value.  Within
 * a first step's reach of a shell, a foot within 1e-4 of a cell of a
 * sample plane it moved across counts as blocked (the scheme's float
 * characteristics may pick the stencil on the plane's other side).
 * Samples outside the band keep the scheme's result bit for bit.
 */
#ifndef SLC_ADVECT_SHELL_H
#define SLC_ADVECT_SHELL_H

#include "core/err.h"
#include "fluid/advect.h"
#include "fluid/advect_lin.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "shell/shell_fill.h"
#include "shell/shell_vis.h"

/* Cube bands kept from one advect_shell_fix call to the next while the
 * shells stay where they are (every field of a substep): the lattice's
 * cubes within r cubes of one holding a triangle. */
#define ADVECT_SHELL_BANDS 4

typedef struct advect_shell_band {
	int valid;              /* 0: empty (set it to 0 whenever the set
				   changes) */
	int next;               /* the slot to fill next */
	int r[ADVECT_SHELL_BANDS];
	unsigned char *b[ADVECT_SHELL_BANDS];   /* owned; one byte a cube */
} advect_shell_band;

/* Free the bands of B and mark it empty. */
void advect_shell_band_free(advect_shell_band *B);

typedef struct advect_shell {
	const shell_set *set;   /* the shells at the start of the step; their
				   lattice must cover the grid */
	shell_fallback fb;      /* what hidden samples take; for
				   SHELL_FILL_VEL the component is the
				   field's face axis */
	size_t *count;          /* samples recomputed are added here, or
				   NULL (not with threads: one call at a
				   time) */
	advect_shell_band *band;        /* a cache of the cube bands for
				   the calls made while set stays the same,
				   or NULL (one call at a time, too) */
} advect_shell;

/* Recompute out (the result of o's scheme for q over dt) one-sided in
 * the band around o->shell where needed (see above), counting the
 * samples recomputed into *o->shell->count.  0, or -1 with err
 * (memory). */
int advect_shell_fix(const macgrid *vel, double dt, const field *q, field *out,
		     const advect_opts *o, slc_err *err);

/* The one-sided semi-Lagrangian value at x of q over dt through vel
 * (the foot clipped, hidden samples replaced by sh's fallback).  *blocked
 * (may be NULL) is set to 1 when the trace was clipped or a stencil
 * sample was hidden.  vel: the velocity as linmac_init makes it. */
double advect_shell_value(const linmac *vel, double dt, const field *q,
			  const advect_shell *sh, const double x[3], int *blocked);

#endif
