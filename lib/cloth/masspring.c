/* masspring.c: particles, springs and the Newmark time step with body
 * collisions and friction (selle2008 thesis §5.4, §5.5, §6.2, §6.5,
 * §7.4); see masspring.h. */
#include "cloth/masspring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"

/* Blocks of the fixed partition used for dot products, so that sums do
 * not depend on the number of threads. */
#define DOT_BLOCKS 64
/* The conjugate gradient's vector loops (dots, residual maxima, axpys,
 * projections, the diagonal drag) do a few flops a point and run a few
 * thousand times a step: below this many points (3 values each) a fork
 * and join of the threads costs more than the loop, most of all on a
 * loaded machine.  Each point's result is its own and the dots sum
 * fixed units in order, so the bytes do not depend on it. */
#define CG_OMP_MIN 65536

void
masspring_free(masspring *ms)
{
	spring_free(&ms->spr);
	cloth_sys_free(&ms->sys);
	free(ms->x); free(ms->v); free(ms->m); free(ms->fixed); free(ms->vfix);
	free(ms->x0); free(ms->vn); free(ms->vs); free(ms->vh); free(ms->xt);
	free(ms->F); free(ms->b); free(ms->r); free(ms->z); free(ms->p);
	free(ms->q); free(ms->diag); free(ms->cN); free(ms->cvB); free(ms->cmu);
	free(ms->acc); free(ms->fext);
	free(ms->contact); free(ms->nrm); free(ms->area); free(ms->chained);
	if (ms->chain)
		band_chol_free(ms->chain);
	free(ms->chain);
	free(ms->dunits.start);
	free(ms->part);
	cloth_halo_free(&ms->halo);
	memset(ms, 0, sizeof *ms);
}

int
masspring_init(masspring *ms, size_t np, const double *x, const double *v,
	       const double *m, spring_set *spr, const masspring_params *par,
	       slc_err *err)
{
	size_t n3;

	memset(ms, 0, sizeof *ms);
	ms->spr = *spr;
	memset(spr, 0, sizeof *spr);
	ms->par = *par;
	ms->np = np;
	if (slc_mul(np, 3, &n3)) {
		masspring_free(ms);
		return slc_fail(err, "point count overflows");
	}
	if (cloth_sys_build(&ms->sys, &ms->spr, err)) {
		masspring_free(ms);
		return -1;
	}
	double **vec[] = { &ms->x, &ms->v, &ms->vfix, &ms->x0, &ms->vn,
		&ms->vs, &ms->vh, &ms->xt, &ms->F, &ms->b, &ms->r, &ms->z,
		&ms->p, &ms->q, &ms->cN, &ms->cvB, &ms->nrm, &ms->acc };
	for (size_t k = 0; k < sizeof vec / sizeof *vec; k++)
		if (!(*vec[k] = slc_calloc(n3 + 1, sizeof(double), err))) {
			masspring_free(ms);
			return -1;
		}
	size_t n9;
	if (slc_mul(np, 9, &n9)) {
		masspring_free(ms);
		return slc_fail(err, "point count overflows");
	}
	if (!(ms->diag = slc_calloc(n9 + 1, sizeof *ms->diag, err))) {
		masspring_free(ms);
		return slc_failctx(err, "preconditioner blocks: ");
	}
	/* the default units: DOT_BLOCKS equal element ranges */
	if (!(ms->dunits.start = slc_calloc(DOT_BLOCKS + 1, sizeof(size_t),
					    err))) {
		masspring_free(ms);
		return -1;
	}
	ms->dunits.nunit = DOT_BLOCKS;
	ms->dunits.nseg = 1;
	for (int k = 0; k <= DOT_BLOCKS; k++)
		ms->dunits.start[k] = (size_t)((unsigned long long)n3 *
					       (unsigned)k / DOT_BLOCKS);
	if (masspring_set_units(ms, NULL, err)) {
		masspring_free(ms);
		return -1;
	}
	ms->m = slc_calloc(np + 1, sizeof *ms->m, err);
	ms->area = slc_calloc(np + 1, sizeof *ms->area, err);
	ms->cmu = slc_calloc(np + 1, sizeof *ms->cmu, err);
	ms->fixed = slc_calloc(np + 1, 1, err);
	ms->contact = slc_calloc(np + 1, 1, err);
	ms->chained = slc_calloc(np + 1, 1, err);
	if (!ms->m || !ms->area || !ms->cmu || !ms->fixed || !ms->contact ||
	    !ms->chained) {
		masspring_free(ms);
		return -1;
	}
	memcpy(ms->x, x, n3 * sizeof *x);
	if (v)
		memcpy(ms->v, v, n3 * sizeof *v);
	memcpy(ms->m, m, np * sizeof *m);
	for (size_t i = 0; i < np; i++)
		memcpy(ms->acc + 3 * i, par->g, sizeof par->g);
	return 0;
}

