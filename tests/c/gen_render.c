/* gen_render: write small frames for the Bats tests of rasterize.
 *
 *   gen_render sphere FILE [N]   level set 'phi' of a sphere of radius 0.3
 *                                about (0.5,0.5,0.5), N^3 cells on [0,1]^3
 *   gen_render smoke FILE [N]    'density' 1 in that sphere, 0 outside
 *   gen_render box FILE          mesh 'body': the cube [0.3,0.7]^3
 *   gen_render shell FILE        mesh 'wall' at x = 0.5 and a level set
 *                                'phi' of liquid on its low side reaching
 *                                0.4 dx past it (16^3 cells on [0,1]^3)
 *   gen_render particles FILE    particles at the corners of a cube
 *   gen_render velocity FILE     MAC grids u, v, w of the flow (1, 2, -2)
 *   gen_render nan FILE          the sphere level set with one NaN
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid/field.h"
#include "core/slc.h"

static slc_writer *w;
static slc_err err;

static void
put(slc_rec *r)
{
	if (slc_write(w, r, &err)) {
		fprintf(stderr, "gen_render: %s\n", err.msg);
		exit(1);
	}
	slc_rec_free(r);
}

static void
grid(const char *name, int n, int stagger, int nan, double (*fn)(const double *))
{
	const double org[3] = {0, 0, 0};
	field f;
	slc_rec r;
	int i, j, k;

	field_alloc(&f, n, n, n, stagger, org, 1.0 / n, NULL);
	for (k = 0; k < f.nk; k++)
		for (j = 0; j < f.nj; j++)
			for (i = 0; i < f.ni; i++) {
				double x[3];

				field_pos(&f, i, j, k, x);
				f.a[FIELD_IDX(&f, i, j, k)] = (float)fn(x);
			}
	if (nan)
		f.a[7] = NAN;
	slc_rec_init(&r, SLC_END, "");
	if (field_to_rec(&f, &r, name, 0, &err)) {
		fprintf(stderr, "gen_render: %s\n", err.msg);
		exit(1);
	}
	field_free(&f);
	put(&r);
}

static double
sphere(const double *x)
{
	return sqrt((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5) +
		    (x[2] - 0.5) * (x[2] - 0.5)) - 0.3;
}

static double
smoke(const double *x)
{
	return sphere(x) < 0 ? 1 : 0;
}

static double
liquid(const double *x)
{
	return x[0] - (0.5 + 0.4 / 16);
}

static double one(const double *x) { (void)x; return 1; }
static double two(const double *x) { (void)x; return 2; }
static double mtwo(const double *x) { (void)x; return -2; }

static void
mesh(const char *name, const float *P, int np, const uint32_t *tri, int nt)
{
	slc_rec r;
	float *p;
	uint32_t *t;

	slc_rec_init(&r, SLC_MESH, name);
	p = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, (uint64_t)np, &err);
	t = slc_rec_add(&r, "tri", SLC_U32, 3, SLC_PRIM, (uint64_t)nt, &err);
	memcpy(p, P, sizeof(float) * 3 * np);
	memcpy(t, tri, sizeof(uint32_t) * 3 * nt);
	put(&r);
}

int
main(int argc, char **argv)
{
	FILE *f;
	int n = argc > 3 ? atoi(argv[3]) : 32;

	if (argc < 3 || n < 2) {
		fprintf(stderr, "usage: gen_render sphere|smoke|box|shell|particles|velocity|nan FILE [N]\n");
		return 2;
	}
	f = fopen(argv[2], "wb");
	w = f ? slc_writer_open(f, 0, &err) : NULL;
	if (!w)
		return 1;
	if (!strcmp(argv[1], "sphere")) {
		grid("phi", n, SLC_CELL, 0, sphere);
	} else if (!strcmp(argv[1], "nan")) {
		grid("phi", n, SLC_CELL, 1, sphere);
	} else if (!strcmp(argv[1], "smoke")) {
		grid("density", n, SLC_CELL, 0, smoke);
	} else if (!strcmp(argv[1], "box")) {
		static const float P[] = {0.3f, 0.3f, 0.3f, 0.7f, 0.3f, 0.3f, 0.7f, 0.7f, 0.3f,
					  0.3f, 0.7f, 0.3f, 0.3f, 0.3f, 0.7f, 0.7f, 0.3f, 0.7f,
					  0.7f, 0.7f, 0.7f, 0.3f, 0.7f, 0.7f};
		static const uint32_t T[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7,
					     0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2,
					     0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};

		mesh("body", P, 8, T, 12);
	} else if (!strcmp(argv[1], "shell")) {
		static const float P[] = {0.5f, -1, -1, 0.5f, 2, -1, 0.5f, 2, 2, 0.5f, -1, 2};
		static const uint32_t T[] = {0, 1, 2, 0, 2, 3};

		mesh("wall", P, 4, T, 2);
		grid("phi", 16, SLC_CELL, 0, liquid);
	} else if (!strcmp(argv[1], "particles")) {
		slc_rec r;
		float *p;
		int k;

		slc_rec_init(&r, SLC_PARTICLES, "spray");
		p = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, 8, &err);
		for (k = 0; k < 8; k++) {
			p[3 * k] = 0.3f + 0.4f * (k & 1);
			p[3 * k + 1] = 0.3f + 0.4f * (k >> 1 & 1);
			p[3 * k + 2] = 0.3f + 0.4f * (k >> 2);
		}
		put(&r);
	} else if (!strcmp(argv[1], "velocity")) {
		grid("u", 8, SLC_FACE_X, 0, one);
		grid("v", 8, SLC_FACE_Y, 0, two);
		grid("w", 8, SLC_FACE_Z, 0, mtwo);
	} else {
		return 2;
	}
	if (slc_writer_close(w, &err) || fclose(f))
		return 1;
	return 0;
}
