/* cloth.c: Newmark time stepping of cloth with body collisions and
 * friction (selle2008 thesis §5.4, §5.5, §6.2, §6.5); see cloth.h. */
#include "cloth/cloth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloth/cloth_vec.h"
#include "cloth/collide_self.h"

/* selle2008 table 6.1 */
#define TABLE61_CG_TOL 1e-3
#define TABLE61_G 9.8
#define TABLE61_H 0.01
#define TABLE61_K 30.0
#define DEFAULT_LOOPS 8         /* k_i: table 6.1 gives 4-16 */
#define DEFAULT_CG_MAX 500
#define DEFAULT_COLL_ITERS 8
/* Blocks of the fixed partition used for dot products, so that sums do
 * not depend on the number of threads. */
#define DOT_BLOCKS 64

/* Wall-clock seconds, for the timing statistics. */
static double
cloth_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void
cloth_params_default(cloth_params *p)
{
	memset(p, 0, sizeof *p);
	spring_params_default(&p->spring);
	p->g[1] = -TABLE61_G;
	p->cg_tol = TABLE61_CG_TOL;
	p->cg_max = DEFAULT_CG_MAX;
	p->implicit_springs = 1;
	p->thickness = TABLE61_H;
	p->k_rep = TABLE61_K;
	p->mu_self = 0.1;
	p->loops = DEFAULT_LOOPS;
	p->coll_iters = DEFAULT_COLL_ITERS;
}

void
cloth_free(cloth *c)
{
	collide_self_free(c->cs);
	cloth_mesh_free(&c->mesh);
	spring_free(&c->spr);
	cloth_sys_free(&c->sys);
	free(c->x); free(c->v); free(c->m); free(c->fixed); free(c->vfix);
	free(c->x0); free(c->vn); free(c->vs); free(c->vh); free(c->xt);
	free(c->F); free(c->b); free(c->r); free(c->z); free(c->p);
	free(c->q); free(c->diag); free(c->cN); free(c->cvB); free(c->cmu);
	free(c->acc);
	free(c->contact); free(c->nrm); free(c->area);
	memset(c, 0, sizeof *c);
}

int
cloth_init(cloth *c, size_t np, size_t nt, const uint32_t *tri,
	   const double *x, const double *v, const double *xrest,
	   const double *m, const cloth_params *par, slc_err *err)
{
	size_t n3;

	memset(c, 0, sizeof *c);
	c->par = *par;
	c->np = np;
	if (slc_mul(np, 3, &n3))
		return slc_fail(err, "point count overflows");
	for (size_t i = 0; i < np; i++)
		if (!(m[i] > 0) || !isfinite(m[i]))
			return slc_fail(err, "point %zu: mass %g is not positive",
					i, m[i]);
	if (cloth_mesh_build(&c->mesh, np, nt, tri, err))
		return -1;
	if (spring_build(&c->spr, &c->mesh, xrest ? xrest : x, &par->spring,
			 err)) {
		cloth_free(c);
		return -1;
	}
	if (cloth_sys_build(&c->sys, &c->spr, err)) {
		cloth_free(c);
		return -1;
	}
	double **vec[] = { &c->x, &c->v, &c->vfix, &c->x0, &c->vn, &c->vs,
		&c->vh, &c->xt, &c->F, &c->b, &c->r, &c->z, &c->p, &c->q,
		&c->cN, &c->cvB, &c->nrm, &c->acc };
	for (size_t k = 0; k < sizeof vec / sizeof *vec; k++)
		if (!(*vec[k] = slc_calloc(n3 + 1, sizeof(double), err))) {
			cloth_free(c);
			return -1;
		}
	size_t n9;
	if (slc_mul(np, 9, &n9)) {
		cloth_free(c);
		return slc_fail(err, "point count overflows");
	}
	if (!(c->diag = slc_calloc(n9 + 1, sizeof *c->diag, err))) {
		cloth_free(c);
		return slc_failctx(err, "preconditioner blocks: ");
	}
	c->m = slc_calloc(np + 1, sizeof *c->m, err);
	c->area = slc_calloc(np + 1, sizeof *c->area, err);
	c->cmu = slc_calloc(np + 1, sizeof *c->cmu, err);
	c->fixed = slc_calloc(np + 1, 1, err);
	c->contact = slc_calloc(np + 1, 1, err);
	if (!c->m || !c->area || !c->cmu || !c->fixed || !c->contact) {
		cloth_free(c);
		return -1;
	}
	memcpy(c->x, x, n3 * sizeof *x);
	if (v)
		memcpy(c->v, v, n3 * sizeof *v);
	memcpy(c->m, m, np * sizeof *m);
	for (size_t i = 0; i < np; i++)
		memcpy(c->acc + 3 * i, par->g, sizeof par->g);
	if (par->self && !(c->cs = collide_self_new(c, err))) {
		cloth_free(c);
		return -1;
	}
	return 0;
}

