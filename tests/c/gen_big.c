/* gen_big: write a stream whose zlib grid record 'big' (f32 samples, all
 * 0.25: highly compressible) decodes to MIB mebibytes, for the tests that
 * measure the memory of passing a large record through.  With --frame, a
 * small MAC velocity frame (u, v, w on 4^3 cells, dx 0.25) comes first,
 * so that a stage such as project has its own records to work on.  With
 * --name NAME the big record is called NAME; with --nan its sample
 * (1,2,3) is a NaN, for the tests that a record passed on still encoded
 * is checked by the stage that decodes it.
 * Usage: gen_big FILE MIB [--frame] [--name NAME] [--nan] */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/slc.h"

#define VEL_N 4         /* cells per axis of the --frame velocity */

int
main(int argc, char **argv)
{
	slc_grid g = { 1024, 256, 0, SLC_CELL, { 0, 0, 0 }, 0.01 };
	const char *name = "big";
	int frame = 0, nan = 0, d;
	slc_rec big;
	slc_writer *w;
	slc_err err;
	float *a;
	size_t n, q;
	FILE *f;

	if (argc < 3 || !(f = fopen(argv[1], "wb")))
		return 2;
	/* 1024 x 256 x nk f32 samples: one MiB per layer */
	g.nk = atoi(argv[2]);
	for (d = 3; d < argc; d++)
		if (!strcmp(argv[d], "--frame"))
			frame = 1;
		else if (!strcmp(argv[d], "--nan"))
			nan = 1;
		else if (!strcmp(argv[d], "--name") && d + 1 < argc)
			name = argv[++d];
		else
			return 2;
	if (g.nk < 1 || !(w = slc_writer_open(f, 1, &err)))
		return 2;
	if (frame)
		for (d = 0; d < 3; d++) {
			slc_grid gv = { VEL_N + (d == 0), VEL_N + (d == 1), VEL_N + (d == 2),
					(uint32_t)(SLC_FACE_X + d), { 0, 0, 0 }, 0.25 };
			slc_rec v;
			const char *vn = d == 0 ? "u" : d == 1 ? "v" : "w";

			if (!slc_grid_new(&v, vn, &gv, 1, &err) || slc_write(w, &v, &err))
				return 1;
			slc_rec_free(&v);
		}
	if (!(a = slc_grid_new(&big, name, &g, 1, &err)))
		return 1;
	slc_grid_count(&g, &n);
	for (q = 0; q < n; q++)
		a[q] = 0.25f;
	if (nan)
		a[1 + (size_t)g.ni * (2 + (size_t)g.nj * 3)] = NAN;
	if (slc_write(w, &big, &err) || slc_writer_close(w, &err))
		return 1;
	slc_rec_free(&big);
	return fclose(f) ? 1 : 0;
}
