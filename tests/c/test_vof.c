/* test_vof: the water on the KDSM (lib/vof) on meshes baked by lib/kdsm:
 * the ledger balances every step, no water below zero or above cap after
 * pushout, still water on a still mesh comes back bit for bit, water on
 * a flat slab rests under gravity, spray made equals water removed, and
 * the same bytes with 1 and 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "kdsm/kdsm.h"
#include "prim/prim.h"
#include "prim/prim_char.h"
#include "vof/vof.h"

static const double ctr[3] = { 0.5, 0.5, 0.5 }, orbit[3] = { 0.45, 0.5, 0.5 };

/* A ball of radius 0.1 on a circle of radius 0.05 (one bone). */
typedef struct ball {
	prim_mesh m;
	double *P, *v;
	float *bw;
	prim_pose pose;
	kdsm_skin s;
} ball;

static void
ball_make(ball *b, double t)
{
	size_t i;

	memset(b, 0, sizeof *b);
	prim_icosphere(&b->m, 3, 0.1, ctr, NULL);
	b->P = malloc(b->m.nv * 3 * sizeof *b->P);
	b->v = malloc(b->m.nv * 3 * sizeof *b->v);
	b->bw = malloc(b->m.nv * sizeof *b->bw);
	prim_path_pose(&b->pose, PRIM_PATH_CIRCLE, NULL, orbit, 1.5, t);
	for (i = 0; i < b->m.nv; i++) {
		b->bw[i] = 1;
		prim_pose_apply(&b->pose, b->bw + i, b->m.P + 3 * i, b->P + 3 * i, b->v + 3 * i);
	}
	b->s = (kdsm_skin){ b->m.nv, b->m.nt, b->P, b->m.tri, b->m.P, b->v, b->bw, 1, NULL, NULL,
			    1, b->pose.M[0], b->pose.Mdot[0] };
}

static void
ball_free(ball *b)
{
	prim_mesh_free(&b->m);
	free(b->P);
	free(b->v);
	free(b->bw);
}

static kdsm_lattice lat;

/* The ball's mesh at time t (the lattice built at t = 0 on first use). */
static void
ball_mesh(double t, kdsm_mesh *m)
{
	kdsm_stats st;
	slc_err err;
	ball b;

	if (!lat.nt) {
		ball_make(&b, 0);
		kdsm_lattice_build(&lat, &b.s, 0.04, 0.02, 1, 8, &err);
		ball_free(&b);
	}
	ball_make(&b, t);
	kdsm_frame_bake(&lat, &b.s, m, &st, &err);
	ball_free(&b);
}

static double
centroid_y(const kdsm_mesh *m, size_t t)
{
	const uint32_t *q = m->tet + 4 * t;

	return 0.25 * (m->P[3 * q[0] + 1] + m->P[3 * q[1] + 1] + m->P[3 * q[2] + 1] +
		       m->P[3 * q[3] + 1]);
}

/* Water on ranks 0..3: full in ranks 1-2, half in 0 and 3, moving at u0
 * plus a swirl. */
static void
wet(const kdsm_mesh *m, vof_state *s, const double u0[3])
{
	size_t t;

	for (t = 0; t < m->nt; t++) {
		int32_t r = m->rank[t];

		if (!m->alive[t] || r < 0 || r > 3)
			continue;
		s->W[t] = m->cap[t] * (r == 1 || r == 2 ? 1 : 0.5);
		s->u[3 * t] = u0[0] + 0.3 * (centroid_y(m, t) - 0.5);
		s->u[3 * t + 1] = u0[1];
		s->u[3 * t + 2] = u0[2] + 0.1 * (double)(t % 7) / 7;
	}
}

/* W >= 0 everywhere; how many tets hold more than cap beyond rounding. */
static void
bounds(const kdsm_mesh *m, const vof_state *s, size_t *neg, size_t *over)
{
	size_t t;

	*neg = *over = 0;
	for (t = 0; t < m->nt; t++) {
		*neg += !(s->W[t] >= 0) || (!m->alive[t] && s->W[t] != 0);
		*over += s->W[t] > m->cap[t] + 1e-12 * fmax(m->cap[t], 1e-9);
	}
}

/* The grid's water below y = 0.42, moving along +x. */
static double
grid_pool(void *ctx, const double x[3], double u[3])
{
	(void)ctx;
	u[0] = 0.2;
	u[1] = u[2] = 0;
	return x[1] < 0.42 ? 1 : 0;
}

typedef struct run {
	vof_state s;
	vof_spray sp;
	double worst[4];        /* worst |residual| / water: advect, smear, pushout, step */
	size_t neg, over, enclosed, spray, grid_steps;
	double grid_in, max_trace;
} run;

