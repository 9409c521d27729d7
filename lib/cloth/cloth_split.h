/* cloth_split.h: how the mass-spring step (masspring.h) and the
 * self-collision search (collide_self.h) share their work among the
 * ranks of an MPI build (selle2008 thesis §8.2: every rank holds every
 * particle and computes the forces of its own).
 *
 * The work already falls into fixed blocks that make the serial sums
 * independent of the thread count: DOT_BLOCKS element ranges of the
 * vectors, QUERY_BLOCKS ranges of the collision queries.  Rank r of P
 * owns the whole blocks [nb r / P, nb (r + 1) / P), computes their
 * values, and a gather gives every rank every block's bits; sums are
 * then taken over the gathered block partials in block order, as the
 * serial code takes them, so every rank count gives the serial bits.
 *
 * cloth/ knows nothing of MPI: the gather is a callback, which the stage
 * (lib/stage/) sets from its communicator.  A NULL split is the serial
 * build (one rank owning every block).
 */
#ifndef SLC_CLOTH_SPLIT_H
#define SLC_CLOTH_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Ranks at most: every rank owns at least one block of 64. */
#define CLOTH_SPLIT_MAX 64

typedef struct cloth_split {
	int rank, size;         /* this rank, and the ranks (<= CLOTH_SPLIT_MAX) */
	void *ctx;              /* passed to gather */
	/* in place on every rank: rank q's bytes buf[off[q] .. off[q+1])
	 * (off: size + 1 offsets, the same on every rank) from rank q to
	 * every other; collective.  0, or -1 (an MPI error). */
	int (*gather)(void *ctx, void *buf, const size_t *off);
	/* point to point with the npeer ranks peer[] (ascending, the same
	 * pairs on both sides): sbytes[k] bytes of sbuf[k] to peer[k] and
	 * rbytes[k] from it into rbuf[k]; collective among the peers, or
	 * NULL: no point to point (cloth_halo_swap gathers instead).  0, or
	 * -1 (an MPI error). */
	int (*swap)(void *ctx, int npeer, const int *peer,
		    void *const *sbuf, const size_t *sbytes,
		    void *const *rbuf, const size_t *rbytes);
	int failed;             /* a gather failed: the step's results are
				   void (the caller reports it) */
	double t_comm;          /* wall-clock seconds spent in gathers and
				   swaps */
} cloth_split;

/* This rank's blocks [*b0, *b1) of nb (all of them when sp is NULL). */
void cloth_split_blocks(const cloth_split *sp, int nb, int *b0, int *b1);

/* The elements [*e0, *e1) of an array of n cut into nb blocks (block b:
 * [n b / nb, n (b + 1) / nb)) that this rank's blocks cover. */
void cloth_split_range(const cloth_split *sp, size_t n, int nb, size_t *e0, size_t *e1);

/* Every rank's elements of an array of n elements of esize bytes cut
 * into nb blocks, each from its owner, into buf on every rank.
 * Collective; a no-op when sp is NULL.  0, or -1 (sp->failed set). */
int cloth_split_gather(cloth_split *sp, void *buf, size_t n, size_t esize, int nb);

/* The same with rank q's part ending at element end[q] (end[size - 1]
 * = n): parts of any length, in rank order. */
int cloth_split_gather_parts(cloth_split *sp, void *buf, const size_t *end, size_t esize);

/* A fixed partition of a body's 3np-element vectors into units, the terms
 * of its sums: each unit's partial is summed in element order and the
 * partials in unit order, on any number of ranks, so that every rank
 * count gives the serial bits.  A rank owns a run of whole units.
 *
 * Cloth: DOT_BLOCKS equal element ranges, rank r of P the blocks
 * [nb r / P, nb (r + 1) / P) (balanced 0).  Hair: runs of whole strands
 * with about equal particle counts, a strand's axis points and its
 * virtuals two ranges (nseg 2), ranks owning runs of about equal element
 * counts (balanced 1), a strand never cut. */
typedef struct cloth_units {
	int nunit;
	int nseg;               /* element ranges a unit: 1 or 2 */
	size_t *start;          /* nseg (nunit + 1): unit u's range k is the
				   elements [start[k (nunit + 1) + u],
				   start[k (nunit + 1) + u + 1]) */
	size_t *chain;          /* nunit + 1: unit u holds the chains
				   (band_chol.h) [chain[u], chain[u + 1]), or
				   NULL: chains, if any, are not per unit */
	int balanced;           /* 1: runs of about equal element counts;
				   0: of about equal unit counts */
} cloth_units;

/* Rank q's units [*u0, *u1) of u under the split sp (all of them when sp
 * is NULL); every unit is owned by exactly one rank. */
void cloth_units_owned(const cloth_units *u, const cloth_split *sp, int q,
		       int *u0, int *u1);

/* Every rank's elements of the vector a (3np doubles, cut into u's
 * units) into a on every rank.  Collective; a no-op when sp is NULL or
 * has one rank.  0, or -1 (sp->failed set). */
int cloth_units_share(cloth_split *sp, const cloth_units *u, double *a);

/* Every rank's entries of buf, one of esize bytes per unit, into buf on
 * every rank.  Collective, as cloth_units_share. */
int cloth_units_gather(cloth_split *sp, const cloth_units *u, void *buf,
		       size_t esize);

/* The halo of a rank's rows of a block-sparse product (cloth_sys.h): the
 * particles outside its own rows that its rows' columns name, each from
 * the rank that computes it, and the particles of its own that the other
 * ranks' rows name, to each of them.  A plan made from the sparsity at
 * the start of a solve (springs may come and go between solves: hair's
 * stiction), used for every product of the CG: the
 * rank's halo values are the owner's bits, as a gather would give, for
 * a few rows' worth of bytes instead of the whole vector
 * (selle2008 thesis §8.2: the nodes a rank needs are its own and their
 * neighbours over the springs). */
typedef struct cloth_halo {
	int npeer;              /* ranks exchanged with, ascending */
	int peer[CLOTH_SPLIT_MAX];
	size_t *soff, *roff;    /* npeer + 1 offsets into sidx, ridx */
	uint32_t *sidx, *ridx;  /* particles sent to / received from each
				   peer, ascending within a peer */
	double *sbuf, *rbuf;    /* 3 doubles a particle */
	void *sp_[CLOTH_SPLIT_MAX], *rp_[CLOTH_SPLIT_MAX];
	size_t sb_[CLOTH_SPLIT_MAX], rb_[CLOTH_SPLIT_MAX];
} cloth_halo;

/* Make h for rank sp->rank of the np particles whose rows' columns are
 * col[rp[i] .. rp[i+1]) (every rank holds the same): rank q computes the
 * rows of its nseg particle ranges [lo[q nseg + g], hi[q nseg + g]),
 * and owner[i] (< sp->size) is the rank whose values of particle i are
 * sent (one that computes row i).  No communication.  0, or -1 with err
 * (memory; h is left empty). */
int cloth_halo_build(cloth_halo *h, const cloth_split *sp, size_t np,
		     const size_t *rp, const uint32_t *col, int nseg,
		     const size_t *lo, const size_t *hi, const uint8_t *owner,
		     slc_err *err);

void cloth_halo_free(cloth_halo *h);

/* Particles (3 doubles each) of a: this rank's sent, its halo received,
 * from their owners, in place (h made by cloth_halo_build for sp, whose
 * swap is set).  Collective among the peers; a no-op when sp is NULL or
 * has one rank.  0, or -1 (sp->failed set). */
int cloth_halo_swap(cloth_split *sp, cloth_halo *h, double *a);

#endif
