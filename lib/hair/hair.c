/* hair.c: hair strands on the mass-spring body, with strain limiting and
 * adaptive steps (selle2008 thesis ch. 7; see hair.h). */
#include "hair/hair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "cloth/cloth_vec.h"
#include "hair/hair_limit.h"

/* SPEC defaults: the thesis gives no hair values (notes §1 items 4, 6, 14,
 * 15).  Gravity as table 6.1.  Edge stiffness: a spring (§5.3.2, F = k
 * strain) of about 1 N keeps a strand's own weight to a strain near 1e-5
 * while leaving CG fast; strain limiting, not stiffness, holds the length
 * (§7.4.1).  Bend and torsion 1e-3 N, altitude 1e-2 N: what holds a
 * curl.  An altitude spring resists inversion with at most 2 k l0 / L
 * (§5.3.4, l0 the rest altitude, L the torsion's rest length), and l0 / L
 * is small on a curl: 0.02 on a 1 cm curl of 8 points a turn, 0.004 at 16.
 * With 1e-4 N that is 4e-6 N, below the 1.3e-5 N weight of a 26 cm strand,
 * and its tetrahedra flip; 1e-2 N gives 30 times the weight.  Bend and
 * torsion at 1e-4 N let such a 4-turn curl hang to 2.4 times its height
 * and lose turns; at 1e-3 N it keeps them within 0.1 (tests/c/test_hair.c
 * test_curl) while a straight 30 cm strand still droops (its tip falls
 * 0.13 m held level).  Finer curls (16 points a turn) need more: --bend,
 * --torsion, --altitude or the kscale channel. */
#define HAIR_G 9.8
#define HAIR_K_EDGE 1.0
#define HAIR_K_BEND 1e-3
#define HAIR_K_ALT 1e-2
#define HAIR_XI_EDGE 15.0       /* table 6.1's cloth values */
#define HAIR_XI_SOFT 8.0
/* 70 micron hair of 1300 kg/m^3: 5e-6 kg per metre */
#define HAIR_DENSITY 5e-6
#define HAIR_STRAIN 0.1         /* §7.4.1 quotes 10% for cloth */
#define HAIR_CG_TOL 1e-5        /* m/s: strands are cheap, keep it tight */
#define HAIR_CG_MAX 1000
#define HAIR_STEPS 8
#define HAIR_MAX_STEPS 10000
#define HAIR_COURANT 0.5        /* §7.6 "Courant condition" */
#define HAIR_STRAIN_STEP 0.01   /* §7.6 "strain rate" */
#define HAIR_K_REP 30.0         /* table 6.1's repulsion stiffness, N/m */
#define HAIR_MU_SELF 0.1        /* strand/strand friction, as cloth's */
#define HAIR_COLL_ITERS 8       /* step C passes, as cloth's */
#define HAIR_NMAX 2             /* notes §1 item 11: bonds a segment */
#define HAIR_LOOPS 1            /* notes §2: step C after every step */

void
hair_params_default(hair_params *p)
{
	memset(p, 0, sizeof *p);
	p->mp.g[1] = -HAIR_G;
	p->mp.cg_tol = HAIR_CG_TOL;
	p->mp.cg_max = HAIR_CG_MAX;
	p->mp.implicit_springs = 1;
	p->mp.wind_iso = 1;
	p->k.k_edge = HAIR_K_EDGE;
	p->k.xi_edge = HAIR_XI_EDGE;
	p->k.k_bend = p->k.k_tors = HAIR_K_BEND;
	p->k.k_alt = HAIR_K_ALT;
	p->k.xi_bend = p->k.xi_tors = p->k.xi_alt = HAIR_XI_SOFT;
	p->subdivide = HAIR_SUB_AUTO;
	p->density = HAIR_DENSITY;
	p->strain = HAIR_STRAIN;
	p->steps = HAIR_STEPS;
	p->max_steps = HAIR_MAX_STEPS;
	p->courant = HAIR_COURANT;
	p->strain_step = HAIR_STRAIN_STEP;
	p->self.k_rep = HAIR_K_REP;
	p->self.mu_self = HAIR_MU_SELF;
	p->self.coll_iters = HAIR_COLL_ITERS;
	p->self.repulse = p->self.collide = p->self.stiction = 1;
	p->self.stic.nmax = HAIR_NMAX;
	p->loops = HAIR_LOOPS;
}

