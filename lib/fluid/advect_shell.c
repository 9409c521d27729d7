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
/* Rows of samples handed to a thread at a time: the few rows near a
 * shell cost far more than the rest, so they are dealt out as threads
 * come free (each sample's result is its own and the counts are integer
 * sums: the bytes do not depend on the threads). */
#define SHELL_ROW_CHUNK 4

/* Does no wedge 2 eps thick of s meet the box of x, the foot xb and the
 * eight samples of q around xb?  Then the trace is not clipped and every
 * sample is visible from the foot. */
static int
clear_of_shells(const field *q, const shell_set *s, const double x[3], const double xb[3])
{
	double off[3], lo[3], hi[3];
	int dim[3] = {q->ni, q->nj, q->nk}, b[3], a;

	/* the stencil's base sample, as field_sample places it */
	field_offset(q, off);
	for (a = 0; a < 3; a++) {
		double c = (xb[a] - q->origin[a]) / q->dx - off[a];

		b[a] = dim[a] < 2 || !(c > 0) ? 0 : c >= dim[a] - 1 ? dim[a] - 2 : (int)floor(c);
	}
	field_pos(q, b[0], b[1], b[2], lo);
	field_pos(q, b[0] + (dim[0] > 1), b[1] + (dim[1] > 1), b[2] + (dim[2] > 1), hi);
	for (a = 0; a < 3; a++) {
		lo[a] = fmin(lo[a], fmin(x[a], xb[a]));
		hi[a] = fmax(hi[a], fmax(x[a], xb[a]));
	}
	return shell_box_clear(s, lo, hi);
}

/* advect_shell_value with the characteristic's foot xb already traced
 * from x (second_order_fix needs it again). */
static double
value_at(const field *q, const advect_shell *sh, const double x[3], const double xb[3],
	 int *blocked)
{
	const shell_set *s = sh->set;
	double foot[3], v;
	int a, blk = 0, hidden;

	memcpy(foot, xb, sizeof foot);
	if (clear_of_shells(q, s, x, xb)) {
		/* what the clipping and shell_sample below would give */
		if (blocked)
			*blocked = 0;
		return field_sample(q, xb);
	}
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

double
advect_shell_value(const linmac *vel, double dt, const field *q,
		   const advect_shell *sh, const double x[3], int *blocked)
{
	double xb[3];

	linmac_trace(vel, x, dt, xb);
	return value_at(q, sh, x, xb, blocked);
}

/* Dilate the cube flags m (n[0]*n[1]*n[2]) by r cubes along axis a (a box
 * dilation when done on every axis) within the cubes lo..hi (inclusive),
 * outside which every flag is 0 and stays 0 (the range holds every flag
 * set and r cubes around them): along each line of cubes, a running count
 * of the flags in the window [x - r, x + r]; tmp holds a line. */
static void
dilate_axis(unsigned char *m, unsigned char *tmp, const int n[3], const int lo[3],
	    const int hi[3], int a, int r)
{
	size_t stride = a == 0 ? 1 : a == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
	int b = (a + 1) % 3, c = (a + 2) % 3, p, q, x, len = hi[a] - lo[a] + 1;
	size_t sb = b == 0 ? 1 : b == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
	size_t sc = c == 0 ? 1 : c == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];

	for (q = lo[c]; q <= hi[c]; q++)
		for (p = lo[b]; p <= hi[b]; p++) {
			unsigned char *line = m + (size_t)p * sb + (size_t)q * sc +
					      (size_t)lo[a] * stride;
			int cnt = 0;

			for (x = 0; x < len; x++)
				tmp[x] = line[(size_t)x * stride];
			/* the window of x = 0 holds 0 .. r - 1 before the loop
			 * adds x + r */
			for (x = 0; x < r && x < len; x++)
				cnt += tmp[x];
			for (x = 0; x < len; x++) {
				if (x + r < len)
					cnt += tmp[x + r];
				if (x - r - 1 >= 0)
					cnt -= tmp[x - r - 1];
				line[(size_t)x * stride] = cnt > 0;
			}
		}
}

