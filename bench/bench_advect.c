/* bench_advect.c: advection speed against a memory-bandwidth triad, and
 * Zalesak's disc (selle2008 thesis §2.8) at thesis resolutions.
 *
 *   bench_advect speed N [S]    one N^3 cell field: triad GB/s, then
 *                               cells/s of sl, maccormack, bfecc (best of
 *                               3) by wall clock and by process CPU time;
 *                               S: one scheme only (0 sl, 1 mc, 2 bfecc)
 *   bench_advect zalesak CFL N...   mean error over the inscribed disc and
 *                               the thesis' pointwise order, per scheme
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fluid/advect.h"

#define REPS 3                  /* best of */
#define ZAL_OMEGA (M_PI / 314)  /* thesis §2.8: one turn in 628 s */
#define ZAL_TIME 628.0

/* STREAM-style triad a = b + s c over n floats; bytes moved / best time. */
static double
triad(size_t n)
{
	float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
	double best = INFINITY;
	size_t i;
	int r;

	if (!a || !b || !c)
		return 0;
#pragma omp parallel for schedule(static)
	for (i = 0; i < n; i++) {
		a[i] = 0;
		b[i] = 1;
		c[i] = 2;
	}
	for (r = 0; r < REPS + 1; r++) {
		double t = omp_get_wtime();

#pragma omp parallel for schedule(static)
		for (i = 0; i < n; i++)
			a[i] = b[i] + 0.5f * c[i];
		t = omp_get_wtime() - t;
		if (r > 0 && t < best)
			best = t;
	}
	fprintf(stderr, "(triad check %g)\n", (double)a[n / 2]);
	free(a);
	free(b);
	free(c);
	return 3.0 * n * sizeof(float) / best;
}

/* Process CPU time, seconds (all threads). */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int
speed(int n, int only)
{
	const double org[3] = { 0, 0, 0 }, dx = 1.0 / n;
	macgrid m;
	field q, o;
	slc_err err;
	double bw = triad((size_t)n * n * n), t[3], c[3], dt, vmax, nc = (double)n * n * n;
	int sc, a;

	if (mac_alloc(&m, n, n, n, org, dx, &err) ||
	    field_alloc(&q, n, n, n, SLC_CELL, org, dx, &err) ||
	    field_alloc_like(&o, &q, &err)) {
		fprintf(stderr, "bench_advect: %s\n", err.msg);
		return 1;
	}
	/* a swirl about the y axis plus a rise: speeds up to ~1.2 m/s */
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(&m, a);
		int i, j, k;

#pragma omp parallel for collapse(2) private(i)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					f->a[FIELD_IDX(f, i, j, k)] = (float)(a == 0 ? -(x[2] - 0.5) :
						a == 2 ? x[0] - 0.5 : 0.5 * sin(M_PI * x[0]));
				}
	}
	for (size_t s = 0; s < field_count(&q); s++)
		q.a[s] = (float)((s * 2654435761u) % 1000) * 1e-3f;
	vmax = mac_max_speed(&m);
	dt = dx / vmax;                 /* CFL 1 */
	for (sc = 0; sc < 3; sc++) {
		advect_opts op;
		int r;

		t[sc] = c[sc] = INFINITY;
		if (only >= 0 && sc != only)
			continue;
		advect_opts_default(&op);
		op.scheme = sc;
		op.walls = 1;
		op.vmax = vmax;         /* as lib/stage/advect_stage.c: one scan per substep */
		for (r = 0; r < REPS; r++) {
			double t0 = omp_get_wtime(), c0 = cpu_now();

			if (advect_field(&m, dt, &q, &o, &op, NULL, &err)) {
				fprintf(stderr, "bench_advect: %s\n", err.msg);
				return 1;
			}
			t0 = omp_get_wtime() - t0;
			c0 = cpu_now() - c0;
			if (t0 < t[sc])
				t[sc] = t0;
			if (c0 < c[sc])
				c[sc] = c0;
		}
	}
	/* bytes an SL step must move per cell: q and u, v, w read, out
	 * written; cells/s by wall clock, then cells per CPU second */
	printf("%d %d %.4g %.4g %.4g %.4g %.4g %.4g %.4g %.4g\n", n, omp_get_max_threads(),
	       bw / 1e9, bw / (5 * sizeof(float)), nc / t[0], nc / t[1], nc / t[2],
	       nc / c[0], nc / c[1], nc / c[2]);
	field_free(&q);
	field_free(&o);
	mac_free(&m);
	return 0;
}

