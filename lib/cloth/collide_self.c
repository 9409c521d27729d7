/* collide_self.c: self-repulsions and robust self-collisions of cloth and
 * hair (selle2008 thesis §6.3-6.4, §7.5.3; see collide_self.h). */
#include "cloth/collide_self.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/bvh_box.h"
#include "geom/ccd.h"
#include "cloth/cloth.h"
#include "cloth/cloth_vec.h"
#include "core/unionfind.h"

/* A collision is a coplanarity time at which the elements are closer than
 * COLL_FRAC of the repulsion thickness; after a collision the pair is
 * given a relative normal velocity that ends it at least that far apart. */
#define COLL_FRAC 0.1
/* Point/triangle repulsions act when the point projects into the triangle
 * grown by this fraction of the thickness over the triangle's size. */
#define PT_GROW 1.0
/* Edge/edge history (§6.4): flip the current direction when s0.s < EE_EPS
 * (0 aggressive, 0.9 conservative). */
#define EE_EPS 0.0
/* Elastic repulsion limited to this fraction of the interpenetration per
 * step (eq. 6.1). */
#define REP_FRAC 0.1
/* Step C: iterations in all (collision passes, then impact zones). */
#define MAX_ITERS 200
/* Box queries run in parallel over this fixed partition of the query
 * primitives, each block into its own list; the lists are joined in block
 * order, so pairs come out in the serial order whatever the number of
 * threads (thesis §8.2: work split by particles, results unchanged). */
#define QUERY_BLOCKS 64
/* Edge/edge pairs closer than this fraction of the thickness: the
 * difference of their closest points is rounding, not a direction, and
 * the direction recorded in the collision-free state is used instead
 * (about 1e4 double epsilons of the thickness). */
#define EE_DIR_REL 1e-12
/* Cyclic Jacobi eigenvalue iteration on the 3x3 inertia tensor (Golub and
 * Van Loan, Matrix Computations, §8.5): off-diagonal entries below
 * JACOBI_ZERO are zero (the same reasoning as CUBIC_COEF_ZERO in geom/ccd.c), and the
 * iteration, which converges quadratically (a 3x3 matrix takes a few
 * sweeps), is capped at JACOBI_MAX_SWEEPS sweeps. */
#define JACOBI_ZERO 1e-300
#define JACOBI_MAX_SWEEPS 50
/* Pseudo-inverse of the inertia tensor of an impact zone: eigenvalues
 * below this fraction of the largest are taken as zero (the tensor of
 * colinear or coincident points is singular; about 1e4 double epsilons,
 * above the rounding of the eigen decomposition). */
#define PINV_REL_TOL 1e-12
/* Segment/segment distance: segments whose sin^2 of the angle between
 * them (A C - B^2 over A C) is below this are parallel, and the closest
 * points are taken from an end (the determinant is then rounding: about
 * 100 double epsilons). */
#define SEG_PARALLEL 1e-14
/* Strands: four points whose coplanarity cubic has every coefficient
 * below this fraction of the cube of their extent stay in one plane (the
 * coefficients are sums of triple products of the extents; about 1e4
 * double epsilons). */
#define COPLANAR_REL 1e-12

/* A pair: its four particles, then the indices of its two elements (the
 * point and the triangle, or the two edges, lower first). */
typedef struct pairlist {
	uint32_t (*q)[6];
	size_t n, cap;
} pairlist;

struct collide_self {
	collide_self_params par;
	size_t np, ne, nt;
	const double *m;        /* np masses (borrowed) */
	const uint8_t *fixed;   /* np constraints (borrowed) */
	uint32_t *edge, *tri;   /* 2 ne, 3 nt */
	uint8_t *tip;           /* strands: np, 1 where a strand ends at the
				   tipward end of a segment */
	uint64_t *skip;         /* nskip sorted keys of skipped edge pairs */
	size_t nskip;
	long unresolved, skipped;
	double h, delta;        /* thickness, collision distance */
	double *invm;           /* np; 0 for constrained particles */
	pairlist pt, ee;        /* repulsion pairs (step A) */
	double *s0;             /* 3 per edge/edge pair */
	double *lo, *hi;        /* box scratch */
	size_t *zone;           /* union-find parents (step C) */
	double *u;              /* effective velocities (step C) */
	pairlist cand_pt, cand_ee;
	pairlist *blk;          /* QUERY_BLOCKS lists, one per query block */
	cloth_split *split;     /* the ranks' shares of the blocks, or NULL */
	/* strands' step C (resolve_strands): particles whose effective
	 * velocity changed in the pass before (dirty) and in this one
	 * (chg), edges touching a dirty particle (edirty), the edge of each
	 * box of the dirty edges' tree (dmap) */
	uint8_t *dirty, *chg, *edirty;
	uint32_t *dmap;
};

static int
push(pairlist *l, uint32_t a, uint32_t b, uint32_t c, uint32_t d,
     uint32_t e0, uint32_t e1)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 1024;
		void *q = realloc(l->q, nc * sizeof *l->q);
		if (!q)
			return -1;
		l->q = q;
		l->cap = nc;
	}
	l->q[l->n][0] = a;
	l->q[l->n][1] = b;
	l->q[l->n][2] = c;
	l->q[l->n][3] = d;
	l->q[l->n][4] = e0;
	l->q[l->n][5] = e1;
	l->n++;
	return 0;
}

collide_self *
collide_self_new_lists(size_t np, const double *m, const uint8_t *fixed,
		       size_t ne, const uint32_t *edge, size_t nt,
		       const uint32_t *tri, const collide_self_params *p,
		       slc_err *err)
{
	size_t nbox = np, n3;

	if (np > UINT32_MAX || ne > UINT32_MAX || nt > UINT32_MAX ||
	    slc_mul(np, 3, &n3) || ne > SIZE_MAX / 3 || nt > SIZE_MAX / 4) {
		slc_fail(err, "self collisions: element count overflows");
		return NULL;
	}
	for (size_t i = 0; i < 2 * ne; i++)
		if (edge[i] >= np) {
			slc_fail(err, "self collisions: edge point %u out of range",
				 edge[i]);
			return NULL;
		}
	for (size_t i = 0; i < 3 * nt; i++)
		if (tri[i] >= np) {
			slc_fail(err, "self collisions: triangle point %u out of "
				 "range", tri[i]);
			return NULL;
		}
	collide_self *s = slc_calloc(1, sizeof *s, err);
	if (!s)
		return NULL;
	s->par = *p;
	s->np = np;
	s->ne = ne;
	s->nt = nt;
	s->m = m;
	s->fixed = fixed;
	s->h = p->thickness;
	s->delta = COLL_FRAC * s->h;
	if (nt > nbox)
		nbox = nt;
	if (ne > nbox)
		nbox = ne;
	s->edge = slc_calloc(2 * ne + 1, sizeof *s->edge, err);
	s->tri = slc_calloc(3 * nt + 1, sizeof *s->tri, err);
	s->invm = slc_calloc(np + 1, sizeof *s->invm, err);
	s->lo = slc_calloc(3 * nbox + 1, sizeof *s->lo, err);
	s->hi = slc_calloc(3 * nbox + 1, sizeof *s->hi, err);
	s->zone = slc_calloc(np + 1, sizeof *s->zone, err);
	s->u = slc_calloc(n3 + 1, sizeof *s->u, err);
	s->blk = slc_calloc(QUERY_BLOCKS, sizeof *s->blk, err);
	if (p->strands)
		s->tip = slc_calloc(np + 1, 1, err);
	if (!s->edge || !s->tri || !s->invm || !s->lo || !s->hi || !s->zone ||
	    !s->u || !s->blk || (p->strands && !s->tip)) {
		collide_self_free(s);
		return NULL;
	}
	if (ne)
		memcpy(s->edge, edge, 2 * ne * sizeof *edge);
	if (nt)
		memcpy(s->tri, tri, 3 * nt * sizeof *tri);
	if (p->strands) {
		/* a tipward end that starts no segment ends its strand:
		 * 1 marks an end, 2 a start */
		for (size_t i = 0; i < ne; i++)
			s->tip[edge[2 * i + 1]] |= 1;
		for (size_t i = 0; i < ne; i++)
			s->tip[edge[2 * i]] |= 2;
		for (size_t i = 0; i < np; i++)
			s->tip[i] = s->tip[i] == 1;
	}
	return s;
}

