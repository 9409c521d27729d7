/* mpicomm.h: the communicator of the MPI builds (core/comm.h's struct
 * slc_comm): the ranks, the decomposition of a grid into k slabs, and the
 * reductions whose results are the same bits on every rank and for every
 * rank count.
 *
 * A grid of nk cells along k is cut into one slab of whole k planes per
 * rank, rank r owning cells [k0[r], k0[r+1]) (k0[r] = r nk / P); a sample
 * plane of a face or node grid (nk + 1 planes) belongs to the rank owning
 * the cell above it, the last one to the last rank.  Each rank holds its
 * planes and `ghost` planes of each neighbour (clipped to the grid): the
 * halo (comm/halo.h) refreshes them from their owners.
 *
 * Sums: a floating point sum depends on the order of its terms, and an
 * MPI float reduction's order is the library's (it may even differ
 * between ranks).  Every sum here is of partial sums of whole k planes,
 * gathered to every rank and added in plane order from 0: the serial code
 * adds the same plane partials in the same order, so the bits agree.
 * Maxima and minima are exact and use MPI's.
 *
 * Only the MPI builds (-DSLC_MPI) compile comm/.
 */
#ifndef SLC_MPICOMM_H
#define SLC_MPICOMM_H

#include <mpi.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/err.h"

struct slc_comm {
	MPI_Comm c;
	int rank, size;
	int nk;                 /* cells along k of the decomposed grid
				   (0 before slc_comm_slabs) */
	int *k0;                /* size + 1 entries: rank r owns cells
				   k0[r] .. k0[r+1]-1 */
	int ghost;              /* ghost planes each side */
	double *gbuf;           /* slc_comm_plane_sums' gather buffer */
	size_t gcap;            /* its doubles */
	int *cnt, *disp;        /* size entries each, for Allgatherv */
};

/* Time spent communicating, which the MPI builds' tools print under -v
 * ("comm: ranks=P wall=S halo=N,B,S reduce=N,B,S gather=N,B,S
 * frame=N,B,S share=F": calls, bytes this rank sent and received, and
 * seconds of MPI_Wtime per kind; share the halo, reduction and gather
 * seconds over the wall seconds since slc_comm_open).  Every function of
 * comm/ counts itself under its kind; a call made inside another (a send
 * inside a chained sum) counts once, in the outer one, with its bytes.  Code that calls
 * MPI itself wraps the call in slc_comm_time_begin and _end to be
 * counted.  Process-wide, kept after slc_comm_close. */
enum slc_comm_kind {
	SLC_COMM_HALO,          /* ghost planes from the neighbours */
	SLC_COMM_REDUCE,        /* maxima, ordered sums, chained sums */
	SLC_COMM_GATHER,        /* planes or arrays gathered to every rank */
	SLC_COMM_FRAME,         /* the frame in and out: scatter, gather to
				   rank 0, broadcasts, MPI-IO */
	SLC_COMM_NKIND
};

typedef struct slc_comm_time {
	uint64_t calls[SLC_COMM_NKIND], bytes[SLC_COMM_NKIND];
	double sec[SLC_COMM_NKIND];
	double wall;            /* seconds from slc_comm_open to slc_comm_close
				   (or to now) */
} slc_comm_time;

/* The kinds' names in the -v line: "halo", "reduce", "gather", "frame". */
extern const char *const slc_comm_kind_name[SLC_COMM_NKIND];

/* Start timing a communication (the time, or -1 inside another). */
double slc_comm_time_begin(void);

/* End it: kind, t0 from slc_comm_time_begin, bytes sent and received
 * (besides those of the timed calls inside it, which add theirs). */
void slc_comm_time_end(int kind, double t0, uint64_t bytes);

/* The counts so far. */
void slc_comm_time_get(slc_comm_time *t);

/* Initialize MPI (threads funneled: OpenMP inside a rank, MPI from its
 * master thread) and return the communicator of every rank, or NULL with
 * err.  Until slc_comm_close, a process that exits aborts every rank
 * (MPI_Abort with its exit status; with one rank MPI is only finalized),
 * so that an error on one rank never leaves the others waiting. */
slc_comm *slc_comm_open(int *argc, char ***argv, slc_err *err);

/* Finalize MPI and free c (NULL: only finalize). */
void slc_comm_close(slc_comm *c);

