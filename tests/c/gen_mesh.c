/* gen_mesh: small inputs and a probe for tests/mklevelset.bats.
 *
 *   gen_mesh sphere NAME R SUB CX,CY,CZ [VX,VY,VZ [TIME]]   icosphere mesh
 *   gen_mesh cup NAME R                  lower half of an icosphere (open)
 *   gen_mesh damaged NAME R              sphere with a hole, flipped and
 *                                        duplicated triangles
 *   gen_mesh particles NAME N            N particles with a radius channel
 *   gen_mesh squared NAME N R            grid NAME = |x|^2 - R^2, N^3 cells
 *   gen_mesh probe FILE REC X,Y,Z        print REC sampled at X,Y,Z
 *   gen_mesh crossing FILE REC           print the |x| where REC crosses
 *                                        zero along the +x axis from 0
 * Streams go to standard output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid/field.h"
#include "meshgen.h"
#include "core/slc.h"

static void
vec(const char *s, double v[3])
{
	if (sscanf(s, "%lf,%lf,%lf", &v[0], &v[1], &v[2]) != 3)
		exit(2);
}

static void
put(slc_rec *r)
{
	slc_writer *w = slc_writer_open(stdout, 0, NULL);

	if (!w || slc_write(w, r, NULL) || slc_writer_close(w, NULL))
		exit(1);
	slc_rec_free(r);
}

static void
put_mesh(const char *name, const tmesh *m, const double *vel, double time)
{
	slc_rec r;
	float *P, *V;
	uint32_t *t;

	slc_rec_init(&r, SLC_MESH, name);
	r.time = time;
	P = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, m->nv, NULL);
	t = slc_rec_add(&r, "tri", SLC_U32, 3, SLC_PRIM, m->nt, NULL);
	for (size_t q = 0; q < 3 * m->nv; q++)
		P[q] = (float)m->P[q];
	memcpy(t, m->tri, 3 * m->nt * sizeof *t);
	if (vel) {
		V = slc_rec_add(&r, "v", SLC_F32, 3, SLC_POINT, m->nv, NULL);
		for (size_t q = 0; q < 3 * m->nv; q++)
			V[q] = (float)vel[q % 3];
	}
	put(&r);
}

static slc_rec
find(const char *path, const char *name)
{
	FILE *f = fopen(path, "rb");
	slc_reader *rd = f ? slc_reader_open(f, NULL) : NULL;
	slc_rec r;

	while (rd && slc_read(rd, &r, NULL) == 1) {
		if (!strcmp(r.name, name))
			return r;
		slc_rec_free(&r);
	}
	fprintf(stderr, "gen_mesh: no record %s in %s\n", name, path);
	exit(1);
}

int
main(int argc, char **argv)
{
	tmesh m;
	double c[3] = { 0, 0, 0 }, v[3];

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "sphere") && argc >= 6) {
		vec(argv[5], c);
		icosphere(&m, atoi(argv[4]), atof(argv[3]), c);
		if (argc >= 7)
			vec(argv[6], v);
		put_mesh(argv[2], &m, argc >= 7 ? v : NULL,
			 argc >= 8 ? atof(argv[7]) : 0);
	} else if (!strcmp(argv[1], "cup") && argc >= 4) {
		size_t n = 0;
		icosphere(&m, 2, atof(argv[3]), c);
		for (size_t t = 0; t < m.nt; t++) {
			const uint32_t *f = m.tri + 3 * t;
			if (m.P[3 * f[0] + 1] + m.P[3 * f[1] + 1] + m.P[3 * f[2] + 1] < 0)
				memmove(m.tri + 3 * n++, f, 3 * sizeof *f);
		}
		m.nt = n;
		put_mesh(argv[2], &m, NULL, 0);
	} else if (!strcmp(argv[1], "damaged") && argc >= 4) {
		size_t n = 0;
		uint32_t hole;
		c[0] = 0.013, c[1] = -0.007, c[2] = 0.004;
		icosphere(&m, 3, atof(argv[3]), c);
		hole = m.tri[3 * 100];
		for (size_t t = 0; t < m.nt; t++) {
			uint32_t *f = m.tri + 3 * t;
			if (f[0] == hole || f[1] == hole || f[2] == hole)
				continue;
			if (t % 5 == 0) {
				uint32_t s = f[1];
				f[1] = f[2];
				f[2] = s;
			}
			memmove(m.tri + 3 * n++, f, 3 * sizeof *f);
		}
		m.nt = n;
		m.tri = realloc(m.tri, 3 * (n + n / 9 + 1) * sizeof *m.tri);
		for (size_t t = 0; t < n; t += 9)
			memcpy(m.tri + 3 * m.nt++, m.tri + 3 * t, 3 * sizeof *m.tri);
		put_mesh(argv[2], &m, NULL, 0);
	} else if (!strcmp(argv[1], "particles") && argc >= 4) {
		slc_rec r;
		size_t n = (size_t)atoi(argv[3]);
		float *P, *R;
		slc_rec_init(&r, SLC_PARTICLES, argv[2]);
		P = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, n, NULL);
		R = slc_rec_add(&r, "radius", SLC_F32, 1, SLC_POINT, n, NULL);
		srand(5);
		for (size_t p = 0; p < n; p++) {
			for (int q = 0; q < 3; q++)
				P[3 * p + q] = (float)(0.4 * rand() / RAND_MAX - 0.2);
			R[p] = (float)(0.03 + 0.03 * rand() / RAND_MAX);
		}
		put(&r);
	} else if (!strcmp(argv[1], "squared") && argc >= 5) {
		int n = atoi(argv[3]);
		double R = atof(argv[4]), org[3] = { -0.5, -0.5, -0.5 };
		field f;
		slc_rec r;
		field_alloc(&f, n, n, n, SLC_CELL, org, 1.0 / n, NULL);
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++) {
					double x[3];
					field_pos(&f, i, j, k, x);
					f.a[FIELD_IDX(&f, i, j, k)] = (float)(
						x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - R * R);
				}
		field_to_rec(&f, &r, argv[2], 0, NULL);
		field_free(&f);
		put(&r);
	} else if (!strcmp(argv[1], "probe") && argc >= 5) {
		slc_rec r = find(argv[2], argv[3]);
		slc_chan *ch = &r.chan[0];
		field f;
		vec(argv[4], c);
		if (ch->ncomp == 1) {
			field_from_rec(&f, &r, NULL, NULL);
			printf("%.6f\n", field_sample(&f, c));
		} else {
			/* nearest sample of a multi-component grid */
			int id[3], dim[3] = { r.grid.ni, r.grid.nj, r.grid.nk };
			for (int q = 0; q < 3; q++) {
				id[q] = (int)floor((c[q] - r.grid.origin[q]) / r.grid.dx);
				if (id[q] < 0 || id[q] >= dim[q])
					return 1;
			}
			size_t s = (size_t)id[0] + (size_t)r.grid.ni *
				   ((size_t)id[1] + (size_t)r.grid.nj * id[2]);
			for (int q = 0; q < ch->ncomp; q++)
				printf("%s%.6f", q ? "," : "", ((float *)ch->data)[s * ch->ncomp + q]);
			printf("\n");
		}
		slc_rec_free(&r);
	} else if (!strcmp(argv[1], "crossing") && argc >= 4) {
		slc_rec r = find(argv[2], argv[3]);
		field f;
		double prev = 0, x = 0;
		field_from_rec(&f, &r, NULL, NULL);
		for (int s = 0; s <= 4000; s++) {
			double p[3] = { s * 1e-4, 0.0011, -0.0007 };
			double val = field_sample(&f, p);
			if (s && (prev < 0) != (val < 0)) {
				x = p[0] - 1e-4 * val / (val - prev);
				break;
			}
			prev = val;
		}
		printf("%.6f\n", x);
		slc_rec_free(&r);
	} else {
		return 2;
	}
	return 0;
}
