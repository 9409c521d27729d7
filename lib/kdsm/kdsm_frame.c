/* kdsm_frame.c: one frame of the KDSM bake (kdsm.h): the coarse nodes
 * placed from the skin (§2), inverted tets fixed or disabled (§6), the red
 * subdivision (§3.1) and the fine tets' channels (§3.1, §3.3 fig. 6,
 * §3.4).  Every loop over nodes or tets writes only its own entries, so
 * the result is the same for any number of threads. */
#include "kdsm/kdsm.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/bvh.h"
#include "geom/sdf.h"
#include "geom/tri.h"
#include "grid/field.h"

/* Not from the paper: the skin level set of each frame is sampled on a
 * grid of the fine tets' spacing, exact within this many cells of the
 * skin; a sample whose interpolated value is within sqrt(3) cells of zero
 * is decided exactly by the crossings of an axis line instead. */
#define KDSM_PHI_BAND 3
#define KDSM_PHI_PAD 3
/* Largest skin level-set grid of a frame, samples. */
#define KDSM_PHI_MAX ((size_t)1 << 28)

/* Node adjacency (CSR): the coarse edges, with rest lengths. */
typedef struct adj {
	size_t *off;
	uint32_t *to;
} adj;

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Neighbours of every node through the tets' edges, sorted, unique. */
static int
adj_build(adj *A, const uint32_t *tet, size_t nt, size_t nn, slc_err *err)
{
	size_t *cnt = slc_calloc(nn + 1, sizeof *cnt, err), t, v;
	int k, e;

	A->off = cnt;
	A->to = cnt ? slc_malloc(12 * nt + 1, sizeof *A->to, err) : NULL;
	if (!A->to)
		return -1;
	for (t = 0; t < 4 * nt; t++)
		cnt[tet[t] + 1] += 3;
	for (v = 0; v < nn; v++)
		cnt[v + 1] += cnt[v];
	for (t = 0; t < nt; t++)
		for (k = 0; k < 4; k++)
			for (e = 0; e < 4; e++)
				if (e != k)
					A->to[cnt[tet[4 * t + k]]++] = tet[4 * t + e];
	for (v = nn; v > 0; v--)
		cnt[v] = cnt[v - 1];
	cnt[0] = 0;
	/* sort and squeeze out repeats, node by node, in place */
	{
		size_t w = 0, start = 0;

		for (v = 0; v < nn; v++) {
			size_t end = cnt[v + 1], i;

			qsort(A->to + start, end - start, sizeof *A->to, cmp_u32);
			cnt[v] = w;
			for (i = start; i < end; i++)
				if (i == start || A->to[i] != A->to[i - 1])
					A->to[w++] = A->to[i];
			start = end;
		}
		cnt[nn] = w;
	}
	return 0;
}