collide_self *
collide_self_new(cloth *c, slc_err *err)
{
	collide_self_params p = {
		.thickness = c->par.thickness, .k_rep = c->par.k_rep,
		.mu_self = c->par.mu_self, .coll_iters = c->par.coll_iters,
		.zones = 1, .strands = 0,
	};

	return collide_self_new_lists(c->np, c->m, c->fixed, c->mesh.ne,
				      c->mesh.edge, c->mesh.nt, c->mesh.tri,
				      &p, err);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The key of the edge pair (e0, e1) in the skip set, lower index first. */
static uint64_t
skip_key(uint32_t e0, uint32_t e1)
{
	return e0 < e1 ? (uint64_t)e0 << 32 | e1 : (uint64_t)e1 << 32 | e0;
}

int
collide_self_skip(collide_self *s, size_t n, const uint32_t *pairs,
		  slc_err *err)
{
	uint64_t *k = NULL;

	for (size_t i = 0; i < 2 * n; i++)
		if (pairs[i] >= s->ne)
			return slc_fail(err, "self collisions: skipped edge %u "
					"out of range", pairs[i]);
	if (n && !(k = slc_calloc(n, sizeof *k, err)))
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = skip_key(pairs[2 * i], pairs[2 * i + 1]);
	if (n)
		qsort(k, n, sizeof *k, cmp_u64);
	free(s->skip);
	s->skip = k;
	s->nskip = n;
	return 0;
}

/* Is the edge pair (e0, e1) in the skip set? */
static int
skipped(const collide_self *s, uint32_t e0, uint32_t e1)
{
	uint64_t key = skip_key(e0, e1);
	size_t lo = 0, hi = s->nskip;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->skip[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nskip && s->skip[lo] == key;
}

void
collide_self_counts(const collide_self *s, long *unresolved, long *nskipped)
{
	if (unresolved)
		*unresolved = s->unresolved;
	if (nskipped)
		*nskipped = s->skipped;
}

void
collide_self_free(collide_self *s)
{
	if (!s)
		return;
	free(s->edge);
	free(s->tri);
	free(s->tip);
	free(s->skip);
	free(s->invm);
	free(s->pt.q);
	free(s->ee.q);
	free(s->s0);
	free(s->lo);
	free(s->hi);
	free(s->zone);
	free(s->u);
	free(s->cand_pt.q);
	free(s->cand_ee.q);
	free(s->dirty);
	free(s->chg);
	free(s->edirty);
	free(s->dmap);
	for (int k = 0; s->blk && k < QUERY_BLOCKS; k++)
		free(s->blk[k].q);
	free(s->blk);
	free(s);
}

void
collide_self_set_split(collide_self *s, cloth_split *sp)
{
	s->split = sp;
}

size_t
collide_self_npairs(const collide_self *s)
{
	return s->pt.n + s->ee.n;
}

static void
update_invm(collide_self *s)
{
	for (size_t i = 0; i < s->np; i++)
		s->invm[i] = s->fixed[i] ? 0 : 1 / s->m[i];
}

/* --- geometry ------------------------------------------------------ */

double
tri_point_dist2(const double p[3], const double a[3], const double b[3],
		const double c[3], double w[3])
{
	/* closest point by Voronoi regions (Ericson, Real-Time Collision
	 * Detection, §5.1.5) */
	double ab[3], ac[3], ap[3], bp[3], cp[3], q[3], d[3];
	v3sub(b, a, ab);
	v3sub(c, a, ac);
	v3sub(p, a, ap);
	double d1 = v3dot(ab, ap), d2 = v3dot(ac, ap);
	if (d1 <= 0 && d2 <= 0) {
		w[0] = 1; w[1] = w[2] = 0;
		goto done;
	}
	v3sub(p, b, bp);
	double d3 = v3dot(ab, bp), d4 = v3dot(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		w[1] = 1; w[0] = w[2] = 0;
		goto done;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		double v = d1 / (d1 - d3);
		w[0] = 1 - v; w[1] = v; w[2] = 0;
		goto done;
	}
	v3sub(p, c, cp);
	double d5 = v3dot(ab, cp), d6 = v3dot(ac, cp);
	if (d6 >= 0 && d5 <= d6) {
		w[2] = 1; w[0] = w[1] = 0;
		goto done;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		double t = d2 / (d2 - d6);
		w[0] = 1 - t; w[1] = 0; w[2] = t;
		goto done;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		w[0] = 0; w[1] = 1 - t; w[2] = t;
		goto done;
	}
	{
		double den = 1 / (va + vb + vc);
		w[1] = vb * den;
		w[2] = vc * den;
		w[0] = 1 - w[1] - w[2];
	}
done:
	for (int k = 0; k < 3; k++)
		q[k] = w[0] * a[k] + w[1] * b[k] + w[2] * c[k];
	v3sub(p, q, d);
	return v3dot(d, d);
}

static double
clamp01(double a)
{
	return a < 0 ? 0 : a > 1 ? 1 : a;
}

double
seg_seg_dist2(const double a[3], const double b[3], const double c[3],
	      const double d[3], double *s, double *t)
{
	double u[3], v[3], w[3], p[3], q[3], r[3];
	v3sub(b, a, u);
	v3sub(d, c, v);
	v3sub(a, c, w);
	double A = v3dot(u, u), B = v3dot(u, v), C = v3dot(v, v);
	double D = v3dot(u, w), E = v3dot(v, w), den = A * C - B * B;
	double sc, tc;

	if (A <= 0 && C <= 0) {
		sc = tc = 0;
	} else if (A <= 0) {
		sc = 0;
		tc = clamp01(E / C);
	} else if (C <= 0) {
		tc = 0;
		sc = clamp01(-D / A);
	} else {
		sc = den > SEG_PARALLEL * A * C ? clamp01((B * E - C * D) / den) : 0;
		tc = (B * sc + E) / C;
		if (tc < 0) {
			tc = 0;
			sc = clamp01(-D / A);
		} else if (tc > 1) {
			tc = 1;
			sc = clamp01((B - D) / A);
		}
	}
	for (int k = 0; k < 3; k++) {
		p[k] = a[k] + sc * u[k];
		q[k] = c[k] + tc * v[k];
	}
	v3sub(q, p, r);
	*s = sc;
	*t = tc;
	return v3dot(r, r);
}

/* Strands (§7.5.3): seg_seg_dist2, except that of two parallel segments
 * the closest points are at the middle of their overlap, not at an end of
 * one of them: strands lying side by side are parallel, and a pair
 * reduced to an end would push on one particle only. */
double
strand_seg_dist2(const double a[3], const double b[3], const double c[3],
		 const double d[3], double *s, double *t)
{
	double u[3], v[3], ac[3], ad[3];
	v3sub(b, a, u);
	v3sub(d, c, v);
	double A = v3dot(u, u), B = v3dot(u, v), C = v3dot(v, v);

	if (A > 0 && C > 0 && !(A * C - B * B > SEG_PARALLEL * A * C)) {
		v3sub(c, a, ac);
		v3sub(d, a, ad);
		double sc = v3dot(ac, u) / A, sd = v3dot(ad, u) / A;
		double lo = fmax(0, fmin(sc, sd)), hi = fmin(1, fmax(sc, sd));
		if (lo <= hi) {
			double p[3], cp[3], r[3];
			*s = 0.5 * (lo + hi);
			for (int k = 0; k < 3; k++)
				p[k] = a[k] + *s * u[k];
			v3sub(p, c, cp);
			*t = clamp01(v3dot(cp, v) / C);
			for (int k = 0; k < 3; k++)
				r[k] = c[k] + *t * v[k] - p[k];
			return v3dot(r, r);
		}
	}
	return seg_seg_dist2(a, b, c, d, s, t);
}

/* The closest points of two edges as the mode asks. */
static double
ee_dist2(const collide_self *cs, const double a[3], const double b[3],
	 const double c[3], const double d[3], double *s, double *t)
{
	return cs->par.strands ? strand_seg_dist2(a, b, c, d, s, t) :
		seg_seg_dist2(a, b, c, d, s, t);
}

/* --- a four-point interaction -------------------------------------- */

/* Strands: a pair whose contact only a lever can answer is left alone.
 * An impulse that changes the contact's relative velocity by dv changes
 * free particle i's by |alpha_i| dv / (m_i sum_j alpha_j^2 / m_j); where
 * the contact is near the pinned end of a root segment and the other
 * segment is pinned too, that is dv / s for a contact at s along the
 * segment, without bound as s -> 0: the free end flew off, stretching the
 * strand far past its strain limit and sweeping boxes over whole heads of
 * hair.  Roots are prescribed, and §7.5.3 leaves what a step cannot
 * resolve; a pair is answered only where no particle moves by more than
 * LEVER_MAX times the contact (a free segment never exceeds 1). */
#define LEVER_MAX 2.0

static int
lever(const collide_self *s, const uint32_t id[4], const double al[4])
{
	double M = 0, amax = 0;

	if (!s->par.strands)
		return 0;
	for (int i = 0; i < 4; i++) {
		double w = s->invm[id[i]];
		M += al[i] * al[i] * w;
		if (fabs(al[i]) * w > amax)
			amax = fabs(al[i]) * w;
	}
	return amax > LEVER_MAX * M;
}

/* Weights alpha on particles id[4] (sum zero) and unit normal n: change
 * the relative normal velocity sum alpha_i v_i . n by dv with an impulse
 * split by inverse mass.  Returns the impulse per unit mass term. */
static double
impulse(collide_self *s, const uint32_t id[4], const double al[4],
	const double n[3], double dv, double *v)
{
	double M = 0;
	for (int i = 0; i < 4; i++)
		M += al[i] * al[i] * s->invm[id[i]];
	if (!(M > 0))
		return 0;
	double J = dv / M;
	for (int i = 0; i < 4; i++)
		v3axpy(al[i] * J * s->invm[id[i]], n, v + 3 * id[i]);
	return J;
}

static double
rel(const uint32_t id[4], const double al[4], const double *v,
    double r[3])
{
	r[0] = r[1] = r[2] = 0;
	for (int i = 0; i < 4; i++)
		v3axpy(al[i], v + 3 * id[i], r);
	return 0;
}

/* Geometry of a point/triangle repulsion pair q = (p, a, b, c) at x:
 * weights, normal toward the recorded side of p, signed distance. 0 if
 * the pair does not interact now. */
static int
pt_geom(collide_self *s, const uint32_t q[4], const double *x, double al[4],
	double n[3], double *dn)
{
	const double *p = x + 3 * q[0], *a = x + 3 * q[1], *b = x + 3 * q[2],
		*c = x + 3 * q[3];
	double e1[3], e2[3], w[3], cr[3];

	v3sub(b, a, e1);
	v3sub(c, a, e2);
	v3cross(e1, e2, cr);
	double area2 = v3norm(cr);
	if (!(area2 > 0))
		return 0;
	for (int k = 0; k < 3; k++)
		n[k] = cr[k] / area2;
	double d2 = tri_point_dist2(p, a, b, c, w);
	(void)d2;
	/* unclamped projection must fall in the triangle grown by h */
	double ap[3], d00 = v3dot(e1, e1), d01 = v3dot(e1, e2), d11 = v3dot(e2, e2);
	v3sub(p, a, ap);
	double d20 = v3dot(ap, e1), d21 = v3dot(ap, e2), den = d00 * d11 - d01 * d01;
	double wb = (d11 * d20 - d01 * d21) / den, wc = (d00 * d21 - d01 * d20) / den;
	double wa = 1 - wb - wc, L = sqrt(area2), tol = PT_GROW * s->h / L;
	if (wa < -tol || wb < -tol || wc < -tol)
		return 0;
	*dn = v3dot(ap, n);
	if (*dn > s->h)
		return 0;
	al[0] = 1;
	al[1] = -w[0];
	al[2] = -w[1];
	al[3] = -w[2];
	return 1;
}

/* Edge/edge pair q = (a, b, c, d), recorded direction s0. */
static int
ee_geom(collide_self *s, const uint32_t q[4], const double *s0,
	const double *x, double al[4], double n[3], double *dn)
{
	const double *a = x + 3 * q[0], *b = x + 3 * q[1], *c = x + 3 * q[2],
		*d = x + 3 * q[3];
	double sp, tp, r[3];
	double d2 = ee_dist2(s, a, b, c, d, &sp, &tp);

	if (d2 > s->h * s->h)
		return 0;
	if (s->par.strands) {
		/* a segment answers for its rootward end, and for its tipward
		 * end where the strand ends: every point once */
		if ((sp >= 1 && !s->tip[q[1]]) || (tp >= 1 && !s->tip[q[3]]))
			return 0;
	} else if (sp <= 0 || sp >= 1 || tp <= 0 || tp >= 1) {
		return 0;
	}
	for (int k = 0; k < 3; k++)
		r[k] = c[k] + tp * (d[k] - c[k]) - a[k] - sp * (b[k] - a[k]);
	double len = sqrt(d2);
	if (len > EE_DIR_REL * s->h) {
		for (int k = 0; k < 3; k++)
			n[k] = r[k] / len;
	} else {
		memcpy(n, s0, 3 * sizeof *n);
	}
	*dn = len;
	/* §6.4: compare with the direction in the collision-free state */
	if (v3dot(n, s0) < EE_EPS) {
		v3scale(-1, n);
		*dn = -len;
	}
	al[0] = -(1 - sp);
	al[1] = -sp;
	al[2] = 1 - tp;
	al[3] = tp;
	return 1;
}

/* --- step A -------------------------------------------------------- */

typedef struct qctx {
	collide_self *s;
	pairlist *out;
	uint32_t prim;
	int fail;
} qctx;

static void
pt_found(void *vc, uint32_t t)
{
	qctx *q = vc;
	const uint32_t *tri = q->s->tri + 3 * t;
	if (tri[0] == q->prim || tri[1] == q->prim || tri[2] == q->prim)
		return;
	if (push(q->out, q->prim, tri[0], tri[1], tri[2], q->prim, t))
		q->fail = 1;
}

static void
ee_found(void *vc, uint32_t e)
{
	qctx *q = vc;
	const uint32_t *E = q->s->edge;
	uint32_t a = E[2 * q->prim], b = E[2 * q->prim + 1];
	uint32_t c = E[2 * e], d = E[2 * e + 1];
	if (e <= q->prim || a == c || a == d || b == c || b == d)
		return;
	if (push(q->out, a, b, c, d, q->prim, e))
		q->fail = 1;
}

static void
grow(double *lo, double *hi, const double *p, double r)
{
	for (int k = 0; k < 3; k++) {
		if (p[k] - r < lo[k])
			lo[k] = p[k] - r;
		if (p[k] + r > hi[k])
			hi[k] = p[k] + r;
	}
}

/* Boxes of the triangles, edges or points (kind 3, 2, 1) swept from x0
 * to x1, grown by r. */
static void
boxes(collide_self *s, int kind, const double *x0, const double *x1, double r)
{
	size_t n = kind == 3 ? s->nt : kind == 2 ? s->ne : s->np;
	for (size_t i = 0; i < n; i++) {
		double *lo = s->lo + 3 * i, *hi = s->hi + 3 * i;
		uint32_t v[3];
		int nv = kind;
		if (kind == 3)
			memcpy(v, s->tri + 3 * i, sizeof v);
		else if (kind == 2)
			memcpy(v, s->edge + 2 * i, 2 * sizeof *v);
		else
			v[0] = (uint32_t)i;
		for (int k = 0; k < 3; k++) {
			lo[k] = 1e300;
			hi[k] = -1e300;
		}
		for (int j = 0; j < nv; j++) {
			grow(lo, hi, x0 + 3 * v[j], r);
			grow(lo, hi, x1 + 3 * v[j], r);
		}
	}
}

/* Query t with the n boxes in s->lo, s->hi (fn adds the pairs of query
 * primitive q.prim), appending the pairs to out in the order of a serial
 * loop over the queries.  0 / -1 (out of memory). */
static int share_blocks(collide_self *s, int fail);

static int
query_all(collide_self *s, const boxtree *t, size_t n,
	  void (*fn)(void *, uint32_t), pairlist *out)
{
	int fail = 0, k0, k1;

	cloth_split_blocks(s->split, QUERY_BLOCKS, &k0, &k1);
#pragma omp parallel for schedule(dynamic) reduction(|:fail) if (n > CLOTH_OMP_MIN)
	for (int k = k0; k < k1; k++) {
		qctx q = { s, s->blk + k, 0, 0 };
		size_t lo = n * (size_t)k / QUERY_BLOCKS;
		size_t hi = n * (size_t)(k + 1) / QUERY_BLOCKS;
		s->blk[k].n = 0;
		for (size_t i = lo; i < hi; i++) {
			q.prim = (uint32_t)i;
			boxtree_query(t, s->lo + 3 * i, s->hi + 3 * i, fn, &q);
		}
		fail |= q.fail;
	}
	if (share_blocks(s, fail))
		return -1;
	size_t need = out->n;
	for (int k = 0; k < QUERY_BLOCKS; k++)
		need += s->blk[k].n;
	if (need > out->cap) {
		void *q = realloc(out->q, need * sizeof *out->q);
		if (!q)
			return -1;
		out->q = q;
		out->cap = need;
	}
	for (int k = 0; k < QUERY_BLOCKS; k++) {
		if (!s->blk[k].n)
			continue;
		memcpy(out->q + out->n, s->blk[k].q, s->blk[k].n * sizeof *out->q);
		out->n += s->blk[k].n;
	}
	return 0;
}

/* The pairs of every rank's query blocks into s->blk on every rank
 * (cloth_split.h): the counts, then the pairs in block order.  fail:
 * this rank's queries ran out of memory, which every rank is told.
 * 0 / -1. */
static int
share_blocks(collide_self *s, int fail)
{
	cloth_split *sp = s->split;
	uint64_t cnt[QUERY_BLOCKS];
	size_t end[CLOTH_SPLIT_MAX], tot = 0;
	uint32_t (*buf)[6];
	int k, k0, k1, q;

	if (!sp || sp->size == 1)
		return fail ? -1 : 0;
	cloth_split_blocks(sp, QUERY_BLOCKS, &k0, &k1);
	for (k = k0; k < k1; k++)
		cnt[k] = fail ? UINT64_MAX : s->blk[k].n;
	if (cloth_split_gather(sp, cnt, QUERY_BLOCKS, sizeof *cnt, QUERY_BLOCKS))
		return -1;
	for (q = 0, k = 0; q < sp->size; q++) {
		int b1 = (int)((long long)QUERY_BLOCKS * (q + 1) / sp->size);
		for (; k < b1; k++) {
			if (cnt[k] == UINT64_MAX)
				return -1;
			tot += (size_t)cnt[k];
		}
		end[q] = tot;
	}
	/* out of memory here: this rank's error ends the run (an MPI
	 * build aborts every rank when one exits) */
	if (!(buf = malloc((tot ? tot : 1) * sizeof *buf)))
		return -1;
	for (k = 0, tot = 0; k < QUERY_BLOCKS; tot += (size_t)cnt[k++])
		if (k >= k0 && k < k1 && cnt[k])
			memcpy(buf + tot, s->blk[k].q, (size_t)cnt[k] * sizeof *buf);
	if (cloth_split_gather_parts(sp, buf, end, sizeof *buf)) {
		free(buf);
		return -1;
	}
	for (k = 0, tot = 0; k < QUERY_BLOCKS; tot += (size_t)cnt[k++]) {
		pairlist *l = s->blk + k;
		if (k >= k0 && k < k1)
			continue;
		if (cnt[k] > l->cap) {
			void *nq = realloc(l->q, (size_t)cnt[k] * sizeof *l->q);
			if (!nq) {
				free(buf);
				return -1;
			}
			l->q = nq;
			l->cap = (size_t)cnt[k];
		}
		l->n = (size_t)cnt[k];
		if (l->n)
			memcpy(l->q, buf + tot, l->n * sizeof *buf);
	}
	free(buf);
	return 0;
}

/* Candidate pairs of elements whose boxes swept x0 -> x1 and grown by r
 * overlap: point/triangle into pt, edge/edge into ee. */
static int
candidates(collide_self *s, const double *x0, const double *x1, double r,
	   pairlist *pt, pairlist *ee, slc_err *err)
{
	boxtree t;
	int fail;

	pt->n = ee->n = 0;
	if (s->nt) {
		boxes(s, 3, x0, x1, r);
		if (boxtree_build(&t, s->nt, s->lo, s->hi, err))
			return -1;
		boxes(s, 1, x0, x1, 0);
		fail = query_all(s, &t, s->np, pt_found, pt);
		boxtree_free(&t);
		if (fail)
			return slc_fail(err, "out of memory for collision pairs");
	}
	if (!s->ne)
		return 0;
	boxes(s, 2, x0, x1, 0.5 * r);
	if (boxtree_build(&t, s->ne, s->lo, s->hi, err))
		return -1;
	fail = query_all(s, &t, s->ne, ee_found, ee);
	boxtree_free(&t);
	if (fail)
		return slc_fail(err, "out of memory for collision pairs");
	return 0;
}

int
collide_self_pairs(collide_self *s, const double *x, const double *v,
		   double span, slc_err *err)
{
	const size_t np = s->np;
	double *x1 = s->u;

	update_invm(s);
	for (size_t k = 0; k < 3 * np; k++)
		x1[k] = x[k] + span * v[k];
	if (candidates(s, x, x1, s->h, &s->pt, &s->ee, err))
		return -1;
	/* §6.4: orient each point/triangle pair so that the normal points
	 * to the point now (collision free) */
	for (size_t i = 0; i < s->pt.n; i++) {
		uint32_t *q = s->pt.q[i];
		double e1[3], e2[3], cr[3], ap[3];
		v3sub(x + 3 * q[2], x + 3 * q[1], e1);
		v3sub(x + 3 * q[3], x + 3 * q[1], e2);
		v3sub(x + 3 * q[0], x + 3 * q[1], ap);
		v3cross(e1, e2, cr);
		if (v3dot(cr, ap) < 0) {
			uint32_t tmp = q[2];
			q[2] = q[3];
			q[3] = tmp;
		}
	}
	/* and store the shortest direction of each edge/edge pair */
	free(s->s0);
	s->s0 = slc_calloc(3 * s->ee.n + 1, sizeof *s->s0, err);
	if (!s->s0)
		return -1;
	for (size_t i = 0; i < s->ee.n; i++) {
		const uint32_t *q = s->ee.q[i];
		const double *a = x + 3 * q[0], *b = x + 3 * q[1],
			*c = x + 3 * q[2], *d = x + 3 * q[3];
		double sp, tp, r[3], *s0 = s->s0 + 3 * i;
		ee_dist2(s, a, b, c, d, &sp, &tp);
		for (int k = 0; k < 3; k++)
			r[k] = c[k] + tp * (d[k] - c[k]) - a[k] - sp * (b[k] - a[k]);
		double l = v3norm(r);
		if (l > 0) {
			for (int k = 0; k < 3; k++)
				s0[k] = r[k] / l;
		} else {
			double u[3], w[3];
			v3sub(b, a, u);
			v3sub(d, c, w);
			v3cross(u, w, s0);
			l = v3norm(s0);
			if (l > 0)
				v3scale(1 / l, s0);
		}
	}
	return 0;
}

/* --- steps B.2 and B.8 --------------------------------------------- */

/* One repulsion on a pair with weights al, normal n, signed distance dn
 * (eq. 6.1, 6.2). */
static void
repulse_one(collide_self *s, const uint32_t id[4], const double al[4],
	    const double n[3], double dn, double *v, double dt, int elastic)
{
	double r[3], M = 0;
	for (int i = 0; i < 4; i++)
		M += al[i] * al[i] * s->invm[id[i]];
	if (!(M > 0) || lever(s, id, al))
		return;
	rel(id, al, v, r);
	double vN = v3dot(r, n), dvN = 0;
	/* inelastic: stop the approach */
	if (vN < 0) {
		impulse(s, id, al, n, -vN, v);
		dvN = -vN;
		vN = 0;
	}
	if (elastic) {
		double d = s->h - dn;
		if (d > 0) {
			double meff = 1 / M;
			double I = fmin(dt * s->par.k_rep * d,
					meff * (REP_FRAC * d / dt - vN));
			if (I > 0)
				impulse(s, id, al, n, I * M, v);
		}
		return;
	}
	/* friction from the normal change (§6.4, [15]) */
	if (dvN > 0 && s->par.mu_self > 0) {
		rel(id, al, v, r);
		double vt[3];
		vN = v3dot(r, n);
		for (int k = 0; k < 3; k++)
			vt[k] = r[k] - vN * n[k];
		double lt = v3norm(vt);
		if (lt > 0) {
			double f = fmin(1, s->par.mu_self * dvN / lt);
			double J = f * lt / M;
			for (int i = 0; i < 4; i++)
				v3axpy(-al[i] * J * s->invm[id[i]] / lt, vt,
				       v + 3 * id[i]);
		}
	}
}

void
collide_self_repulse(collide_self *s, const double *x, double *v, double dt,
		     int elastic)
{
	double al[4], n[3], dn;

	/* Gauss-Seidel, point/triangle pairs first (§6.4) */
	for (size_t i = 0; i < s->pt.n; i++)
		if (pt_geom(s, s->pt.q[i], x, al, n, &dn))
			repulse_one(s, s->pt.q[i], al, n, dn, v, dt, elastic);
	for (size_t i = 0; i < s->ee.n; i++)
		if (ee_geom(s, s->ee.q[i], s->s0 + 3 * i, x, al, n, &dn))
			repulse_one(s, s->ee.q[i], al, n, dn, v, dt, elastic);
}

/* --- step C -------------------------------------------------------- */

static uint32_t
zfind(size_t *z, uint32_t i)
{
	return (uint32_t)slc_uf_find(z, i);
}

/* Strands: two segments that stay in one plane (parallel strands moving
 * alike: the coplanarity cubic vanishes everywhere, so its roots say
 * nothing) collide when the vector between their closest points turns
 * round between the start and the end of the step, i.e. one passed
 * through the other within their overlap.  Weights and normal from the
 * start. */
static int
strand_coplanar(const double *const xs[4],
		const double *const ds[4], double al[4], double n[3])
{
	double c[4], ext = 0, p[4][3], r0[3], r1[3], sp, tp, s1, t1;

	ccd_coplanar_cubic(xs, ds, c);
	for (int i = 1; i < 4; i++)
		for (int k = 0; k < 3; k++)
			ext = fmax(ext, fabs(xs[i][k] - xs[0][k]) +
				   fabs(ds[i][k] - ds[0][k]));
	double tol = COPLANAR_REL * ext * ext * ext;
	for (int k = 0; k < 4; k++)
		if (!(fabs(c[k]) <= tol))
			return 0;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
			p[i][k] = xs[i][k] + ds[i][k];
	strand_seg_dist2(xs[0], xs[1], xs[2], xs[3], &sp, &tp);
	strand_seg_dist2(p[0], p[1], p[2], p[3], &s1, &t1);
	for (int k = 0; k < 3; k++) {
		r0[k] = xs[2][k] + tp * (xs[3][k] - xs[2][k]) - xs[0][k] -
			sp * (xs[1][k] - xs[0][k]);
		r1[k] = p[2][k] + t1 * (p[3][k] - p[2][k]) - p[0][k] -
			s1 * (p[1][k] - p[0][k]);
	}
	double l0 = v3norm(r0);
	if (!(l0 > 0) || v3dot(r0, r1) > 0)
		return 0;
	for (int k = 0; k < 3; k++)
		n[k] = r0[k] / l0;
	al[0] = -(1 - sp);
	al[1] = -sp;
	al[2] = 1 - tp;
	al[3] = tp;
	return 1;
}

/* Is the swept pair (kind 1 point/triangle, 2 edge/edge) colliding over
 * [0,1] with positions x0 + t d?  Fills the collision weights and normal
 * at the first coplanarity time closer than delta. */
static int
detect(collide_self *s, int kind, const uint32_t id[4], const double *x0,
       const double *d, double al[4], double n[3])
{
	const double *xs[4], *ds[4];
	double t[3];
	for (int i = 0; i < 4; i++) {
		xs[i] = x0 + 3 * id[i];
		ds[i] = d + 3 * id[i];
	}
	int nr = ccd_coplanar_times(xs, ds, t);
	if (s->par.strands && kind == 2 && strand_coplanar(xs, ds, al, n))
		return 1;
	for (int r = 0; r < nr; r++) {
		double p[4][3];
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 3; k++)
				p[i][k] = xs[i][k] + t[r] * ds[i][k];
		if (kind == 1) {
			double w[3], e1[3], e2[3];
			if (tri_point_dist2(p[0], p[1], p[2], p[3], w) >
			    s->delta * s->delta)
				continue;
			v3sub(p[2], p[1], e1);
			v3sub(p[3], p[1], e2);
			v3cross(e1, e2, n);
			al[0] = 1;
			al[1] = -w[0];
			al[2] = -w[1];
			al[3] = -w[2];
		} else {
			double sp, tp, e1[3], e2[3];
			if (ee_dist2(s, p[0], p[1], p[2], p[3], &sp, &tp) >
			    s->delta * s->delta)
				continue;
			v3sub(p[1], p[0], e1);
			v3sub(p[3], p[2], e2);
			v3cross(e1, e2, n);
			al[0] = -(1 - sp);
			al[1] = -sp;
			al[2] = 1 - tp;
			al[3] = tp;
		}
		double l = v3norm(n);
		if (!(l > 0)) {
			/* degenerate: use the direction between the elements
			 * at the start */
			double r0[3] = {0, 0, 0};
			for (int i = 0; i < 4; i++)
				v3axpy(al[i], xs[i], r0);
			memcpy(n, r0, sizeof r0);
			l = v3norm(n);
			if (!(l > 0)) {
				n[0] = 0; n[1] = 1; n[2] = 0;
				l = 1;
			}
		}
		v3scale(1 / l, n);
		return 1;
	}
	return 0;
}

/* Inelastic response ([15]): the pair keeps the side it had at the start
 * and ends at least delta apart along n.  1 if it changed u. */
static int
respond(collide_self *s, const uint32_t id[4], const double al[4],
	double n[3], const double *x0, double *u, double T)
{
	double r0[3], r[3];
	rel(id, al, x0, r0);
	double d0 = v3dot(r0, n);
	if (d0 < 0) {
		v3scale(-1, n);
		d0 = -d0;
	}
	rel(id, al, u, r);
	double vN = v3dot(r, n);
	double target = d0 < s->delta ? (s->delta - d0) / T : 0;
	if (!(vN < target))
		return 0;
	impulse(s, id, al, n, target - vN, u);
	return 1;
}

/* Rigid motion of each impact zone: momentum-conserving translation and
 * rotation about the zone's centre of mass at x0, with the pseudo-inverse
 * of the inertia tensor (§6.3). */
static void rigid_zones(collide_self *s, const double *x0, double *u,
			const uint8_t *inzone);

/* --- step C of strands ---------------------------------------------- */

static int
cmp_pair(const void *a, const void *b)
{
	const uint32_t *p = a, *q = b;

	if (p[4] != q[4])
		return p[4] < q[4] ? -1 : 1;
	return (p[5] > q[5]) - (p[5] < q[5]);
}

/* Sort the edge/edge pairs of l by their edges (lower, then upper): the
 * order of a step C pass, whatever the tree that found them.  grouped: the
 * pairs come already in runs of one lower edge, ascending (query_all's
 * order), and only each run is sorted, by insertion (a few pairs). */
static void
sort_pairs(pairlist *l, int grouped)
{
	if (!grouped) {
		qsort(l->q, l->n, sizeof *l->q, cmp_pair);
		return;
	}
	for (size_t i = 1; i < l->n; i++) {
		uint32_t t[6];
		size_t j = i;
		if (l->q[i - 1][4] != l->q[i][4] || l->q[i - 1][5] < l->q[i][5])
			continue;
		memcpy(t, l->q[i], sizeof t);
		while (j > 0 && l->q[j - 1][4] == t[4] && l->q[j - 1][5] > t[5]) {
			memcpy(l->q[j], l->q[j - 1], sizeof t);
			j--;
		}
		memcpy(l->q[j], t, sizeof t);
	}
}

/* Pair of query edge q->prim and the dirty edge of tree box j, found once:
 * from the lower edge when both are dirty, else from the clean one. */
static void
dirty_found(void *vc, uint32_t j)
{
	qctx *q = vc;
	const collide_self *s = q->s;
	const uint32_t *E = s->edge;
	uint32_t e = q->prim, f = s->dmap[j];

	if (f == e || (s->edirty[e] && f < e))
		return;
	uint32_t lo = e < f ? e : f, hi = e < f ? f : e;
	uint32_t a = E[2 * lo], b = E[2 * lo + 1], c = E[2 * hi], d = E[2 * hi + 1];
	if (a == c || a == d || b == c || b == d)
		return;
	if (push(q->out, a, b, c, d, lo, hi))
		q->fail = 1;
}

/* Candidate edge/edge pairs swept x0 -> x1 (grown by r/2 each) of which an
 * edge touches a dirty particle, sorted. */
static int
dirty_candidates(collide_self *s, const double *x0, const double *x1,
		 double r, pairlist *ee, slc_err *err)
{
	size_t nd = 0;
	boxtree t;

	ee->n = 0;
	for (size_t e = 0; e < s->ne; e++) {
		s->edirty[e] = s->dirty[s->edge[2 * e]] | s->dirty[s->edge[2 * e + 1]];
		if (s->edirty[e])
			s->dmap[nd++] = (uint32_t)e;
	}
	if (!nd)
		return 0;
	for (size_t j = 0; j < nd; j++) {
		const uint32_t *E = s->edge + 2 * s->dmap[j];
		double *lo = s->lo + 3 * j, *hi = s->hi + 3 * j;
		for (int k = 0; k < 3; k++) {
			lo[k] = 1e300;
			hi[k] = -1e300;
		}
		for (int v = 0; v < 2; v++) {
			grow(lo, hi, x0 + 3 * E[v], 0.5 * r);
			grow(lo, hi, x1 + 3 * E[v], 0.5 * r);
		}
	}
	if (boxtree_build(&t, nd, s->lo, s->hi, err))
		return -1;
	/* the tree keeps its own copy of the boxes: the query boxes of all
	 * edges go where the dirty ones were */
	boxes(s, 2, x0, x1, 0.5 * r);
	int fail = query_all(s, &t, s->ne, dirty_found, ee);
	boxtree_free(&t);
	if (fail)
		return slc_fail(err, "out of memory for collision pairs");
	sort_pairs(ee, 0);
	return 0;
}

/* Step C of strands (zones 0, §7.5.3).  A pass tests in Gauss-Seidel
 * order the edge pairs whose swept boxes overlap, sorted by their edges.
 * After the first, a pass tests only the pairs with a particle whose
 * effective velocity changed in the pass before: any other pair was last
 * tested on the velocities it has now, and was found apart or already
 * separating (its response did nothing), so testing it again would change
 * nothing.  The passes stop when one changes nothing (the state is then
 * final), or after coll_iters passes; a last pass over every pair counts
 * those still colliding. */
static int
resolve_strands(collide_self *s, const double *x0, double *x1, double T,
		uint8_t *moved, long *ncoll, slc_err *err)
{
	const size_t np = s->np;
	double *u = s->u, *d = NULL;
	int ret = -1;

	update_invm(s);
	d = slc_calloc(3 * np + 1, sizeof *d, err);
	if (!d)
		goto out;
	/* made at the first call, each retried until it is made */
	if ((!s->dirty && !(s->dirty = slc_calloc(np + 1, 1, err))) ||
	    (!s->chg && !(s->chg = slc_calloc(np + 1, 1, err))) ||
	    (!s->edirty && !(s->edirty = slc_calloc(s->ne + 1, 1, err))) ||
	    (!s->dmap && !(s->dmap = slc_calloc(s->ne + 1, sizeof *s->dmap,
						err))))
		goto out;
	for (size_t k = 0; k < 3 * np; k++)
		u[k] = (x1[k] - x0[k]) / T;
	for (int it = 0;; it++) {
		/* pass 0 and the counting pass see every pair */
		int count = it >= s->par.coll_iters, full = it == 0 || count;
		long found = 0, changed = 0;
		for (size_t k = 0; k < 3 * np; k++)
			d[k] = T * u[k];
		for (size_t k = 0; k < 3 * np; k++)
			x1[k] = x0[k] + d[k];
		if (full) {
			if (candidates(s, x0, x1, s->delta, &s->cand_pt,
				       &s->cand_ee, err))
				goto out;
			sort_pairs(&s->cand_ee, 1);
		} else if (dirty_candidates(s, x0, x1, s->delta, &s->cand_ee,
					    err)) {
			goto out;
		}
		memset(s->chg, 0, np);
		pairlist *l = &s->cand_ee;
		for (size_t i = 0; i < l->n; i++) {
			const uint32_t *id = l->q[i];
			double al[4], n[3];
			/* Gauss-Seidel: see the newest velocities */
			for (int j = 0; j < 4; j++)
				for (int k = 0; k < 3; k++)
					d[3 * id[j] + k] = T * u[3 * id[j] + k];
			if (!detect(s, 2, id, x0, d, al, n) || lever(s, id, al))
				continue;
			if (s->nskip && skipped(s, id[4], id[5])) {
				if (!count)
					s->skipped++;
				continue;
			}
			found++;
			if (count || !respond(s, id, al, n, x0, u, T))
				continue;
			changed++;
			/* a response changes the paths of its four points:
			 * they take the velocity of their new path */
			for (int j = 0; j < 4; j++)
				s->chg[id[j]] = moved[id[j]] = 1;
		}
		if (count) {
			s->unresolved += found;
			break;
		}
		*ncoll += found;
		/* a full pass that finds nothing ends step C uncounted */
		if (full && !found)
			break;
		if (!changed) {
			/* nothing will change again: count what is left */
			it = s->par.coll_iters - 1;
			continue;
		}
		memcpy(s->dirty, s->chg, np);
	}
	ret = 0;
	for (size_t k = 0; k < 3 * np; k++)
		x1[k] = x0[k] + T * u[k];
out:
	free(d);
	return ret;
}

int
collide_self_resolve(collide_self *s, const double *x0, double *x1,
		     double T, uint8_t *moved, long *ncoll, long *nzones,
		     slc_err *err)
{
	const size_t np = s->np;
	double *u = s->u, *d = NULL;
	uint8_t *inzone = NULL;
	int ret = -1;

	if (s->par.strands && !s->par.zones && !s->nt)
		return resolve_strands(s, x0, x1, T, moved, ncoll, err);
	update_invm(s);
	d = slc_calloc(3 * np + 1, sizeof *d, err);
	inzone = slc_calloc(np + 1, 1, err);
	if (!d || !inzone)
		goto out;
	for (size_t i = 0; i < np; i++)
		s->zone[i] = (uint32_t)i;
	for (size_t k = 0; k < 3 * np; k++)
		u[k] = (x1[k] - x0[k]) / T;
	/* zones 0: coll_iters passes that respond and one that counts */
	int passes = s->par.zones ? MAX_ITERS : s->par.coll_iters + 1;
	for (int it = 0; it < passes; it++) {
		long found = 0;
		for (size_t k = 0; k < 3 * np; k++)
			d[k] = T * u[k];
		for (size_t k = 0; k < 3 * np; k++)
			x1[k] = x0[k] + d[k];
		if (candidates(s, x0, x1, s->delta, &s->cand_pt, &s->cand_ee, err))
			goto out;
		int zones = s->par.zones && it >= s->par.coll_iters;
		/* without impact zones (§7.5.3) the pass after the last
		 * response only counts */
		int count = !s->par.zones && it >= s->par.coll_iters;
		for (int kind = 1; kind <= 2; kind++) {
			pairlist *l = kind == 1 ? &s->cand_pt : &s->cand_ee;
			for (size_t i = 0; i < l->n; i++) {
				const uint32_t *id = l->q[i];
				double al[4], n[3];
				uint32_t z0 = zfind(s->zone, id[0]);
				if (inzone[id[0]] && zfind(s->zone, id[1]) == z0 &&
				    zfind(s->zone, id[2]) == z0 &&
				    zfind(s->zone, id[3]) == z0)
					continue;   /* rigid together: no collision */
				/* Gauss-Seidel: see the newest velocities */
				for (int j = 0; j < 4; j++)
					for (int k = 0; k < 3; k++)
						d[3 * id[j] + k] = T * u[3 * id[j] + k];
				if (!detect(s, kind, id, x0, d, al, n))
					continue;
				if (kind == 2 && s->nskip &&
				    skipped(s, id[4], id[5])) {
					if (!count)
						s->skipped++;
					continue;
				}
				found++;
				if (count)
					continue;
				if (!zones) {
					respond(s, id, al, n, x0, u, T);
				} else {
					for (int j = 0; j < 4; j++) {
						inzone[id[j]] = 1;
						slc_uf_join(s->zone, id[j], id[0]);
					}
				}
			}
		}
		if (count) {
			s->unresolved += found;
			ret = 0;
			break;
		}
		*ncoll += found;
		if (!found) {
			ret = 0;
			break;
		}
		if (zones) {
			rigid_zones(s, x0, u, inzone);
			(*nzones)++;
		}
	}
	if (ret)
		slc_fail(err, "self-collisions remain after %d iterations",
			 MAX_ITERS);
	for (size_t i = 0; i < np; i++) {
		int ch = 0;
		for (int k = 0; k < 3; k++) {
			double nx = x0[3 * i + k] + T * u[3 * i + k];
			if (nx != x1[3 * i + k])
				ch = 1;
			x1[3 * i + k] = nx;
		}
		if (ch)
			moved[i] = 1;
	}
out:
	free(d);
	free(inzone);
	return ret;
}

/* Eigen decomposition of a symmetric 3x3 matrix by Jacobi rotations:
 * A = V diag(e) V^T. */
static void
sym_eig3(double A[3][3], double e[3], double V[3][3])
{
	double a[3][3];
	memcpy(a, A, sizeof a);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			V[i][j] = i == j;
	for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
		double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
		if (off < JACOBI_ZERO)
			break;
		for (int p = 0; p < 2; p++)
			for (int q = p + 1; q < 3; q++) {
				if (fabs(a[p][q]) < JACOBI_ZERO)
					continue;
				double th = 0.5 * (a[q][q] - a[p][p]) / a[p][q];
				double t = (th >= 0 ? 1 : -1) /
					(fabs(th) + sqrt(th * th + 1));
				double c = 1 / sqrt(t * t + 1), sn = t * c;
				for (int k = 0; k < 3; k++) {
					double akp = a[k][p], akq = a[k][q];
					a[k][p] = c * akp - sn * akq;
					a[k][q] = sn * akp + c * akq;
				}
				for (int k = 0; k < 3; k++) {
					double apk = a[p][k], aqk = a[q][k];
					a[p][k] = c * apk - sn * aqk;
					a[q][k] = sn * apk + c * aqk;
				}
				for (int k = 0; k < 3; k++) {
					double vkp = V[k][p], vkq = V[k][q];
					V[k][p] = c * vkp - sn * vkq;
					V[k][q] = sn * vkp + c * vkq;
				}
			}
	}
	for (int i = 0; i < 3; i++)
		e[i] = a[i][i];
}

