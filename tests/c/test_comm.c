/* test_comm.c: the MPI communicator of lib/comm/ (MPI builds only; run
 * under mpirun at 1..4 ranks by tests/mpi.bats): the halo of k slabs,
 * the ordered plane sums against the serial order, max and min, a frame
 * cut into slabs and gathered back, the halo of a plain array and of a
 * coarse level's cut (some ghost planes refreshed), coarse
 * planes gathered, a whole grid from every rank's owned planes, 64-bit
 * minima, sums chained in grid order, components joined
 * across slabs as one process numbers them, the swap-remove loop of a
 * particle set replayed from its candidates, and particles migrated to
 * the owners of their planes and gathered back in id order, crcs folded
 * from every rank's parts, and a frame file read and written in place
 * (MPI-IO).  Every rank checks; rank 0
 * prints the results agreed over all ranks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ctest.h"
#include "comm/components.h"
#include "comm/halo.h"
#include "comm/migrate.h"
#include "comm/mpicomm.h"
#include "comm/mpiio.h"
#include "comm/slabframe.h"

static slc_comm *C;

/* CHECK of a condition that must hold on every rank. */
static int
all(int ok)
{
	int bad[1] = { !ok };
	slc_err err;

	if (slc_comm_imax(C, bad, 1, &err))
		return 0;
	return !bad[0];
}

#define ALL(cond, ...)                                                  \
	do {                                                            \
		int all_ = all(cond);                                   \
		if (C->rank == 0)                                       \
			CHECK(all_, __VA_ARGS__);                       \
	} while (0)

/* The value of sample (i, j, k) of channel c, component q: distinct
 * everywhere. */
static double
val(int i, int j, int k, int c, int q)
{
	return 1000000.0 * c + 10000.0 * k + 100.0 * j + i + 0.125 * q;
}

/* A slab record of this rank (cells ni x nj x nk, z-staggered when
 * face): channel 0 f32 x1, channel 1 f64 x3; owned planes set, ghosts
 * garbage. */
static void
slab_rec(slc_rec *r, int ni, int nj, int face)
{
	int lo, hi, own0, own1, i, j, k, q, ex = face;
	slc_grid g = { ni, nj, 0, face ? SLC_FACE_Z : SLC_CELL, { 0, 0, 0 }, 0.5 };
	slc_err err;
	float *a;
	double *b;

	slc_comm_held(C, C->rank, &lo, &hi);
	g.nk = hi - lo + ex;
	slc_rec_init(r, SLC_GRID, face ? "w" : "density");
	r->grid = g;
	a = slc_rec_add(r, "a", SLC_F32, 1, SLC_SAMPLE, (uint64_t)ni * nj * g.nk, &err);
	b = slc_rec_add(r, "b", SLC_F64, 3, SLC_SAMPLE, (uint64_t)ni * nj * g.nk, &err);
	r->k0 = lo;
	r->nk_all = C->nk + ex;
	slc_halo_owned(C, r, &own0, &own1);
	for (k = lo; k < hi + ex; k++)
		for (j = 0; j < nj; j++)
			for (i = 0; i < ni; i++) {
				size_t s = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * (size_t)(k - lo));
				int own = k >= own0 && k < own1;

				a[s] = own ? (float)val(i, j, k, 0, 0) : -1;
				for (q = 0; q < 3; q++)
					b[3 * s + q] = own ? val(i, j, k, 1, q) : NAN;
			}
}

/* Every held plane of r holds val. */
static int
slab_ok(const slc_rec *r)
{
	const float *a = r->chan[0].data;
	const double *b = r->chan[1].data;
	int ni = r->grid.ni, nj = r->grid.nj, i, j, k, q;

	for (k = 0; k < r->grid.nk; k++)
		for (j = 0; j < nj; j++)
			for (i = 0; i < ni; i++) {
				size_t s = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * (size_t)k);

				if (a[s] != (float)val(i, j, k + r->k0, 0, 0))
					return 0;
				for (q = 0; q < 3; q++)
					if (b[3 * s + q] != val(i, j, k + r->k0, 1, q))
						return 0;
			}
	return 1;
}