/* Decompose a grid of nk cells along k with `ghost` planes each side.
 * 0, or -1 with err when a slab is thinner than ghost + 1 planes (a
 * ghost plane and the face above it must come from the neighbour):
 * "a slab of N cells along k, thinner than G ghost planes and one", or
 * memory.  Collective in effect: every rank computes the same. */
int slc_comm_slabs(slc_comm *c, int nk, int ghost, slc_err *err);

/* The thinnest slab of nk cells cut for size ranks. */
int slc_comm_thinnest(int nk, int size);

/* This rank's owned cells [*k0, *k1) and those it holds, ghosts
 * included, [*lo, *hi) (after slc_comm_slabs). */
void slc_comm_owned(const slc_comm *c, int *k0, int *k1);
void slc_comm_held(const slc_comm *c, int rank, int *lo, int *hi);

/* In place over every rank: v[q] the largest (smallest) of the ranks'
 * v[q], q < n, exact.  0, or -1 with err (an MPI error). */
int slc_comm_max(slc_comm *c, double *v, int n, slc_err *err);
int slc_comm_min(slc_comm *c, double *v, int n, slc_err *err);

/* The same for ints (a flag set on any rank: the max). */
int slc_comm_imax(slc_comm *c, int *v, int n, slc_err *err);

/* v[q] the smallest of the ranks' v[q], 64-bit integers (a label). */
int slc_comm_lmin(slc_comm *c, int64_t *v, int n, slc_err *err);

/* nsum sums over the whole grid from plane partials: part[p nsum + s] is
 * the partial sum s of this rank's owned cell plane k0 + p (p < k1 - k0);
 * sum[s] = ((0 + P_0) + P_1) + ... + P_{nk-1} over every rank's planes in
 * plane order, the same on every rank.  0, or -1 with err (memory, MPI). */
int slc_comm_plane_sums(slc_comm *c, const double *part, int nsum, double *sum,
			slc_err *err);

/* Every rank's planes of a whole grid into a on every rank, in place:
 * rank r owns planes own[r] .. own[r+1]-1 (own: size + 1 entries, from 0
 * to the grid's planes), pb bytes each, and holds them in a at their
 * place.  A coarse level of a solver, gathered to be solved redundantly.
 * 0, or -1 with err (a count past an int, MPI). */
int slc_comm_gather_planes(slc_comm *c, void *a, size_t pb, const int *own, slc_err *err);

/* The whole grid of nall sample planes (pb bytes each) into whole on
 * every rank, from each rank's slab (slab: planes k0 .. of the grid,
 * after slc_comm_slabs) of which it sends the planes it owns: its cell
 * planes, the last rank also those past the last cell (the top faces).
 * Collective; 0, or -1 with err (memory, MPI). */
int slc_comm_whole_planes(slc_comm *c, const void *slab, int k0, int nall, void *whole,
			  size_t pb, slc_err *err);

/* A sum in grid order over the ranks, each adding its owned cells in
 * turn: slc_comm_chain_in waits for the running sums (n bytes) of the
 * rank below (rank 0: none, buf as the caller set it), the rank adds its
 * own terms, slc_comm_chain_out passes them to the rank above, and
 * slc_comm_chain_end gives every rank the last rank's, the whole sum
 * (several buffers: every chain_in, then every chain_out, then every
 * chain_end, in the same order).  The same terms in the same order as
 * one process adding every cell: the same bits, for per-region sums that
 * plane partials cannot hold.  Sequential across the ranks: for sums
 * made a few times a solve.  0, or -1 with err. */
int slc_comm_chain_in(slc_comm *c, void *buf, size_t n, slc_err *err);
int slc_comm_chain_out(slc_comm *c, const void *buf, size_t n, slc_err *err);
int slc_comm_chain_end(slc_comm *c, void *buf, size_t n, slc_err *err);

/* Broadcast n bytes from rank 0 (chunked: any size_t).  0 or -1. */
int slc_comm_bcast(slc_comm *c, void *buf, size_t n, slc_err *err);

/* Point to point of n bytes (chunked), tag: 0 or -1. */
int slc_comm_send(slc_comm *c, const void *buf, size_t n, int to, int tag, slc_err *err);
int slc_comm_recv(slc_comm *c, void *buf, size_t n, int from, int tag, slc_err *err);

#endif
