/* test_kdsm: the KDSM bake (lib/kdsm): the volume kept by subdivision,
 * occupancy converging to the skin's volume with the sample count, ranks
 * by node steps, face neighbours, no live tet inverted on any frame of the
 * bending arm, a rigidly moving ball moving every node rigidly, the arm's
 * node velocity against the central difference of its bakes, adhesion
 * along nonlocal links, the same bytes with 1 and 2 threads, and the
 * hair volume fraction of §5. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "kdsm/kdsm.h"
#include "prim/prim.h"
#include "prim/prim_char.h"

static const double ctr[3] = { 0.5, 0.5, 0.5 }, orbit[3] = { 0.3, 0.5, 0.5 };

/* The ball's skin posed by pose (one bone, weight 1). */
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

static double
tetvol(const kdsm_mesh *m, size_t t)
{
	const uint32_t *q = m->tet + 4 * t;

	return kdsm_tet_volume(m->P + 3 * q[0], m->P + 3 * q[1], m->P + 3 * q[2], m->P + 3 * q[3]);
}

/* Subdivision keeps the volume, tet by tet; the ball moves every node
 * rigidly; ranks, neighbours and orientation. */
static void
test_ball(void)
{
	kdsm_lattice L;
	kdsm_mesh m;
	kdsm_stats st;
	ball b0, b;
	double worst = 0, vworst = 0, uworst = 0;
	size_t t, c, bad_rank = 0, bad_nbr = 0, inverted = 0, v;
	int32_t *nodemin;
	slc_err err;
	int k;

	ball_make(&b0, 0);
	ball_make(&b, 0.3);
	CHECK(kdsm_lattice_build(&L, &b0.s, 0.04, 0.02, 2, 8, &err) == 0, "ball lattice: %s",
	      L.nt ? "built" : err.msg);
	CHECK(kdsm_frame_bake(&L, &b.s, &m, &st, &err) == 0, "ball frame baked");
	CHECK(m.nt == L.nt * 64, "%zu fine tets = 64 x %zu coarse", m.nt, L.nt);
	for (c = 0; c < L.nt; c++) {
		double Vc = 0, Vp;
		const uint32_t *q = L.tet + 4 * c;

		for (t = 64 * c; t < 64 * c + 64; t++)
			Vc += tetvol(&m, t);
		Vp = kdsm_tet_volume(m.P + 3 * q[0], m.P + 3 * q[1], m.P + 3 * q[2], m.P + 3 * q[3]);
		vworst = fmax(vworst, fabs(Vc - Vp) / Vp);
	}
	CHECK(vworst < 1e-12, "each coarse tet's 64 children sum to its volume: worst %.2e", vworst);
	CHECK(fabs(st.volume - st.volume_coarse) < 1e-12 * st.volume,
	      "mesh volume %.15g, before subdivision %.15g", st.volume, st.volume_coarse);
	for (v = 0; v < m.nn; v++) {
		double x[3], u[3];
		static const float one = 1;

		prim_pose_apply(&b.pose, &one, m.rest + 3 * v, x, u);
		for (k = 0; k < 3; k++) {
			worst = fmax(worst, fabs(x[k] - m.P[3 * v + k]));
			uworst = fmax(uworst, fabs(u[k] - m.v[3 * v + k]));
		}
	}
	CHECK(worst < 1e-6, "rigid ball: every node moved rigidly, worst %.2e m", worst);
	CHECK(uworst < 1e-6, "rigid ball: every node's v the rigid velocity, worst %.2e m/s", uworst);
	CHECK(st.dead == 0 && st.unranked == 0, "rigid ball: %zu dead, %zu unranked", st.dead,
	      st.unranked);
	nodemin = malloc(m.nn * sizeof *nodemin);
	for (v = 0; v < m.nn; v++)
		nodemin[v] = INT32_MAX;
	for (t = 0; t < 4 * m.nt; t++)
		if (m.rank[t / 4] >= 0 && m.rank[t / 4] < nodemin[m.tet[t]])
			nodemin[m.tet[t]] = m.rank[t / 4];
	for (t = 0; t < m.nt; t++) {
		int32_t r = m.rank[t];
		int ok = r <= 0;

		inverted += m.alive[t] && tetvol(&m, t) <= 0;
		for (k = 0; k < 4; k++) {
			int32_t o = m.nbr[4 * t + k], j, back = 0;

			if (o < 0)
				continue;
			for (j = 0; j < 4; j++)
				back += m.nbr[4 * (size_t)o + j] == (int32_t)t;
			bad_nbr += back != 1;
		}
		/* a node neighbour of rank r - 1: the lowest rank >= 0 at one
		 * of its nodes (none lower can be there, or t's rank would be) */
		for (k = 0; k < 4 && !ok; k++)
			ok = nodemin[m.tet[4 * t + k]] == r - 1;
		bad_rank += !ok;
	}
	CHECK(bad_rank == 0, "every tet of rank r > 0 has a node neighbour of rank r - 1 "
	      "(max rank %d)", st.max_rank);
	CHECK(bad_nbr == 0, "face neighbours are mutual");
	CHECK(inverted == 0, "no live tet inverted");
	free(nodemin);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&L);
	ball_free(&b0);
	ball_free(&b);
}