static void
test_halo(int nk, int ghost)
{
	slc_rec r[2];
	slc_rec *rp[2] = { &r[0], &r[1] };
	slc_err err;
	int ok;

	if (slc_comm_slabs(C, nk, ghost, &err)) {
		ALL(0, "halo %d cells, %d ghosts: %s", nk, ghost, err.msg);
		return;
	}
	slab_rec(&r[0], 5, 3, 0);
	slab_rec(&r[1], 5, 3, 1);
	ok = !slc_halo(C, rp, 2, &err);
	ALL(ok && slab_ok(&r[0]), "halo of cell planes: %d cells, %d ghost planes", nk, ghost);
	ALL(ok && slab_ok(&r[1]), "halo of face planes: %d cells, %d ghost planes", nk, ghost);
	slc_rec_free(&r[0]);
	slc_rec_free(&r[1]);
}

/* The partial sums of plane k: values whose sum depends on the order. */
static void
partials(int k, double p[2])
{
	p[0] = (k % 3 == 0 ? 1e16 : k % 3 == 1 ? 1.0 : -1e16) + 0.1 * k;
	p[1] = 1.0 / (k + 1) * (k % 2 ? -1 : 1) * 1e-3 + 3.0 * k;
}

static void
test_sums(int nk)
{
	double serial[2] = { 0, 0 }, sum[2], p[2], *part, mine[2];
	int k0, k1, k, ok;
	slc_err err;

	if (slc_comm_slabs(C, nk, 0, &err)) {
		ALL(0, "sums: %s", err.msg);
		return;
	}
	for (k = 0; k < nk; k++) {
		partials(k, p);
		serial[0] += p[0];
		serial[1] += p[1];
	}
	slc_comm_owned(C, &k0, &k1);
	part = calloc(2 * (size_t)(k1 - k0) + 2, sizeof *part);
	for (k = k0; k < k1; k++)
		partials(k, part + 2 * (k - k0));
	ok = !slc_comm_plane_sums(C, part, 2, sum, &err);
	ALL(ok && !memcmp(sum, serial, sizeof sum),
	    "ordered sums of %d plane partials: the serial bits (%.17g, %.17g)", nk, sum[0], sum[1]);
	memcpy(mine, sum, sizeof mine);
	ok = !slc_comm_bcast(C, sum, sizeof sum, &err);
	ALL(ok && !memcmp(sum, mine, sizeof sum), "ordered sums: the same bits on every rank");
	free(part);
}

static void
test_maxmin(void)
{
	double v[2] = { C->rank * 1.5 - 7, -C->rank * 0.25 }, w[2] = { v[0], v[1] };
	slc_err err;
	int ok;

	ok = !slc_comm_max(C, v, 2, &err) && !slc_comm_min(C, w, 2, &err);
	ALL(ok && v[0] == (C->size - 1) * 1.5 - 7 && v[1] == 0 && w[0] == -7 &&
	    w[1] == -(C->size - 1) * 0.25, "max and min over %d ranks", C->size);
}

/* A whole frame on rank 0: a scene, u, v, w, density on 4 x 3 x nk cells
 * and a grid on other cells (copied whole). */
static void
whole_frame(slc_frame *F, int nk)
{
	static const char *const name[] = { "u", "v", "w", "density", "other" };
	slc_err err;
	int q;

	for (q = 0; q < 5; q++) {
		slc_rec *r = slc_frame_add(F, SLC_GRID, name[q], &err);
		slc_grid g = { 4 + (q == 0), 3 + (q == 1), nk + (q == 2), q < 3 ? SLC_FACE_X + q : SLC_CELL,
			       { 0, 0, 0 }, 0.25 };
		float *a;
		size_t n, s;

		if (q == 4)
			g.dx = 0.5;
		slc_grid_count(&g, &n);
		r->grid = g;
		a = slc_rec_add(r, name[q], SLC_F32, 1, SLC_SAMPLE, n, &err);
		for (s = 0; s < n; s++)
			a[s] = (float)(q * 1000 + s) * 0.5f;
	}
}

static void
test_frame(int nk, int ghost)
{
	slc_frame F, L;
	slc_err err;
	size_t q;
	int ok, same = 1;

	slc_frame_init(&F);
	slc_frame_init(&L);
	if (C->rank == 0)
		whole_frame(&F, nk);
	ok = !slc_slab_scatter(C, &F, "u", ghost, &L, &err);
	ALL(ok && L.n == 5 && L.r[0]->nk_all == nk && L.r[2]->nk_all == nk + 1 &&
	    L.r[4]->nk_all == 0, "frame cut into slabs: %d cells, %d ghosts", nk, ghost);
	for (q = 0; ok && q < 4; q++) {
		slc_rec w;

		ok = !slc_slab_gather(C, L.r[q], C->rank ? NULL : &w, &err);
		if (ok && C->rank == 0) {
			const slc_chan *a = &w.chan[0], *b = &F.r[q]->chan[0];

			same &= w.grid.nk == F.r[q]->grid.nk && a->count == b->count &&
				!memcmp(a->data, b->data, (size_t)a->count * 4);
			slc_rec_free(&w);
		}
	}
	ALL(ok && same, "slabs gathered back: the whole records");
	slc_frame_free(&F);
	slc_frame_free(&L);
}

