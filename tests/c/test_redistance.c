/* test_redistance.c: fast marching (lib/grid/fmm.c) and level set
 * reinitialization (lib/grid/redistance.c): exact on planes, zero crossing kept
 * within 0.1 dx, within 1 dx of the exact distance, signs kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "grid/field.h"
#include "grid/fmm.h"
#include "grid/redistance.h"

#define N 40
#define CROSS_TOL 0.1           /* dx: the bound on the crossing */

/* A plane wave is reproduced exactly by the first-order scheme. */
static void
test_plane(void)
{
	size_t n = (size_t)N * N * N, c;
	float *d = calloc(n, sizeof *d);
	uint8_t *fr = calloc(n, 1);
	double nrm[3] = { 0.3, 0.8, -0.52 }, l, dx = 0.025, worst = 0;

	l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				/* distance from the plane through a corner */
				double s = (nrm[0] * i + nrm[1] * j +
					    nrm[2] * (k - N)) * dx / l;
				c = (size_t)i + N * ((size_t)j + N * k);
				/* the band, and the inflow faces where the
				 * upwind neighbours lie outside the grid */
				if (s <= 1.5 * dx || i == 0 || j == 0 ||
				    k == N - 1) {
					d[c] = (float)s;
					fr[c] = 1;
				}
			}
	CHECK(fmm_march(N, N, N, dx, d, fr, NULL, INFINITY, NULL) == 0,
	      "plane: march succeeds");
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double s = (nrm[0] * i + nrm[1] * j +
					    nrm[2] * (k - N)) * dx / l;
				c = (size_t)i + N * ((size_t)j + N * k);
				worst = fmax(worst, fabs(d[c] - s) / dx);
			}
	CHECK(worst < 1e-4, "plane: first-order march exact (%.2e dx)", worst);
	memset(fr, 0, n);
	CHECK(fmm_march(N, N, N, dx, d, fr, NULL, INFINITY, NULL) == -1,
	      "no frozen sample: an error");
	free(d);
	free(fr);
}

typedef double (*shape_fn)(const double x[3]);

static const double C[3] = { 0.02, -0.013, 0.031 };
#define R 0.3

static double
radius(const double x[3])
{
	return sqrt((x[0] - C[0]) * (x[0] - C[0]) + (x[1] - C[1]) * (x[1] - C[1]) +
		    (x[2] - C[2]) * (x[2] - C[2]));
}

static double
squared(const double x[3])
{
	double r = radius(x);
	return (r * r - R * R) * 4;
}

static double
warped(const double x[3])
{
	return (radius(x) - R) * (1.6 + sin(7 * x[0]) * cos(5 * x[1]));
}

static void
check_shape(const char *what, shape_fn fn, double width)
{
	field phi, phi0;
	double org[3] = { -0.5, -0.5, -0.5 }, dx = 1.0 / N;
	double shift = 0, far = 0;
	size_t flips = 0, ncross = 0;

	field_alloc(&phi, N, N, N, SLC_CELL, org, dx, NULL);
	field_alloc(&phi0, N, N, N, SLC_CELL, org, dx, NULL);
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double x[3];
				field_pos(&phi, i, j, k, x);
				phi.a[FIELD_IDX(&phi, i, j, k)] =
					phi0.a[FIELD_IDX(&phi, i, j, k)] = (float)fn(x);
			}
	CHECK(redistance(&phi, width, NULL) == 0, "%s: redistance succeeds", what);
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				size_t c = FIELD_IDX(&phi, i, j, k);
				double x[3], exact, v = phi.a[c];
				int a;
				field_pos(&phi, i, j, k, x);
				exact = radius(x) - R;
				if ((v < 0) != (phi0.a[c] < 0))
					flips++;
				if (width > 0 && fabs(exact) > width)
					far = fmax(far, fabs(fabs(v) - width) / dx *
						   (fabs(v) > width + 1e-6));
				else
					far = fmax(far, fabs(v - exact) / dx);
				/* crossings along +x, +y, +z edges */
				for (a = 0; a < 3; a++) {
					int id[3] = { i, j, k };
					size_t nb;
					double t0, t1;
					if (id[a] == N - 1)
						continue;
					id[a]++;
					nb = FIELD_IDX(&phi, id[0], id[1], id[2]);
					if ((phi0.a[c] < 0) == (phi0.a[nb] < 0))
						continue;
					t0 = phi0.a[c] / (phi0.a[c] - phi0.a[nb]);
					t1 = phi.a[c] / (phi.a[c] - phi.a[nb]);
					shift = fmax(shift, fabs(t1 - t0));
					ncross++;
				}
			}
	CHECK(flips == 0, "%s: no sign changed", what);
	CHECK(ncross > 1000 && shift <= CROSS_TOL,
	      "%s: %zu zero crossings moved at most %.4f dx <= 0.1", what,
	      ncross, shift);
	CHECK(far <= 1.0, "%s: within %.3f dx <= 1 of the exact distance",
	      what, far);
	field_free(&phi);
	field_free(&phi0);
}

int
main(void)
{
	test_plane();
	check_shape("r^2 - R^2", squared, 0);
	check_shape("warped distance", warped, 0);
	check_shape("warped, width 4 dx", warped, 4.0 / N);
	return ctest_done();
}
