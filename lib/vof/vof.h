/* vof.h: volume-conserving water on the KDSM (lee2019 §3.2-§3.4, §4.1,
 * §5): the water volume and velocity per tet of a KDSM frame, its
 * advection from one frame's mesh to the next, the external forces, the
 * volume conservation (smear, pushout, velocity correction), the spray
 * made where water leaves the mesh, and the ledger of every volume that
 * moved.  The `vofstep` stages are thin callers: `advect` calls
 * vof_advect, `conserve` vof_forces then vof_conserve, each between
 * vof_ledger_open/close or adding to a ledger carried in the frame's meta.
 *
 * The meshes are kdsm_mesh (kdsm/kdsm.h) of one lattice: the same tets
 * in the same order every frame, so tet t of frame n is tet t of frame
 * n+1.  A mesh here is only read; its arrays may borrow from records.
 * Channels used: P, tet, alive, cap, rank, cut, n, vobj, nbr, dist, sdf,
 * nl_off/nl_idx, qb (nsamp equal-weight samples), v, and adh, adh_dir,
 * hair, hair_dir where present.
 *
 * Volumes in m^3, velocities in m/s, times in s.  Every volume sum is in
 * f64 and in a fixed order: the same bytes for any number of threads.
 * lib/ never prints: figures go into the ledger, errors into slc_err.
 */
#ifndef SLC_VOF_H
#define SLC_VOF_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "kdsm/kdsm.h"

/* Not from the paper (§4.1 gives the range 0.1-1, not a value): spray
 * positions are jittered by this fraction of the tet's longest edge. */
#define VOF_JITTER 0.5
#define VOF_JITTER_MIN 0.1
#define VOF_JITTER_MAX 1.0
/* Not from the paper: rounds of §3.3 pushout (a), "fill the unsaturated
 * face neighbours equally": each round saturates one neighbour or places
 * all the excess, so 4 rounds suffice; one more takes rounding leftovers. */
#define VOF_FILL_ROUNDS 5

/* The water on one KDSM frame.  Velocity is f64 (not the record's f32):
 * momentum W u from many donors is summed and divided back in every
 * transfer, and a still state must come back bit for bit; an f32 velocity
 * would round at each of the three stages of a step.  The stage writes
 * what precision its record wants. */
typedef struct vof_state {
	size_t nt;
	double *W;              /* nt water volume, m^3, >= 0; 0 in dead tets */
	double *u;              /* nt*3 velocity, m/s; 0 where W = 0 */
} vof_state;

/* Allocate a dry, still state of nt tets.  0, or -1 with err. */
int vof_state_init(vof_state *s, size_t nt, slc_err *err);
void vof_state_free(vof_state *s);

/* The spray made where water leaves the mesh (§4.1): one particle per
 * sample that left, appended (n grows; the arrays are reallocated). */
typedef struct vof_spray {
	size_t n, cap;
	double *P;              /* n*3 position, m */
	double *v;              /* n*3 velocity, m/s */
	double *vol;            /* n volume, m^3 (radius (3 vol / 4 pi)^(1/3)) */
} vof_spray;

void vof_spray_free(vof_spray *sp);

/* Append one particle.  0, or -1 with err (memory; sp unchanged). */
int vof_spray_add(vof_spray *sp, const double P[3], const double v[3], double vol,
		  slc_err *err);

/* Spray streams of the jitter key: the same tet and sample jitter
 * differently when leaving by advection and by pushout. */
enum { VOF_STREAM_ADVECT = 1, VOF_STREAM_PUSHOUT = 2 };

/* §4.1, fig. 10: a jitter offset uniform in the ball of radius r, from
 * lib/core/rng.h keyed by (seed, frame, stream, tet, sample): the same
 * offset for the same key on every run and thread. */
void vof_jitter(uint64_t seed, long frame, int stream, size_t tet, int sample, double r,
		double d[3]);

/* The longest edge of tet t of m, m. */
double vof_max_edge(const kdsm_mesh *m, size_t t);

/* The ledger of one step (issue: "the water on the mesh before, moved in
 * from the grid, to and from particles, and after; every term in double
 * precision"): after = before + grid_in + grid_fill + particles_in -
 * particles_out up to rounding.  Functions add to the terms; the figures
 * below are for reports. */
typedef struct vof_ledger {
	double before;          /* sum W at vof_ledger_open */
	double grid_in;         /* taken from the grid by backward samples */
	double grid_fill;       /* cap - W of the tets the grid's liquid
				   overwrote (§4; negative where W > cap) */
	double particles_in;    /* absorbed from particles */
	double particles_out;   /* made into spray */
	double after;           /* sum W at vof_ledger_close */
	double forwarded;       /* leftover water carried forward (§3.2) */
	double smeared;         /* excess moved by the smear (§3.3) */
	double pushed;          /* excess moved by pushout (a)-(c) */
	double enclosed;        /* excess kept by enclosed tets (e) */
	double max_trace;       /* largest backtrace, in the tet's max edges */
	size_t n_spray;         /* particles made */
	size_t n_enclosed;      /* tets left above cap by (e) */
	size_t n_clamped;       /* moved nodes clamped at the skin */
	size_t n_corrected;     /* velocities corrected (§3.3) */
	size_t n_filled;        /* tets the grid's liquid overwrote (§4) */
	size_t n_absorbed;      /* particles absorbed (§4) */
	size_t n_overwritten;   /* velocities the projected grid overwrote */
} vof_ledger;

