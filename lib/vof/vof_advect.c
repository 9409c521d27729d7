/* vof_advect.c: lee2019 §3.2 (fig. 5), the water of one KDSM frame
 * carried onto the next: backward requests by quadrature samples, scaled
 * down where a donor is asked for more than it holds, leftovers carried
 * forward, samples leaving the mesh made into spray (§4.1). */
#include "vof/vof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vof/vof_locate.h"

/* Largest sample count (kdsm_rule's largest rule). */
#define VOF_NSAMP_MAX 64

void
vof_advect_defaults(vof_advect_opts *o)
{
	memset(o, 0, sizeof *o);
	o->jitter = VOF_JITTER;
}

/* Tet t of m with its nodes moved by d, each clamped where it enters the
 * skin of loc's mesh (none when d is zero: the nodes stay bit for bit). */
static int
moved_tet(const vof_loc *loc, const kdsm_mesh *m, size_t t, const double d[3],
	  double y[4][3])
{
	int k, a, clamped = 0, still = d[0] == 0 && d[1] == 0 && d[2] == 0;

	for (k = 0; k < 4; k++) {
		const double *x = m->P + 3 * (size_t)m->tet[4 * t + k];

		if (still)
			for (a = 0; a < 3; a++)
				y[k][a] = x[a];
		else
			clamped += vof_loc_move(loc, x, d, y[k]);
	}
	return clamped;
}

static void
sample_point(const kdsm_mesh *m, int s, double y[4][3], double p[3])
{
	int a, k;

	for (a = 0; a < 3; a++)
		for (p[a] = 0, k = 0; k < 4; k++)
			p[a] += m->qb[4 * s + k] * y[k][a];
}

/* Sort the n ids of ids and merge equal ones: ids[0..r) distinct, cnt
 * their multiplicities; returns r. */
static int
merge_ids(int32_t *ids, int n, int32_t *cnt)
{
	int i, j, r = 0;

	for (i = 1; i < n; i++) {
		int32_t v = ids[i];

		for (j = i; j > 0 && ids[j - 1] > v; j--)
			ids[j] = ids[j - 1];
		ids[j] = v;
	}
	for (i = 0; i < n; i++) {
		if (r && ids[r - 1] == ids[i]) {
			cnt[r - 1]++;
			continue;
		}
		ids[r] = ids[i];
		cnt[r++] = 1;
	}
	return r;
}

static double
volume_of(double y[4][3])
{
	return fabs(kdsm_tet_volume(y[0], y[1], y[2], y[3]));
}

