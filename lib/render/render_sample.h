/* render_sample.h: trilinear sampling for the inner loops of the
 * renderers: the same values as field_sample (clamped to the box of the
 * samples), with the placement arithmetic done once per grid instead of
 * once per sample, and an interleaved variant that interpolates several
 * channels with one set of weights. */
#ifndef SLC_RENDER_SAMPLE_H
#define SLC_RENDER_SAMPLE_H

#include <math.h>
#include <stddef.h>

#include "grid/field.h"

typedef struct rsampler {
	const float *a;         /* nc channels per sample, interleaved */
	int nc;
	int n[3];               /* sample dims */
	double x0[3];           /* position of sample (0,0,0) */
	double inv_dx;
	size_t st[3];           /* strides in samples, 0 on a one-sample axis */
} rsampler;

/* Sampler over data a (nc floats per sample) placed like f. */
static inline void
rsampler_init(rsampler *s, const field *f, const float *a, int nc)
{
	double off[3];
	int k;

	field_offset(f, off);
	s->a = a;
	s->nc = nc;
	s->n[0] = f->ni, s->n[1] = f->nj, s->n[2] = f->nk;
	for (k = 0; k < 3; k++)
		s->x0[k] = f->origin[k] + off[k] * f->dx;
	s->inv_dx = 1 / f->dx;
	s->st[0] = f->ni > 1 ? 1 : 0;
	s->st[1] = f->nj > 1 ? (size_t)f->ni : 0;
	s->st[2] = f->nk > 1 ? (size_t)f->ni * f->nj : 0;
}

/* Channel values at x into v[0..nc-1]. */
static inline void
rsampler_get(const rsampler *s, const double x[3], double *v)
{
	size_t base = 0;
	double w[3];
	int k, c;

	for (k = 0; k < 3; k++) {
		double u = (x[k] - s->x0[k]) * s->inv_dx;
		int i;

		if (s->n[k] < 2 || !(u > 0)) {
			i = 0;
			w[k] = 0;
		} else if (u >= s->n[k] - 1) {
			i = s->n[k] - 2;
			w[k] = 1;
		} else {
			i = (int)u;
			w[k] = u - i;
		}
		base += (size_t)i * (k == 0 ? 1 : k == 1 ? (size_t)s->n[0]
					      : (size_t)s->n[0] * s->n[1]);
	}
	for (c = 0; c < s->nc; c++) {
		const float *p = s->a + base * s->nc + c;
		size_t di = s->st[0] * s->nc, dj = s->st[1] * s->nc;
		size_t dk = s->st[2] * s->nc;

		v[c] = (1 - w[2]) * ((1 - w[1]) * ((1 - w[0]) * p[0] + w[0] * p[di]) +
				     w[1] * ((1 - w[0]) * p[dj] + w[0] * p[dj + di])) +
		       w[2] * ((1 - w[1]) * ((1 - w[0]) * p[dk] + w[0] * p[dk + di]) +
			       w[1] * ((1 - w[0]) * p[dk + dj] + w[0] * p[dk + dj + di]));
	}
}

#endif