/* sum occ V converges to the skin's volume as the samples grow. */
static void
test_occupancy(void)
{
	static const int ns[3] = { 1, 8, 64 };
	double e[3];
	kdsm_lattice L;
	kdsm_mesh m;
	kdsm_stats st;
	slc_err err;
	ball b;
	int i;

	ball_make(&b, 0);
	for (i = 0; i < 3; i++) {
		kdsm_lattice_build(&L, &b.s, 0.04, 0.02, 1, ns[i], &err);
		kdsm_frame_bake(&L, &b.s, &m, &st, &err);
		e[i] = fabs(st.occ_volume - st.skin_volume) / st.skin_volume;
		printf("# %d samples: sum occ V %.9g, skin %.9g, error %.3e\n", ns[i],
		       st.occ_volume, st.skin_volume, e[i]);
		kdsm_mesh_free(&m);
		kdsm_lattice_free(&L);
	}
	CHECK(e[1] < e[0] && e[2] < e[1] && e[2] < 2e-3,
	      "occupancy error falls with the samples: %.2e, %.2e, %.2e", e[0], e[1], e[2]);
	ball_free(&b);
}

/* The bending arm: no live tet inverted on any frame of a period. */
static void
test_arm(void)
{
	kdsm_lattice L;
	kdsm_stats st;
	kdsm_mesh m;
	slc_err err;
	size_t inv = 0, dead = 0, t, v;
	int f;

	for (f = 0; f <= 24; f += 3) {
		prim_mesh rest;
		prim_pose pose;
		float *bw;
		double *P, *V;
		kdsm_skin s;

		prim_arm(&rest, &bw, &pose, ctr, 0.25, 0.2, 0.05, 16, 20 * M_PI / 180,
			 50 * M_PI / 180, 1, f / 24.0, &err);
		P = malloc(rest.nv * 3 * sizeof *P);
		V = malloc(rest.nv * 3 * sizeof *V);
		for (v = 0; v < rest.nv; v++)
			prim_pose_apply(&pose, bw + 2 * v, rest.P + 3 * v, P + 3 * v, V + 3 * v);
		s = (kdsm_skin){ rest.nv, rest.nt, P, rest.tri, rest.P, V, bw, 2, NULL, NULL, 2,
				 pose.M[0], pose.Mdot[0] };
		if (f == 0)
			kdsm_lattice_build(&L, &s, 0.04, 0.03, 1, 4, &err);
		kdsm_frame_bake(&L, &s, &m, &st, &err);
		for (t = 0; t < m.nt; t++)
			inv += m.alive[t] && tetvol(&m, t) <= 0;
		dead += st.dead;
		printf("# arm frame %d: %zu of %zu tets disabled, smallest live volume ratio %.3f\n",
		       f, st.dead, m.nt, st.min_ratio);
		kdsm_mesh_free(&m);
		prim_mesh_free(&rest);
		free(bw);
		free(P);
		free(V);
	}
	CHECK(inv == 0, "arm: no live tet inverted on any frame (%zu disabled in all)", dead);
	kdsm_lattice_free(&L);
}

