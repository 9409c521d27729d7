/* mpicomm.c: ranks, k slabs and ordered reductions (comm/mpicomm.h). */
#define _GNU_SOURCE             /* on_exit */
#include "comm/mpicomm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one MPI message at most: counts are ints. */
#define COMM_CHUNK ((size_t)1 << 30)

const char *const slc_comm_kind_name[SLC_COMM_NKIND] = { "halo", "reduce", "gather", "frame" };

/* The process's counts (one communicator a process), the nesting depth
 * of the timed calls, and the wall clock's start and end. */
static slc_comm_time times;
static int time_depth;
static uint64_t time_inner;     /* bytes of the calls inside the open one */
static double t_open, t_close = -1;

double
slc_comm_time_begin(void)
{
	return time_depth++ ? -1 : MPI_Wtime();
}

void
slc_comm_time_end(int kind, double t0, uint64_t bytes)
{
	if (--time_depth) {
		time_inner += bytes;
		return;
	}
	bytes += time_inner;
	time_inner = 0;
	if (t0 < 0 || kind < 0 || kind >= SLC_COMM_NKIND)
		return;
	times.calls[kind]++;
	times.bytes[kind] += bytes;
	times.sec[kind] += MPI_Wtime() - t0;
}

void
slc_comm_time_get(slc_comm_time *t)
{
	int fin = 0;

	*t = times;
	MPI_Finalized(&fin);
	t->wall = (t_close >= 0 ? t_close : fin ? t_open : MPI_Wtime()) - t_open;
}

/* An exit before slc_comm_close: the other ranks would wait forever in
 * their next collective; abort them all with this process's status. */
static void
abort_on_exit(int status, void *arg)
{
	int init = 0, fin = 0, size = 1;

	(void)arg;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (!init || fin)
		return;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 1)
		MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
	else
		MPI_Finalize();
}

static int
mpi_fail(int rc, const char *what, slc_err *err)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
		len = 0;
	s[len] = 0;
	return slc_fail(err, "%s: MPI error: %s", what, s);
}

slc_comm *
slc_comm_open(int *argc, char ***argv, slc_err *err)
{
	slc_comm *c;
	int got, rc;

	if ((rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &got)) != MPI_SUCCESS) {
		slc_fail(err, "MPI_Init failed (%d)", rc);
		return NULL;
	}
	on_exit(abort_on_exit, NULL);
	t_open = MPI_Wtime();
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (!(c = slc_calloc(1, sizeof *c, err)))
		return NULL;
	c->c = MPI_COMM_WORLD;
	MPI_Comm_rank(c->c, &c->rank);
	MPI_Comm_size(c->c, &c->size);
	if (!(c->cnt = slc_calloc((size_t)c->size, sizeof *c->cnt, err)) ||
	    !(c->disp = slc_calloc((size_t)c->size, sizeof *c->disp, err))) {
		slc_comm_close(c);
		return NULL;
	}
	return c;
}

void
slc_comm_close(slc_comm *c)
{
	int fin = 0;

	MPI_Finalized(&fin);
	if (!fin)
		t_close = MPI_Wtime();
	if (c) {
		free(c->k0);
		free(c->gbuf);
		free(c->cnt);
		free(c->disp);
		free(c);
	}
	if (!fin)
		MPI_Finalize();
}

int
slc_comm_thinnest(int nk, int size)
{
	int r, m = nk;

	for (r = 0; r < size; r++) {
		int t = (int)((long long)(r + 1) * nk / size - (long long)r * nk / size);

		m = t < m ? t : m;
	}
	return m;
}

int
slc_comm_slabs(slc_comm *c, int nk, int ghost, slc_err *err)
{
	int r, thin = slc_comm_thinnest(nk, c->size);

	if (ghost < 0 || nk < 1)
		return slc_fail(err, "bad slab decomposition: %d cells, %d ghost planes", nk, ghost);
	if (thin < ghost + 1)
		return slc_fail(err, "a slab of %d cells along k at %d ranks, thinner than %d "
				"ghost planes and one", thin, c->size, ghost);
	free(c->k0);
	if (!(c->k0 = slc_calloc((size_t)c->size + 1, sizeof *c->k0, err)))
		return -1;
	for (r = 0; r <= c->size; r++)
		c->k0[r] = (int)((long long)r * nk / c->size);
	c->nk = nk;
	c->ghost = ghost;
	return 0;
}

