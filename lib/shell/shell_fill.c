/* shell_fill.c: blocked samples' values and the Gauss-Jacobi
 * revalidation of samples a shell swept over (shell_fill.h). */
#include "shell/shell_fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this many samples a loop runs on one thread. */
#define FILL_PAR_MIN 4096
/* A level set's sample inside a wedge sees nothing through the wedges
 * (guendelman2005 §3 counts it "inside the object"); it takes its values
 * from its side of wedges this fraction of eps thick: with advect's eps
 * of 0.1 cell that is shellcouple's 0.001 cell, so the side a sample takes
 * is the side the pressure solve joins it to (its faces uncut there). */
#define SHELL_FILL_THIN 0.01

/* shell_fallback_value with the segment's triangles gathered in C (or
 * C NULL: the lattice walked). */
static double
fallback_in(const shell_fallback *fb, const shell_set *s, const shell_cand *C,
	    const double x[3], const double q[3])
{
	shell_hit hit;
	double v[3], d[3];

	switch (fb->kind) {
	case SHELL_FILL_VEL:
		/* a still shell's velocity is 0 wherever the ray hits it */
		if (!fb->trk || !shell_track_moving(fb->trk))
			return 0;
		if (!(C ? shell_segment_hit_in(s, C, x, q, 0, &hit) :
		      shell_segment_hit(s, x, q, 0, &hit)))
			return 0;
		shell_track_velocity(fb->trk, s, &hit, v);
		return v[fb->comp];
	case SHELL_FILL_PHI:
		d[0] = q[0] - x[0];
		d[1] = q[1] - x[1];
		d[2] = q[2] - x[2];
		return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	default:
		return fb->value;
	}
}

double
shell_fallback_value(const shell_fallback *fb, const shell_set *s,
		     const double x[3], const double q[3])
{
	return fallback_in(fb, s, NULL, x, q);
}

int
shell_ring_rule(double v[8], const int vis[8])
{
	double r[8];
	int corner, nvis = 0;

	for (corner = 0; corner < 8; corner++)
		nvis += vis[corner] != 0;
	if (nvis == 0 || nvis == 8)
		return nvis;
	for (corner = 0; corner < 8; corner++) {
		int ring, m;

		r[corner] = v[corner];
		if (vis[corner])
			continue;
		/* one ring (corners differing in one index bit), then two,
		 * then the opposite corner */
		for (ring = 1; ring <= 3; ring++) {
			double sum = 0;
			int cnt = 0;

			for (m = 0; m < 8; m++)
				if (__builtin_popcount((unsigned)(m ^ corner)) == ring && vis[m]) {
					sum += v[m];
					cnt++;
				}
			if (cnt) {
				r[corner] = sum / cnt;
				break;
			}
		}
	}
	memcpy(v, r, sizeof r);
	return nvis;
}

/* Split a sample-space coordinate into a clamped base index and weight,
 * as field_sample does. */
static void
locate(double s, int n, int *i0, double *w)
{
	if (n < 2 || !(s > 0)) {
		*i0 = 0;
		*w = 0;
	} else if (s >= n - 1) {
		*i0 = n - 2;
		*w = 1;
	} else {
		*i0 = (int)floor(s);
		*w = s - *i0;
	}
}

/* The ring rule (shell_ring_rule) of the corners pos[8] (values v) that a
 * point x inside a wedge sees through wedges SHELL_FILL_THIN of the set's
 * eps thick (nearly the bare triangles): the corners on x's side of them.
 * Returns the number of corners seen (0: v unchanged). */
static int
wedge_side(const shell_set *s, const double x[3], double pos[8][3], double v[8], int vis[8])
{
	int c;

	for (c = 0; c < 8; c++)
		vis[c] = shell_visible_eps(s, x, pos[c], SHELL_FILL_THIN * s->eps);
	return shell_ring_rule(v, vis);
}

