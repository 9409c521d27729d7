/* mcubes.c: marching cubes over blocks: block skipping, parallel k-slabs,
 * a deterministic weld and gradient normals (see mcubes.h); the case table
 * is lib/liquid/mcubes_table.c, whose corner and edge numbering this file uses.
 */
#include "liquid/mcubes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "liquid/mcubes_table.h"

#define MC_L (MC_BLOCK + 1)         /* samples per block edge */

/* --- sampling with the reflected continuation ------------------------ */

/* phi - iso at sample (i, j, k), which may lie one layer outside the grid
 * (reflected about iso there: |phi - iso| of the nearest sample). */
static inline float
val(const field *f, float iso, int i, int j, int k)
{
	int ci = i < 0 ? 0 : i >= f->ni ? f->ni - 1 : i;
	int cj = j < 0 ? 0 : j >= f->nj ? f->nj - 1 : j;
	int ck = k < 0 ? 0 : k >= f->nk ? f->nk - 1 : k;
	float v = f->a[FIELD_IDX(f, ci, cj, ck)] - iso;

	return (ci != i || cj != j || ck != k) ? fabsf(v) : v;
}

/* Central-difference gradient of phi at lattice sample (i, j, k) of the
 * extended lattice [-1, n] per axis, one-sided at its ends; per dx. */
static void
grad_at(const field *f, float iso, int i, int j, int k, double g[3])
{
	int p[3] = { i, j, k }, n[3] = { f->ni, f->nj, f->nk }, a;

	for (a = 0; a < 3; a++) {
		int lo[3] = { i, j, k }, hi[3] = { i, j, k };

		lo[a] = p[a] > -1 ? p[a] - 1 : p[a];
		hi[a] = p[a] < n[a] ? p[a] + 1 : p[a];
		g[a] = hi[a] == lo[a] ? 0 :
		       ((double)val(f, iso, hi[0], hi[1], hi[2]) -
			val(f, iso, lo[0], lo[1], lo[2])) / (hi[a] - lo[a]);
	}
}

static void
normalize_or(double g[3], int d, int up, float out[3])
{
	double l = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]), inv = 1 / l;
	int a;

	for (a = 0; a < 3; a++)
		out[a] = l > 0 ? (float)(g[a] * inv) : (float)(a == d ? (up ? 1 : -1) : 0);
}

/* --- meshing one slab of blocks -------------------------------------- */

typedef struct mc_vert {
	float p[3], n[3];
	uint64_t key;       /* 3 * (extended lattice index of lower sample) + d */
	uint32_t id;        /* final index, set by the merge */
	uint8_t bnd;        /* on a block face: may be shared with another block */
} mc_vert;

typedef struct mc_slab {
	mc_vert *v;
	uint32_t *t;
	size_t nv, cv, nt, ct;
	int fail;
} mc_slab;

typedef struct mc_ctx {
	const mc_table *tab;
	const field *f;
	float iso;
	int n[3];           /* extended lattice samples per axis: grid + 2 */
	int nb[3];          /* blocks per axis */
	double off[3];      /* field_offset */
} mc_ctx;

static int
slab_push_vert(mc_slab *s, const mc_vert *v)
{
	if (s->nv == s->cv) {
		size_t c = s->cv ? 2 * s->cv : 1024;
		mc_vert *p = realloc(s->v, c * sizeof *p);

		if (!p || s->nv >= UINT32_MAX)
			return -1;
		s->v = p;
		s->cv = c;
	}
	s->v[s->nv++] = *v;
	return 0;
}

static int
slab_push_tri(mc_slab *s, uint32_t a, uint32_t b, uint32_t c)
{
	if (s->nt + 3 > s->ct) {
		size_t cap = s->ct ? 2 * s->ct : 3072;
		uint32_t *p = realloc(s->t, cap * sizeof *p);

		if (!p)
			return -1;
		s->t = p;
		s->ct = cap;
	}
	s->t[s->nt++] = a;
	s->t[s->nt++] = b;
	s->t[s->nt++] = c;
	return 0;
}

