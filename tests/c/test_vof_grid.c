/* test_vof_grid: the water on a still ball's KDSM and its coupling with a
 * grid (lib/vof/vof_grid.h, lee2019 §3.4, §4): a drop under the ball
 * falls off at g without adhesion and 99% of it clings with 3 g of it
 * (held along the skin by the adhesion's friction), the water kept
 * growing with the adhesion; the ledger balances every step and the
 * spray made is the water the mesh lost; grid water taken into the tets
 * inside the liquid is counted exactly, particles absorbed are the water
 * added, and the same bytes with 1 and 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "kdsm/kdsm.h"
#include "prim/prim.h"
#include "vof/vof.h"
#include "vof/vof_grid.h"

#define G 9.81
#define DT (1.0 / 48)

static const double ctr[3] = { 0.5, 0.5, 0.5 };

/* The KDSM of a still ball of radius 0.1 at ctr, tets of spacing 0.025,
 * a shell two of them thick. */
static int
ball_mesh(kdsm_mesh *m)
{
	prim_mesh b;
	kdsm_lattice L;
	kdsm_stats st;
	kdsm_skin s;
	slc_err err;
	int ok;

	memset(&b, 0, sizeof b);
	prim_icosphere(&b, 3, 0.1, ctr, NULL);
	s = (kdsm_skin){ b.nv, b.nt, b.P, b.tri, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL };
	ok = kdsm_lattice_build(&L, &s, 0.025, 0.05, 0, 8, &err) == 0 &&
	     kdsm_frame_bake(&L, &s, m, &st, &err) == 0;
	kdsm_lattice_free(&L);
	prim_mesh_free(&b);
	return ok;
}

static double
cy(const kdsm_mesh *m, size_t t)
{
	const uint32_t *q = m->tet + 4 * t;

	return 0.25 * (m->P[3 * q[0] + 1] + m->P[3 * q[1] + 1] + m->P[3 * q[2] + 1] +
		       m->P[3 * q[3] + 1]);
}

/* The drop: the tets under the ball's lowest point (centroid within
 * 0.04 of the vertical through its centre, below it) within one tet edge
 * of the skin, full and still. */
static void
drop(const kdsm_mesh *m, vof_state *s)
{
	for (size_t t = 0; t < m->nt; t++) {
		const uint32_t *q = m->tet + 4 * t;
		double x = 0, z = 0;

		for (int k = 0; k < 4; k++) {
			x += 0.25 * m->P[3 * q[k]] - 0.125;
			z += 0.25 * m->P[3 * q[k] + 2] - 0.125;
		}
		if (m->alive[t] && m->rank[t] >= 0 && cy(m, t) < ctr[1] && hypot(x, z) < 0.04 &&
		    m->dist[t] < vof_max_edge(m, t))
			s->W[t] = m->cap[t];
	}
}

typedef struct fall {
	double kept;            /* water on the mesh at the end / at the start */
	double worst;           /* worst |ledger residual| / water over the steps */
	double spray_err;       /* worst |spray made - particles_out| / water */
	double vel_err;         /* worst |u_y + g t| of a wet tet, m/s, where no adhesion */
	size_t spray;
	vof_state s;
	vof_spray sp;
} fall;

/* steps steps of the drop under the still ball with adhesion adh m/s^2
 * and the adhesion's friction mu (vof_forces). */
static void
fall_run(const kdsm_mesh *m, double adh, double mu, int steps, fall *F)
{
	slc_err err;
	double V0;
	int n;

	memset(F, 0, sizeof *F);
	vof_state_init(&F->s, m->nt, &err);
	drop(m, &F->s);
	V0 = vof_volume(&F->s);
	for (n = 0; n < steps; n++) {
		vof_advect_opts ao;
		vof_forces_opts fo;
		vof_conserve_opts co;
		vof_ledger L;
		vof_state s1;
		size_t n0 = F->sp.n, q;
		double made = 0;

		vof_advect_defaults(&ao);
		ao.dt = DT;
		ao.seed = 5;
		ao.frame = n;
		vof_forces_defaults(&fo);
		fo.dt = DT;
		fo.adh = adh;
		fo.mu = mu;
		vof_conserve_defaults(&co);
		co.seed = 5;
		co.frame = n;
		vof_ledger_open(&L, &F->s);
		if (vof_advect(m, &F->s, m, &s1, &ao, &F->sp, &L, &err))
			break;
		vof_state_free(&F->s);
		F->s = s1;
		vof_forces(m, &F->s, &fo);
		if (vof_conserve(m, &F->s, &co, &F->sp, &L, &err))
			break;
		vof_ledger_close(&L, &F->s);
		F->worst = fmax(F->worst, fabs(vof_ledger_residual(&L)) / V0);
		for (q = n0; q < F->sp.n; q++)
			made += F->sp.vol[q];
		F->spray_err = fmax(F->spray_err, fabs(made - L.particles_out) / V0);
		for (size_t t = 0; adh == 0 && t < m->nt; t++)
			if (F->s.W[t] > 0)
				F->vel_err = fmax(F->vel_err, fabs(F->s.u[3 * t + 1] + G * DT * (n + 1)));
	}
	F->kept = vof_volume(&F->s) / V0;
	F->spray = F->sp.n;
}