/* A foot within this fraction of a cell of a sample plane may pick
 * another stencil in advect.c's float characteristics than in the double
 * ones here: such a sample is not trusted to keep the scheme's value. */
#define PLANE_MARGIN 1e-4

/* The base sample (clamped as field_sample clamps) of q's stencil at x,
 * the foot of a characteristic from the sample at from, and whether x
 * lies within PLANE_MARGIN of a sample plane it has moved along its axis
 * (a foot that has not moved along an axis lies on from's plane in both
 * kinds of arithmetic). */
static int
stencil_at(const field *q, const double from[3], const double x[3], int b[3])
{
	double off[3];
	int dim[3] = {q->ni, q->nj, q->nk}, a, near = 0;

	field_offset(q, off);
	for (a = 0; a < 3; a++) {
		double c = (x[a] - q->origin[a]) / q->dx - off[a], f;

		if (dim[a] < 2 || !(c > 0)) {
			b[a] = 0;
		} else if (c >= dim[a] - 1) {
			b[a] = dim[a] - 2;
		} else {
			b[a] = (int)floor(c);
		}
		f = c - floor(c);
		near |= x[a] != from[a] && !(f > PLANE_MARGIN && f < 1 - PLANE_MARGIN);
	}
	return near;
}

/* Sample c (0..7: bit 0 along x, 1 along y, 2 along z) of the stencil at
 * base b, clamped to the grid. */
static size_t
corner_idx(const field *q, const int b[3], int c, double pos[3])
{
	int i = b[0] + (c & 1), j = b[1] + (c >> 1 & 1), k = b[2] + (c >> 2);

	i = i < q->ni ? i : q->ni - 1;
	j = j < q->nj ? j : q->nj - 1;
	k = k < q->nk ? k : q->nk - 1;
	if (pos)
		field_pos(q, i, j, k, pos);
	return FIELD_IDX(q, i, j, k);
}

/* Flags of the second order check (one byte a sample). */
enum {
	SF_BAND = 1,            /* in the band: checked */
	SF_FIRST = 2,           /* the first step A(phi) here is one-sided (a
				   trace clipped, a stencil sample hidden) or
				   not trusted (PLANE_MARGIN) */
	SF_NEAR = 4,            /* within the first step's reach of a shell
				   (elsewhere SF_FIRST cannot be set) */
	SF_DONE = 8             /* its one-sided value is in first[] */
};

/* Does the back step A^R of sample (i0,j0,k0) at x (the forward
 * characteristic, interpolating the first step's result) stay on its
 * side of the shells and read only samples whose first step did?  It
 * reaches no farther than the first step does (the same speed bound). */
static int
back_step_clean(const linmac *M, double dt, const field *q, const shell_set *s,
		const unsigned char *flag, int i0, int j0, int k0, const double x[3])
{
	double xf[3], lo[3], hi[3], pos[8][3];
	int b[3], c, a, vis[8];
	size_t id[8];
	shell_cand C;

	linmac_trace(M, x, -dt, xf);
	if (stencil_at(q, x, xf, b))
		return 0;
	for (a = 0; a < 3; a++) {
		lo[a] = fmin(x[a], xf[a]);
		hi[a] = fmax(x[a], xf[a]);
	}
	for (c = 0; c < 8; c++) {
		id[c] = corner_idx(q, b, c, pos[c]);
		if (flag[id[c]] & SF_FIRST)
			return 0;
		for (a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], pos[c][a]);
			hi[a] = fmax(hi[a], pos[c][a]);
		}
	}
	/* beyond a first step's reach of every shell (not SF_NEAR), or no
	 * wedge 2 eps thick meeting the box of the trace and the stencil:
	 * both are clear */
	if (!(flag[FIELD_IDX(q, i0, j0, k0)] & SF_NEAR) || shell_gather(s, lo, hi, &C) == 0)
		return 1;
	if (!shell_visible_eps(s, x, xf, 2 * s->eps))
		return 0;
	return shell_fan_in(s, &C, xf, (const double (*)[3])pos, 8, vis, 0, NULL) == 8;
}

