/* vof_conserve.c: lee2019 §3.3, volume conservation on the KDSM without a
 * linear system: smear, pushout by rank (after the shock propagation of
 * [37]), velocity correction against the skin; the excess of boundary
 * tets leaves as spray (§4.1). */
#include "vof/vof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
vof_conserve_defaults(vof_conserve_opts *o)
{
	memset(o, 0, sizeof *o);
	o->jitter = VOF_JITTER;
}

/* Add a of water moving at ud to tet t; momentum W u is kept. */
static void
give(vof_state *s, size_t t, double a, const double ud[3])
{
	double w = s->W[t], nw = w + a;
	int k;

	for (k = 0; k < 3; k++)
		s->u[3 * t + k] = nw > 0 ? (w * s->u[3 * t + k] + a * ud[k]) / nw : 0;
	s->W[t] = nw;
}

/* Give e equally to the n tets of to, the last one the remainder, so
 * that exactly e leaves. */
static void
give_equal(vof_state *s, const int32_t *to, int n, double e, const double ud[3])
{
	double left = e;
	int i;

	for (i = 0; i < n; i++) {
		double a = i == n - 1 ? left : e / n;

		give(s, (size_t)to[i], a, ud);
		left -= a;
	}
}

static int
boundary(const kdsm_mesh *m, size_t t)
{
	return m->nbr[4 * t] < 0 || m->nbr[4 * t + 1] < 0 || m->nbr[4 * t + 2] < 0 ||
	       m->nbr[4 * t + 3] < 0;
}

int
vof_smear(const kdsm_mesh *m, vof_state *s, vof_ledger *L, slc_err *err)
{
	double *ex = slc_calloc(m->nt + 1, sizeof *ex, err), *ue;
	size_t t;

	ue = ex ? slc_malloc(m->nt + 1, 3 * sizeof *ue, err) : NULL;
	if (!ue) {
		free(ex);
		return -1;
	}
	/* every excess and its velocity first: the scatter then cannot
	 * depend on the order of the tets */
	for (t = 0; t < m->nt; t++) {
		int k, n = 0;

		if (!m->alive[t] || !(s->W[t] > m->cap[t]) || boundary(m, t))
			continue;
		for (k = 0; k < 4; k++) {
			int32_t o = m->nbr[4 * t + k];

			n += m->alive[o] && m->cap[o] > 0;
		}
		if (!n)
			continue;
		ex[t] = s->W[t] - m->cap[t];
		memcpy(ue + 3 * t, s->u + 3 * t, 3 * sizeof *ue);
		s->W[t] = m->cap[t];
	}
	for (t = 0; t < m->nt; t++) {
		int32_t to[4];
		int k, n = 0;

		if (!(ex[t] > 0))
			continue;
		for (k = 0; k < 4; k++) {
			int32_t o = m->nbr[4 * t + k];

			if (m->alive[o] && m->cap[o] > 0)
				to[n++] = o;
		}
		give_equal(s, to, n, ex[t], ue + 3 * t);
		L->smeared += ex[t];
	}
	free(ex);
	free(ue);
	return 0;
}