/* The halo of a plain array of the held cell planes (a solver's). */
static void
test_halo_cells(int nk, int ghost)
{
	int lo, hi, own0, own1, k, ok = 1, good = 1;
	int64_t *a;
	slc_err err;

	if (slc_comm_slabs(C, nk, ghost, &err)) {
		ALL(0, "halo cells: %s", err.msg);
		return;
	}
	slc_comm_held(C, C->rank, &lo, &hi);
	slc_comm_owned(C, &own0, &own1);
	a = calloc(2 * (size_t)(hi - lo), sizeof *a);
	for (k = lo; k < hi; k++) {
		a[2 * (k - lo)] = k >= own0 && k < own1 ? 1000 * k : -1;
		a[2 * (k - lo) + 1] = k >= own0 && k < own1 ? 1000 * k + 1 : -1;
	}
	ok = !slc_halo_cells(C, a, 2 * sizeof *a, &err);
	for (k = lo; k < hi; k++)
		good &= a[2 * (k - lo)] == 1000 * k && a[2 * (k - lo) + 1] == 1000 * k + 1;
	ALL(ok && good, "halo of an array of cell planes: %d cells, %d ghost planes", nk, ghost);
	free(a);
}

/* The halo of a coarse level's cut (slc_halo_cut): the cells of a grid
 * of nk planes cut as c->k0 halved (coarse plane K the owner's of fine
 * plane 2K), `ghost` planes each side, refreshed `width` planes deep:
 * those come from their owners, the farther ghosts keep what they had;
 * and a cut thinner than its ghosts refused. */
static void
test_halo_cut(int nk, int ghost, int width)
{
	int *own, r, k, lo, hi, ok, good = 1, nck = (nk + 1) / 2;
	float *a;
	slc_err err;

	if (slc_comm_slabs(C, nk, 1, &err)) {
		ALL(0, "halo cut: %s", err.msg);
		return;
	}
	own = calloc((size_t)C->size + 1, sizeof *own);
	for (r = 0; r <= C->size; r++)
		own[r] = (C->k0[r] + 1) / 2;
	lo = own[C->rank] - ghost < 0 ? 0 : own[C->rank] - ghost;
	hi = own[C->rank + 1] + ghost > nck ? nck : own[C->rank + 1] + ghost;
	a = calloc(3 * (size_t)(hi - lo), sizeof *a);
	for (k = lo; k < hi; k++)
		for (r = 0; r < 3; r++)
			a[3 * (k - lo) + r] = k >= own[C->rank] && k < own[C->rank + 1] ? 100.0f * k + r : -1;
	ok = !slc_halo_cut(C, a, 3 * sizeof *a, own, nck, ghost, width, &err);
	for (k = lo; k < hi; k++) {
		int near = k >= own[C->rank] - width && k < own[C->rank + 1] + width;
		for (r = 0; r < 3; r++)
			good &= a[3 * (k - lo) + r] == (near ? 100.0f * k + r : -1);
	}
	ALL(ok && good, "halo of a coarse cut: %d planes, %d ghost planes, %d refreshed",
	    nck, ghost, width);
	/* a cut with a slab thinner than its ghosts */
	ok = C->size == 1 || slc_halo_cut(C, a, 3 * sizeof *a, own, nck, nck, 1, &err) < 0;
	ALL(ok, "halo of a coarse cut with slabs thinner than %d ghost planes refused", nck);
	free(a);
	free(own);
}