void
hair_free(hair *h)
{
	hair_topo_free(&h->topo);
	if (h->has_ss)
		strand_self_free(&h->ss);
	masspring_free(&h->ms);
	free(h->seg);
	free(h->seg_l0);
	free(h->tri_l0);
	free(h->rest);
	free(h->units.start);
	free(h->units.chain);
	free(h->ucount);
	memset(h, 0, sizeof *h);
}

/* §7.4 step 2, the masspring hook after B.1. */
static void
hair_limit_hook(void *ctx, masspring *ms, double dt)
{
	hair *h = ctx;
	int u0, u1;

	/* each rank limits its own strands, then shares their velocities;
	 * the counts are gathered per unit */
	cloth_units_owned(&h->units, ms->split, ms->split ? ms->split->rank : 0,
			  &u0, &u1);
	memset(h->ucount, 0, HAIR_UNITS * sizeof *h->ucount);
	if (u0 < u1)
		h->ucount[u0] = hair_limit(&h->topo, h->units.chain[u0],
					   h->units.chain[u1], ms->x0, ms->vh,
					   ms->fixed, h->seg_l0, h->tri_l0,
					   h->par.strain, dt);
	masspring_share(ms, ms->vh);
	cloth_units_gather(ms->split, &h->units, h->ucount, sizeof *h->ucount);
	for (int u = 0; u < HAIR_UNITS; u++)
		h->st.limited += h->ucount[u];
}

/* The units of whole strands (hair.h). */
static int
units_init(hair *h, slc_err *err)
{
	const hair_topo *t = &h->topo;
	cloth_units *u = &h->units;
	const size_t G = HAIR_UNITS, np = t->np;

	u->nunit = HAIR_UNITS;
	u->nseg = 2;
	u->balanced = 1;
	u->start = slc_calloc(2 * (G + 1), sizeof *u->start, err);
	u->chain = slc_calloc(G + 1, sizeof *u->chain, err);
	h->ucount = slc_calloc(G + 1, sizeof *h->ucount, err);
	if (!u->start || !u->chain || !h->ucount)
		return -1;
	/* unit k ends at the first strand boundary with at least k / G of
	 * the particles before it */
	size_t s = 0, before = 0;
	for (size_t k = 0; k <= G; k++) {
		while (s < t->nstrands && (unsigned long long)before * G <
		       (unsigned long long)np * k) {
			before += t->offset[s + 1] - t->offset[s] +
				t->voff[s + 1] - t->voff[s];
			s++;
		}
		if (k == G)
			s = t->nstrands;
		u->chain[k] = s;
		u->start[k] = 3 * (size_t)t->offset[s];
		u->start[G + 1 + k] = 3 * (t->naxis + (size_t)t->voff[s]);
	}
	return 0;
}

size_t
hair_rank_strands(const hair *h, int q, int P, size_t *s0, size_t *s1)
{
	cloth_split sp = { .rank = q, .size = P };
	const hair_topo *t = &h->topo;
	int u0, u1;

	cloth_units_owned(&h->units, &sp, q, &u0, &u1);
	*s0 = h->units.chain[u0];
	*s1 = h->units.chain[u1];
	return t->offset[*s1] - t->offset[*s0] + t->voff[*s1] - t->voff[*s0];
}

/* §7.4 steps 3 and 9, the masspring repulse hook: the strands'
 * repulsions (strand_self.h), timed. */
