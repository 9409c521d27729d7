/* fmm.c: first-order fast marching with a binary heap (fmm.h). */
#include "grid/fmm.h"

#include <math.h>
#include <stdlib.h>

enum { FAR = 0, TRIAL = 1, DONE = 2 };

struct hent {
	float d;
	uint32_t c;
};

typedef struct march {
	int ni, nj, nk;
	double dx;
	float *d;
	int32_t *src;
	uint8_t *state;
	struct hent *heap;      /* min-heap on (d, cell index); the key is
				 * kept beside the index so that sifting
				 * stays within the heap array */
	uint32_t *pos;          /* cell -> heap slot, valid while TRIAL */
	size_t n;               /* heap size */
	fmm_choose_fn choose;
	void *ctx;
	fmm_sees_fn sees;       /* or NULL: every neighbour counts */
	void *sctx;
} march;

static int
before(struct hent a, struct hent b)
{
	return a.d < b.d || (a.d == b.d && a.c < b.c);
}

static void
heap_set(march *m, size_t s, struct hent e)
{
	m->heap[s] = e;
	m->pos[e.c] = (uint32_t)s;
}

static void
sift_up(march *m, size_t s)
{
	struct hent e = m->heap[s];

	while (s > 0) {
		size_t p = (s - 1) / 2;
		if (!before(e, m->heap[p]))
			break;
		heap_set(m, s, m->heap[p]);
		s = p;
	}
	heap_set(m, s, e);
}

static void
sift_down(march *m, size_t s)
{
	struct hent e = m->heap[s];

	for (;;) {
		size_t l = 2 * s + 1, best = s;
		struct hent be = e;
		if (l < m->n && before(m->heap[l], be))
			best = l, be = m->heap[l];
		if (l + 1 < m->n && before(m->heap[l + 1], be))
			best = l + 1, be = m->heap[l + 1];
		if (best == s)
			break;
		heap_set(m, s, be);
		s = best;
	}
	heap_set(m, s, e);
}

/* First-order upwind solution of |grad d| = 1 at cell c from its DONE
 * neighbours: the largest root of sum_a (d - m_a)^2 = dx^2 over the
 * smallest neighbour value m_a of each axis that lies below the root. */
static void
update(march *m, int i, int j, int k)
{
	size_t c = (size_t)i + (size_t)m->ni * ((size_t)j + (size_t)m->nj * k);
	size_t stride[3] = { 1, (size_t)m->ni, (size_t)m->ni * m->nj };
	int idx[3] = { i, j, k }, dim[3] = { m->ni, m->nj, m->nk };
	double v[3], s = 0, s2 = 0, dnew = INFINITY, dx = m->dx;
	int32_t src = -1;
	double vmin = INFINITY;
	int a, n = 0, q;

	for (a = 0; a < 3; a++) {
		double best = INFINITY;
		size_t bc = 0;
		if (idx[a] > 0 && m->state[c - stride[a]] == DONE &&
		    m->d[c - stride[a]] < best &&
		    (!m->sees || m->sees(m->sctx, c, c - stride[a])))
			best = m->d[c - stride[a]], bc = c - stride[a];
		if (idx[a] < dim[a] - 1 && m->state[c + stride[a]] == DONE &&
		    m->d[c + stride[a]] < best &&
		    (!m->sees || m->sees(m->sctx, c, c + stride[a])))
			best = m->d[c + stride[a]], bc = c + stride[a];
		if (best < INFINITY) {
			v[n++] = best;
			if (best < vmin || (best == vmin && m->src &&
					    m->src[bc] < src)) {
				vmin = best;
				if (m->src)
					src = m->src[bc];
			}
		}
	}
	if (!n)
		return;
	/* sort the n <= 3 values ascending */
	for (a = 1; a < n; a++)
		for (q = a; q > 0 && v[q] < v[q - 1]; q--) {
			double t = v[q];
			v[q] = v[q - 1];
			v[q - 1] = t;
		}
	for (a = 0; a < n; a++) {
		double disc, r;
		s += v[a];
		s2 += v[a] * v[a];
		disc = s * s - (a + 1) * (s2 - dx * dx);
		if (disc < 0)
			break;
		r = (s + sqrt(disc)) / (a + 1);
		dnew = r;
		if (a + 1 < n && r <= v[a + 1])
			break;
	}
	if (m->state[c] == TRIAL && !(dnew < m->d[c]))
		return;
	m->d[c] = (float)dnew;
	if (m->src)
		m->src[c] = src;
	if (m->state[c] == TRIAL) {
		m->heap[m->pos[c]].d = m->d[c];
		sift_up(m, m->pos[c]);
	} else {
		struct hent e = { m->d[c], (uint32_t)c };
		m->state[c] = TRIAL;
		heap_set(m, m->n, e);
		m->n++;
		sift_up(m, m->n - 1);
	}
}