/* lee2019 §3.4, fig. 8; notes §5 check 4: 0.5 s of a drop under a still
 * ball, at adhesion 0, 1 g, 2 g, 3 g (range two tet edges). */
static void
test_cling(const kdsm_mesh *m)
{
	static const double adh[4] = { 0, G, 2 * G, 3 * G };
	fall F[4], slip;
	int i, mono = 1, steps = (int)lround(0.5 / DT);

	for (i = 0; i < 4; i++) {
		fall_run(m, adh[i], VOF_ADH_FRICTION, steps, &F[i]);
		printf("# adhesion %.2f m/s^2: %.4f of the drop kept, %zu spray\n", adh[i],
		       F[i].kept, F[i].spray);
		mono = mono && (i == 0 || F[i].kept >= F[i - 1].kept);
	}
	CHECK(F[0].kept <= 0.10, "no adhesion: %.4f of the drop left on the ball after 0.5 s "
	      "(at most 0.10)", F[0].kept);
	CHECK(F[0].vel_err < 1e-9, "no adhesion: every wet tet falls at g (|u_y + g t| <= %.2e)",
	      F[0].vel_err);
	CHECK(F[3].kept >= 0.99, "adhesion 3 g within two tet edges: %.4f of the drop clings "
	      "after 0.5 s (at least 0.99)", F[3].kept);
	CHECK(mono && F[3].kept > F[0].kept, "the water kept grows with the adhesion "
	      "(%.4f %.4f %.4f %.4f)", F[0].kept, F[1].kept, F[2].kept, F[3].kept);
	/* without the adhesion's friction nothing holds the film against
	 * gravity along the skin: it slides to the lowest point, piles up
	 * past the range where 3 g beats g, and falls */
	fall_run(m, 3 * G, 0, steps, &slip);
	printf("# adhesion 3 g without its friction: %.4f kept\n", slip.kept);
	CHECK(slip.kept < 0.5 && slip.worst < 1e-12, "adhesion 3 g without its friction: only "
	      "%.4f of the drop kept (the friction is what holds it)", slip.kept);
	vof_state_free(&slip.s);
	vof_spray_free(&slip.sp);
	double worst = 0, serr = 0;
	for (i = 0; i < 4; i++) {
		worst = fmax(worst, F[i].worst);
		serr = fmax(serr, F[i].spray_err);
	}
	CHECK(worst < 1e-12, "the ledger balances every step to %.2e of the drop", worst);
	CHECK(serr < 1e-12, "the spray made is the water the ledger lost, to %.2e", serr);
	for (i = 0; i < 4; i++) {
		vof_state_free(&F[i].s);
		vof_spray_free(&F[i].sp);
	}
}

/* A pool below y = 0.5 (the ball half in it) flowing along +x on a
 * 20^3 grid of dx 0.05. */
static void
pool(field *phi, macgrid *vel)
{
	static const double o[3] = { 0, 0, 0 };
	slc_err err;
	int i, j, k;

	field_alloc(phi, 20, 20, 20, SLC_CELL, o, 0.05, &err);
	mac_alloc(vel, 20, 20, 20, o, 0.05, &err);
	for (k = 0; k < 20; k++)
		for (j = 0; j < 20; j++)
			for (i = 0; i < 20; i++)
				phi->a[FIELD_IDX(phi, i, j, k)] = (float)((j + 0.5) * 0.05 - 0.5);
	for (size_t f = 0; f < field_count(&vel->u); f++)
		vel->u.a[f] = 0.25f;
}

/* §4: grid water into the tets inside it (counted exactly), the grid's
 * velocity back into them, particles absorbed (the water added), and
 * the same bytes with 1 and 2 threads. */