/* Coarse planes gathered whole: rank r's planes (k0[r] + 1) / 2 on. */
static void
test_gather_planes(int nk)
{
	int *own, r, K, ok, good = 1, nck = (nk + 1) / 2;
	float *a;
	slc_err err;

	if (slc_comm_slabs(C, nk, 0, &err)) {
		ALL(0, "gather: %s", err.msg);
		return;
	}
	own = calloc((size_t)C->size + 1, sizeof *own);
	for (r = 0; r <= C->size; r++)
		own[r] = (C->k0[r] + 1) / 2;
	a = calloc(3 * (size_t)nck, sizeof *a);
	for (K = 0; K < nck; K++)
		for (r = 0; r < 3; r++)
			a[3 * K + r] = K >= own[C->rank] && K < own[C->rank + 1] ? 10.0f * K + r : -1;
	ok = !slc_comm_gather_planes(C, a, 3 * sizeof *a, own, &err);
	for (K = 0; K < nck; K++)
		for (r = 0; r < 3; r++)
			good &= a[3 * K + r] == 10.0f * K + r;
	ALL(ok && good, "%d coarse planes of %d gathered on every rank", nck, nk);
	free(a);
	free(own);
}

/* A whole grid of nall planes (nk cells, nall - nk planes past the last
 * cell) from each rank's slab with g ghost planes of garbage: every
 * plane from its owner, on every rank. */
static void
test_whole_planes(int nk, int nall, int g)
{
	int lo, hi, k, q, ok, good = 1, sk = 5;
	float *slab, *whole;
	slc_err err;

	if (slc_comm_slabs(C, nk, g, &err)) {
		ALL(0, "whole planes: %s", err.msg);
		return;
	}
	slc_comm_held(C, C->rank, &lo, &hi);
	if (C->rank == C->size - 1)
		hi += nall - nk;
	slab = malloc((size_t)(hi - lo) * sk * sizeof *slab);
	whole = malloc((size_t)nall * sk * sizeof *whole);
	for (k = lo; k < hi; k++)
		for (q = 0; q < sk; q++)
			slab[(k - lo) * sk + q] = k >= C->k0[C->rank] && k < C->k0[C->rank + 1] +
				(C->rank == C->size - 1 ? nall - nk : 0) ? 100.0f * k + q : -1;
	for (k = 0; k < nall * sk; k++)
		whole[k] = -2;
	ok = !slc_comm_whole_planes(C, slab, lo, nall, whole, sk * sizeof *slab, &err);
	for (k = 0; k < nall; k++)
		for (q = 0; q < sk; q++)
			good &= whole[k * sk + q] == 100.0f * k + q;
	ALL(ok && good, "whole grid of %d planes (%d cells, %d ghost planes) on every rank",
	    nall, nk, g);
	free(slab);
	free(whole);
}

/* The smallest 64-bit label over the ranks, past a double's 53 bits. */
static void
test_lmin(void)
{
	int64_t v[2] = { ((int64_t)1 << 60) + 7 - C->rank, INT64_MAX - C->rank };
	slc_err err;
	int ok = !slc_comm_lmin(C, v, 2, &err);

	ALL(ok && v[0] == ((int64_t)1 << 60) + 8 - C->size && v[1] == INT64_MAX - (C->size - 1),
	    "64-bit minimum over %d ranks", C->size);
}

/* A term whose running sum depends on the order. */
static double
term(int c)
{
	return (c % 4 == 0 ? 1e15 : c % 4 == 2 ? -1e15 : 0.3) + 1e-3 * c;
}

/* Per-region sums chained through the ranks in grid order: the serial
 * bits on every rank. */
static void
test_chain(int nk)
{
	double serial[2] = { 0, 0 }, sum[2] = { 0, 0 }, mine[2];
	int k0, k1, c, m = 5, ok;
	slc_err err;

	if (slc_comm_slabs(C, nk, 0, &err)) {
		ALL(0, "chain: %s", err.msg);
		return;
	}
	for (c = 0; c < nk * m; c++)
		serial[c % 3 == 0] += term(c);
	slc_comm_owned(C, &k0, &k1);
	ok = !slc_comm_chain_in(C, sum, sizeof sum, &err);
	for (c = k0 * m; c < k1 * m; c++)
		sum[c % 3 == 0] += term(c);
	ok = ok && !slc_comm_chain_out(C, sum, sizeof sum, &err) &&
	     !slc_comm_chain_end(C, sum, sizeof sum, &err);
	memcpy(mine, sum, sizeof mine);
	ALL(ok && !memcmp(sum, serial, sizeof sum), "sums chained in grid order over %d planes: "
	    "the serial bits (%.17g, %.17g)", nk, sum[0], sum[1]);
	ok = !slc_comm_bcast(C, mine, sizeof mine, &err);
	ALL(ok && !memcmp(sum, mine, sizeof sum), "chained sums: the same bits on every rank");
}

/* Components of a row of nk cells (cell k's global index k): a new one
 * starts at every multiple of 5, the one from 15 joins the one from 0;
 * a cell with k % 7 == 3 flags its component. */