static double
norm3(const double *a)
{
	return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Skin vertices anchored in each node's tets (CSR over nodes): entry
 * 4*vertex + corner. */
static int
anchors_build(const kdsm_lattice *L, size_t **off, uint32_t **ent, slc_err *err)
{
	size_t *c = slc_calloc(L->nn + 1, sizeof *c, err), s, v;
	int k;

	*off = c;
	*ent = c ? slc_malloc(4 * L->ns + 1, sizeof **ent, err) : NULL;
	if (!*ent)
		return -1;
	for (s = 0; s < L->ns; s++)
		for (k = 0; k < 4 && L->atet[s] >= 0; k++)
			c[L->tet[4 * (size_t)L->atet[s] + k] + 1]++;
	for (v = 0; v < L->nn; v++)
		c[v + 1] += c[v];
	for (s = 0; s < L->ns; s++)
		for (k = 0; k < 4 && L->atet[s] >= 0; k++)
			(*ent)[c[L->tet[4 * (size_t)L->atet[s] + k]]++] = (uint32_t)(4 * s + k);
	for (v = L->nn; v > 0; v--)
		c[v] = c[v - 1];
	c[0] = 0;
	return 0;
}

/* One damped Jacobi sweep of the static spring solve (§2): edge springs
 * at rest length (local-global step), zero-length springs from each skin
 * vertex to its barycentric point; only nodes with free[i] move.
 *
 * With dx and dy, the same sweep differentiated in time (§3.1: the
 * tets' velocity is the nodes' velocity): dx is d/dt of x, dy is set to
 * d/dt of y, the skin's anchors moving at s->v.  Since every sweep is
 * differentiated, the last dy is the exact time derivative of the
 * positions the fixed count of sweeps writes, not only of the
 * equilibrium they approach. */
static void
spring_sweep(const kdsm_lattice *L, const kdsm_skin *s, const adj *A,
	     const size_t *aoff, const uint32_t *aent, const uint8_t *free_,
	     const double *x, double *y, const double *dx, double *dy, int smooth)
{
	long i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)L->nn; i++) {
		double num[3] = { 0, 0, 0 }, dnum[3] = { 0, 0, 0 }, den = 0, *yi = y + 3 * i;
		const double *xi = x + 3 * i, *Xi = L->X + 3 * i;
		size_t q;
		int a, k;

		memcpy(yi, xi, 3 * sizeof *yi);
		if (dx)
			memcpy(dy + 3 * i, dx + 3 * i, 3 * sizeof *dy);
		if (!free_[i])
			continue;
		for (q = A->off[i]; q < A->off[i + 1]; q++) {
			const double *xj = x + 3 * A->to[q], *Xj = L->X + 3 * A->to[q];
			double d[3], D[3], l, Lr;

			for (a = 0; a < 3; a++) {
				d[a] = xi[a] - xj[a];
				D[a] = Xi[a] - Xj[a];
			}
			l = norm3(d);
			Lr = norm3(D);
			for (a = 0; a < 3; a++)
				/* smoothing rounds: the mean of the neighbours */
				num[a] += xj[a] + (smooth ? 0 : !(l > 0) ? D[a] : Lr * d[a] / l);
			den += 1;
			if (!dx)
				continue;
			{
				/* d/dt (Lr d / l) = (Lr / l) (dd - dhat (dhat . dd)) */
				const double *dxi = dx + 3 * i, *dxj = dx + 3 * A->to[q];
				double dd[3], p = 0;

				for (a = 0; a < 3; a++) {
					dd[a] = dxi[a] - dxj[a];
					p += d[a] * dd[a];
				}
				for (a = 0; a < 3; a++)
					dnum[a] += dxj[a] + (smooth || !(l > 0) ? 0 :
							     Lr / l * (dd[a] - d[a] * p / (l * l)));
			}
		}
		for (q = aoff[i]; !smooth && q < aoff[i + 1]; q++) {
			size_t v = aent[q] / 4;
			int c = (int)(aent[q] % 4);
			const uint32_t *T = L->tet + 4 * (size_t)L->atet[v];
			const double *b = L->ab + 4 * v;

			for (a = 0; a < 3; a++) {
				double rest = s->P[3 * v + a], drest = s->v ? s->v[3 * v + a] : 0;

				for (k = 0; k < 4; k++)
					if (k != c) {
						rest -= b[k] * x[3 * T[k] + a];
						drest -= dx ? b[k] * dx[3 * T[k] + a] : 0;
					}
				num[a] += KDSM_ANCHOR_K * b[c] * rest;
				dnum[a] += KDSM_ANCHOR_K * b[c] * drest;
			}
			den += KDSM_ANCHOR_K * b[c] * b[c];
		}
		for (a = 0; den > 0 && a < 3; a++) {
			yi[a] = xi[a] + KDSM_SPRING_DAMP * (num[a] / den - xi[a]);
			if (dx)
				dy[3 * i + a] = dx[3 * i + a] +
						KDSM_SPRING_DAMP * (dnum[a] / den - dx[3 * i + a]);
		}
	}
}

/* Volume ratio of each coarse tet, posed over rest. */
static void
ratios(const kdsm_lattice *L, const double *x, double *J)
{
	long t;

#pragma omp parallel for schedule(static)
	for (t = 0; t < (long)L->nt; t++) {
		const uint32_t *q = L->tet + 4 * t;

		J[t] = kdsm_tet_volume(x + 3 * q[0], x + 3 * q[1], x + 3 * q[2], x + 3 * q[3]) /
		       kdsm_tet_volume(L->X + 3 * q[0], L->X + 3 * q[1], L->X + 3 * q[2],
				       L->X + 3 * q[3]);
	}
}

/* §2: the coarse nodes of this frame.  Start: each node's nearest rest
 * skin point's bone weights applied by linear blend skinning to the node
 * (the interior "as per [29, 30]"; kept fixed with a skeleton), or,
 * without one, the skin's displacement there.  Then the spring solve
 * moves the free nodes.  §6: tets still flat or inverted get rounds of
 * smoothing of their free nodes, then alive = 0.  x, u: nn*3; alive: nt.
 * u is dx/dt (§3.1: the nodes' velocity): the start's skinning velocity
 * carried through every sweep by spring_sweep's derivative, so it is the
 * rate of change of the positions written here, also where the solve
 * bends the lattice away from the skinning (exact for the interior
 * nodes, which only the skinning moves). */
