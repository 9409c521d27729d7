/* masspring.h: a mesh-free mass-spring body advanced in time: particles
 * (position, velocity, mass, prescribed velocity), the springs of
 * spring.h, the implicit damping system of cloth_sys.h and its
 * conjugate gradients, and one time step with body collisions.  Cloth
 * (cloth.h) and hair (lib/hair/) are built on it; each adds its own
 * topology, its wind frame, and whatever acts between the half steps
 * (self-repulsions, strain limiting) through the hooks below.
 *
 * selle2008 thesis §5.4 (the semi-implicit Newmark scheme: backward Euler
 * half steps then extrapolation, CG on the implicit damping system),
 * §5.5 (implicit linear springs), §6.2 (steps B.1-B.8 of the time step),
 * §6.5 (body collisions with friction), §6.6 (wind drag), §7.4 (the hair
 * step, which adds strain limiting after B.1 and offers backward Euler).
 *
 * State is double precision, particle i at x[3i..3i+2]; particles are
 * either free, or constrained (pinned or scripted) to a given velocity.
 */
#ifndef SLC_MASSPRING_H
#define SLC_MASSPRING_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/band_chol.h"
#include "cloth/cloth_split.h"
#include "cloth/cloth_sys.h"
#include "cloth/collide_body.h"
#include "cloth/spring.h"
#include "core/err.h"

typedef struct masspring_params {
	double g[3];            /* gravity, m/s^2 */
	double cg_tol;          /* CG stops when every residual / mass is
				   below this, m/s */
	int cg_max;             /* CG iteration cap */
	int implicit_springs;   /* §5.5 on (1) or plain semi-implicit (0) */
	int backward_euler;     /* 1: one backward Euler solve per step
				   instead of the Newmark pair (§7.4:
				   "increased stability") */
	double wind_drag;       /* linear drag coefficient, kg/(m^2 s), on
				   each particle's area (0: no wind) */
	double wind[3];         /* wind velocity, m/s */
	int wind_iso;           /* 0: drag along the normal nrm (§6.6,
				   cloth); 1: drag along the whole relative
				   velocity (hair strands) */
} masspring_params;

/* Counters of the steps taken. */
typedef struct masspring_stats {
	long steps, cg_iters, body_contacts;
	long cg_solves, cg_capped;  /* solves, and those stopped at cg_max */
	double cg_worst;        /* largest final residual of a capped solve, m/s */
} masspring_stats;

typedef struct masspring masspring;

/* What the owner adds to a step; any hook may be NULL. */
typedef struct masspring_hooks {
	void *ctx;              /* passed to every hook */
	/* with wind on and wind_iso 0: unit normals nrm (3np) and areas
	 * area (np, m^2) at positions x (3np), before each linearization */
	void (*wind_frame)(void *ctx, const double *x, double *nrm,
			   double *area);
	/* after B.1: may change the position-update velocity ms->vh (3np)
	 * that B.3 moves the points with, from the start positions ms->x0;
	 * never the velocity the forces see (thesis §7.4.1) */
	void (*limit)(void *ctx, masspring *ms, double dt);
	/* B.2 (elastic 1, on ms->vh) and B.8 (elastic 0, on ms->v):
	 * self-repulsions at positions x */
	void (*repulse)(void *ctx, const double *x, double *v, double dt,
			int elastic);
} masspring_hooks;