static int
comp_start(int k)
{
	return 5 * (k / 5) == 15 ? 0 : 5 * (k / 5);
}

static int
owner(int k)
{
	int r = 0;

	while (C->k0[r + 1] <= k)
		r++;
	return r;
}

/* The label rank owner(k) gives cell k: the first cell of its piece. */
static int64_t
piece(int k)
{
	int s = 5 * (k / 5), o = C->k0[owner(k)];

	return s > o ? s : o;
}

static void
test_components(int nk)
{
	int64_t lab[64], pair[4];
	uint8_t flag[64];
	size_t nlab = 0, npair = 0;
	int k0, k1, k, ok, good = 1, nexp = 0, seen[64];
	slc_components cs;
	slc_err err;

	if (slc_comm_slabs(C, nk, 0, &err)) {
		ALL(0, "components: %s", err.msg);
		return;
	}
	slc_comm_owned(C, &k0, &k1);
	for (k = k0; k < k1; k++) {
		if (piece(k) == k) {
			lab[nlab] = k;
			flag[nlab++] = 0;
		}
		flag[nlab - 1] |= k % 7 == 3;
	}
	/* the piece below the slab's face, when the row goes on across it */
	if (k0 > 0 && k0 % 5) {
		pair[2 * npair] = piece(k0);
		pair[2 * npair++ + 1] = piece(k0 - 1);
	}
	/* the join of 15's and 0's, from the owner of cell 15 */
	if (nk > 15 && owner(15) == C->rank) {
		pair[2 * npair] = piece(15);
		pair[2 * npair++ + 1] = 0;
	}
	ok = !slc_components_join(C, lab, flag, nlab, pair, npair, &cs, &err);
	for (k = 0; k < 64; k++)
		seen[k] = -1;
	for (k = 0; ok && k < nk; k++) {
		int s = comp_start(k), f = 0, q;

		if (seen[s] < 0)
			seen[s] = nexp++;
		for (q = 0; q < nk; q++)
			f |= comp_start(q) == s && q % 7 == 3;
		good &= slc_components_find(&cs, piece(k)) == seen[s] &&
			cs.flag[seen[s]] == f;
	}
	ALL(ok && good && cs.ncomp == nexp, "components of %d cells joined across slabs: %d, "
	    "numbered by their first cell", nk, cs.ncomp);
	slc_components_free(&cs);
}

/* A small deterministic generator for the tests below (splitmix64). */
static uint64_t
mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The boxes of the items of a trimming replay and their counts. */
typedef struct trim_ctx {
	const int *box;         /* box of each candidate */
	int *count;             /* per box, met so far */
	int limit;
} trim_ctx;

static int
trim_visit(void *ctx, size_t q)
{
	trim_ctx *t = ctx;

	if (t->count[t->box[q]] >= t->limit)
		return 1;
	t->count[t->box[q]]++;
	return 0;
}

/* The serial loops: swap-remove over a[0..n-1] (item ids), removing the
 * flagged (trim 0) or those past `limit` in their box (trim 1); the
 * removed ids in order into gone.  Returns the items left. */
static size_t
serial_swap(uint64_t *a, size_t n, const unsigned char *flag, const int *box, int trim,
	    int limit, uint64_t *gone, size_t *ngone)
{
	int count[8] = { 0 };
	size_t q = 0;

	*ngone = 0;
	while (q < n) {
		uint64_t id = a[q];
		int rm = trim ? box[id] >= 0 && count[box[id]] >= limit : flag[id];

		if (rm) {
			gone[(*ngone)++] = id;
			a[q] = a[--n];
			continue;
		}
		if (trim && box[id] >= 0)
			count[box[id]]++;
		q++;
	}
	return n;
}

/* slc_swap_replay_run against the loop itself: random removals (half,
 * a few, all) and the per-box trimming, the places of the survivors and
 * the order of the removed. */