/* MacCormack and BFECC next to shells (guendelman2005 §4.1: they "revert
 * to first order wherever a stencil is blocked"): out keeps the scheme's
 * value at a sample of the band whose every step reads only samples on
 * its side of the shells, and takes the one-sided first order value
 * elsewhere.  MacCormack at x reads A(phi) at x and A^R(A(phi)) at x;
 * BFECC reads A(phi) and A^R(A(phi)) at the samples of x's stencil, then
 * steps A once more from x.  flag: one byte a sample, SF_BAND set in the
 * band; back: one byte a sample, set to 1 where the back step A^R
 * reaches across a shell or reads a sample flagged SF_FIRST. */
static size_t
second_order_fix(const linmac *M, double dt, const field *q, field *out,
		 const advect_shell *sh, int bfecc, unsigned char *flag,
		 unsigned char *back, float *first)
{
	const shell_set *s = sh->set;
	size_t count = 0;
	long row;

	/* the one-sided first step, and where it differs from A(phi) */
#pragma omp parallel for schedule(dynamic, SHELL_ROW_CHUNK) if (field_count(q) >= SHELL_PAR_MIN)
	for (row = 0; row < (long)q->nj * q->nk; row++) {
		int j = (int)(row % q->nj), k = (int)(row / q->nj), i;

		for (i = 0; i < q->ni; i++) {
			size_t id = FIELD_IDX(q, i, j, k);
			double x[3], xb[3];
			int blk, b[3];

			if (!(flag[id] & SF_NEAR))
				continue;
			field_pos(q, i, j, k, x);
			linmac_trace(M, x, dt, xb);
			first[id] = (float)value_at(q, sh, x, xb, &blk);
			flag[id] |= SF_DONE;
			if (blk || stencil_at(q, x, xb, b))
				flag[id] |= SF_FIRST;
		}
	}
#pragma omp parallel for schedule(dynamic, SHELL_ROW_CHUNK) if (field_count(q) >= SHELL_PAR_MIN)
	for (row = 0; row < (long)q->nj * q->nk; row++) {
		int j = (int)(row % q->nj), k = (int)(row / q->nj), i;

		for (i = 0; i < q->ni; i++) {
			size_t id = FIELD_IDX(q, i, j, k);
			double x[3];

			/* MacCormack reads the back step only where it keeps
			 * the first */
			if (!(flag[id] & SF_BAND) || (!bfecc && (flag[id] & SF_FIRST)))
				continue;
			field_pos(q, i, j, k, x);
			back[id] = !back_step_clean(M, dt, q, s, flag, i, j, k, x);
		}
	}
#pragma omp parallel for schedule(dynamic, SHELL_ROW_CHUNK) reduction(+ : count) \
	if (field_count(q) >= SHELL_PAR_MIN)
	for (row = 0; row < (long)q->nj * q->nk; row++) {
		int j = (int)(row % q->nj), k = (int)(row / q->nj), i;

		for (i = 0; i < q->ni; i++) {
			size_t id = FIELD_IDX(q, i, j, k);
			int keep = !(flag[id] & SF_FIRST), b[3], c;

			if (!(flag[id] & SF_BAND))
				continue;
			if (keep && !bfecc) {
				keep = !back[id];
			} else if (keep) {
				double x[3], xb[3];

				field_pos(q, i, j, k, x);
				linmac_trace(M, x, dt, xb);
				stencil_at(q, x, xb, b);
				for (c = 0; c < 8 && keep; c++)
					keep = !back[corner_idx(q, b, c, NULL)];
			}
			if (!keep) {
				double x[3];

				field_pos(q, i, j, k, x);
				out->a[id] = flag[id] & SF_DONE ? first[id] :
					     (float)advect_shell_value(M, dt, q, sh, x, NULL);
				count++;
			}
		}
	}
	return count;
}