void
slc_comm_owned(const slc_comm *c, int *k0, int *k1)
{
	*k0 = c->k0[c->rank];
	*k1 = c->k0[c->rank + 1];
}

void
slc_comm_held(const slc_comm *c, int rank, int *lo, int *hi)
{
	int a = c->k0[rank] - c->ghost, b = c->k0[rank + 1] + c->ghost;

	*lo = a < 0 ? 0 : a;
	*hi = b > c->nk ? c->nk : b;
}

static int
reduce(slc_comm *c, void *v, int n, MPI_Datatype t, MPI_Op op, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = MPI_Allreduce(MPI_IN_PLACE, v, n, t, op, c->c), sz = 0;

	MPI_Type_size(t, &sz);
	slc_comm_time_end(SLC_COMM_REDUCE, t0, 2 * (uint64_t)n * (uint64_t)sz);
	return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "reduction", err);
}

int
slc_comm_max(slc_comm *c, double *v, int n, slc_err *err)
{
	return reduce(c, v, n, MPI_DOUBLE, MPI_MAX, err);
}

int
slc_comm_min(slc_comm *c, double *v, int n, slc_err *err)
{
	return reduce(c, v, n, MPI_DOUBLE, MPI_MIN, err);
}

int
slc_comm_imax(slc_comm *c, int *v, int n, slc_err *err)
{
	return reduce(c, v, n, MPI_INT, MPI_MAX, err);
}

int
slc_comm_lmin(slc_comm *c, int64_t *v, int n, slc_err *err)
{
	return reduce(c, v, n, MPI_INT64_T, MPI_MIN, err);
}

int
slc_comm_plane_sums(slc_comm *c, const double *part, int nsum, double *sum, slc_err *err)
{
	size_t need;
	int r, rc, s, k;
	double t0;

	if (slc_mul((size_t)c->nk, (size_t)nsum, &need) || need > INT_MAX)
		return slc_fail(err, "plane sums: %d planes of %d sums overflow", c->nk, nsum);
	if (need > c->gcap) {
		double *g = slc_malloc(need, sizeof *g, err);

		if (!g)
			return -1;
		free(c->gbuf);
		c->gbuf = g;
		c->gcap = need;
	}
	for (r = 0; r < c->size; r++) {
		c->cnt[r] = (c->k0[r + 1] - c->k0[r]) * nsum;
		c->disp[r] = c->k0[r] * nsum;
	}
	t0 = slc_comm_time_begin();
	rc = MPI_Allgatherv(part, c->cnt[c->rank], MPI_DOUBLE, c->gbuf, c->cnt, c->disp,
			    MPI_DOUBLE, c->c);
	slc_comm_time_end(SLC_COMM_REDUCE, t0, need * sizeof(double));
	if (rc != MPI_SUCCESS)
		return mpi_fail(rc, "plane sums", err);
	for (s = 0; s < nsum; s++) {
		double t = 0;

		for (k = 0; k < c->nk; k++)
			t += c->gbuf[(size_t)k * (size_t)nsum + (size_t)s];
		sum[s] = t;
	}
	return 0;
}

int
slc_comm_gather_planes(slc_comm *c, void *a, size_t pb, const int *own, slc_err *err)
{
	int r, rc;
	double t0;

	if (c->size == 1)
		return 0;
	if (pb && (size_t)own[c->size] > (size_t)INT_MAX / pb)
		return slc_fail(err, "gather: %d planes of %zu bytes overflow a message",
				own[c->size], pb);
	for (r = 0; r < c->size; r++) {
		c->cnt[r] = (int)((size_t)(own[r + 1] - own[r]) * pb);
		c->disp[r] = (int)((size_t)own[r] * pb);
	}
	t0 = slc_comm_time_begin();
	rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, a, c->cnt, c->disp, MPI_BYTE, c->c);
	slc_comm_time_end(SLC_COMM_GATHER, t0, (uint64_t)own[c->size] * pb);
	return rc == MPI_SUCCESS ? 0 : mpi_fail(rc, "gather of planes", err);
}

