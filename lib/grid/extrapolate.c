/* extrapolate.c: constrained velocity extrapolation into solids
 * (houston2003 §4.2). */
#include "grid/extrapolate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXTRAP_PAR_MIN 32768    /* samples below which loops stay serial */
#define EXTRAP_UNKNOWN 0xffff   /* layer of a face not (yet) reached */

void
extrapolate_constrain(const double uf[3], const double uo[3], double alpha,
		      const double n[3], double out[3])
{
	double nf = n[0] * uf[0] + n[1] * uf[1] + n[2] * uf[2];
	double no = n[0] * uo[0] + n[1] * uo[1] + n[2] * uo[2];
	double t[3], nt;
	int a;

	/* houston2003 §4.2: u_par = proj_n uf if n.uf >= n.uo else proj_n uo */
	for (a = 0; a < 3; a++)
		t[a] = uf[a] * (1 - 2 * alpha) + 2 * alpha * uo[a];
	nt = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
	for (a = 0; a < 3; a++)
		out[a] = (nf >= no ? nf : no) * n[a] + (t[a] - nt * n[a]);
}

/* Layer by layer extrapolation of one component f into the faces where
 * layer[s] == EXTRAP_UNKNOWN, up to nl layers. */
static void
extend(field *f, uint16_t *layer, int nl)
{
	int l, k, j;

	for (l = 1; l <= nl; l++) {
#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= EXTRAP_PAR_MIN)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++) {
				int i;

				for (i = 0; i < f->ni; i++) {
					size_t s = FIELD_IDX(f, i, j, k);
					static const int d[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
								     { 0, 1, 0 }, { 0, 0, -1 }, { 0, 0, 1 } };
					double sum = 0;
					int q, cnt = 0;

					if (layer[s] != EXTRAP_UNKNOWN)
						continue;
					for (q = 0; q < 6; q++) {
						int ii = i + d[q][0], jj = j + d[q][1], kk = k + d[q][2];
						size_t t;

						if (ii < 0 || jj < 0 || kk < 0 || ii >= f->ni ||
						    jj >= f->nj || kk >= f->nk)
							continue;
						t = FIELD_IDX(f, ii, jj, kk);
						/* known before this layer */
						if (layer[t] < l) {
							sum += f->a[t];
							cnt++;
						}
					}
					if (cnt) {
						f->a[s] = (float)(sum / cnt);
						layer[s] = (uint16_t)l;
					}
				}
			}
	}
}

int
extrapolate_solid(macgrid *vel, const field *solid, const field *uo,
		  const field *slip, double band, slc_err *err)
{
	macgrid ext;
	uint16_t *layer[3] = { NULL, NULL, NULL };
	/* capped in double: a band of 1e30 m (one substep of a huge
	 * velocity) has more layers than an int holds */
	double layers = ceil(band / vel->u.dx) + 1;
	int a, rc = -1, nl = layers < EXTRAP_UNKNOWN - 1 ? (int)layers : EXTRAP_UNKNOWN - 1;

	if (mac_alloc_like(&ext, vel, err) || mac_copy(&ext, vel, err))
		return -1;
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(&ext, a);
		size_t n = field_count(f), s;
		int i, j, k;

		if (!(layer[a] = slc_calloc(n, sizeof *layer[a], err)))
			goto done;
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					s = FIELD_IDX(f, i, j, k);
					layer[a][s] = field_sample(solid, x) < 0 ? EXTRAP_UNKNOWN : 0;
				}
		extend(f, layer[a], nl);
	}
	/* constrain each extrapolated face (houston2003 §4.2) */
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		int k, j;

#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= EXTRAP_PAR_MIN)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++) {
				int i, b;

				for (i = 0; i < f->ni; i++) {
					size_t s = FIELD_IDX(f, i, j, k);
					double x[3], uf[3], u0[3] = { 0, 0, 0 }, n[3], g, out[3];
					double al = 0;

					if (layer[a][s] == 0)
						continue;
					field_pos(f, i, j, k, x);
					/* beyond the band no ray or stencil from the fluid
					 * reads the face: it moves with the object, and
					 * holds nothing from earlier steps */
					if (layer[a][s] == EXTRAP_UNKNOWN) {
						f->a[s] = uo ? (float)field_sample(&uo[a], x) : 0;
						continue;
					}
					mac_velocity(&ext, x, uf);
					field_gradient(solid, x, n);
					g = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
					if (!(g > 0)) {
						f->a[s] = (float)uf[a];
						continue;
					}
					for (b = 0; b < 3; b++) {
						n[b] /= g;
						if (uo)
							u0[b] = field_sample(&uo[b], x);
					}
					if (slip)
						al = field_sample(slip, x);
					extrapolate_constrain(uf, u0, al, n, out);
					f->a[s] = (float)out[a];
				}
			}
	}
	rc = 0;
done:
	for (a = 0; a < 3; a++)
		free(layer[a]);
	mac_free(&ext);
	return rc;
}
