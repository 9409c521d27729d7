/* rigid.c: rigid bodies read from and written to a frame, their volume
 * weights (batty2007 §3.1) and the products with their operator J
 * (batty2007 (10), (12)); see rigid.h. */
#include "fluid/rigid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid/rigid_move.h"
#include "fluid/weights.h"

int
rigid_read(const slc_rec *r, ps_body **body, int *nbody, slc_err *err)
{
	static const char *names[] = {"P", "mass", "inertia", "v", "omega"};
	static const uint32_t nc[] = {3, 1, 9, 3, 3};
	double *d[5] = {0};
	uint64_t n = 0, cnt;
	ps_body *b = NULL;

	*body = NULL, *nbody = 0;
	for (int q = 0; q < 5; q++) {
		if (!(d[q] = slc_rec_get_f64(r, names[q], nc[q], &cnt, err)))
			goto fail;
		if (q == 0)
			n = cnt;
		else if (cnt != n) {
			slc_fail(err, "channel '%s' has %llu values, %llu bodies",
				 names[q], (unsigned long long)cnt, (unsigned long long)n);
			goto fail;
		}
	}
	if (n > RIGID_MAX_BODIES) {
		slc_fail(err, "%llu bodies", (unsigned long long)n);
		goto fail;
	}
	b = slc_calloc(n ? n : 1, sizeof *b, err);
	if (!b)
		goto fail;
	for (uint64_t q = 0; q < n; q++) {
		memcpy(b[q].com, d[0] + 3 * q, sizeof b[q].com);
		b[q].mass = d[1][q];
		memcpy(b[q].inertia, d[2] + 9 * q, sizeof b[q].inertia);
		memcpy(b[q].V, d[3] + 3 * q, 3 * sizeof(double));
		memcpy(b[q].V + 3, d[4] + 3 * q, 3 * sizeof(double));
		int bad = !(b[q].mass > 0) || !isfinite(b[q].mass);
		for (int e = 0; e < 9; e++)
			bad |= !isfinite(b[q].inertia[e]);
		for (int e = 0; e < 6; e++)
			bad |= !isfinite(b[q].V[e]);
		for (int e = 0; e < 3; e++)
			bad |= !isfinite(b[q].com[e]);
		if (bad) {
			slc_fail(err, "body %llu: mass, inertia, velocity or position not finite "
				 "and positive", (unsigned long long)q);
			goto fail;
		}
	}
	/* rigid_move.h: a scripted body is one of infinite mass (pressure.h) */
	if (slc_rec_find(r, "scripted")) {
		double *s = slc_rec_get_f64(r, "scripted", 1, &cnt, err);
		if (!s)
			goto fail;
		for (uint64_t q = 0; q < n && q < cnt; q++)
			if (s[q] != 0)
				b[q].mass = INFINITY;
		free(s);
		if (cnt != n) {
			slc_fail(err, "channel 'scripted' has %llu values, %llu bodies",
				 (unsigned long long)cnt, (unsigned long long)n);
			goto fail;
		}
	}
	for (int q = 0; q < 5; q++)
		free(d[q]);
	*body = b, *nbody = (int)n;
	return 0;
fail:
	for (int q = 0; q < 5; q++)
		free(d[q]);
	free(b);
	return -1;
}

int
rigid_write(slc_rec *r, const ps_body *body, int nbody, slc_err *err)
{
	for (int c = 0; c < 2; c++) {
		slc_chan *ch = slc_rec_find(r, c ? "omega" : "v");
		if (!ch || ch->ncomp != 3 || ch->count != (uint64_t)nbody)
			return slc_fail(err, "channel '%s' missing or mis-sized", c ? "omega" : "v");
		for (int q = 0; q < nbody; q++)
			for (int e = 0; e < 3; e++) {
				double x = body[q].V[3 * c + e];
				size_t at = 3 * (size_t)q + e;
				switch (ch->type) {
				case SLC_F32: ((float *)ch->data)[at] = (float)x; break;
				case SLC_F64: ((double *)ch->data)[at] = x; break;
				default:
					return slc_fail(err, "channel '%s' must be f32 or f64",
							c ? "omega" : "v");
				}
			}
	}
	return 0;
}

void
rigid_free_fractions(ps_body *body, int nbody)
{
	for (int b = 0; b < nbody; b++) {
		free((void *)body[b].bx);
		free((void *)body[b].by);
		free((void *)body[b].bz);
		body[b].bx = body[b].by = body[b].bz = NULL;
	}
}

int
rigid_weights(const float *solid, const float *const *phib, ps_body *body,
	      int nbody, int ni, int nj, int nk, int binary,
	      float *wx, float *wy, float *wz, slc_err *err)
{
	size_t n = (size_t)ni * nj * nk;
	size_t nf[3] = {(size_t)(ni + 1) * nj * nk, (size_t)ni * (nj + 1) * nk,
			(size_t)ni * nj * (nk + 1)};
	float *ls = NULL;

	if (nbody > 0) {
		if (!(ls = slc_calloc(n, sizeof *ls, err)))
			return -1;
		for (size_t c = 0; c < n; c++) {
			float m = solid ? solid[c] : INFINITY;
			for (int b = 0; b < nbody; b++)
				if (phib[b])
					m = phib[b][c] < m ? phib[b][c] : m;
			ls[c] = m;
		}
	}
	const float *fl = ls ? ls : solid;
	if (binary)
		weights_binary(fl, ni, nj, nk, wx, wy, wz);
	else
		weights_variational(fl, ni, nj, nk, wx, wy, wz);
	free(ls);
	for (int b = 0; b < nbody; b++) {
		float *f[3];
		for (int a = 0; a < 3; a++)
			f[a] = slc_calloc(nf[a], sizeof *f[a], err);
		body[b].bx = f[0], body[b].by = f[1], body[b].bz = f[2];
		if (!f[0] || !f[1] || !f[2]) {
			rigid_free_fractions(body, nbody);
			return -1;
		}
		/* a shell's body: its faces are set by rigid_shells_cut */
		if (!phib[b])
			continue;
		/* batty2007 §3.1: volume of the body in each face's control volume */
		weights_variational(phib[b], ni, nj, nk, f[0], f[1], f[2]);
		for (int a = 0; a < 3; a++)
			for (size_t q = 0; q < nf[a]; q++)
				f[a][q] = 1 - f[a][q];
	}
	return 0;
}

void
rigid_J_add(const ps_body *bd, const double *x, size_t m0, size_t m1, double t[6])
{
	for (size_t m = m0; m < m1; m++)
		for (int r = 0; r < 6; r++)
			t[r] += bd->g[6 * m + r] * x[bd->cell[m]];
}

void
rigid_minv_add(const ps_body *bd, double kappa, const double t[6], double V[6])
{
	for (int r = 0; r < 6; r++)
		for (int e = 0; e < 6; e++)
			V[r] += kappa * bd->Minv[6 * r + e] * t[e];
}