static void
test_replay(void)
{
	uint64_t s = 7, a[300], gone[300], cand[300];
	unsigned char flag[300];
	int box[300], cbox[300], trial, good = 1, ntrial = 0;
	slc_err err;

	for (trial = 0; trial < 400; trial++) {
		size_t n = (size_t)(mix(&s) % 300), q, ngone, left, nc = 0;
		int trim = trial % 2, dens = (int)(mix(&s) % 4), limit = 1 + (int)(mix(&s) % 5);
		int count[8] = { 0 };
		trim_ctx t = { cbox, count, limit };
		slc_swap_replay r;

		for (q = 0; q < n; q++) {
			a[q] = q;
			flag[q] = dens == 3 ? 1 : dens == 0 ? mix(&s) % 50 == 0 : mix(&s) % 2;
			/* boxes 0-7 crowded, -1 (uncounted) for the rest */
			box[q] = mix(&s) % 3 ? -1 : (int)(mix(&s) % 8);
			if (trim ? box[q] >= 0 : flag[q]) {
				cbox[nc] = box[q];
				cand[nc++] = q;
			}
		}
		left = serial_swap(a, n, flag, box, trim, limit, gone, &ngone);
		if (slc_swap_replay_run(n, cand, nc, trim ? trim_visit : NULL, &t, &r, &err)) {
			good = 0;
			break;
		}
		good &= r.n == left && r.nremoved == ngone;
		for (q = 0; good && q < left; q++)
			good &= slc_swap_replay_place(&r, a[q]) == q;
		for (q = 0; good && q < ngone; q++)
			good &= cand[r.order[q]] == gone[q];
		ntrial += good;
		slc_swap_replay_free(&r);
	}
	ALL(good, "the swap-remove loop replayed from its candidates: %d arrays (flags, "
	    "per-box trimming) placed and removed in the serial order", ntrial);
	ALL(slc_swap_replay_run(5, (uint64_t[]){ 3, 2 }, 2, NULL, NULL, &(slc_swap_replay){ 0 },
				&err) < 0, "candidates not ascending refused: %s", err.msg);
}

/* A particle of the migration test: id, plane, a payload. */
typedef struct mig_item {
	uint64_t id;
	int32_t k;
	float x;
} mig_item;

/* Particles on every rank (those with id % size == rank) at random
 * planes of nk, migrated to the owners of their planes twice (the
 * planes moved in between), then gathered to rank 0 by id. */
static void
test_migrate(int nk)
{
	uint64_t s = 99, nall = 500;
	mig_item *mine = NULL, *got = NULL, *all_ = NULL;
	size_t n = 0, nget = 0, sent = 0, q, moved = 0;
	int *dest = NULL, good = 1, round;
	slc_err err;

	if (slc_comm_slabs(C, nk, 0, &err)) {
		ALL(0, "migrate: %s", err.msg);
		return;
	}
	mine = calloc(nall, sizeof *mine);
	dest = calloc(nall, sizeof *dest);
	for (q = 0; q < nall; q++) {
		int k = (int)(mix(&s) % (uint64_t)(nk + 2)) - 1;      /* one plane off each end */

		if (q % (uint64_t)C->size == (uint64_t)C->rank) {
			mine[n].id = q;
			mine[n].k = k;
			mine[n++].x = (float)q * 0.5f;
		}
	}
	for (round = 0; round < 2 && good; round++) {
		for (q = 0; q < n; q++) {
			if (round)
				mine[q].k = (mine[q].k + 3 * (int)(mine[q].id % 5)) % nk;
			dest[q] = slc_comm_owner(C, mine[q].k);
		}
		if (slc_migrate(C, mine, n, sizeof *mine, dest, (void **)&got, &nget, &sent, &err)) {
			good = 0;
			break;
		}
		moved += sent;
		for (q = 0; q < nget; q++)
			good &= slc_comm_owner(C, got[q].k) == C->rank;
		free(mine);
		mine = got;
		n = nget;
		dest = realloc(dest, (n ? n : 1) * sizeof *dest);
	}
	if (C->rank == 0)
		all_ = calloc(nall, sizeof *all_);
	good &= !slc_gather_by_id(C, mine, n, sizeof *mine, nall, all_, &err);
	for (q = 0; good && C->rank == 0 && q < nall; q++)
		good &= all_[q].id == q && all_[q].x == (float)q * 0.5f;
	ALL(good && (C->size == 1 || moved > 0), "%llu particles over %d planes migrated to "
	    "their owners (%zu sent from this rank) and gathered in id order",
	    (unsigned long long)nall, nk, moved);
	free(all_);
	free(mine);
	free(dest);
}

/* slc_gather_by_id refuses a count that is not nall (on every rank) and,
 * on rank 0, an id given twice. */
