/* mg.c: the multigrid V-cycle preconditioner (see mg.h).
 *
 * Storage is single precision (the preconditioner only has to be close to
 * A^-1; conjugate gradient keeps its vectors and residual in double), and
 * every sweep runs row by row with the neighbour rows as pointers (a row
 * of zeros outside the grid), so the inner loop over i has no branch and
 * vectorizes.
 *
 * Prolongation is written as the full trilinear interpolation of the
 * coarse x, zero outside the grid and on every coarse cell that is not
 * fluid (the V-cycle keeps x at 0 there), plus a per-cell correction: the
 * weight of the corners that are solid or outside the grid, which the
 * Neumann rule moves to the parent (woff, in 64ths).  Restriction is its
 * transpose.  Both are then separable row operations with no per-cell
 * case analysis, and the correction only runs where it is nonzero. */
#include "fluid/mg.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#ifdef SLC_MPI
#include "comm/halo.h"
#include "comm/mpicomm.h"
#endif

#define MG_MAXLEV 16
/* Coarse levels with at most this many cells (64^3) run on one thread
 * (the finest from PS_PAR_MIN up): their sweeps cost less than the
 * barriers of their parallel regions, which on shared cores wait for a
 * descheduled thread. */
#define MG_PAR_MIN 262144
/* Damped Jacobi weight 2/3 and sweeps before / after the coarse
 * correction on the finest level (twice as many on the coarser ones,
 * which cost an eighth as much). */
#define MG_OMEGA 0.6666667f
#define MG_PRE 2
/* Symmetric Gauss-Seidel sweep pairs that solve the coarsest level, and
 * its largest size. */
#define MG_COARSE_SWEEPS 20
#define MG_COARSE_CELLS 64
/* Width of the boundary band (cells) and its Gauss-Seidel sweeps before
 * and after the coarse correction (McAdams et al. 2010 §4: boundary
 * smoothing). */
#define MG_BAND 1
#define MG_BAND_SWEEPS 2
/* Over MPI ranks, the ghost planes each side of a coarse level cut in
 * k slabs, and the thinnest slab a coarse level keeps cut.  Restricting
 * onto the coarse planes a rank owns reads the residual of the fine
 * planes up to two past its own (coarse plane K gathers fine planes 2K-1
 * .. 2K+2, and K's owner owns fine plane 2K), so x up to three past its
 * own: three ghost planes.  A halo comes from the neighbours only, so a
 * slab is at least as thick as its ghosts; four planes, since a slab of
 * t planes receives 2 planes (one each side) for every t it smooths,
 * in about a dozen messages a V-cycle on the level, and below t = 4 that
 * costs more than gathering the level once a V-cycle and solving it
 * with every coarser one (under 8/7 of its cells) on every rank.
 * Halo widths: one plane for the prolongation, two for a pair of
 * Jacobi sweeps (smooth) or a red-black Gauss-Seidel sweep (band_gs),
 * three before the restriction (x), two for a coarse right-hand side. */
#define MG_GHOST 3
#define MG_MIN_SLAB 4
#define MG_HALO_SWEEP 1
#define MG_HALO_RESTRICT 3
#define MG_HALO_RHS 2
/* Padding of the row buffers: index -1 and two past the end are read as
 * zeros by the restriction and the prolongation along i. */
#define MG_PAD 4

/* Neighbours of a Gauss-Seidel cell that exist (bits of gs_cell). */
enum { NB_IM = 1, NB_IP = 2, NB_JM = 4, NB_JP = 8, NB_KM = 16, NB_KP = 32 };

typedef struct level {
	int ni, nj, nk;
	size_t n, sj, sk;
	const uint8_t *type;        /* PS_* (level 0: the system's) */
	uint8_t *otype;             /* owned type of a coarse level */
	const float *fw[3];         /* level 0: the system's face weights */
	float *rw[3];               /* coarse levels: face weight between c
				       and c+1 (setup) */
	const float *cw[3];         /* coupling to c+1 when both are fluid */
	float *ocw[3];              /* owned couplings of a coarse level */
	float *diag;                /* 0 off the fluid cells */
	float *invd;                /* omega / diag, 0 where diag is not positive */
	uint8_t *woff;              /* weight (64ths) of the next coarser
				       level's corners that are solid or
				       outside, moved to the parent */
	uint8_t *rowoff;            /* per row (j + nj k): woff nonzero
				       inside the row (0 < i < ni-1) */
	int open;                   /* box faces open (PS_BC_OPEN): p = 0 outside */
	int par;                    /* loops run in parallel */
	float *x, *b, *t;
	size_t nband;               /* cells Gauss-Seidel visits: the boundary
				       band, red cells ((i + j + k) even)
				       then black ones, each in grid order;
				       the whole coarsest level in grid order */
	size_t nred;                /* red cells of the band */
	size_t gsown[2][2];         /* [red, black]: the band cells of the
				       owned planes, band[gsown[c][0] ..
				       gsown[c][1]-1] (over ranks the band
				       also has the ghost plane next to the
				       slab each side: band_gs) */
	size_t *band;
	uint8_t *bandnb;            /* NB_* of each band cell */
	float *bandrd;              /* 1 / diag of each band cell */
	/* An MPI build's k slab: the level holds the planes kof ..
	 * kof+nk-1 of nkg, this rank owning the local planes ko0 .. ko1-1
	 * (global own[rank] .. own[rank+1]-1, own: size + 1 entries) and
	 * the others (ghost each side, clipped to the grid) ghosts
	 * refreshed from their owners; cown: the planes of the next
	 * coarser level each rank restricts onto (coarse plane K is the
	 * owner's of fine plane 2K), that level's own when it is cut too,
	 * else gathered whole.  comm NULL: the level is whole on every
	 * rank (kof 0, nkg nk, ko0 0, ko1 nk). */
	slc_comm *comm;
	int kof, nkg, ko0, ko1, ghost;
	int *own, *cown;
} level;

struct mg {
	int nl;
	float *zero;                /* a row of zeros, the longest level's */
	float *rowbuf;              /* row buffers per thread (rowlen each) */
	float *ring;                /* three finest-level planes per thread */
	double *part;               /* per-k-slab sums of mg_apply */
	float *cplane;              /* eight coarse planes per thread
				       (restriction) */
	size_t rowlen;
	int nthread;
	const psys *ps;             /* the system (plane sums, the failure
				       flag and the seconds of exchanges) */
	level lv[MG_MAXLEV];
};

static void
level_free(level *L)
{
	free(L->otype);
	free(L->diag);
	free(L->invd);
	for (int a = 0; a < 3; a++) {
		free(L->ocw[a]);
		free(L->rw[a]);
	}
	free(L->woff);
	free(L->rowoff);
	free(L->band);
	free(L->bandnb);
	free(L->bandrd);
	free(L->x);
	free(L->b);
	free(L->t);
	free(L->own);
	free(L->cown);
	memset(L, 0, sizeof *L);
}

static void
level_dims(level *L, int ni, int nj, int nk)
{
	L->ni = ni, L->nj = nj, L->nk = nk;
	L->sj = (size_t)ni, L->sk = (size_t)ni * nj;
	L->n = L->sk * nk;
	L->nkg = nk;
	L->kof = 0, L->ko0 = 0, L->ko1 = nk;
}