/* steps steps of the moving ball from t0 by dt: advect (with the grid
 * pool), forces, smear, pushout, correct, each with its ledger. */
static void
ball_run(run *R, int steps, double dt, const double u0[3], int fraction)
{
	kdsm_mesh m0, m1;
	slc_err err;
	int n, ok = 1;

	memset(R, 0, sizeof *R);
	ball_mesh(0, &m0);
	vof_state_init(&R->s, m0.nt, &err);
	wet(&m0, &R->s, u0);
	for (n = 0; n < steps && ok; n++) {
		vof_ledger L;
		vof_advect_opts ao;
		vof_forces_opts fo;
		vof_conserve_opts co;
		vof_state s1;
		double vol;
		size_t neg, over;

		ball_mesh((n + 1) * dt, &m1);
		vof_advect_defaults(&ao);
		ao.dt = dt;
		ao.seed = 7;
		ao.frame = n;
		ao.fraction = fraction;
		ao.grid = grid_pool;
		vof_forces_defaults(&fo);
		fo.dt = dt;
		fo.adh = 5;
		vof_conserve_defaults(&co);
		co.seed = 7;
		co.frame = n;
		vof_ledger_open(&L, &R->s);
		ok = vof_advect(&m0, &R->s, &m1, &s1, &ao, &R->sp, &L, &err) == 0;
		if (!ok)
			break;
		vof_state_free(&R->s);
		R->s = s1;
		vof_ledger_close(&L, &R->s);
		vol = fmax(L.before, L.after);
		R->worst[0] = fmax(R->worst[0], fabs(vof_ledger_residual(&L)) / vol);
		R->grid_in += L.grid_in;
		R->grid_steps += L.grid_in > 0;
		R->max_trace = fmax(R->max_trace, L.max_trace);
		bounds(&m1, &R->s, &neg, &over);
		R->neg += neg;
		vof_forces(&m1, &R->s, &fo);
		vof_ledger_open(&L, &R->s);
		ok = vof_smear(&m1, &R->s, &L, &err) == 0;
		vof_ledger_close(&L, &R->s);
		R->worst[1] = fmax(R->worst[1], fabs(vof_ledger_residual(&L)) / vol);
		vof_ledger_open(&L, &R->s);
		ok = ok && vof_pushout(&m1, &R->s, &co, &R->sp, &L, &err) == 0;
		vof_ledger_close(&L, &R->s);
		R->worst[2] = fmax(R->worst[2], fabs(vof_ledger_residual(&L)) / vol);
		bounds(&m1, &R->s, &neg, &over);
		R->neg += neg;
		R->over += over > L.n_enclosed ? over - L.n_enclosed : 0;
		R->enclosed += L.n_enclosed;
		ok = ok && vof_correct(&m1, &R->s, &L, &err) == 0;
		R->spray = R->sp.n;
		kdsm_mesh_free(&m0);
		m0 = m1;
	}
	CHECK(ok, "%d steps of the moving ball ran", steps);
	kdsm_mesh_free(&m0);
}

static void
run_free(run *R)
{
	vof_state_free(&R->s);
	vof_spray_free(&R->sp);
}

/* Ledger, bounds, threads on the moving ball with gravity, adhesion and
 * the grid pool. */
static void
test_ball(void)
{
	static const double u0[3] = { 0.05, 0.1, 0 };
	run R[2];
	int i, same;

	for (i = 0; i < 2; i++) {
		omp_set_num_threads(i + 1);
		ball_run(&R[i], 3, 1.0 / 48, u0, 0);
	}
	printf("# ball: grid water in %.3e m^3 over %zu steps, %zu spray, max trace %.3f edges, "
	       "%zu enclosed\n", R[0].grid_in, R[0].grid_steps, R[0].spray, R[0].max_trace,
	       R[0].enclosed);
	CHECK(R[0].worst[0] < 1e-12 && R[0].worst[1] < 1e-12 && R[0].worst[2] < 1e-12,
	      "ledger balances: advect %.2e, smear %.2e, pushout %.2e of the water",
	      R[0].worst[0], R[0].worst[1], R[0].worst[2]);
	CHECK(R[0].grid_steps > 0 && R[0].max_trace > 0.1,
	      "the ledger saw grid water (%zu steps) and a backtrace of %.2f edges",
	      R[0].grid_steps, R[0].max_trace);
	CHECK(R[0].neg == 0, "no tet below zero water, no water in a dead tet");
	CHECK(R[0].over == 0, "after pushout no tet above cap but the %zu enclosed",
	      R[0].enclosed);
	same = R[0].s.nt == R[1].s.nt && R[0].sp.n == R[1].sp.n &&
	       !memcmp(R[0].s.W, R[1].s.W, R[0].s.nt * sizeof *R[0].s.W) &&
	       !memcmp(R[0].s.u, R[1].s.u, R[0].s.nt * 3 * sizeof *R[0].s.u) &&
	       (!R[0].sp.n || (!memcmp(R[0].sp.P, R[1].sp.P, R[0].sp.n * 3 * sizeof(double)) &&
			       !memcmp(R[0].sp.vol, R[1].sp.vol, R[0].sp.n * sizeof(double))));
	CHECK(same, "1 and 2 threads: the same water, velocities and spray");
	for (i = 0; i < 2; i++)
		run_free(&R[i]);
	omp_set_num_threads(2);
}