/* Exact signed distance to the slotted disc (as tests/c/test_advect.c). */
static double
zphi(double x, double y)
{
	const double cx = 50, cy = 75, R = 15, hw = 2.5, top = 85;
	const double ybot = cy - sqrt(R * R - hw * hw);
	double dx = x - cx, dy = y - cy, r = hypot(dx, dy), d, px, py, yy, xx;
	int inside = r < R && !(fabs(dx) < hw && y < top);

	px = r > 0 ? cx + R * dx / r : cx;
	py = r > 0 ? cy + R * dy / r : cy + R;
	if (fabs(px - cx) < hw && py < cy)
		d = fmin(hypot(x - (cx - hw), y - ybot), hypot(x - (cx + hw), y - ybot));
	else
		d = fabs(r - R);
	yy = fmin(fmax(y, ybot), top);
	d = fmin(d, fmin(hypot(x - (cx - hw), y - yy), hypot(x - (cx + hw), y - yy)));
	xx = fmin(fmax(x, cx - hw), cx + hw);
	d = fmin(d, hypot(x - xx, y - top));
	return inside ? -d : d;
}

static float *
zalesak(int n, double cfl, int scheme, double *mean, double *secs)
{
	const double dx = 100.0 / (n - 1), org[3] = { -0.5 * dx, -0.5 * dx, -0.5 * dx };
	const double vmax = ZAL_OMEGA * 50 * sqrt(2);
	int nsteps = (int)ceil(ZAL_TIME / (cfl * dx / vmax)), s, a, i, j, cnt = 0;
	double dt = ZAL_TIME / nsteps, sum = 0, t0;
	macgrid m;
	field q, o;
	advect_opts op;
	slc_err err;
	float *e = calloc((size_t)n * n, sizeof *e);

	mac_alloc(&m, n, n, 1, org, dx, &err);
	for (a = 0; a < 2; a++) {
		field *f = mac_comp(&m, a);

		for (j = 0; j < f->nj; j++)
			for (i = 0; i < f->ni; i++) {
				double x[3];

				field_pos(f, i, j, 0, x);
				f->a[FIELD_IDX(f, i, j, 0)] = (float)(a == 0 ? ZAL_OMEGA * (50 - x[1])
									 : ZAL_OMEGA * (x[0] - 50));
			}
	}
	field_alloc(&q, n, n, 1, SLC_CELL, org, dx, &err);
	field_alloc_like(&o, &q, &err);
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			q.a[FIELD_IDX(&q, i, j, 0)] = (float)zphi(i * dx, j * dx);
	advect_opts_default(&op);
	op.scheme = scheme;
	op.limiter = ADVECT_LIMIT_NONE;
	t0 = omp_get_wtime();
	for (s = 0; s < nsteps; s++) {
		float *t;

		advect_field(&m, dt, &q, &o, &op, NULL, &err);
		t = q.a;
		q.a = o.a;
		o.a = t;
	}
	*secs = omp_get_wtime() - t0;
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++) {
			double d = fabs(q.a[FIELD_IDX(&q, i, j, 0)] - zphi(i * dx, j * dx));

			e[(size_t)j * n + i] = (float)d;
			if (hypot(i * dx - 50, j * dx - 50) <= 50) {
				sum += d;
				cnt++;
			}
		}
	*mean = sum / cnt;
	field_free(&q);
	field_free(&o);
	mac_free(&m);
	return e;
}

static int
zalesak_table(double cfl, int nn, char **ns)
{
	static const char *const name[3] = { "sl", "maccormack", "bfecc" };
	int sc, g;

	for (sc = 0; sc < 3; sc++) {
		float *prev = NULL;
		int np = 0;

		for (g = 0; g < nn; g++) {
			int n = atoi(ns[g]);
			double mean, secs, ord = NAN;
			float *e = zalesak(n, cfl, sc, &mean, &secs);

			if (prev && n == 2 * np - 1) {
				/* thesis §2.8: mean of log2(e(i,j) / e'(2i,2j)) */
				double h = 100.0 / (np - 1), s = 0;
				int i, j, c = 0;

				for (j = 0; j < np; j++)
					for (i = 0; i < np; i++) {
						double a = prev[(size_t)j * np + i];
						double b = e[(size_t)2 * j * n + 2 * i];

						if (hypot(i * h - 50, j * h - 50) <= 50 && a > 0 && b > 0) {
							s += log2(a / b);
							c++;
						}
					}
				ord = s / c;
			}
			printf("%s %g %d %.3g %.3g %.1f\n", name[sc], cfl, n, mean, ord, secs);
			fflush(stdout);
			free(prev);
			prev = e;
			np = n;
		}
		free(prev);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "speed"))
		return speed(atoi(argv[2]), argc == 4 ? atoi(argv[3]) : -1);
	if (argc >= 4 && !strcmp(argv[1], "zalesak"))
		return zalesak_table(atof(argv[2]), argc - 3, argv + 3);
	fprintf(stderr, "usage: bench_advect speed N [SCHEME] | zalesak CFL N...\n");
	return 2;
}
