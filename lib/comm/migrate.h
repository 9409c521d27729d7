/* migrate.h: particles owned by the k slab they are in (comm/mpicomm.h):
 * migrated to their new owner after a move, their serial order kept
 * across removals made on many ranks, and gathered whole in that order.
 *
 * A particle set of the serial program is an array in which removals
 * move the last particle into the place of the removed one (a swap
 * remove, in a loop over the array from its start) and new particles are
 * appended.  Over ranks, each particle carries its index in the serial
 * array (its id), each rank holds the particles in its planes, and after
 * a removal pass every rank replays the serial loop over the removed ids
 * alone (slc_swap_replay): the removal of a particle depends on that
 * particle only (or, for the per-box trimming of the markers, on the
 * particles met before it in its box, all on one rank), so the ids
 * removed, gathered from every rank, say which particles the loop moves
 * where.  Rank 0 then writes the particles in id order: the serial bytes.
 *
 * Only the MPI builds (-DSLC_MPI) compile comm/.
 */
#ifndef SLC_MIGRATE_H
#define SLC_MIGRATE_H

#include <stddef.h>
#include <stdint.h>

#include "comm/mpicomm.h"
#include "core/err.h"

/* The rank owning cell plane k of the slabs (k below 0 or past the last
 * plane: the first or last rank). */
int slc_comm_owner(const slc_comm *c, int k);

/* Move items to their owners: items[0..n-1], `size` bytes each, item q
 * to rank dest[q].  *out (malloc'd, at least one byte) gets the items
 * whose dest is this rank, in their order, then those received, from
 * rank 0 up, each rank's in its order; *nout their number, *sent the
 * number that left.  Collective.  0, or -1 with err (memory, MPI). */
int slc_migrate(slc_comm *c, const void *items, size_t n, size_t size, const int *dest,
		void **out, size_t *nout, size_t *sent, slc_err *err);

/* Every rank's items (n here, `size` bytes each) on every rank, in rank
 * order: *out (malloc'd, at least one byte), *nout.  Collective.  0, or
 * -1 with err. */
int slc_allgather_items(slc_comm *c, const void *items, size_t n, size_t size, void **out,
			size_t *nout, slc_err *err);

/* Rank 0: the items of every rank placed by their id, the uint64_t at
 * the start of each item (ids 0 .. nall-1, each once over the ranks),
 * into out (nall items; rank 0 only, may be NULL elsewhere; NULL on
 * rank 0 fails the gather on every rank).
 * Collective.  0, or -1 with err (memory, MPI, an id out of range or
 * the count not nall). */
int slc_gather_by_id(slc_comm *c, const void *items, size_t n, size_t size, uint64_t nall,
		     void *out, slc_err *err);

/* In place over every rank, exact: a[q] the sum (uint64_t), the largest
 * or the smallest (float) of the ranks' a[q], q < n.  0, or -1 with err. */
int slc_comm_count_sum(slc_comm *c, uint64_t *a, int n, slc_err *err);
int slc_comm_fold_max(slc_comm *c, float *a, size_t n, slc_err *err);
int slc_comm_fold_min(slc_comm *c, float *a, size_t n, slc_err *err);

/* Is candidate q (an index into the replay's cand) removed when the loop
 * meets it?  Called in the order the serial loop meets them. */
typedef int slc_swap_visit_fn(void *ctx, size_t q);

/* What a swap-remove loop over an array of n items did. */
typedef struct slc_swap_replay {
	uint64_t n;             /* items left */
	uint64_t *from, *to;    /* survivor from[m] moved to place to[m],
				   m < nmove, from ascending */
	size_t nmove;
	size_t *order;          /* the removed candidates (indices into
				   cand) in the order the loop removed them */
	size_t nremoved;
} slc_swap_replay;

/* Replay the loop `q = 0; while (q < n) { if (removed(a[q])) { a[q] =
 * a[--n]; continue; } q++; }` over n items of which only the candidates
 * cand[0..ncand-1] (item indices, ascending, distinct) may be removed:
 * visit(ctx, m) says whether candidate m goes when the loop meets it
 * (NULL: every candidate goes).  O(ncand) besides the sort of the moves.
 * 0, or -1 with err (memory, cand not ascending or past n); free out
 * with slc_swap_replay_free either way. */
int slc_swap_replay_run(uint64_t n, const uint64_t *cand, size_t ncand, slc_swap_visit_fn *visit,
			void *ctx, slc_swap_replay *out, slc_err *err);

/* The new place of survivor `id` (in the array of n items the replay
 * ran over): id itself, or where the loop moved it. */
uint64_t slc_swap_replay_place(const slc_swap_replay *r, uint64_t id);

void slc_swap_replay_free(slc_swap_replay *r);

#endif