int
masspring_set_force(masspring *ms, const double *f, slc_err *err)
{
	double *d = NULL;

	if (f) {
		if (!(d = slc_calloc(3 * ms->np + 1, sizeof *d, err)))
			return -1;
		memcpy(d, f, 3 * ms->np * sizeof *d);
	}
	/* the first CG guess of the next step follows the change of force */
	for (size_t k = 0; k < 3 * ms->np; k++)
		ms->acc[k] += ((d ? d[k] : 0) - (ms->fext ? ms->fext[k] : 0)) /
			      ms->m[k / 3];
	free(ms->fext);
	ms->fext = d;
	return 0;
}

int
masspring_set_chains(masspring *ms, size_t nchain, const uint32_t *cstart,
		     const uint32_t *seq, int bw, slc_err *err)
{
	band_chol *bc = slc_calloc(1, sizeof *bc, err);

	if (!bc)
		return -1;
	for (size_t k = 0; k < cstart[nchain]; k++)
		if (seq[k] >= ms->np) {
			free(bc);
			return slc_fail(err, "chain particle %lu past %zu",
					(unsigned long)seq[k], ms->np);
		}
	if (band_chol_init(bc, nchain, cstart, seq, bw, err)) {
		free(bc);
		return -1;
	}
	if (ms->chain) {
		band_chol_free(ms->chain);
		free(ms->chain);
	}
	ms->chain = bc;
	memset(ms->chained, 0, ms->np);
	for (size_t k = 0; k < cstart[nchain]; k++)
		ms->chained[seq[k]] = 1;
	return 0;
}

void
masspring_constrain(masspring *ms, size_t i, const double vel[3])
{
	ms->fixed[i] = 1;
	memcpy(ms->vfix + 3 * i, vel, 3 * sizeof *vel);
	memcpy(ms->v + 3 * i, vel, 3 * sizeof *vel);
}

const cloth_units *
masspring_units(const masspring *ms)
{
	return ms->units ? ms->units : &ms->dunits;
}

/* This rank's units [*u0, *u1). */
static void
my_units(const masspring *ms, int *u0, int *u1)
{
	cloth_units_owned(masspring_units(ms), ms->split,
			  ms->split ? ms->split->rank : 0, u0, u1);
}

/* The particle ranges that hold this rank's elements of the 3np vectors
 * (its whole units, cloth_split.h): one a unit range; a particle cut by a
 * unit's end (cloth's blocks) is computed by both ranks, and each keeps
 * its own elements. */
typedef struct prange {
	int n;
	size_t lo[2], hi[2];
} prange;

/* Over this rank's particle ranges R.lo[g] .. R.hi[g]. */
#define RANGES(R, g) for (int g = 0; g < (R).n; g++)

static void
own(const masspring *ms, prange *R)
{
	const cloth_units *u = masspring_units(ms);
	int u0, u1;

	my_units(ms, &u0, &u1);
	R->n = u->nseg;
	for (int g = 0; g < u->nseg; g++) {
		const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
		R->lo[g] = st[u0] / 3;
		R->hi[g] = (st[u1] + 2) / 3;
	}
}

void
masspring_share(masspring *ms, double *a)
{
	cloth_units_share(ms->split, masspring_units(ms), a);
}

static void
share(masspring *ms, double *a)
{
	masspring_share(ms, a);
}

/* Make ms->halo for the current split and units: every rank's particle
 * ranges (own()'s for each rank), a particle sent by the rank whose
 * units hold its first element (that rank computes its whole row).  0,
 * or -1 (memory). */
static int
halo_make(masspring *ms)
{
	const cloth_units *u = masspring_units(ms);
	cloth_split *sp = ms->split;
	const int P = sp->size, ns = u->nseg;
	size_t *lo = calloc((size_t)P * (size_t)ns + 1, sizeof *lo);
	size_t *hi = calloc((size_t)P * (size_t)ns + 1, sizeof *hi);
	uint8_t *owner = calloc(ms->np + 1, 1);
	int rc = -1;

	if (lo && hi && owner) {
		for (int q = 0; q < P; q++) {
			int u0, u1;
			cloth_units_owned(u, sp, q, &u0, &u1);
			for (int g = 0; g < ns; g++) {
				const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
				const size_t k = (size_t)q * (size_t)ns + (size_t)g;
				lo[k] = st[u0] / 3;
				hi[k] = (st[u1] + 2) / 3;
				/* particles whose first element is in [st[u0], st[u1]) */
				for (size_t i = (st[u0] + 2) / 3; 3 * i < st[u1]; i++)
					owner[i] = (uint8_t)q;
			}
		}
		slc_err err;
		rc = cloth_halo_build(&ms->halo, sp, ms->np, ms->sys.rp,
				      ms->sys.col, ns, lo, hi, owner, &err);
	}
	free(lo);
	free(hi);
	free(owner);
	return rc;
}

/* The CG direction a (3np) before a product: each rank's halo particles
 * from their owners (cloth_halo), or, without a point-to-point swap or
 * a halo, every rank's elements (the gather). */
