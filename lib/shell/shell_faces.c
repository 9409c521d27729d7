/* shell_faces.c: the MAC faces a thin shell cuts and the force of the
 * pressure jump across them (guendelman2005 §4.3, §5; selle2008 thesis
 * §4.4.2).  See shell_faces.h. */
#include "shell/shell_faces.h"

#include <math.h>
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
shell_faces_find(shell_faces *F, const shell_set *s, const shell_face_mesh *mesh,
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

/* One axis of the paper's transfer on the (ni+1)(nj+1)(nk+1) grid nodes:
 * D[node] the mean of the jumps of the up to four cut faces of axis ax
 * around the node, ok[node] set where there is one; then SHELL_PAPER_BAND
 * Gauss-Jacobi sweeps, each giving every node without a value the mean
 * of its valid axis neighbours of the sweep before. */
static void
paper_axis(const shell_faces *F, const double *p, int ax, int ni, int nj, int nk,
	   double *D, uint8_t *ok, double *cnt, uint8_t *prev)
{
	size_t si = 1, sj = (size_t)ni + 1, sk = sj * ((size_t)nj + 1);
	size_t nn = sk * ((size_t)nk + 1);
	int dim[3] = {ni, nj, nk};

	memset(D, 0, nn * sizeof *D);
	memset(cnt, 0, nn * sizeof *cnt);
	for (size_t n = 0; n < F->n; n++) {
		const shell_face *c = &F->face[n];
		if (c->ax != ax)
			continue;
		int b = (ax + 1) % 3, e = (ax + 2) % 3, at[3] = {c->i, c->j, c->k};
		for (int q = 0; q < 4; q++) {
			int x[3] = {at[0], at[1], at[2]};
			x[b] += q & 1, x[e] += q >> 1;
			size_t nd = x[0] * si + x[1] * sj + x[2] * sk;
			D[nd] += p[c->lo] - p[c->hi];
			cnt[nd] += 1;
		}
	}
	for (size_t nd = 0; nd < nn; nd++) {
		ok[nd] = cnt[nd] > 0;
		if (ok[nd])
			D[nd] /= cnt[nd];
	}
	for (int it = 0; it < SHELL_PAPER_BAND; it++) {
		memcpy(prev, ok, nn);
		for (int k = 0; k <= nk; k++)
			for (int j = 0; j <= nj; j++)
				for (int i = 0; i <= ni; i++) {
					size_t nd = i * si + j * sj + k * sk;
					int x[3] = {i, j, k};
					double s = 0;
					int m = 0;
					if (prev[nd])
						continue;
					for (int a = 0; a < 3; a++)
						for (int d = -1; d <= 1; d += 2) {
							int y = x[a] + d;
							size_t st = a == 0 ? si : a == 1 ? sj : sk;
							if (y < 0 || y > dim[a])
								continue;
							size_t o = d < 0 ? nd - st : nd + st;
							if (prev[o])
								s += D[o], m++;
						}
					if (m) {
						D[nd] = s / m;
						ok[nd] = 1;
					}
				}
	}
}

/* Trilinear interpolation of the node values D at x, over the valid
 * corners only (their weights renormalized); 0 with none. */
static double
paper_sample(const double *D, const uint8_t *ok, int ni, int nj, int nk, double dx,
	     const double origin[3], const double x[3])
{
	size_t sj = (size_t)ni + 1, sk = sj * ((size_t)nj + 1);
	int dim[3] = {ni, nj, nk}, c0[3];
	double f[3], s = 0, ws = 0;

	for (int a = 0; a < 3; a++) {
		double g = (x[a] - origin[a]) / dx;
		g = g < 0 ? 0 : g > dim[a] ? dim[a] : g;
		c0[a] = (int)g < dim[a] ? (int)g : dim[a] - 1;
		f[a] = g - c0[a];
	}
	for (int q = 0; q < 8; q++) {
		int y[3] = {c0[0] + (q & 1), c0[1] + (q >> 1 & 1), c0[2] + (q >> 2 & 1)};
		size_t nd = y[0] + y[1] * sj + y[2] * sk;
		double w = ((q & 1) ? f[0] : 1 - f[0]) * ((q >> 1 & 1) ? f[1] : 1 - f[1]) *
			   ((q >> 2 & 1) ? f[2] : 1 - f[2]);
		if (ok[nd] && w > 0)
			s += w * D[nd], ws += w;
	}
	return ws > 0 ? s / ws : 0;
}

int
shell_faces_force_paper(const shell_faces *F, const double *p, int ni, int nj, int nk,
			double dx, const double origin[3], const shell_face_mesh *mesh,
			const double *const *P, size_t nmesh, double *const *force,
			slc_err *err)
{
	size_t nn;
	double *D[3] = {0}, *cnt = NULL;
	uint8_t *ok[3] = {0}, *prev = NULL;
	int rc = -1;

	if (slc_mul3((size_t)ni + 1, (size_t)nj + 1, (size_t)nk + 1, &nn))
		return slc_fail(err, "grid %dx%dx%d overflows", ni, nj, nk);
	for (int a = 0; a < 3; a++)
		if (!(D[a] = slc_malloc(nn, sizeof *D[a], err)) || !(ok[a] = slc_malloc(nn, 1, err)))
			goto out;
	if (!(cnt = slc_malloc(nn, sizeof *cnt, err)) || !(prev = slc_malloc(nn, 1, err)))
		goto out;
	for (int a = 0; a < 3; a++)
		paper_axis(F, p, a, ni, nj, nk, D[a], ok[a], cnt, prev);
	for (size_t q = 0; q < nmesh; q++) {
		if (!force[q])
			continue;
		for (size_t t = 0; t < mesh[q].ntri; t++) {
			const uint32_t *v = mesh[q].tri + 3 * t;
			const double *x0 = P[q] + 3 * (size_t)v[0], *x1 = P[q] + 3 * (size_t)v[1],
				     *x2 = P[q] + 3 * (size_t)v[2];
			double e1[3], e2[3], N[3], c[3], d[3];
			for (int a = 0; a < 3; a++) {
				e1[a] = x1[a] - x0[a], e2[a] = x2[a] - x0[a];
				c[a] = (x0[a] + x1[a] + x2[a]) / 3;
			}
			N[0] = e1[1] * e2[2] - e1[2] * e2[1];
			N[1] = e1[2] * e2[0] - e1[0] * e2[2];
			N[2] = e1[0] * e2[1] - e1[1] * e2[0];
			double len = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
			if (!(len > 0))
				continue;
			for (int a = 0; a < 3; a++)
				d[a] = paper_sample(D[a], ok[a], ni, nj, nk, dx, origin, c);
			/* Dp_n = D . n, F = Dp_n A n with A n = N / 2, a third a node */
			double s = (d[0] * N[0] + d[1] * N[1] + d[2] * N[2]) / (2 * len);
			for (int e = 0; e < 3; e++)
				for (int a = 0; a < 3; a++)
					force[q][3 * (size_t)v[e] + a] += s * N[a] / 3;
		}
	}
	rc = 0;
out:
	for (int a = 0; a < 3; a++)
		free(D[a]), free(ok[a]);
	free(cnt);
	free(prev);
	return rc;
}
