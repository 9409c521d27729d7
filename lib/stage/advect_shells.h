/* advect_shells.h: advect's thin shells (guendelman2005 §3-4, selle2008
 * thesis §4.3-4.4): the mesh records named by --shell, moving linearly
 * over the frame from their `P_prev` (x^n) to their `P` (x^{n+1}), or
 * still without `P_prev`; in each substep the advection of every field
 * one-sided next to them (fluid/advect_shell.h) with the shells where
 * the substep starts, then the samples they swept over invalidated and
 * refilled (shell/shell_sweep.h, shell/shell_fill.h) with the shells
 * where it ends, and marker particles kept from crossing them
 * (liquid/pls_shell.h).
 */
#ifndef SLC_ADVECT_SHELLS_H
#define SLC_ADVECT_SHELLS_H

#include <stddef.h>

#include "core/err.h"
#include "core/frame.h"
#include "fluid/advect_shell.h"
#include "grid/macgrid.h"
#include "liquid/pls_shell.h"
#include "shell/shell_track.h"
#include "shell/shell_vis.h"

/* How much of the shell handling runs (advect --shell-handling). */
enum advect_shell_mode {
	ADVECT_SHELL_ON = 0,            /* everything */
	ADVECT_SHELL_NO_SWEEP = 1,      /* no swept invalidation (a control) */
	ADVECT_SHELL_OFF = 2            /* the meshes read and checked, then
					   ignored (a control) */
};

/* Default wedge thickness, cells: guendelman2005 gives no value; a tenth
 * of a cell keeps the "fuzzy" over-occlusion (§3) well below a cell. */
#define ADVECT_SHELL_EPS 0.1

typedef struct advect_shells {
	int on;                 /* shells given and the mode not off */
	int mode;               /* enum advect_shell_mode */
	double ambient;         /* temperature behind a shell */
	shell_track trk;
	shell_set at0, at1;     /* the shells at the substep's start, end */
	double s0, s1;          /* their fractions of the frame */
	int have0;              /* at0 is built for s0 */
	int have1;              /* at1 is built for s1 (the next substep
				   starts from it) */
	advect_shell vel, phi, den, tem, other;
	advect_shell_band band; /* their cube bands, for at0 */
	pls_shell pls;
	size_t samples;         /* recomputed one-sided */
	size_t swept;           /* invalidated by the sweeps */
	size_t fallback;        /* refilled by the fallback */
	size_t culled;          /* marker particles removed */
} advect_shells;

/* Read the mesh records names[0..n-1] of F (`P` f32 or f64 x3, `tri` u32
 * x3, optional `P_prev` like `P`) into A for a frame of T seconds on the
 * cells of vel, wedges eps_cells thick.  0, or -1 with err ("no mesh
 * record 'NAME'", "shell 'NAME': ..."). */
int advect_shells_load(advect_shells *A, slc_frame *F, const char *const *names, size_t n,
		       int mode, double eps_cells, double ambient, double T,
		       const macgrid *vel, slc_err *err);

/* The shells' fastest node, m/s (their part of the CFL speed: a shell
 * moves at most the CFL's cells per substep, as the sweeps need). */
double advect_shells_speed(const advect_shells *A);

/* The shells at fraction s0 of the frame, where a substep starts (kept
 * for advect_shells_begin), or NULL when they are off; *err on failure
 * (NULL returned then too: check A->on). */
const shell_set *advect_shells_start(advect_shells *A, double s0, int *failed, slc_err *err);

/* Start a substep from fraction s0 to s1 of the frame: the shells at
 * both ends.  0, or -1 with err. */
int advect_shells_begin(advect_shells *A, double s0, double s1, slc_err *err);

/* The one-sided advection of the grid record named name (density,
 * temperature, the velocity "u", the level set "phi", any other), or
 * NULL when the shells are off. */
const advect_shell *advect_shells_for(advect_shells *A, const char *name);

/* After the substep's advection: the samples of f (a field of the record
 * named name, as advect_shells_for) swept over between s0 and s1 or in a
 * wedge at either end, invalid, refilled from their visible neighbours.
 * 0, or -1 with err. */
int advect_shells_sweep(advect_shells *A, field *f, const char *name, slc_err *err);

/* The shells where the substep ends (for the forces after the sweeps),
 * or NULL when they are off. */
const shell_set *advect_shells_end(const advect_shells *A);

void advect_shells_free(advect_shells *A);

#endif
