/* pls_redist.c: redistancing that keeps the zero crossing (pls_redist.h). */
#include "liquid/pls_redist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "grid/fmm.h"

/* A sample beside the interface whose |grad phi| lies in [GRAD_LO,
 * GRAD_HI] is taken as a distance already: semi-Lagrangian advection and
 * the particle spheres keep phi that close to one; outside it the sample
 * is scaled by 1/|grad phi|. */
#define GRAD_LO 0.5
#define GRAD_HI 2.0

/* Is no shell of sh near sample (i,j,k) of phi: does no triangle's box
 * (shell_box_clear) meet the cube one cell around it?  Then every segment
 * from the sample to a neighbour is clear (shell_segment_hit and
 * shell_visible test only triangles whose box meets the segment's).  The
 * answer is kept in memo[c] (0 not yet known, 1 clear, 2 not), written
 * only by the caller handling sample c. */
static int
near_clear(const field *phi, const shell_set *sh, uint8_t *memo, int i, int j, int k)
{
	size_t c = FIELD_IDX(phi, i, j, k);

	if (!memo[c]) {
		double x[3], lo[3], hi[3];
		int a;

		field_pos(phi, i, j, k, x);
		for (a = 0; a < 3; a++) {
			lo[a] = x[a] - phi->dx;
			hi[a] = x[a] + phi->dx;
		}
		memo[c] = shell_box_clear(sh, lo, hi) ? 1 : 2;
	}
	return memo[c] == 1;
}

/* Can sample c of phi see sample c2 (sh NULL: no shells)?  Else *t is
 * where along the segment between them the shell is (0..1). */
static int
sees(const field *phi, const shell_set *sh, int i, int j, int k, int a, int s, double *t)
{
	int m[3] = { i, j, k };
	double x[3], y[3];
	shell_hit hit;

	if (!sh)
		return 1;
	m[a] += s;
	field_pos(phi, i, j, k, x);
	field_pos(phi, m[0], m[1], m[2], y);
	if (!shell_segment_hit(sh, x, y, 0, &hit))
		return 1;
	*t = hit.t;
	return 0;
}

/* The distance estimate of sample (i,j,k) if it lies beside the
 * interface (a neighbour along an axis has the other sign), else -1.
 * With thin shells sh (guendelman2005 §4.4.1): a neighbour the sample
 * cannot see is no crossing and gives the centre's value to the
 * gradient; a liquid sample (phi <= 0) with such a neighbour is a seed
 * too, at min(distance to the shell, |phi|), so that the liquid does not
 * stick to the shell. */
static double
near_distance(const field *phi, const shell_set *sh, uint8_t *memo, int i, int j, int k)
{
	double wall = INFINITY;
	int idx[3] = { i, j, k }, n[3] = { phi->ni, phi->nj, phi->nk }, a;
	size_t c = FIELD_IDX(phi, i, j, k),
	       stride[3] = { 1, (size_t)n[0], (size_t)n[0] * n[1] };
	double p = phi->a[c], g2 = 0, axis = INFINITY, dx = phi->dx, d;
	int in = p < 0;

	if (p == 0)
		return 0;
	if (sh) {
		/* an air sample with no neighbour of the other sign is no
		 * seed whatever the shells hide: they only remove crossings;
		 * a sample with no shell near sees every neighbour */
		int cross = in;

		for (a = 0; a < 3 && !cross; a++)
			cross = (idx[a] > 0 && (phi->a[c - stride[a]] < 0) != in) ||
				(idx[a] < n[a] - 1 && (phi->a[c + stride[a]] < 0) != in);
		if (!cross)
			return -1;
		if (near_clear(phi, sh, memo, i, j, k))
			sh = NULL;
	}
	for (a = 0; a < 3; a++) {
		double lo = p, hi = p, h = 0;

		double t;

		if (idx[a] > 0) {
			h += dx;
			if (!sees(phi, sh, i, j, k, a, -1, &t))
				wall = fmin(wall, t * dx);
			else {
				lo = phi->a[c - stride[a]];
				if ((lo < 0) != in)
					axis = fmin(axis, p / (p - lo) * dx);
			}
		}
		if (idx[a] < n[a] - 1) {
			h += dx;
			if (!sees(phi, sh, i, j, k, a, 1, &t))
				wall = fmin(wall, t * dx);
			else {
				hi = phi->a[c + stride[a]];
				if ((hi < 0) != in)
					axis = fmin(axis, p / (p - hi) * dx);
			}
		}
		if (h > 0)
			g2 += (hi - lo) * (hi - lo) / (h * h);
	}
	/* a sample inside a wedge meets its shell at t = 0: the distance 0
	 * would give phi = -0, which is not liquid; the least positive
	 * float keeps the sign, the surface against the shell */
	if (axis == INFINITY && in && wall < INFINITY)
		return fmax(fmin(wall, fabs(p)), FLT_MIN);
	if (axis == INFINITY)
		return -1;
	/* near a distance already: keep the value, so the crossing stays
	 * exactly; else make it one */
	d = g2 >= GRAD_LO * GRAD_LO && g2 <= GRAD_HI * GRAD_HI ? fabs(p) :
	    g2 > 0 ? fabs(p) / sqrt(g2) : axis;
	return d < axis ? d : axis;
}

