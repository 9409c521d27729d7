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

/* A cut of a grid along k over the ranks: rank r owns the cells
 * own[r] .. own[r+1]-1 of ncell and holds `ghost` more each side
 * (clipped to the grid); a halo refreshes the `width` planes nearest its
 * own on each side. */
typedef struct cut {
	const int *own;
	int ncell, ghost, width;
} cut;

static cut
comm_cut(const slc_comm *c)
{
	return (cut){c->k0, c->nk, c->ghost, c->ghost};
}

/* The sample planes rank `rank` holds of a record of nk_all sample
 * planes over the cut's cells: its cells with ghosts, plus the planes
 * past the last held cell (nk_all - ncell of them: one for faces or
 * nodes). */
static void
held_samples(const cut *k, int rank, int nk_all, int *lo, int *hi)
{
	int a = k->own[rank] - k->ghost, b = k->own[rank + 1] + k->ghost;

	*lo = a < 0 ? 0 : a;
	*hi = (b > k->ncell ? k->ncell : b) + nk_all - k->ncell;
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
	cut k = comm_cut(c);
	int lo, hi;

	if (r->kind != SLC_GRID || r->nk_all <= 0 || r->encoded)
		return slc_fail(err, "halo: record '%s' is not a decoded slab", r->name);
	held_samples(&k, c->rank, r->nk_all, &lo, &hi);
	if (r->k0 != lo || r->grid.nk != hi - lo || r->nk_all - c->nk < 0 || r->nk_all - c->nk > 1)
		return slc_fail(err, "halo: record '%s': planes %d..%d of %d, expected %d..%d",
				r->name, r->k0, r->k0 + r->grid.nk, r->nk_all, lo, hi);
	return 0;
}

static int
imax(int a, int b)
{
	return a > b ? a : b;
}

static int
imin(int a, int b)
{
	return a < b ? a : b;
}

/* Post the messages of one array a of the sample planes [lo, hi) this
 * rank holds of a grid of nk_all sample planes cut by k, pb bytes each:
 * from and to each neighbour, into req[*nreq..], adding the bytes sent
 * and received to *bytes.  Nonzero on an MPI error. */
static int
post_planes(slc_comm *c, const cut *k, char *a, size_t pb, int nk_all, MPI_Request *req,
	    size_t *nreq, uint64_t *bytes)
{
	/* the planes past the last cell (a face grid's top faces) go with
	 * the ghost cells above */
	int r = c->rank, w = k->width, wa = w + nk_all - k->ncell;
	int own0 = k->own[r], own1 = r == c->size - 1 ? nk_all : k->own[r + 1];
	int lo, hi, nlo, nhi, rc = 0;

	held_samples(k, r, nk_all, &lo, &hi);
	/* from below: planes own0 - w .. own0 - 1 I hold; to below: those
	 * of mine the rank below holds above its own, the w nearest */
	if (r > 0) {
		int b = imax(lo, own0 - w);
		held_samples(k, r - 1, nk_all, &nlo, &nhi);
		int e = imin(nhi, own0 + wa);
		if (own0 > b)
			*bytes += (uint64_t)(own0 - b) * pb;
		if (e > own0)
			*bytes += (uint64_t)(e - own0) * pb;
		if (own0 > b)
			rc |= MPI_Irecv(a + (size_t)(b - lo) * pb, (int)((size_t)(own0 - b) * pb),
					MPI_BYTE, r - 1, TAG_UP, c->c, &req[(*nreq)++]);
		if (e > own0)
			rc |= MPI_Isend(a + (size_t)(own0 - lo) * pb, (int)((size_t)(e - own0) * pb),
					MPI_BYTE, r - 1, TAG_DOWN, c->c, &req[(*nreq)++]);
	}
	/* from above: planes own1 .. own1 + w - 1 I hold; to above: those
	 * of mine the rank above holds below its own, the w nearest */
	if (r < c->size - 1) {
		int e = imin(hi, own1 + wa);
		held_samples(k, r + 1, nk_all, &nlo, &nhi);
		int b = imax(nlo, own1 - w);
		if (e > own1)
			*bytes += (uint64_t)(e - own1) * pb;
		if (own1 > b)
			*bytes += (uint64_t)(own1 - b) * pb;
		if (e > own1)
			rc |= MPI_Irecv(a + (size_t)(own1 - lo) * pb, (int)((size_t)(e - own1) * pb),
					MPI_BYTE, r + 1, TAG_DOWN, c->c, &req[(*nreq)++]);
		if (own1 > b)
			rc |= MPI_Isend(a + (size_t)(b - lo) * pb, (int)((size_t)(own1 - b) * pb),
					MPI_BYTE, r + 1, TAG_UP, c->c, &req[(*nreq)++]);
	}
	return rc;
}

/* The ghost planes' bytes fit an int count. */
static int
check_count(int ghost, size_t pb, slc_err *err)
{
	if (pb && (size_t)(ghost + 1) > (size_t)INT_MAX / pb)
		return slc_fail(err, "halo: %d planes of %zu bytes overflow a message",
				ghost + 1, pb);
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
			if (check_count(c->ghost, plane_bytes(r[q], &r[q]->chan[ch]), err))
				return -1;
		most += 4 * (size_t)r[q]->nchan;
	}
	if (!(req = slc_malloc(most ? most : 1, sizeof *req, err)))
		return -1;
	cut k = comm_cut(c);
	t0 = slc_comm_time_begin();
	for (q = 0; q < n && !rc; q++) {
		const slc_rec *R = r[q];

		for (uint32_t ch = 0; ch < R->nchan && !rc; ch++)
			rc = post_planes(c, &k, R->chan[ch].data, plane_bytes(R, &R->chan[ch]), R->nk_all,
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
	return slc_halo_cut(c, a, pb, c->k0, c->nk, c->ghost, c->ghost, err);
}

int
slc_halo_cut(slc_comm *c, void *a, size_t pb, const int *own, int ncell, int ghost, int width,
	     slc_err *err)
{
	MPI_Request req[4];
	size_t nreq = 0;
	cut k = {own, ncell, ghost, width < ghost ? width : ghost};
	uint64_t bytes = 0;
	double t0;
	int rc;

	if (c->size == 1)
		return 0;
	if (check_count(ghost, pb, err))
		return -1;
	for (int r = 0; r < c->size; r++)
		if (own[r + 1] - own[r] < ghost)
			return slc_fail(err, "halo: a slab of %d planes, thinner than its %d ghost "
					"planes", own[r + 1] - own[r], ghost);
	t0 = slc_comm_time_begin();
	rc = post_planes(c, &k, a, pb, ncell, req, &nreq, &bytes);
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