static void
share_halo(masspring *ms, double *a)
{
	cloth_split *sp = ms->split;

	if (!sp || sp->size == 1)
		return;
	if (!ms->halo_ok) {
		cloth_halo_free(&ms->halo);
		ms->halo_ok = 1;
		ms->halo_bad = !sp->swap || halo_make(ms);
	}
	if (ms->halo_bad)
		share(ms, a);
	else
		cloth_halo_swap(sp, &ms->halo, a);
}

int
masspring_set_units(masspring *ms, const cloth_units *u, slc_err *err)
{
	double *part = slc_calloc(2 * (size_t)(u ? u->nunit : DOT_BLOCKS) + 1,
				  sizeof *part, err);

	if (!part)
		return -1;
	free(ms->part);
	ms->part = part;
	ms->units = u;
	return 0;
}

/* Deterministic dot product over the fixed units: each rank sums its
 * own units, and the partials of every unit are added in unit order on
 * every rank. */
static double
dot(masspring *ms, const double *a, const double *b, size_t n)
{
	const cloth_units *u = masspring_units(ms);
	double *part = ms->part, s = 0;
	int b0, b1;

	(void)n;
	my_units(ms, &b0, &b1);
#pragma omp parallel for schedule(static) if (3 * ms->np > CG_OMP_MIN)
	for (int k = b0; k < b1; k++) {
		double t = 0;
		for (int g = 0; g < u->nseg; g++) {
			const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
			for (size_t i = st[k]; i < st[k + 1]; i++)
				t += a[i] * b[i];
		}
		part[k] = t;
	}
	cloth_units_gather(ms->split, u, part, sizeof *part);
	for (int k = 0; k < u->nunit; k++)
		s += part[k];
	return s;
}

/* dot(ms, r, z) into *rz, and into *rmax the largest residual over its
 * particle's mass, m/s, from the maxima of the units (exact in any
 * order): one gather of the two partials of each unit. */
static void
dot_resid(masspring *ms, const double *r, const double *z, double *rz,
	  double *rmax)
{
	const cloth_units *u = masspring_units(ms);
	double *part = ms->part, s = 0, mx = 0;
	int b0, b1;

	my_units(ms, &b0, &b1);
#pragma omp parallel for schedule(static) if (3 * ms->np > CG_OMP_MIN)
	for (int k = b0; k < b1; k++) {
		double t = 0, e = 0;
		for (int g = 0; g < u->nseg; g++) {
			const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
			for (size_t i = st[k]; i < st[k + 1]; i++)
				t += r[i] * z[i];
		}
		for (int g = 0; g < u->nseg; g++) {
			const size_t *st = u->start + (size_t)g * (size_t)(u->nunit + 1);
			for (size_t i = st[k]; i < st[k + 1]; i++) {
				double a = fabs(r[i]) / ms->m[i / 3];
				if (a > e)
					e = a;
			}
		}
		part[2 * k] = t;
		part[2 * k + 1] = e;
	}
	cloth_units_gather(ms->split, u, part, 2 * sizeof *part);
	for (int k = 0; k < u->nunit; k++) {
		s += part[2 * k];
		if (part[2 * k + 1] > mx)
			mx = part[2 * k + 1];
	}
	*rz = s;
	*rmax = mx;
}

/* The projection P of §6.5 on one particle: zero for a constrained
 * particle, I - N N^T for a particle in contact (when use_contact). */
static inline void
project(const masspring *ms, size_t i, double *a, int use_contact)
{
	if (ms->fixed[i]) {
		a[0] = a[1] = a[2] = 0;
	} else if (use_contact && ms->contact[i]) {
		const double *N = ms->cN + 3 * i;
		v3axpy(-v3dot(a, N), N, a);
	}
}

/* Wind drag coefficient of particle i, kg/s: linear drag along the
 * normal (§6.6) or, with wind_iso, along the whole relative velocity. */
static inline double
wind_coef(const masspring *ms, size_t i)
{
	return ms->par.wind_drag * ms->area[i];
}

/* F = velocity-independent forces at the current linearization: springs,
 * gravity, the external force held over the steps, and the wind part of
 * the drag. */
static void
forces(masspring *ms, double *F)
{
	prange R;

	own(ms, &R);
	memset(F, 0, 3 * ms->np * sizeof *F);
	RANGES(R, g) {
		const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
		spring_force_rows(&ms->spr, F, R.lo[g], R.hi[g]);
#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
		for (ptrdiff_t i = lo; i < hi; i++) {
			v3axpy(ms->m[i], ms->par.g, F + 3 * i);
			if (ms->fext)
				v3axpy(1, ms->fext + 3 * i, F + 3 * i);
			if (ms->par.wind_drag > 0 && ms->par.wind_iso) {
				v3axpy(wind_coef(ms, (size_t)i), ms->par.wind, F + 3 * i);
			} else if (ms->par.wind_drag > 0) {
				const double *n = ms->nrm + 3 * i;
				v3axpy(wind_coef(ms, (size_t)i) * v3dot(ms->par.wind, n), n,
				       F + 3 * i);
			}
		}
	}
	share(ms, F);
}

