/* hair.h: hair strands advanced in time (selle2008 thesis ch. 7).
 *
 * The strands of hair_build.h (axis points, virtual particles, edge, bend,
 * torsion and altitude springs, §7.3) on the mass-spring body of
 * cloth/masspring.h: implicit linear springs (§5.5) in the Newmark step of
 * §7.4 (or backward Euler), biased strain limiting after its first half
 * step (§7.4.1, hair_limit.h), body collisions with friction (§7.5.1 on
 * §6.5), wind drag and gravity, and as many steps per frame as the strain
 * rate and the Courant condition ask (§7.6).
 *
 * Particles are numbered as in hair_build.h: axis point i (the record's
 * point i) is particle i, the virtuals follow.
 */
#ifndef SLC_HAIR_H
#define SLC_HAIR_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/collide_body.h"
#include "cloth/masspring.h"
#include "cloth/strand_self.h"
#include "core/err.h"
#include "hair/hair_build.h"

typedef struct hair_params {
	masspring_params mp;    /* gravity, CG, implicit springs, backward
				   Euler, wind (isotropic drag, kg/(m s)
				   per metre of strand) */
	hair_springs k;         /* stiffness and damping of the classes */
	int subdivide;          /* enum hair_subdivide */
	double density;         /* mass per metre of strand, kg/m */
	double strain;          /* strain limit s of §7.4.1; 0: off */
	int steps;              /* fewest time steps per frame */
	int max_steps;          /* most time steps per frame */
	double courant;         /* fraction of the shortest edge a point
				   may cross in a step */
	double strain_step;     /* largest strain change of an edge in a
				   step */
	int precond;            /* enum hair_precond */
	/* §7.5.2-7.5.3: repulsions (self.repulse), self-collisions
	 * (self.collide) and stiction (self.stiction); self.thickness 0:
	 * HAIR_THICK_FRAC of the mean rest axis segment; self.stic.eps_s 0:
	 * the thickness; self.stic.eps_break 0: HAIR_BREAK_FRAC eps_s */
	strand_self_params self;
	int loops;              /* time steps per collision step k_i (§6.3) */
} hair_params;

/* notes §1 items 7, 11 (SPEC): thickness 0.1 of the mean rest axis
 * segment; bonds break at twice their rest length. */
#define HAIR_THICK_FRAC 0.1
#define HAIR_BREAK_FRAC 2.0

/* CG preconditioners: each strand's band factored exactly (notes §2; the
 * default), or the 3x3 diagonal blocks (block Jacobi, as cloth). */
enum hair_precond { HAIR_PREC_STRAND, HAIR_PREC_JACOBI };

/* Units of whole strands (hair.h units): an MPI rank owns a run of them,
 * so the finer they are the better the ranks' particle counts balance;
 * each CG sum gathers a partial per unit. */
#define HAIR_UNITS 256

/* Block bandwidth of a strand in its interleaved order: torsion and
 * altitude springs join p_j to p_{j+3} (§7.3, fig. 7.2). */
#define HAIR_BAND 3

/* SPEC defaults (the thesis gives no hair values): see hair.c. */
void hair_params_default(hair_params *p);

/* The virtual particles of a frame before (the persisted state), all
 * arrays nvirt long; NULL members are built (rest: §7.3.1 from the axis
 * rest; P: placed by hair_virt_place; v: 0; mass: the strand's share). */
typedef struct hair_virt {
	size_t nvirt;
	const uint32_t *seg;    /* required: rootward axis point, ascending */
	const double *P, *v, *rest, *mass;  /* 3, 3, 3, 1 per virtual */
} hair_virt;

/* Figures of the last hair_advance. */
typedef struct hair_stats {
	long steps, cg_iters, limited, contacts;
	long collisions, unresolved;  /* step C: answered, left over */
	long made, broken;      /* stiction bonds made and broken */
	size_t bonds;           /* stiction bonds at the end */
	/* wall-clock seconds (not deterministic: never in the stream):
	 * the Newmark steps without the repulsions, the strand collisions
	 * (repulsions, steps C, body push-out), steps A (stiction and the
	 * repulsion pairs) */
	double t_step, t_collide, t_stiction;
	double max_strain;      /* largest |l/l0 - 1| of an axis edge, end */
	double min_phi;         /* smallest body distance of a free particle
				   at the end, m (HUGE_VAL without bodies) */
} hair_stats;

typedef struct hair {
	hair_params par;
	hair_topo topo;
	masspring ms;
	double *seg_l0;         /* naxis: rest length of the segment from i */
	double *tri_l0;         /* nvirt: rest length of virtual k's edge
				   from its segment's root */
	double *rest;           /* 3 np: rest positions of every particle */
	double lmin;            /* shortest rest edge, m */
	strand_self ss;         /* strand interactions, when has_ss */
	int has_ss;
	uint32_t *seg;          /* 2 (naxis - nstrands): the axis segments */
	/* the units of the body's sums and of the ranks' work (cloth_split.h):
	 * HAIR_UNITS runs of whole strands of about equal particle counts,
	 * each its axis points and its virtuals; unit u holds the strands
	 * [units.chain[u], units.chain[u + 1]) */
	cloth_units units;
	long *ucount;           /* HAIR_UNITS: a count per unit */
	hair_stats st;
} hair;

/* Set up nstrands strands over offset (nstrands + 1, rising from 0 to
 * naxis, >= 2 points a strand): axis positions P, velocities v (NULL: 0),
 * rest positions rest (NULL: P), masses mass (naxis, NULL: density split
 * equally over each strand's particles), per-strand kscale (NULL: 1);
 * virt NULL: virtuals chosen by par->subdivide and built.  Everything is
 * copied.  0 / -1 with err. */
int hair_init(hair *h, size_t nstrands, const uint32_t *offset, size_t naxis,
	      const double *P, const double *v, const double *rest,
	      const double *mass, const double *kscale, const hair_virt *virt,
	      const hair_params *par, slc_err *err);

void hair_free(hair *h);

/* Stiction bonds of a frame before (the detail channels stic_seg and
 * stic_frac, as stiction_load): n bonds, name 2n rootward axis points of
 * the segments, frac 2n fractions along them.  0 / -1 with err (stiction
 * off, bad bonds). */
int hair_load_bonds(hair *h, size_t n, const uint32_t *name,
		    const double *frac, slc_err *err);

/* Number of stiction bonds now (0 with stiction off). */
size_t hair_nbonds(const hair *h);

/* The bonds into name and frac (2 hair_nbonds each). */
void hair_save_bonds(const hair *h, uint32_t *name, double *frac);

/* Prescribe particle i's velocity (pinned: zero). */
void hair_constrain(hair *h, size_t i, const double vel[3]);

/* Number of steps hair_advance would take over T from the current
 * velocities (§7.6): at least par.steps, enough that no point crosses
 * par.courant of the shortest rest edge and no edge's strain changes by
 * more than par.strain_step in a step, at most par.max_steps. */
int hair_nsteps(hair *h, double T);

/* Advance from t by T seconds in hair_nsteps(h, T) equal steps against
 * the nb bodies; figures in h->st.  0, or -1 with err on a bad span. */
int hair_advance(hair *h, double t, double T, const cloth_body *bodies,
		 int nb, slc_err *err);

/* The strands [*s0, *s1) and particle count of rank q of P (the serial
 * build: q 0 of 1 owns every strand): runs of whole strands of about equal
 * particle counts. */
size_t hair_rank_strands(const hair *h, int q, int P, size_t *s0, size_t *s1);

/* Kinetic + gravitational + elastic energy at the current state, J. */
double hair_energy(hair *h);

#endif