/* Does the block of (bs+1)^3 samples from extended lattice sample o
 * straddle iso?  One pass over the values, vectorized where the block
 * lies inside the grid; nothing is copied. */
static int
straddles(const mc_ctx *c, const int o[3], const int bs[3])
{
	const field *f = c->f;
	const float iso = c->iso;
	int lj, lk, li, any = 0, all = 1;
	/* extended lattice index p is grid sample p - 1 */
	int interior = o[0] >= 1 && o[0] + bs[0] <= f->ni &&
		       o[1] >= 1 && o[1] + bs[1] <= f->nj &&
		       o[2] >= 1 && o[2] + bs[2] <= f->nk;

	if (interior && bs[0] == MC_BLOCK) {
		/* the common case: element-wise flags over rows of a fixed
		 * length (whole vectors), reduced once per block */
		int32_t anyv[MC_BLOCK] = { 0 }, allv[MC_BLOCK];

		for (li = 0; li < MC_BLOCK; li++)
			allv[li] = -1;
		for (lk = 0; lk <= bs[2]; lk++)
			for (lj = 0; lj <= bs[1]; lj++) {
				const float *src = f->a + FIELD_IDX(f, o[0] - 1, o[1] + lj - 1,
								    o[2] + lk - 1);
				int in = src[MC_BLOCK] < iso;

				for (li = 0; li < MC_BLOCK; li++) {
					int32_t m = -(int32_t)(src[li] < iso);

					anyv[li] |= m;
					allv[li] &= m;
				}
				any |= in;
				all &= in;
			}
		for (li = 0; li < MC_BLOCK; li++) {
			any |= anyv[li] & 1;
			all &= allv[li] & 1;
		}
		return any && !all;
	}
	/* at the edge of the grid: samples of the continuation are never
	 * inside (|phi - iso| >= 0), so only the grid's own samples can be */
	if (!interior)
		all = 0;
	for (lk = 0; lk <= bs[2]; lk++)
		for (lj = 0; lj <= bs[1]; lj++) {
			int J = o[1] + lj - 1, K = o[2] + lk - 1;
			int i0 = o[0] - 1, i1 = o[0] + bs[0] - 1;
			const float *src;

			if (J < 0 || J >= f->nj || K < 0 || K >= f->nk)
				continue;
			i0 = i0 < 0 ? 0 : i0;
			i1 = i1 > f->ni - 1 ? f->ni - 1 : i1;
			src = f->a + FIELD_IDX(f, 0, J, K);
#pragma omp simd reduction(|:any) reduction(&:all)
			for (li = i0; li <= i1; li++) {
				int in = src[li] < iso;

				any |= in;
				all &= in;
			}
			if (any && !all)
				return 1;
		}
	return any && !all;
}

/* Block buffers hold the block's samples plus one layer around them, for
 * central differences: local sample (li, lj, lk), 0..MC_BLOCK, is at
 * HALO_IDX(li, lj, lk). */
#define MC_H (MC_BLOCK + 3)
#define HALO_IDX(i, j, k) ((i) + 1 + MC_H * ((j) + 1 + MC_H * ((k) + 1)))

/* Gather phi - iso of a block and its halo into b.  Halo samples beyond
 * the extended lattice repeat its last sample (so that the differences
 * there are one-sided, as in grad_at). */
static void
gather(const mc_ctx *c, const int o[3], const int bs[3], float *b)
{
	const field *f = c->f;
	const float iso = c->iso;
	int li, lj, lk;

	for (lk = -1; lk <= bs[2] + 1; lk++)
		for (lj = -1; lj <= bs[1] + 1; lj++) {
			float *row = b + HALO_IDX(0, lj, lk);
			int q[3];

			q[1] = o[1] + lj - 1;
			q[2] = o[2] + lk - 1;
			q[1] = q[1] < -1 ? -1 : q[1] > f->nj ? f->nj : q[1];
			q[2] = q[2] < -1 ? -1 : q[2] > f->nk ? f->nk : q[2];
			if (q[1] >= 0 && q[1] < f->nj && q[2] >= 0 && q[2] < f->nk &&
			    o[0] - 2 >= 0 && o[0] + bs[0] < f->ni) {
				const float *src = f->a + FIELD_IDX(f, o[0] - 1, q[1], q[2]);

				for (li = -1; li <= bs[0] + 1; li++)
					row[li] = src[li] - iso;
				continue;
			}
			for (li = -1; li <= bs[0] + 1; li++) {
				q[0] = o[0] + li - 1;
				q[0] = q[0] < -1 ? -1 : q[0] > f->ni ? f->ni : q[0];
				row[li] = val(f, iso, q[0], q[1], q[2]);
			}
		}
}