static int
coarse_nodes(const kdsm_lattice *L, const kdsm_skin *s, double *x, double *u,
	     uint8_t *alive, kdsm_stats *st, slc_err *err)
{
	double *y = slc_malloc(L->nn, 3 * sizeof *y, err), *J = NULL, *du = NULL;
	uint8_t *fr = NULL, *fix = NULL;
	adj A = { 0 };
	size_t *aoff = NULL, t;
	uint32_t *aent = NULL;
	int it, r, rc = -1;
	long i;

	du = y ? slc_malloc(L->nn, 3 * sizeof *du, err) : NULL;
	J = du ? slc_malloc(L->nt, sizeof *J, err) : NULL;
	fr = J ? slc_malloc(L->nn, 1, err) : NULL;
	fix = fr ? slc_calloc(L->nn, 1, err) : NULL;
	if (!fix || adj_build(&A, L->tet, L->nt, L->nn, err) ||
	    anchors_build(L, &aoff, &aent, err))
		goto out;
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)L->nn; i++) {
		const uint32_t *T = s->tri + 3 * (size_t)L->ctri[i];
		const double *w = L->cw + 3 * i, *X = L->X + 3 * i;
		int a, b, k;

		fr[i] = !(s->nbones > 0 && L->inside[i]);
		for (a = 0; a < 3; a++) {
			x[3 * i + a] = s->nbones > 0 ? 0 : X[a];
			u[3 * i + a] = 0;
		}
		for (k = 0; k < 3; k++)
			for (b = 0; b < s->nbones; b++) {
				double wb = w[k] * s->bw[(size_t)s->bw_n * T[k] + b];
				const double *M = s->M + 12 * b, *Md = s->Mdot + 12 * b;

				for (a = 0; a < 3; a++) {
					x[3 * i + a] += wb * (M[4 * a] * X[0] + M[4 * a + 1] * X[1] +
							      M[4 * a + 2] * X[2] + M[4 * a + 3]);
					u[3 * i + a] += wb * (Md[4 * a] * X[0] + Md[4 * a + 1] * X[1] +
							      Md[4 * a + 2] * X[2] + Md[4 * a + 3]);
				}
			}
		for (k = 0; k < 3 && s->nbones == 0; k++)
			for (a = 0; a < 3; a++) {
				x[3 * i + a] += w[k] * (s->P[3 * T[k] + a] - L->R[3 * T[k] + a]);
				u[3 * i + a] += s->v ? w[k] * s->v[3 * T[k] + a] : 0;
			}
	}
	for (it = 0; it < KDSM_SPRING_ITERS; it++) {
		spring_sweep(L, s, &A, aoff, aent, fr, x, y, u, du, 0);
		memcpy(x, y, L->nn * 3 * sizeof *x);
		memcpy(u, du, L->nn * 3 * sizeof *u);
	}
	ratios(L, x, J);
	for (r = 0; r < KDSM_FIX_ROUNDS; r++) {
		size_t nbad = 0;

		memset(fix, 0, L->nn);
		for (t = 0; t < L->nt; t++)
			if (J[t] < KDSM_MIN_J)
				for (it = 0; it < 4; it++) {
					uint32_t v = L->tet[4 * t + it];

					nbad += !fix[v];
					fix[v] = 1;
				}
		if (!nbad)
			break;
		st->fixed_nodes += nbad;
		for (it = 0; it < KDSM_FIX_SWEEPS; it++) {
			spring_sweep(L, s, &A, aoff, aent, fix, x, y, u, du, 1);
			memcpy(x, y, L->nn * 3 * sizeof *x);
			memcpy(u, du, L->nn * 3 * sizeof *u);
		}
		ratios(L, x, J);
	}
	for (t = 0; t < L->nt; t++) {
		alive[t] = J[t] >= KDSM_MIN_J;
		st->coarse_dead += !alive[t];
	}
	rc = 0;
out:
	free(y);
	free(du);
	free(J);
	free(fr);
	free(fix);
	free(A.off);
	free(A.to);
	free(aoff);
	free(aent);
	return rc;
}

void
kdsm_mesh_free(kdsm_mesh *m)
{
	free(m->P);
	free(m->rest);
	free(m->v);
	free(m->sdf);
	free(m->tet);
	free(m->occ);
	free(m->cut);
	free(m->alive);
	free(m->rank);
	free(m->n);
	free(m->vobj);
	free(m->cap);
	free(m->nbr);
	free(m->dist);
	free(m->adh);
	free(m->adh_dir);
	free(m->hair);
	free(m->hair_dir);
	free(m->nl_off);
	free(m->nl_idx);
	free(m->qb);
	memset(m, 0, sizeof *m);
}

/* Crossings of the x line through p below p: odd inside a closed skin. */
typedef struct parity {
	double x;
	int odd;
} parity;

static void
parity_hit(void *ctx, uint32_t tri, double t)
{
	parity *p = ctx;

	(void)tri;
	p->odd ^= t < p->x;
}

/* Is p inside the skin?  The grid's value where it is clear, else exact. */
static int
inside(const field *phi, const bvh *b, const double p[3])
{
	double f = field_sample(phi, p);
	parity q = { p[0], 0 };

	if (fabs(f) > 1.7320508075688772 * phi->dx)
		return f < 0;
	bvh_axis_line(b, 0, p, parity_hit, &q);
	return q.odd;
}

/* Tets around each node (CSR), in tet order. */
static int
node_tets(const kdsm_mesh *m, size_t **off, uint32_t **ent, slc_err *err)
{
	size_t *c = slc_calloc(m->nn + 1, sizeof *c, err), t, v;

	*off = c;
	*ent = c ? slc_malloc(4 * m->nt + 1, sizeof **ent, err) : NULL;
	if (!*ent)
		return -1;
	for (t = 0; t < 4 * m->nt; t++)
		c[m->tet[t] + 1]++;
	for (v = 0; v < m->nn; v++)
		c[v + 1] += c[v];
	for (t = 0; t < 4 * m->nt; t++)
		(*ent)[c[m->tet[t]]++] = (uint32_t)(t / 4);
	for (v = m->nn; v > 0; v--)
		c[v] = c[v - 1];
	c[0] = 0;
	return 0;
}