double
shell_sample(const field *q, const shell_set *s, const shell_fallback *fb,
	     const double x[3], int *blocked)
{
	double off[3], w[3], v[8], pos[8][3];
	int b[3], vis[8], dim[3] = {q->ni, q->nj, q->nk}, a, c, nvis = 0;
	shell_cand C;
	double fv[8];
	int velhit = fb->kind == SHELL_FILL_VEL && fb->trk && shell_track_moving(fb->trk);

	field_offset(q, off);
	for (a = 0; a < 3; a++)
		locate((x[a] - q->origin[a]) / q->dx - off[a], dim[a], &b[a], &w[a]);
	{
		/* the triangles that may block a ray inside the stencil's
		 * box; none: every ray is clear */
		double lo[3], hi[3];

		field_pos(q, b[0], b[1], b[2], lo);
		field_pos(q, b[0] + (dim[0] > 1), b[1] + (dim[1] > 1), b[2] + (dim[2] > 1), hi);
		for (a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], x[a]);
			hi[a] = fmax(hi[a], x[a]);
		}
		if (shell_gather(s, lo, hi, &C) == 0) {
			if (blocked)
				*blocked = 0;
			return field_sample(q, x);
		}
	}
	for (c = 0; c < 8; c++) {
		int i = b[0] + (c & 1), j = b[1] + (c >> 1 & 1), k = b[2] + (c >> 2);

		i = i < q->ni ? i : q->ni - 1;
		j = j < q->nj ? j : q->nj - 1;
		k = k < q->nk ? k : q->nk - 1;
		v[c] = q->a[FIELD_IDX(q, i, j, k)];
		field_pos(q, i, j, k, pos[c]);
	}
	if (velhit) {
		/* the hits a hidden sample's fallback needs, found in the
		 * same pass as its visibility */
		shell_hit hit[8];
		double u[3];

		nvis = shell_fan_in(s, &C, x, (const double (*)[3])pos, 8, vis, 0, hit);
		for (c = 0; c < 8; c++)
			if (!vis[c]) {
				shell_track_velocity(fb->trk, s, &hit[c], u);
				fv[c] = u[fb->comp];
			}
	} else {
		nvis = shell_fan_in(s, &C, x, (const double (*)[3])pos, 8, vis, 0, NULL);
	}
	if (blocked)
		*blocked = nvis < 8;
	if (nvis < 8) {
		if (fb->kind == SHELL_FILL_PHI || fb->kind == SHELL_FILL_RING) {
			/* §4.4.1: the one, two, three ring; with no corner
			 * visible, x lies inside a wedge (every ray from it is
			 * blocked): the corners on its side of the bare
			 * triangles instead.  With none there either, x is on
			 * the shell itself: a level set takes the plain
			 * trilinear value (no side to prefer), not a positive
			 * distance that turns still water on a wall into air;
			 * other fields the constant */
			if (shell_ring_rule(v, vis) == 0 && !wedge_side(s, x, pos, v, vis)) {
				if (fb->kind == SHELL_FILL_PHI)
					return field_sample(q, x);
				for (c = 0; c < 8; c++)
					v[c] = fallback_in(fb, s, &C, x, pos[c]);
			}
		} else {
			for (c = 0; c < 8; c++)
				if (!vis[c])
					v[c] = velhit ? fv[c] : fallback_in(fb, s, &C, x, pos[c]);
		}
	}
	return (1 - w[2]) * ((1 - w[1]) * ((1 - w[0]) * v[0] + w[0] * v[1]) +
			     w[1] * ((1 - w[0]) * v[2] + w[0] * v[3])) +
	       w[2] * ((1 - w[1]) * ((1 - w[0]) * v[4] + w[0] * v[5]) +
		       w[1] * ((1 - w[0]) * v[6] + w[0] * v[7]));
}

/* The sample index and the position of axis neighbour n (0..5: -x, +x,
 * -y, +y, -z, +z) of sample (i,j,k); 0 if outside the grid. */
static int
neighbour(const field *f, int i, int j, int k, int n, size_t *idx, double q[3])
{
	int c[3] = {i, j, k}, dim[3] = {f->ni, f->nj, f->nk}, a = n / 2;

	c[a] += n & 1 ? 1 : -1;
	if (c[a] < 0 || c[a] >= dim[a])
		return 0;
	*idx = FIELD_IDX(f, c[0], c[1], c[2]);
	field_pos(f, c[0], c[1], c[2], q);
	return 1;
}

static void
unindex(const field *f, size_t s, int *i, int *j, int *k)
{
	*i = (int)(s % (size_t)f->ni);
	s /= (size_t)f->ni;
	*j = (int)(s % (size_t)f->nj);
	*k = (int)(s / (size_t)f->nj);
}

/* One Jacobi sweep over the n samples of list: val[q], ok[q] for each.
 * last: blocked neighbours contribute the fallback (and every sample
 * gets a value). */
