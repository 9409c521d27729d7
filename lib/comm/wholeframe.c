/* wholeframe.c: a frame sent whole to every rank, and in-place gathers
 * of arrays in rank order (comm/wholeframe.h). */
#include "comm/wholeframe.h"
#include "comm/slabframe.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/slc.h"

/* What rank 0 says before the stream: whether it could make it, its
 * length, and its message when not. */
typedef struct bcast_head {
	uint64_t len;
	int32_t ok;
	char msg[SLC_ERR_MAX];
} bcast_head;

/* The records of the stream buf, len into F. */
static int
frame_unstream(char *buf, size_t len, slc_frame *F, slc_err *err)
{
	FILE *f = fmemopen(buf, len, "r");
	slc_reader *rd;
	int rc;

	if (!f)
		return slc_fail(err, "frame stream: cannot read it back");
	if (!(rd = slc_reader_open(f, err))) {
		fclose(f);
		return -1;
	}
	slc_reader_defer(rd, 1);
	rc = slc_frame_read(F, rd, err);
	slc_reader_close(rd);
	fclose(f);
	return rc;
}

int
slc_frame_bcast(slc_comm *c, slc_frame *F, slc_err *err)
{
	bcast_head h;
	char *buf = NULL;
	size_t len = 0;
	int rc = -1;

	memset(&h, 0, sizeof h);
	if (c->rank == 0) {
		h.ok = !slc_frame_stream(c, F, NULL, 0, &buf, &len, err);
		h.len = len;
		if (!h.ok)
			snprintf(h.msg, sizeof h.msg, "%s", err->msg);
	}
	if (slc_comm_bcast(c, &h, sizeof h, err))
		goto done;
	if (!h.ok) {
		if (c->rank)
			slc_fail(err, "on rank 0: %s", h.msg);
		goto done;
	}
	if (h.len > SIZE_MAX - 1) {
		slc_fail(err, "a frame of %llu bytes", (unsigned long long)h.len);
		goto done;
	}
	if (c->rank && !(buf = slc_malloc((size_t)h.len + 1, 1, err)))
		goto done;
	if (slc_comm_bcast(c, buf, (size_t)h.len, err))
		goto done;
	rc = c->rank ? frame_unstream(buf, (size_t)h.len, F, err) : 0;
done:
	free(buf);
	return rc;
}

int
slc_comm_gather_bytes(slc_comm *c, void *buf, const size_t *off, slc_err *err)
{
	char s[MPI_MAX_ERROR_STRING];
	int r, rc, n = 0;
	double t0;

	if (off[c->size] > INT_MAX)
		return slc_fail(err, "gather: %zu bytes past one message", off[c->size]);
	for (r = 0; r < c->size; r++) {
		c->cnt[r] = (int)(off[r + 1] - off[r]);
		c->disp[r] = (int)off[r];
	}
	t0 = slc_comm_time_begin();
	rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, buf, c->cnt, c->disp, MPI_BYTE, c->c);
	slc_comm_time_end(SLC_COMM_GATHER, t0, off[c->size]);
	if (rc == MPI_SUCCESS)
		return 0;
	if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
		n = 0;
	s[n] = 0;
	return slc_fail(err, "gather: MPI error: %s", s);
}
