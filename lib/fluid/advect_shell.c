/* advect_shell.c: one-sided semi-Lagrangian advection next to thin shells
 * (guendelman2005 §4.1, selle2008 thesis §4.4.1; advect_shell.h). */
#include "fluid/advect_shell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bisection steps clipping a back-trace at the first 2 eps wedge: the
 * foot is placed within 2^-12 of the trace's length of it. */
#define CLIP_ITERS 12
/* Below this many samples a loop runs on one thread. */
#define SHELL_PAR_MIN 4096

double
advect_shell_value(const linmac *vel, double dt, const field *q,
		   const advect_shell *sh, const double x[3], int *blocked)
{
	const shell_set *s = sh->set;
	double xb[3], foot[3], v;
	int a, blk = 0, hidden;

	linmac_trace(vel, x, dt, xb);
	memcpy(foot, xb, sizeof foot);
	/* guendelman2005 §4.1: "the characteristic ray ... is clipped
	 * against wedges of thickness 2 eps", so that the foot sees its
	 * stencil through the eps wedges wherever the sample could */
	if (!shell_visible_eps(s, x, xb, 2 * s->eps)) {
		double lo = 0, hi = 1;
		int it;

		for (it = 0; it < CLIP_ITERS; it++) {
			double m = 0.5 * (lo + hi), y[3];

			for (a = 0; a < 3; a++)
				y[a] = x[a] + m * (xb[a] - x[a]);
			if (shell_visible_eps(s, x, y, 2 * s->eps))
				lo = m;
			else
				hi = m;
		}
		for (a = 0; a < 3; a++)
			foot[a] = x[a] + lo * (xb[a] - x[a]);
		blk = 1;
	}
	v = shell_sample(q, s, &sh->fb, foot, &hidden);
	if (blocked)
		*blocked = blk || hidden;
	return v;
}

/* Dilate the cube flags m (n[0]*n[1]*n[2]) by r cubes along axis a (a box
 * dilation when done on every axis): along each line of cubes, a running
 * count of the flags in the window [x - r, x + r]; tmp holds a line. */
static void
dilate_axis(unsigned char *m, unsigned char *tmp, const int n[3], int a, int r)
{
	size_t stride = a == 0 ? 1 : a == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
	int b = (a + 1) % 3, c = (a + 2) % 3, p, q, x;
	size_t sb = b == 0 ? 1 : b == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
	size_t sc = c == 0 ? 1 : c == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];

	for (q = 0; q < n[c]; q++)
		for (p = 0; p < n[b]; p++) {
			unsigned char *line = m + (size_t)p * sb + (size_t)q * sc;
			int cnt = 0;

			for (x = 0; x < n[a]; x++)
				tmp[x] = line[(size_t)x * stride];
			/* the window of x = 0 holds 0 .. r - 1 before the loop
			 * adds x + r */
			for (x = 0; x < r && x < n[a]; x++)
				cnt += tmp[x];
			for (x = 0; x < n[a]; x++) {
				if (x + r < n[a])
					cnt += tmp[x + r];
				if (x - r - 1 >= 0)
					cnt -= tmp[x - r - 1];
				line[(size_t)x * stride] = cnt > 0;
			}
		}
}

int
advect_shell_fix(const macgrid *vel, double dt, const field *q, field *out,
		 const advect_opts *o, slc_err *err)
{
	linmac M;
	const shell_set *s = o->shell->set;
	advect_shell sh = *o->shell;
	int n[3] = {s->ci, s->cj, s->ck}, r, a;
	size_t ncube, c, count = 0;
	unsigned char *band, *tmp;
	double vmax, reach;
	long row;

	if (!s->start || s->ntri == 0)
		return 0;
	if (sh.fb.kind == SHELL_FILL_VEL)
		sh.fb.comp = q->stagger >= SLC_FACE_X && q->stagger <= SLC_FACE_Z ?
			     q->stagger - SLC_FACE_X : 0;
	ncube = (size_t)n[0] * n[1] * n[2];
	band = slc_malloc(ncube, 1, err);
	tmp = band ? slc_malloc((size_t)(n[0] > n[1] ? (n[0] > n[2] ? n[0] : n[2]) :
					 (n[1] > n[2] ? n[1] : n[2])), 1, err) : NULL;
	if (!tmp) {
		free(band);
		return -1;
	}
	for (c = 0; c < ncube; c++)
		band[c] = s->start[c] != s->start[c + 1];
	/* how far a characteristic (and its stencil) reaches; MacCormack and
	 * BFECC trace back and forth from the samples the first step used */
	vmax = o->vmax > 0 ? o->vmax : mac_max_speed(vel);
	reach = fabs(dt) * vmax + q->dx;
	if (o->scheme != ADVECT_SL)
		reach = 2 * reach + q->dx;
	r = (int)ceil(reach / s->h) + 1;
	for (a = 0; a < 3; a++)
		dilate_axis(band, tmp, n, a, r);
	free(tmp);
	linmac_init(&M, vel);
#pragma omp parallel for schedule(static) reduction(+ : count) \
	if (field_count(q) >= SHELL_PAR_MIN)
	for (row = 0; row < (long)q->nj * q->nk; row++) {
		int j = (int)(row % q->nj), k = (int)(row / q->nj), i;

		for (i = 0; i < q->ni; i++) {
			double x[3];
			int cc[3];

			field_pos(q, i, j, k, x);
			shell_cube_range(s, x, x, cc, cc);
			if (!band[(size_t)cc[0] + (size_t)n[0] * ((size_t)cc[1] + (size_t)n[1] * cc[2])])
				continue;
			out->a[FIELD_IDX(q, i, j, k)] = (float)advect_shell_value(&M, dt, q, &sh, x, NULL);
			count++;
		}
	}
	free(band);
	if (sh.count)
		*sh.count += count;
	return 0;
}