/* The `width` ghost planes nearest the owned ones of L's cell array a
 * (esize bytes a cell) from their owners, when L is cut.  A failure sets
 * the system's cfail; the time goes to its tcomm. */
static void
level_halo(const mg *m, const level *L, void *a, size_t esize, int width)
{
#ifdef SLC_MPI
	slc_err err;

	if (!L->comm)
		return;
	double t = MPI_Wtime();
	if (slc_halo_cut(L->comm, a, esize * L->sk, L->own, L->nkg, L->ghost, width, &err))
		*m->ps->cfail = 1;
	*m->ps->tcomm += MPI_Wtime() - t;
#else
	(void)m;
	(void)L;
	(void)a;
	(void)esize;
	(void)width;
#endif
}

/* The coarse planes [*K0, *K1) (global) the restriction onto C computes
 * from F: every plane, or over ranks those of the fine planes this rank
 * owns (F->cown). */
static void
coarse_span(const level *F, const level *C, int *K0, int *K1)
{
	*K0 = 0, *K1 = C->nkg;
#ifdef SLC_MPI
	if (F->comm) {
		*K0 = F->cown[F->comm->rank];
		*K1 = F->cown[F->comm->rank + 1];
	}
#else
	(void)F;
#endif
}

/* Over ranks, C's array a (esize bytes a cell) after the restriction
 * wrote the coarse planes this rank owns (coarse_span): its `width`
 * ghost planes from their owners when C is cut, or every rank's planes
 * gathered whole on every rank when only F is.  A failure sets the
 * system's cfail; the time goes to its tcomm. */
static void
coarse_share(const mg *m, const level *F, const level *C, void *a, size_t esize, int width)
{
#ifdef SLC_MPI
	slc_err err;

	if (C->comm) {
		level_halo(m, C, a, esize, width);
		return;
	}
	if (!F->comm)
		return;
	double t = MPI_Wtime();
	if (slc_comm_gather_planes(F->comm, a, esize * C->sk, F->cown, &err))
		*m->ps->cfail = 1;
	*m->ps->tcomm += MPI_Wtime() - t;
#else
	(void)m;
	(void)F;
	(void)C;
	(void)a;
	(void)esize;
	(void)width;
#endif
}

/* The weights of the faces between the cells q and q + e_a of F:
 * w[q0 s[0] + q1 s[1] + q2 s[2]] (level 0: the system's face grids,
 * coarser levels: rw). */
static const float *
face_w(const level *F, int a, size_t s[3])
{
	size_t ni = (size_t)F->ni, nj = (size_t)F->nj;

	if (!F->fw[a]) {
		s[0] = 1, s[1] = F->sj, s[2] = F->sk;
		return F->rw[a];
	}
	if (a == 0) {
		s[0] = 1, s[1] = ni + 1, s[2] = (ni + 1) * nj;
		return F->fw[0] + 1;
	}
	if (a == 1) {
		s[0] = 1, s[1] = ni, s[2] = ni * (nj + 1);
		return F->fw[1] + ni;
	}
	s[0] = 1, s[1] = ni, s[2] = ni * nj;
	return F->fw[2] + ni * nj;
}

/* A level of ni x nj x nkg cells, the nl-th, is the coarsest: the
 * deepest allowed, small enough to solve by sweeps, or too small to
 * coarsen (an axis of one cell, a 2D grid, is not coarsened). */
static int
level_last(int nl, int ni, int nj, int nkg)
{
	return nl == MG_MAXLEV || (size_t)ni * (size_t)nj * (size_t)nkg <= MG_COARSE_CELLS ||
	       (ni < 4 && nj < 4 && nkg < 4);
}

/* Over ranks, with F cut: F->cown, and C cut too (its own, ghosts, the
 * planes this rank holds) when it is not the coarsest (the nl-th level)
 * and every rank's slab of it is MG_MIN_SLAB planes at least.  0, or -1
 * with err (memory). */
static int
coarse_cut(level *F, level *C, int nl, slc_err *err)
{
#ifdef SLC_MPI
	slc_comm *c = F->comm;
	int thin = C->nkg;

	if (!c)
		return 0;
	if (!(F->cown = slc_calloc((size_t)c->size + 1, sizeof *F->cown, err)))
		return -1;
	for (int r = 0; r <= c->size; r++)
		F->cown[r] = (F->own[r] + 1) / 2;
	for (int r = 0; r < c->size; r++)
		if (F->cown[r + 1] - F->cown[r] < thin)
			thin = F->cown[r + 1] - F->cown[r];
	if (level_last(nl, C->ni, C->nj, C->nkg) || thin < MG_MIN_SLAB)
		return 0;
	if (!(C->own = slc_malloc((size_t)c->size + 1, sizeof *C->own, err)))
		return -1;
	memcpy(C->own, F->cown, ((size_t)c->size + 1) * sizeof *C->own);
	int lo = C->own[c->rank] - MG_GHOST, hi = C->own[c->rank + 1] + MG_GHOST, nkg = C->nkg;
	lo = lo < 0 ? 0 : lo;
	hi = hi > nkg ? nkg : hi;
	level_dims(C, C->ni, C->nj, hi - lo);
	C->comm = c;
	C->ghost = MG_GHOST;
	C->kof = lo, C->nkg = nkg;
	C->ko0 = C->own[c->rank] - lo, C->ko1 = C->own[c->rank + 1] - lo;
#else
	(void)F;
	(void)C;
	(void)nl;
	(void)err;
#endif
	return 0;
}

/* Allocate coarse level C, the nl-th, for the finer level F: half its
 * cells along each axis (rounded up); over ranks cut in k slabs or whole
 * (coarse_cut). */
static int
coarse_alloc(level *F, level *C, int nl, slc_err *err)
{
	level_dims(C, (F->ni + 1) / 2, (F->nj + 1) / 2, (F->nkg + 1) / 2);
	if (coarse_cut(F, C, nl, err))
		return -1;
	C->open = F->open;
	C->par = C->n > MG_PAR_MIN;
	C->type = C->otype = slc_calloc(C->n, 1, err);
	C->diag = slc_calloc(C->n, sizeof *C->diag, err);
	for (int a = 0; a < 3; a++) {
		C->rw[a] = slc_calloc(C->n, sizeof *C->rw[a], err);
		C->cw[a] = C->ocw[a] = slc_calloc(C->n, sizeof *C->ocw[a], err);
		if (!C->rw[a] || !C->ocw[a])
			return -1;
	}
	if (!C->otype || !C->diag)
		return -1;
	return 0;
}

/* The type of coarse cell (I, J, K) from its (up to) eight children:
 * air when any child is (McAdams et al. 2010's rule, mg.h), else fluid when any
 * child is, else off. */