void
advect_shell_band_free(advect_shell_band *B)
{
	int q;

	for (q = 0; q < ADVECT_SHELL_BANDS; q++)
		free(B->b[q]);
	memset(B, 0, sizeof *B);
}

/* The cubes of s within r cubes of one holding a triangle (one byte a
 * cube): from sh's cache, or made (into the cache, or into *own for the
 * caller to free).  NULL with err (memory). */
static const unsigned char *
cube_band(const advect_shell *sh, int r, unsigned char **own, slc_err *err)
{
	const shell_set *s = sh->set;
	advect_shell_band *B = sh->band;
	int n[3] = {s->ci, s->cj, s->ck}, a, q;
	size_t ncube = (size_t)n[0] * n[1] * n[2], c;
	unsigned char *m, *tmp;

	*own = NULL;
	if (B && B->valid)
		for (q = 0; q < ADVECT_SHELL_BANDS; q++)
			if (B->b[q] && B->r[q] == r)
				return B->b[q];
	m = slc_calloc(ncube, 1, err);
	tmp = m ? slc_malloc((size_t)(n[0] > n[1] ? (n[0] > n[2] ? n[0] : n[2]) :
				      (n[1] > n[2] ? n[1] : n[2])), 1, err) : NULL;
	if (!tmp) {
		free(m);
		return NULL;
	}
	/* every cube listing a triangle lies in the cubes of the box of
	 * all wedges (gbox): the band is that range grown by r, and the
	 * flags beyond it stay 0 */
	{
		double gmn[3], gmx[3];
		int lo[3], hi[3], i, j, k;

		for (a = 0; a < 3; a++) {
			gmn[a] = s->gbox[a];
			gmx[a] = s->gbox[3 + a];
		}
		if (gmn[0] <= gmx[0] && gmn[1] <= gmx[1] && gmn[2] <= gmx[2]) {
			shell_cube_range(s, gmn, gmx, lo, hi);
			for (k = lo[2]; k <= hi[2]; k++)
				for (j = lo[1]; j <= hi[1]; j++)
					for (i = lo[0]; i <= hi[0]; i++) {
						c = (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * k);
						m[c] = s->start[c] != s->start[c + 1];
					}
			for (a = 0; a < 3; a++) {
				lo[a] = lo[a] - r > 0 ? lo[a] - r : 0;
				hi[a] = hi[a] + r < n[a] - 1 ? hi[a] + r : n[a] - 1;
			}
			for (a = 0; a < 3; a++)
				dilate_axis(m, tmp, n, lo, hi, a, r);
		}
	}
	free(tmp);
	if (!B) {
		*own = m;
		return m;
	}
	if (!B->valid) {
		advect_shell_band_free(B);
		B->valid = 1;
	}
	q = B->next;
	B->next = (q + 1) % ADVECT_SHELL_BANDS;
	free(B->b[q]);
	B->b[q] = m;
	B->r[q] = r;
	return m;
}

/* The lattice cube along each axis of each sample index of q (cube[i],
 * cube[ni + j], cube[ni + nj + k]): the cube holding a sample is
 * separable, as shell_cube_range finds it. */
static void
sample_cubes(const field *q, const shell_set *s, int *cube)
{
	int dim[3] = {q->ni, q->nj, q->nk}, a, m, at = 0;

	for (a = 0; a < 3; a++)
		for (m = 0; m < dim[a]; m++) {
			int ijk[3] = {0, 0, 0}, lo[3], hi[3];
			double x[3];

			ijk[a] = m;
			field_pos(q, ijk[0], ijk[1], ijk[2], x);
			shell_cube_range(s, x, x, lo, hi);
			cube[at++] = lo[a];
		}
}