static void
test_gather_bad(void)
{
	mig_item it[2] = { { 2 * (uint64_t)C->rank, 0, 0 }, { 2 * (uint64_t)C->rank + 1, 0, 0 } };
	mig_item *all_ = C->rank == 0 ? calloc(2 * (size_t)C->size + 1, sizeof *all_) : NULL;
	slc_err err;
	int rc;

	rc = slc_gather_by_id(C, it, 2, sizeof *it, 2 * (uint64_t)C->size + 1, all_, &err);
	ALL(rc < 0, "a gather of %d particles, %d expected, refused on every rank: %s",
	    2 * C->size, 2 * C->size + 1, err.msg);
	if (C->rank == 0)
		it[1].id = 0;
	rc = slc_gather_by_id(C, it, 2, sizeof *it, 2 * (uint64_t)C->size, all_, &err);
	ALL(C->rank ? rc == 0 : rc < 0 && strstr(err.msg, "id 0 repeated"),
	    "a particle id given twice refused on rank 0");
	free(all_);
}

/* The bytes of part j of rank r: a length and contents of their own,
 * empty for some. */
static size_t
part_bytes(int r, int j, unsigned char *b)
{
	size_t n = (size_t)((r * 7 + j * 13) % 11) * 37 % 300, q;

	for (q = 0; q < n; q++)
		b[q] = (unsigned char)(r * 131 + j * 17 + q * q * 3);
	return n;
}

/* The crc of every rank's parts in the order of slc_io_crc_parts, from
 * the crcs of the parts, against crc32 of the whole concatenation (every
 * rank makes every part: they depend on the rank number only). */
static void
test_crc_parts(int n)
{
	static const unsigned char head[] = "SLCR head";
	unsigned char b[300];
	uint32_t crc[4], got = 0, want;
	uint64_t len[4];
	slc_err err;
	int j, r, ok;

	want = (uint32_t)crc32(0L, head, sizeof head);
	for (j = 0; j < n; j++)
		for (r = 0; r < C->size; r++)
			want = (uint32_t)crc32(want, b, (uInt)part_bytes(r, j, b));
	for (j = 0; j < n; j++) {
		len[j] = part_bytes(C->rank, j, b);
		crc[j] = (uint32_t)crc32(0L, b, (uInt)len[j]);
	}
	ok = !slc_io_crc_parts(C, (uint32_t)crc32(0L, head, sizeof head), crc, len, n, &got, &err);
	ALL(ok && got == want, "crc of %d parts a rank folded in rank order (crc32_combine): "
	    "%08x, whole %08x", n, got, want);
}

/* A file name every rank knows, made by rank 0. */
static void
shared_temp(char *path, size_t n)
{
	slc_err err;

	if (C->rank == 0) {
		int fd;

		snprintf(path, n, "/tmp/test_comm_io.XXXXXX");
		fd = mkstemp(path);
		if (fd >= 0)
			close(fd);
		else
			path[0] = 0;
	}
	slc_comm_bcast(C, path, n, &err);
}

/* Does slab record s (held planes) hold the planes of whole record w? */
static int
slab_of(const slc_rec *s, const slc_rec *w)
{
	size_t pb = (size_t)w->grid.ni * (size_t)w->grid.nj * 4;

	return s->nk_all == w->grid.nk && s->nchan == 1 &&
	       !memcmp(s->chan[0].data, (const char *)w->chan[0].data + (size_t)s->k0 * pb,
		       (size_t)s->grid.nk * pb);
}

/* whole_frame written raw to a file, read in place as slabs (every rank
 * its planes, the crc from every rank's parts), written back in place
 * (one record with its head made anew): the same bytes; then a damaged
 * byte in the last rank's planes refused on every rank. */