static inline uint8_t
coarse_type(const level *F, int I, int J, int K)
{
	int air = 0, fluid = 0;

	for (int d = 0; d < 8; d++) {
		int i = 2 * I + (d & 1), j = 2 * J + (d >> 1 & 1), k = 2 * K + (d >> 2 & 1);
		if (i >= F->ni || j >= F->nj || k >= F->nkg)
			continue;
		uint8_t t = F->type[(size_t)i + F->sj * j + F->sk * (k - F->kof)];
		air |= t == PS_AIR;
		fluid |= t == PS_FLUID;
	}
	return air ? PS_AIR : fluid ? PS_FLUID : PS_OFF;
}

/* The weight of the coarse face between cell P = (I, J, K) of C and its
 * +a neighbour: the fluid fraction of its (2dx)^3 control volume
 * (batty2007 §2.1's weight, one level up), which the fine face control
 * volumes tile: along a, the fine faces at fine planes 2I+1, 2I+2, 2I+3
 * cover 1/4, 1/2, 1/4 of it; across a, the 2x2 fine columns cover a
 * quarter each.  Sampling the middle plane alone lets a thin solid or a
 * cut cell next to it vanish from the coarse operator, and the V-cycle
 * then grows with n.  fw, fs: F's face weights and their strides
 * (face_w). */
static inline float
coarse_face_weight(const level *F, const float *const fw[3], size_t fs[3][3],
		   const int P[3], int a)
{
	int Fd[3] = {F->ni, F->nj, F->nkg};
	int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
	const size_t *st = fs[a];
	double s = 0;
	int cnt = 0;

	for (int e = 0; e < 4; e++) {
		int q[3];
		q[a] = 2 * P[a] + 1;
		q[b1] = 2 * P[b1] + (e & 1);
		q[b2] = 2 * P[b2] + (e >> 1);
		if (q[a] + 1 >= Fd[a] || q[b1] >= Fd[b1] || q[b2] >= Fd[b2])
			continue;
		const float *w = fw[a] + st[0] * q[0] + st[1] * q[1] + st[2] * (q[2] - F->kof);
		double w1 = w[0], w0 = *(w - st[a]);
		double w2 = q[a] + 2 < Fd[a] ? w[st[a]] : w1;
		s += 0.25 * w0 + 0.5 * w1 + 0.25 * w2;
		cnt++;
	}
	return cnt ? (float)(s / cnt) : 0;
}

/* The cell types and face weights of C's planes this rank computes
 * (coarse_span) from those of F. */
static void
coarse_restrict(const level *F, level *C)
{
	size_t fs[3][3];
	const float *fw[3] = {face_w(F, 0, fs[0]), face_w(F, 1, fs[1]), face_w(F, 2, fs[2])};
	int K0, K1;

	coarse_span(F, C, &K0, &K1);
#pragma omp parallel for schedule(static) if (C->par)
	for (int K = K0; K < K1; K++)
		for (int J = 0; J < C->nj; J++)
			for (int I = 0; I < C->ni; I++) {
				size_t c = (size_t)I + C->sj * J + C->sk * (size_t)(K - C->kof);
				int N[3] = {C->ni, C->nj, C->nkg}, P[3] = {I, J, K};
				C->otype[c] = coarse_type(F, I, J, K);
				for (int a = 0; a < 3; a++)
					if (P[a] + 1 < N[a])
						C->rw[a][c] = coarse_face_weight(F, fw, fs, P, a);
			}
}

/* The couplings and the diagonal of C from its types and face weights
 * (theta = 1 on coarse levels: no ghost fluid), on every plane it holds:
 * over ranks those of a ghost plane at the edge of the slab lack the
 * plane beyond, and nothing reads them (MG_GHOST). */
static void
coarse_assemble(level *C)
{
	size_t cj = C->sj, ck = C->sk;

#pragma omp parallel for schedule(static) if (C->par)
	for (int K = 0; K < C->nk; K++)
		for (int J = 0; J < C->nj; J++)
			for (int I = 0; I < C->ni; I++) {
				size_t c = (size_t)I + cj * J + ck * K;
				if (C->otype[c] != PS_FLUID)
					continue;
				int P[3] = {I, J, K}, N[3] = {C->ni, C->nj, C->nk};
				size_t st[3] = {1, cj, ck};
				double d = 0;
				for (int a = 0; a < 3; a++) {
					if (P[a] + 1 < N[a]) {
						uint8_t t = C->otype[c + st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c];
						if (t == PS_FLUID)
							C->ocw[a][c] = C->rw[a][c];
					}
					if (P[a] > 0) {
						uint8_t t = C->otype[c - st[a]];
						if (t != PS_OFF)
							d += C->rw[a][c - st[a]];
					}
					/* an open box face (pressure 0 outside),
					 * along k in the whole grid's numbering */
					int Pg = a == 2 ? K + C->kof : P[a];
					int Ng = a == 2 ? C->nkg : N[a];
					if (C->open && Ng > 1)
						d += (Pg == 0) + (Pg + 1 == Ng);
				}
				C->diag[c] = (float)d;
			}
}

/* Build level C, the nl-th, from the finer level F (the face weights and
 * type of F are needed): allocate, restrict the types and face weights
 * (over ranks, then their ghost planes or the whole level), assemble the
 * operator. */
static int
coarsen(const mg *m, level *F, level *C, int nl, slc_err *err)
{
	if (coarse_alloc(F, C, nl, err))
		return -1;
	coarse_restrict(F, C);
	coarse_share(m, F, C, C->otype, 1, MG_GHOST);
	for (int a = 0; a < 3; a++)
		coarse_share(m, F, C, C->rw[a], sizeof *C->rw[a], MG_GHOST);
	coarse_assemble(C);
	return 0;
}

/* The coarse rows a fine row (j, k) (k in the whole grid's numbering)
 * interpolates from, as offsets into C's arrays: (J0, K0) its parents'
 * row and (J1, K0), (J0, K1), (J1, K1) with J1, K1 the next rows
 * towards it; -1 for a row outside the grid.  0, or -1 when C's slab
 * does not hold them all (a fine ghost plane far from the rank's own,
 * which neither the prolongation nor the restriction reads). */
static inline int
coarse_rows(const level *C, int j, int k, long cr[4])
{
	int J0 = j >> 1, K0 = k >> 1;
	int J1 = J0 + (j & 1 ? 1 : -1), K1 = K0 + (k & 1 ? 1 : -1);
	int jin = J1 >= 0 && J1 < C->nj, kin = K1 >= 0 && K1 < C->nkg;
	int h0 = K0 - C->kof, h1 = K1 - C->kof;

	if (h0 < 0 || h0 >= C->nk || (kin && (h1 < 0 || h1 >= C->nk)))
		return -1;
	cr[0] = (long)(C->sj * J0 + C->sk * h0);
	cr[1] = jin ? (long)(C->sj * J1 + C->sk * h0) : -1;
	cr[2] = kin ? (long)(C->sj * J0 + C->sk * h1) : -1;
	cr[3] = jin && kin ? (long)(C->sj * J1 + C->sk * h1) : -1;
	return 0;
}

/* The prolongation of McAdams et al. 2010 from C onto F: per axis the
 * parent gets 3/4 and the next coarse cell towards the fine cell 1/4; an
 * air corner contributes 0 (p = 0 there); a solid or out-of-grid corner is
 * replaced by the parent (a Neumann wall reflects).  F->woff gets, per
 * fine cell, the weight of its replaced corners in 64ths (the weights are
 * products of 3/4 and 1/4), F->rowoff whether a row has any inside. */