int
vof_advect(const kdsm_mesh *m0, const vof_state *s0, const kdsm_mesh *m1, vof_state *s1,
	   const vof_advect_opts *o, vof_spray *sp, vof_ledger *L, slc_err *err)
{
	const size_t nt = m1->nt;
	const int N = m1->nsamp;
	vof_loc loc0 = { 0 }, loc1 = { 0 };
	int32_t *don = NULL, *dcnt = NULL, *npair = NULL, *tg = NULL, *tcnt = NULL, *ntg = NULL;
	int32_t *clamps = NULL;
	double *gW = NULL, *gM = NULL, *share = NULL, *R = NULL, *M = NULL, *left = NULL;
	double *trace = NULL;
	size_t t, slots;
	long i;
	int rc = -1;
	vof_sum sg = { 0, 0 }, sf = { 0, 0 }, so = { 0, 0 };

	memset(s1, 0, sizeof *s1);
	if (m0->nt != nt || s0->nt != nt || m0->nsamp != N)
		return slc_fail(err, "advect: meshes of %zu and %zu tets (%d and %d samples), "
				"state of %zu", m0->nt, nt, m0->nsamp, N, s0->nt);
	if (N < 1 || N > VOF_NSAMP_MAX)
		return slc_fail(err, "advect: %d samples per tet, expected 1..%d", N,
				VOF_NSAMP_MAX);
	if (!(o->dt >= 0 && o->dt < INFINITY))
		return slc_fail(err, "advect: dt %g, expected finite and >= 0", o->dt);
	if (!(o->jitter >= VOF_JITTER_MIN && o->jitter <= VOF_JITTER_MAX))
		return slc_fail(err, "advect: jitter %g, expected %g..%g", o->jitter,
				VOF_JITTER_MIN, VOF_JITTER_MAX);
	if (slc_mul(nt, (size_t)N, &slots))
		return slc_fail(err, "advect: %zu tets of %d samples overflow", nt, N);
	if (vof_state_init(s1, nt, err))
		return -1;
	don = slc_malloc(slots ? slots : 1, sizeof *don, err);
	dcnt = don ? slc_malloc(slots ? slots : 1, sizeof *dcnt, err) : NULL;
	tg = dcnt ? slc_malloc(slots ? slots : 1, sizeof *tg, err) : NULL;
	tcnt = tg ? slc_malloc(slots ? slots : 1, sizeof *tcnt, err) : NULL;
	npair = tcnt ? slc_calloc(nt + 1, sizeof *npair, err) : NULL;
	ntg = npair ? slc_calloc(nt + 1, sizeof *ntg, err) : NULL;
	clamps = ntg ? slc_calloc(nt + 1, 2 * sizeof *clamps, err) : NULL;
	gW = clamps ? slc_calloc(nt + 1, sizeof *gW, err) : NULL;
	gM = gW ? slc_calloc(nt + 1, 3 * sizeof *gM, err) : NULL;
	share = gM ? slc_calloc(nt + 1, sizeof *share, err) : NULL;
	R = share ? slc_calloc(nt + 1, sizeof *R, err) : NULL;
	M = R ? slc_calloc(nt + 1, 3 * sizeof *M, err) : NULL;
	left = M ? slc_calloc(nt + 1, sizeof *left, err) : NULL;
	trace = left ? slc_calloc(nt + 1, sizeof *trace, err) : NULL;
	if (!trace || vof_loc_build(&loc0, m0, err) || vof_loc_build(&loc1, m1, err))
		goto out;

	/* backward: each live new tet translated by -dt u (its old velocity),
	 * its samples' donors merged so that a donor asked by one tet alone
	 * gives exactly what it holds */
#pragma omp parallel for schedule(dynamic, 256)
	for (i = 0; i < (long)nt; i++) {
		double y[4][3], d[3], p[3], ug[3];
		int32_t ids[VOF_NSAMP_MAX];
		int s, a, n = 0;

		if (!m1->alive[i])
			continue;
		for (a = 0; a < 3; a++)
			d[a] = -o->dt * s0->u[3 * i + a];
		clamps[2 * i] = moved_tet(&loc0, m1, (size_t)i, d, y);
		trace[i] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) /
			   vof_max_edge(m1, (size_t)i);
		/* §3.2: "the volume of the backtraced tetrahedron divided by
		 * its number of point samples" (equal weights w_s = 1/N) */
		share[i] = volume_of(y) / N;
		for (s = 0; s < N; s++) {
			long dn;

			sample_point(m1, s, y, p);
			dn = vof_loc_find(&loc0, p, NULL);
			if (dn >= 0 && m0->alive[dn]) {
				ids[n++] = (int32_t)dn;
			} else if (dn < 0 && o->grid) {
				/* §3.2: outside the KDSM the grid's water,
				 * copied, not taken */
				double f = o->grid(o->grid_ctx, p, ug);

				f = f > 0 ? (f < 1 ? f : 1) : 0;
				gW[i] += f * share[i];
				for (a = 0; a < 3; a++)
					gM[3 * i + a] += f * share[i] * ug[a];
			}
		}
		n = merge_ids(ids, n, dcnt + (size_t)i * N);
		memcpy(don + (size_t)i * N, ids, n * sizeof *ids);
		npair[i] = n;
	}
	/* every donor's requests, in tet order */
	for (t = 0; t < nt; t++)
		for (int j = 0; j < npair[t]; j++) {
			int32_t dn = don[t * N + j];
			double r = dcnt[t * N + j] * share[t];

			if (o->fraction && m0->cap[dn] > 0)
				r *= fmin(1, s0->W[dn] / m0->cap[dn]);
			R[dn] += r;
		}
	/* §3.2 scale down (after [38]): a donor asked for more than it holds
	 * gives each request W/R of it */
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)nt; i++) {
		double w = gW[i], mo[3] = { gM[3 * i], gM[3 * i + 1], gM[3 * i + 2] };
		int j, a;

		for (j = 0; j < npair[i]; j++) {
			int32_t dn = don[(size_t)i * N + j];
			double r = dcnt[(size_t)i * N + j] * share[i], g;

			if (o->fraction && m0->cap[dn] > 0)
				r *= fmin(1, s0->W[dn] / m0->cap[dn]);
			g = R[dn] > s0->W[dn] ? s0->W[dn] * (r / R[dn]) : r;
			w += g;
			for (a = 0; a < 3; a++)
				mo[a] += g * s0->u[3 * (size_t)dn + a];
		}
		s1->W[i] = w;
		for (a = 0; a < 3; a++)
			M[3 * i + a] = mo[a];
	}
	for (t = 0; t < nt; t++)
		left[t] = R[t] < s0->W[t] ? s0->W[t] - R[t] : 0;

	/* forward: leftovers along the donor's velocity to the new tets
	 * holding its samples (after [38, 39, 22]) */
