/* pls_shell.c: marker particles that would cross a thin shell removed
 * (pls_shell.h). */
#include "liquid/pls_shell.h"

#include <stdlib.h>

#include "shell/shell_fill.h"
#include "shell/shell_sweep.h"

/* Below this many particles the test runs on one thread. */
#define CULL_PAR_MIN 4096

size_t
pls_shell_cull(pls_set *s, const float *x0, const pls_shell *sh)
{
	unsigned char *hit;
	size_t q, gone = 0, w;
	long p;

	if (!s->n)
		return 0;
	/* without memory for the flags: tested one by one below */
	hit = malloc(s->n);
	if (hit) {
#pragma omp parallel for schedule(static) if (s->n >= CULL_PAR_MIN)
		for (p = 0; p < (long)s->n; p++) {
			double a[3], b[3];
			int c;

			for (c = 0; c < 3; c++) {
				a[c] = x0[3 * p + c];
				b[c] = s->x[3 * p + c];
			}
			hit[p] = (unsigned char)shell_sweep_point(sh->trk, sh->at0, sh->at1,
								  sh->s0, sh->s1, a, b);
		}
	}
	/* compacted in order, so that the survivors keep their order */
	for (q = 0, w = 0; q < s->n; q++) {
		int h;

		if (hit)
			h = hit[q];
		else {
			double a[3] = {x0[3 * q], x0[3 * q + 1], x0[3 * q + 2]};
			double b[3] = {s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2]};

			h = shell_sweep_point(sh->trk, sh->at0, sh->at1, sh->s0, sh->s1, a, b);
		}
		if (h) {
			gone++;
			continue;
		}
		if (w != q) {
			s->x[3 * w] = s->x[3 * q];
			s->x[3 * w + 1] = s->x[3 * q + 1];
			s->x[3 * w + 2] = s->x[3 * q + 2];
			s->r[w] = s->r[q];
		}
		w++;
	}
	s->n = w;
	free(hit);
	return gone;
}

size_t
pls_shell_wrong_side(pls_set *s, const field *phi, const pls_shell *sh)
{
	shell_fallback fb = { SHELL_FILL_PHI, 0, 0, NULL };
	size_t q = 0, gone = 0;

	while (q < s->n) {
		double x[3] = {s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2]};

		if (s->sign * shell_sample(phi, sh->at1, &fb, x, NULL) < 0) {
			pls_set_swap_remove(s, q);
			gone++;
			continue;
		}
		q++;
	}
	return gone;
}

int
pls_shell_sweep(field *phi, pls_shell *sh, slc_err *err)
{
	shell_fallback fb = { SHELL_FILL_PHI, 0, 0, NULL };
	unsigned char *bad;
	size_t nf = 0;
	int rc;

	if (!sh->sweep || !shell_track_moving(sh->trk))
		return 0;
	if (!(bad = slc_calloc(field_count(phi), 1, err)))
		return -1;
	sh->swept += shell_sweep_mark(sh->trk, sh->s0, sh->s1, phi, bad);
	rc = shell_fill(phi, bad, sh->at1, &fb, &nf, err);
	sh->fallback += nf;
	free(bad);
	return rc;
}
