/* stiction.c: bonds between hair segments that come close (selle2008
 * thesis §7.5.2; see stiction.h). */
#include "cloth/stiction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"
#include "cloth/collide_self.h"
#include "geom/bvh_box.h"

/* The segment queries run over this fixed partition of the segments,
 * each segment writing only its own candidate slots, so the candidates do
 * not depend on the number of threads. */
#define QUERY_BLOCKS 64
/* nmax is held in bytes per segment. */
#define NMAX_MAX 255
#define NONE UINT32_MAX

/* A bond while sorting: its key (lower segment in the high half) and
 * fractions. */
typedef struct bond {
	uint64_t key;
	double s, t;
} bond;

static uint64_t
bond_key(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

static int
cmp_bond(const void *pa, const void *pb)
{
	uint64_t a = ((const bond *)pa)->key, b = ((const bond *)pb)->key;

	return (a > b) - (a < b);
}

void
stiction_free(stiction *st)
{
	free(st->seg);
	free(st->name);
	free(st->bseg);
	free(st->bfrac);
	free(st->nbond);
	free(st->cand);
	free(st->cd2);
	free(st->cm2);
	free(st->cs);
	free(st->ct);
	free(st->ncand);
	free(st->lo);
	free(st->hi);
	memset(st, 0, sizeof *st);
}

int
stiction_init(stiction *st, size_t np, size_t nseg, const uint32_t *seg,
	      const stiction_params *p, slc_err *err)
{
	size_t ncand, n3;

	memset(st, 0, sizeof *st);
	if (!(p->eps_s > 0) || !isfinite(p->eps_s))
		return slc_fail(err, "stiction: distance %g is not positive",
				p->eps_s);
	if (!(p->eps_break >= p->eps_s) || !isfinite(p->eps_break))
		return slc_fail(err, "stiction: break distance %g, expected at "
				"least %g", p->eps_break, p->eps_s);
	if (p->nmax < 1 || p->nmax > NMAX_MAX)
		return slc_fail(err, "stiction: %d bonds per segment, expected "
				"1..%d", p->nmax, NMAX_MAX);
	if (!(p->k >= 0) || !(p->xi >= 0))
		return slc_fail(err, "stiction: stiffness %g or damping %g is "
				"negative", p->k, p->xi);
	if (np >= NONE || nseg >= NONE || slc_mul(np, 3, &n3) ||
	    slc_mul(nseg, (size_t)p->nmax, &ncand) || nseg > SIZE_MAX / 6)
		return slc_fail(err, "stiction: element count overflows");
	for (size_t i = 0; i < nseg; i++) {
		if (seg[2 * i] >= np || seg[2 * i + 1] >= np)
			return slc_fail(err, "stiction: segment %zu: point out of "
					"range", i);
		if (seg[2 * i] == seg[2 * i + 1])
			return slc_fail(err, "stiction: segment %zu has one point",
					i);
	}
	st->par = *p;
	st->np = np;
	st->nseg = nseg;
	st->seg = slc_calloc(2 * nseg + 1, sizeof *st->seg, err);
	st->name = slc_calloc(np + 1, sizeof *st->name, err);
	st->bseg = slc_calloc(1, sizeof *st->bseg, err);
	st->bfrac = slc_calloc(1, sizeof *st->bfrac, err);
	st->nbond = slc_calloc(nseg + 1, 1, err);
	st->ncand = slc_calloc(nseg + 1, 1, err);
	st->cand = slc_calloc(ncand + 1, sizeof *st->cand, err);
	st->cd2 = slc_calloc(ncand + 1, sizeof *st->cd2, err);
	st->cm2 = slc_calloc(ncand + 1, sizeof *st->cm2, err);
	st->cs = slc_calloc(ncand + 1, sizeof *st->cs, err);
	st->ct = slc_calloc(ncand + 1, sizeof *st->ct, err);
	st->lo = slc_calloc(3 * nseg + 1, sizeof *st->lo, err);
	st->hi = slc_calloc(3 * nseg + 1, sizeof *st->hi, err);
	if (!st->seg || !st->name || !st->bseg || !st->bfrac || !st->nbond ||
	    !st->ncand || !st->cand || !st->cd2 || !st->cm2 || !st->cs || !st->ct ||
	    !st->lo || !st->hi) {
		stiction_free(st);
		return -1;
	}
	memcpy(st->seg, seg, 2 * nseg * sizeof *seg);
	for (size_t i = 0; i < np; i++)
		st->name[i] = NONE;
	for (size_t i = 0; i < nseg; i++) {
		if (st->name[seg[2 * i]] != NONE) {
			slc_fail(err, "stiction: point %u starts segments %u and "
				 "%zu", seg[2 * i], st->name[seg[2 * i]], i);
			stiction_free(st);
			return -1;
		}
		st->name[seg[2 * i]] = (uint32_t)i;
	}
	return 0;
}

/* The vector between the embedded points of segments a, b at fractions
 * s, t: (1-t) x_c + t x_d - (1-s) x_a - s x_b. */
static void
bond_vec(const stiction *st, uint32_t a, uint32_t b, double s, double t,
	 const double *x, double r[3])
{
	const double *xa = x + 3 * st->seg[2 * a], *xb = x + 3 * st->seg[2 * a + 1];
	const double *xc = x + 3 * st->seg[2 * b], *xd = x + 3 * st->seg[2 * b + 1];

	for (int k = 0; k < 3; k++)
		r[k] = (1 - t) * xc[k] + t * xd[k] - (1 - s) * xa[k] - s * xb[k];
}

size_t
stiction_break(stiction *st, const double *x)
{
	size_t kept = 0, nb = st->nb;
	const double lim2 = st->par.eps_break * st->par.eps_break;

	for (size_t b = 0; b < nb; b++) {
		uint32_t a = st->bseg[2 * b], c = st->bseg[2 * b + 1];
		double r[3];
		bond_vec(st, a, c, st->bfrac[2 * b], st->bfrac[2 * b + 1], x, r);
		if (v3dot(r, r) > lim2) {
			st->nbond[a]--;
			st->nbond[c]--;
			continue;
		}
		memmove(st->bseg + 2 * kept, st->bseg + 2 * b, 2 * sizeof *st->bseg);
		memmove(st->bfrac + 2 * kept, st->bfrac + 2 * b,
			2 * sizeof *st->bfrac);
		kept++;
	}
	st->nb = kept;
	st->broken += (long)(nb - kept);
	return nb - kept;
}

/* Are segments i and j bonded now?  (Bonds are sorted: binary search.) */
static int
bonded(const stiction *st, uint32_t i, uint32_t j)
{
	uint64_t key = i < j ? bond_key(i, j) : bond_key(j, i);
	size_t lo = 0, hi = st->nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = bond_key(st->bseg[2 * mid], st->bseg[2 * mid + 1]);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nb &&
		bond_key(st->bseg[2 * lo], st->bseg[2 * lo + 1]) == key;
}

typedef struct qctx {
	stiction *st;
	const double *x;
	uint32_t i;
	int cap;
} qctx;

/* Candidate j of segment q->i: into i's list of the cap closest, kept
 * ascending by distance, then by the distance between the segments'
 * midpoints, then index (the max heap of §7.5.2 as a short sorted list).
 * The midpoints settle the ties of parallel strands: side by side, a
 * segment is as close to its neighbour's segments that touch it end to
 * end as to the one beside it, and would bond the lowest. */
static void
found(void *vc, uint32_t j)
{
	qctx *q = vc;
	stiction *st = q->st;
	const uint32_t i = q->i, *si = st->seg + 2 * i, *sj = st->seg + 2 * j;

	if (j == i || si[0] == sj[0] || si[0] == sj[1] || si[1] == sj[0] ||
	    si[1] == sj[1] || bonded(st, i, j))
		return;
	double s, t, d2 = strand_seg_dist2(q->x + 3 * si[0], q->x + 3 * si[1],
					   q->x + 3 * sj[0], q->x + 3 * sj[1],
					   &s, &t);
	if (!(d2 < st->par.eps_s * st->par.eps_s))
		return;
	double m2 = 0;
	for (int k = 0; k < 3; k++) {
		double dm = 0.5 * (q->x[3 * si[0] + k] + q->x[3 * si[1] + k] -
				   q->x[3 * sj[0] + k] - q->x[3 * sj[1] + k]);
		m2 += dm * dm;
	}
	size_t base = (size_t)i * (size_t)st->par.nmax;
	uint32_t *c = st->cand + base;
	double *cd2 = st->cd2 + base, *cs = st->cs + base, *ct = st->ct + base;
	double *cm2 = st->cm2 + base;
	int n = st->ncand[i], pos = n;
	while (pos > 0 && (cd2[pos - 1] > d2 ||
			   (cd2[pos - 1] == d2 && (cm2[pos - 1] > m2 ||
			    (cm2[pos - 1] == m2 && c[pos - 1] > j)))))
		pos--;
	if (pos >= q->cap)
		return;
	if (n == q->cap)
		n--;            /* the farthest drops out */
	for (int k = n; k > pos; k--) {
		c[k] = c[k - 1];
		cd2[k] = cd2[k - 1];
		cm2[k] = cm2[k - 1];
		cs[k] = cs[k - 1];
		ct[k] = ct[k - 1];
	}
	c[pos] = j;
	cd2[pos] = d2;
	cm2[pos] = m2;
	cs[pos] = s;
	ct[pos] = t;
	st->ncand[i] = (uint8_t)(n + 1);
}

/* Is j among i's candidates? */
static int
in_list(const stiction *st, uint32_t i, uint32_t j)
{
	const uint32_t *c = st->cand + (size_t)i * (size_t)st->par.nmax;

	for (int k = 0; k < st->ncand[i]; k++)
		if (c[k] == j)
			return 1;
	return 0;
}

/* Replace the bonds by the nb sorted bonds b (keys unique). */
static int
store(stiction *st, const bond *b, size_t nb, slc_err *err)
{
	uint32_t *bseg = slc_calloc(2 * nb + 1, sizeof *bseg, err);
	double *bfrac = slc_calloc(2 * nb + 1, sizeof *bfrac, err);

	if (!bseg || !bfrac) {
		free(bseg);
		free(bfrac);
		return -1;
	}
	for (size_t k = 0; k < nb; k++) {
		bseg[2 * k] = (uint32_t)(b[k].key >> 32);
		bseg[2 * k + 1] = (uint32_t)b[k].key;
		bfrac[2 * k] = b[k].s;
		bfrac[2 * k + 1] = b[k].t;
	}
	free(st->bseg);
	free(st->bfrac);
	st->bseg = bseg;
	st->bfrac = bfrac;
	st->nb = nb;
	memset(st->nbond, 0, st->nseg);
	for (size_t k = 0; k < 2 * nb; k++)
		st->nbond[bseg[k]]++;
	return 0;
}

long
stiction_create(stiction *st, const double *x, slc_err *err)
{
	const size_t nseg = st->nseg, nmax = (size_t)st->par.nmax;
	const double r = 0.5 * st->par.eps_s;
	boxtree t;

	if (!nseg)
		return 0;
	for (size_t i = 0; i < nseg; i++) {
		const double *a = x + 3 * st->seg[2 * i], *b = x + 3 * st->seg[2 * i + 1];
		for (int k = 0; k < 3; k++) {
			st->lo[3 * i + k] = fmin(a[k], b[k]) - r;
			st->hi[3 * i + k] = fmax(a[k], b[k]) + r;
		}
	}
	if (boxtree_build(&t, nseg, st->lo, st->hi, err))
		return -1;
	memset(st->ncand, 0, nseg);
	int k0, k1;
	cloth_split_blocks(st->split, QUERY_BLOCKS, &k0, &k1);
#pragma omp parallel for schedule(dynamic) if (nseg > CLOTH_OMP_MIN)
	for (int k = k0; k < k1; k++) {
		size_t lo = nseg * (size_t)k / QUERY_BLOCKS;
		size_t hi = nseg * (size_t)(k + 1) / QUERY_BLOCKS;
		for (size_t i = lo; i < hi; i++) {
			qctx q = { st, x, (uint32_t)i, (int)nmax - st->nbond[i] };
			if (q.cap > 0)
				boxtree_query(&t, st->lo + 3 * i, st->hi + 3 * i,
					      found, &q);
		}
	}
	boxtree_free(&t);
	/* every rank's candidates (a segment's found by one rank alone) */
	cloth_split *sp = st->split;
	if (cloth_split_gather(sp, st->ncand, nseg, 1, QUERY_BLOCKS) ||
	    cloth_split_gather(sp, st->cand, nseg, nmax * sizeof *st->cand,
			       QUERY_BLOCKS) ||
	    cloth_split_gather(sp, st->cs, nseg, nmax * sizeof *st->cs,
			       QUERY_BLOCKS) ||
	    cloth_split_gather(sp, st->ct, nseg, nmax * sizeof *st->ct,
			       QUERY_BLOCKS))
		return slc_fail(err, "a gather between the ranks failed");
	/* mutual pairs, each counted from its lower segment */
	size_t nnew = 0;
	for (size_t i = 0; i < nseg; i++)
		for (int k = 0; k < st->ncand[i]; k++) {
			uint32_t j = st->cand[i * nmax + (size_t)k];
			if (j > i && in_list(st, j, (uint32_t)i))
				nnew++;
		}
	if (!nnew)
		return 0;
	bond *b = slc_calloc(st->nb + nnew, sizeof *b, err);
	if (!b)
		return -1;
	size_t n = 0;
	for (size_t k = 0; k < st->nb; k++, n++) {
		b[n].key = bond_key(st->bseg[2 * k], st->bseg[2 * k + 1]);
		b[n].s = st->bfrac[2 * k];
		b[n].t = st->bfrac[2 * k + 1];
	}
	for (size_t i = 0; i < nseg; i++)
		for (int k = 0; k < st->ncand[i]; k++) {
			size_t c = i * nmax + (size_t)k;
			uint32_t j = st->cand[c];
			if (j > i && in_list(st, j, (uint32_t)i)) {
				b[n].key = bond_key((uint32_t)i, j);
				b[n].s = st->cs[c];
				b[n].t = st->ct[c];
				n++;
			}
		}
	qsort(b, n, sizeof *b, cmp_bond);
	int fail = store(st, b, n, err);
	free(b);
	if (fail)
		return -1;
	st->made += (long)nnew;
	return (long)nnew;
}

int
stiction_springs(const stiction *st, spring_set *s, slc_err *err)
{
	uint32_t *idx = slc_calloc(4 * st->nb + 1, sizeof *idx, err);
	double *w = slc_calloc(4 * st->nb + 1, sizeof *w, err);
	int ret = -1;

	if (!idx || !w)
		goto out;
	for (size_t b = 0; b < st->nb; b++) {
		const uint32_t *sa = st->seg + 2 * st->bseg[2 * b];
		const uint32_t *sb = st->seg + 2 * st->bseg[2 * b + 1];
		double fs = st->bfrac[2 * b], ft = st->bfrac[2 * b + 1];
		idx[4 * b] = sa[0];
		idx[4 * b + 1] = sa[1];
		idx[4 * b + 2] = sb[0];
		idx[4 * b + 3] = sb[1];
		w[4 * b] = -(1 - fs);
		w[4 * b + 1] = -fs;
		w[4 * b + 2] = 1 - ft;
		w[4 * b + 3] = ft;
	}
	spring_four_list f = {
		.n = st->nb, .idx = idx, .w = w, .l0 = st->par.eps_s,
		.k = st->par.k, .L = st->par.eps_s, .xi = st->par.xi,
	};
	ret = spring_set_four(s, &f, err);
out:
	free(idx);
	free(w);
	return ret;
}

int
stiction_load(stiction *st, size_t n, const uint32_t *name,
	      const double *frac, slc_err *err)
{
	bond *b = slc_calloc(n + 1, sizeof *b, err);
	uint32_t *cnt = slc_calloc(st->nseg + 1, sizeof *cnt, err);
	int ret = -1;

	if (!b || !cnt)
		goto out;
	for (size_t k = 0; k < n; k++) {
		uint32_t p0 = name[2 * k], p1 = name[2 * k + 1], a, c;
		double s = frac[2 * k], t = frac[2 * k + 1];
		if (p0 >= st->np || p1 >= st->np || st->name[p0] == NONE ||
		    st->name[p1] == NONE) {
			slc_fail(err, "stiction: bond %zu: point %u or %u starts "
				 "no segment", k, p0, p1);
			goto out;
		}
		if (!(s >= 0 && s <= 1 && t >= 0 && t <= 1)) {
			slc_fail(err, "stiction: bond %zu: fractions %g, %g, "
				 "expected 0..1", k, s, t);
			goto out;
		}
		a = st->name[p0];
		c = st->name[p1];
		const uint32_t *sa = st->seg + 2 * a, *sc = st->seg + 2 * c;
		if (sa[0] == sc[0] || sa[0] == sc[1] || sa[1] == sc[0] ||
		    sa[1] == sc[1]) {
			slc_fail(err, "stiction: bond %zu: segments from points "
				 "%u and %u share a point", k, p0, p1);
			goto out;
		}
		if (++cnt[a] > (uint32_t)st->par.nmax ||
		    ++cnt[c] > (uint32_t)st->par.nmax) {
			slc_fail(err, "stiction: bond %zu: more than %d bonds on "
				 "a segment", k, st->par.nmax);
			goto out;
		}
		b[k].key = a < c ? bond_key(a, c) : bond_key(c, a);
		b[k].s = a < c ? s : t;
		b[k].t = a < c ? t : s;
	}
	qsort(b, n, sizeof *b, cmp_bond);
	for (size_t k = 1; k < n; k++)
		if (b[k].key == b[k - 1].key) {
			slc_fail(err, "stiction: segments from points %u and %u "
				 "bonded twice", st->seg[2 * (b[k].key >> 32)],
				 st->seg[2 * (uint32_t)b[k].key]);
			goto out;
		}
	ret = store(st, b, n, err);
out:
	free(b);
	free(cnt);
	return ret;
}

void
stiction_save(const stiction *st, uint32_t *name, double *frac)
{
	for (size_t b = 0; b < st->nb; b++) {
		name[2 * b] = st->seg[2 * st->bseg[2 * b]];
		name[2 * b + 1] = st->seg[2 * st->bseg[2 * b + 1]];
		frac[2 * b] = st->bfrac[2 * b];
		frac[2 * b + 1] = st->bfrac[2 * b + 1];
	}
}
