/* stage_split.h: the ranks of an MPI build sharing cloth/'s fixed blocks
 * (cloth/cloth_split.h), for the stages whose every rank holds the whole
 * body (cloth_stage.h, hair_stage.h; selle2008 thesis §8.2).
 *
 * The gather of cloth_split is comm/wholeframe.h's in-place gather in
 * rank order.  The serial build, or one rank, has no split (NULL).
 */
#ifndef SLC_STAGE_SPLIT_H
#define SLC_STAGE_SPLIT_H

#include "cloth/cloth_split.h"
#include "core/comm.h"
#include "core/err.h"

/* The split of comm's ranks into *sp, and *out = sp; *out = NULL on one
 * rank (comm NULL, or one rank).  0, or -1 with err: more ranks than
 * CLOTH_SPLIT_MAX ("over N ranks: at most 64"), or comm given to the
 * serial build. */
int stage_split_open(cloth_split *sp, cloth_split **out, slc_comm *comm, slc_err *err);

#endif