/* Face neighbours: the other tet around the face opposite node k. */
static void
faces(kdsm_mesh *m, const size_t *off, const uint32_t *ent)
{
	long t;

#pragma omp parallel for schedule(static)
	for (t = 0; t < (long)m->nt; t++) {
		const uint32_t *q = m->tet + 4 * t;
		int k;

		for (k = 0; k < 4; k++) {
			uint32_t f[3], a = q[(k + 1) % 4];
			size_t i;
			int j = 0, e;

			for (e = 0; e < 4; e++)
				if (e != k)
					f[j++] = q[e];
			m->nbr[4 * t + k] = -1;
			for (i = off[a]; i < off[a + 1]; i++) {
				const uint32_t *o = m->tet + 4 * (size_t)ent[i];
				int hit = 0;

				if (ent[i] == (uint32_t)t)
					continue;
				for (e = 0; e < 4; e++)
					hit += o[e] == f[0] || o[e] == f[1] || o[e] == f[2];
				if (hit == 3) {
					m->nbr[4 * t + k] = (int32_t)ent[i];
					break;
				}
			}
		}
	}
}

/* §3.1: rank as topological distance from the skin: inside -1, cut 0,
 * then unranked node neighbours of rank r get r + 1 (breadth first). */
static int
rank_tets(kdsm_mesh *m, const size_t *off, const uint32_t *ent, kdsm_stats *st,
	  slc_err *err)
{
	uint32_t *fr = slc_malloc(m->nt + 1, sizeof *fr, err), *nx;
	size_t nf = 0, nnx, t, i, j;
	int32_t r = 0;
	int k;

	nx = fr ? slc_malloc(m->nt + 1, sizeof *nx, err) : NULL;
	if (!nx) {
		free(fr);
		return -1;
	}
	for (t = 0; t < m->nt; t++) {
		m->rank[t] = m->cut[t] ? 0 : m->occ[t] >= 1 ? -1 : KDSM_RANK_NONE;
		if (m->cut[t])
			fr[nf++] = (uint32_t)t;
	}
	while (nf) {
		nnx = 0;
		for (i = 0; i < nf; i++)
			for (k = 0; k < 4; k++) {
				uint32_t v = m->tet[4 * (size_t)fr[i] + k];

				for (j = off[v]; j < off[v + 1]; j++)
					if (m->rank[ent[j]] == KDSM_RANK_NONE) {
						m->rank[ent[j]] = r + 1;
						nx[nnx++] = ent[j];
					}
			}
		if (nnx)
			r++;
		memcpy(fr, nx, nnx * sizeof *fr);
		nf = nnx;
	}
	st->max_rank = r;
	for (t = 0; t < m->nt; t++)
		st->unranked += m->rank[t] == KDSM_RANK_NONE;
	free(fr);
	free(nx);
	return 0;
}

static int
ranked(int32_t r)
{
	return r >= 0 && r != KDSM_RANK_NONE;
}

/* §3.3, fig. 6: a ranked tet inside the mesh with no face neighbour of
 * higher rank gets the nearest higher-rank tets found breadth first
 * over faces (at most KDSM_NL_MAX, within KDSM_NL_DEPTH steps).
 *
 * "No face neighbour of higher rank" is §3.3's own test: pushout hands
 * the excess to face neighbours of strictly higher rank, and a tet with
 * none has no valid neighbour.  §3.1 says outright that rank steps to
 * *node* neighbours, so a rank r tet touching rank r-1 at two or more
 * nodes has all four faces on a node of rank <= r and no higher face
 * neighbour, in open space as well as in fig. 6's narrow gaps: on the
 * bent arm (1.3M tets) 46% of all tets get a list here, the nearest link
 * 2 face steps away for 39% of them.  Ranks stepped through faces would
 * bring that to 3.3% (max rank 40 against 12), but that is not what §3.1
 * says, so the paper's two rules are kept as written. */