static inline int
off_corner(const level *C, long row, int I)
{
	return row < 0 || I < 0 || I >= C->ni || C->type[row + I] == PS_OFF;
}

static int
offweights(level *F, const level *C, slc_err *err)
{
	size_t nrow = (size_t)F->nj * (size_t)F->nk;

	if (!(F->woff = slc_malloc(F->n, 1, err)) ||
	    !(F->rowoff = slc_calloc(nrow, 1, err)))
		return -1;
#pragma omp parallel for schedule(static) if (F->par)
	for (int k = 0; k < F->nk; k++)
		for (int j = 0; j < F->nj; j++) {
			size_t row = (size_t)j + (size_t)F->nj * k;
			uint8_t *wo = F->woff + F->sj * row;
			long cr[4];
			int any = 0;
			if (coarse_rows(C, j, k + F->kof, cr)) {
				memset(wo, 0, (size_t)F->ni);
				F->rowoff[row] = 0;
				continue;
			}
			for (int i = 0; i < F->ni; i++) {
				int I0 = i >> 1, I1 = I0 + (i & 1 ? 1 : -1);
				/* row weights 9, 3, 3, 1 (16ths) times 3 at I0
				 * or 1 at I1 (quarters); the parent itself is
				 * not moved */
				int w = 3 * (3 * off_corner(C, cr[1], I0) +
					     3 * off_corner(C, cr[2], I0) +
					     off_corner(C, cr[3], I0)) +
					9 * off_corner(C, cr[0], I1) +
					3 * off_corner(C, cr[1], I1) +
					3 * off_corner(C, cr[2], I1) +
					off_corner(C, cr[3], I1);
				wo[i] = (uint8_t)w;
				any |= w && i > 0 && i < F->ni - 1;
			}
			F->rowoff[row] = (uint8_t)any;
		}
	return 0;
}

/* omega / diag for the Jacobi sweeps, 0 where diag is not positive. */
static int
set_invd(level *L, slc_err *err)
{
	if (!(L->invd = slc_malloc(L->n, sizeof *L->invd, err)))
		return -1;
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++)
		for (size_t c = L->sk * k; c < L->sk * (k + 1); c++)
			L->invd[c] = L->diag[c] > 0 ? MG_OMEGA / L->diag[c] : 0;
	return 0;
}

/* The cells Gauss-Seidel visits on L: those with mark[c] set that are
 * fluid with a positive diagonal, with their NB_* bits; with colour set
 * the red ones ((i + j + k) even in the whole grid's numbering) then the
 * black ones, each in grid order (L->nred red), else all in grid order.
 * Counted per k-plane and colour, then each plane fills its part. */
static int
gs_list(level *L, const uint8_t *mark, int colour, slc_err *err)
{
	size_t nk = (size_t)L->nk;
	size_t *off = slc_calloc(2 * (nk + 1), sizeof *off, err);

	if (!off)
		return -1;
#define MG_GS_CELL(c) (mark[c] && L->type[c] == PS_FLUID && L->diag[c] > 0)
#define MG_GS_BLACK(i, j, k) (colour && ((i) + (j) + (k) + L->kof) & 1)
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++) {
		size_t m[2] = {0, 0};
		for (int j = 0; j < L->nj; j++)
			for (int i = 0; i < L->ni; i++) {
				size_t c = (size_t)i + L->sj * j + L->sk * k;
				if (MG_GS_CELL(c))
					m[MG_GS_BLACK(i, j, k)]++;
			}
		off[k + 1] = m[0];
		off[nk + 1 + k + 1] = m[1];
	}
	for (size_t k = 0; k < nk; k++)
		off[k + 1] += off[k];
	off[nk + 1] = off[nk];  /* black cells start after the red */
	for (size_t k = 0; k < nk; k++)
		off[nk + 1 + k + 1] += off[nk + 1 + k];
	size_t m = off[2 * nk + 1];
	L->nred = off[nk];
	L->gsown[0][0] = off[L->ko0], L->gsown[0][1] = off[L->ko1];
	L->gsown[1][0] = off[nk + 1 + L->ko0], L->gsown[1][1] = off[nk + 1 + L->ko1];
	L->band = slc_malloc(m ? m : 1, sizeof *L->band, err);
	L->bandnb = slc_malloc(m ? m : 1, 1, err);
	L->bandrd = slc_malloc(m ? m : 1, sizeof *L->bandrd, err);
	if (!L->band || !L->bandnb || !L->bandrd) {
		free(off);
		return -1;
	}
	L->nband = m;
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++) {
		size_t q[2] = {off[k], off[nk + 1 + k]};
		for (int j = 0; j < L->nj; j++)
			for (int i = 0; i < L->ni; i++) {
				size_t c = (size_t)i + L->sj * j + L->sk * k;
				if (!MG_GS_CELL(c))
					continue;
				size_t *p = &q[MG_GS_BLACK(i, j, k)];
				L->bandnb[*p] = (uint8_t)((i > 0 ? NB_IM : 0) |
					(i < L->ni - 1 ? NB_IP : 0) | (j > 0 ? NB_JM : 0) |
					(j < L->nj - 1 ? NB_JP : 0) | (k > 0 ? NB_KM : 0) |
					(k < L->nk - 1 ? NB_KP : 0));
				L->bandrd[*p] = 1 / L->diag[c];
				L->band[(*p)++] = c;
			}
	}
#undef MG_GS_CELL
#undef MG_GS_BLACK
	free(off);
	return 0;
}

/* out = in dilated by MG_BAND cells along axis a (along j and k whole
 * rows at a time). */
static void
dilate(const level *L, int a, const uint8_t *in, uint8_t *out)
{
	int ni = L->ni;

#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++)
		for (int j = 0; j < L->nj; j++) {
			size_t c0 = L->sj * j + L->sk * k;
			const uint8_t *r = in + c0;
			uint8_t *o = out + c0;
			if (a == 0) {
				for (int i = 0; i < ni; i++) {
					uint8_t v = 0;
					for (int d = -MG_BAND; d <= MG_BAND; d++)
						if (i + d >= 0 && i + d < ni)
							v |= r[i + d];
					o[i] = v;
				}
				continue;
			}
			int P = a == 1 ? j : k, N = a == 1 ? L->nj : L->nk;
			long st = a == 1 ? (long)L->sj : (long)L->sk;
			memset(o, 0, (size_t)ni);
			for (int d = -MG_BAND; d <= MG_BAND; d++) {
				if (P + d < 0 || P + d >= N)
					continue;
				const uint8_t *rd = r + d * st;
				for (int i = 0; i < ni; i++)
					o[i] |= rd[i];
			}
		}
}

/* The boundary band of McAdams et al. 2010 §4: fluid cells within
 * MG_BAND cells of a cell that is not fluid or of a face that is not fully
 * open; the smoother adds Gauss-Seidel sweeps there, where the
 * rediscretized coarse operators are least accurate.  On the coarsest
 * level (all = 1) every fluid cell.  The box of MG_BAND cells around the
 * edge cells is a dilation along each axis in turn. */
