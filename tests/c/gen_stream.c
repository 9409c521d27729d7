/* gen_stream: write a small stream for the Bats tests of the format tools:
 * a scene metadata record, a face-x grid 'u' holding one NaN, and a mesh
 * 'tri'.  Usage: gen_stream FILE [ZLIB_LEVEL] */
#include <math.h>
#include <stdlib.h>

#include "core/meta.h"
#include "core/slc.h"

int
main(int argc, char **argv)
{
	slc_grid g = { 4, 3, 2, SLC_FACE_X, { 0, 0, 0 }, 0.5 };
	slc_rec m, u, t;
	slc_writer *w;
	slc_err err;
	float *a, *p;
	uint32_t *tri;
	FILE *f;
	int q;

	if (argc < 2 || !(f = fopen(argv[1], "wb")))
		return 2;
	slc_meta_init(&m, "scene", &err);
	slc_meta_set(&m, "dt", "0.04", &err);
	slc_meta_set(&m, "gravity", "0,-9.8,0", &err);
	a = slc_grid_new(&u, "u", &g, 1, &err);
	for (q = 0; q < 24; q++)
		a[q] = (float)q / 4 - 1;
	a[7] = NAN;
	slc_rec_init(&t, SLC_MESH, "tri");
	p = slc_rec_add(&t, "P", SLC_F32, 3, SLC_POINT, 3, &err);
	tri = slc_rec_add(&t, "tri", SLC_U32, 3, SLC_PRIM, 1, &err);
	p[3] = 1;
	p[7] = 1;
	tri[1] = 1;
	tri[2] = 2;
	w = slc_writer_open(f, argc > 2 ? atoi(argv[2]) : 0, &err);
	if (!w || slc_write(w, &m, &err) || slc_write(w, &u, &err) ||
	    slc_write(w, &t, &err) || slc_writer_close(w, &err))
		return 1;
	slc_rec_free(&m);
	slc_rec_free(&u);
	slc_rec_free(&t);
	return fclose(f) ? 1 : 0;
}
