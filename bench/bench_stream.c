/* bench_stream: time writing and reading the records of a frame, for
 * bench/stream.sh.
 *
 *   bench_stream write IN OUT ENC LEVEL
 *       read every record of IN (decoded, in memory), then the best of
 *       REPEAT runs of encoding and writing them all to OUT as ENC (raw,
 *       zlib or zstd) at LEVEL (0 for raw)
 *   bench_stream read FILE
 *       the best of REPEAT runs of reading FILE: every record checked
 *       (CRC, sizes, rules) and decoded into memory
 * Prints the best time in seconds on stdout. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/slc.h"

#define REPEAT 7    /* best of: the machine may be shared */

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void
fail(const char *what, const slc_err *err)
{
	fprintf(stderr, "bench_stream: %s: %s\n", what, err->msg);
	exit(1);
}

/* Every record of path, decoded and owning its channels; *n of them. */
static slc_rec *
load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	slc_rec *recs = NULL, r;
	slc_reader *rd;
	slc_err err;
	int rc;

	*n = 0;
	if (!f || !(rd = slc_reader_open(f, &err)))
		exit(1);
	while ((rc = slc_read(rd, &r, &err)) > 0) {
		if (slc_rec_own(&r, &err))
			fail(path, &err);
		if (!(recs = realloc(recs, (*n + 1) * sizeof *recs)))
			exit(1);
		recs[(*n)++] = r;
	}
	if (rc < 0)
		fail(path, &err);
	slc_reader_close(rd);
	fclose(f);
	return recs;
}

static double
write_once(const char *path, const slc_rec *recs, size_t n, uint32_t enc, int level)
{
	FILE *f = fopen(path, "wb");
	slc_writer *w;
	slc_err err;
	double t0 = now();
	size_t q;

	if (!f)
		exit(1);
	if (!(w = slc_writer_open_enc(f, enc, level, &err)))
		fail(path, &err);
	for (q = 0; q < n; q++)
		if (slc_write(w, &recs[q], &err))
			fail(path, &err);
	if (slc_writer_close(w, &err))
		fail(path, &err);
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

	if (!f || !(rd = slc_reader_open(f, &err)))
		exit(1);
	while ((rc = slc_read(rd, &r, &err)) > 0)
		slc_rec_free(&r);
	if (rc < 0)
		fail(path, &err);
	slc_reader_close(rd);
	fclose(f);
	return now() - t0;
}

int
main(int argc, char **argv)
{
	double best = 1e30, t;
	int q;

	if (argc == 3 && !strcmp(argv[1], "read")) {
		for (q = 0; q < REPEAT; q++)
			if ((t = read_once(argv[2])) < best)
				best = t;
	} else if (argc == 6 && !strcmp(argv[1], "write")) {
		static const char *const names[] = { "raw", "zlib", "zstd" };
		uint32_t enc = SLC_ENCODING_COUNT, e;
		size_t n, k;
		slc_rec *recs = load(argv[2], &n);

		for (e = 0; e < SLC_ENCODING_COUNT; e++)
			if (!strcmp(argv[4], names[e]))
				enc = e;
		if (enc == SLC_ENCODING_COUNT)
			return 2;
		for (q = 0; q < REPEAT; q++)
			if ((t = write_once(argv[3], recs, n, enc, atoi(argv[5]))) < best)
				best = t;
		for (k = 0; k < n; k++)
			slc_rec_free(&recs[k]);
		free(recs);
	} else {
		fprintf(stderr, "usage: bench_stream write IN OUT ENC LEVEL | read FILE\n");
		return 2;
	}
	printf("%.4f\n", best);
	return 0;
}