/* Gradient (per dx) at local sample n of the block buffer, whose extended
 * lattice position is p: central differences, one-sided at the ends of
 * the extended lattice, as grad_at. */
static inline void
local_grad(const mc_ctx *c, const float *b, int n, const int p[3], double g[3])
{
	static const int step[3] = { 1, MC_H, MC_H * MC_H };
	int a;

	for (a = 0; a < 3; a++) {
		/* p runs over 0 .. c->n[a] - 1 (grid samples -1 .. n) */
		int one = (p[a] == 0) || (p[a] == c->n[a] - 1);

		g[a] = ((double)b[n + step[a]] - b[n - step[a]]) * (one ? 1.0 : 0.5);
	}
}

static void
mesh_block(const mc_ctx *c, const int o[3], const int bs[3], const float *b,
	   int32_t *map, mc_slab *s)
{
	static const int LL = MC_L * MC_L;
	const mc_table *tab = c->tab;
	uint8_t inside[MC_L * MC_L * MC_L];
	int coff[8], hoff[8], li, lj, lk, q;
	const int hstep[3] = { 1, MC_H, MC_H * MC_H };

	for (q = 0; q < 8; q++) {
		coff[q] = (q & 1) + MC_L * ((q >> 1) & 1) + LL * (q >> 2);
		hoff[q] = HALO_IDX(q & 1, (q >> 1) & 1, q >> 2) - HALO_IDX(0, 0, 0);
	}
	for (lk = 0; lk < MC_L; lk++)
		for (lj = 0; lj < MC_L; lj++)
			for (li = 0; li < MC_L; li++)
				inside[li + MC_L * (lj + MC_L * lk)] =
					li <= bs[0] && lj <= bs[1] && lk <= bs[2] &&
					b[HALO_IDX(li, lj, lk)] < 0;
	memset(map, 0xff, sizeof(int32_t) * 3 * MC_L * LL);
	for (lk = 0; lk < bs[2]; lk++)
		for (lj = 0; lj < bs[1]; lj++)
			for (li = 0; li < bs[0]; li++) {
				int n0 = li + MC_L * (lj + MC_L * lk), h0 = HALO_IDX(li, lj, lk);
				int cs = 0, e;
				uint32_t vid[12];
				unsigned em;

				for (q = 0; q < 8; q++)
					cs |= inside[n0 + coff[q]] << q;
				if (cs == 0 || cs == 255)
					continue;
				em = tab->edges[cs];
				for (e = 0; e < 12; e++) {
					int lo, d, nl, hl, l[3], p[3], a;
					int32_t *slot;
					mc_vert v;
					double t, g0[3], g1[3], g[3], x;
					float f0, f1;

					if (!((em >> e) & 1))
						continue;
					lo = mc_edge_lo(e);
					d = e / 4;
					nl = n0 + coff[lo];
					slot = map + 3 * nl + d;
					if (*slot >= 0) {
						vid[e] = (uint32_t)*slot;
						continue;
					}
					hl = h0 + hoff[lo];
					l[0] = li + (lo & 1);
					l[1] = lj + ((lo >> 1) & 1);
					l[2] = lk + (lo >> 2);
					f0 = b[hl];
					f1 = b[hl + hstep[d]];
					t = (double)f0 / ((double)f0 - f1);
					t = t < MC_SNAP_T ? MC_SNAP_T : t > 1 - MC_SNAP_T ? 1 - MC_SNAP_T : t;
					v.bnd = 0;
					for (a = 0; a < 3; a++) {
						p[a] = o[a] + l[a];  /* extended lattice */
						x = p[a] - 1 + c->off[a] + (a == d ? t : 0);
						v.p[a] = (float)(c->f->origin[a] + c->f->dx * x);
						if (a != d && (l[a] == 0 || l[a] == bs[a]))
							v.bnd = 1;
					}
					local_grad(c, b, hl, p, g0);
					p[d]++;
					local_grad(c, b, hl + hstep[d], p, g1);
					p[d]--;
					for (a = 0; a < 3; a++)
						g[a] = (1 - t) * g0[a] + t * g1[a];
					normalize_or(g, d, f1 > f0, v.n);
					v.key = 3 * ((uint64_t)p[0] +
						     (uint64_t)c->n[0] * ((uint64_t)p[1] +
									  (uint64_t)c->n[1] * (uint64_t)p[2])) +
						(uint64_t)d;
					if (slab_push_vert(s, &v)) {
						s->fail = 1;
						return;
					}
					*slot = (int32_t)(s->nv - 1);
					vid[e] = (uint32_t)(s->nv - 1);
				}
				for (q = 0; q < tab->ntri[cs]; q++) {
					const uint8_t *te = tab->tri[cs] + 3 * q;

					if (slab_push_tri(s, vid[te[0]], vid[te[1]], vid[te[2]])) {
						s->fail = 1;
						return;
					}
				}
			}
}