static void
sweep(const field *f, const unsigned char *bad, const size_t *list, size_t n,
      const shell_set *s, const shell_fallback *fb, int last, double *val,
      unsigned char *ok, unsigned char *hid)
{
	long q;

#pragma omp parallel for schedule(static) if (n >= FILL_PAR_MIN)
	for (q = 0; q < (long)n; q++) {
		double p[3], x[3], sum = 0, own = 0;
		int i, j, k, nb, cnt = 0, have_own = 0;

		unindex(f, list[q], &i, &j, &k);
		field_pos(f, i, j, k, p);
		/* the neighbours' visibility, found in the first sweep:
		 * bit nb set when hidden, bit 6 once known, bit 7 when the
		 * sample lies on the shell itself */
		if (!(hid[q] & 64)) {
			unsigned char h = 64, there = 0;

			for (nb = 0; nb < 6; nb++) {
				size_t id;

				if (!neighbour(f, i, j, k, nb, &id, x))
					continue;
				there |= (unsigned char)(1u << nb);
				if (!shell_visible(s, p, x))
					h |= (unsigned char)(1u << nb);
			}
			if ((h & there) == there && there &&
			    (fb->kind == SHELL_FILL_PHI || fb->kind == SHELL_FILL_RING)) {
				/* inside a wedge: the neighbours on its side
				 * of the bare triangles (as shell_sample) */
				h = 64;
				for (nb = 0; nb < 6; nb++) {
					size_t id;

					if (neighbour(f, i, j, k, nb, &id, x) &&
					    !shell_visible_eps(s, p, x, SHELL_FILL_THIN * s->eps))
						h |= (unsigned char)(1u << nb);
				}
				if ((h & there) == there)
					h |= 128;
			}
			hid[q] = h;
		}
		for (nb = 0; nb < 6; nb++) {
			size_t id;

			if (!neighbour(f, i, j, k, nb, &id, x))
				continue;
			if (!(hid[q] >> nb & 1)) {
				if (!bad[id]) {
					sum += f->a[id];
					cnt++;
				}
			} else if (last && !(hid[q] & 128)) {
				double v = shell_fallback_value(fb, s, p, x);

				sum += v;
				cnt++;
				if (!have_own) {
					own = v;
					have_own = 1;
				}
			}
		}
		ok[q] = cnt > 0 || last;
		if (cnt)
			val[q] = sum / cnt;
		else if (last && (hid[q] & 128) && fb->kind == SHELL_FILL_PHI)
			val[q] = f->a[list[q]];   /* on the shell: no side to
						     take from, phi kept */
		else if (last)
			val[q] = fb->kind == SHELL_FILL_PHI ? f->dx :
				 fb->kind == SHELL_FILL_VEL ? own : fb->value;
	}
}

int
shell_fill(field *f, unsigned char *bad, const shell_set *s, const shell_fallback *fb,
	   size_t *nfall, slc_err *err)
{
	size_t n = field_count(f), cnt = 0, c, q, w;
	size_t *list;
	double *val;
	unsigned char *ok, *hid;
	int last;

	if (nfall)
		*nfall = 0;
	for (c = 0; c < n; c++)
		cnt += bad[c] != 0;
	if (!cnt)
		return 0;
	list = slc_malloc(cnt, sizeof *list, err);
	val = list ? slc_malloc(cnt, sizeof *val, err) : NULL;
	ok = val ? slc_malloc(cnt, 1, err) : NULL;
	hid = ok ? slc_calloc(cnt, 1, err) : NULL;
	if (!hid) {
		free(list);
		free(val);
		free(ok);
		return -1;
	}
	for (c = 0, q = 0; c < n; c++)
		if (bad[c])
			list[q++] = c;
	for (last = 0; cnt > 0;) {
		size_t done = 0;

		sweep(f, bad, list, cnt, s, fb, last, val, ok, hid);
		/* Jacobi: the values of one sweep are applied together */
		for (q = 0; q < cnt; q++)
			if (ok[q]) {
				f->a[list[q]] = (float)val[q];
				done++;
			}
		for (q = 0; q < cnt; q++)
			if (ok[q])
				bad[list[q]] = 0;
		if (last && nfall)
			*nfall = done;
		for (q = 0, w = 0; q < cnt; q++)
			if (!ok[q]) {
				hid[w] = hid[q];
				list[w++] = list[q];
			}
		cnt = w;
		if (!done)
			last = 1;
	}
	free(list);
	free(val);
	free(ok);
	free(hid);
	return 0;
}
