/* pcg.c: preconditioned conjugate gradient with MIC(0) or multigrid. */
#include "fluid/pcg.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fluid/mg.h"
#include "fluid/mic0.h"

typedef struct precond {
	int kind;
	mg *mg;
	mic0 *mic;
} precond;

/* z = M r; returns r.z. */
static double
pc_apply(const psys *ps, precond *P, const double *r, double *z)
{
	if (P->kind == PCG_MG)
		return mg_apply(P->mg, r, z);    /* r.z summed on the way */
	if (P->kind == PCG_MIC0)
		mic0_apply(P->mic, r, z);
	else
		memcpy(z, r, ps->n * sizeof *z);
	/* z keeps its null-space part (constants on enclosed regions): A
	 * ignores it and r, kept free of it, is orthogonal to it, so the
	 * iterates are those of the projected preconditioner but for a
	 * constant in x, removed at the end. */
	return psys_dot(ps, r, z);
}

/* The residual reported, recomputed from x: r = b - A x (q is scratch),
 * kept free of the null space; *rmax gets its max norm.  0, or -1 with
 * err (memory). */
static int
true_residual(const psys *ps, const double *b, const double *x, double *q, double *r,
	      double *rmax, slc_err *err)
{
	size_t n = ps->n;

	psys_apply(ps, x, q);
#pragma omp parallel for schedule(static) if (n > PS_PAR_MIN)
	for (size_t c = 0; c < n; c++)
		r[c] = b[c] - q[c];
	if (psys_null(ps, r, err))
		return -1;
	*rmax = psys_maxabs(ps, r);
	return 0;
}

/* Restarts allowed when the recurrence says converged but the residual
 * recomputed from x does not. */
#define PCG_RESTARTS 2

int
pcg_solve(const psys *ps, const double *b, double *x, const pcg_opts *o,
	  pcg_stats *st, slc_err *err)
{
	size_t n = ps->n;
	double t0 = omp_get_wtime();
	precond P = {o->precond, NULL, NULL};

	memset(st, 0, sizeof *st);
	memset(x, 0, n * sizeof *x);
	/* not cleared: r is copied from b, z written whole by pc_apply, s
	 * and q by psys_apply_cg with beta = 0 before any read */
	double *r = slc_malloc(n, sizeof *r, err);
	double *z = r ? slc_malloc(n, sizeof *z, err) : NULL;
	double *s = z ? slc_malloc(n, sizeof *s, err) : NULL;
	double *q = s ? slc_malloc(n, sizeof *q, err) : NULL;
	if (!q)
		goto fail;
	if (P.kind == PCG_MG) {
		if (!(P.mg = mg_new(ps, err)))
			goto fail;
		st->levels = mg_levels(P.mg);
		st->levels_cut = mg_levels_cut(P.mg);
	} else if (P.kind == PCG_MIC0) {
		if (!(P.mic = mic0_new(ps, err)))
			goto fail;
	}
	double t1 = omp_get_wtime();
	double c1 = ps->tcomm ? *ps->tcomm : 0;
	st->t_setup = t1 - t0;

	memcpy(r, b, n * sizeof *r);
	if (psys_null(ps, r, err))
		goto fail;
	double bnorm = psys_maxabs(ps, r);
	if (!(bnorm > 0)) {
		st->converged = 1;
		goto done;
	}
	st->residual = 1;
	for (int restart = 0; restart <= PCG_RESTARTS && st->iters < o->maxiter; restart++) {
		/* s = z = M r, q = A s */
		double rz = pc_apply(ps, &P, r, z);
		double sq = psys_apply_cg(ps, z, 0, s, q);
		int done = 0;
		while (st->iters < o->maxiter) {
			if (!(sq > 0))
				break;  /* breakdown: s in the null space */
			double alpha = rz / sq;
			double rmax = psys_cg_step(ps, alpha, s, q, x, r);
			st->iters++;
			st->residual = rmax / bnorm;
			if (st->residual <= o->tol) {
				done = 1;
				break;
			}
			double rz1 = pc_apply(ps, &P, r, z);
			double beta = rz1 / rz;
			rz = rz1;
			/* s = z + beta s, q = A s (as A z + beta q), s.q */
			sq = psys_apply_cg(ps, z, beta, s, q);
		}
		double rtrue;
		if (true_residual(ps, b, x, q, r, &rtrue, err))
			goto fail;
		st->residual = rtrue / bnorm;
		if (st->residual <= o->tol) {
			st->converged = 1;
			break;
		}
		if (!done)
			break;  /* out of iterations, or breakdown */
	}
	if (psys_null(ps, x, err))
		goto fail;
done:
	if (ps->cfail && *ps->cfail) {
		slc_fail(err, "pressure solve: an exchange between MPI ranks failed");
		goto fail;
	}
	st->t_solve = omp_get_wtime() - t1;
	st->t_comm = ps->tcomm ? *ps->tcomm - c1 : 0;
	mg_free(P.mg);
	mic0_free(P.mic);
	free(r);
	free(z);
	free(s);
	free(q);
	return 0;
fail:
	mg_free(P.mg);
	mic0_free(P.mic);
	free(r);
	free(z);
	free(s);
	free(q);
	return -1;
}
