/* stage_split.c: cloth/'s blocks shared by the ranks of an MPI build
 * (stage_split.h). */
#include "stage/stage_split.h"

#include <limits.h>
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

/* The tag of cloth_split's swaps. */
enum { TAG_SPLIT_SWAP = 51 };

/* cloth_split's point to point over the communicator ctx: every
 * receive posted, then every send, then all awaited; counted as a halo
 * exchange in the -v line (comm/mpicomm.h). */
static int
split_swap(void *ctx, int npeer, const int *peer, void *const *sbuf,
	   const size_t *sbytes, void *const *rbuf, const size_t *rbytes)
{
	slc_comm *c = ctx;
	MPI_Request req[2 * CLOTH_SPLIT_MAX];
	uint64_t bytes = 0;
	int nreq = 0, rc = MPI_SUCCESS;
	double t0;

	for (int k = 0; k < npeer; k++)
		if (sbytes[k] > INT_MAX || rbytes[k] > INT_MAX)
			return -1;
	t0 = slc_comm_time_begin();
	for (int k = 0; k < npeer && rc == MPI_SUCCESS; k++)
		if (rbytes[k]) {
			rc = MPI_Irecv(rbuf[k], (int)rbytes[k], MPI_BYTE, peer[k],
				       TAG_SPLIT_SWAP, c->c, &req[nreq++]);
			bytes += rbytes[k];
		}
	for (int k = 0; k < npeer && rc == MPI_SUCCESS; k++)
		if (sbytes[k]) {
			rc = MPI_Isend(sbuf[k], (int)sbytes[k], MPI_BYTE, peer[k],
				       TAG_SPLIT_SWAP, c->c, &req[nreq++]);
			bytes += sbytes[k];
		}
	if (rc == MPI_SUCCESS)
		rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
	slc_comm_time_end(SLC_COMM_HALO, t0, bytes);
	return rc == MPI_SUCCESS ? 0 : -1;
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
	sp->swap = split_swap;
	*out = sp;
	return 0;
#else
	return slc_comm_serial(comm, err);
#endif
}