struct masspring {
	masspring_params par;
	masspring_hooks hk;
	spring_set spr;
	cloth_sys sys;          /* M - h D in blocks (cloth_sys.h) */
	size_t np;
	double *x, *v, *m;      /* 3np, 3np, np (owned) */
	uint8_t *fixed;         /* np: 1 = velocity prescribed by vfix */
	double *vfix;           /* 3np */
	double *fext;           /* 3np external force, N, held constant
				   through every step (masspring_set_force),
				   or NULL: none */
	double *area, *nrm;     /* np drag areas (m^2), 3np wind normals */
	/* work; vh is the position-update velocity v~^{n+1/2} after B.1 and
	 * v^{n+1/2} after B.5, vs the effective v_*^n, x0 the start */
	double *x0, *vn, *vs, *vh, *xt, *F, *b, *r, *z, *p, *q;
	double *diag;           /* 9np: inverse diagonal blocks of M - h D */
	double *acc;            /* 3np: acceleration of the last step, for
				   the first CG guess of the next */
	double *cN, *cvB, *cmu; /* per particle contact normal, body vel, mu */
	uint8_t *contact;
	band_chol *chain;       /* NULL: block-Jacobi preconditioner; else
				   the chains' banded factor (owned) */
	uint8_t *chained;       /* np: 1 = in one of the chains */
	cloth_split *split;     /* NULL: one process; else set by the owner
				   (an MPI build's stage): each rank
				   computes the forces, the CG's products
				   and its dot partials on its own units,
				   gathered to every rank (the CG's
				   direction only to the ranks whose rows
				   name it: cloth_halo); with units that
				   cut no particle (set by the owner), the
				   body collisions too */
	const cloth_units *units;  /* the units of the sums and of the
				   ranks' work (cloth_split.h), set by the
				   owner, or NULL: dunits */
	cloth_units dunits;     /* DOT_BLOCKS equal element ranges (owned) */
	double *part;           /* a partial per unit */
	cloth_halo halo;        /* the CG products' halo over the split
				   (cloth_split.h), made at a solve's first
				   product */
	int halo_ok;            /* halo made for this solve */
	int halo_bad;           /* 1: no halo (memory): p is gathered */
	masspring_stats st;
};

/* Set up np particles at x (3np) with velocities v (3np; NULL: at rest)
 * and masses m (np, kg, positive), moved by the springs *spr, which the
 * body takes over (spr is left zeroed, and freed on failure too).
 * Everything else is copied; all particles start free, drag areas 0.
 * 0 / -1 with err. */
int masspring_init(masspring *ms, size_t np, const double *x, const double *v,
		   const double *m, spring_set *spr, const masspring_params *par,
		   slc_err *err);

void masspring_free(masspring *ms);

/* Precondition CG by the exact factor of each chain's band of M - h D
 * (band_chol.h) instead of block Jacobi: nchain chains, chain c the
 * particles seq[cstart[c]..cstart[c+1]-1] (each particle in at most one
 * chain; those in none keep their diagonal block), coupled within bw
 * places along it; copied.  The factor is made once per solve (one per
 * linearization), on the system projected as the solve is (constrained
 * particles and, in the contact solve, normal directions decoupled).
 * 0 / -1 with err. */
int masspring_set_chains(masspring *ms, size_t nchain, const uint32_t *cstart,
			 const uint32_t *seq, int bw, slc_err *err);

/* Prescribe particle i's velocity (pinned: zero). */
void masspring_constrain(masspring *ms, size_t i, const double vel[3]);

/* Hold the external force f (3np, N per particle, copied; NULL: none)
 * on the particles through every following step, added to gravity among
 * the velocity-independent forces (a force the owner computed outside,
 * e.g. a fluid's pressure load, guendelman2005 §5: explicit, constant
 * while the body advances).  Constrained particles ignore it as they do
 * gravity.  0, or -1 with err (memory; the previous force is kept). */
int masspring_set_force(masspring *ms, const double *f, slc_err *err);

/* One time step dt from time t (steps B.1-B.8 of §6.2, with the hooks):
 * body collisions and friction against the nb bodies. */
void masspring_step(masspring *ms, double t, double dt,
		    const cloth_body *bodies, int nb);

/* Use the units u (borrowed: they must outlive ms; NULL: the default
 * DOT_BLOCKS) for the sums and the ranks' work.  0 / -1 with err. */
int masspring_set_units(masspring *ms, const cloth_units *u, slc_err *err);

/* The units in use (ms->units, or the default). */
const cloth_units *masspring_units(const masspring *ms);

/* Every rank's elements of the 3np vector a into a on every rank (the
 * units' gather; a no-op on one rank). */
void masspring_share(masspring *ms, double *a);

/* Kinetic + gravitational + elastic energy at the current state, J. */
double masspring_energy(masspring *ms);

#endif