/* The arm's skin at time t (period 1 s), adhesion 1 painted if asked. */
typedef struct arm {
	prim_mesh rest;
	prim_pose pose;
	float *bw, *adh;
	double *P, *V;
	kdsm_skin s;
} arm;

static void
arm_make(arm *A, double t, int paint)
{
	slc_err err;
	size_t v;

	prim_arm(&A->rest, &A->bw, &A->pose, ctr, 0.25, 0.2, 0.05, 16, 20 * M_PI / 180,
		 50 * M_PI / 180, 1, t, &err);
	A->P = malloc(A->rest.nv * 3 * sizeof *A->P);
	A->V = malloc(A->rest.nv * 3 * sizeof *A->V);
	A->adh = malloc(A->rest.nv * sizeof *A->adh);
	for (v = 0; v < A->rest.nv; v++) {
		prim_pose_apply(&A->pose, A->bw + 2 * v, A->rest.P + 3 * v, A->P + 3 * v, A->V + 3 * v);
		A->adh[v] = 1;
	}
	A->s = (kdsm_skin){ A->rest.nv, A->rest.nt, A->P, A->rest.tri, A->rest.P, A->V, A->bw, 2,
			    paint ? A->adh : NULL, NULL, 2, A->pose.M[0], A->pose.Mdot[0] };
}

static void
arm_free(arm *A)
{
	prim_mesh_free(&A->rest);
	free(A->bw);
	free(A->adh);
	free(A->P);
	free(A->V);
}

/* §3.1: the node velocity v is the rate of change of the baked node
 * positions: the central difference of bakes at t -+ h.  Tolerance: v is
 * stored as f32 (relative 6e-8) and the difference is off by h^2/6 times
 * the third time derivative of x; the elbow's angle moves as sin(2 pi t)
 * with amplitude 50 degrees, so within 0.5 m of it that derivative is
 * below 0.5 (2 pi)^3 0.87 = 135 m/s^3 and with h = 1e-4 s the truncation
 * is below 2.3e-7 m/s.  1e-5 of max |v| (about 1e-5 m/s) is above both
 * and far below the spring solve's departure from the skinning velocity
 * (the v of before, off by up to a tenth of max |v| here). */
static void
test_arm_velocity(void)
{
	const double t0 = 0.3, h = 1e-4;
	kdsm_lattice L;
	kdsm_mesh m[3];
	kdsm_stats st[3];
	slc_err err;
	arm A[3];
	double worst = 0, vmax = 0;
	size_t v, wv = 0;
	int i, a;

	for (i = 0; i < 3; i++)
		arm_make(&A[i], t0 + (i - 1) * h, 0);
	kdsm_lattice_build(&L, &A[0].s, 0.04, 0.03, 1, 4, &err);
	for (i = 0; i < 3; i++)
		CHECK(kdsm_frame_bake(&L, &A[i].s, &m[i], &st[i], &err) == 0, "arm baked at t %+.0e s",
		      (i - 1) * h);
	for (v = 0; v < m[1].nn; v++)
		for (a = 0; a < 3; a++) {
			double fd = (m[2].P[3 * v + a] - m[0].P[3 * v + a]) / (2 * h);
			double e = fabs(m[1].v[3 * v + a] - fd);

			vmax = fmax(vmax, fabs(fd));
			if (e > worst) {
				worst = e;
				wv = v;
			}
		}
	printf("# arm at t %.2f s: |v - central difference| up to %.3e m/s (node %zu), max |v| "
	       "%.3f m/s, %zu nodes fixed\n", t0, worst, wv, vmax, st[1].fixed_nodes);
	CHECK(st[0].fixed_nodes == st[1].fixed_nodes && st[2].fixed_nodes == st[1].fixed_nodes,
	      "the same inversion fixes at t and t -+ h");
	CHECK(vmax > 0.1 && worst < 1e-5 * vmax, "arm: v = d/dt of the baked nodes within %.2e m/s "
	      "(%.2e of max |v| %.3f m/s)", worst, worst / vmax, vmax);
	for (i = 0; i < 3; i++) {
		kdsm_mesh_free(&m[i]);
		arm_free(&A[i]);
	}
	kdsm_lattice_free(&L);
}

