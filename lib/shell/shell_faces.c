/* shell_faces.c: the MAC faces a thin shell cuts and the force of the
 * pressure jump across them (guendelman2005 §4.3, §5; selle2008 thesis
 * §4.4.2).  See shell_faces.h. */
#include "shell/shell_faces.h"

#include <stdlib.h>
#include <string.h>

/* Grid sizes: cells and faces per axis, overflow-checked. */
static int
face_counts(int ni, int nj, int nk, size_t nf[3], slc_err *err)
{
	if (ni < 1 || nj < 1 || nk < 1)
		return slc_fail(err, "bad grid dims %dx%dx%d", ni, nj, nk);
	if (slc_mul3((size_t)ni + 1, (size_t)nj, (size_t)nk, &nf[0]) ||
	    slc_mul3((size_t)ni, (size_t)nj + 1, (size_t)nk, &nf[1]) ||
	    slc_mul3((size_t)ni, (size_t)nj, (size_t)nk + 1, &nf[2]))
		return slc_fail(err, "grid %dx%dx%d overflows", ni, nj, nk);
	return 0;
}

/* The face (ax, i, j, k) between cell (i, j, k) and its neighbour above
 * on axis ax: the crossing of the ray between their centres, if any. */
static int
face_hit(const shell_set *s, int ax, int i, int j, int k, double dx,
	 const double origin[3], shell_hit *h)
{
	double a[3] = {origin[0] + dx * (i + 0.5), origin[1] + dx * (j + 0.5),
		       origin[2] + dx * (k + 0.5)};
	double b[3] = {a[0], a[1], a[2]};

	b[ax] += dx;
	/* guendelman2005 §4.3: cut where the ray between the centres
	 * meets the shell; the crossing nearest the face itself */
	return shell_segment_hit(s, a, b, 0.5, h);
}

/* Index of face (i, j, k) of axis ax and its count of faces along i, j. */
static size_t
face_index(int ax, int ni, int nj, int i, int j, int k)
{
	size_t fi = (size_t)ni + (ax == 0), fj = (size_t)nj + (ax == 1);

	return (size_t)i + fi * ((size_t)j + fj * (size_t)k);
}

int
shell_faces_find(shell_faces *F, const shell_set *s, const shell_mesh *mesh,
		 size_t nmesh, int ni, int nj, int nk, double dx,
		 const double origin[3], slc_err *err)
{
	memset(F, 0, sizeof *F);
	if (face_counts(ni, nj, nk, F->nf, err))
		return -1;
	if (nmesh != s->nmesh)
		return slc_fail(err, "%zu meshes described for a shell set of %zu",
				nmesh, s->nmesh);
	for (size_t q = 0; q < nmesh; q++)
		for (size_t t = 0; t < mesh[q].ntri; t++)
			for (int e = 0; e < 3; e++)
				if (mesh[q].tri[3 * t + e] >= mesh[q].np)
					return slc_fail(err, "shell mesh %zu: triangle %zu: "
							"index out of range", q, t);
	for (int ax = 0; ax < 3; ax++)
		if (!(F->cut[ax] = slc_calloc(F->nf[ax], 1, err)))
			goto fail;
	/* pass 1, in parallel: which faces are cut (each face's answer is
	 * its own, so the flags do not depend on the thread count) */
	size_t count = 0;
	for (int ax = 0; ax < 3; ax++) {
		uint8_t *cut = F->cut[ax];
		int hi[3] = {ni - (ax == 0), nj - (ax == 1), nk - (ax == 2)};
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : count)
		for (int k = 0; k < hi[2]; k++)
			for (int j = 0; j < hi[1]; j++)
				for (int i = 0; i < hi[0]; i++) {
					shell_hit h;
					/* the face above cell (i, j, k) on axis ax */
					int fi = i + (ax == 0), fj = j + (ax == 1),
					    fk = k + (ax == 2);
					if (!face_hit(s, ax, i, j, k, dx, origin, &h))
						continue;
					cut[face_index(ax, ni, nj, fi, fj, fk)] = 1;
					count++;
				}
	}
	F->face = slc_calloc(count ? count : 1, sizeof *F->face, err);
	if (!F->face)
		goto fail;
	/* pass 2, in face order: the crossings of the cut faces */
	for (int ax = 0; ax < 3; ax++) {
		int hi[3] = {ni - (ax == 0), nj - (ax == 1), nk - (ax == 2)};
		for (int k = 0; k < hi[2]; k++)
			for (int j = 0; j < hi[1]; j++)
				for (int i = 0; i < hi[0]; i++) {
					int fi = i + (ax == 0), fj = j + (ax == 1), fk = k + (ax == 2);
					size_t f = face_index(ax, ni, nj, fi, fj, fk);
					shell_hit h;
					if (!F->cut[ax][f] ||
					    !face_hit(s, ax, i, j, k, dx, origin, &h))
						continue;
					shell_face *c = &F->face[F->n++];
					uint32_t q = s->tmesh[h.tri], tl = s->tlocal[h.tri];
					c->ax = ax, c->i = fi, c->j = fj, c->k = fk, c->f = f;
					c->lo = (size_t)i + (size_t)ni * ((size_t)j + (size_t)nj * (size_t)k);
					c->hi = (size_t)fi + (size_t)ni * ((size_t)fj + (size_t)nj * (size_t)fk);
					c->mesh = q;
					c->t = h.t;
					for (int e = 0; e < 3; e++) {
						uint32_t nd = mesh[q].tri[3 * (size_t)tl + e];
						c->node[e] = nd;
						c->bary[e] = h.bary[e];
						for (int d = 0; d < 3 && mesh[q].vel; d++)
							c->v[d] += h.bary[e] * mesh[q].vel[3 * (size_t)nd + d];
					}
				}
	}
	return 0;
fail:
	shell_faces_free(F);
	return -1;
}

void
shell_faces_free(shell_faces *F)
{
	free(F->face);
	for (int ax = 0; ax < 3; ax++)
		free(F->cut[ax]);
	memset(F, 0, sizeof *F);
}

void
shell_faces_force(const shell_faces *F, const double *p, const double *extra,
		  double dx, double *const *force, double face_sum[3])
{
	face_sum[0] = face_sum[1] = face_sum[2] = 0;
	for (size_t n = 0; n < F->n; n++) {
		const shell_face *c = &F->face[n];
		/* guendelman2005 §5: the pressure jump across the face times
		 * its area, pushing from the higher pressure to the lower */
		double fa = p ? (p[c->lo] - p[c->hi]) * dx * dx : 0;
		if (extra)
			fa += extra[n];
		face_sum[c->ax] += fa;
		double *fq = force[c->mesh];
		if (!fq)
			continue;
		for (int e = 0; e < 3; e++)
			fq[3 * (size_t)c->node[e] + c->ax] += c->bary[e] * fa;
	}
}
