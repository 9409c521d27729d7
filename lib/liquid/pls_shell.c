/* pls_shell.c: marker particles that would cross a thin shell removed
 * (pls_shell.h). */
#include "liquid/pls_shell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/tri.h"
#include "shell/shell_fill.h"
#include "shell/shell_sweep.h"

/* Below this many particles the test runs on one thread. */
#define CULL_PAR_MIN 4096

/* The unit normal n and the corners x of triangle tq of set S (made by
 * shell_track_set) at fraction f of the frame. */
static void
tri_at(const pls_shell *sh, const shell_set *S, uint32_t tq, double f, double x[3][3],
       double n[3])
{
	const shell_mesh *M = &sh->trk->m[S->tmesh[tq]];
	const uint32_t *tr = M->tri + 3 * (size_t)S->tlocal[tq];
	double e1[3], e2[3], l;
	int c;

	for (c = 0; c < 3; c++)
		shell_track_point(sh->trk, S->tmesh[tq], tr[c], f, x[c]);
	for (c = 0; c < 3; c++) {
		e1[c] = x[1][c] - x[0][c];
		e2[c] = x[2][c] - x[0][c];
	}
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	for (c = 0; c < 3; c++)
		n[c] = l > 0 ? n[c] / l : 0;
}

/* Signed distance of p from the plane through x0 with unit normal n. */
static double
plane_dist(const double p[3], const double x0[3], const double n[3])
{
	return (p[0] - x0[0]) * n[0] + (p[1] - x0[1]) * n[1] + (p[2] - x0[2]) * n[2];
}

/* guendelman2005 §4.4.2: a negative particle whose move from a to b met
 * a shell goes back to the side of the triangle it started on: "with the
 * particle and triangle in their initial position, we record which side
 * of the triangle the particle is on ...  with the particle and triangle
 * in their final position, we move the particle normal to the triangle so
 * that it is on the same side as before and offset by its collision
 * distance".  The triangle is the one nearest b at the end among those
 * (within a lattice cube of the path, as shell_sweep_point looks) whose
 * plane b has crossed since a or lies within cd of; b is moved along its
 * normal to cd on a's side.  Returns 0 with b unchanged when no triangle
 * qualifies. */
static int
push_back(const pls_shell *sh, const double a[3], double b[3], double cd)
{
	const shell_set *S = sh->at1;
	double mn[3], mx[3], best = INFINITY, move = 0, nb[3] = {0, 0, 0};
	int lo[3], hi[3], i, j, k, c;

	if (!S->start || !S->ntri)
		return 0;
	for (c = 0; c < 3; c++) {
		mn[c] = fmin(a[c], b[c]) - S->h;
		mx[c] = fmax(a[c], b[c]) + S->h;
	}
	shell_cube_range(S, mn, mx, lo, hi);
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				size_t cu = (size_t)i + (size_t)S->ci * ((size_t)j + (size_t)S->cj * k);
				uint32_t q;

				for (q = S->start[cu]; q < S->start[cu + 1]; q++) {
					double x0[3][3], x1[3][3], n0[3], n1[3], d0, d1, d2;
					uint32_t tq = S->list[q];

					tri_at(sh, S, tq, sh->s0, x0, n0);
					tri_at(sh, S, tq, sh->s1, x1, n1);
					d0 = plane_dist(a, x0[0], n0);
					d1 = plane_dist(b, x1[0], n1);
					if (d0 == 0 || ((d0 > 0) == (d1 > 0) && fabs(d1) >= cd))
						continue;
					d2 = tri_closest(b, x1[0], x1[1], x1[2], NULL, NULL);
					/* the nearest; the cubes and their lists are
					 * walked in a fixed order, so a tie goes the
					 * same way on every run */
					if (d2 < best) {
						best = d2;
						move = (d0 > 0 ? cd : -cd) - d1;
						memcpy(nb, n1, sizeof nb);
					}
				}
			}
	if (best == INFINITY)
		return 0;
	for (c = 0; c < 3; c++)
		b[c] += move * nb[c];
	return 1;
}

/* Does particle q of s, moved from a to b, go: its move met a shell and,
 * for a negative particle, the place push_back puts it (stored into s)
 * is not clear either (guendelman2005 §4.4.2: "we check this new particle
 * path against the moving object and delete the particle if it still
 * intersects the object")?  Positive particles that hit go.  The new
 * place is clear when no shell sweeps over it or holds it in a wedge
 * during the substep and the segment from a to it crosses no shell at
 * the substep's start: the whole path a -> b tested again would fail
 * wherever the shell ends within a wedge of a (a sheet pushing the
 * particle ahead of it). */
static int
cull_one(pls_set *s, size_t q, const pls_shell *sh, const double a[3], double b[3])
{
	int c;

	if (!shell_sweep_point(sh->trk, sh->at0, sh->at1, sh->s0, sh->s1, a, b))
		return 0;
	/* the collision distance: the particle's radius, 0.1-0.5 cells,
	 * within the paper's random [0.1, 1] dx and beyond the wedge */
	if (s->sign > 0 || !push_back(sh, a, b, s->r[q]) ||
	    shell_sweep_point(sh->trk, sh->at0, sh->at1, sh->s0, sh->s1, b, b) ||
	    !shell_visible(sh->at0, a, b))
		return 1;
	for (c = 0; c < 3; c++)
		s->x[3 * q + c] = (float)b[c];
	return 0;
}

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
			hit[p] = (unsigned char)cull_one(s, (size_t)p, sh, a, b);
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

			h = cull_one(s, q, sh, a, b);
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