static void
hair_repulse_hook(void *ctx, const double *x, double *v, double dt,
		  int elastic)
{
	hair *h = ctx;
	double t0 = omp_get_wtime();

	strand_self_repulse(&h->ss, x, v, dt, elastic);
	h->st.t_collide += omp_get_wtime() - t0;
}

/* Distance between particles a and b of x. */
static double
dist(const double *x, uint32_t a, uint32_t b)
{
	double d[3];

	v3sub(x + 3 * b, x + 3 * a, d);
	return v3norm(d);
}

/* The strand interactions on the axis segments (notes §1 item 7: virtuals
 * excluded), with the SPEC defaults of hair.h for sizes left 0. */
static int
self_init(hair *h, const hair_params *par, slc_err *err)
{
	const hair_topo *t = &h->topo;
	strand_self_params sp = par->self;
	size_t nseg = 0;
	double sum = 0;

	if (!(h->seg = slc_calloc(2 * t->naxis + 1, sizeof *h->seg, err)))
		return -1;
	for (size_t s = 0; s < t->nstrands; s++)
		for (uint32_t i = t->offset[s]; i + 1 < t->offset[s + 1]; i++) {
			h->seg[2 * nseg] = i;
			h->seg[2 * nseg + 1] = i + 1;
			sum += h->seg_l0[i];
			nseg++;
		}
	if (!(sp.thickness > 0))
		sp.thickness = HAIR_THICK_FRAC * sum / (double)nseg;
	if (!(sp.stic.eps_s > 0))
		sp.stic.eps_s = sp.thickness;
	if (!(sp.stic.eps_break > 0))
		sp.stic.eps_break = HAIR_BREAK_FRAC * sp.stic.eps_s;
	/* notes §1 item 11 (SPEC): k = k_bend, damped as the soft springs */
	if (!(sp.stic.k > 0))
		sp.stic.k = par->k.k_bend;
	if (!(sp.stic.xi > 0))
		sp.stic.xi = par->k.xi_bend;
	if (strand_self_init(&h->ss, &h->ms, nseg, h->seg, &sp, err))
		return -1;
	h->has_ss = 1;
	h->par.self = sp;
	return 0;
}

int
hair_load_bonds(hair *h, size_t n, const uint32_t *name, const double *frac,
		slc_err *err)
{
	if (!h->has_ss)
		return slc_fail(err, "stiction bonds given with stiction off");
	return strand_self_load(&h->ss, n, name, frac, err);
}

size_t
hair_nbonds(const hair *h)
{
	return h->has_ss && h->ss.has_stic ? h->ss.stic.nb : 0;
}

void
hair_save_bonds(const hair *h, uint32_t *name, double *frac)
{
	if (hair_nbonds(h))
		stiction_save(&h->ss.stic, name, frac);
}