static int
nonlocal(kdsm_mesh *m, kdsm_stats *st, slc_err *err)
{
	int32_t *found = slc_malloc(m->nt, KDSM_NL_MAX * sizeof *found, err);
	uint8_t *nf = found ? slc_calloc(m->nt, 1, err) : NULL;
	size_t t, tot = 0;
	int fail = 0;

	if (!nf) {
		free(found);
		return -1;
	}
#pragma omp parallel
	{
		/* per thread: a visit stamp per tet and the current layers */
		uint32_t *stamp = calloc(m->nt, sizeof *stamp), mark = 0;
		int32_t *lay = malloc(2 * m->nt * sizeof *lay);
		long u;

		if (!stamp || !lay) {
#pragma omp atomic write
			fail = 1;
		}
#pragma omp for schedule(static)
		for (u = 0; u < (long)m->nt; u++) {
			const int32_t *nb = m->nbr + 4 * u;
			int32_t r = m->rank[u], *cur = lay, *nxt = lay + m->nt;
			size_t nc = 1, nn, i;
			int k, d, need = ranked(r);

			for (k = 0; k < 4 && need && stamp; k++)
				if (nb[k] < 0 || (ranked(m->rank[nb[k]]) && m->rank[nb[k]] > r))
					need = 0;
			if (!need || !stamp || !lay)
				continue;
			mark++;
			stamp[u] = mark;
			cur[0] = (int32_t)u;
			for (d = 0; d < KDSM_NL_DEPTH && nc && !nf[u]; d++) {
				nn = 0;
				for (i = 0; i < nc; i++)
					for (k = 0; k < 4; k++) {
						int32_t o = m->nbr[4 * (size_t)cur[i] + k];

						if (o < 0 || stamp[o] == mark)
							continue;
						stamp[o] = mark;
						if (ranked(m->rank[o]) && m->rank[o] > r) {
							if (nf[u] < KDSM_NL_MAX)
								found[KDSM_NL_MAX * u + nf[u]++] = o;
						} else if (m->rank[o] >= 0) {
							nxt[nn++] = o;
						}
					}
				memcpy(cur, nxt, nn * sizeof *cur);
				nc = nn;
			}
		}
		free(stamp);
		free(lay);
	}
	if (fail) {
		free(found);
		free(nf);
		return slc_fail(err, "out of memory");
	}
	for (t = 0; t < m->nt; t++) {
		tot += nf[t];
		st->nonlocal += nf[t] > 0;
	}
	m->nl_off = slc_malloc(m->nt + 1, sizeof *m->nl_off, err);
	m->nl_idx = m->nl_off ? slc_malloc(tot + 1, sizeof *m->nl_idx, err) : NULL;
	if (m->nl_idx) {
		m->nl_off[0] = 0;
		for (t = 0; t < m->nt; t++) {
			memcpy(m->nl_idx + m->nl_off[t], found + KDSM_NL_MAX * t,
			       nf[t] * sizeof *m->nl_idx);
			m->nl_off[t + 1] = m->nl_off[t] + nf[t];
		}
	}
	free(found);
	free(nf);
	return m->nl_idx ? 0 : -1;
}

int
kdsm_adhesion_spread(kdsm_mesh *m, uint8_t *has, int32_t max_rank, slc_err *err)
{
	/* the nonlocal links turned round (CSR over targets, sources in
	 * index order): who names t in its list */
	uint32_t *boff = slc_calloc(m->nt + 2, sizeof *boff, err), *bsrc = NULL;
	size_t t, i, tot = m->nl_off[m->nt];
	int32_t r;
	long u;

	bsrc = boff ? slc_malloc(tot + 1, sizeof *bsrc, err) : NULL;
	if (!bsrc) {
		free(boff);
		return -1;
	}
	for (i = 0; i < tot; i++)
		boff[m->nl_idx[i] + 2]++;
	for (t = 0; t < m->nt; t++)
		boff[t + 2] += boff[t + 1];
	for (t = 0; t < m->nt; t++)
		for (i = m->nl_off[t]; i < m->nl_off[t + 1]; i++)
			bsrc[boff[m->nl_idx[i] + 1]++] = (uint32_t)t;
	for (r = 1; r <= max_rank; r++) {
#pragma omp parallel for schedule(static)
		for (u = 0; u < (long)m->nt; u++) {
			double a = 0, d[3] = { 0, 0, 0 };
			int k, c = 0, q;

			if (m->rank[u] != r)
				continue;
			/* lower-rank face neighbours, then nonlocal sources: a
			 * source's list never holds its own face neighbours
			 * (it is made only where none has higher rank) */
			for (k = 0; k < 4 + (int)(boff[u + 1] - boff[u]); k++) {
				int32_t o = k < 4 ? m->nbr[4 * u + k] : (int32_t)bsrc[boff[u] + (size_t)(k - 4)];

				if (o < 0 || !has[o] || m->rank[o] < 0 || m->rank[o] >= r)
					continue;
				a += m->adh[o];
				for (q = 0; q < 3 && m->adh_dir; q++)
					d[q] += m->adh_dir[3 * (size_t)o + q];
				c++;
			}
			if (!c)
				continue;
			m->adh[u] = (float)(a / c);
			for (q = 0; q < 3 && m->adh_dir; q++)
				m->adh_dir[3 * u + q] = (float)(d[q] / c);
			has[u] = 1;
		}
	}
	free(boff);
	free(bsrc);
	return 0;
}

/* §3.4: adhesion painted on the skin into the rank 0 tets (at their
 * nearest skin point), then kdsm_adhesion_spread to the higher ranks. */
