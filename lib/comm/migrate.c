/* migrate.c: particles owned by slabs, migrated, their serial order
 * replayed and gathered (comm/migrate.h). */
#include "comm/migrate.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_GATHER = 41 };

/* Elements of one reduction call at most: counts are ints. */
#define FOLD_CHUNK ((size_t)1 << 28)

static int
mpi_err(int rc, const char *what, slc_err *err)
{
	return rc == MPI_SUCCESS ? 0 : slc_fail(err, "%s: MPI error %d", what, rc);
}

int
slc_comm_owner(const slc_comm *c, int k)
{
	int lo = 0, hi = c->size - 1;

	/* the last rank r with k0[r] <= k */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (c->k0[mid] <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* counts[r] bytes of `size` items as int counts and displacements into
 * cnt, disp; the total items in *tot.  -1 with err past an int. */
static int
byte_counts(const size_t *items, int size_ranks, size_t size, int *cnt, int *disp, size_t *tot,
	    slc_err *err)
{
	size_t off = 0;
	int r;

	for (r = 0; r < size_ranks; r++) {
		size_t b;

		if (slc_mul(items[r], size, &b) || b > INT_MAX || off > INT_MAX - b)
			return slc_fail(err, "migration: %zu particles of %zu bytes overflow a "
					"message", items[r], size);
		cnt[r] = (int)b;
		disp[r] = (int)off;
		off += b;
	}
	*tot = off / (size ? size : 1);
	return 0;
}

int
slc_migrate(slc_comm *c, const void *items, size_t n, size_t size, const int *dest, void **out,
	    size_t *nout, size_t *sent, slc_err *err)
{
	int P = c->size, r, rc;
	size_t *ns = slc_calloc((size_t)P, sizeof *ns, err), *nr = NULL, *at = NULL, q, keep = 0,
	       nsend, nrecv;
	int *scnt = NULL, *sdisp = NULL, *rcnt = NULL, *rdisp = NULL;
	char *sbuf = NULL, *obuf = NULL;
	const char *in = items;

	*out = NULL;
	if (!ns)
		return -1;
	for (q = 0; q < n; q++)
		ns[dest[q]]++;
	keep = ns[c->rank];
	ns[c->rank] = 0;
	if (!(nr = slc_calloc((size_t)P, sizeof *nr, err)) ||
	    !(at = slc_calloc((size_t)P, sizeof *at, err)) ||
	    !(scnt = slc_calloc((size_t)P * 4, sizeof *scnt, err)))
		goto fail;
	sdisp = scnt + P;
	rcnt = scnt + 2 * P;
	rdisp = scnt + 3 * P;
	rc = MPI_Alltoall(ns, (int)sizeof *ns, MPI_BYTE, nr, (int)sizeof *nr, MPI_BYTE, c->c);
	if (mpi_err(rc, "migration counts", err) ||
	    byte_counts(ns, P, size, scnt, sdisp, &nsend, err) ||
	    byte_counts(nr, P, size, rcnt, rdisp, &nrecv, err))
		goto fail;
	if (!(sbuf = slc_malloc(nsend ? nsend * size : 1, 1, err)) ||
	    !(obuf = slc_malloc(keep + nrecv ? (keep + nrecv) * size : 1, 1, err)))
		goto fail;
	/* the leavers packed by destination, each rank's in their order;
	 * the stayers first in out */
	for (r = 0; r < P; r++)
		at[r] = (size_t)sdisp[r];
	for (q = 0, keep = 0; q < n; q++) {
		if (dest[q] == c->rank)
			memcpy(obuf + keep++ * size, in + q * size, size);
		else {
			memcpy(sbuf + at[dest[q]], in + q * size, size);
			at[dest[q]] += size;
		}
	}
	/* received after the stayers: displacements past them */
	if (keep * size > INT_MAX || keep * size + nrecv * size > INT_MAX) {
		slc_fail(err, "migration: %zu particles of %zu bytes overflow a message",
			 keep + nrecv, size);
		goto fail;
	}
	for (r = 0; r < P; r++)
		rdisp[r] += (int)(keep * size);
	rc = MPI_Alltoallv(sbuf, scnt, sdisp, MPI_BYTE, obuf, rcnt, rdisp, MPI_BYTE, c->c);
	if (mpi_err(rc, "migration", err))
		goto fail;
	*out = obuf;
	*nout = keep + nrecv;
	*sent = nsend;
	free(sbuf);
	free(scnt);
	free(at);
	free(nr);
	free(ns);
	return 0;
fail:
	free(obuf);
	free(sbuf);
	free(scnt);
	free(at);
	free(nr);
	free(ns);
	return -1;
}

int
slc_allgather_items(slc_comm *c, const void *items, size_t n, size_t size, void **out,
		    size_t *nout, slc_err *err)
{
	int P = c->size, rc;
	size_t *nr = slc_calloc((size_t)P, sizeof *nr, err), tot;
	int *cnt = NULL;
	char *buf = NULL;

	*out = NULL;
	if (!nr)
		return -1;
	rc = MPI_Allgather(&n, (int)sizeof n, MPI_BYTE, nr, (int)sizeof *nr, MPI_BYTE, c->c);
	if (mpi_err(rc, "gather of counts", err) ||
	    !(cnt = slc_calloc((size_t)P * 2, sizeof *cnt, err)) ||
	    byte_counts(nr, P, size, cnt, cnt + P, &tot, err) ||
	    !(buf = slc_malloc(tot ? tot * size : 1, 1, err)))
		goto fail;
	rc = MPI_Allgatherv(items, cnt[c->rank], MPI_BYTE, buf, cnt, cnt + P, MPI_BYTE, c->c);
	if (mpi_err(rc, "gather of particles", err))
		goto fail;
	*out = buf;
	*nout = tot;
	free(cnt);
	free(nr);
	return 0;
fail:
	free(buf);
	free(cnt);
	free(nr);
	return -1;
}

/* Put the nall items of a (size bytes each, a uint64_t id first) at
 * their ids' places in place, following each cycle of the permutation
 * (tmp: size bytes).  0, or -1 with err (an id out of range or twice). */
static int
place_by_id(char *a, uint64_t nall, size_t size, char *tmp, slc_err *err)
{
	uint64_t q, id, at;

	for (q = 0; q < nall; q++)
		for (;;) {
			memcpy(&id, a + q * size, sizeof id);
			if (id == q)
				break;
			if (id >= nall)
				return slc_fail(err, "gather: particle id %llu of %llu out of range",
						(unsigned long long)id, (unsigned long long)nall);
			memcpy(&at, a + id * size, sizeof at);
			if (at == id)
				return slc_fail(err, "gather: particle id %llu repeated",
						(unsigned long long)id);
			memcpy(tmp, a + id * size, size);
			memcpy(a + id * size, a + q * size, size);
			memcpy(a + q * size, tmp, size);
		}
	return 0;
}

int
slc_gather_by_id(slc_comm *c, const void *items, size_t n, size_t size, uint64_t nall, void *out,
		 slc_err *err)
{
	int P = c->size, rc, bad = 0;
	size_t *nr = c->rank == 0 ? slc_calloc((size_t)P, sizeof *nr, err) : NULL, tot = 0;
	int *cnt = NULL;
	char *tmp = NULL;

	if (c->rank == 0 && !nr)
		bad = 1;
	rc = MPI_Gather(&n, (int)sizeof n, MPI_BYTE, nr, (int)sizeof n, MPI_BYTE, 0, c->c);
	if (rc != MPI_SUCCESS) {
		free(nr);
		return mpi_err(rc, "gather of counts", err);
	}
	/* rank 0 receives straight into out, then puts each item in its
	 * place: no second copy of the whole set */
	if (c->rank == 0 && !out) {
		slc_fail(err, "gather: no room for %llu particles on rank 0",
			 (unsigned long long)nall);
		bad = 1;
	}
	if (c->rank == 0 && !bad) {
		if (!(cnt = slc_calloc((size_t)P * 2, sizeof *cnt, err)) ||
		    byte_counts(nr, P, size, cnt, cnt + P, &tot, err) ||
		    !(tmp = slc_malloc(size ? size : 1, 1, err)))
			bad = 1;
		else if (tot != nall) {
			slc_fail(err, "gather: %zu particles, expected %llu", tot,
				 (unsigned long long)nall);
			bad = 1;
		}
	}
	/* every rank learns whether rank 0 can take them */
	rc = MPI_Bcast(&bad, 1, MPI_INT, 0, c->c);
	if (rc == MPI_SUCCESS && !bad)
		/* every count fits an int: rank 0's byte_counts checked them */
		rc = MPI_Gatherv(items, (int)(n * size), MPI_BYTE, out, cnt, cnt ? cnt + P : NULL,
				 MPI_BYTE, 0, c->c);
	if (rc != MPI_SUCCESS) {
		mpi_err(rc, "gather of particles", err);
		bad = 1;
	} else if (bad && c->rank)
		slc_fail(err, "gather of particles: failed on rank 0");
	if (!bad && c->rank == 0 && place_by_id(out, nall, size, tmp, err))
		bad = 1;
	free(tmp);
	free(cnt);
	free(nr);
	return bad ? -1 : 0;
}

int
slc_comm_count_sum(slc_comm *c, uint64_t *a, int n, slc_err *err)
{
	return mpi_err(MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_UINT64_T, MPI_SUM, c->c), "sum", err);
}

static int
fold(slc_comm *c, float *a, size_t n, MPI_Op op, slc_err *err)
{
	while (n) {
		size_t m = n < FOLD_CHUNK ? n : FOLD_CHUNK;
		int rc = MPI_Allreduce(MPI_IN_PLACE, a, (int)m, MPI_FLOAT, op, c->c);

		if (rc != MPI_SUCCESS)
			return mpi_err(rc, "fold", err);
		a += m;
		n -= m;
	}
	return 0;
}

int
slc_comm_fold_max(slc_comm *c, float *a, size_t n, slc_err *err)
{
	return fold(c, a, n, MPI_MAX, err);
}

int
slc_comm_fold_min(slc_comm *c, float *a, size_t n, slc_err *err)
{
	return fold(c, a, n, MPI_MIN, err);
}

/* --- the serial swap-remove loop replayed over its candidates -------- */

typedef struct move {
	uint64_t from, to;
} move;

static int
move_cmp(const void *pa, const void *pb)
{
	const move *a = pa, *b = pb;

	return a->from < b->from ? -1 : a->from > b->from;
}

int
slc_swap_replay_run(uint64_t n, const uint64_t *cand, size_t ncand, slc_swap_visit_fn *visit,
		    void *ctx, slc_swap_replay *out, slc_err *err)
{
	/* last: the index of the array's last item (-1: empty); cand[i ..
	 * j-1] are the candidates the loop has not met yet */
	int64_t last = (int64_t)n - 1;
	size_t i = 0, j = ncand, m;
	move *mv;

	memset(out, 0, sizeof *out);
	for (m = 0; m < ncand; m++)
		if (cand[m] >= n || (m && cand[m] <= cand[m - 1]))
			return slc_fail(err, "swap replay: candidate %zu (%llu) not ascending "
					"below %llu", m, (unsigned long long)cand[m],
					(unsigned long long)n);
	mv = slc_malloc(ncand ? ncand : 1, sizeof *mv, err);
	out->order = mv ? slc_malloc(ncand ? ncand : 1, sizeof *out->order, err) : NULL;
	if (!out->order) {
		free(mv);
		return -1;
	}
	/* the loop meets the candidates in place in ascending order; one
	 * removed at q takes the last item into q, met there at once */
	while (i < j && (int64_t)cand[i] <= last) {
		uint64_t q = cand[i];

		m = i++;
		if (visit && !visit(ctx, m))
			continue;
		out->order[out->nremoved++] = m;
		for (;;) {
			uint64_t e;

			if ((int64_t)q == last) {       /* it was the last: gone */
				last--;
				break;
			}
			e = (uint64_t)last--;
			if (j > i && cand[j - 1] == e) {
				m = --j;
				if (!visit || visit(ctx, m)) {
					out->order[out->nremoved++] = m;
					continue;
				}
			}
			mv[out->nmove].from = e;
			mv[out->nmove++].to = q;
			break;
		}
	}
	out->n = (uint64_t)(last + 1);
	qsort(mv, out->nmove, sizeof *mv, move_cmp);
	out->from = slc_malloc(out->nmove ? out->nmove : 1, sizeof *out->from, err);
	out->to = out->from ? slc_malloc(out->nmove ? out->nmove : 1, sizeof *out->to, err) : NULL;
	if (!out->to) {
		free(mv);
		return -1;
	}
	for (m = 0; m < out->nmove; m++) {
		out->from[m] = mv[m].from;
		out->to[m] = mv[m].to;
	}
	free(mv);
	return 0;
}

uint64_t
slc_swap_replay_place(const slc_swap_replay *r, uint64_t id)
{
	size_t lo = 0, hi = r->nmove;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->from[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nmove && r->from[lo] == id ? r->to[lo] : id;
}

void
slc_swap_replay_free(slc_swap_replay *r)
{
	free(r->from);
	free(r->to);
	free(r->order);
	memset(r, 0, sizeof *r);
}