int
hair_init(hair *h, size_t nstrands, const uint32_t *offset, size_t naxis,
	  const double *P, const double *v, const double *rest,
	  const double *mass, const double *kscale, const hair_virt *virt,
	  const hair_params *par, slc_err *err)
{
	uint32_t *vseg = NULL;
	size_t nvirt = 0;
	double *x = NULL, *vel = NULL, *m = NULL;
	spring_set spr;

	memset(h, 0, sizeof *h);
	h->par = *par;
	if (!rest)
		rest = P;
	if (nstrands < 1 || offset[0] != 0 || offset[nstrands] != naxis)
		return slc_fail(err, "strand offsets do not run from 0 to %zu",
				naxis);
	for (size_t s = 0; s < nstrands; s++)
		if (offset[s + 1] < offset[s] + 2)
			return slc_fail(err, "strand %zu has %d points, expected "
					">= 2", s, (int)offset[s + 1] -
					(int)offset[s]);
	if (virt) {
		nvirt = virt->nvirt;
		if (hair_topo_build(&h->topo, nstrands, offset, naxis, virt->seg,
				    nvirt, &par->k, kscale, err))
			return -1;
	} else {
		if (hair_choose(nstrands, offset, naxis, rest, par->subdivide,
				&vseg, &nvirt, err))
			return -1;
		int rc = hair_topo_build(&h->topo, nstrands, offset, naxis, vseg,
					 nvirt, &par->k, kscale, err);
		free(vseg);
		if (rc)
			return -1;
	}
	const size_t np = h->topo.np;
	h->rest = slc_calloc(3 * np + 1, sizeof *h->rest, err);
	x = slc_calloc(3 * np + 1, sizeof *x, err);
	vel = slc_calloc(3 * np + 1, sizeof *vel, err);
	m = slc_calloc(np + 1, sizeof *m, err);
	h->seg_l0 = slc_calloc(naxis + 1, sizeof *h->seg_l0, err);
	h->tri_l0 = slc_calloc(nvirt + 1, sizeof *h->tri_l0, err);
	if (!h->rest || !x || !vel || !m || !h->seg_l0 || !h->tri_l0)
		goto fail;
	double *vr = h->rest + 3 * naxis;
	memcpy(h->rest, rest, 3 * naxis * sizeof *rest);
	if (virt && virt->rest)
		memcpy(vr, virt->rest, 3 * nvirt * sizeof *vr);
	else
		hair_virt_rest(&h->topo, rest, vr);
	memcpy(x, P, 3 * naxis * sizeof *P);
	if (virt && virt->P)
		memcpy(x + 3 * naxis, virt->P, 3 * nvirt * sizeof *x);
	else
		hair_virt_place(&h->topo, rest, vr, P, x + 3 * naxis);
	if (v)
		memcpy(vel, v, 3 * naxis * sizeof *v);
	if (virt && virt->v)
		memcpy(vel + 3 * naxis, virt->v, 3 * nvirt * sizeof *vel);
	/* notes §1 item 14 (SPEC): a strand's mass split equally over its
	 * particles */
	for (size_t s = 0; s < nstrands; s++) {
		double len = 0;
		const hair_topo *t = &h->topo;
		for (uint32_t i = offset[s]; i + 1 < offset[s + 1]; i++)
			len += dist(h->rest, i, i + 1);
		size_t n = offset[s + 1] - offset[s] + t->voff[s + 1] - t->voff[s];
		for (uint32_t i = offset[s]; i < offset[s + 1]; i++)
			m[i] = mass ? mass[i] : par->density * len / (double)n;
		for (uint32_t k = t->voff[s]; k < t->voff[s + 1]; k++)
			m[naxis + k] = virt && virt->mass ? virt->mass[k] :
				mass ? 0.5 * (mass[t->virt_seg[k]] +
					      mass[t->virt_seg[k] + 1]) :
				par->density * len / (double)n;
	}
	for (size_t i = 0; i < np; i++)
		if (!(m[i] > 0) || !isfinite(m[i])) {
			slc_fail(err, "particle %zu: mass %g is not positive", i,
				 m[i]);
			goto fail;
		}
	h->lmin = HUGE_VAL;
	for (size_t s = 0; s < nstrands; s++)
		for (uint32_t i = offset[s]; i + 1 < offset[s + 1]; i++) {
			h->seg_l0[i] = dist(h->rest, i, i + 1);
			if (h->seg_l0[i] < h->lmin)
				h->lmin = h->seg_l0[i];
		}
	for (size_t k = 0; k < nvirt; k++) {
		h->tri_l0[k] = dist(h->rest, h->topo.virt_seg[k],
				    (uint32_t)(naxis + k));
		if (h->tri_l0[k] < h->lmin)
			h->lmin = h->tri_l0[k];
	}
	if (spring_build_lists(&spr, &h->topo.sl, h->rest, err))
		goto fail;
	if (masspring_init(&h->ms, np, x, vel, m, &spr, &par->mp, err) ||
	    units_init(h, err) || masspring_set_units(&h->ms, &h->units, err))
		goto fail;
	if (par->precond == HAIR_PREC_STRAND) {
		uint32_t *cstart = slc_calloc(nstrands + 1, sizeof *cstart, err);
		if (!cstart)
			goto fail;
		for (size_t s = 0; s <= nstrands; s++)
			cstart[s] = offset[s] + h->topo.voff[s];
		int rc = masspring_set_chains(&h->ms, nstrands, cstart,
					      h->topo.seq, HAIR_BAND, err);
		free(cstart);
		if (rc)
			goto fail;
	}
	/* drag area: each particle's share of its strand's length, m */
	for (size_t i = 0; i < np; i++)
		h->ms.area[i] = m[i] / par->density;
	h->ms.hk.ctx = h;
	if (par->strain > 0)
		h->ms.hk.limit = hair_limit_hook;
	if (par->self.repulse || par->self.collide || par->self.stiction) {
		if (self_init(h, par, err))
			goto fail;
		if (par->self.repulse)
			h->ms.hk.repulse = hair_repulse_hook;
	}
	free(x);
	free(vel);
	free(m);
	return 0;
fail:
	free(x);
	free(vel);
	free(m);
	hair_free(h);
	return -1;
}