static int
adhesion(kdsm_mesh *m, const kdsm_skin *s, const int32_t *ctri, const double *cw,
	 const kdsm_stats *st, slc_err *err)
{
	uint8_t *has = slc_calloc(m->nt, 1, err);
	long t;
	int rc;

	if (!has)
		return -1;
#pragma omp parallel for schedule(static)
	for (t = 0; t < (long)m->nt; t++) {
		double a = 0, d[3] = { 0, 0, 0 };
		int k, c;

		if (m->rank[t] != 0 || ctri[t] < 0)
			continue;
		for (k = 0; k < 3; k++) {
			uint32_t v = s->tri[3 * (size_t)ctri[t] + k];

			a += cw[3 * t + k] * s->adh[v];
			for (c = 0; c < 3 && s->adh_dir; c++)
				d[c] += cw[3 * t + k] * s->adh_dir[3 * v + c];
		}
		m->adh[t] = (float)a;
		for (k = 0; k < 3 && m->adh_dir; k++)
			m->adh_dir[3 * t + k] = (float)d[k];
		has[t] = 1;
	}
	rc = kdsm_adhesion_spread(m, has, st->max_rank, err);
	free(has);
	return rc;
}

/* The skin's level set on a grid of the fine spacing around the posed
 * nodes, with each sample's closest triangle. */
static int
skin_phi(const kdsm_lattice *L, const kdsm_skin *s, const kdsm_mesh *m, field *phi,
	 int32_t **closest, slc_err *err)
{
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	double h = ldexp(L->h, -L->levels);
	sdf_opts o = { KDSM_PHI_BAND, 0, 0 };
	int n[3], a;
	size_t v, cells;

	*closest = NULL;
	for (v = 0; v < m->nn; v++)
		for (a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], m->P[3 * v + a]);
			hi[a] = fmax(hi[a], m->P[3 * v + a]);
		}
	for (a = 0; a < 3; a++) {
		double c = ceil((hi[a] - lo[a]) / h) + 2 * KDSM_PHI_PAD;

		if (!(c < KDSM_PHI_MAX))
			return slc_fail(err, "skin level set: %g cells along an axis", c);
		n[a] = (int)c;
		lo[a] -= KDSM_PHI_PAD * h;
	}
	if (slc_mul3((size_t)n[0], (size_t)n[1], (size_t)n[2], &cells) || cells > KDSM_PHI_MAX)
		return slc_fail(err, "skin level set: grid %dx%dx%d is too large", n[0], n[1], n[2]);
	if (field_alloc(phi, n[0], n[1], n[2], SLC_CELL, lo, h, err))
		return -1;
	*closest = slc_malloc(cells, sizeof **closest, err);
	if (!*closest || sdf_mesh(phi, s->P, s->nv, s->tri, s->nt, &o, *closest, NULL, err))
		return -1;
	return 0;
}

/* The closest skin point to c, exact for every tet: for a tet not cut
 * (exact 0) the closest triangle of the grid cell holding c, from the
 * skin level set of §3.1, bounds the tree's search. */
static void
closest_point(const field *phi, const int32_t *closest, const bvh *b, const kdsm_skin *s,
	      const double c[3], int exact, int32_t *tri, double w[3], double cp[3])
{
	size_t idx[3];
	int a;

	for (a = 0; a < 3; a++) {
		double f = floor((c[a] - phi->origin[a]) / phi->dx);
		int nmax = a == 0 ? phi->ni : a == 1 ? phi->nj : phi->nk;

		idx[a] = f < 0 ? 0 : f >= nmax ? (size_t)nmax - 1 : (size_t)f;
	}
	*tri = exact ? -1 : closest[idx[0] + (size_t)phi->ni * (idx[1] + (size_t)phi->nj * idx[2])];
	{
		bvh_hit hit;
		double dmax = INFINITY;

		/* the grid sample's triangle is near, not always nearest (a
		 * normal up to 47 degrees off on a ball): it only bounds the
		 * exact search */
		if (*tri >= 0) {
			double d[3];

			tri_closest(c, s->P + 3 * s->tri[3 * (size_t)*tri],
				    s->P + 3 * s->tri[3 * (size_t)*tri + 1],
				    s->P + 3 * s->tri[3 * (size_t)*tri + 2], cp, w);
			for (int a2 = 0; a2 < 3; a2++)
				d[a2] = c[a2] - cp[a2];
			dmax = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * (1 + 1e-9) + 1e-12;
		}
		if (bvh_closest(b, c, dmax, &hit)) {
			*tri = (int32_t)hit.tri;
			memcpy(w, hit.w, 3 * sizeof *w);
			memcpy(cp, hit.cp, 3 * sizeof *cp);
		}
	}
}

/* §3.1: one fine tet's occupancy, cut flag, normal, object velocity,
 * distance, capacity. */
