/* bench_surfacer: timings for bench/surfacer.sh.
 *
 *   bench_surfacer mc SHAPE N        marching cubes on an N^3 level set
 *   bench_surfacer parts KERNEL NP   particles -> surface (NP particles)
 *   bench_surfacer grid SHAPE N FILE write the N^3 level set as raw f32
 *
 * SHAPE is `sphere` (radius 0.4 of the box: the usual sparse surface) or
 * `gyroid` (a surface through most blocks: the worst case for skipping).
 * Prints one line: wall and CPU seconds (best of 3), work items,
 * triangles, vertices.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "liquid/mcubes.h"
#include "liquid/partsurf.h"
#include "liquid/surface.h"

#define REPEATS 3

static void
fill(field *f, const char *shape)
{
	long k;

#pragma omp parallel for schedule(static)
	for (k = 0; k < f->nk; k++)
		for (int j = 0; j < f->nj; j++)
			for (int i = 0; i < f->ni; i++) {
				double x[3], v;

				field_pos(f, i, j, (int)k, x);
				if (!strcmp(shape, "gyroid")) {
					double s = 2 * 3.14159265358979 * 6;

					v = (sin(s * x[0]) * cos(s * x[1]) + sin(s * x[1]) * cos(s * x[2]) +
					     sin(s * x[2]) * cos(s * x[0])) / s;
				} else {
					v = sqrt((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5) +
						 (x[2] - 0.5) * (x[2] - 0.5)) - 0.4;
				}
				f->a[FIELD_IDX(f, i, j, k)] = (float)v;
			}
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Best of REPEATS runs: wall seconds, and the process CPU seconds of the
 * same runs in *cpu (the machine is shared, so per-core rates divide by
 * CPU time, which other processes do not inflate). */
static double cpu_best;

static double
best_of(int (*run)(void *), void *arg)
{
	double best = INFINITY;
	int r;

	cpu_best = INFINITY;
	for (r = 0; r < REPEATS; r++) {
		double t0 = omp_get_wtime(), c0 = cpu_now();

		if (run(arg))
			return -1;
		best = fmin(best, omp_get_wtime() - t0);
		cpu_best = fmin(cpu_best, cpu_now() - c0);
	}
	return best;
}

struct mc_arg {
	field f;
	surf_mesh m;
};

static int
run_mc(void *p)
{
	struct mc_arg *a = p;
	slc_err err;

	surf_mesh_free(&a->m);
	if (mc_mesh(&a->f, 0, &a->m, &err)) {
		fprintf(stderr, "bench_surfacer: %s\n", err.msg);
		return -1;
	}
	return 0;
}

struct ps_arg {
	ps_params prm;
	const double *P;
	size_t np;
	surf_mesh m;
};

static int
run_ps(void *p)
{
	struct ps_arg *a = p;
	slc_err err;

	surf_mesh_free(&a->m);
	if (ps_surface(&a->prm, a->P, NULL, a->np, NULL, &a->m, &err)) {
		fprintf(stderr, "bench_surfacer: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	slc_err err;

	if (argc == 4 && !strcmp(argv[1], "mc")) {
		struct mc_arg a;
		int n = atoi(argv[3]);
		double o[3] = { 0, 0, 0 }, t;

		memset(&a, 0, sizeof a);
		if (n < 2 || field_alloc(&a.f, n, n, n, SLC_CELL, o, 1.0 / n, &err))
			return 1;
		fill(&a.f, argv[2]);
		t = best_of(run_mc, &a);
		if (t < 0)
			return 1;
		printf("%.6f %.6f %zu %zu %zu\n", t, cpu_best, field_count(&a.f), a.m.nt, a.m.nv);
		surf_mesh_free(&a.m);
		field_free(&a.f);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "grid")) {
		field f;
		int n = atoi(argv[3]);
		double o[3] = { 0, 0, 0 };
		FILE *out = fopen(argv[4], "wb");

		if (!out || n < 2 || field_alloc(&f, n, n, n, SLC_CELL, o, 1.0 / n, &err))
			return 1;
		fill(&f, argv[2]);
		fwrite(f.a, sizeof(float), field_count(&f), out);
		fclose(out);
		field_free(&f);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "parts")) {
		/* a block of water: particles on a jittered lattice of spacing
		 * h filling a cube, radius h/2 (one per cell of a liquid sim) */
		struct ps_arg a;
		long np = atol(argv[3]), side = (long)cbrt((double)np), q;
		double h = 1.0 / 128, t;
		double *P;

		memset(&a, 0, sizeof a);
		np = side * side * side;
		P = malloc((size_t)np * 3 * sizeof *P);
		if (!P || np < 1)
			return 1;
		srand(3);
		for (q = 0; q < np; q++) {
			long c[3] = { q % side, q / side % side, q / side / side };

			for (int d = 0; d < 3; d++)
				P[3 * q + d] = h * (c[d] + 0.5 + 0.25 * (2.0 * rand() / RAND_MAX - 1));
		}
		ps_params_default(&a.prm, h / 2);
		a.prm.kernel = !strcmp(argv[2], "yu-turk") ? PS_YU_TURK : PS_ZHU_BRIDSON;
		a.P = P;
		a.np = (size_t)np;
		t = best_of(run_ps, &a);
		if (t < 0)
			return 1;
		printf("%.6f %.6f %ld %zu %zu\n", t, cpu_best, np, a.m.nt, a.m.nv);
		surf_mesh_free(&a.m);
		free(P);
		return 0;
	}
	fprintf(stderr, "usage: bench_surfacer mc SHAPE N | parts KERNEL NP | grid SHAPE N FILE\n");
	return 2;
}