static int
band_build(level *L, int all, slc_err *err)
{
	size_t sj = L->sj, sk = L->sk;
	uint8_t *mark = slc_malloc(L->n, 1, err);
	uint8_t *tmp = mark ? slc_malloc(L->n, 1, err) : NULL;

	if (!tmp) {
		free(mark);
		return -1;
	}
	if (all)
		memset(mark, 1, L->n);
	else {
#pragma omp parallel for schedule(static) if (L->par)
		for (int k = 0; k < L->nk; k++)
			for (int j = 0; j < L->nj; j++) {
				size_t c0 = sj * j + sk * k;
				const float *cx = L->cw[0] + c0, *cy = L->cw[1] + c0, *cz = L->cw[2] + c0;
				const float *cym = cy - sj, *czm = cz - sk;
				const uint8_t *ty = L->type + c0;
				int jm = j > 0, jp = j < L->nj - 1, km = k > 0, kp = k < L->nk - 1;
				int ni = L->ni;
				for (int i = 0; i < ni; i++) {
					int edge = (i > 0 && cx[i - 1] < 1) || (i < ni - 1 && cx[i] < 1) ||
						   (jm && cym[i] < 1) || (jp && cy[i] < 1) ||
						   (km && czm[i] < 1) || (kp && cz[i] < 1);
					mark[c0 + i] = (uint8_t)(ty[i] == PS_FLUID && edge);
				}
			}
		dilate(L, 0, mark, tmp);
		dilate(L, 1, tmp, mark);
		dilate(L, 2, mark, tmp);
		memcpy(mark, tmp, L->n);
		/* over ranks each sweeps its own planes and the ghost
		 * plane next to them (band_gs); the marks of the farther
		 * ghost planes lack the planes beyond the slab */
		int k0 = L->ko0 > 0 ? L->ko0 - 1 : 0, k1 = L->ko1 < L->nk ? L->ko1 + 1 : L->nk;
		memset(mark, 0, L->sk * (size_t)k0);
		memset(mark + L->sk * (size_t)k1, 0, L->sk * (size_t)(L->nk - k1));
	}
	int rc = gs_list(L, mark, !all, err);
	free(mark);
	free(tmp);
	return rc;
}

mg *
mg_new(const psys *ps, slc_err *err)
{
	mg *m = slc_calloc(1, sizeof *m, err);
	if (!m)
		return NULL;
	level *L = &m->lv[0];
	level_dims(L, ps->ni, ps->nj, ps->nk);
	L->kof = ps->kof, L->nkg = ps->nkg, L->ko0 = ps->ko0, L->ko1 = ps->ko1;
	m->ps = ps;
#ifdef SLC_MPI
	if (ps->comm) {         /* the system's slab */
		slc_comm *c = ps->comm;
		L->comm = c;
		L->ghost = c->ghost;
		if (c->ghost < MG_GHOST) {
			slc_fail(err, "multigrid over MPI ranks needs %d ghost planes, the slabs "
				 "hold %d", MG_GHOST, c->ghost);
			goto fail;
		}
		if (!(L->own = slc_malloc((size_t)c->size + 1, sizeof *L->own, err)))
			goto fail;
		memcpy(L->own, c->k0, ((size_t)c->size + 1) * sizeof *L->own);
	}
#endif
	L->type = ps->type;
	L->open = ps->bc == PS_BC_OPEN;
	L->par = L->n > PS_PAR_MIN;
	L->cw[0] = ps->cx, L->cw[1] = ps->cy, L->cw[2] = ps->cz;
	L->fw[0] = ps->wx, L->fw[1] = ps->wy, L->fw[2] = ps->wz;
	m->nl = 1;
	m->nthread = omp_get_max_threads();
	/* per thread: a residual row and its restriction, or a coarse row
	 * combination, each padded */
	m->rowlen = 2 * ((size_t)ps->ni + 2 * MG_PAD);
	if (!(m->zero = slc_calloc((size_t)ps->ni + MG_PAD, sizeof *m->zero, err)) ||
	    !(m->rowbuf = slc_calloc(m->rowlen * (size_t)m->nthread,
				     sizeof *m->rowbuf, err)) ||
	    !(m->ring = slc_malloc(3 * L->sk * (size_t)m->nthread, sizeof *m->ring, err)) ||
	    !(m->part = slc_calloc((size_t)ps->nk, sizeof *m->part, err)) ||
	    !(m->cplane = slc_malloc(8 * (size_t)((ps->ni + 1) / 2) * (size_t)((ps->nj + 1) / 2) *
				     (size_t)m->nthread, sizeof *m->cplane, err)) ||
	    !(L->diag = slc_malloc(L->n, sizeof *L->diag, err)))
		goto fail;
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++)
		for (size_t c = L->sk * k; c < L->sk * (k + 1); c++)
			L->diag[c] = ps->type[c] == PS_FLUID ? (float)ps->diag[c] : 0;
	for (;;) {
		level *F = &m->lv[m->nl - 1];
		int last = level_last(m->nl, F->ni, F->nj, F->nkg);
		if (last && F->comm) {
			slc_fail(err, "a grid of %dx%dx%d cells is too small for multigrid "
				 "over several MPI ranks", F->ni, F->nj, F->nkg);
			goto fail;
		}
		if (!(F->x = slc_malloc(F->n, sizeof *F->x, err)) ||
		    !(F->b = slc_malloc(F->n, sizeof *F->b, err)) ||
		    !(F->t = slc_malloc(F->n, sizeof *F->t, err)) ||
		    set_invd(F, err) || band_build(F, last, err))
			goto fail;
		if (last)
			break;
		if (coarsen(m, F, &m->lv[m->nl], m->nl + 1, err)) {
			m->nl++;
			goto fail;
		}
		m->nl++;
		for (int a = 0; a < 3; a++) {   /* F's weights are done with */
			free(F->rw[a]);
			F->rw[a] = NULL;
		}
		if (offweights(F, &m->lv[m->nl - 1], err))
			goto fail;
	}
	return m;
fail:
	mg_free(m);
	return NULL;
}

int
mg_levels(const mg *m)
{
	return m->nl;
}

int
mg_levels_cut(const mg *m)
{
	int n = 0;

	while (n < m->nl && m->lv[n].comm)
		n++;
	return n;
}

void
mg_free(mg *m)
{
	if (!m)
		return;
	for (int l = 0; l < m->nl; l++)
		level_free(&m->lv[l]);
	free(m->zero);
	free(m->rowbuf);
	free(m->ring);
	free(m->part);
	free(m->cplane);
	free(m);
}

/* The rows around row (j, k) of level L: x and the couplings of the rows
 * j-1, j+1, k-1, k+1, or the zero row outside the grid. */
typedef struct rows {
	const float *x, *xjm, *xjp, *xkm, *xkp;
	const float *cx, *cy, *cz, *cym, *czm;
} rows;

/* The same from the planes k-1, k, k+1 of x (xm, x0, xp; NULL outside
 * the grid), each indexed j*sj + i. */
