/* cloth.h: a cloth mesh advanced in time.
 *
 * selle2008 thesis ch. 5-6: the mass-spring model of spring.h, the
 * semi-implicit Newmark scheme of §5.4 (backward Euler half steps then
 * extrapolation) with conjugate gradients on the implicit damping system,
 * implicit linear springs (§5.5), cloth-object collisions with accurate
 * friction (§6.5) woven into the time step as in §6.2, wind drag along the
 * normal (§6.6), and the outer collision loop of §6.3 with history-based
 * self-repulsions (§6.4) and robust self-collisions (collide_self.h).
 *
 * The particles, springs and the step itself are the mesh-free
 * masspring.h; the cloth adds its mesh (springs from its edges and
 * triangle pairs, normals for the wind) and the self-interactions.
 * State is double precision, particle i at x[3i..3i+2]; particles are
 * either free, or constrained (pinned or scripted) to a given velocity.
 */
#ifndef SLC_CLOTH_H
#define SLC_CLOTH_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/cloth_mesh.h"
#include "cloth/collide_body.h"
#include "cloth/masspring.h"
#include "core/err.h"
#include "cloth/spring.h"

typedef struct cloth_params {
	spring_params spring;
	double g[3];            /* gravity, m/s^2 (table 6.1: 9.8 down y) */
	double cg_tol;          /* CG stops when every residual / mass is
				   below this, m/s (table 6.1: 0.001) */
	int cg_max;             /* CG iteration cap */
	int implicit_springs;   /* §5.5 on (1) or plain semi-implicit (0) */
	double wind_drag;       /* linear drag along the normal, kg/(m^2 s) */
	double wind[3];         /* wind velocity, m/s */
	/* self-interactions (§6.3-6.4) */
	int self;               /* repulsions and collisions on (1) */
	double thickness;       /* repulsion thickness h, m (table: 0.01) */
	double k_rep;           /* repulsion stiffness k (table: 30) */
	double mu_self;         /* cloth-cloth friction */
	int loops;              /* k_i time steps per collision step (4-16) */
	int coll_iters;         /* collision passes before impact zones */
} cloth_params;

/* Table 6.1 defaults (gravity -9.8 along y, 8 steps per collision step). */
void cloth_params_default(cloth_params *p);

struct collide_self;

/* Seconds spent in each part of the algorithm, and counters. */
typedef struct cloth_stats {
	double t_repulsion;     /* step A and B.2/B.8 */
	double t_integration;   /* step B without repulsions */
	double t_collision;     /* step C */
	long steps, cg_iters, body_contacts;
	long cg_solves, cg_capped;  /* solves, and those stopped at cg_max */
	double cg_worst;        /* largest final residual of a capped solve, m/s */
	long collisions, impact_zones, repulsion_pairs;
} cloth_stats;

typedef struct cloth {
	cloth_params par;
	cloth_mesh mesh;
	masspring ms;           /* particles, springs, system, the step */
	/* views of ms's arrays (owned by ms), for the collision code */
	size_t np;
	double *x, *v, *m;      /* 3np, 3np, np */
	uint8_t *fixed;         /* np: 1 = velocity prescribed */
	struct collide_self *cs;
	cloth_stats st;
} cloth;

/* Set up a cloth of np particles and nt triangles.  x, v: 3np (v may be
 * NULL: at rest); xrest: 3np rest positions (NULL: x); m: np masses, kg.
 * Everything is copied.  All particles start free.  0 / -1. */
int cloth_init(cloth *c, size_t np, size_t nt, const uint32_t *tri,
	       const double *x, const double *v, const double *xrest,
	       const double *m, const cloth_params *par, slc_err *err);

void cloth_free(cloth *c);

/* Prescribe particle i's velocity (pinned: zero). */
void cloth_constrain(cloth *c, size_t i, const double vel[3]);

/* Hold the external force f (3np, N per node, copied; NULL: none) on the
 * nodes through every following step: the fluid's load of guendelman2005
 * §5, explicit and constant while the cloth advances a frame
 * (masspring_set_force).  Pinned and scripted nodes ignore it.  0, or -1
 * with err (memory). */
int cloth_set_force(cloth *c, const double *f, slc_err *err);

/* One time step dt from time t (steps B.1-B.8 of §6.2): body collisions
 * and friction against the nb bodies; self-repulsions from the pairs of
 * the last collision step when par.self is on. */
void cloth_step(cloth *c, double t, double dt, const cloth_body *bodies,
		int nb);

/* Advance from t by T seconds in nsteps equal steps, through the outer
 * collision loop of §6.3 (k_i = par.loops steps per collision step; with
 * par.self off, plain steps).  Returns 0, or -1 with err if self-collisions
 * could not be resolved. */
int cloth_advance(cloth *c, double t, double T, int nsteps,
		  const cloth_body *bodies, int nb, slc_err *err);

/* Kinetic + gravitational + elastic energy at the current state, J. */
double cloth_energy(cloth *c);

#endif