/* §3.4: adhesion reaches a higher-rank tet through a nonlocal link when no
 * lower-rank face neighbour has any.  Adhesion 1 painted everywhere, so a
 * tet that gets any gets 1 (to the f32 rounding of the rank 0 tets'
 * barycentric sums). */
static int
has_adh(const kdsm_mesh *m, size_t t)
{
	return fabs(m->adh[t] - 1) < 1e-6;
}

static void
test_adhesion_nonlocal(void)
{
	kdsm_lattice L;
	kdsm_mesh m;
	kdsm_stats st;
	slc_err err;
	arm A;
	uint8_t *src;
	size_t t, i, only_nl = 0, got = 0, face = 0, face_got = 0;
	int k;

	arm_make(&A, 0.25, 1);
	kdsm_lattice_build(&L, &A.s, 0.04, 0.03, 1, 4, &err);
	CHECK(kdsm_frame_bake(&L, &A.s, &m, &st, &err) == 0 && m.adh, "painted arm baked");
	/* src[t]: a nonlocal source of t has adhesion (sources have lower rank) */
	src = calloc(m.nt, 1);
	for (t = 0; t < m.nt; t++)
		for (i = m.nl_off[t]; i < m.nl_off[t + 1]; i++)
			src[m.nl_idx[i]] |= has_adh(&m, t);
	for (t = 0; t < m.nt; t++) {
		int lower = 0;

		if (m.rank[t] <= 0 || m.rank[t] == KDSM_RANK_NONE)
			continue;
		for (k = 0; k < 4; k++) {
			int32_t o = m.nbr[4 * t + k];

			lower += o >= 0 && m.rank[o] >= 0 && m.rank[o] < m.rank[t] &&
				 has_adh(&m, (size_t)o);
		}
		if (lower) {
			face++;
			face_got += has_adh(&m, t);
		} else if (src[t]) {
			only_nl++;
			got += has_adh(&m, t);
		}
	}
	CHECK(face > 0 && face_got == face, "%zu of %zu tets with a lower-rank face neighbour with "
	      "adhesion have it", face_got, face);
	CHECK(only_nl > 0 && got == only_nl, "%zu of %zu tets whose only lower-rank link with "
	      "adhesion is nonlocal have it", got, only_nl);
	free(src);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&L);
	arm_free(&A);
}

/* The same bytes with 1 and 2 threads. */
static void
test_threads(void)
{
	kdsm_lattice L;
	kdsm_stats st;
	kdsm_mesh m[2];
	slc_err err;
	ball b;
	int i, same;

	ball_make(&b, 0.7);
	kdsm_lattice_build(&L, &b.s, 0.04, 0.02, 1, 8, &err);
	for (i = 0; i < 2; i++) {
		omp_set_num_threads(i + 1);
		kdsm_frame_bake(&L, &b.s, &m[i], &st, &err);
	}
	same = m[0].nt == m[1].nt && m[0].nn == m[1].nn &&
	       !memcmp(m[0].P, m[1].P, m[0].nn * 3 * sizeof *m[0].P) &&
	       !memcmp(m[0].v, m[1].v, m[0].nn * 3 * sizeof *m[0].v) &&
	       !memcmp(m[0].occ, m[1].occ, m[0].nt * sizeof *m[0].occ) &&
	       !memcmp(m[0].rank, m[1].rank, m[0].nt * sizeof *m[0].rank) &&
	       !memcmp(m[0].nbr, m[1].nbr, m[0].nt * 4 * sizeof *m[0].nbr) &&
	       !memcmp(m[0].n, m[1].n, m[0].nt * 3 * sizeof *m[0].n) &&
	       !memcmp(m[0].cap, m[1].cap, m[0].nt * sizeof *m[0].cap) &&
	       !memcmp(m[0].nl_off, m[1].nl_off, (m[0].nt + 1) * sizeof *m[0].nl_off) &&
	       !memcmp(m[0].nl_idx, m[1].nl_idx, m[0].nl_off[m[0].nt] * sizeof *m[0].nl_idx);
	CHECK(same, "1 and 2 threads: the same mesh and channels");
	for (i = 0; i < 2; i++)
		kdsm_mesh_free(&m[i]);
	kdsm_lattice_free(&L);
	ball_free(&b);
}