/* The static box (a flat top at y = 0.55) and its mesh, subdivided
 * levels times. */
static void
box_mesh(prim_mesh *box, kdsm_lattice *L, kdsm_mesh *m, int levels, int *ok)
{
	static const double size[3] = { 0.3, 0.1, 0.3 }, c[3] = { 0.5, 0.5, 0.5 };
	static const int res[3] = { 6, 2, 6 };
	kdsm_stats st;
	kdsm_skin sk;
	slc_err err;

	memset(box, 0, sizeof *box);
	prim_box(box, size, res, c, &err);
	sk = (kdsm_skin){ box->nv, box->nt, box->P, box->tri, NULL, NULL, NULL, 0, NULL, NULL, 0,
			  NULL, NULL };
	*ok = kdsm_lattice_build(L, &sk, 0.04, 0.03, levels, 8, &err) == 0 &&
	      kdsm_frame_bake(L, &sk, m, &st, &err) == 0;
}

static int
same_state(const vof_state *a, const vof_state *b)
{
	return a->nt == b->nt && !memcmp(a->W, b->W, a->nt * sizeof *a->W) &&
	       !memcmp(a->u, b->u, a->nt * 3 * sizeof *a->u);
}

/* A still mesh with still water, full and partly filled tets: one
 * advection and conservation step gives it back bit for bit, with either
 * reading of the requests. */
static void
test_still(void)
{
	static const double zero[3] = { 0, 0, 0 };
	prim_mesh box;
	kdsm_lattice lb;
	kdsm_mesh m;
	vof_state s0, s1;
	vof_spray sp = { 0 };
	vof_ledger L;
	vof_advect_opts ao;
	vof_conserve_opts co;
	slc_err err;
	size_t t;
	int fr, ok;

	box_mesh(&box, &lb, &m, 1, &ok);
	vof_state_init(&s0, m.nt, &err);
	wet(&m, &s0, zero);
	for (t = 0; t < m.nt; t++)
		s0.u[3 * t] = s0.u[3 * t + 1] = s0.u[3 * t + 2] = 0;
	for (fr = 0; fr < 2; fr++) {
		vof_advect_defaults(&ao);
		ao.dt = 1.0 / 24;
		ao.fraction = fr;
		vof_conserve_defaults(&co);
		vof_ledger_open(&L, &s0);
		ok = vof_advect(&m, &s0, &m, &s1, &ao, &sp, &L, &err) == 0 &&
		     vof_conserve(&m, &s1, &co, &sp, &L, &err) == 0;
		CHECK(ok && same_state(&s0, &s1) && sp.n == 0,
		      "still mesh, still water (%s requests): bit-identical after a step, "
		      "%zu spray", fr ? "fraction" : "potential", sp.n);
		vof_state_free(&s1);
	}
	vof_state_free(&s0);
	vof_spray_free(&sp);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&lb);
	prim_mesh_free(&box);
}

/* Water thrown off the moving ball and boundary tets overfilled: the
 * spray made is the water the mesh lost. */
