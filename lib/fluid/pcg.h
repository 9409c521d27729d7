/* pcg.h: preconditioned conjugate gradient for the pressure system.
 *
 * Matrix-free on the MAC grid (psys_apply), double precision vectors,
 * with MIC(0) (lib/fluid/mic0.h) or a multigrid V-cycle (lib/fluid/mg.h, McAdams et
 * al. 2010) as the preconditioner.  Enclosed regions are singular: the
 * right-hand side must satisfy the compatibility condition (psys_rhs does
 * this) and the residual and the result are kept free of the null space (selle2008 §4.4.2, "a version of the conjugate gradient
 * algorithm that can be applied to this matrix").  Convergence: the max
 * norm of the residual at most tol times the max norm of b.  The result
 * does not depend on the number of threads.
 */
#ifndef SLC_PCG_H
#define SLC_PCG_H

#include "fluid/pressure.h"

enum pcg_precond { PCG_MG = 0, PCG_MIC0 = 1, PCG_NONE = 2 };

typedef struct pcg_opts {
	int precond;        /* enum pcg_precond */
	double tol;         /* relative max-norm residual */
	int maxiter;
} pcg_opts;

typedef struct pcg_stats {
	int iters;
	double residual;    /* final relative residual (max norm) */
	int converged;
	double t_setup, t_solve;    /* seconds (wall clock) */
	double t_comm;      /* over MPI ranks: seconds of t_solve spent in
			       exchanges between them (psys.tcomm), 0 for
			       one process */
	int levels;         /* multigrid levels, 0 for others */
	int levels_cut;     /* over MPI ranks: those cut in k slabs (the
			       others gathered whole on every rank) */
} pcg_stats;

/* Solve A x = b for x (n doubles, overwritten; the guess is zero).  In
 * each enclosed region x has zero mean.  Returns 0 (converged or not: see
 * st->converged), or -1 with err when out of memory. */
int pcg_solve(const psys *ps, const double *b, double *x, const pcg_opts *o,
	      pcg_stats *st, slc_err *err);

#endif
