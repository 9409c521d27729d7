/* cloth.c: cloth on the mass-spring body of masspring.h: springs from
 * the mesh, its wind frame, and the outer collision loop of selle2008
 * thesis §6.3 with self-repulsions (§6.4); see cloth.h. */
#include "cloth/cloth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloth/cloth_vec.h"
#include "cloth/collide_self.h"

/* selle2008 table 6.1 */
#define TABLE61_CG_TOL 1e-3
#define TABLE61_G 9.8
#define TABLE61_H 0.01
#define TABLE61_K 30.0
#define DEFAULT_LOOPS 8         /* k_i: table 6.1 gives 4-16 */
#define DEFAULT_CG_MAX 500
#define DEFAULT_COLL_ITERS 8

/* Wall-clock seconds, for the timing statistics. */
static double
cloth_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void
cloth_params_default(cloth_params *p)
{
	memset(p, 0, sizeof *p);
	spring_params_default(&p->spring);
	p->g[1] = -TABLE61_G;
	p->cg_tol = TABLE61_CG_TOL;
	p->cg_max = DEFAULT_CG_MAX;
	p->implicit_springs = 1;
	p->thickness = TABLE61_H;
	p->k_rep = TABLE61_K;
	p->mu_self = 0.1;
	p->loops = DEFAULT_LOOPS;
	p->coll_iters = DEFAULT_COLL_ITERS;
}

void
cloth_free(cloth *c)
{
	collide_self_free(c->cs);
	cloth_mesh_free(&c->mesh);
	masspring_free(&c->ms);
	memset(c, 0, sizeof *c);
}

/* The wind frame of §6.6: the mesh's vertex normals and areas at x. */
static void
cloth_wind_frame(void *ctx, const double *x, double *nrm, double *area)
{
	const cloth *c = ctx;

	cloth_mesh_normals(&c->mesh, x, nrm, area);
}

/* B.2 and B.8: the self-repulsions of the last collision step, timed. */
static void
cloth_repulse(void *ctx, const double *x, double *v, double dt, int elastic)
{
	cloth *c = ctx;
	double t0 = cloth_clock();

	collide_self_repulse(c->cs, x, v, dt, elastic);
	c->st.t_repulsion += cloth_clock() - t0;
}

int
cloth_init(cloth *c, size_t np, size_t nt, const uint32_t *tri,
	   const double *x, const double *v, const double *xrest,
	   const double *m, const cloth_params *par, slc_err *err)
{
	spring_set spr;
	masspring_params mp = {
		.cg_tol = par->cg_tol, .cg_max = par->cg_max,
		.implicit_springs = par->implicit_springs,
		.wind_drag = par->wind_drag,
	};

	memset(c, 0, sizeof *c);
	c->par = *par;
	c->np = np;
	memcpy(mp.g, par->g, sizeof mp.g);
	memcpy(mp.wind, par->wind, sizeof mp.wind);
	if (np > SIZE_MAX / 9)
		return slc_fail(err, "point count overflows");
	for (size_t i = 0; i < np; i++)
		if (!(m[i] > 0) || !isfinite(m[i]))
			return slc_fail(err, "point %zu: mass %g is not positive",
					i, m[i]);
	if (cloth_mesh_build(&c->mesh, np, nt, tri, err))
		return -1;
	if (spring_build(&spr, &c->mesh, xrest ? xrest : x, &par->spring,
			 err)) {
		cloth_free(c);
		return -1;
	}
	if (masspring_init(&c->ms, np, x, v, m, &spr, &mp, err)) {
		cloth_free(c);
		return -1;
	}
	c->ms.hk.ctx = c;
	c->ms.hk.wind_frame = cloth_wind_frame;
	c->x = c->ms.x;
	c->v = c->ms.v;
	c->m = c->ms.m;
	c->fixed = c->ms.fixed;
	if (par->self) {
		if (!(c->cs = collide_self_new(c, err))) {
			cloth_free(c);
			return -1;
		}
		c->ms.hk.repulse = cloth_repulse;
	}
	return 0;
}

void
cloth_constrain(cloth *c, size_t i, const double vel[3])
{
	masspring_constrain(&c->ms, i, vel);
}

int
cloth_set_force(cloth *c, const double *f, slc_err *err)
{
	return masspring_set_force(&c->ms, f, err);
}

/* The masspring counters into the cloth's. */
static void
sync_stats(cloth *c)
{
	const masspring_stats *m = &c->ms.st;

	c->st.steps = m->steps;
	c->st.cg_iters = m->cg_iters;
	c->st.body_contacts = m->body_contacts;
	c->st.cg_solves = m->cg_solves;
	c->st.cg_capped = m->cg_capped;
	c->st.cg_worst = m->cg_worst;
}

void
cloth_step(cloth *c, double t, double dt, const cloth_body *bodies, int nb)
{
	masspring_step(&c->ms, t, dt, bodies, nb);
	sync_stats(c);
}

double
cloth_energy(cloth *c)
{
	return masspring_energy(&c->ms);
}

int
cloth_advance(cloth *c, double t, double T, int nsteps,
	      const cloth_body *bodies, int nb, slc_err *err)
{
	const size_t np = c->np, n3 = 3 * np;
	double dt, tc;

	if (nsteps < 1 || !(T > 0))
		return slc_fail(err, "bad time span %g in %d steps", T, nsteps);
	dt = T / nsteps;
	if (!c->cs) {
		tc = cloth_clock();
		for (int s = 0; s < nsteps; s++)
			cloth_step(c, t + s * dt, dt, bodies, nb);
		c->st.t_integration += cloth_clock() - tc;
		return 0;
	}
	/* §6.3: the outer collision loop.  Positions are collision free at
	 * the start and end of each collision step of k_i time steps. */
	double *xs = slc_calloc(n3 + 1, sizeof *xs, err);
	uint8_t *moved = slc_calloc(np + 1, 1, err);
	int ret = 0;
	if (!xs || !moved) {
		free(xs);
		free(moved);
		return -1;
	}
	for (int s = 0; s < nsteps && !ret; ) {
		int k = c->par.loops < 1 ? 1 : c->par.loops;
		if (k > nsteps - s)
			k = nsteps - s;
		memcpy(xs, c->x, n3 * sizeof *xs);
		/* A: repulsion pairs and their orientation history */
		tc = cloth_clock();
		if (collide_self_pairs(c->cs, c->x, c->v, k * dt, err))
			ret = -1;
		c->st.repulsion_pairs += (long)collide_self_npairs(c->cs);
		c->st.t_repulsion += cloth_clock() - tc;
		/* B: k_i time steps (repulsions timed inside) */
		tc = cloth_clock();
		double trep = c->st.t_repulsion;
		for (int j = 0; j < k && !ret; j++)
			cloth_step(c, t + (s + j) * dt, dt, bodies, nb);
		c->st.t_integration += cloth_clock() - tc -
			(c->st.t_repulsion - trep);
		/* C: robust collisions on the straight paths from xs; moved
		 * points take their new effective velocity */
		tc = cloth_clock();
		memset(moved, 0, np);
		if (!ret && collide_self_resolve(c->cs, xs, c->x, k * dt, moved,
						 &c->st.collisions,
						 &c->st.impact_zones, err))
			ret = -1;
		for (size_t i = 0; i < np; i++)
			if (moved[i] && !c->fixed[i])
				for (int d = 0; d < 3; d++)
					c->v[3 * i + d] = (c->x[3 * i + d] -
						xs[3 * i + d]) / (k * dt);
		c->st.t_collision += cloth_clock() - tc;
		s += k;
	}
	free(xs);
	free(moved);
	return ret;
}