/* fmm_sees_fn over the samples of a level set and shells. */
typedef struct sees_ctx {
	const field *phi;
	const shell_set *sh;
	uint8_t *memo;          /* near_clear's answers */
} sees_ctx;

static int
sample_sees(void *ctx, size_t a, size_t b)
{
	const sees_ctx *S = ctx;
	const field *f = S->phi;
	double x[3], y[3];
	size_t ni = (size_t)f->ni, nj = (size_t)f->nj;

	/* b is a neighbour of a along an axis (fmm_sees_fn) */
	if (near_clear(f, S->sh, S->memo, (int)(a % ni), (int)(a / ni % nj), (int)(a / (ni * nj))))
		return 1;
	field_pos(f, (int)(a % ni), (int)(a / ni % nj), (int)(a / (ni * nj)), x);
	field_pos(f, (int)(b % ni), (int)(b / ni % nj), (int)(b / (ni * nj)), y);
	return shell_visible(S->sh, x, y);
}

int
pls_redistance(field *phi, double width, slc_err *err)
{
	return pls_redistance_shell(phi, width, NULL, err);
}

int
pls_redistance_shell(field *phi, double width, const shell_set *sh, slc_err *err)
{
	int ni = phi->ni, nj = phi->nj, nk = phi->nk;
	size_t n, c, nseed = 0;
	float *d;
	uint8_t *frozen, *memo = NULL;
	int rc = -1;

	/* a sample no march reaches behind a shell ends this far away */
	double diag = phi->dx * sqrt((double)ni * ni + (double)nj * nj + (double)nk * nk);

	if (slc_mul3((size_t)ni, (size_t)nj, (size_t)nk, &n) || n == 0)
		return slc_fail(err, "redistance: bad grid %dx%dx%d", ni, nj, nk);
	d = slc_calloc(n, sizeof *d, err);
	frozen = d ? slc_calloc(n, 1, err) : NULL;
	if (frozen && sh)
		memo = slc_calloc(n, 1, err);
	if (!frozen || (sh && !memo)) {
		free(d);
		free(frozen);
		return -1;
	}
#pragma omp parallel for schedule(static) reduction(+:nseed)
	for (int k = 0; k < nk; k++)
		for (int j = 0; j < nj; j++)
			for (int i = 0; i < ni; i++) {
				double e = near_distance(phi, sh, memo, i, j, k);
				size_t at = FIELD_IDX(phi, i, j, k);

				if (e >= 0) {
					d[at] = (float)e;
					frozen[at] = 1;
					nseed++;
				}
			}
	if (!nseed)
		rc = 0;
	else if (!fmm_march_sees(ni, nj, nk, phi->dx, d, frozen, NULL, NULL, NULL,
				 sh ? sample_sees : NULL, &(sees_ctx){ phi, sh, memo },
				 width > 0 ? width : sh ? diag : INFINITY, err)) {
		for (c = 0; c < n; c++)
			phi->a[c] = phi->a[c] < 0 ? -d[c] : d[c];
		rc = 0;
	}
	free(d);
	free(frozen);
	free(memo);
	return rc;
}
