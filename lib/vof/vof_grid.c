/* vof_grid.c: the coupling of the KDSM's water with the grid (lee2019 §4;
 * see vof_grid.h). */
#include "vof/vof_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vof/vof_locate.h"

static void
centroid(const kdsm_mesh *m, size_t t, double c[3])
{
	const uint32_t *q = m->tet + 4 * t;
	int a;

	for (a = 0; a < 3; a++)
		c[a] = 0.25 * (m->P[3 * q[0] + a] + m->P[3 * q[1] + a] + m->P[3 * q[2] + a] +
			       m->P[3 * q[3] + a]);
}

static void
grid_vel(const vof_grid *g, const double x[3], double u[3])
{
	if (g->vel)
		mac_velocity(g->vel, x, u);
	else
		u[0] = u[1] = u[2] = 0;
}

double
vof_grid_sample(void *ctx, const double x[3], double u[3])
{
	const vof_grid *g = ctx;
	double f;

	grid_vel(g, x, u);
	if (!g->phi)
		return 0;
	f = 0.5 - field_sample(g->phi, x) / g->phi->dx;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

int
vof_grid_inside(const kdsm_mesh *m, const vof_grid *g, size_t t)
{
	int k;

	if (!g->phi || !m->alive[t] || m->cut[t] || !(m->cap[t] > 0))
		return 0;
	for (k = 0; k < 4; k++)
		if (!(field_sample(g->phi, m->P + 3 * (size_t)m->tet[4 * t + k]) < 0))
			return 0;
	return 1;
}

void
vof_grid_take(const kdsm_mesh *m, vof_state *s, const vof_grid *g, vof_ledger *L)
{
	vof_sum sum = { 0, 0 };
	size_t t;
	long i;

	if (!g->phi)
		return;
	/* velocities in parallel, each tet its own; the volumes summed in
	 * tet order, so the ledger has the same bytes for any threads */
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)m->nt; i++) {
		double c[3];

		if (!vof_grid_inside(m, g, (size_t)i))
			continue;
		centroid(m, (size_t)i, c);
		grid_vel(g, c, s->u + 3 * i);
	}
	for (t = 0; t < m->nt; t++) {
		if (!vof_grid_inside(m, g, t))
			continue;
		vof_sum_add(&sum, m->cap[t] - s->W[t]);
		s->W[t] = m->cap[t];
		L->n_filled++;
	}
	L->grid_fill += vof_sum_get(&sum);
}

void
vof_grid_velocity(const kdsm_mesh *m, vof_state *s, const vof_grid *g, vof_ledger *L)
{
	size_t n = 0;
	long i;

	if (!g->phi || !g->vel)
		return;
#pragma omp parallel for schedule(static) reduction(+ : n)
	for (i = 0; i < (long)m->nt; i++) {
		double c[3];

		if (!(s->W[i] > 0) || !vof_grid_inside(m, g, (size_t)i))
			continue;
		centroid(m, (size_t)i, c);
		grid_vel(g, c, s->u + 3 * i);
		n++;
	}
	L->n_overwritten += n;
}

int
vof_absorb(const kdsm_mesh *m, vof_state *s, size_t n, const double *P, const double *v,
	   const double *vol, uint8_t *gone, vof_ledger *L, slc_err *err)
{
	vof_loc loc = { 0 };
	vof_sum sum = { 0, 0 };
	long *at, i;
	size_t q;

	memset(gone, 0, n);
	if (!n)
		return 0;
	if (!(at = slc_malloc(n, sizeof *at, err)))
		return -1;
	if (vof_loc_build(&loc, m, err)) {
		free(at);
		return -1;
	}
#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)n; i++)
		at[i] = vof_loc_find(&loc, P + 3 * i, NULL);
	for (q = 0; q < n; q++) {
		long t = at[q];
		double w, nw;
		int a;

		if (t < 0 || !m->alive[t] || !(s->W[t] > 0) || !(vol[q] >= 0))
			continue;
		w = s->W[t];
		nw = w + vol[q];
		for (a = 0; a < 3; a++)
			s->u[3 * t + a] = (w * s->u[3 * t + a] + vol[q] * v[3 * q + a]) / nw;
		s->W[t] = nw;
		gone[q] = 1;
		vof_sum_add(&sum, vol[q]);
		L->n_absorbed++;
	}
	L->particles_in += vof_sum_get(&sum);
	vof_loc_free(&loc);
	free(at);
	return 0;
}

/* The face sample of component a whose dual cell holds x, or -1 outside. */
static long
face_of(const field *f, const double x[3])
{
	double off[3];
	long idx[3];
	int n[3] = { f->ni, f->nj, f->nk }, a;

	field_offset(f, off);
	for (a = 0; a < 3; a++) {
		double r = (x[a] - f->origin[a]) / f->dx - off[a] + 0.5;

		if (!(r >= 0 && r < n[a]))
			return -1;
		idx[a] = (long)floor(r);
	}
	return idx[0] + (long)f->ni * (idx[1] + (long)f->nj * idx[2]);
}

int
vof_to_grid(const kdsm_mesh *m, const vof_state *s, macgrid *vel, double beta, size_t *nf,
	    slc_err *err)
{
	int a;

	*nf = 0;
	if (!(beta >= 0 && beta <= 1))
		return slc_fail(err, "beta %g, expected 0..1", beta);
	if (beta == 0)
		return 0;
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		size_t nfc = field_count(f), t, k;
		double *sw = slc_calloc(nfc ? nfc : 1, 2 * sizeof *sw, err);

		if (!sw)
			return -1;
		/* sums in tet order: the same bytes for any number of threads */
		for (t = 0; t < m->nt; t++) {
			double c[3];
			long fi;

			if (!m->alive[t] || !(s->W[t] > 0))
				continue;
			centroid(m, t, c);
			if ((fi = face_of(f, c)) < 0)
				continue;
			sw[2 * fi] += s->W[t] * s->u[3 * t + a];
			sw[2 * fi + 1] += s->W[t];
		}
		for (k = 0; k < nfc; k++) {
			if (!(sw[2 * k + 1] > 0))
				continue;
			f->a[k] = (float)((1 - beta) * f->a[k] + beta * (sw[2 * k] / sw[2 * k + 1]));
			(*nf)++;
		}
		free(sw);
	}
	return 0;
}