static void
mesh_slab(const mc_ctx *c, int kb, mc_slab *s)
{
	float b[MC_H * MC_H * MC_H];
	int32_t map[3 * MC_L * MC_L * MC_L];
	int ib, jb, a;

	for (jb = 0; jb < c->nb[1]; jb++)
		for (ib = 0; ib < c->nb[0]; ib++) {
			int o[3] = { ib * MC_BLOCK, jb * MC_BLOCK, kb * MC_BLOCK }, bs[3];

			/* cubes of the extended lattice: n - 1 per axis */
			for (a = 0; a < 3; a++) {
				bs[a] = c->n[a] - 1 - o[a];
				bs[a] = bs[a] > MC_BLOCK ? MC_BLOCK : bs[a];
			}
			if (!straddles(c, o, bs))
				continue;
			gather(c, o, bs, b);
			mesh_block(c, o, bs, b, map, s);
			if (s->fail)
				return;
		}
}

/* --- the weld -------------------------------------------------------- */

static uint64_t
hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

int
mc_mesh(const field *f, double iso, surf_mesh *m, slc_err *err)
{
	mc_ctx c;
	mc_slab *sl;
	size_t nb = 0, nv = 0, nt = 0, cap = 1, q;
	uint64_t *hk = NULL;
	uint32_t *hv = NULL;
	long kb;
	int a, fail = 0;

	memset(m, 0, sizeof *m);
	if (mc_table_check(err))
		return -1;
	c.tab = mc_table_get();
	if (f->ni < 1 || f->nj < 1 || f->nk < 1 || !f->a)
		return slc_fail(err, "empty grid %dx%dx%d", f->ni, f->nj, f->nk);
	c.f = f;
	c.iso = (float)iso;
	c.n[0] = f->ni + 2;
	c.n[1] = f->nj + 2;
	c.n[2] = f->nk + 2;
	for (a = 0; a < 3; a++)
		c.nb[a] = (c.n[a] - 1 + MC_BLOCK - 1) / MC_BLOCK;
	field_offset(f, c.off);
	sl = slc_calloc((size_t)c.nb[2], sizeof *sl, err);
	if (!sl)
		return -1;
#pragma omp parallel for schedule(dynamic, 1)
	for (kb = 0; kb < c.nb[2]; kb++)
		mesh_slab(&c, (int)kb, &sl[kb]);
	for (kb = 0; kb < c.nb[2]; kb++) {
		fail |= sl[kb].fail;
		nt += sl[kb].nt / 3;
		for (q = 0; q < sl[kb].nv; q++)
			nb += sl[kb].v[q].bnd;
	}
	if (fail) {
		slc_fail(err, "out of memory meshing a %dx%dx%d grid", f->ni, f->nj, f->nk);
		goto out;
	}
	/* weld: vertices on block faces may have twins in neighbouring
	 * blocks; the first in slab and block order keeps its place */
	while (cap < 2 * nb)
		cap *= 2;
	hk = calloc(cap, sizeof *hk);
	hv = calloc(cap, sizeof *hv);
	if (!hk || !hv) {
		slc_fail(err, "out of memory welding %zu vertices", nb);
		fail = 1;
		goto out;
	}
	for (kb = 0; kb < c.nb[2]; kb++)
		for (q = 0; q < sl[kb].nv; q++) {
			mc_vert *v = &sl[kb].v[q];
			size_t h;

			if (!v->bnd) {
				v->id = (uint32_t)nv++;
				continue;
			}
			for (h = hash64(v->key) & (cap - 1); hk[h]; h = (h + 1) & (cap - 1))
				if (hk[h] == v->key + 1)
					break;
			if (hk[h]) {
				v->id = hv[h];
				v->bnd = 2;     /* a twin: not stored */
			} else {
				hk[h] = v->key + 1;
				hv[h] = v->id = (uint32_t)nv++;
			}
			if (nv > UINT32_MAX) {
				slc_fail(err, "mesh has more than 2^32 vertices");
				fail = 1;
				goto out;
			}
		}
	if (surf_mesh_reserve(m, nv, nt, err)) {
		fail = 1;
		goto out;
	}
	m->nv = nv;
	m->nt = nt;
	nt = 0;
	for (kb = 0; kb < c.nb[2]; kb++) {
		const mc_slab *s = &sl[kb];

		for (q = 0; q < s->nv; q++)
			if (s->v[q].bnd != 2) {
				memcpy(m->P + 3 * (size_t)s->v[q].id, s->v[q].p, sizeof s->v[q].p);
				memcpy(m->N + 3 * (size_t)s->v[q].id, s->v[q].n, sizeof s->v[q].n);
			}
		for (q = 0; q < s->nt; q++)
			m->tri[nt + q] = s->v[s->t[q]].id;
		nt += s->nt;
	}
out:
	for (kb = 0; kb < c.nb[2]; kb++) {
		free(sl[kb].v);
		free(sl[kb].t);
	}
	free(sl);
	free(hk);
	free(hv);
	if (fail)
		surf_mesh_free(m);
	return fail ? -1 : 0;
}

