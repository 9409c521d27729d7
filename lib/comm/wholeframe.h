/* wholeframe.h: a frame held whole by every rank, and arrays shared in
 * rank order (the MPI builds of the stages whose every rank holds all
 * the data: clothstep and hairstep, selle2008 thesis §8.2).
 *
 * Rank 0 reads and checks the frame as the serial tool does and sends it
 * to every rank as a stream (core/slc.h), read back with the reader of
 * every tool; each rank then computes its share of the work, and the
 * shares are gathered in place in rank order, so that every rank ends
 * with the same bits.
 */
#ifndef SLC_WHOLEFRAME_H
#define SLC_WHOLEFRAME_H

#include <stddef.h>

#include "comm/mpicomm.h"
#include "core/err.h"
#include "core/frame.h"

/* F (rank 0's frame as read; empty elsewhere) onto every rank: the same
 * records, still encoded where they were.  Collective.  0, or -1 with
 * err on every rank ("on rank 0: ..." elsewhere when rank 0 failed). */
int slc_frame_bcast(slc_comm *c, slc_frame *F, slc_err *err);

/* In place on every rank: rank q's bytes buf[off[q] .. off[q + 1]) (off:
 * size + 1 offsets, the same on every rank) from rank q to every rank.
 * Collective.  0, or -1 with err (the buffer past an int's count, MPI). */
int slc_comm_gather_bytes(slc_comm *c, void *buf, const size_t *off, slc_err *err);

#endif