/* Live tets by rank, then index (ranks -1, 0, 1, ..., unranked last). */
static uint64_t *
rank_order(const kdsm_mesh *m, size_t *n, slc_err *err)
{
	uint64_t *key = slc_malloc(m->nt + 1, sizeof *key, err);
	size_t t;

	*n = 0;
	if (m->nt > UINT32_MAX) {
		free(key);
		slc_fail(err, "%zu tets: more than 2^32", m->nt);
		return NULL;
	}
	if (!key)
		return NULL;
	for (t = 0; t < m->nt; t++)
		if (m->alive[t])
			key[(*n)++] = ((uint64_t)((int64_t)m->rank[t] + 1) << 32) | t;
	return key;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* §4.1: the rest e of boundary tet t leaves through its first boundary
 * face as one particle per sample, mirrored across the face and jittered
 * outward. */
static int
spray_out(const kdsm_mesh *m, vof_state *s, size_t t, double e, const vof_conserve_opts *o,
	  vof_spray *sp, vof_ledger *L, slc_err *err)
{
	const uint32_t *q = m->tet + 4 * t;
	const double *x[4] = { m->P + 3 * q[0], m->P + 3 * q[1], m->P + 3 * q[2], m->P + 3 * q[3] };
	const double *f0, *f1, *f2;
	double nf[3], e1[3], e2[3], l, side = 0, piece = e / m->nsamp, left = e;
	vof_sum out = { 0, 0 };
	int k = 0, a, smp;

	while (m->nbr[4 * t + k] >= 0)
		k++;
	f0 = x[(k + 1) % 4];
	f1 = x[(k + 2) % 4];
	f2 = x[(k + 3) % 4];
	for (a = 0; a < 3; a++) {
		e1[a] = f1[a] - f0[a];
		e2[a] = f2[a] - f0[a];
	}
	nf[0] = e1[1] * e2[2] - e1[2] * e2[1];
	nf[1] = e1[2] * e2[0] - e1[0] * e2[2];
	nf[2] = e1[0] * e2[1] - e1[1] * e2[0];
	l = sqrt(nf[0] * nf[0] + nf[1] * nf[1] + nf[2] * nf[2]);
	for (a = 0; a < 3; a++)
		side += nf[a] * (x[k][a] - f0[a]);
	/* outward: away from the node opposite the face */
	for (a = 0; a < 3; a++)
		nf[a] *= (side > 0 ? -1 : 1) / (l > 0 ? l : 1);
	for (smp = 0; smp < m->nsamp; smp++) {
		double p[3], jd[3], dp = 0, jn = 0, vol = smp == m->nsamp - 1 ? left : piece;

		for (a = 0; a < 3; a++) {
			p[a] = 0;
			for (int c = 0; c < 4; c++)
				p[a] += m->qb[4 * smp + c] * x[c][a];
			dp += (f0[a] - p[a]) * nf[a];
		}
		vof_jitter(o->seed, o->frame, VOF_STREAM_PUSHOUT, t, smp,
			   o->jitter * vof_max_edge(m, t), jd);
		for (a = 0; a < 3; a++)
			jn += jd[a] * nf[a];
		for (a = 0; a < 3; a++)
			p[a] += 2 * dp * nf[a] + jd[a] - (jn < 0 ? 2 * jn * nf[a] : 0);
		if (vof_spray_add(sp, p, s->u + 3 * t, vol, err))
			return -1;
		left -= vol;
		vof_sum_add(&out, vol);
		L->n_spray++;
	}
	L->particles_out += vof_sum_get(&out);
	return 0;
}

int
vof_pushout(const kdsm_mesh *m, vof_state *s, const vof_conserve_opts *o, vof_spray *sp,
	    vof_ledger *L, slc_err *err)
{
	size_t n, i;
	uint64_t *key;

	if (!(o->jitter >= VOF_JITTER_MIN && o->jitter <= VOF_JITTER_MAX))
		return slc_fail(err, "pushout: jitter %g, expected %g..%g", o->jitter,
				VOF_JITTER_MIN, VOF_JITTER_MAX);
	if (!(key = rank_order(m, &n, err)))
		return -1;
	qsort(key, n, sizeof *key, cmp_u64);
	for (i = 0; i < n; i++) {
		size_t t = (size_t)(key[i] & 0xffffffffu);
		int32_t r = m->rank[t], to[4 + KDSM_NL_MAX];
		double e, ud[3];
		int round, k, nto;

		if (!(s->W[t] > m->cap[t]))
			continue;
		e = s->W[t] - m->cap[t];
		s->W[t] = m->cap[t];
		memcpy(ud, s->u + 3 * t, sizeof ud);
		/* (a) the unsaturated face neighbours, equally up to cap */
		for (round = 0; round < VOF_FILL_ROUNDS && e > 0; round++) {
			double share;

			nto = 0;
			for (k = 0; k < 4; k++) {
				int32_t o2 = m->nbr[4 * t + k];

				if (o2 >= 0 && m->alive[o2] && s->W[o2] < m->cap[o2])
					to[nto++] = o2;
			}
			if (!nto)
				break;
			share = e / nto;
			for (k = 0; k < nto && e > 0; k++) {
				double room = m->cap[to[k]] - s->W[to[k]], a = fmin(fmin(share, room), e);

				give(s, (size_t)to[k], a, ud);
				if (a == room)
					s->W[to[k]] = m->cap[to[k]];
				e -= a;
				L->pushed += a;
			}
		}
		if (!(e > 0))
			continue;
		/* (b) face neighbours of strictly higher rank */
		nto = 0;
		for (k = 0; k < 4; k++) {
			int32_t o2 = m->nbr[4 * t + k];

			if (o2 >= 0 && m->alive[o2] && m->rank[o2] > r)
				to[nto++] = o2;
		}
		/* (c) the nonlocal neighbours of fig. 6 */
		for (uint32_t j = m->nl_off[t], nl = !nto; nl && j < m->nl_off[t + 1]; j++) {
			int32_t o2 = m->nl_idx[j];

			if (m->alive[o2] && m->rank[o2] > r && nto < 4 + KDSM_NL_MAX)
				to[nto++] = o2;
		}
		if (nto) {
			give_equal(s, to, nto, e, ud);
			L->pushed += e;
		} else if (boundary(m, t)) {
			/* (d) off the KDSM as spray */
			if (spray_out(m, s, t, e, o, sp, L, err)) {
				s->W[t] += e;
				free(key);
				return -1;
			}
		} else {
			/* (e) enclosed by the solid: kept (§6) */
			s->W[t] += e;
			L->enclosed += e;
			L->n_enclosed++;
		}
	}
	free(key);
	return 0;
}

int
vof_correct(const kdsm_mesh *m, vof_state *s, vof_ledger *L, slc_err *err)
{
	uint8_t *flag, *clamped;
	uint32_t *off, *ent;
	uint64_t *key;
	size_t t, n, i, c;

	flag = slc_calloc(m->nt + 1, 1, err);
	clamped = flag ? slc_calloc(m->nt + 1, 1, err) : NULL;
	off = clamped ? slc_calloc(m->nn + 1, sizeof *off, err) : NULL;
	ent = off ? slc_malloc(4 * m->nt + 1, sizeof *ent, err) : NULL;
	key = ent ? rank_order(m, &n, err) : NULL;
	if (!key) {
		free(flag);
		free(clamped);
		free(off);
		free(ent);
		return -1;
	}
	qsort(key, n, sizeof *key, cmp_u64);
	/* the tets at each node (CSR), for the flags through shared nodes */
	for (t = 0; t < 4 * m->nt; t++)
		off[m->tet[t] + 1]++;
	for (c = 0; c < m->nn; c++)
		off[c + 1] += off[c];
	for (t = 0; t < 4 * m->nt; t++)
		ent[off[m->tet[t]]++] = (uint32_t)(t / 4);
	for (c = m->nn; c > 0; c--)
		off[c] = off[c - 1];
	off[0] = 0;
	for (t = 0; t < m->nt; t++)
		flag[t] = m->alive[t] && m->cut[t] && s->W[t] > 0;
	for (i = 0; i < n; i++) {
		size_t tt = (size_t)(key[i] & 0xffffffffu);
		double *u = s->u + 3 * tt, un = 0, vn = 0;
		const float *nn = m->n + 3 * tt;
		int k;

		if (!(s->W[tt] > 0))
			continue;
		/* a column of saturated, clamped water below (notes §6: through
		 * shared nodes, as ranks grow) */
		for (k = 0; k < 4 && !flag[tt]; k++) {
			uint32_t v = m->tet[4 * tt + k];

			for (uint32_t j = off[v]; j < off[v + 1]; j++) {
				uint32_t o = ent[j];

				if (clamped[o] && m->rank[o] < m->rank[tt] && s->W[o] >= m->cap[o]) {
					flag[tt] = 1;
					break;
				}
			}
		}
		if (!flag[tt])
			continue;
		for (k = 0; k < 3; k++) {
			un += u[k] * nn[k];
			vn += (double)m->vobj[3 * tt + k] * nn[k];
		}
		if (un < vn) {
			for (k = 0; k < 3; k++)
				u[k] += (vn - un) * nn[k];
			clamped[tt] = 1;
			L->n_corrected++;
		}
	}
	free(flag);
	free(clamped);
	free(off);
	free(ent);
	free(key);
	return 0;
}

int
vof_conserve(const kdsm_mesh *m, vof_state *s, const vof_conserve_opts *o, vof_spray *sp,
	     vof_ledger *L, slc_err *err)
{
	if (vof_smear(m, s, L, err) || vof_pushout(m, s, o, sp, L, err) ||
	    vof_correct(m, s, L, err))
		return -1;
	return 0;
}
