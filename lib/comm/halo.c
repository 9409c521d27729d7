/* halo.c: ghost planes of k slabs from their owners (comm/halo.h). */
#include "comm/halo.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Tags of the messages going down (to rank - 1) and up. */
enum { TAG_DOWN = 11, TAG_UP = 12 };

void
slc_halo_owned(const slc_comm *c, const slc_rec *r, int *lo, int *hi)
{
	*lo = c->k0[c->rank];
	*hi = c->rank == c->size - 1 ? r->nk_all : c->k0[c->rank + 1];
}

/* The sample planes rank `rank` holds of a record of nk_all sample
 * planes over c->nk cells: its cells with ghosts, plus the planes past
 * the last held cell (nk_all - nk of them: one for faces or nodes). */
static void
held_samples(const slc_comm *c, int rank, int nk_all, int *lo, int *hi)
{
	slc_comm_held(c, rank, lo, hi);
	*hi += nk_all - c->nk;
}

/* Bytes of one sample plane of channel ch of r. */
static size_t
plane_bytes(const slc_rec *r, const slc_chan *ch)
{
	return (size_t)r->grid.ni * (size_t)r->grid.nj * ch->ncomp * slc_type_size(ch->type);
}

static int
check_slab(const slc_comm *c, const slc_rec *r, slc_err *err)
{
	int lo, hi;

	if (r->kind != SLC_GRID || r->nk_all <= 0 || r->encoded)
		return slc_fail(err, "halo: record '%s' is not a decoded slab", r->name);
	held_samples(c, c->rank, r->nk_all, &lo, &hi);
	if (r->k0 != lo || r->grid.nk != hi - lo || r->nk_all - c->nk < 0 || r->nk_all - c->nk > 1)
		return slc_fail(err, "halo: record '%s': planes %d..%d of %d, expected %d..%d",
				r->name, r->k0, r->k0 + r->grid.nk, r->nk_all, lo, hi);
	return 0;
}

/* Post the messages of one array a of the sample planes [lo, hi) this
 * rank holds of a grid of nk_all sample planes, pb bytes each: from and
 * to each neighbour, into req[*nreq..].  Nonzero on an MPI error. */
static int
post_planes(slc_comm *c, char *a, size_t pb, int nk_all, MPI_Request *req, size_t *nreq,
	    uint64_t *bytes)
{
	int own0 = c->k0[c->rank], own1 = c->rank == c->size - 1 ? nk_all : c->k0[c->rank + 1];
	int lo, hi, nlo, nhi, rc = 0;

	held_samples(c, c->rank, nk_all, &lo, &hi);
	/* from below: planes lo .. own0 - 1; to below: the planes of mine
	 * the rank below holds above its own */
	if (c->rank > 0) {
		held_samples(c, c->rank - 1, nk_all, &nlo, &nhi);
		if (own0 > lo)
			*bytes += (uint64_t)(own0 - lo) * pb;
		if (nhi > own0)
			*bytes += (uint64_t)(nhi - own0) * pb;
		if (own0 > lo)
			rc |= MPI_Irecv(a, (int)((size_t)(own0 - lo) * pb), MPI_BYTE,
					c->rank - 1, TAG_UP, c->c, &req[(*nreq)++]);
		if (nhi > own0)
			rc |= MPI_Isend(a + (size_t)(own0 - lo) * pb, (int)((size_t)(nhi - own0) * pb),
					MPI_BYTE, c->rank - 1, TAG_DOWN, c->c, &req[(*nreq)++]);
	}
	/* from above: planes own1 .. hi - 1; to above: the planes of mine
	 * the rank above holds below its own */
	if (c->rank < c->size - 1) {
		held_samples(c, c->rank + 1, nk_all, &nlo, &nhi);
		if (hi > own1)
			*bytes += (uint64_t)(hi - own1) * pb;
		if (own1 > nlo)
			*bytes += (uint64_t)(own1 - nlo) * pb;
		if (hi > own1)
			rc |= MPI_Irecv(a + (size_t)(own1 - lo) * pb, (int)((size_t)(hi - own1) * pb),
					MPI_BYTE, c->rank + 1, TAG_DOWN, c->c, &req[(*nreq)++]);
		if (own1 > nlo)
			rc |= MPI_Isend(a + (size_t)(nlo - lo) * pb, (int)((size_t)(own1 - nlo) * pb),
					MPI_BYTE, c->rank + 1, TAG_UP, c->c, &req[(*nreq)++]);
	}
	return rc;
}

/* The ghost planes' bytes fit an int count. */
static int
check_count(const slc_comm *c, size_t pb, slc_err *err)
{
	if (pb && (size_t)(c->ghost + 1) > (size_t)INT_MAX / pb)
		return slc_fail(err, "halo: %d planes of %zu bytes overflow a message",
				c->ghost + 1, pb);
	return 0;
}

int
slc_halo(slc_comm *c, slc_rec *const *r, size_t n, slc_err *err)
{
	MPI_Request *req;
	size_t q, nreq = 0, most = 0;
	uint64_t bytes = 0;
	double t0;
	int rc = 0;

	if (c->size == 1)
		return 0;
	for (q = 0; q < n; q++) {
		if (check_slab(c, r[q], err))
			return -1;
		for (uint32_t ch = 0; ch < r[q]->nchan; ch++)
			if (check_count(c, plane_bytes(r[q], &r[q]->chan[ch]), err))
				return -1;
		most += 4 * (size_t)r[q]->nchan;
	}
	if (!(req = slc_malloc(most ? most : 1, sizeof *req, err)))
		return -1;
	t0 = slc_comm_time_begin();
	for (q = 0; q < n && !rc; q++) {
		const slc_rec *R = r[q];

		for (uint32_t ch = 0; ch < R->nchan && !rc; ch++)
			rc = post_planes(c, R->chan[ch].data, plane_bytes(R, &R->chan[ch]), R->nk_all,
					 req, &nreq, &bytes);
	}
	if (nreq && MPI_Waitall((int)nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
		rc = 1;
	slc_comm_time_end(SLC_COMM_HALO, t0, bytes);
	free(req);
	return rc ? slc_fail(err, "halo exchange: MPI error") : 0;
}

int
slc_halo_cells(slc_comm *c, void *a, size_t pb, slc_err *err)
{
	MPI_Request req[4];
	size_t nreq = 0;
	uint64_t bytes = 0;
	double t0;
	int rc;

	if (c->size == 1)
		return 0;
	if (check_count(c, pb, err))
		return -1;
	t0 = slc_comm_time_begin();
	rc = post_planes(c, a, pb, c->nk, req, &nreq, &bytes);
	if (nreq && MPI_Waitall((int)nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
		rc = 1;
	slc_comm_time_end(SLC_COMM_HALO, t0, bytes);
	return rc ? slc_fail(err, "halo exchange: MPI error") : 0;
}

int
slc_halo_frame(slc_comm *c, slc_frame *F, slc_err *err)
{
	slc_rec **r;
	size_t q, n = 0;
	int rc;

	if (!(r = slc_malloc(F->n ? F->n : 1, sizeof *r, err)))
		return -1;
	for (q = 0; q < F->n; q++)
		if (F->r[q]->kind == SLC_GRID && F->r[q]->nk_all > 0)
			r[n++] = F->r[q];
	rc = slc_halo(c, r, n, err);
	free(r);
	return rc;
}
