/* stage_split.c: cloth/'s blocks shared by the ranks of an MPI build
 * (stage_split.h). */
#include "stage/stage_split.h"

#include <string.h>

#ifdef SLC_MPI
#include "comm/wholeframe.h"

/* cloth_split's gather over the communicator ctx. */
static int
split_gather(void *ctx, void *buf, const size_t *off)
{
	slc_err err;

	return slc_comm_gather_bytes(ctx, buf, off, &err);
}
#endif

int
stage_split_open(cloth_split *sp, cloth_split **out, slc_comm *comm, slc_err *err)
{
	memset(sp, 0, sizeof *sp);
	*out = NULL;
#ifdef SLC_MPI
	if (!comm || comm->size == 1)
		return 0;
	if (comm->size > CLOTH_SPLIT_MAX)
		return slc_fail(err, "over %d ranks: at most %d (whole blocks of the work "
				"per rank)", comm->size, CLOTH_SPLIT_MAX);
	sp->rank = comm->rank;
	sp->size = comm->size;
	sp->ctx = comm;
	sp->gather = split_gather;
	*out = sp;
	return 0;
#else
	return slc_comm_serial(comm, err);
#endif
}
