/* halo.h: the ghost planes of a rank's slab refreshed from their owners
 * (comm/mpicomm.h, "k slabs").
 *
 * A slab record (core/slc.h: a grid record with nk_all > 0) holds the
 * sample planes k0 .. k0+nk-1 of its grid; those below the rank's first
 * owned plane come from the rank below, those from its first unowned
 * plane up from the rank above.  Every channel of the record is one
 * block of contiguous planes, so a halo is one message per channel and
 * neighbour, sent from and received into the record's own samples.
 */
#ifndef SLC_HALO_H
#define SLC_HALO_H

#include "comm/mpicomm.h"
#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"

/* Refresh the ghost planes of the slab records r[0..n-1] (decoded, cut
 * by slc_comm_slabs of c for their cells: every rank passes the same
 * records in the same order).  Collective.  0, or -1 with err (MPI, a
 * record that is not such a slab). */
int slc_halo(slc_comm *c, slc_rec *const *r, size_t n, slc_err *err);

/* The same for one array a of the cell planes this rank holds
 * (slc_comm_held: its slab with c->ghost planes each side), pb bytes a
 * plane, grid order: a solver's vectors and coefficients.  Collective;
 * 0, or -1 with err. */
int slc_halo_cells(slc_comm *c, void *a, size_t pb, slc_err *err);

/* The same for another cut of a grid of ncell planes along k over c's
 * ranks (a coarse level of a solver): rank r owns the planes own[r] ..
 * own[r+1]-1 (own: size + 1 entries from 0 to ncell), every slab at
 * least `ghost` planes thick, and holds a: its planes with `ghost` more
 * each side, clipped to the grid, pb bytes a plane.  Only the `width`
 * ghost planes (at most ghost) nearest its own are refreshed on each
 * side: what a stencil of that reach needs.  Collective; 0, or -1 with
 * err (a slab too thin, MPI). */
int slc_halo_cut(slc_comm *c, void *a, size_t pb, const int *own, int ncell, int ghost,
		 int width, slc_err *err);

/* slc_halo of every slab record of F. */
int slc_halo_frame(slc_comm *c, slc_frame *F, slc_err *err);

/* The sample planes of slab record r this rank owns, [*lo, *hi) in the
 * whole grid's numbering: its cells' planes, and on the last rank the
 * planes past the last cell (the top faces or nodes). */
void slc_halo_owned(const slc_comm *c, const slc_rec *r, int *lo, int *hi);

#endif