static void
test_spray(void)
{
	static const double fast[3] = { 3, 1, 0 };
	kdsm_mesh m0, m1;
	vof_state s0, s1;
	vof_spray sp = { 0 };
	vof_ledger L;
	vof_advect_opts ao;
	vof_conserve_opts co;
	slc_err err;
	double sum = 0, lost;
	size_t i, t, n_adv;
	int ok;

	ball_mesh(0, &m0);
	ball_mesh(1.0 / 48, &m1);
	vof_state_init(&s0, m0.nt, &err);
	wet(&m0, &s0, fast);
	vof_advect_defaults(&ao);
	ao.dt = 1.0 / 48;
	ao.seed = 3;
	vof_conserve_defaults(&co);
	vof_ledger_open(&L, &s0);
	ok = vof_advect(&m0, &s0, &m1, &s1, &ao, &sp, &L, &err) == 0;
	n_adv = sp.n;
	/* boundary tets three times full */
	for (t = 0; t < m1.nt && ok; t++)
		if (m1.alive[t] && (m1.nbr[4 * t] < 0 || m1.nbr[4 * t + 1] < 0 ||
				    m1.nbr[4 * t + 2] < 0 || m1.nbr[4 * t + 3] < 0)) {
			L.before += 2 * m1.cap[t];
			s1.W[t] += 2 * m1.cap[t];
		}
	ok = ok && vof_conserve(&m1, &s1, &co, &sp, &L, &err) == 0;
	vof_ledger_close(&L, &s1);
	for (i = 0; i < sp.n; i++)
		sum += sp.vol[i];
	lost = L.before - L.after;
	CHECK(ok && n_adv > 0 && sp.n > n_adv, "spray from advection (%zu) and pushout (%zu)",
	      n_adv, sp.n - n_adv);
	CHECK(fabs(sum - L.particles_out) < 1e-12 * L.before && fabs(lost - sum) < 1e-12 * L.before,
	      "spray %.12e m^3 = ledger %.12e = water lost %.12e (to 1e-12 of %.3e)", sum,
	      L.particles_out, lost, L.before);
	vof_state_free(&s0);
	vof_state_free(&s1);
	vof_spray_free(&sp);
	kdsm_mesh_free(&m0);
	kdsm_mesh_free(&m1);
}

/* Water resting on the flat top of a static box under gravity, every wet
 * tet full (those whose skin normal is up: where it tilts, at the top's
 * edges, the correction leaves the tangential part and water slides, as
 * it should): the velocity correction holds it, 100 steps. */
static void
test_slab(void)
{
	prim_mesh box;
	kdsm_lattice L;
	kdsm_mesh m;
	vof_state s, s1, s0;
	vof_spray sp = { 0 };
	slc_err err;
	size_t t, nwet = 0;
	double umax = 0, dW = 0;
	int n, ok;

	/* unsubdivided: 100 steps locate every sample every step */
	box_mesh(&box, &L, &m, 0, &ok);
	CHECK(ok, "box mesh baked: %zu tets", m.nt);
	vof_state_init(&s, m.nt, &err);
	for (t = 0; t < m.nt; t++) {
		const uint32_t *q = m.tet + 4 * t;
		double x = 0, z = 0;

		for (int k = 0; k < 4; k++) {
			x += 0.25 * m.P[3 * q[k]];
			z += 0.25 * m.P[3 * q[k] + 2];
		}
		if (m.alive[t] && m.rank[t] >= 0 && m.rank[t] <= 2 && m.n[3 * t + 1] > 0.999999 &&
		    fabs(x - 0.5) < 0.1 && fabs(z - 0.5) < 0.1 && m.cap[t] > 0) {
			s.W[t] = m.cap[t];
			nwet++;
		}
	}
	vof_state_init(&s0, m.nt, &err);
	memcpy(s0.W, s.W, m.nt * sizeof *s.W);
	for (n = 0; n < 100 && ok; n++) {
		vof_advect_opts ao;
		vof_forces_opts fo;
		vof_conserve_opts co;
		vof_ledger Lg;

		vof_advect_defaults(&ao);
		ao.dt = 1.0 / 48;
		vof_forces_defaults(&fo);
		fo.dt = ao.dt;
		vof_conserve_defaults(&co);
		vof_ledger_open(&Lg, &s);
		ok = vof_advect(&m, &s, &m, &s1, &ao, &sp, &Lg, &err) == 0;
		if (!ok)
			break;
		vof_state_free(&s);
		s = s1;
		vof_forces(&m, &s, &fo);
		ok = vof_conserve(&m, &s, &co, &sp, &Lg, &err) == 0;
	}
	for (t = 0; t < m.nt; t++) {
		umax = fmax(umax, sqrt(s.u[3 * t] * s.u[3 * t] + s.u[3 * t + 1] * s.u[3 * t + 1] +
				       s.u[3 * t + 2] * s.u[3 * t + 2]));
		dW = fmax(dW, fabs(s.W[t] - s0.W[t]) / fmax(m.cap[t], 1e-30));
	}
	CHECK(ok && nwet > 50 && umax < 1e-9 && dW < 1e-12 && sp.n == 0,
	      "slab of %zu full tets at rest after 100 steps: |u| <= %.2e m/s, W changed by "
	      "%.2e of cap, %zu spray", nwet, umax, dW, sp.n);
	vof_state_free(&s);
	vof_state_free(&s0);
	vof_spray_free(&sp);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&L);
	prim_mesh_free(&box);
}

int
main(void)
{
	test_still();
	test_spray();
	test_slab();
	test_ball();
	kdsm_lattice_free(&lat);
	return ctest_done();
}
