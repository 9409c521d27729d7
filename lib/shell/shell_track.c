/* shell_track.c: thin shells moving linearly over a frame (shell_track.h). */
#include "shell/shell_track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
shell_track_init(shell_track *t, double T, double eps, const double origin[3],
		 double h, int ci, int cj, int ck, slc_err *err)
{
	memset(t, 0, sizeof *t);
	if (!(T > 0) || !isfinite(T))
		return slc_fail(err, "shell frame length %g must be positive", T);
	if (!(eps > 0) || !isfinite(eps))
		return slc_fail(err, "shell thickness %g must be positive", eps);
	t->T = T;
	t->eps = eps;
	memcpy(t->origin, origin, sizeof t->origin);
	t->h = h;
	t->ci = ci;
	t->cj = cj;
	t->ck = ck;
	return 0;
}

int
shell_track_add(shell_track *t, const double *P0, const double *P1, size_t np,
		const uint32_t *tri, size_t ntri, slc_err *err)
{
	shell_mesh *m, *grown;
	size_t k, n3;

	if (slc_mul(np, 3, &n3))
		return slc_fail(err, "too many shell points");
	for (k = 0; k < 3 * ntri; k++)
		if (tri[k] >= np)
			return slc_fail(err, "triangle %zu: point index %u out of range",
					k / 3, tri[k]);
	for (k = 0; k < n3; k++)
		if (!isfinite(P1[k]) || (P0 && !isfinite(P0[k])))
			return slc_fail(err, "point %zu: coordinate not finite", k / 3);
	grown = realloc(t->m, (t->nmesh + 1) * sizeof *grown);
	if (!grown)
		return slc_fail(err, "out of memory (%zu shell meshes)", t->nmesh + 1);
	t->m = grown;
	m = &t->m[t->nmesh];
	memset(m, 0, sizeof *m);
	m->np = np;
	m->ntri = ntri;
	m->P0 = slc_malloc(n3 ? n3 : 1, sizeof *m->P0, err);
	m->P1 = m->P0 ? slc_malloc(n3 ? n3 : 1, sizeof *m->P1, err) : NULL;
	m->tri = m->P1 ? slc_malloc(ntri ? 3 * ntri : 1, sizeof *m->tri, err) : NULL;
	if (!m->tri) {
		free(m->P0);
		free(m->P1);
		return -1;
	}
	memcpy(m->P1, P1, n3 * sizeof *P1);
	memcpy(m->P0, P0 ? P0 : P1, n3 * sizeof *P1);
	memcpy(m->tri, tri, 3 * ntri * sizeof *tri);
	m->moving = P0 && memcmp(P0, P1, n3 * sizeof *P1) != 0;
	t->nmesh++;
	return 0;
}

int
shell_track_moving(const shell_track *t)
{
	size_t m;

	for (m = 0; m < t->nmesh; m++)
		if (t->m[m].moving)
			return 1;
	return 0;
}

void
shell_track_point(const shell_track *t, size_t m, size_t p, double s, double x[3])
{
	const shell_mesh *M = &t->m[m];
	int a;

	/* guendelman2005 §3: nodes move on straight lines from x^n to x^{n+1} */
	for (a = 0; a < 3; a++)
		x[a] = (1 - s) * M->P0[3 * p + a] + s * M->P1[3 * p + a];
}

int
shell_track_set(const shell_track *t, double frac, shell_set *s, slc_err *err)
{
	size_t m, p;
	float *P = NULL;
	int rc;

	shell_free(s);
	if (shell_init(s, t->eps, err))
		return -1;
	for (m = 0; m < t->nmesh; m++) {
		const shell_mesh *M = &t->m[m];
		float *grown = realloc(P, (M->np ? M->np : 1) * 3 * sizeof *P);

		if (!grown) {
			free(P);
			return slc_fail(err, "out of memory (%zu shell points)", M->np);
		}
		P = grown;
		for (p = 0; p < M->np; p++) {
			double x[3];
			int a;

			shell_track_point(t, m, p, frac, x);
			for (a = 0; a < 3; a++)
				P[3 * p + a] = (float)x[a];
		}
		if (shell_add_mesh(s, P, M->np, M->tri, M->ntri, err)) {
			free(P);
			return -1;
		}
	}
	free(P);
	rc = shell_build(s, t->origin, t->h, t->ci, t->cj, t->ck, err);
	return rc;
}

void
shell_track_velocity(const shell_track *t, const shell_set *s, const shell_hit *hit,
		     double v[3])
{
	const shell_mesh *M = &t->m[s->tmesh[hit->tri]];
	const uint32_t *tr = M->tri + 3 * (size_t)s->tlocal[hit->tri];
	int a, c;

	/* guendelman2005 §5 (selle2008 §4.5): piecewise constant in time,
	 * barycentric within a triangle */
	for (a = 0; a < 3; a++) {
		v[a] = 0;
		for (c = 0; c < 3; c++)
			v[a] += hit->bary[c] * (M->P1[3 * (size_t)tr[c] + a] -
						M->P0[3 * (size_t)tr[c] + a]);
		v[a] /= t->T;
	}
}

void
shell_track_free(shell_track *t)
{
	size_t m;

	for (m = 0; m < t->nmesh; m++) {
		free(t->m[m].P0);
		free(t->m[m].P1);
		free(t->m[m].tri);
	}
	free(t->m);
	memset(t, 0, sizeof *t);
}