/* F += damping forces at velocity v: springs and wind drag. */
static void
damp_force(masspring *ms, const double *v, double *F)
{
	const ptrdiff_t np = (ptrdiff_t)ms->np;

	spring_damp_force(&ms->spr, v, F);
	if (ms->par.wind_drag > 0) {
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
		for (ptrdiff_t i = 0; i < np; i++) {
			const double *n = ms->nrm + 3 * i;
			if (ms->par.wind_iso)
				v3axpy(-wind_coef(ms, (size_t)i), v + 3 * i,
				       F + 3 * i);
			else
				v3axpy(-wind_coef(ms, (size_t)i) *
				       v3dot(v + 3 * i, n), n, F + 3 * i);
		}
	}
}

/* Whether the isotropic drag adds to the diagonal of M - h D (the
 * normal drag is in the blocks of D already). */
static int
iso_drag(const masspring *ms)
{
	return ms->par.wind_drag > 0 && ms->par.wind_iso;
}

/* y = (M - h D) v, the backward Euler operator of a half step h, on
 * this rank's particles (v whole). */
static void
apply_A(masspring *ms, double h, const double *v, double *y)
{
	prange R;

	own(ms, &R);
	for (int g = 0; g < R.n; g++) {
		const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
		cloth_sys_apply_rows(&ms->sys, ms->m, h, v, y, R.lo[g], R.hi[g]);
		if (!iso_drag(ms))
			continue;
#pragma omp parallel for schedule(static) if (hi - lo > CG_OMP_MIN)
		for (ptrdiff_t i = lo; i < hi; i++)
			v3axpy(h * wind_coef(ms, (size_t)i), v + 3 * i, y + 3 * i);
	}
}

/* Invert the symmetric positive definite 3x3 block B (row-major) in
 * place, by cofactors. */
static inline void
inv3_sym(double *B)
{
	double a = B[0], b = B[1], c = B[2], d = B[4], e = B[5], f = B[8];
	double A0 = d * f - e * e, A1 = c * e - b * f, A2 = b * e - c * d;
	double det = a * A0 + b * A1 + c * A2, id = 1 / det;

	B[0] = A0 * id;
	B[1] = B[3] = A1 * id;
	B[2] = B[6] = A2 * id;
	B[4] = (a * f - c * c) * id;
	B[5] = B[7] = (b * c - a * e) * id;
	B[8] = (a * d - b * b) * id;
}

/* z = P B^{-1} r on particle i: the block-Jacobi preconditioner. */
static inline void
precond(const masspring *ms, size_t i, const double *r, double *z, int use_contact)
{
	const double *B = ms->diag + 9 * i, *ri = r + 3 * i;
	double *zi = z + 3 * i;

	for (int k = 0; k < 3; k++)
		zi[k] = B[3 * k] * ri[0] + B[3 * k + 1] * ri[1] + B[3 * k + 2] * ri[2];
	project(ms, i, zi, use_contact);
}

/* What the chain factor reads the system through. */
typedef struct chain_ctx {
	const masspring *ms;
	double h;
	int use_contact;
} chain_ctx;

/* Block (i, k) of the projected M - h D (band_chol_block): constrained
 * particles decoupled with their mass on the diagonal; in the contact
 * solve, P_i A_ik P_k with m_i N N^T added on the diagonal, so that the
 * factor is definite and keeps the normal and tangent parts apart. */