static void
test_io(int nk, int ghost)
{
	char in[64], out[64];
	slc_frame F, W, L;
	slc_io t;
	slc_err err;
	FILE *f = NULL;
	slc_writer *w = NULL;
	size_t q;
	int ok = 1, same = 1;

	slc_frame_init(&F);
	slc_frame_init(&W);
	slc_frame_init(&L);
	slc_io_init(&t);
	whole_frame(&W, nk);
	shared_temp(in, sizeof in);
	shared_temp(out, sizeof out);
	if (C->rank == 0) {
		ok = (f = fopen(in, "wb")) && (w = slc_writer_open(f, 0, &err));
		for (q = 0; ok && q < W.n; q++)
			ok = !slc_write(w, W.r[q], &err);
		ok = ok && !slc_writer_close(w, &err) && !fclose(f);
		ok = ok && !slc_io_scan(in, "u", &F, &t, &err);
	}
	ok = all(ok) && !slc_io_open(C, &t, in, 0, &err) &&
	     !slc_slab_scatter_io(C, &F, &t, "u", ghost, &L, &err) && !slc_io_close(C, &t, &err);
	for (q = 0; ok && q < 4; q++)
		same &= slab_of(L.r[q], W.r[q]) && t.rec[q].head;
	ALL(ok && L.n == 5 && same && !t.rec[4].head && L.r[4]->nk_all == 0,
	    "frame of %d cells read in place as slabs with %d ghost planes", nk, ghost);

	f = NULL;
	if (C->rank == 0)
		ok = (f = fopen(out, "wb")) && (w = slc_writer_open(f, 0, &err));
	ok = all(ok) && !slc_io_open(C, &t, out, 1, &err);
	for (q = 0; ok && q < L.n; q++) {
		if (t.rec[q].head)
			ok = !slc_io_write_slab(C, &t, f, L.r[q], q == 3 ? NULL : t.rec[q].head,
						t.rec[q].head_len, &err);
		else if (C->rank == 0)
			ok = !slc_write_raw(w, F.r[q], &err);
		ok = all(ok);
	}
	ok = !slc_io_close(C, &t, &err) && ok;
	if (C->rank == 0) {
		FILE *a = fopen(in, "rb"), *b;

		ok = ok && !slc_writer_close(w, &err) && !fclose(f);
		b = fopen(out, "rb");
		for (int x = 0, y = 0; ok && a && b && (x != EOF || y != EOF);)
			ok = (x = getc(a)) == (y = getc(b));
		ok = ok && a && b;
		if (a)
			fclose(a);
		if (b)
			fclose(b);
	}
	ALL(ok, "slabs written back in place (a head made anew): the same bytes");

	slc_frame_free(&F);
	slc_frame_free(&L);
	slc_io_free(&t);
	if (C->rank == 0) {
		/* the last sample of 'w' (the last rank's) */
		long at = 0;

		f = fopen(in, "r+b");
		ok = f && !slc_io_scan(in, "u", &F, &t, &err);
		at = ok ? (long)(t.rec[2].at + t.rec[2].head_len) + 4L * 4 * 3 * (nk + 1) - 2 : 0;
		ok = ok && !fseek(f, at, SEEK_SET) && fputc(0x40, f) != EOF;
		if (f)
			fclose(f);
	}
	ok = all(ok) && !slc_io_open(C, &t, in, 0, &err);
	ok = ok && slc_slab_scatter_io(C, &F, &t, "u", ghost, &L, &err) < 0;
	slc_io_close(C, &t, NULL);
	ALL(ok && strstr(err.msg, "record 2 at byte") && strstr(err.msg, "crc mismatch"),
	    "a damaged byte of the last rank's planes read in place refused: %s", err.msg);
	slc_frame_free(&F);
	slc_frame_free(&W);
	slc_frame_free(&L);
	slc_io_free(&t);
	if (C->rank == 0) {
		unlink(in);
		unlink(out);
	}
}

int
main(int argc, char **argv)
{
	slc_err err;
	int nk, g, rc;

	if (!(C = slc_comm_open(&argc, &argv, &err))) {
		printf("not ok 1 - %s\n", err.msg);
		return 1;
	}
	for (nk = 12; nk <= 37; nk += 25)
		for (g = 0; g <= 2; g++)
			test_halo(nk, g);
	test_sums(C->size);
	test_sums(37);
	test_maxmin();
	test_frame(13, 2);
	test_halo_cells(37, 3);
	test_halo_cells(12, 1);
	test_halo_cut(64, 3, 1);
	test_halo_cut(64, 3, 3);
	test_halo_cut(37, 3, 2);
	test_gather_planes(37);
	test_gather_planes(12);
	test_whole_planes(37, 37, 2);
	test_whole_planes(13, 14, 1);
	test_lmin();
	test_chain(37);
	test_components(37);
	test_components(13);
	test_replay();
	test_migrate(37);
	test_migrate(7);
	test_gather_bad();
	test_crc_parts(1);
	test_crc_parts(3);
	test_io(13, 2);
	test_io(12, 1);
	rc = slc_comm_slabs(C, 4 * C->size, 4, &err);
	ALL(rc < 0 && strstr(err.msg, "thinner than 4 ghost planes"),
	    "slabs of 4 planes with 4 ghost planes refused: %s", err.msg);
	ALL(!slc_comm_slabs(C, 4 * C->size, 3, &err), "slabs of 4 planes with 3 ghost planes");
	rc = C->rank == 0 ? ctest_done() : 0;
	slc_comm_close(C);
	return rc;
}
