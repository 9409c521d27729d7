/* bench_mklevelset: speed of mesh -> signed distance (lib/geom/sdf.c) on a
 * bumpy torus of about 100k triangles, with a 3-cell band.
 *
 *   bench_mklevelset mesh FILE        write the torus for the OpenVDB
 *                                     bench (u32 nv, u32 nt, f32 P, u32 tri)
 *   bench_mklevelset run RES MODE     one timing on a RES^3 grid: MODE
 *                                     narrow (band and sign only, best of
 *                                     3) or full (whole grid marched, one
 *                                     run); prints
 *                                     "cells seconds triangles dx x0 y0 z0 ni nj nk cpu"
 *                                     (seconds: wall clock; cpu: the
 *                                     process's CPU seconds, best of the
 *                                     runs too)
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "geom/sdf.h"

#define NU 224                  /* around the ring */
#define NV 224                  /* around the tube: 2*NU*NV = 100352 tris */
#define R_RING 0.3
#define R_TUBE 0.12
#define BAND 3.0
#define PAD (BAND + 1)

static void
torus(double **P, uint32_t **tri, size_t *nv, size_t *nt)
{
	size_t u, v, q = 0;

	*nv = (size_t)NU * NV;
	*nt = 2 * *nv;
	*P = calloc(*nv * 3, sizeof **P);
	*tri = calloc(*nt * 3, sizeof **tri);
	for (u = 0; u < NU; u++)
		for (v = 0; v < NV; v++) {
			double a = 2 * M_PI * u / NU, b = 2 * M_PI * v / NV;
			double r = R_TUBE * (1 + 0.15 * sin(5 * a) * sin(3 * b));
			double *p = *P + 3 * (u * NV + v);
			p[0] = (R_RING + r * cos(b)) * cos(a);
			p[1] = r * sin(b);
			p[2] = (R_RING + r * cos(b)) * sin(a);
		}
	for (u = 0; u < NU; u++)
		for (v = 0; v < NV; v++) {
			uint32_t a = (uint32_t)(u * NV + v);
			uint32_t b = (uint32_t)(((u + 1) % NU) * NV + v);
			uint32_t c = (uint32_t)(((u + 1) % NU) * NV + (v + 1) % NV);
			uint32_t d = (uint32_t)(u * NV + (v + 1) % NV);
			uint32_t f[6] = { a, b, c, a, c, d };
			memcpy(*tri + 3 * q, f, sizeof f);
			q += 2;
		}
}

/* CPU seconds of the process so far (every thread). */
static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	double *P, lo[3] = { INFINITY, INFINITY, INFINITY };
	double hi[3] = { -INFINITY, -INFINITY, -INFINITY }, best = INFINITY;
	double best_cpu = INFINITY;
	uint32_t *tri;
	size_t nv, nt, q;
	slc_grid g;
	field phi;
	slc_err err;

	if (argc < 3)
		return 2;
	torus(&P, &tri, &nv, &nt);
	if (!strcmp(argv[1], "mesh")) {
		FILE *f = fopen(argv[2], "wb");
		uint32_t h[2] = { (uint32_t)nv, (uint32_t)nt };
		if (!f)
			return 1;
		fwrite(h, sizeof h, 1, f);
		for (q = 0; q < 3 * nv; q++) {
			float x = (float)P[q];
			fwrite(&x, sizeof x, 1, f);
		}
		fwrite(tri, sizeof *tri, 3 * nt, f);
		return fclose(f) ? 1 : 0;
	}
	if (argc < 4)
		return 2;
	/* the same float vertices the OpenVDB bench reads */
	for (q = 0; q < 3 * nv; q++) {
		P[q] = (float)P[q];
		lo[q % 3] = fmin(lo[q % 3], P[q]);
		hi[q % 3] = fmax(hi[q % 3], P[q]);
	}
	/* a cubic box around the torus, so that RES gives a RES^3 grid */
	{
		double ext = 0, mid;
		for (q = 0; q < 3; q++)
			ext = fmax(ext, hi[q] - lo[q]);
		for (q = 0; q < 3; q++) {
			mid = (lo[q] + hi[q]) / 2;
			lo[q] = mid - ext / 2;
			hi[q] = mid + ext / 2;
		}
	}
	if (sdf_place(lo, hi, PAD, 0, atol(argv[2]), &g, &err) ||
	    field_alloc(&phi, g.ni, g.nj, g.nk, SLC_CELL, g.origin, g.dx, &err)) {
		fprintf(stderr, "bench_mklevelset: %s\n", err.msg);
		return 1;
	}
	/* best of 3 for the narrow band, one run of the (long) full grid */
	for (int rep = 0; rep < (strcmp(argv[3], "narrow") ? 1 : 3); rep++) {
		sdf_opts o = { BAND, 0, !strcmp(argv[3], "narrow") };
		double t0 = omp_get_wtime(), c0 = cpu_seconds(), t;
		if (sdf_mesh(&phi, P, nv, tri, nt, &o, NULL, NULL, &err)) {
			fprintf(stderr, "bench_mklevelset: %s\n", err.msg);
			return 1;
		}
		t = omp_get_wtime() - t0;
		best = fmin(best, t);
		best_cpu = fmin(best_cpu, cpu_seconds() - c0);
	}
	printf("%zu %.6f %zu %.9g %.9g %.9g %.9g %d %d %d %.6f\n", field_count(&phi),
	       best, nt, g.dx, g.origin[0], g.origin[1], g.origin[2], g.ni, g.nj,
	       g.nk, best_cpu);
	field_free(&phi);
	free(P);
	free(tri);
	return 0;
}