void
hair_constrain(hair *h, size_t i, const double vel[3])
{
	masspring_constrain(&h->ms, i, vel);
}

int
hair_nsteps(hair *h, double T)
{
	const masspring *ms = &h->ms;
	const spring_set *s = &ms->spr;
	double vmax = 0, emax = 0;

	for (size_t i = 0; i < ms->np; i++) {
		double a = v3norm(ms->v + 3 * i);
		if (a > vmax)
			vmax = a;
	}
	/* strain rate of every edge spring: the relative velocity along it
	 * over its rest length */
	for (size_t q = 0; q < s->nedge; q++) {
		uint32_t a = s->idx[4 * q], b = s->idx[4 * q + 1];
		double d[3], w[3];
		v3sub(ms->x + 3 * b, ms->x + 3 * a, d);
		v3sub(ms->v + 3 * b, ms->v + 3 * a, w);
		double l = v3norm(d);
		if (!(l > 0))
			continue;
		double e = fabs(v3dot(d, w)) / (l * s->l0[q]);
		if (e > emax)
			emax = e;
	}
	double n = h->par.steps;
	double nc = ceil(T * vmax / (h->par.courant * h->lmin));
	double ne = ceil(T * emax / h->par.strain_step);
	if (nc > n)
		n = nc;
	if (ne > n)
		n = ne;
	if (!(n <= h->par.max_steps))
		n = h->par.max_steps;
	return (int)n;
}

/* Free particles still inside a body at time t after a step are moved
 * out along the body normal by their distance, a few Newton steps on
 * phi.  The §6.5 collision step moves a point by the body's velocity
 * linearised at the point (§6.5 names high curvature as its limit), which
 * on a curved body moving fast leaves it a little inside (3e-3 dx on a
 * sphere crossing 8/3 dx a step); thesis check: no point inside a body at
 * a frame's end.  Velocities are left to the step's Gamma. */
#define PUSH_ITERS 4

/* This rank's particles: its strands' axis points [lo[0], hi[0]) and
 * their virtuals [lo[1], hi[1]) (every particle on one rank). */
static void
own_particles(const hair *h, size_t lo[2], size_t hi[2])
{
	const hair_topo *t = &h->topo;
	const cloth_split *sp = h->ms.split;
	size_t s0 = 0, s1 = t->nstrands;

	if (sp)
		hair_rank_strands(h, sp->rank, sp->size, &s0, &s1);
	lo[0] = t->offset[s0];
	hi[0] = t->offset[s1];
	lo[1] = t->naxis + t->voff[s0];
	hi[1] = t->naxis + t->voff[s1];
}