static void
tet_channels(kdsm_mesh *m, size_t t, const field *phi, const int32_t *closest,
	     const bvh *b, const kdsm_skin *s, int32_t *ctri, double *cw)
{
	const uint32_t *q = m->tet + 4 * t;
	const double *x[4] = { m->P + 3 * q[0], m->P + 3 * q[1], m->P + 3 * q[2], m->P + 3 * q[3] };
	double c[3], cp[3], d[3], dl, V, smin = INFINITY, smax = -INFINITY, sgn;
	int nin = 0, k, a, sm;

	for (a = 0; a < 3; a++)
		c[a] = 0.25 * (x[0][a] + x[1][a] + x[2][a] + x[3][a]);
	for (sm = 0; sm < m->nsamp; sm++) {
		double p[3];

		for (a = 0; a < 3; a++)
			for (p[a] = 0, k = 0; k < 4; k++)
				p[a] += m->qb[4 * sm + k] * x[k][a];
		nin += inside(phi, b, p);
	}
	for (k = 0; k < 4; k++) {
		smin = fmin(smin, m->sdf[q[k]]);
		smax = fmax(smax, m->sdf[q[k]]);
	}
	m->occ[t] = (float)nin / (float)m->nsamp;
	/* §3.1: the tet holds part of the skin: its samples or its nodes
	 * disagree about the side */
	m->cut[t] = (nin > 0 && nin < m->nsamp) || (smin < 0 && smax > 0);
	closest_point(phi, closest, b, s, c, m->cut[t], ctri + t, cw + 3 * t, cp);
	sgn = inside(phi, b, c) ? -1 : 1;
	for (a = 0; a < 3; a++)
		d[a] = c[a] - cp[a];
	dl = norm3(d);
	if (dl > 1e-9 * phi->dx) {
		for (a = 0; a < 3; a++)
			m->n[3 * t + a] = (float)(sgn * d[a] / dl);
	} else {
		const uint32_t *T = s->tri + 3 * (size_t)ctri[t];
		double e1[3], e2[3], nn[3], l;

		for (a = 0; a < 3; a++) {
			e1[a] = s->P[3 * T[1] + a] - s->P[3 * T[0] + a];
			e2[a] = s->P[3 * T[2] + a] - s->P[3 * T[0] + a];
		}
		nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
		nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
		nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
		l = norm3(nn);
		for (a = 0; a < 3; a++)
			m->n[3 * t + a] = l > 0 ? (float)(nn[a] / l) : 0;
	}
	for (a = 0; a < 3; a++) {
		double vo = 0;

		for (k = 0; k < 3 && s->v; k++)
			vo += cw[3 * t + k] * s->v[3 * s->tri[3 * (size_t)ctri[t] + k] + a];
		m->vobj[3 * t + a] = (float)vo;
	}
	m->dist[t] = (float)(sgn * dl);
	V = kdsm_tet_volume(x[0], x[1], x[2], x[3]);
	/* §3.1, §5: the room left for water; none in a disabled tet (§6) */
	m->cap[t] = m->alive[t] ? fmax(0, V * (1 - m->occ[t])) : 0;
}

