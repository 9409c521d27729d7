/* bench_stream: time reading and writing one 256^3 float grid record.
 *
 *   bench_stream gen FILE LEVEL   write the grid (a sphere's signed distance,
 *                                 smooth like real level sets) at zlib LEVEL
 *   bench_stream write FILE LEVEL best-of-3 seconds to encode and write it
 *   bench_stream read FILE        best-of-3 seconds to read, check and decode
 * Prints seconds on stdout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/slc.h"

#define N 256
#define REPEAT 3

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void
make_grid(slc_rec *r)
{
	slc_grid g = { N, N, N, SLC_CELL, { 0, 0, 0 }, 1.0 / N };
	float *a = slc_grid_new(r, "phi", &g, 1, NULL);
	int i, j, k;

	for (k = 0; k < N; k++)
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++) {
				double x = (i + 0.5) / N - 0.5, y = (j + 0.5) / N - 0.4,
				       z = (k + 0.5) / N - 0.5;

				a[i + N * (j + N * k)] = (float)(sqrt(x * x + y * y + z * z) - 0.3);
			}
}

static double
write_once(const char *path, const slc_rec *r, int level)
{
	FILE *f = fopen(path, "wb");
	slc_writer *w;
	slc_err err;
	double t0 = now();

	if (!f)
		exit(1);
	w = slc_writer_open(f, level, &err);
	if (slc_write(w, r, &err) || slc_writer_close(w, &err)) {
		fprintf(stderr, "bench_stream: %s\n", err.msg);
		exit(1);
	}
	fclose(f);
	return now() - t0;
}

static double
read_once(const char *path)
{
	FILE *f = fopen(path, "rb");
	slc_reader *rd;
	slc_rec r;
	slc_err err;
	double t0 = now();
	int rc;

	if (!f)
		exit(1);
	rd = slc_reader_open(f, &err);
	while ((rc = slc_read(rd, &r, &err)) > 0)
		slc_rec_free(&r);
	if (rc < 0) {
		fprintf(stderr, "bench_stream: %s\n", err.msg);
		exit(1);
	}
	slc_reader_close(rd);
	fclose(f);
	return now() - t0;
}

int
main(int argc, char **argv)
{
	double best = 1e30, t;
	slc_rec r;
	int q;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "read")) {
		for (q = 0; q < REPEAT; q++)
			if ((t = read_once(argv[2])) < best)
				best = t;
	} else {
		int level = argc > 3 ? atoi(argv[3]) : 0;

		make_grid(&r);
		if (!strcmp(argv[1], "gen")) {
			write_once(argv[2], &r, level);
			return 0;
		}
		for (q = 0; q < REPEAT; q++)
			if ((t = write_once(argv[2], &r, level)) < best)
				best = t;
		slc_rec_free(&r);
	}
	printf("%.4f\n", best);
	return 0;
}
