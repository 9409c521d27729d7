/* project_system.h: the pressure systems of bench/project.sh, built by one
 * function so that bench_project (sluice's solvers) and bench/hypre/
 * hypre_pcg (hypre's PFMG-preconditioned CG) solve the same matrix and
 * right-hand side.
 *
 *   smoke: a closed box of smoke around a resting ball (enclosed,
 *          singular: compatibility condition and null space), velocity
 *          random in (-1, 1);
 *   water: a spherical container half full of water (free surface,
 *          ghost fluid, variational weights), velocity random.
 * Both on an n^3 grid of the unit cube, variational weights (batty2007)
 * from the solid level set (lib/fluid/weights.c), walls of the box at rest.
 */
#ifndef BENCH_PROJECT_SYSTEM_H
#define BENCH_PROJECT_SYSTEM_H

#include <math.h>
#include <stdlib.h>

#include "fluid/pressure.h"
#include "fluid/weights.h"

typedef struct bench_sys {
	int n;
	size_t nc;                  /* cells */
	float *solid, *phi, *w[3];  /* phi NULL for smoke */
	psys ps;
	double *b;                  /* right-hand side, nc */
} bench_sys;

/* A uniform variate in (-1, 1) from a 64-bit LCG (Knuth's MMIX constants):
 * the same velocity field in every program that builds the system. */
static inline float
bench_sys_urand(unsigned long *rng)
{
	*rng = *rng * 6364136223846793005UL + 1442695040888963407UL;
	return (float)((double)(*rng >> 11) / 9007199254740992.0 * 2 - 1);
}

static inline void
bench_sys_free(bench_sys *s)
{
	if (s->ps.type)
		psys_free(&s->ps);
	free(s->solid);
	free(s->phi);
	for (int a = 0; a < 3; a++)
		free(s->w[a]);
	free(s->b);
}

/* Build system "smoke" (water = 0) or "water" on an n^3 grid: weights,
 * psys_init and b = psys_rhs.  0, or -1 with err (memory, psys_init,
 * psys_rhs). */
static inline int
bench_sys_build(bench_sys *s, int water, int n, slc_err *err)
{
	unsigned long rng = 2024;
	double dx = 1.0 / n, o[3] = {0, 0, 0};
	size_t nc, nf;
	float *u[3] = {NULL, NULL, NULL};
	int ok = 0;

	*s = (bench_sys){.n = n};
	if (n < 4 || slc_mul3((size_t)n, (size_t)n, (size_t)n, &nc) ||
	    slc_mul3((size_t)n + 1, (size_t)n, (size_t)n, &nf))
		return slc_fail(err, "grid size: %d", n);
	s->nc = nc;
	s->solid = malloc(nc * sizeof *s->solid);
	s->phi = water ? malloc(nc * sizeof *s->phi) : NULL;
	s->b = malloc(nc * sizeof *s->b);
	for (int a = 0; a < 3; a++) {
		s->w[a] = malloc(nf * sizeof(float));
		u[a] = malloc(nf * sizeof(float));
		ok += s->w[a] && u[a];
	}
	if (ok < 3 || !s->solid || (water && !s->phi) || !s->b) {
		slc_fail(err, "out of memory");
		goto fail;
	}
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double x = (i + .5) * dx - .5, y = (j + .5) * dx - .5, z = (k + .5) * dx - .5;
				size_t c = (size_t)i + (size_t)n * ((size_t)j + (size_t)n * k);
				double r = sqrt(x * x + y * y + z * z);
				double yb = y + 0.1;
				s->solid[c] = (float)(water ? 0.48 - r : sqrt(x * x + yb * yb + z * z) - 0.15);
				if (water)
					s->phi[c] = (float)(y - 0.013);
			}
	for (int a = 0; a < 3; a++)
		for (size_t f = 0; f < nf; f++)
			u[a][f] = bench_sys_urand(&rng);
	/* walls of the box at rest */
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++) {
			size_t r = (size_t)(n + 1) * ((size_t)j + (size_t)n * k);
			u[0][r] = u[0][r + n] = 0;
			size_t q = (size_t)j + (size_t)n * ((size_t)(n + 1) * k);
			u[1][q] = u[1][q + (size_t)n * n] = 0;
			size_t t = (size_t)k + (size_t)n * j;
			u[2][t] = u[2][t + (size_t)n * n * n] = 0;
		}
	weights_variational(s->solid, n, n, n, s->w[0], s->w[1], s->w[2]);
	psys_in in = {.ni = n, .nj = n, .nk = n, .dx = dx, .origin = o, .rho = 1000,
		      .wx = s->w[0], .wy = s->w[1], .wz = s->w[2], .phi = s->phi};
	double removed;
	if (psys_init(&s->ps, &in, err) ||
	    psys_rhs(&s->ps, u[0], u[1], u[2], NULL, s->b, &removed, err))
		goto fail;
	for (int a = 0; a < 3; a++)
		free(u[a]);
	return 0;
fail:
	for (int a = 0; a < 3; a++)
		free(u[a]);
	bench_sys_free(s);
	return -1;
}

#endif