int
kdsm_frame_bake(const kdsm_lattice *L, const kdsm_skin *s, kdsm_mesh *m,
		kdsm_stats *st, slc_err *err)
{
	double *xc = NULL, *uc = NULL, *U = NULL, *cw = NULL;
	uint8_t *calive = NULL;
	uint32_t *par = NULL, *ent = NULL;
	int32_t *closest = NULL, *ctri = NULL;
	size_t *off = NULL, t, fnn, v;
	field phi = { 0 };
	bvh b = { 0 };
	int rc = -1, shift = 3 * L->levels;
	long i;

	memset(m, 0, sizeof *m);
	memset(st, 0, sizeof *st);
	if (s->nv != L->ns || s->nt != L->nst)
		return slc_fail(err, "skin of %zu vertices, %zu triangles; the lattice was "
				"made from %zu, %zu", s->nv, s->nt, L->ns, L->nst);
	if (s->nbones > 0 && (!s->bw || s->bw_n < s->nbones))
		return slc_fail(err, "a skeleton of %d bones but %d bone weights 'bw' per skin "
				"vertex", s->nbones, s->bw ? s->bw_n : 0);
	xc = slc_malloc(L->nn, 3 * sizeof *xc, err);
	uc = xc ? slc_malloc(L->nn, 3 * sizeof *uc, err) : NULL;
	calive = uc ? slc_malloc(L->nt, 1, err) : NULL;
	if (!calive || coarse_nodes(L, s, xc, uc, calive, st, err))
		goto out;
	for (t = 0; t < L->nt; t++) {
		const uint32_t *q = L->tet + 4 * t;

		st->volume_coarse += kdsm_tet_volume(xc + 3 * q[0], xc + 3 * q[1], xc + 3 * q[2],
						     xc + 3 * q[3]);
	}
	if (kdsm_refine(L->tet, L->nt, L->X, L->nn, L->levels, &m->tet, &m->nt, &par, &fnn, err))
		goto out;
	m->nn = fnn;
	m->nsamp = L->nsamp;
	m->P = slc_malloc(fnn, 3 * sizeof *m->P, err);
	m->rest = m->P ? slc_malloc(fnn, 3 * sizeof *m->rest, err) : NULL;
	U = m->rest ? slc_malloc(fnn, 3 * sizeof *U, err) : NULL;
	m->v = U ? slc_malloc(fnn, 3 * sizeof *m->v, err) : NULL;
	m->sdf = m->v ? slc_malloc(fnn, sizeof *m->sdf, err) : NULL;
	m->occ = m->sdf ? slc_malloc(m->nt, sizeof *m->occ, err) : NULL;
	m->cut = m->occ ? slc_malloc(m->nt, 1, err) : NULL;
	m->alive = m->cut ? slc_malloc(m->nt, 1, err) : NULL;
	m->rank = m->alive ? slc_malloc(m->nt, sizeof *m->rank, err) : NULL;
	m->n = m->rank ? slc_malloc(m->nt, 3 * sizeof *m->n, err) : NULL;
	m->vobj = m->n ? slc_malloc(m->nt, 3 * sizeof *m->vobj, err) : NULL;
	m->cap = m->vobj ? slc_malloc(m->nt, sizeof *m->cap, err) : NULL;
	m->nbr = m->cap ? slc_malloc(m->nt, 4 * sizeof *m->nbr, err) : NULL;
	m->dist = m->nbr ? slc_malloc(m->nt, sizeof *m->dist, err) : NULL;
	m->qb = m->dist ? slc_malloc((size_t)L->nsamp, 4 * sizeof *m->qb, err) : NULL;
	ctri = m->qb ? slc_malloc(m->nt, sizeof *ctri, err) : NULL;
	cw = ctri ? slc_malloc(m->nt, 3 * sizeof *cw, err) : NULL;
	if (!cw)
		goto out;
	if (s->adh && (!(m->adh = slc_calloc(m->nt, sizeof *m->adh, err)) ||
		       (s->adh_dir && !(m->adh_dir = slc_calloc(m->nt, 3 * sizeof *m->adh_dir, err)))))
		goto out;
	kdsm_rule(L->nsamp, m->qb);
	memcpy(m->P, xc, L->nn * 3 * sizeof *xc);
	memcpy(m->rest, L->X, L->nn * 3 * sizeof *xc);
	memcpy(U, uc, L->nn * 3 * sizeof *xc);
	/* §3.1: the spring solve ran on the coarse mesh; the fine nodes are
	 * the midpoints of its edges, level by level */
	kdsm_refine_points(m->P, L->nn, fnn, par);
	kdsm_refine_points(m->rest, L->nn, fnn, par);
	kdsm_refine_points(U, L->nn, fnn, par);
	for (v = 0; v < 3 * fnn; v++) {
		/* the channel is f32: a skin moving faster than a float holds
		 * is the input's fault, not an Inf to write */
		if (!(fabs(U[v]) <= FLT_MAX)) {
			slc_fail(err, "node %zu: velocity %g m/s does not fit a float "
				 "(the skin's velocities are too large)", (size_t)(v / 3), U[v]);
			goto out;
		}
		m->v[v] = (float)U[v];
	}
	for (t = 0; t < m->nt; t++)
		m->alive[t] = calive[t >> shift];
	if (skin_phi(L, s, m, &phi, &closest, err) ||
	    bvh_build(&b, s->P, s->nv, s->tri, s->nt, err))
		goto out;
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)fnn; i++)
		m->sdf[i] = (float)field_sample(&phi, m->P + 3 * i);
#pragma omp parallel for schedule(dynamic, 1024)
	for (i = 0; i < (long)m->nt; i++)
		tet_channels(m, (size_t)i, &phi, closest, &b, s, ctri, cw);
	st->min_ratio = INFINITY;
	for (t = 0; t < m->nt; t++) {
		const uint32_t *q = m->tet + 4 * t;
		double V = kdsm_tet_volume(m->P + 3 * q[0], m->P + 3 * q[1], m->P + 3 * q[2],
					   m->P + 3 * q[3]);
		double V0 = kdsm_tet_volume(m->rest + 3 * q[0], m->rest + 3 * q[1],
					    m->rest + 3 * q[2], m->rest + 3 * q[3]);

		st->volume += V;
		st->occ_volume += m->occ[t] * V;
		st->dead += !m->alive[t];
		st->cut += m->cut[t];
		st->inside += !m->cut[t] && m->occ[t] >= 1;
		if (m->alive[t])
			st->min_ratio = fmin(st->min_ratio, V / V0);
	}
	if (node_tets(m, &off, &ent, err))
		goto out;
	faces(m, off, ent);
	if (rank_tets(m, off, ent, st, err) || nonlocal(m, st, err))
		goto out;
	if (m->adh && adhesion(m, s, ctri, cw, st, err))
		goto out;
	st->skin_volume = kdsm_skin_volume(s->P, s->tri, s->nt);
	rc = 0;
out:
	free(xc);
	free(uc);
	free(U);
	free(cw);
	free(calive);
	free(par);
	free(ent);
	free(off);
	free(closest);
	free(ctri);
	field_free(&phi);
	bvh_free(&b);
	return rc;
}
