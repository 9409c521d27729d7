/* hypre_pcg: the pressure systems of bench/project.sh solved by hypre's
 * conjugate gradient with its PFMG multigrid preconditioner, for the
 * comparison with sluice's MG-PCG (lib/fluid/pcg.c).  Bench only: built by
 * bench/project.sh with mpicc when libhypre-dev is installed, never by
 * make (it lives below bench/, out of the Makefile's wildcard).
 *
 *   [mpirun -np P] hypre_pcg SYSTEM N [TOL [RELAX [SKIP [RAP [LEVELS]]]]]
 *     SYSTEM smoke | water, N cells per axis: the same matrix and
 *     right-hand side as bench_project (bench/project_system.h: variational
 *     face weights, ghost-fluid diagonal terms, compatibility-corrected b),
 *     copied entry by entry from sluice's operator (psys diag, cx, cy, cz)
 *     into a 7-point hypre Struct matrix; cells without an unknown (solid,
 *     air) become identity rows with a zero right-hand side and no coupling,
 *     so the fluid block is exactly sluice's A.  P ranks split the grid into
 *     slabs of k.  TOL default 1e-6.  PFMG, in hypre's numbering: RELAX
 *     the smoother (default 2, symmetric red/black Gauss-Seidel), SKIP its
 *     skip-relax flag (default 1), RAP the coarse operator (default 0,
 *     Galerkin), LEVELS the most levels (default: down to 4x4x4 cells).
 *     The defaults had the least CPU time of the settings tried on the
 *     128^3 smoke system (relax 1 or 2, skip 0 or 1, rap 0 or 1): within
 *     15% of each other, 8 to 12 iterations.
 *
 * sluice stops when max|r| <= TOL max|b|; hypre's PCG can only test the
 * 2-norm.  So hypre first runs to ||r||_2 <= TOL ||b||_2 (its own criterion:
 * iters2), then the smallest iteration count m whose iterate satisfies
 * sluice's max-norm criterion is found by re-solving from zero with exactly
 * m iterations (CG is deterministic: the m-th iterate is the same), and the
 * timed figures are those of that m-iteration solve.  Every residual
 * printed is recomputed from hypre's solution with sluice's own operator
 * (psys_apply), not taken from hypre.
 *
 * prints (rank 0): system n ranks fluid_cells iters2 iters max_rel_residual
 *   two_norm_rel_residual assembly_s setup_s solve_s cpu_s ns/cell/it
 *   peak_rss_bytes/cell; times are wall clock (the slowest rank), cpu_s
 *   the CPU seconds of setup+solve summed over ranks, rss summed over ranks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <HYPRE_struct_ls.h>
#include <mpi.h>

#include "project_system.h"

/* Upper bound on PCG iterations: far above any convergent run here. */
#define MAX_ITERS 2000