/* Neumaier's compensated sum (not from the paper): the ledger's terms
 * and the water on the mesh are sums of up to millions of near-equal
 * volumes (full tets of one lattice hold the same cap), whose plain sum
 * drifts by about 1e-11 of the whole at a million tets, systematically;
 * compensated, the ledger balances to a few ulps at any size.  In a
 * fixed order, so the same bytes on every run. */
typedef struct vof_sum {
	double s, c;
} vof_sum;

static inline void
vof_sum_add(vof_sum *k, double x)
{
	double t = k->s + x;

	if ((k->s < 0 ? -k->s : k->s) >= (x < 0 ? -x : x))
		k->c += (k->s - t) + x;
	else
		k->c += (x - t) + k->s;
	k->s = t;
}

static inline double
vof_sum_get(const vof_sum *k)
{
	return k->s + k->c;
}

/* Zero L and set before = the water on the mesh (dead tets included, so
 * that water in one is seen). */
void vof_ledger_open(vof_ledger *L, const vof_state *s);
/* Set after = the water on the mesh. */
void vof_ledger_close(vof_ledger *L, const vof_state *s);
/* after - (before + grid_in + grid_fill + particles_in - particles_out). */
double vof_ledger_residual(const vof_ledger *L);
/* Sum of W in tet order (f64, compensated: vof_sum). */
double vof_volume(const vof_state *s);

/* The background grid's water at x, for backward samples that leave the
 * KDSM (§3.2): returns the liquid fraction H(-phi) in [0, 1] and writes
 * the grid velocity into u.  The water is copied, not taken from the
 * grid (§3.2: "not removed from the background grid"). */
typedef double (*vof_grid_fn)(void *ctx, const double x[3], double u[3]);

typedef struct vof_advect_opts {
	double dt;              /* s, >= 0 */
	uint64_t seed;          /* spray jitter: keyed by seed, frame, tet, sample */
	long frame;
	double jitter;          /* VOF_JITTER_MIN..VOF_JITTER_MAX of the max edge */
	/* 0: a sample requests w_s V_bt, the paper's "potential amount"; 1
	 * (not from the paper): w_s V_bt min(1, W/cap) of its donor, so a
	 * partly filled tet is drained in proportion to its fill */
	int fraction;
	vof_grid_fn grid;       /* NULL: no grid water outside the KDSM */
	void *grid_ctx;
} vof_advect_opts;

/* Defaults: dt 0, seed 0, frame 0, VOF_JITTER, potential amounts, no grid. */
void vof_advect_defaults(vof_advect_opts *o);

/* lee2019 §3.2, fig. 5: the water of s0 on m0 (frame n) onto m1 (frame
 * n+1, the same lattice) into s1 (allocated here, freed by the caller
 * either way).
 * Backward: each live tet t of m1 is translated by -dt u0[t], its nodes
 * that cross the skin clamped where they cross (m0's sdf); each of its
 * nsamp samples requests V_bt/nsamp from the tet of m0 holding it (live;
 * none from a dead tet) or, outside m0, H(-phi) of that from o->grid.
 * Scale down: a donor asked for R > W gives each request W/R of it.
 * Forward: a donor's leftover W - R is carried by its nodes moved by
 * +dt u0 (clamped with m1's sdf) to the live tets of m1 holding its
 * samples, 1/nsamp each; a sample outside m1 or in a dead tet becomes a
 * particle of sp (the donor's velocity, the sample jittered, §4.1, fig.
 * 10).  Momentum moves with volume; a dry tet gets u = 0.  Adds grid_in,
 * particles_out, forwarded, max_trace, n_spray, n_clamped to L (the
 * caller opens and closes it).  A still mesh (m1 = m0) with still water
 * gives s1 = s0 bit for bit.  0, or -1 with err (mismatched meshes, a
 * bad option, memory). */
int vof_advect(const kdsm_mesh *m0, const vof_state *s0, const kdsm_mesh *m1,
	       vof_state *s1, const vof_advect_opts *o, vof_spray *sp, vof_ledger *L,
	       slc_err *err);

/* Not from the paper: the drag rates of §5's anisotropic porosity, 1/s
 * per unit hair fraction, across and along the strands (across > along,
 * §5 "more drag is applied orthogonal to the average direction"). */
#define VOF_DRAG_ACROSS 200.0
#define VOF_DRAG_ALONG 20.0
/* Not from the paper (§3.4 lost its value): adhesion acts within this
 * many of the tet's max edges of the skin, falling off linearly. */