static void
push_out(hair *h, double t, const cloth_body *bodies, int nb)
{
	masspring *ms = &h->ms;
	size_t plo[2], pend[2];

	/* each rank its own strands, then shared */
	own_particles(h, plo, pend);
	for (int g = 0; g < 2; g++) {
		const ptrdiff_t lo = (ptrdiff_t)plo[g], hi = (ptrdiff_t)pend[g];
#pragma omp parallel for schedule(static) if (hi - lo > 4096)
		for (ptrdiff_t i = lo; i < hi; i++) {
			if (ms->fixed[i])
				continue;
			double *x = ms->x + 3 * i;
			for (int b = 0; b < nb; b++)
				for (int it = 0; it < PUSH_ITERS; it++) {
					double phi, N[3], vB[3];
					body_eval(bodies + b, t, x, &phi, N, vB);
					if (!(phi < 0))
						break;
					v3axpy(-phi, N, x);
				}
		}
	}
	masspring_share(ms, ms->x);
}

int
hair_advance(hair *h, double t, double T, const cloth_body *bodies, int nb,
	     slc_err *err)
{
	masspring *ms = &h->ms;
	const hair_topo *tp = &h->topo;

	if (!(T > 0) || !isfinite(T))
		return slc_fail(err, "bad time span %g", T);
	int n = hair_nsteps(h, T);
	double dt = T / n;
	long cg0 = ms->st.cg_iters, c0 = ms->st.body_contacts;
	strand_self_stats ss0 = h->ss.st;
	const int loops = h->par.loops > 0 ? h->par.loops : 1;
	memset(&h->st, 0, sizeof h->st);
	/* §7.4: collision steps of k_i = loops time steps: A, then B k_i
	 * times, then C */
	for (int k = 0; k < n; k++) {
		double w0 = omp_get_wtime(), w1;
		int k_i = n - k < loops ? n - k : loops;
		if (h->has_ss && k % loops == 0 &&
		    strand_self_begin(&h->ss, k_i * dt, err))
			return slc_failctx(err, "stiction: ");
		w1 = omp_get_wtime();
		h->st.t_stiction += w1 - w0;
		double tc = h->st.t_collide;
		masspring_step(ms, t + k * dt, dt, bodies, nb);
		w0 = omp_get_wtime();
		h->st.t_step += w0 - w1 - (h->st.t_collide - tc);
		if (h->has_ss && ((k + 1) % loops == 0 || k + 1 == n) &&
		    strand_self_end(&h->ss, (k % loops + 1) * dt, err))
			return slc_failctx(err, "self-collisions: ");
		if (nb)
			push_out(h, k + 1 == n ? t + T : t + (k + 1) * dt,
				 bodies, nb);
		h->st.t_collide += omp_get_wtime() - w0;
	}
	if (h->has_ss) {
		const strand_self_stats *q = &h->ss.st;
		h->st.collisions = q->collisions - ss0.collisions;
		h->st.made = q->made - ss0.made;
		h->st.broken = q->broken - ss0.broken;
		h->st.bonds = hair_nbonds(h);
		h->st.unresolved = q->unresolved - ss0.unresolved;
	}
	h->st.steps = n;
	h->st.cg_iters = ms->st.cg_iters - cg0;
	h->st.contacts = ms->st.body_contacts - c0;
	for (size_t s = 0; s < tp->nstrands; s++)
		for (uint32_t i = tp->offset[s]; i + 1 < tp->offset[s + 1]; i++) {
			double e = fabs(dist(ms->x, i, i + 1) / h->seg_l0[i] - 1);
			if (e > h->st.max_strain)
				h->st.max_strain = e;
		}
	h->st.min_phi = HUGE_VAL;
	for (size_t i = 0; i < ms->np; i++) {
		if (ms->fixed[i])
			continue;
		for (int b = 0; b < nb; b++) {
			double phi, N[3], vB[3];
			body_eval(bodies + b, t + T, ms->x + 3 * i, &phi, N, vB);
			if (phi < h->st.min_phi)
				h->st.min_phi = phi;
		}
	}
	return 0;
}

double
hair_energy(hair *h)
{
	return masspring_energy(&h->ms);
}