static void
update_neighbours(march *m, size_t c)
{
	int i = (int)(c % (size_t)m->ni);
	int j = (int)((c / (size_t)m->ni) % (size_t)m->nj);
	int k = (int)(c / ((size_t)m->ni * m->nj));

	if (i > 0 && m->state[c - 1] != DONE)
		update(m, i - 1, j, k);
	if (i < m->ni - 1 && m->state[c + 1] != DONE)
		update(m, i + 1, j, k);
	if (j > 0 && m->state[c - m->ni] != DONE)
		update(m, i, j - 1, k);
	if (j < m->nj - 1 && m->state[c + m->ni] != DONE)
		update(m, i, j + 1, k);
	if (k > 0 && m->state[c - (size_t)m->ni * m->nj] != DONE)
		update(m, i, j, k - 1);
	if (k < m->nk - 1 && m->state[c + (size_t)m->ni * m->nj] != DONE)
		update(m, i, j, k + 1);
}

/* Let m->choose pick the source of the just accepted cell c among the
 * distinct sources of its accepted neighbours. */
static void
choose_src(march *m, size_t c)
{
	int i = (int)(c % (size_t)m->ni);
	int j = (int)((c / (size_t)m->ni) % (size_t)m->nj);
	int k = (int)(c / ((size_t)m->ni * m->nj));
	size_t sl = (size_t)m->ni * m->nj, nb[6];
	int32_t cand[6];
	int nn = 0, nc = 0, a, b;

	if (i > 0) nb[nn++] = c - 1;
	if (i < m->ni - 1) nb[nn++] = c + 1;
	if (j > 0) nb[nn++] = c - m->ni;
	if (j < m->nj - 1) nb[nn++] = c + m->ni;
	if (k > 0) nb[nn++] = c - sl;
	if (k < m->nk - 1) nb[nn++] = c + sl;
	for (a = 0; a < nn; a++) {
		int32_t s = m->src[nb[a]];
		if (m->state[nb[a]] != DONE || s < 0)
			continue;
		for (b = 0; b < nc && cand[b] != s; b++)
			;
		if (b == nc)
			cand[nc++] = s;
	}
	if (nc > 1)
		m->src[c] = m->choose(m->ctx, c, cand, nc);
}

int
fmm_march(int ni, int nj, int nk, double dx, float *d,
	  const uint8_t *frozen, int32_t *src, double dmax, slc_err *err)
{
	return fmm_march_choose(ni, nj, nk, dx, d, frozen, src, NULL, NULL,
				dmax, err);
}

int
fmm_march_choose(int ni, int nj, int nk, double dx, float *d,
		 const uint8_t *frozen, int32_t *src, fmm_choose_fn fn,
		 void *ctx, double dmax, slc_err *err)
{
	return fmm_march_sees(ni, nj, nk, dx, d, frozen, src, fn, ctx, NULL, NULL, dmax, err);
}

int
fmm_march_sees(int ni, int nj, int nk, double dx, float *d,
	       const uint8_t *frozen, int32_t *src, fmm_choose_fn fn,
	       void *ctx, fmm_sees_fn sees, void *sctx, double dmax, slc_err *err)
{
	march m = { 0 };
	size_t n, c, nfrozen = 0;

	if (ni < 1 || nj < 1 || nk < 1 ||
	    slc_mul3((size_t)ni, (size_t)nj, (size_t)nk, &n))
		return slc_fail(err, "fast marching: bad grid %dx%dx%d", ni, nj, nk);
	if (n >= UINT32_MAX)
		return slc_fail(err, "fast marching: grid %dx%dx%d too large",
				ni, nj, nk);
	if (!(dx > 0))
		return slc_fail(err, "fast marching: bad dx %g", dx);
	m.ni = ni, m.nj = nj, m.nk = nk, m.dx = dx, m.d = d, m.src = src;
	m.choose = src ? fn : NULL;
	m.ctx = ctx;
	m.sees = sees;
	m.sctx = sctx;
	m.state = slc_calloc(n, 1, err);
	m.heap = slc_calloc(n, sizeof *m.heap, err);
	m.pos = slc_calloc(n, sizeof *m.pos, err);
	if (!m.state || !m.heap || !m.pos)
		goto fail;
	for (c = 0; c < n; c++)
		if (frozen[c]) {
			m.state[c] = DONE;
			nfrozen++;
		}
	if (!nfrozen) {
		slc_fail(err, "fast marching: no known sample to start from");
		goto fail;
	}
	for (c = 0; c < n; c++)
		if (m.state[c] == DONE)
			update_neighbours(&m, c);
	while (m.n) {
		uint32_t top = m.heap[0].c;
		if (m.d[top] > dmax)
			break;
		m.n--;
		if (m.n) {
			heap_set(&m, 0, m.heap[m.n]);
			sift_down(&m, 0);
		}
		m.state[top] = DONE;
		if (m.choose)
			choose_src(&m, top);
		update_neighbours(&m, top);
	}
	for (c = 0; c < n; c++)
		if (m.state[c] != DONE) {
			d[c] = (float)dmax;
			if (src && m.state[c] == FAR)
				src[c] = -1;
		}
	free(m.state);
	free(m.heap);
	free(m.pos);
	return 0;
fail:
	free(m.state);
	free(m.heap);
	free(m.pos);
	return -1;
}