int
advect_shell_fix(const macgrid *vel, double dt, const field *q, field *out,
		 const advect_opts *o, slc_err *err)
{
	linmac M;
	const shell_set *s = o->shell->set;
	advect_shell sh = *o->shell;
	int n[3] = {s->ci, s->cj, s->ck};
	size_t count = 0;
	const unsigned char *band, *near = NULL;
	unsigned char *own_band = NULL, *own_near = NULL;
	int *cube;
	double vmax, reach;
	long row;

	if (!s->start || s->ntri == 0)
		return 0;
	if (sh.fb.kind == SHELL_FILL_VEL)
		sh.fb.comp = q->stagger >= SLC_FACE_X && q->stagger <= SLC_FACE_Z ?
			     q->stagger - SLC_FACE_X : 0;
	/* how far a characteristic (and its stencil) reaches; MacCormack and
	 * BFECC trace back and forth from the samples the first step used */
	vmax = o->vmax > 0 ? o->vmax : mac_max_speed(vel);
	reach = fabs(dt) * vmax + q->dx;
	if (o->scheme != ADVECT_SL) {
		/* the first step's own band, where it may be blocked */
		if (!(near = cube_band(&sh, (int)ceil(reach / s->h) + 1, &own_near, err)))
			return -1;
		reach = 2 * reach + q->dx;
	}
	if (!(band = cube_band(&sh, (int)ceil(reach / s->h) + 1, &own_band, err))) {
		free(own_near);
		return -1;
	}
	linmac_init(&M, vel);
	if (o->scheme != ADVECT_SL) {
		/* from the frame's pool (fresh pages cost a pass of their
		 * own): the one-sided values, and the flags of the check
		 * (flag, back: a byte a sample each) in a float buffer of half
		 * as many samples */
		size_t nq = field_count(q);
		float *first = advect_pool_take(o->pool, nq, err);
		float *bytes = first ? advect_pool_take(o->pool, nq / 2 + 1, err) : NULL;
		unsigned char *flag = (unsigned char *)bytes, *back = flag + nq;

		if (!bytes) {
			advect_pool_give(o->pool, first);
			free(own_band);
			free(own_near);
			return -1;
		}
		if (!(cube = slc_malloc((size_t)q->ni + q->nj + q->nk, sizeof *cube, err))) {
			advect_pool_give(o->pool, bytes);
			advect_pool_give(o->pool, first);
			free(own_band);
			free(own_near);
			return -1;
		}
		sample_cubes(q, s, cube);
		memset(flag, 0, 2 * nq);
#pragma omp parallel for schedule(static) if (nq >= SHELL_PAR_MIN)
		for (row = 0; row < (long)q->nj * q->nk; row++) {
			int j = (int)(row % q->nj), k = (int)(row / q->nj), i;
			size_t cjk = (size_t)n[0] * ((size_t)cube[q->ni + j] +
						     (size_t)n[1] * cube[q->ni + q->nj + k]);

			for (i = 0; i < q->ni; i++) {
				size_t cu = cjk + (size_t)cube[i];

				flag[FIELD_IDX(q, i, j, k)] = (unsigned char)((band[cu] ? SF_BAND : 0) |
									      (near[cu] ? SF_NEAR : 0));
			}
		}
		free(cube);
		count = second_order_fix(&M, dt, q, out, &sh, o->scheme == ADVECT_BFECC,
					 flag, back, first);
		advect_pool_give(o->pool, bytes);
		advect_pool_give(o->pool, first);
		free(own_band);
		free(own_near);
		if (sh.count)
			*sh.count += count;
		return 0;
	}
#pragma omp parallel for schedule(dynamic, SHELL_ROW_CHUNK) reduction(+ : count) \
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
	free(own_band);
	if (sh.count)
		*sh.count += count;
	return 0;
}