static void
chain_block(void *ctx, uint32_t i, uint32_t k, double B[9])
{
	static const int up[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
	const chain_ctx *c = ctx;
	const masspring *ms = c->ms;
	const cloth_sys *S = &ms->sys;
	double mi = ms->m[i];

	memset(B, 0, 9 * sizeof *B);
	if (ms->fixed[i] || ms->fixed[k]) {
		if (i == k)
			B[0] = B[4] = B[8] = mi;
		return;
	}
	for (size_t e = S->rp[i]; e < S->rp[i + 1]; e++)
		if (S->col[e] == k) {
			const double *D = S->D + SYS_BLK * e;
			for (int q = 0; q < 9; q++)
				B[q] = -c->h * D[up[q]];
			break;
		}
	if (i == k) {
		if (iso_drag(ms))
			mi += c->h * wind_coef(ms, i);
		B[0] += mi;
		B[4] += mi;
		B[8] += mi;
	}
	if (!c->use_contact || (!ms->contact[i] && !ms->contact[k]))
		return;
	/* B <- P_i B P_k, P = I - N N^T */
	if (ms->contact[i]) {
		const double *N = ms->cN + 3 * i;
		for (int col = 0; col < 3; col++) {
			double d = N[0] * B[col] + N[1] * B[3 + col] +
				N[2] * B[6 + col];
			for (int r = 0; r < 3; r++)
				B[3 * r + col] -= N[r] * d;
		}
	}
	if (ms->contact[k]) {
		const double *N = ms->cN + 3 * k;
		for (int r = 0; r < 3; r++) {
			double d = v3dot(B + 3 * r, N);
			for (int col = 0; col < 3; col++)
				B[3 * r + col] -= d * N[col];
		}
	}
	if (i == k && ms->contact[i]) {
		const double *N = ms->cN + 3 * i;
		for (int r = 0; r < 3; r++)
			for (int col = 0; col < 3; col++)
				B[3 * r + col] += ms->m[i] * N[r] * N[col];
	}
}

/* This rank's chains [*c0, *c1): its units' when the units hold whole
 * chains (0 returned), else every chain (1: the chains may read any
 * rank's rows). */
static int
my_chains(const masspring *ms, size_t *c0, size_t *c1)
{
	const cloth_units *u = masspring_units(ms);
	int u0, u1;

	if (!u->chain) {
		*c0 = 0;
		*c1 = ms->chain->nchain;
		return 1;
	}
	my_units(ms, &u0, &u1);
	*c0 = u->chain[u0];
	*c1 = u->chain[u1];
	return 0;
}

/* z = P (L L^T)^{-1} P r with the chains' factor (r projected already by
 * the caller); particles in no chain take their diagonal block. */
static void
precond_chains(masspring *ms, double *r, double *z, int use_contact)
{
	size_t c0, c1;
	prange R;

	own(ms, &R);
	if (my_chains(ms, &c0, &c1)) {
		/* the chains' solve reads r whole: every rank's part first */
		share(ms, r);
	}
	band_chol_solve_range(ms->chain, c0, c1, r, z);
	for (int g = 0; g < R.n; g++) {
		const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
		for (ptrdiff_t i = lo; i < hi; i++) {
			if (ms->chained[i])
				project(ms, (size_t)i, z + 3 * i, use_contact);
			else
				precond(ms, (size_t)i, r, z, use_contact);
		}
	}
}

/* Solve (M - h D) v = rhs by preconditioned CG projected onto the free
 * velocities (constrained particles keep vfix, particles in contact keep
 * their initial normal velocity when use_contact).  v holds the initial
 * guess on entry.  Block-Jacobi preconditioner: the 3x3 diagonal block of
 * each particle, which holds the direction of its stiff springs (a
 * diagonal preconditioner sees only their axis-aligned parts).  CG stops
 * when every residual over its particle's mass (the velocity the
 * unbalanced impulse would give a free particle, m/s) is below
 * par.cg_tol. */
static void
cg_solve(masspring *ms, double h, const double *rhs, double *v, int use_contact)
{
	const ptrdiff_t np = (ptrdiff_t)ms->np, n3 = 3 * np;
	double *r = ms->r, *z = ms->z, *p = ms->p, *q = ms->q, *d = ms->diag;
	double rz, tol = ms->par.cg_tol;
	prange R;

	/* each rank works on its own particles (its ranges [lo, hi)); p's
	 * halo is exchanged before every product, v shared at the end
	 * (cloth_split.h); the halo is made again for each solve, as the
	 * springs may have changed (hair's stiction makes and breaks them) */
	own(ms, &R);
	ms->halo_ok = 0;
	RANGES(R, g) {
		const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
		for (ptrdiff_t i = lo; i < hi; i++) {
			double *B = d + 9 * i;
			const double *Dii = ms->sys.D + SYS_BLK * ms->sys.dpos[i];
			static const int up[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
			double mi = ms->m[i];
			if (iso_drag(ms))
				mi += h * wind_coef(ms, (size_t)i);
			for (int k = 0; k < 9; k++)
				B[k] = (k % 4 ? 0 : mi) - h * Dii[up[k]];
			inv3_sym(B);
		}
	}
	for (ptrdiff_t i = 0; i < np; i++)
		if (ms->fixed[i])
			memcpy(v + 3 * i, ms->vfix + 3 * i, 3 * sizeof *v);
	if (ms->chain) {
		chain_ctx cc = { ms, h, use_contact };
		size_t c0, c1;
		my_chains(ms, &c0, &c1);
		band_chol_factor_range(ms->chain, c0, c1, chain_block, &cc);
	}
	apply_A(ms, h, v, q);
	RANGES(R, g) {
		const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (hi - lo > CLOTH_OMP_MIN)
		for (ptrdiff_t i = lo; i < hi; i++) {
			for (ptrdiff_t k = 3 * i; k < 3 * i + 3; k++)
				r[k] = rhs[k] - q[k];
			project(ms, (size_t)i, r + 3 * i, use_contact);
			if (ms->chain)
				continue;
			precond(ms, (size_t)i, r, z, use_contact);
			memcpy(p + 3 * i, z + 3 * i, 3 * sizeof *p);
		}
	}
	if (ms->chain) {
		precond_chains(ms, r, z, use_contact);
		memcpy(p, z, (size_t)n3 * sizeof *p);
	}
	/* rz and the residual's maximum of each iteration from one gather */
	double rmax;
	dot_resid(ms, r, z, &rz, &rmax);
	ms->st.cg_solves++;
	for (int it = 0;; it++) {
		if (rmax <= tol)
			break;
		/* a capped solve is kept (the step stays stable, only less
		 * damped than asked) but counted, so that the tool can say so */
		if (it == ms->par.cg_max) {
			ms->st.cg_capped++;
			if (rmax > ms->st.cg_worst)
				ms->st.cg_worst = rmax;
			break;
		}
		ms->st.cg_iters++;
		share_halo(ms, p);
		apply_A(ms, h, p, q);
		RANGES(R, g) {
			const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (hi - lo > CG_OMP_MIN)
			for (ptrdiff_t i = lo; i < hi; i++)
				project(ms, (size_t)i, q + 3 * i, use_contact);
		}
		double pq = dot(ms, p, q, (size_t)n3);
		if (!(pq > 0))
			break;
		double al = rz / pq;
		RANGES(R, g) {
			const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (hi - lo > CG_OMP_MIN)
			for (ptrdiff_t i = lo; i < hi; i++) {
				for (ptrdiff_t k = 3 * i; k < 3 * i + 3; k++) {
					v[k] += al * p[k];
					r[k] -= al * q[k];
				}
				if (!ms->chain)
					precond(ms, (size_t)i, r, z, use_contact);
			}
		}
		if (ms->chain)
			precond_chains(ms, r, z, use_contact);
		double rz1;
		dot_resid(ms, r, z, &rz1, &rmax);
		double be = rz1 / rz;
		rz = rz1;
		RANGES(R, g) {
			const ptrdiff_t lo = (ptrdiff_t)R.lo[g], hi = (ptrdiff_t)R.hi[g];
#pragma omp parallel for schedule(static) if (3 * (hi - lo) > CG_OMP_MIN)
			for (ptrdiff_t k = 3 * lo; k < 3 * hi; k++)
				p[k] = z[k] + be * p[k];
		}
	}
	share(ms, v);
}

/* Linearize springs (and the owner's wind normals and areas) at
 * positions x for a half step whose implicit spring time is tau. */
static void
linearize(masspring *ms, const double *x, double tau)
{
	spring_linearize(&ms->spr, x, ms->m, ms->par.implicit_springs ? tau : 0);
	if (ms->par.wind_drag > 0 && !ms->par.wind_iso && ms->hk.wind_frame)
		ms->hk.wind_frame(ms->hk.ctx, x, ms->nrm, ms->area);
	/* chains that may cross the ranks read every row; else a rank needs
	 * its own */
	size_t c0, c1;
	prange R = { 1, { 0, 0 }, { ms->np, 0 } };
	if (!ms->chain || !my_chains(ms, &c0, &c1))
		own(ms, &R);
	RANGES(R, g)
		cloth_sys_assemble_rows(&ms->sys, &ms->spr,
					ms->par.wind_iso ? 0 : ms->par.wind_drag,
					ms->area, ms->nrm, R.lo[g], R.hi[g]);
}

/* Step B.4 for particle i (§6.5): find where the level set changes sign
 * along the step, x^c = x^n + theta dt v~^{n+1/2}, then move for the rest
 * of the step with v_*^{n+1/2} = Gamma(v~^{n+1/2}); v_*^n = Gamma(v^n). */
static void
body_collide(masspring *ms, size_t i, double t1, double dt,
	     const cloth_body *bodies, int nb)
{
	double *x = ms->x + 3 * i, *vs = ms->vs + 3 * i;
	const double *x0 = ms->x0 + 3 * i, *vh = ms->vh + 3 * i;

	for (int k = 0; k < nb; k++) {
		const cloth_body *b = bodies + k;
		double phi1, N[3], vB[3], phi0, N0[3], vB0[3];
		body_eval(b, t1, x, &phi1, N, vB);
		if (phi1 >= 0)
			continue;
		/* phi(x^n) with the time n+1 body, plus dt v_BN for a moving
		 * body */
		body_eval(b, t1, x0, &phi0, N0, vB0);
		phi0 += dt * v3dot(vB, N);
		double theta = phi0 > 0 ? phi0 / (phi0 - phi1) : 0;
		if (theta > 1)
			theta = 1;
		double vsh[3], xc[3];
		body_gamma(vh, N, vB, b->mu, vsh);
		for (int d = 0; d < 3; d++) {
			xc[d] = x0[d] + theta * dt * vh[d];
			x[d] = xc[d] + (1 - theta) * dt * vsh[d];
		}
		body_gamma(vs, N, vB, b->mu, vs);
		/* the linearization can leave a point inside a curved or
		 * moving body: project it out along the normal (Bridson's
		 * position update, the §6.5 starting point) */
		double phi2, N2[3], vB2[3];
		body_eval(b, t1, x, &phi2, N2, vB2);
		if (phi2 < 0)
			v3axpy(-phi2, N2, x);
		ms->contact[i] = 1;
		memcpy(ms->cN + 3 * i, N, sizeof N);
		memcpy(ms->cvB + 3 * i, vB, sizeof vB);
		ms->cmu[i] = b->mu;
		ms->st.body_contacts++;
	}
}

/* Whether the ranks share the body collisions too: units that cut no
 * particle (hair's strands) over several ranks.  Cloth's blocks cut
 * particles, and its every rank collides every particle. */
static int
by_rank(const masspring *ms)
{
	return ms->units && ms->split && ms->split->size > 1;
}

/* Step B.4 on the free particles: this rank's own when by_rank (then x
 * and vs are shared, and the contacts counted on every rank), else
 * every one. */
static void
collide_bodies(masspring *ms, double t1, double dt, const cloth_body *bodies,
	       int nb)
{
	prange R = { 1, { 0, 0 }, { ms->np, 0 } };
	const int split = by_rank(ms);
	long c0 = ms->st.body_contacts;

	if (split)
		own(ms, &R);
	RANGES(R, g)
		for (size_t i = R.lo[g]; i < R.hi[g]; i++)
			if (!ms->fixed[i])
				body_collide(ms, i, t1, dt, bodies, nb);
	if (!split || !nb)
		return;
	share(ms, ms->x);
	share(ms, ms->vs);
	/* the contacts of every rank, a count per unit (exact in doubles) */
	const cloth_units *u = masspring_units(ms);
	int u0, u1;
	my_units(ms, &u0, &u1);
	memset(ms->part, 0, (size_t)u->nunit * sizeof *ms->part);
	if (u0 < u1)
		ms->part[u0] = (double)(ms->st.body_contacts - c0);
	cloth_units_gather(ms->split, u, ms->part, sizeof *ms->part);
	ms->st.body_contacts = c0;
	for (int k = 0; k < u->nunit; k++)
		ms->st.body_contacts += (long)ms->part[k];
}

/* §7.4 "backward Euler ... for increased stability": one solve
 * (M - dt D) v^{n+1} = M v^n + dt F(x^n), the springs implicit at
 * x^n + dt v^{n+1}; the limiter and the self-repulsions act on it before
 * it moves the points, body collisions apply Gamma to it. */
static void
step_be(masspring *ms, double t, double dt, const cloth_body *bodies, int nb)
{
	const size_t np = ms->np, n3 = 3 * np;
	double *x = ms->x, *v = ms->v;

	linearize(ms, x, dt);
	forces(ms, ms->F);
	for (size_t k = 0; k < n3; k++) {
		ms->b[k] = ms->m[k / 3] * ms->vn[k] + dt * ms->F[k];
		ms->vh[k] = ms->vn[k] + dt * ms->acc[k];
	}
	cg_solve(ms, dt, ms->b, ms->vh, 0);
	/* the velocity the next step starts from, before the limiter */
	memcpy(ms->vs, ms->vh, n3 * sizeof *v);
	if (ms->hk.limit)
		ms->hk.limit(ms->hk.ctx, ms, dt);
	if (ms->hk.repulse)
		ms->hk.repulse(ms->hk.ctx, x, ms->vh, dt, 1);
	memset(ms->contact, 0, np);
	for (size_t k = 0; k < n3; k++)
		x[k] = ms->x0[k] + dt * ms->vh[k];
	collide_bodies(ms, t + dt, dt, bodies, nb);
	/* body_collide left Gamma(v^{n+1}) in vs for points in contact */
	for (size_t i = 0; i < np; i++)
		memcpy(v + 3 * i, ms->fixed[i] ? ms->vfix + 3 * i :
		       ms->vs + 3 * i, 3 * sizeof *v);
	if (ms->hk.repulse)
		ms->hk.repulse(ms->hk.ctx, x, v, dt, 0);
	for (size_t k = 0; k < n3; k++)
		ms->acc[k] = (v[k] - ms->vn[k]) / dt;
}

void
masspring_step(masspring *ms, double t, double dt, const cloth_body *bodies,
	       int nb)
{
	const size_t np = ms->np, n3 = 3 * np;
	const double h = dt / 2;
	double *x = ms->x, *v = ms->v;

	ms->st.steps++;
	memcpy(ms->x0, x, n3 * sizeof *x);
	memcpy(ms->vn, v, n3 * sizeof *v);
	for (size_t i = 0; i < np; i++)
		if (ms->fixed[i])
			memcpy(ms->vn + 3 * i, ms->vfix + 3 * i, 3 * sizeof *v);
	if (ms->par.backward_euler) {
		step_be(ms, t, dt, bodies, nb);
		return;
	}

	/* B.1: v~^{n+1/2} = v^n + dt/2 a(x^n, v~^{n+1/2}); §5.5: the springs
	 * are implicit in the position x^n + dt v~^{n+1/2} that B.3 makes */
	linearize(ms, x, dt);
	forces(ms, ms->F);
	for (size_t k = 0; k < n3; k++)
		ms->b[k] = ms->m[k / 3] * ms->vn[k] + h * ms->F[k];
	/* first guess: the last step's acceleration over the half step (in
	 * a free fall the answer; at rest no change) */
	for (size_t k = 0; k < n3; k++)
		ms->vh[k] = ms->vn[k] + h * ms->acc[k];
	cg_solve(ms, h, ms->b, ms->vh, 0);

	/* §7.4.1: strain limiting on the position-update velocity only */
	if (ms->hk.limit)
		ms->hk.limit(ms->hk.ctx, ms, dt);

	/* B.2: self-repulsions change the velocity that moves the points */
	if (ms->hk.repulse)
		ms->hk.repulse(ms->hk.ctx, x, ms->vh, dt, 1);

	/* B.3, B.4: x~^{n+1} = x^n + dt v~^{n+1/2}, then body collisions */
	memcpy(ms->vs, ms->vn, n3 * sizeof *v);
	memset(ms->contact, 0, np);
	for (size_t k = 0; k < n3; k++)
		x[k] = ms->x0[k] + dt * ms->vh[k];
	collide_bodies(ms, t + dt, dt, bodies, nb);

	/* B.5: v^{n+1/2} = v_*^n + dt/2 a(x^{n+1/2}, v^{n+1/2}) with the
	 * normal velocity of particles in contact held by the projection;
	 * §5.5 again, implicit at the end of this half step (without it, a
	 * stiff spring against a contact constraint is explicit) */
	for (size_t k = 0; k < n3; k++)
		ms->xt[k] = 0.5 * (ms->x0[k] + x[k]);
	linearize(ms, ms->xt, h);
	forces(ms, ms->F);
	for (size_t k = 0; k < n3; k++)
		ms->b[k] = ms->m[k / 3] * ms->vs[k] + h * ms->F[k];
	/* initial guess: the first half step's velocity (still in ms->vh),
	 * with the held normal velocity of points in contact */
	for (size_t i = 0; i < np; i++)
		if (ms->contact[i]) {
			const double *N = ms->cN + 3 * i;
			double *g = ms->vh + 3 * i;
			v3axpy(v3dot(ms->vs + 3 * i, N) - v3dot(g, N), N, g);
		}
	/* a rank knows the contacts of its own particles alone */
	if (by_rank(ms) && nb)
		share(ms, ms->vh);
	cg_solve(ms, h, ms->b, ms->vh, 1);

	/* B.6, B.7: extrapolate; for particles in contact use the forces
	 * without the projection (v~_NP) and apply Gamma, which restores the
	 * normal velocity and adds the friction the projection left out */
	memcpy(ms->q, ms->F, n3 * sizeof *v);
	damp_force(ms, ms->vh, ms->q);
	prange R = { 1, { 0, 0 }, { np, 0 } };
	const int split = by_rank(ms) && nb;
	if (split)
		own(ms, &R);
	RANGES(R, g)
	for (size_t i = R.lo[g]; i < R.hi[g]; i++) {
		double *vi = v + 3 * i;
		if (ms->fixed[i]) {
			memcpy(vi, ms->vfix + 3 * i, 3 * sizeof *v);
			continue;
		}
		if (!ms->contact[i]) {
			for (int d = 0; d < 3; d++)
				vi[d] = 2 * ms->vh[3 * i + d] - ms->vs[3 * i + d];
			continue;
		}
		double vnp[3];
		const double *N = ms->cN + 3 * i;
		for (int d = 0; d < 3; d++)
			vnp[d] = ms->vs[3 * i + d] + 2 * h / ms->m[i] *
				ms->q[3 * i + d];
		/* The unprojected forces may pull a point off the body; that
		 * pull is explicit here (the projected solve held the normal
		 * velocity), so with stiff springs it would be unstable.  A
		 * point leaves the body only through the next unconstrained
		 * solve (B.1): here the normal velocity is at most the held
		 * one, and only its inward part feeds the friction of Gamma. */
		double vnN = v3dot(vnp, N), vpN = v3dot(ms->vs + 3 * i, N);
		if (vnN > vpN)
			v3axpy(vpN - vnN, N, vnp);
		body_gamma(vnp, N, ms->cvB + 3 * i, ms->cmu[i], vi);
	}
	if (split)
		share(ms, v);

	/* B.8: inelastic self-repulsion and friction on the final velocity */
	if (ms->hk.repulse)
		ms->hk.repulse(ms->hk.ctx, x, v, dt, 0);
	for (size_t k = 0; k < n3; k++)
		ms->acc[k] = (v[k] - ms->vn[k]) / dt;
}

double
masspring_energy(masspring *ms)
{
	double e = 0;

	spring_linearize(&ms->spr, ms->x, ms->m, 0);
	e = spring_energy(&ms->spr);
	for (size_t i = 0; i < ms->np; i++)
		e += 0.5 * ms->m[i] * v3dot(ms->v + 3 * i, ms->v + 3 * i) -
			ms->m[i] * v3dot(ms->par.g, ms->x + 3 * i);
	return e;
}