/* The 7-point stencil: centre, then -x, +x, -y, +y, -z, +z. */
static int offs[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
			 {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};

static double
cputime(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct hsolve {
	HYPRE_StructSolver pcg, pfmg;
	HYPRE_StructMatrix A;
	HYPRE_StructVector b, x;
	int lo[3], hi[3];
	double *slab;               /* this rank's part of x */
	size_t nslab;
} hsolve;

/* One PCG solve from x = 0 with at most maxit iterations and 2-norm
 * tolerance tol; the iterate is gathered into xfull on rank 0.  Returns
 * the iterations; *t and *cpu get the wall (slowest rank) and CPU
 * (this rank) seconds of the solve. */
static int
run(hsolve *h, int maxit, double tol, double *xfull, const int *cnt,
    const int *disp, double *t, double *cpu)
{
	int it;

	memset(h->slab, 0, h->nslab * sizeof *h->slab);
	HYPRE_StructVectorSetBoxValues(h->x, h->lo, h->hi, h->slab);
	HYPRE_StructVectorAssemble(h->x);
	HYPRE_StructPCGSetMaxIter(h->pcg, maxit);
	HYPRE_StructPCGSetTol(h->pcg, tol);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime(), c0 = cputime();
	HYPRE_StructPCGSolve(h->pcg, h->A, h->b, h->x);
	*cpu = cputime() - c0;
	double dt = MPI_Wtime() - t0;
	MPI_Allreduce(&dt, t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	HYPRE_ClearAllErrors();        /* "not converged" when capped at maxit */
	HYPRE_StructPCGGetNumIterations(h->pcg, &it);
	HYPRE_StructVectorGetBoxValues(h->x, h->lo, h->hi, h->slab);
	MPI_Gatherv(h->slab, (int)h->nslab, MPI_DOUBLE, xfull, cnt, disp, MPI_DOUBLE, 0,
		    MPI_COMM_WORLD);
	return it;
}

/* Relative residuals of x with sluice's operator: max norm (sluice's
 * criterion) and 2-norm (hypre's). */
static void
residual(const psys *ps, const double *b, const double *x, double *r, double *rmax,
	 double *r2)
{
	psys_apply(ps, x, r);
	for (size_t c = 0; c < ps->n; c++)
		r[c] = ps->type[c] == PS_FLUID ? b[c] - r[c] : 0;
	*rmax = psys_maxabs(ps, r) / psys_maxabs(ps, b);
	*r2 = sqrt(psys_dot(ps, r, r) / psys_dot(ps, b, b));
}

int
main(int argc, char **argv)
{
	int rank, np;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc < 3 || (strcmp(argv[1], "smoke") && strcmp(argv[1], "water"))) {
		if (!rank)
			fprintf(stderr, "usage: hypre_pcg smoke|water N [TOL [RELAX [SKIP [RAP [LEVELS]]]]]\n");
		MPI_Finalize();
		return 2;
	}
	int n = atoi(argv[2]);
	double tol = argc > 3 ? atof(argv[3]) : 1e-6;
	int relax = argc > 4 ? atoi(argv[4]) : 2, skip = argc > 5 ? atoi(argv[5]) : 1;
	int rap = argc > 6 ? atoi(argv[6]) : 0, maxlev = argc > 7 ? atoi(argv[7]) : 0;
	if (maxlev <= 0) {
		/* PFMG halves one axis per level; stop at 4x4x4 cells.  The
		 * smoke system is singular: its Galerkin operator on the last,
		 * single cell is zero, which breaks the red/black smoother down
		 * (PCG stops after one iteration), and on 32^3 the levels of
		 * 2x2x2 cells and below doubled the iterations (9 -> 18-20). */
		int h2 = 0;
		while ((4 << h2) < n)
			h2++;
		maxlev = 1 + 3 * h2;
	}
	bench_sys sy;
	slc_err err;
	if (n < np || bench_sys_build(&sy, !strcmp(argv[1], "water"), n, &err)) {
		if (!rank)
			fprintf(stderr, "hypre_pcg: %s\n", n < np ? "grid smaller than ranks" : err.msg);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	const psys *ps = &sy.ps;
	size_t plane = (size_t)n * n;
	int *cnt = malloc((size_t)np * sizeof *cnt), *disp = malloc((size_t)np * sizeof *disp);
	for (int q = 0; q < np; q++) {
		int k0 = (int)((long)n * q / np), k1 = (int)((long)n * (q + 1) / np);
		cnt[q] = (int)plane * (k1 - k0);
		disp[q] = (int)plane * k0;
	}
	hsolve h = {.lo = {0, 0, disp[rank] / (int)plane},
		    .hi = {n - 1, n - 1, (disp[rank] + cnt[rank]) / (int)plane - 1},
		    .nslab = (size_t)cnt[rank]};
	size_t c0 = (size_t)disp[rank];
	double *vals = malloc(7 * h.nslab * sizeof *vals);
	h.slab = malloc(h.nslab * sizeof *h.slab);
	double *xfull = rank ? NULL : malloc(sy.nc * sizeof *xfull);
	double *r = rank ? NULL : malloc(sy.nc * sizeof *r);
	if (!cnt || !disp || !vals || !h.slab || (!rank && (!xfull || !r))) {
		fprintf(stderr, "hypre_pcg: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	MPI_Barrier(MPI_COMM_WORLD);
	double ta = MPI_Wtime();
	HYPRE_StructGrid grid;
	HYPRE_StructStencil st;
	HYPRE_StructGridCreate(MPI_COMM_WORLD, 3, &grid);
	HYPRE_StructGridSetExtents(grid, h.lo, h.hi);
	HYPRE_StructGridAssemble(grid);
	HYPRE_StructStencilCreate(3, 7, &st);
	for (int e = 0; e < 7; e++)
		HYPRE_StructStencilSetElement(st, e, offs[e]);
	/* A row by row from sluice's operator (lib/fluid/pressure.c apply_row):
	 * A_cc = diag, A_c,c+-e = -(coupling of the face between them); the
	 * couplings are zero unless both cells are fluid, and entries reaching
	 * out of the grid stay zero. */
	for (size_t m = 0; m < h.nslab; m++) {
		size_t c = c0 + m;
		int i = (int)(c % (size_t)n), j = (int)(c / (size_t)n % (size_t)n),
		    k = (int)(c / plane);
		double *v = vals + 7 * m;
		memset(v, 0, 7 * sizeof *v);
		if (ps->type[c] != PS_FLUID) {
			v[0] = 1;
			continue;
		}
		v[0] = ps->diag[c];
		v[1] = i > 0 ? -(double)ps->cx[c - 1] : 0;
		v[2] = i < n - 1 ? -(double)ps->cx[c] : 0;
		v[3] = j > 0 ? -(double)ps->cy[c - (size_t)n] : 0;
		v[4] = j < n - 1 ? -(double)ps->cy[c] : 0;
		v[5] = k > 0 ? -(double)ps->cz[c - plane] : 0;
		v[6] = k < n - 1 ? -(double)ps->cz[c] : 0;
	}
	int ent[7] = {0, 1, 2, 3, 4, 5, 6};
	HYPRE_StructMatrixCreate(MPI_COMM_WORLD, grid, st, &h.A);
	HYPRE_StructMatrixInitialize(h.A);
	HYPRE_StructMatrixSetBoxValues(h.A, h.lo, h.hi, 7, ent, vals);
	HYPRE_StructMatrixAssemble(h.A);
	free(vals);
	HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &h.b);
	HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &h.x);
	HYPRE_StructVectorInitialize(h.b);
	HYPRE_StructVectorInitialize(h.x);
	for (size_t m = 0; m < h.nslab; m++)
		h.slab[m] = ps->type[c0 + m] == PS_FLUID ? sy.b[c0 + m] : 0;
	HYPRE_StructVectorSetBoxValues(h.b, h.lo, h.hi, h.slab);
	HYPRE_StructVectorAssemble(h.b);
	memset(h.slab, 0, h.nslab * sizeof *h.slab);
	HYPRE_StructVectorSetBoxValues(h.x, h.lo, h.hi, h.slab);
	HYPRE_StructVectorAssemble(h.x);
	double tasm = MPI_Wtime() - ta;

	/* PCG on the 2-norm of the residual; PFMG as a preconditioner: one
	 * V(1,1) cycle from a zero guess, Galerkin coarse operators. */
	HYPRE_StructPCGCreate(MPI_COMM_WORLD, &h.pcg);
	HYPRE_StructPCGSetTwoNorm(h.pcg, 1);
	HYPRE_StructPCGSetRelChange(h.pcg, 0);
	HYPRE_StructPCGSetLogging(h.pcg, 0);
	HYPRE_StructPCGSetPrintLevel(h.pcg, 0);
	HYPRE_StructPFMGCreate(MPI_COMM_WORLD, &h.pfmg);
	HYPRE_StructPFMGSetMaxIter(h.pfmg, 1);
	HYPRE_StructPFMGSetTol(h.pfmg, 0.0);
	HYPRE_StructPFMGSetZeroGuess(h.pfmg);
	HYPRE_StructPFMGSetRAPType(h.pfmg, rap);
	HYPRE_StructPFMGSetRelaxType(h.pfmg, relax);
	HYPRE_StructPFMGSetNumPreRelax(h.pfmg, 1);
	HYPRE_StructPFMGSetNumPostRelax(h.pfmg, 1);
	HYPRE_StructPFMGSetSkipRelax(h.pfmg, skip);
	HYPRE_StructPFMGSetLogging(h.pfmg, 0);
	HYPRE_StructPFMGSetMaxLevels(h.pfmg, maxlev);
	HYPRE_StructPCGSetPrecond(h.pcg, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, h.pfmg);
	HYPRE_StructPCGSetMaxIter(h.pcg, MAX_ITERS);
	MPI_Barrier(MPI_COMM_WORLD);
	double ts = MPI_Wtime(), cs = cputime();
	HYPRE_StructPCGSetup(h.pcg, h.A, h.b, h.x);
	double csetup = cputime() - cs, tset = MPI_Wtime() - ts;
	MPI_Allreduce(MPI_IN_PLACE, &tset, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

	/* hypre's own criterion, then the search for sluice's: every rank
	 * runs the same sequence, rank 0 decides */
	double tsolve, csolve, t, c, rmax = 0, r2 = 0, best[4] = {0, 0, 0, 0};
	int it2 = run(&h, MAX_ITERS, tol, xfull, cnt, disp, &tsolve, &csolve), m = it2;
	int dir = 0, found = -1;
	for (;;) {
		int pass = 0;
		if (!rank) {
			residual(ps, sy.b, xfull, r, &rmax, &r2);
			pass = rmax <= tol;
		}
		MPI_Bcast(&pass, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (pass) {
			found = m;
			best[0] = tsolve, best[1] = csolve, best[2] = rmax, best[3] = r2;
		}
		if (!dir)
			dir = pass ? -1 : 1;
		if ((dir < 0 && (!pass || m <= 1)) || (dir > 0 && pass) || m >= MAX_ITERS)
			break;
		m += dir;
		int got = run(&h, m, 0.0, xfull, cnt, disp, &t, &c);
		if (got != m)       /* hypre stopped early: an exact solution */
			break;
		tsolve = t, csolve = c;
	}
	double cpu = csetup + best[1], cpusum = 0, rss, rsssum = 0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	rss = ru.ru_maxrss * 1024.0;
	MPI_Reduce(&cpu, &cpusum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&rss, &rsssum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank) {
		size_t fluid = 0;
		for (size_t q = 0; q < sy.nc; q++)
			fluid += ps->type[q] == PS_FLUID;
		if (found < 0)
			printf("%s %d %d %zu %d - %.3g %.3g %.3f %.3f - - - %.0f\n", argv[1], n, np,
			       fluid, it2, rmax, r2, tasm, tset, rsssum / (double)sy.nc);
		else
			printf("%s %d %d %zu %d %d %.3g %.3g %.3f %.3f %.3f %.3f %.1f %.0f\n",
			       argv[1], n, np, fluid, it2, found, best[2], best[3], tasm, tset,
			       best[0], cpusum, 1e9 * best[0] / ((double)sy.nc * (found ? found : 1)),
			       rsssum / (double)sy.nc);
	}
	HYPRE_StructPCGDestroy(h.pcg);
	HYPRE_StructPFMGDestroy(h.pfmg);
	HYPRE_StructMatrixDestroy(h.A);
	HYPRE_StructVectorDestroy(h.b);
	HYPRE_StructVectorDestroy(h.x);
	HYPRE_StructStencilDestroy(st);
	HYPRE_StructGridDestroy(grid);
	free(h.slab);
	free(xfull);
	free(r);
	free(cnt);
	free(disp);
	bench_sys_free(&sy);
	MPI_Finalize();
	return found < 0;
}
