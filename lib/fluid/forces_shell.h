/* forces_shell.h: vorticity confinement next to thin shells with
 * one-sided differences (guendelman2005 §4.1: "non-visible neighbours"
 * take the object's velocity in the curl and the centre's value in the
 * gradient of |omega|), for forces_confinement_shell.
 */
#ifndef SLC_FORCES_SHELL_H
#define SLC_FORCES_SHELL_H

#include <stddef.h>

#include "core/err.h"
#include "grid/macgrid.h"
#include "shell/shell_track.h"
#include "shell/shell_vis.h"

/* The cells near the shells and their one-sided vorticity. */
typedef struct forces_shell_cells {
	size_t n;
	size_t *cell;           /* cell indices i + ni (j + nj k) */
	double *om;             /* 3 n: omega at each, followed in the same
				   allocation by n bytes (forces_shell_hidden):
				   bit 2 a + side set when the neighbour
				   across axis a (side 1: the + one) is
				   hidden from the cell's centre */
} forces_shell_cells;

/* The hidden-neighbour bits of C's cells (see om above), found once by
 * forces_shell_curl and used again by forces_shell_force. */
#define forces_shell_hidden(C) ((unsigned char *)((C)->om + 3 * (C)->n))

/* Find the cells of vel near sh (shell_near at their centres) and set
 * om (3 floats a cell, components apart: om[a][c]) and mag (|omega|) there
 * to the one-sided curl: a neighbour cell the centre cannot see takes the
 * velocity of the shell (trk) where the ray to it hits.  The cells and
 * their omega are kept in C for forces_shell_force.  0, or -1 with err
 * (memory). */
int forces_shell_curl(const macgrid *vel, const shell_set *sh, const shell_track *trk,
		      float *const om[3], float *mag, forces_shell_cells *C, slc_err *err);

/* The confinement force eps dx (N x omega) at the cells of C into fc,
 * with N from the gradient of mag in which a neighbour the centre cannot
 * see takes the centre's value (the visibility forces_shell_curl found
 * in sh, which must be the same set). */
void forces_shell_force(const macgrid *vel, const shell_set *sh, const forces_shell_cells *C,
			const float *mag, double eps, float *const fc[3]);

void forces_shell_cells_free(forces_shell_cells *C);

#endif