#pragma omp parallel for schedule(dynamic, 256)
	for (i = 0; i < (long)nt; i++) {
		double y[4][3], d[3], p[3];
		int32_t ids[VOF_NSAMP_MAX];
		int s, a;

		if (!(left[i] > 0))
			continue;
		for (a = 0; a < 3; a++)
			d[a] = o->dt * s0->u[3 * i + a];
		clamps[2 * i + 1] = moved_tet(&loc1, m0, (size_t)i, d, y);
		for (s = 0; s < N; s++) {
			long tn;

			sample_point(m0, s, y, p);
			tn = vof_loc_find(&loc1, p, NULL);
			ids[s] = tn >= 0 && m1->alive[tn] ? (int32_t)tn : -1;
		}
		ntg[i] = merge_ids(ids, N, tcnt + (size_t)i * N);
		memcpy(tg + (size_t)i * N, ids, ntg[i] * sizeof *ids);
	}
	for (t = 0; t < nt; t++) {
		double piece, y[4][3], d[3], p[3], jd[3];
		int s, j, a;

		vof_sum_add(&sg, gW[t]);
		L->n_clamped += (size_t)clamps[2 * t] + (size_t)clamps[2 * t + 1];
		L->max_trace = fmax(L->max_trace, trace[t]);
		if (!(left[t] > 0))
			continue;
		vof_sum_add(&sf, left[t]);
		piece = left[t] / N;
		for (j = 0; j < ntg[t]; j++) {
			int32_t tn = tg[t * N + j];
			double g = tcnt[t * N + j] * piece;

			if (tn < 0)
				continue;
			s1->W[tn] += g;
			for (a = 0; a < 3; a++)
				M[3 * (size_t)tn + a] += g * s0->u[3 * t + a];
		}
		if (tg[t * N] >= 0)
			continue;
		/* §4.1: each sample leaving the mesh (or landing in a dead
		 * tet) becomes a particle, jittered against aliasing */
		for (a = 0; a < 3; a++)
			d[a] = o->dt * s0->u[3 * t + a];
		moved_tet(&loc1, m0, t, d, y);
		for (s = 0; s < N; s++) {
			long tn;

			sample_point(m0, s, y, p);
			tn = vof_loc_find(&loc1, p, NULL);
			if (tn >= 0 && m1->alive[tn])
				continue;
			vof_jitter(o->seed, o->frame, VOF_STREAM_ADVECT, t, s,
				   o->jitter * vof_max_edge(m0, t), jd);
			for (a = 0; a < 3; a++)
				p[a] += jd[a];
			if (vof_spray_add(sp, p, s0->u + 3 * t, piece, err))
				goto out;
			vof_sum_add(&so, piece);
			L->n_spray++;
		}
	}
	for (t = 0; t < nt; t++)
		for (int a = 0; a < 3; a++)
			s1->u[3 * t + a] = s1->W[t] > 0 ? M[3 * t + a] / s1->W[t] : 0;
	rc = 0;
out:
	L->grid_in += vof_sum_get(&sg);
	L->forwarded += vof_sum_get(&sf);
	L->particles_out += vof_sum_get(&so);
	vof_loc_free(&loc0);
	vof_loc_free(&loc1);
	free(don);
	free(dcnt);
	free(tg);
	free(tcnt);
	free(npair);
	free(ntg);
	free(clamps);
	free(gW);
	free(gM);
	free(share);
	free(R);
	free(M);
	free(left);
	free(trace);
	if (rc)
		vof_state_free(s1);
	return rc;
}