static inline void
rows_plane(const level *L, const float *zero, const float *xm, const float *x0,
	   const float *xp, int j, int k, rows *R)
{
	size_t r = L->sj * j, c = r + L->sk * k;

	R->x = x0 + r;
	R->xjm = j > 0 ? x0 + r - L->sj : zero;
	R->xjp = j < L->nj - 1 ? x0 + r + L->sj : zero;
	R->xkm = xm ? xm + r : zero;
	R->xkp = xp ? xp + r : zero;
	R->cx = L->cw[0] + c;
	R->cy = L->cw[1] + c;
	R->cz = L->cw[2] + c;
	R->cym = j > 0 ? L->cw[1] + c - L->sj : zero;
	R->czm = k > 0 ? L->cw[2] + c - L->sk : zero;
}

static inline void
rows_at(const level *L, const float *zero, const float *x, int j, int k, rows *R)
{
	const float *x0 = x + L->sk * k;

	rows_plane(L, zero, k > 0 ? x0 - L->sk : NULL, x0,
		   k < L->nk - 1 ? x0 + L->sk : NULL, j, k, R);
}

/* Sum of the couplings times the neighbours' x at cell i of the row
 * (without the i-1, i+1 terms). */
#define MG_OFF_JK(R, i) ((R)->cym[i] * (R)->xjm[i] + (R)->cy[i] * (R)->xjp[i] + \
			 (R)->czm[i] * (R)->xkm[i] + (R)->cz[i] * (R)->xkp[i])

static inline float
off_edge(const rows *R, int i, int ni)
{
	float s = MG_OFF_JK(R, i);

	if (i > 0)
		s += R->cx[i - 1] * R->x[i - 1];
	if (i < ni - 1)
		s += R->cx[i] * R->x[i + 1];
	return s;
}

/* v where d > 0, else 0.  Bitwise, so that the loops using it
 * vectorize: under the default -ftrapping-math a conditional float
 * expression is not if-converted. */
static inline float
keep_if(float v, float d)
{
	uint32_t vb, mask = d > 0 ? 0xffffffffu : 0;

	memcpy(&vb, &v, sizeof vb);
	vb &= mask;
	memcpy(&v, &vb, sizeof v);
	return v;
}

/* Damped Jacobi update of one cell from the off-diagonal sum s:
 * x + omega (b - d x + s) / d = (1 - omega) x + (omega / d) (b + s).
 * Where the diagonal is not positive invd is 0 and so are x and s (every
 * coupling of such a cell is 0 and the V-cycle keeps its x at 0), so the
 * result is 0 there with no branch. */
static inline float
jacobi_cell(float x, float b, float invd, float s)
{
	return (1 - MG_OMEGA) * x + invd * (b + s);
}

/* One Jacobi sweep of row (j, k) from the rows R into t (the row). */
static inline void
jacobi_row(const level *L, const rows *R, int j, int k, float *t)
{
	int ni = L->ni;
	size_t c0 = L->sj * j + L->sk * k;
	const float *id = L->invd + c0, *b = L->b + c0, *x = R->x;

	for (int i = 0; i < ni; i += ni - 1 > 0 ? ni - 1 : 1)
		t[i] = jacobi_cell(x[i], b[i], id[i], off_edge(R, i, ni));
#pragma omp simd
	for (int i = 1; i < ni - 1; i++) {
		float s = MG_OFF_JK(R, i) + R->cx[i - 1] * x[i - 1] + R->cx[i] * x[i + 1];
		t[i] = jacobi_cell(x[i], b[i], id[i], s);
	}
}

/* One damped Jacobi sweep: t = x + omega D^-1 (b - A x) on the planes
 * k0 .. k1-1 (local), then x <-> t (the other planes of x are then
 * stale). */
static void
jacobi(level *L, const float *zero, int k0, int k1)
{
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = k0; k < k1; k++)
		for (int j = 0; j < L->nj; j++) {
			rows R;
			rows_at(L, zero, L->x, j, k, &R);
			jacobi_row(L, &R, j, k, L->t + L->sj * j + L->sk * k);
		}
	float *s = L->x;
	L->x = L->t;
	L->t = s;
}

/* Two damped Jacobi sweeps in one pass over the level (the same result
 * as two calls of jacobi): each thread runs over its k-slab with the
 * first sweep one plane ahead of the second, the first sweep's planes in
 * a ring of three (m->ring), so that the level's arrays are read once for
 * both sweeps.  The planes next to the slab are swept once more by the
 * thread itself: x is only read and the result goes to t, so threads
 * share nothing. */
static void
jacobi2(level *L, const mg *m)
{
	int nk = L->nk;
	size_t sk = L->sk;

#pragma omp parallel if (L->par)
	{
		int nt = omp_get_num_threads(), th = omp_get_thread_num();
		int k0 = (int)((long)nk * th / nt), k1 = (int)((long)nk * (th + 1) / nt);
		float *ring = m->ring + 3 * sk * (size_t)(th < m->nthread ? th : 0);
#define MG_RING(p) (ring + sk * (size_t)(((p) + 3) % 3))
		for (int p = k0 - 1; p <= k1; p++) {
			if (p >= 0 && p < nk)
				for (int j = 0; j < L->nj; j++) {
					rows R;
					rows_at(L, m->zero, L->x, j, p, &R);
					jacobi_row(L, &R, j, p, MG_RING(p) + L->sj * j);
				}
			int q = p - 1;
			if (q < k0 || q >= k1)
				continue;
			const float *tm = q > 0 ? MG_RING(q - 1) : NULL;
			const float *tp = q < nk - 1 ? MG_RING(q + 1) : NULL;
			for (int j = 0; j < L->nj; j++) {
				rows R;
				rows_plane(L, m->zero, tm, MG_RING(q), tp, j, q, &R);
				jacobi_row(L, &R, j, q, L->t + L->sj * j + sk * q);
			}
		}
#undef MG_RING
	}
	float *s = L->x;
	L->x = L->t;
	L->t = s;
}

/* n damped Jacobi sweeps.  Over ranks, a pair of sweeps after one halo
 * of two planes: the first also sweeps the ghost plane next to the
 * owned ones each side (from the second, and the coefficients and b the
 * slab holds there), which the second reads; as the owner computes it,
 * so the same bits. */
static void
smooth(level *L, const mg *m, int n)
{
	if (L->comm) {
		int k0 = L->ko0 > 0 ? L->ko0 - 1 : 0;
		int k1 = L->ko1 < L->nk ? L->ko1 + 1 : L->nk;
		for (; n >= 2; n -= 2) {
			level_halo(m, L, L->x, sizeof *L->x, 2 * MG_HALO_SWEEP);
			jacobi(L, m->zero, k0, k1);
			jacobi(L, m->zero, L->ko0, L->ko1);
		}
		if (n) {
			level_halo(m, L, L->x, sizeof *L->x, MG_HALO_SWEEP);
			jacobi(L, m->zero, L->ko0, L->ko1);
		}
		return;
	}
	for (; n >= 2; n -= 2)
		jacobi2(L, m);
	if (n)
		jacobi(L, m->zero, 0, L->nk);
}

