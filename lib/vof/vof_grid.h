/* vof_grid.h: the partitioned two-way coupling of the water on the KDSM
 * with the background grid's liquid (lee2019 §4, its ordered list): the
 * grid's water seen by backward samples that leave the mesh (§3.2), the
 * grid's liquid taken into the tets fully inside it, the grid's projected
 * velocity copied back into them, particles absorbed into wet tets, and
 * the mesh's velocity optionally blended into the grid.  Once a step, in
 * that order, no iteration: the `vofstep` stages call one function each
 * (HACKING.md, "The frame pipe of water on a character"). */
#ifndef SLC_VOF_GRID_H
#define SLC_VOF_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "vof/vof.h"

/* The grid a step sees: either member may be NULL (no liquid, no
 * velocity).  Fields are only read here, except by vof_to_grid. */
typedef struct vof_grid {
	const field *phi;       /* liquid level set, cell-centred, m */
	const macgrid *vel;     /* MAC velocity, m/s */
} vof_grid;

/* A vof_grid_fn (vof.h) over ctx = a vof_grid: the liquid fraction at x,
 * H(-phi) smeared over one cell, clamp(1/2 - phi/dx, 0, 1) (not from the
 * paper, which writes H: the fraction of a cell a plane through it would
 * fill, so that a sample on the surface copies half), 0 without phi; the
 * grid velocity at x into u (0 without one). */
double vof_grid_sample(void *ctx, const double x[3], double u[3]);

/* Is tet t of m "fully inside the liquid" (§4: grid water is taken only
 * there): live, not cut by the skin, cap > 0, phi < 0 at its four nodes.
 * 0 without phi. */
int vof_grid_inside(const kdsm_mesh *m, const vof_grid *g, size_t t);

/* §4 step 2, grid to VOF: every tet fully inside the liquid gets W = cap
 * and u = the grid velocity at its centroid (an overwrite, not an
 * average: it brings back the circulation §3.3's correction removes).
 * Adds cap - W of each to L->grid_fill (negative where a tet held more),
 * counts them in L->n_filled.  Parallel per tet, summed in tet order. */
void vof_grid_take(const kdsm_mesh *m, vof_state *s, const vof_grid *g, vof_ledger *L);

/* §4 step 5: the projected grid velocity at the centroid overwrites u of
 * every wet tet fully inside the liquid; volume untouched.  Counts them
 * in L->n_overwritten. */
void vof_grid_velocity(const kdsm_mesh *m, vof_state *s, const vof_grid *g, vof_ledger *L);

/* §4 step 2: particles absorbed into wet tets.  Particle q (position P,
 * velocity v, volume vol, m^3, >= 0) lying in a live tet with W > 0 is
 * added to it with its momentum (W u + vol v), gone[q] set and vol added
 * to L->particles_in; the others are left (gone[q] = 0).  Located in
 * parallel, added in particle order: the same bytes for any number of
 * threads.  0, or -1 with err (memory). */
int vof_absorb(const kdsm_mesh *m, vof_state *s, size_t n, const double *P, const double *v,
	       const double *vol, uint8_t *gone, vof_ledger *L, slc_err *err);

/* §4 step 2, optional, VOF to grid: the mean velocity ubar = sum W u /
 * sum W of the wet live tets whose centroid lies in a face's dual cell
 * (the cell of side dx centred on the face), blended in as u_f = (1 -
 * beta) u_f + beta ubar (notes §2.2; the paper averages with an artist's
 * multiplier and overwrites: beta 1).  beta in [0, 1].  Faces with no wet
 * tet are left.  The number of faces changed into *nf.  0, or -1 with
 * err (memory, beta out of range). */
int vof_to_grid(const kdsm_mesh *m, const vof_state *s, macgrid *vel, double beta, size_t *nf,
		slc_err *err);

#endif