static void
rigid_zones(collide_self *s, const double *x0, double *u,
	    const uint8_t *inzone)
{
	const size_t np = s->np;
	const collide_self *c = s;

	for (size_t r = 0; r < np; r++) {
		if (!inzone[r] || zfind(s->zone, (uint32_t)r) != r)
			continue;
		double M = 0, xc[3] = {0, 0, 0}, V[3] = {0, 0, 0};
		double L[3] = {0, 0, 0}, I[3][3] = {{0}}, Vf[3] = {0, 0, 0};
		int nfix = 0;
		for (size_t i = 0; i < np; i++) {
			if (!inzone[i] || zfind(s->zone, (uint32_t)i) != r)
				continue;
			M += c->m[i];
			v3axpy(c->m[i], x0 + 3 * i, xc);
			v3axpy(c->m[i], u + 3 * i, V);
			if (c->fixed[i]) {
				nfix++;
				v3axpy(1, u + 3 * i, Vf);
			}
		}
		v3scale(1 / M, xc);
		v3scale(1 / M, V);
		if (nfix) {
			/* a zone holding constrained points translates with
			 * them */
			v3scale(1.0 / nfix, Vf);
			for (size_t i = 0; i < np; i++)
				if (inzone[i] && zfind(s->zone, (uint32_t)i) == r &&
				    !c->fixed[i])
					memcpy(u + 3 * i, Vf, sizeof Vf);
			continue;
		}
		for (size_t i = 0; i < np; i++) {
			if (!inzone[i] || zfind(s->zone, (uint32_t)i) != r)
				continue;
			double q[3], w[3], l[3];
			v3sub(x0 + 3 * i, xc, q);
			v3sub(u + 3 * i, V, w);
			v3cross(q, w, l);
			v3axpy(c->m[i], l, L);
			double qq = v3dot(q, q);
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					I[a][b] += c->m[i] * ((a == b) * qq - q[a] * q[b]);
		}
		/* omega = I^+ L, by the eigen decomposition (the tensor is
		 * singular for colinear or coincident points) */
		double e[3], E[3][3], om[3] = {0, 0, 0};
		sym_eig3(I, e, E);
		double emax = fmax(fabs(e[0]), fmax(fabs(e[1]), fabs(e[2])));
		for (int k = 0; k < 3; k++) {
			if (!(fabs(e[k]) > PINV_REL_TOL * emax))
				continue;
			double proj = E[0][k] * L[0] + E[1][k] * L[1] + E[2][k] * L[2];
			for (int a = 0; a < 3; a++)
				om[a] += E[a][k] * proj / e[k];
		}
		for (size_t i = 0; i < np; i++) {
			if (!inzone[i] || zfind(s->zone, (uint32_t)i) != r)
				continue;
			double q[3], w[3];
			v3sub(x0 + 3 * i, xc, q);
			v3cross(om, q, w);
			for (int k = 0; k < 3; k++)
				u[3 * i + k] = V[k] + w[k];
		}
	}
}