/* Residual of the row (j, k) into out[0..ni). */
static inline void
residual_row(const level *L, const float *zero, int j, int k, float *out)
{
	int ni = L->ni;
	rows R;

	rows_at(L, zero, L->x, j, k, &R);
	size_t c0 = L->sj * j + L->sk * k;
	const float *d = L->diag + c0, *b = L->b + c0, *x = R.x;
	for (int i = 0; i < ni; i += ni - 1 > 0 ? ni - 1 : 1)
		out[i] = keep_if(b[i] - d[i] * x[i] + off_edge(&R, i, ni), d[i]);
#pragma omp simd
	for (int i = 1; i < ni - 1; i++) {
		float s = MG_OFF_JK(&R, i) + R.cx[i - 1] * x[i - 1] + R.cx[i] * x[i + 1];
		out[i] = keep_if(b[i] - d[i] * x[i] + s, d[i]);
	}
}

/* Weights of the four coarse rows of coarse_rows (3/4 or 1/4 per axis). */
static const float row_w[4] = {9.0f / 16, 3.0f / 16, 3.0f / 16, 1.0f / 16};

/* The thread's row buffer of m. */
static inline float *
thread_buf(const mg *m)
{
	int th = omp_get_thread_num();

	return m->rowbuf + m->rowlen * (size_t)(th < m->nthread ? th : 0);
}

/* The residual of fine plane k restricted within the plane onto the
 * coarse plane layout: A gets it interpolated along i and j (the
 * trilinear weights, zero outside the grid), Q (when given) the weight of
 * the replaced corners (woff) at the parents, both unscaled; zero for a
 * plane outside the grid.  r, acc: row buffers (r with r[-1] usable). */
static void
plane_restrict(const level *F, const level *C, const mg *m, int k, float *A,
	       float *Q, float *r, float *acc)
{
	int ni = F->ni, nci = C->ni;
	size_t cpl = C->sk;

	memset(A, 0, cpl * sizeof *A);
	if (Q)
		memset(Q, 0, cpl * sizeof *Q);
	if (k < 0 || k >= F->nk)
		return;
	for (int j = 0; j < F->nj; j++) {
		size_t row = (size_t)j + (size_t)F->nj * k;
		const uint8_t *wo = F->woff + F->sj * row;
		int J0 = j >> 1, J1 = J0 + (j & 1 ? 1 : -1);
		residual_row(F, m->zero, j, k, r);
		r[-1] = r[ni] = r[ni + 1] = 0;
#pragma omp simd
		for (int I = 0; I < nci; I++)
			acc[I] = 0.75f * (r[2 * I] + r[2 * I + 1]) +
				 0.25f * (r[2 * I - 1] + r[2 * I + 2]);
		float *a0 = A + C->sj * J0;
#pragma omp simd
		for (int I = 0; I < nci; I++)
			a0[I] += 0.75f * acc[I];
		if (J1 >= 0 && J1 < C->nj) {
			float *a1 = A + C->sj * J1;
#pragma omp simd
			for (int I = 0; I < nci; I++)
				a1[I] += 0.25f * acc[I];
		}
		if (!Q)
			continue;
		float *q = Q + C->sj * J0;
		q[0] += wo[0] * r[0];
		if (ni > 1)
			q[(ni - 1) >> 1] += wo[ni - 1] * r[ni - 1];
		if (F->rowoff[row])
			for (int i = 1; i < ni - 1; i++)
				if (wo[i])
					q[i >> 1] += wo[i] * r[i];
	}
}

/* Residual of F, restricted: C->b = 4 R (b - A x) with R = P^T / 2^d (the
 * factor 4 = (2dx)^2 / dx^2 since every level's operator is the unscaled
 * rediscretization).  Each thread owns a slab of coarse planes K and
 * gathers them from the fine planes 2K-1 .. 2K+2 restricted within their
 * plane (plane_restrict, a ring of four per thread; the two fine planes
 * next to the slab are restricted by both threads that need them), so
 * every coarse sum has a fixed order and no two threads write the same
 * cell.  C->b gets values on cells that are not fluid too: no sweep reads
 * them. */
static void
restrict_residual(const level *F, level *C, const mg *m)
{
	/* over ranks: the x of F's ghost planes the residual reads */
	level_halo(m, F, F->x, sizeof *F->x, MG_HALO_RESTRICT);
	/* 4 / 2^d over the d axes that are coarsened: 0.5 in 3D, 1 in 2D */
	int d = (F->ni > 1) + (F->nj > 1) + (F->nk > 1);
	float sc = 4.0f / (float)(1 << d), s64 = sc / 64;
	int Ka, Kb;
	size_t cpl = C->sk;

	coarse_span(F, C, &Ka, &Kb);
#pragma omp parallel if (F->par)
	{
		int nt = omp_get_num_threads(), th = omp_get_thread_num();
		int K0 = Ka + (int)((long)(Kb - Ka) * th / nt);
		int K1 = Ka + (int)((long)(Kb - Ka) * (th + 1) / nt);
		float *r = thread_buf(m) + 1, *acc = r + F->ni + MG_PAD;
		float *P = m->cplane + 8 * cpl * (size_t)(th < m->nthread ? th : 0);
#define MG_A(k) (P + cpl * (size_t)(((k) + 4) % 4))
#define MG_Q(k) (P + cpl * (size_t)(4 + ((k) + 4) % 4))
		for (int K = K0; K < K1; K++) {
			for (int k = K == K0 ? 2 * K - 1 : 2 * K + 1; k <= 2 * K + 2; k++)
				plane_restrict(F, C, m, k - F->kof, MG_A(k),
					       (k >> 1) >= K0 && (k >> 1) < K1 ? MG_Q(k) : NULL,
					       r, acc);
			const float *a0 = MG_A(2 * K - 1), *a1 = MG_A(2 * K);
			const float *a2 = MG_A(2 * K + 1), *a3 = MG_A(2 * K + 2);
			const float *q0 = MG_Q(2 * K), *q1 = MG_Q(2 * K + 1);
			float *b = C->b + cpl * (size_t)(K - C->kof);
#pragma omp simd
			for (size_t c = 0; c < cpl; c++)
				b[c] = sc * (0.75f * (a1[c] + a2[c]) + 0.25f * (a0[c] + a3[c])) +
				       s64 * (q0[c] + q1[c]);
		}
#undef MG_A
#undef MG_Q
	}
	coarse_share(m, F, C, C->b, sizeof *C->b, MG_HALO_RHS);
}

/* F->x += P C->x on F's cells with a positive diagonal: the four coarse
 * rows combined, interpolated along i, and the parents' share of the
 * replaced corners (woff). */
