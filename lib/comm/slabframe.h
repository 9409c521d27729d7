/* slabframe.h: a frame cut into k slabs and put back together (the MPI
 * builds' frames in and out, comm/mpicomm.h).
 *
 * Rank 0 reads and checks the whole frame as the serial tool does; every
 * grid record on the cells of a reference grid record (the velocity 'u':
 * same cell dims, origin and dx, any staggering) is cut into each rank's
 * slab with its ghost planes (a slab record, core/slc.h's k0 and nk_all),
 * every other record is copied whole to every rank (still encoded when it
 * was).  The records go as a stream (core/slc.h) over MPI, so that a rank
 * reads its frame with the reader of every tool.  Back: each rank's owned
 * planes of a slab record are gathered into the whole record on rank 0,
 * which writes the frame.
 */
#ifndef SLC_SLABFRAME_H
#define SLC_SLABFRAME_H

#include "comm/mpicomm.h"
#include "comm/mpiio.h"
#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"

/* The frame F as a stream into *buf, *len (malloc'd, freed on failure):
 * every record as read, except those marked in cut (NULL: none), which
 * go as rank `rank`'s slab of them.  0, or -1 with err. */
int slc_frame_stream(const slc_comm *c, slc_frame *F, const unsigned char *cut, int rank,
		     char **buf, size_t *len, slc_err *err);

/* Cut F (rank 0's whole frame; unused elsewhere) into L (empty) on every
 * rank: slabs of the cells of F's grid record named `by`, with `ghost`
 * planes (slc_comm_slabs: a slab too thin is the error, on every rank).
 * Collective.  0, or -1 with err on every rank (rank 0's message about
 * the frame, "no grid record 'u'", or "on rank 0: ..." elsewhere). */
int slc_slab_scatter(slc_comm *c, slc_frame *F, const char *by, int ghost, slc_frame *L,
		     slc_err *err);

/* slc_slab_scatter of a frame read in place (--mpi-io; io NULL: as
 * slc_slab_scatter): F and io as slc_io_scan left them on rank 0 (io
 * empty elsewhere, filled from rank 0's), io's file open on every rank
 * (slc_io_open).  The records io holds the heads of are not sent: every
 * rank reads its slab of them itself (slc_io_read_slab: crc and values
 * checked), and they take their places in L. */
int slc_slab_scatter_io(slc_comm *c, slc_frame *F, slc_io *io, const char *by, int ghost,
			slc_frame *L, slc_err *err);

/* Rank 0: the whole grid record of slab record loc (every rank passing
 * its slab of one record, in the same order) into out (empty; rank 0
 * only, NULL elsewhere): its kind, name, time and channels, each plane
 * from its owner.  Collective.  0, or -1 with err (memory, MPI). */
int slc_slab_gather(slc_comm *c, const slc_rec *loc, slc_rec *out, slc_err *err);

#endif