void
cloth_constrain(cloth *c, size_t i, const double vel[3])
{
	c->fixed[i] = 1;
	memcpy(c->vfix + 3 * i, vel, 3 * sizeof *vel);
	memcpy(c->v + 3 * i, vel, 3 * sizeof *vel);
}

/* Deterministic dot product over a fixed block partition. */
static double
dot(const double *a, const double *b, size_t n)
{
	double part[DOT_BLOCKS], s = 0;

#pragma omp parallel for schedule(static) if (n > CLOTH_OMP_MIN)
	for (int k = 0; k < DOT_BLOCKS; k++) {
		size_t lo = n * (size_t)k / DOT_BLOCKS;
		size_t hi = n * (size_t)(k + 1) / DOT_BLOCKS;
		double t = 0;
		for (size_t i = lo; i < hi; i++)
			t += a[i] * b[i];
		part[k] = t;
	}
	for (int k = 0; k < DOT_BLOCKS; k++)
		s += part[k];
	return s;
}

/* The projection P of §6.5 on one particle: zero for a constrained
 * particle, I - N N^T for a particle in contact (when use_contact). */
static inline void
project(const cloth *c, size_t i, double *a, int use_contact)
{
	if (c->fixed[i]) {
		a[0] = a[1] = a[2] = 0;
	} else if (use_contact && c->contact[i]) {
		const double *N = c->cN + 3 * i;
		v3axpy(-v3dot(a, N), N, a);
	}
}

/* Wind drag coefficient of particle i: linear drag along the normal
 * (§6.6), kg/s. */
static inline double
wind_coef(const cloth *c, size_t i)
{
	return c->par.wind_drag * c->area[i];
}

/* F = velocity-independent forces at the current linearization: springs,
 * gravity, and the wind part of the drag. */
static void
forces(cloth *c, double *F)
{
	const ptrdiff_t np = (ptrdiff_t)c->np;

	memset(F, 0, 3 * c->np * sizeof *F);
	spring_force(&c->spr, F);
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
	for (ptrdiff_t i = 0; i < np; i++) {
		v3axpy(c->m[i], c->par.g, F + 3 * i);
		if (c->par.wind_drag > 0) {
			const double *n = c->nrm + 3 * i;
			v3axpy(wind_coef(c, (size_t)i) * v3dot(c->par.wind, n), n,
			       F + 3 * i);
		}
	}
}

/* F += damping forces at velocity v: springs and wind drag. */
static void
damp_force(cloth *c, const double *v, double *F)
{
	const ptrdiff_t np = (ptrdiff_t)c->np;

	spring_damp_force(&c->spr, v, F);
	if (c->par.wind_drag > 0) {
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
		for (ptrdiff_t i = 0; i < np; i++) {
			const double *n = c->nrm + 3 * i;
			v3axpy(-wind_coef(c, (size_t)i) * v3dot(v + 3 * i, n), n,
			       F + 3 * i);
		}
	}
}