static void
test_grid(const kdsm_mesh *m)
{
	field phi;
	macgrid vel;
	vof_grid g;
	vof_state s[2];
	vof_ledger L[2];
	slc_err err;
	size_t t, n = 0, q, wrong = 0;
	double caps, *P, *v, *vol, sum;
	vof_sum kc = { 0, 0 }, ks = { 0, 0 };
	uint8_t *gone[2];
	int th;

	pool(&phi, &vel);
	g = (vof_grid){ &phi, &vel };
	for (t = 0; t < m->nt; t++)
		if (vof_grid_inside(m, &g, t))
			vof_sum_add(&kc, m->cap[t]);
	caps = vof_sum_get(&kc);
	P = calloc(m->nt, 3 * sizeof *P);
	v = calloc(m->nt, 3 * sizeof *v);
	vol = calloc(m->nt, sizeof *vol);
	for (th = 0; th < 2; th++) {
		omp_set_num_threads(th + 1);
		vof_state_init(&s[th], m->nt, &err);
		vof_ledger_open(&L[th], &s[th]);
		vof_grid_take(m, &s[th], &g, &L[th]);
		if (th == 0) {
			/* a particle at each filled tet's centroid with a third of its water */
			for (t = 0; t < m->nt; t++) {
				const uint32_t *qq = m->tet + 4 * t;

				if (!(s[0].W[t] > 0))
					continue;
				wrong += fabs(s[0].u[3 * t] - 0.25) > 1e-6 || s[0].W[t] != m->cap[t];
				for (int a = 0; a < 3; a++) {
					P[3 * n + a] = 0.25 * (m->P[3 * qq[0] + a] + m->P[3 * qq[1] + a] +
							       m->P[3 * qq[2] + a] + m->P[3 * qq[3] + a]);
					v[3 * n + a] = a == 1 ? -1 : 0;
				}
				vol[n] = s[0].W[t] / 3;
				vof_sum_add(&ks, vol[n++]);
			}
		}
		gone[th] = calloc(n + 1, 1);
		vof_absorb(m, &s[th], n, P, v, vol, gone[th], &L[th], &err);
		vof_ledger_close(&L[th], &s[th]);
	}
	omp_set_num_threads(2);
	sum = vof_sum_get(&ks);
	CHECK(L[0].n_filled > 100 && L[0].grid_fill == caps && wrong == 0,
	      "grid to VOF: %zu tets wholly in the pool filled to cap with its velocity, "
	      "ledger grid_fill = their caps exactly (compensated sums in tet order)", L[0].n_filled);
	for (q = 0; q < n; q++)
		wrong += !gone[0][q];
	CHECK(wrong == 0 && L[0].particles_in == sum && L[0].n_absorbed == n,
	      "%zu particles absorbed into wet tets, particles_in = their volume exactly", n);
	CHECK(fabs(vof_ledger_residual(&L[0])) <= 1e-12 * L[0].after,
	      "the ledger balances: residual %.2e of %.4e m^3", vof_ledger_residual(&L[0]),
	      L[0].after);
	CHECK(!memcmp(s[0].W, s[1].W, m->nt * sizeof *s[0].W) &&
	      !memcmp(s[0].u, s[1].u, 3 * m->nt * sizeof *s[0].u),
	      "1 and 2 threads: the same water and velocities");
	/* §4 (5): the projected velocity overwrites, volume untouched */
	for (size_t f = 0; f < field_count(&vel.u); f++)
		vel.u.a[f] = -0.5f;
	double before = vof_volume(&s[0]);
	vof_grid_velocity(m, &s[0], &g, &L[0]);
	wrong = 0;
	for (t = 0; t < m->nt; t++)
		wrong += vof_grid_inside(m, &g, t) && s[0].W[t] > 0 && s[0].u[3 * t] != -0.5;
	CHECK(wrong == 0 && vof_volume(&s[0]) == before && L[0].n_overwritten > 0,
	      "the grid's velocity copied back into %zu tets, volume unchanged",
	      L[0].n_overwritten);
	/* VOF to grid: beta 1 gives the faces the mesh's mean velocity */
	size_t nf, nf2, n1 = 0;
	for (t = 0; t < m->nt; t++)
		s[0].u[3 * t] = 1;
	CHECK(vof_to_grid(m, &s[0], &vel, 1, &nf, &err) == 0 && nf > 0 &&
	      vof_to_grid(m, &s[0], &vel, 1.5, &nf2, &err) < 0,
	      "VOF to grid: %zu faces blended; beta 1.5 refused", nf);
	for (size_t f = 0; f < field_count(&vel.u); f++)
		n1 += vel.u.a[f] == 1;
	CHECK(n1 > 0 && n1 < nf, "VOF to grid: the %zu u faces blended with beta 1 hold the "
	      "mesh's velocity", n1);
	for (th = 0; th < 2; th++) {
		vof_state_free(&s[th]);
		free(gone[th]);
	}
	free(P);
	free(v);
	free(vol);
	field_free(&phi);
	mac_free(&vel);
}

int
main(void)
{
	kdsm_mesh m;

	CHECK(ball_mesh(&m), "still ball's mesh baked: %zu tets", m.nt);
	test_grid(&m);
	test_cling(&m);
	kdsm_mesh_free(&m);
	return ctest_done();
}