int
slc_comm_whole_planes(slc_comm *c, const void *slab, int k0, int nall, void *whole, size_t pb,
		      slc_err *err)
{
	int *own = slc_malloc((size_t)c->size + 1, sizeof *own, err), rc;

	if (!own)
		return -1;
	memcpy(own, c->k0, (size_t)c->size * sizeof *own);
	own[c->size] = nall;
	if (own[c->rank + 1] > own[c->rank])
		memcpy((char *)whole + (size_t)own[c->rank] * pb,
		       (const char *)slab + (size_t)(own[c->rank] - k0) * pb,
		       (size_t)(own[c->rank + 1] - own[c->rank]) * pb);
	rc = slc_comm_gather_planes(c, whole, pb, own, err);
	free(own);
	return rc;
}

enum { TAG_CHAIN = 31 };

int
slc_comm_chain_in(slc_comm *c, void *buf, size_t n, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = c->rank ? slc_comm_recv(c, buf, n, c->rank - 1, TAG_CHAIN, err) : 0;

	slc_comm_time_end(SLC_COMM_REDUCE, t0, 0);
	return rc;
}

int
slc_comm_chain_out(slc_comm *c, const void *buf, size_t n, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = c->rank < c->size - 1 ? slc_comm_send(c, buf, n, c->rank + 1, TAG_CHAIN, err) : 0;

	slc_comm_time_end(SLC_COMM_REDUCE, t0, 0);
	return rc;
}

int
slc_comm_chain_end(slc_comm *c, void *buf, size_t n, slc_err *err)
{
	char *p = buf;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;

	while (n) {
		size_t k = n < COMM_CHUNK ? n : COMM_CHUNK;
		int rc = MPI_Bcast(p, (int)k, MPI_BYTE, c->size - 1, c->c);

		if (rc != MPI_SUCCESS) {
			slc_comm_time_end(SLC_COMM_REDUCE, t0, all - n);
			return mpi_fail(rc, "chain broadcast", err);
		}
		p += k;
		n -= k;
	}
	slc_comm_time_end(SLC_COMM_REDUCE, t0, all);
	return 0;
}

int
slc_comm_bcast(slc_comm *c, void *buf, size_t n, slc_err *err)
{
	char *p = buf;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;

	while (n) {
		size_t m = n < COMM_CHUNK ? n : COMM_CHUNK;
		int rc = MPI_Bcast(p, (int)m, MPI_BYTE, 0, c->c);

		if (rc != MPI_SUCCESS) {
			slc_comm_time_end(SLC_COMM_FRAME, t0, all - n);
			return mpi_fail(rc, "broadcast", err);
		}
		p += m;
		n -= m;
	}
	slc_comm_time_end(SLC_COMM_FRAME, t0, all);
	return 0;
}

int
slc_comm_send(slc_comm *c, const void *buf, size_t n, int to, int tag, slc_err *err)
{
	const char *p = buf;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;

	do {
		size_t m = n < COMM_CHUNK ? n : COMM_CHUNK;
		int rc = MPI_Send(p, (int)m, MPI_BYTE, to, tag, c->c);

		if (rc != MPI_SUCCESS) {
			slc_comm_time_end(SLC_COMM_FRAME, t0, all - n);
			return mpi_fail(rc, "send", err);
		}
		p += m;
		n -= m;
	} while (n);
	slc_comm_time_end(SLC_COMM_FRAME, t0, all);
	return 0;
}

int
slc_comm_recv(slc_comm *c, void *buf, size_t n, int from, int tag, slc_err *err)
{
	char *p = buf;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;

	do {
		size_t m = n < COMM_CHUNK ? n : COMM_CHUNK;
		int rc = MPI_Recv(p, (int)m, MPI_BYTE, from, tag, c->c, MPI_STATUS_IGNORE);

		if (rc != MPI_SUCCESS) {
			slc_comm_time_end(SLC_COMM_FRAME, t0, all - n);
			return mpi_fail(rc, "receive", err);
		}
		p += m;
		n -= m;
	} while (n);
	slc_comm_time_end(SLC_COMM_FRAME, t0, all);
	return 0;
}
