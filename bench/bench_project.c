/* bench_project: iterations and cost of the pressure solve (lib/fluid/pcg.c).
 *
 *   bench_project SYSTEM N PRECOND [TOL]
 *     SYSTEM smoke: a closed box of smoke around a resting ball (enclosed,
 *            singular: compatibility condition and null space), velocity
 *            random in (-1, 1);
 *            water: a spherical container half full of water (free
 *            surface, variational weights), velocity random
 *            (built by bench/project_system.h, shared with the hypre
 *            comparison bench/hypre/hypre_pcg.c)
 *     N      cells per axis;  PRECOND mg | mic0;  TOL default 1e-6
 *   prints: system n precond fluid_cells levels iterations residual
 *           setup_s solve_s ns/(cell*iteration) peak_rss_bytes/cell, then
 *           the CPU seconds of setup+solve (all threads) and CPU
 *           ns/(cell*iteration): on a shared machine wall-clock figures
 *           include waiting for the cores
 *   bench_project rss PROGRAM [ARG]...
 *     runs PROGRAM and prints its peak resident set size in bytes
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fluid/pcg.h"
#include "project_system.h"

static int
rss(char **argv)
{
	pid_t pid = fork();
	int st;
	struct rusage ru;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%ld\n", ru.ru_maxrss * 1024L);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "rss"))
		return rss(argv + 2);
	if (argc < 4) {
		fprintf(stderr, "usage: bench_project smoke|water N mg|mic0 [TOL]\n");
		return 2;
	}
	int water = !strcmp(argv[1], "water"), n = atoi(argv[2]);
	int pc = !strcmp(argv[3], "mic0") ? PCG_MIC0 : PCG_MG;
	double tol = argc > 4 ? atof(argv[4]) : 1e-6;
	bench_sys sy;
	slc_err err;
	if (bench_sys_build(&sy, water, n, &err)) {
		fprintf(stderr, "bench_project: %s\n", err.msg);
		return 1;
	}
	size_t nc = sy.nc;
	const psys *ps = &sy.ps;
	double *b = sy.b, *x = malloc(nc * sizeof *x);
	if (!x)
		return 1;
	size_t fluid = 0;
	for (size_t c = 0; c < nc; c++)
		fluid += ps->type[c] == PS_FLUID;
	pcg_opts po = {pc, tol, 3000};
	pcg_stats st;
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	int rc = pcg_solve(ps, b, x, &po, &st, &err);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
	if (rc) {
		fprintf(stderr, "bench_project: %s\n", err.msg);
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s %d %s %zu %d %d %.3g %.3f %.3f %.1f %.0f %.3f %.1f\n", argv[1], n, argv[3],
	       fluid, st.levels, st.iters, st.residual, st.t_setup, st.t_solve,
	       1e9 * st.t_solve / ((double)nc * (st.iters ? st.iters : 1)),
	       ru.ru_maxrss * 1024.0 / (double)nc, cpu,
	       1e9 * cpu / ((double)nc * (st.iters ? st.iters : 1)));
	free(x);
	bench_sys_free(&sy);
	return st.converged ? 0 : 1;
}