static void
prolong_add(level *F, level *C, const mg *m)
{
	int ni = F->ni, nci = C->ni;

	/* over ranks: C's x on its ghost planes next to the owned */
	level_halo(m, C, C->x, sizeof *C->x, MG_HALO_SWEEP);
#pragma omp parallel for schedule(static) if (F->par)
	for (int k = F->ko0; k < F->ko1; k++) {
		float *cx = thread_buf(m) + 1;
		for (int j = 0; j < F->nj; j++) {
			size_t row = (size_t)j + (size_t)F->nj * k, c0 = F->sj * row;
			long cr[4];
			if (coarse_rows(C, j, k + F->kof, cr))
				continue;       /* not reached: C holds them */
			const float *a = C->x + cr[0];
			const float *b = cr[1] >= 0 ? C->x + cr[1] : m->zero;
			const float *e = cr[2] >= 0 ? C->x + cr[2] : m->zero;
			const float *f = cr[3] >= 0 ? C->x + cr[3] : m->zero;
			const uint8_t *wo = F->woff + c0;
			const float *d = F->diag + c0;
			float *x = F->x + c0;
#pragma omp simd
			for (int I = 0; I < nci; I++)
				cx[I] = row_w[0] * a[I] + row_w[1] * b[I] +
					row_w[2] * e[I] + row_w[3] * f[I];
			cx[-1] = cx[nci] = 0;
#pragma omp simd
			for (int I = 0; I < ni / 2; I++) {
				float lo = 0.75f * cx[I] + 0.25f * cx[I - 1];
				float hi = 0.75f * cx[I] + 0.25f * cx[I + 1];
				x[2 * I] += keep_if(lo, d[2 * I]);
				x[2 * I + 1] += keep_if(hi, d[2 * I + 1]);
			}
			if (ni & 1) {
				int I = ni / 2;
				float v = 0.75f * cx[I] + 0.25f * cx[I - 1];
				x[ni - 1] += keep_if(v, d[ni - 1]);
			}
			const float s64 = 1.0f / 64;
			if (d[0] > 0)
				x[0] += s64 * wo[0] * a[0];
			if (ni > 1 && d[ni - 1] > 0)
				x[ni - 1] += s64 * wo[ni - 1] * a[(ni - 1) >> 1];
			if (F->rowoff[row])
				for (int i = 1; i < ni - 1; i++)
					if (wo[i] && d[i] > 0)
						x[i] += s64 * wo[i] * a[i >> 1];
		}
	}
}

/* One Gauss-Seidel update of cell c with the neighbours nb (NB_*) and
 * 1 / diag rd: x = (b + sum of the couplings times the neighbours' x) /
 * diag, so that the chain from one cell to the next is a multiply and an
 * add rather than a division. */
static inline void
gs_cell(level *L, size_t c, unsigned nb, float rd)
{
	float *x = L->x;
	const float *cx = L->cw[0], *cy = L->cw[1], *cz = L->cw[2];
	float s = 0;

	if (nb & NB_JM)
		s += cy[c - L->sj] * x[c - L->sj];
	if (nb & NB_JP)
		s += cy[c] * x[c + L->sj];
	if (nb & NB_KM)
		s += cz[c - L->sk] * x[c - L->sk];
	if (nb & NB_KP)
		s += cz[c] * x[c + L->sk];
	if (nb & NB_IP)
		s += cx[c] * x[c + 1];
	s += L->b[c];
	if (nb & NB_IM)
		s += cx[c - 1] * x[c - 1];
	x[c] = s * rd;
}

/* Red-black Gauss-Seidel over the band, forward (red then black) or
 * backward (black then red: the adjoint), sweeps times.  The cells of
 * one colour have no neighbour of their colour, so a colour's updates do
 * not depend on their order: the sweep is the same whatever splits the
 * grid.  Over ranks, one halo of two planes a sweep: the first colour
 * also updates its cells on the ghost plane next to the slab each side
 * (from the second ghost plane, as their owner does), which the second
 * colour, on the owned planes only, reads. */
static void
band_gs(level *L, const mg *m, int backward, int sweeps)
{
	for (int s = 0; s < sweeps; s++) {
		level_halo(m, L, L->x, sizeof *L->x, 2 * MG_HALO_SWEEP);
		for (int h = 0; h < 2; h++) {
			int black = backward ? !h : h;
			size_t q0 = black ? L->nred : 0, q1 = black ? L->nband : L->nred;
			if (h) {        /* the second colour: owned planes */
				q0 = L->gsown[black][0];
				q1 = L->gsown[black][1];
			}
			for (size_t q = q0; q < q1; q++)
				gs_cell(L, L->band[q], L->bandnb[q], L->bandrd[q]);
		}
	}
}

/* Lexicographic Gauss-Seidel over the band in grid order, forward or
 * backward, once: the coarsest level, whole on every rank. */
static void
band_gs_lex(level *L, int backward)
{
	size_t n = L->nband;

	if (backward)
		for (size_t q = n; q-- > 0;)
			gs_cell(L, L->band[q], L->bandnb[q], L->bandrd[q]);
	else
		for (size_t q = 0; q < n; q++)
			gs_cell(L, L->band[q], L->bandnb[q], L->bandrd[q]);
}

/* Coarsest level: symmetric Gauss-Seidel from zero over all its fluid
 * cells (its band), a fixed number of forward/backward pairs (a symmetric
 * operator). */
static void
coarse_solve(level *L)
{
	memset(L->x, 0, L->n * sizeof *L->x);
	for (int s = 0; s < MG_COARSE_SWEEPS; s++) {
		band_gs_lex(L, 0);
		band_gs_lex(L, 1);
	}
}

/* The V-cycle from level l down; x of level l starts at zero (set by the
 * caller on level 0). */
static void
vcycle(mg *m, int l)
{
	level *L = &m->lv[l];

	if (l == m->nl - 1) {
		coarse_solve(L);
		return;
	}
	if (l > 0)
		memset(L->x, 0, L->n * sizeof *L->x);
	band_gs(L, m, 0, MG_BAND_SWEEPS);
	/* the pre-smoother is band-forward then Jacobi, the post-smoother
	 * Jacobi then band-backward, so the V-cycle stays symmetric */
	smooth(L, m, MG_PRE << (l > 0));     /* coarse sweeps are cheap */
	restrict_residual(L, &m->lv[l + 1], m);
	vcycle(m, l + 1);
	prolong_add(L, &m->lv[l + 1], m);
	smooth(L, m, MG_PRE << (l > 0));
	band_gs(L, m, 1, MG_BAND_SWEEPS);
}

double
mg_apply(mg *m, const double *r, double *z)
{
	level *L = &m->lv[0];
	double dot = 0;

#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++)
		for (size_t c = L->sk * k; c < L->sk * (k + 1); c++) {
			L->b[c] = (float)r[c];
			L->x[c] = 0;
		}
	vcycle(m, 0);
	level_halo(m, L, L->x, sizeof *L->x, L->ghost);  /* z on the ghost planes too */
	/* z and r.z: per k-slab in SIMD lanes (a fixed order), then the
	 * slabs in order, so the sum does not depend on the thread count */
#pragma omp parallel for schedule(static) if (L->par)
	for (int k = 0; k < L->nk; k++) {
		double t = 0;
		const float *x = L->x;
#pragma omp simd reduction(+ : t)
		for (size_t c = L->sk * k; c < L->sk * (k + 1); c++) {
			z[c] = x[c];
			t += r[c] * z[c];
		}
		m->part[k] = t;
	}
	psys_plane_sums(m->ps, m->part, 1, &dot);
	return dot;
}