void
mc_normals(const field *f, double iso, surf_mesh *m)
{
	double off[3];
	long v;

	field_offset(f, off);
#pragma omp parallel for schedule(static)
	for (v = 0; v < (long)m->nv; v++) {
		double u[3], w[3], g[3] = { 0, 0, 0 }, gc[3];
		int p[3], a, q, n[3] = { f->ni, f->nj, f->nk };

		for (a = 0; a < 3; a++) {
			u[a] = (m->P[3 * v + a] - f->origin[a]) / f->dx - off[a];
			/* stay on the extended lattice [-1, n] */
			u[a] = u[a] < -1 ? -1 : u[a] > n[a] ? n[a] : u[a];
			p[a] = (int)floor(u[a]);
			p[a] = p[a] >= n[a] ? n[a] - 1 : p[a];
			w[a] = u[a] - p[a];
		}
		for (q = 0; q < 8; q++) {
			double wt = 1;

			for (a = 0; a < 3; a++)
				wt *= ((q >> a) & 1) ? w[a] : 1 - w[a];
			if (wt == 0)
				continue;
			grad_at(f, (float)iso, p[0] + (q & 1), p[1] + ((q >> 1) & 1),
				p[2] + (q >> 2), gc);
			for (a = 0; a < 3; a++)
				g[a] += wt * gc[a];
		}
		normalize_or(g, 0, 1, m->N + 3 * v);
	}
}