#define VOF_ADH_DMAX_EDGES 2.0
/* Not from the paper: the friction coefficient of the adhesion on the
 * skin (vof_forces): the share of the adhesion's push onto the skin
 * that may be taken off the water's slip along it. */
#define VOF_ADH_FRICTION 0.5

typedef struct vof_forces_opts {
	double dt;              /* s */
	double g[3];            /* gravity, m/s^2 */
	/* adhesion coefficient, m/s^2: times the painted adh where the mesh
	 * has it, uniform where it has not; 0: none */
	double adh;
	double dmax;            /* adhesion range, m; <= 0: VOF_ADH_DMAX_EDGES edges */
	double k_across, k_along;  /* porosity drag rates, 1/s */
	/* the adhesion's friction coefficient (VOF_ADH_FRICTION); 0: none */
	double mu;
} vof_forces_opts;

/* Defaults: dt 0, g = (0, -9.81, 0), no adhesion, dmax 0, the drag rates above. */
void vof_forces_defaults(vof_forces_opts *o);

/* §3.4, §5, notes §2.3, on every live wet tet (W > 0) of m:
 * gravity u += g dt;
 * adhesion (the law is lost; not from the paper): u += dt a (1 -
 * dist/dmax) d for dist < dmax, the falloff clamped to [0, 1], a the
 * coefficient above and d the painted adh_dir or, without one, -n;
 * then the adhesion's friction (not from the paper): with dv = dt a f
 * max(0, -d.n), the push onto the skin, up to mu dv is taken off the
 * velocity along the skin relative to vobj (a Coulomb impulse: all of
 * it when that slip is at most mu dv);
 * porosity where hair > 0: the velocity relative to the mesh (the mean
 * of the tet's node v) split along and across hair_dir, each part
 * divided by 1 + k hair dt (implicit, so never reversed).
 * Volume is untouched.  Parallel, per tet: the same bytes for any number
 * of threads. */
void vof_forces(const kdsm_mesh *m, vof_state *s, const vof_forces_opts *o);

typedef struct vof_conserve_opts {
	uint64_t seed;          /* spray of pushout (d), keyed as in advection */
	long frame;
	double jitter;          /* VOF_JITTER_MIN..VOF_JITTER_MAX */
} vof_conserve_opts;

void vof_conserve_defaults(vof_conserve_opts *o);

/* lee2019 §3.3, smear: every live oversaturated tet (W > cap) not on the
 * KDSM's boundary (no nbr -1) gives its excess W - cap, with its
 * velocity, equally to its live face neighbours with cap > 0 (none: it
 * keeps it for pushout).  Every excess is computed before any is given
 * (notes §2.4: order free).  Adds smeared to L.  0, or -1 with err. */
int vof_smear(const kdsm_mesh *m, vof_state *s, vof_ledger *L, slc_err *err);

/* lee2019 §3.3, pushout: live tets by rank (-1, 0, 1, ..., unranked
 * last; by index within a rank), each oversaturated one in turn:
 * (a) fills its unsaturated live face neighbours equally up to cap
 *     (VOF_FILL_ROUNDS rounds);
 * (b) gives the rest equally to its live face neighbours of strictly
 *     higher rank;
 * (c) without one, to the live tets of its nonlocal list of higher rank;
 * (d) without one, a boundary tet sends the rest out through its first
 *     boundary face as spray (one particle per sample, moved across the
 *     face along its normal and jittered outward, §4.1);
 * (e) else the tet is enclosed and keeps the rest (§6; counted in
 *     n_enclosed and enclosed).
 * Momentum moves with volume.  Afterwards no live tet holds more than its
 * cap but enclosed ones (beyond rounding).  Adds pushed, enclosed,
 * particles_out, n_spray to L.  0, or -1 with err. */
int vof_pushout(const kdsm_mesh *m, vof_state *s, const vof_conserve_opts *o,
		vof_spray *sp, vof_ledger *L, slc_err *err);

/* lee2019 §3.3, velocity correction: flags set on the live wet cut tets;
 * in pushout order, a tet whose flag is set and whose u.n < vobj.n gets
 * u += (vobj.n - u.n) n and is "clamped".  A wet tet gets the flag if a
 * lower-rank tet sharing a node with it (the paper: a face; notes §6:
 * ranks grow through nodes, so a tet of rank r may share no face with
 * rank r-1, and a column of water would never be flagged) is saturated
 * (W >= cap) and was clamped.  Adds n_corrected to L.  0, or -1 with
 * err (memory). */
int vof_correct(const kdsm_mesh *m, vof_state *s, vof_ledger *L, slc_err *err);

/* Smear, pushout and velocity correction, in that order. */
int vof_conserve(const kdsm_mesh *m, vof_state *s, const vof_conserve_opts *o,
		 vof_spray *sp, vof_ledger *L, slc_err *err);

#endif