/* y = (M - h D) v, the backward Euler operator of a half step h. */
static void
apply_A(cloth *c, double h, const double *v, double *y)
{
	cloth_sys_apply(&c->sys, c->m, h, v, y);
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
precond(const cloth *c, size_t i, const double *r, double *z, int use_contact)
{
	const double *B = c->diag + 9 * i, *ri = r + 3 * i;
	double *zi = z + 3 * i;

	for (int k = 0; k < 3; k++)
		zi[k] = B[3 * k] * ri[0] + B[3 * k + 1] * ri[1] + B[3 * k + 2] * ri[2];
	project(c, i, zi, use_contact);
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
cg_solve(cloth *c, double h, const double *rhs, double *v, int use_contact)
{
	const ptrdiff_t np = (ptrdiff_t)c->np, n3 = 3 * np;
	double *r = c->r, *z = c->z, *p = c->p, *q = c->q, *d = c->diag;
	double rz, tol = c->par.cg_tol;

#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
	for (ptrdiff_t i = 0; i < np; i++) {
		double *B = d + 9 * i;
		const double *Dii = c->sys.D + SYS_BLK * c->sys.dpos[i];
		static const int up[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
		for (int k = 0; k < 9; k++)
			B[k] = (k % 4 ? 0 : c->m[i]) - h * Dii[up[k]];
		inv3_sym(B);
		if (c->fixed[i])
			memcpy(v + 3 * i, c->vfix + 3 * i, 3 * sizeof *v);
	}
	apply_A(c, h, v, q);
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
	for (ptrdiff_t i = 0; i < np; i++) {
		for (ptrdiff_t k = 3 * i; k < 3 * i + 3; k++)
			r[k] = rhs[k] - q[k];
		project(c, (size_t)i, r + 3 * i, use_contact);
		precond(c, (size_t)i, r, z, use_contact);
		memcpy(p + 3 * i, z + 3 * i, 3 * sizeof *p);
	}
	rz = dot(r, z, (size_t)n3);
	c->st.cg_solves++;
	for (int it = 0;; it++) {
		double rmax = 0;
#pragma omp parallel for schedule(static) reduction(max:rmax) if (np > CLOTH_OMP_MIN)
		for (ptrdiff_t k = 0; k < n3; k++) {
			double e = fabs(r[k]) / c->m[k / 3];
			if (e > rmax)
				rmax = e;
		}
		if (rmax <= tol)
			break;
		/* a capped solve is kept (the step stays stable, only less
		 * damped than asked) but counted, so that the tool can say so */
		if (it == c->par.cg_max) {
			c->st.cg_capped++;
			if (rmax > c->st.cg_worst)
				c->st.cg_worst = rmax;
			break;
		}
		c->st.cg_iters++;
		apply_A(c, h, p, q);
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
		for (ptrdiff_t i = 0; i < np; i++)
			project(c, (size_t)i, q + 3 * i, use_contact);
		double pq = dot(p, q, (size_t)n3);
		if (!(pq > 0))
			break;
		double al = rz / pq;
#pragma omp parallel for schedule(static) if (np > CLOTH_OMP_MIN)
		for (ptrdiff_t i = 0; i < np; i++) {
			for (ptrdiff_t k = 3 * i; k < 3 * i + 3; k++) {
				v[k] += al * p[k];
				r[k] -= al * q[k];
			}
			precond(c, (size_t)i, r, z, use_contact);
		}
		double rz1 = dot(r, z, (size_t)n3);
		double be = rz1 / rz;
		rz = rz1;
#pragma omp parallel for schedule(static) if (n3 > CLOTH_OMP_MIN)
		for (ptrdiff_t k = 0; k < n3; k++)
			p[k] = z[k] + be * p[k];
	}
}

/* Linearize springs, normals and areas at positions x for a half step
 * whose implicit spring time is tau. */
static void
linearize(cloth *c, const double *x, double tau)
{
	spring_linearize(&c->spr, x, c->m, c->par.implicit_springs ? tau : 0);
	if (c->par.wind_drag > 0)
		cloth_mesh_normals(&c->mesh, x, c->nrm, c->area);
	cloth_sys_assemble(&c->sys, &c->spr, c->par.wind_drag, c->area, c->nrm);
}

/* Step B.4 for particle i (§6.5): find where the level set changes sign
 * along the step, x^c = x^n + theta dt v~^{n+1/2}, then move for the rest
 * of the step with v_*^{n+1/2} = Gamma(v~^{n+1/2}); v_*^n = Gamma(v^n). */
static void
body_collide(cloth *c, size_t i, double t1, double dt,
	     const cloth_body *bodies, int nb)
{
	double *x = c->x + 3 * i, *vs = c->vs + 3 * i;
	const double *x0 = c->x0 + 3 * i, *vh = c->vh + 3 * i;

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
		c->contact[i] = 1;
		memcpy(c->cN + 3 * i, N, sizeof N);
		memcpy(c->cvB + 3 * i, vB, sizeof vB);
		c->cmu[i] = b->mu;
		c->st.body_contacts++;
	}
}

void
cloth_step(cloth *c, double t, double dt, const cloth_body *bodies, int nb)
{
	const size_t np = c->np, n3 = 3 * np;
	const double h = dt / 2;
	double *x = c->x, *v = c->v;

	c->st.steps++;
	memcpy(c->x0, x, n3 * sizeof *x);
	memcpy(c->vn, v, n3 * sizeof *v);
	for (size_t i = 0; i < np; i++)
		if (c->fixed[i])
			memcpy(c->vn + 3 * i, c->vfix + 3 * i, 3 * sizeof *v);

	/* B.1: v~^{n+1/2} = v^n + dt/2 a(x^n, v~^{n+1/2}); §5.5: the springs
	 * are implicit in the position x^n + dt v~^{n+1/2} that B.3 makes */
	linearize(c, x, dt);
	forces(c, c->F);
	for (size_t k = 0; k < n3; k++)
		c->b[k] = c->m[k / 3] * c->vn[k] + h * c->F[k];
	/* first guess: the last step's acceleration over the half step (in
	 * a free fall the answer; at rest no change) */
	for (size_t k = 0; k < n3; k++)
		c->vh[k] = c->vn[k] + h * c->acc[k];
	cg_solve(c, h, c->b, c->vh, 0);

	/* B.2: self-repulsions change the velocity that moves the points */
	if (c->cs) {
		double t0 = cloth_clock();
		collide_self_repulse(c->cs, x, c->vh, dt, 1);
		c->st.t_repulsion += cloth_clock() - t0;
	}

	/* B.3, B.4: x~^{n+1} = x^n + dt v~^{n+1/2}, then body collisions */
	memcpy(c->vs, c->vn, n3 * sizeof *v);
	memset(c->contact, 0, np);
	for (size_t k = 0; k < n3; k++)
		x[k] = c->x0[k] + dt * c->vh[k];
	for (size_t i = 0; i < np; i++)
		if (!c->fixed[i])
			body_collide(c, i, t + dt, dt, bodies, nb);

	/* B.5: v^{n+1/2} = v_*^n + dt/2 a(x^{n+1/2}, v^{n+1/2}) with the
	 * normal velocity of particles in contact held by the projection;
	 * §5.5 again, implicit at the end of this half step (without it, a
	 * stiff spring against a contact constraint is explicit) */
	for (size_t k = 0; k < n3; k++)
		c->xt[k] = 0.5 * (c->x0[k] + x[k]);
	linearize(c, c->xt, h);
	forces(c, c->F);
	for (size_t k = 0; k < n3; k++)
		c->b[k] = c->m[k / 3] * c->vs[k] + h * c->F[k];
	/* initial guess: the first half step's velocity (still in c->vh),
	 * with the held normal velocity of points in contact */
	for (size_t i = 0; i < np; i++)
		if (c->contact[i]) {
			const double *N = c->cN + 3 * i;
			double *g = c->vh + 3 * i;
			v3axpy(v3dot(c->vs + 3 * i, N) - v3dot(g, N), N, g);
		}
	cg_solve(c, h, c->b, c->vh, 1);

	/* B.6, B.7: extrapolate; for particles in contact use the forces
	 * without the projection (v~_NP) and apply Gamma, which restores the
	 * normal velocity and adds the friction the projection left out */
	memcpy(c->q, c->F, n3 * sizeof *v);
	damp_force(c, c->vh, c->q);
	for (size_t i = 0; i < np; i++) {
		double *vi = v + 3 * i;
		if (c->fixed[i]) {
			memcpy(vi, c->vfix + 3 * i, 3 * sizeof *v);
			continue;
		}
		if (!c->contact[i]) {
			for (int d = 0; d < 3; d++)
				vi[d] = 2 * c->vh[3 * i + d] - c->vs[3 * i + d];
			continue;
		}
		double vnp[3];
		const double *N = c->cN + 3 * i;
		for (int d = 0; d < 3; d++)
			vnp[d] = c->vs[3 * i + d] + 2 * h / c->m[i] *
				c->q[3 * i + d];
		/* The unprojected forces may pull a point off the body; that
		 * pull is explicit here (the projected solve held the normal
		 * velocity), so with stiff springs it would be unstable.  A
		 * point leaves the body only through the next unconstrained
		 * solve (B.1): here the normal velocity is at most the held
		 * one, and only its inward part feeds the friction of Gamma. */
		double vnN = v3dot(vnp, N), vpN = v3dot(c->vs + 3 * i, N);
		if (vnN > vpN)
			v3axpy(vpN - vnN, N, vnp);
		body_gamma(vnp, N, c->cvB + 3 * i, c->cmu[i], vi);
	}

	/* B.8: inelastic self-repulsion and friction on the final velocity */
	if (c->cs) {
		double t0 = cloth_clock();
		collide_self_repulse(c->cs, x, v, dt, 0);
		c->st.t_repulsion += cloth_clock() - t0;
	}
	for (size_t k = 0; k < n3; k++)
		c->acc[k] = (v[k] - c->vn[k]) / dt;
}

double
cloth_energy(cloth *c)
{
	double e = 0;

	spring_linearize(&c->spr, c->x, c->m, 0);
	e = spring_energy(&c->spr);
	for (size_t i = 0; i < c->np; i++)
		e += 0.5 * c->m[i] * v3dot(c->v + 3 * i, c->v + 3 * i) -
			c->m[i] * v3dot(c->par.g, c->x + 3 * i);
	return e;
}

int
cloth_advance(cloth *c, double t, double T, int nsteps,
	      const cloth_body *bodies, int nb, slc_err *err)
{
	const size_t np = c->np, n3 = 3 * np;
	double dt, tc;

	if (nsteps < 1 || !(T > 0))
		return slc_fail(err, "bad time span %g in %d steps", T, nsteps);
	dt = T / nsteps;
	if (!c->cs) {
		tc = cloth_clock();
		for (int s = 0; s < nsteps; s++)
			cloth_step(c, t + s * dt, dt, bodies, nb);
		c->st.t_integration += cloth_clock() - tc;
		return 0;
	}
	/* §6.3: the outer collision loop.  Positions are collision free at
	 * the start and end of each collision step of k_i time steps. */
	double *xs = slc_calloc(n3 + 1, sizeof *xs, err);
	uint8_t *moved = slc_calloc(np + 1, 1, err);
	int ret = 0;
	if (!xs || !moved) {
		free(xs);
		free(moved);
		return -1;
	}
	for (int s = 0; s < nsteps && !ret; ) {
		int k = c->par.loops < 1 ? 1 : c->par.loops;
		if (k > nsteps - s)
			k = nsteps - s;
		memcpy(xs, c->x, n3 * sizeof *xs);
		/* A: repulsion pairs and their orientation history */
		tc = cloth_clock();
		if (collide_self_pairs(c->cs, c->x, c->v, k * dt, err))
			ret = -1;
		c->st.repulsion_pairs += (long)collide_self_npairs(c->cs);
		c->st.t_repulsion += cloth_clock() - tc;
		/* B: k_i time steps (repulsions timed inside) */
		tc = cloth_clock();
		double trep = c->st.t_repulsion;
		for (int j = 0; j < k && !ret; j++)
			cloth_step(c, t + (s + j) * dt, dt, bodies, nb);
		c->st.t_integration += cloth_clock() - tc -
			(c->st.t_repulsion - trep);
		/* C: robust collisions on the straight paths from xs; moved
		 * points take their new effective velocity */
		tc = cloth_clock();
		memset(moved, 0, np);
		if (!ret && collide_self_resolve(c->cs, xs, c->x, k * dt, moved,
						 &c->st.collisions,
						 &c->st.impact_zones, err))
			ret = -1;
		for (size_t i = 0; i < np; i++)
			if (moved[i] && !c->fixed[i])
				for (int d = 0; d < 3; d++)
					c->v[3 * i + d] = (c->x[3 * i + d] -
						xs[3 * i + d]) / (k * dt);
		c->st.t_collision += cloth_clock() - tc;
		s += k;
	}
	free(xs);
	free(moved);
	return ret;
}