/* lee2019 §5: a strand's volume lands whole in the tets it crosses, its
 * direction is theirs, cap loses it; strands outside and bad offsets. */
static void
test_hair(void)
{
	kdsm_lattice L;
	kdsm_mesh m;
	kdsm_stats st;
	ball b;
	slc_err err;
	double c[3] = { 0, 0, 0 }, sum = 0, worst_cap = 0, worst_dir = 1;
	const double r = 3e-4, r0 = 0.102, r1 = 0.118;
	float P[9];
	uint32_t off[3] = { 0, 2, 3 }, bad[2] = { 0, 5 };
	size_t i, t, with = 0;

	ball_make(&b, 0);
	for (i = 0; i < b.m.nv; i++)
		for (int a = 0; a < 3; a++)
			c[a] += b.P[3 * i + a] / (double)b.m.nv;
	CHECK(kdsm_lattice_build(&L, &b.s, 0.04, 0.02, 2, 8, &err) == 0 &&
	      kdsm_frame_bake(&L, &b.s, &m, &st, &err) == 0, "ball frame baked");
	/* a radial strand in the shell outside the skin, and a one-point strand */
	P[0] = (float)(c[0] + r0), P[1] = (float)c[1], P[2] = (float)c[2];
	P[3] = (float)(c[0] + r1), P[4] = (float)c[1], P[5] = (float)c[2];
	P[6] = P[7] = P[8] = 0.5f;
	CHECK(kdsm_hair_fraction(&m, P, 3, off, 2, r, &st, &err) == 0, "hair fraction: %s",
	      m.hair ? "done" : err.msg);
	for (t = 0; t < m.nt; t++) {
		double V = tetvol(&m, t), dx = fabs(m.hair_dir[3 * t]);

		if (!m.alive[t])
			continue;
		sum += m.hair[t] * V;
		worst_cap = fmax(worst_cap, fabs(m.cap[t] - V * (1 - m.occ[t] - m.hair[t])) / V);
		if (m.hair[t] > 0) {
			with++;
			worst_dir = fmin(worst_dir, dx);
		}
	}
	double want = M_PI * r * r * (r1 - r0);
	CHECK(st.hair_outside == 0 && st.hair_clamped == 0 &&
	      fabs(sum - st.hair_volume) < 1e-6 * want && fabs(st.hair_volume - want) < 1e-5 * want,
	      "sum hair V %.6e = pi r^2 len %.6e (of the f32 strand), none outside or clamped",
	      sum, want);
	CHECK(with >= 2 && worst_dir > 0.999, "%zu tets hold the strand, all along x (|dir.x| >= %.5f)",
	      with, worst_dir);
	CHECK(worst_cap < 1e-6, "cap = V (1 - occ - hair) within %.2e of V", worst_cap);
	/* far outside: counted, nothing added */
	for (int k = 0; k < 6; k++)
		P[k] = k % 3 ? 0.5f : 3.0f + (float)k;
	st.hair_volume = 0;
	st.hair_outside = 0;
	CHECK(kdsm_hair_fraction(&m, P, 3, off, 2, r, &st, &err) == 0 && st.hair_volume == 0 &&
	      st.hair_outside > 0, "a strand outside the mesh: %zu pieces outside, no hair",
	      st.hair_outside);
	CHECK(kdsm_hair_fraction(&m, P, 3, bad, 1, r, &st, &err) == -1 && strstr(err.msg, "offsets"),
	      "bad offsets refused: %s", err.msg);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&L);
	ball_free(&b);
}

int
main(void)
{
	test_ball();
	test_occupancy();
	test_arm();
	test_arm_velocity();
	test_adhesion_nonlocal();
	test_threads();
	test_hair();
	return ctest_done();
}
