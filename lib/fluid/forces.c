/* forces.c: gravity, smoke buoyancy (guendelman2005 §4.1) and vorticity
 * confinement (selle2008 thesis §3.2.1) on a MAC velocity; sources, and
 * clear air inside solids (guendelman2005 §4.1, thesis §4.4.1). */
#include "fluid/forces.h"

#include <math.h>
#include <stdlib.h>

#include "fluid/forces_shell.h"
#include "fluid/weights.h"

/* Below this many samples a loop runs on one thread. */
#define FORCES_PAR_MIN 32768
/* N is taken as zero where |omega| changes by less than this fraction per
 * cell: omega is stored in float (relative rounding ~1e-7), so a smaller
 * change has no meaningful direction (a rigid rotation would otherwise get
 * a full-strength force in a random direction). */
#define FORCES_N_REL 1e-5

/* Half the diagonal of a face's dx^3 control volume, in cells: a signed
 * distance below -this at the face centre leaves no fluid in it. */
#define FORCES_HALF_DIAG 0.8660254037844386

static int on_cells_of(const field *c, const field *f);

int
forces_fluid_weights(const field *solid, macgrid *w, slc_err *err)
{
	int a, i, j, k;

	if (on_cells_of(solid, &w->u) && w->u.a && w->v.a && w->w.a) {
		weights_variational(solid->a, solid->ni, solid->nj, solid->nk, w->u.a, w->v.a,
				    w->w.a);
		return 0;
	}
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(w, a);

		if (!f->a)
			return slc_fail(err, "fluid weights: no memory for the faces");
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					f->a[FIELD_IDX(f, i, j, k)] =
						field_sample(solid, x) > -FORCES_HALF_DIAG * f->dx;
				}
	}
	return 0;
}

void
forces_gravity(macgrid *vel, const double g[3], double dt, const macgrid *wt)
{
	int a;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		const float *w = wt ? mac_ccomp(wt, a)->a : NULL;
		size_t n = field_count(f), s;
		float d = (float)(dt * g[a]);

		if (d == 0)
			continue;
#pragma omp parallel for schedule(static) if (n >= FORCES_PAR_MIN)
		for (s = 0; s < n; s++)
			if (!w || w[s] > 0)
				f->a[s] += d;
	}
}

/* Does cell field c live on the cells of f's grid (dims, origin, dx)? */
static int
on_cells_of(const field *c, const field *f)
{
	return c->stagger == SLC_CELL && field_same_cells(c, f, &slc_place_exact);
}

/* Row (j, k) of a cell field c at the samples of face-a field f on the
 * same cells: the trilinear value at the face, i.e. the mean of the two
 * cells across it, the one cell at a boundary face (as field_sample). */
static void
cell_row_at_faces(const field *c, const field *f, int a, int j, int k, double *row)
{
	int n[3] = { c->ni, c->nj, c->nk }, i;
	int jj = j < n[1] ? j : n[1] - 1, kk = k < n[2] ? k : n[2] - 1;
	const float *p = c->a + FIELD_IDX(c, 0, jj, kk);
	size_t st = a == 0 ? 1 : a == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
	int m = a == 1 ? j : k;         /* the face index across axis a */

	if (a == 0) {
		row[0] = p[0];
		for (i = 1; i < n[0]; i++)
			row[i] = 0.5 * p[i - 1] + 0.5 * p[i];
		row[n[0]] = p[n[0] - 1];
		return;
	}
	if (m == 0 || m == n[a] || n[a] < 2) {
		/* a boundary face (or one cell): the one cell beside it */
		for (i = 0; i < f->ni; i++)
			row[i] = p[i];
		return;
	}
	for (i = 0; i < f->ni; i++)
		row[i] = 0.5 * p[(ptrdiff_t)i - (ptrdiff_t)st] + 0.5 * p[i];
}

void
forces_buoyancy(macgrid *vel, const field *rho, const field *T, double alpha,
		double beta, double T_amb, const double up[3], double dt, const macgrid *wt)
{
	int a;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		const float *w = wt ? mac_ccomp(wt, a)->a : NULL;
		int k, j;
		/* on the velocity's cells the samples at a face are the two
		 * cells across it: a row pass instead of field_sample */
		int fast = (!rho || on_cells_of(rho, f)) && (!T || on_cells_of(T, f));

		if (up[a] == 0)
			continue;
#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= FORCES_PAR_MIN)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++) {
				float *q = f->a + FIELD_IDX(f, 0, j, k);
				const float *wr = w ? w + FIELD_IDX(f, 0, j, k) : NULL;
				int i;

				if (fast) {
					double rr[f->ni], tr[f->ni];

					if (rho)
						cell_row_at_faces(rho, f, a, j, k, rr);
					if (T)
						cell_row_at_faces(T, f, a, j, k, tr);
					for (i = 0; i < f->ni; i++) {
						double b = 0;

						if (wr && !(wr[i] > 0))
							continue;
						if (rho)
							b -= alpha * rr[i];
						if (T)
							b += beta * (tr[i] - T_amb);
						q[i] += (float)(dt * b * up[a]);
					}
					continue;
				}
				for (i = 0; i < f->ni; i++) {
					double x[3], b = 0;

					if (wr && !(wr[i] > 0))
						continue;
					field_pos(f, i, j, k, x);
					/* guendelman2005 §4.1:
					 * f = -alpha rho z + beta (T - T_amb) z */
					if (rho)
						b -= alpha * field_sample(rho, x);
					if (T)
						b += beta * (field_sample(T, x) - T_amb);
					q[i] += (float)(dt * b * up[a]);
				}
			}
	}
}

void
forces_source(const field *region, field *f, double value, int at_least)
{
	/* the region sampled at f's own samples is the region itself */
	int same = field_same_place(region, f, &slc_place_exact);
	int k, j;

#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= FORCES_PAR_MIN)
	for (k = 0; k < f->nk; k++)
		for (j = 0; j < f->nj; j++) {
			size_t s0 = FIELD_IDX(f, 0, j, k);
			int i;

			for (i = 0; i < f->ni; i++) {
				double x[3], r;
				float *q = &f->a[s0 + (size_t)i];

				if (same) {
					r = region->a[s0 + (size_t)i];
				} else {
					field_pos(f, i, j, k, x);
					r = field_sample(region, x);
				}
				if (r < 0 && !(at_least && *q >= value))
					*q = (float)value;
			}
		}
}

void
forces_smoke_source(const field *region, field *rho, field *T, double d, double t,
		    macgrid *vel, const double v[3])
{
	int a;

	if (rho)
		forces_source(region, rho, d, 1);
	if (T)
		forces_source(region, T, t, 1);
	for (a = 0; a < 3 && v; a++)
		forces_source(region, mac_comp(vel, a), v[a], 0);
}

void
forces_solid_smoke(const field *solid, field *rho, field *T, double T_amb)
{
	/* a solid is a source of clear air: the same per-sample overwrite */
	if (rho)
		forces_source(solid, rho, 0, 0);
	if (T)
		forces_source(solid, T, T_amb, 0);
}

/* Central difference along one axis of a cell array at offset c: the
 * neighbours at -lo and +hi samples (0 at an end: one-sided), h the
 * distance between them (0: an axis of one cell, the difference is 0). */
static inline double
diff1(const float *q, size_t c, size_t lo, size_t hi, double h)
{
	return h > 0 ? (q[c + hi] - q[c - lo]) / h : 0;
}

/* The neighbour offsets and spacing of cell index m of n along an axis
 * of stride st (as central differences, one-sided at the ends). */
static inline void
diff_axis(int m, int n, size_t st, double dx, size_t *lo, size_t *hi, double *h)
{
	int l = m > 0 ? 1 : 0, u = m < n - 1 ? 1 : 0;

	*lo = l ? st : 0;
	*hi = u ? st : 0;
	*h = n < 2 ? 0 : (l + u) * dx;
}

/* The cell-centred value of face field f (staggered along its axis of
 * stride sa) at the cell whose lower face is sample s: the mean of the
 * cell's two faces, rounded to float before the curl reads it. */
static inline float
cell_mean(const field *f, size_t s, size_t sa)
{
	return 0.5f * (f->a[s] + f->a[s + sa]);
}

/* diff1 of the cell-centred values of f around the cell of lower face s,
 * the neighbours at -lo and +hi samples of f (0 at an end). */
static inline double
diff_mean(const field *f, size_t s, size_t sa, size_t lo, size_t hi, double h)
{
	return h > 0 ? (cell_mean(f, s + hi, sa) - cell_mean(f, s - lo, sa)) / h : 0;
}

int
forces_confinement(macgrid *vel, double eps, double dt, advect_pool *pool, slc_err *err)
{
	return forces_confinement_shell(vel, eps, dt, pool, NULL, NULL, err);
}

int
forces_confinement_shell(macgrid *vel, double eps, double dt, advect_pool *pool,
			 const shell_set *sh, const shell_track *trk, slc_err *err)
{
	forces_shell_cells near = { 0, NULL, NULL };
	int n[3], k, j, a, rc = -1;
	size_t nc, st[3][3];
	/* both are written in full before they are read; omega is read only
	 * at its own cell when the force is formed and holds the force */
	float *buf[4] = { NULL }, *om[3], *mag, *fc[3];
	double dx = vel->u.dx;
	const field *U = &vel->u, *V = &vel->v, *Wf = &vel->w;

	field_cell_dims(&vel->u, &n[0], &n[1], &n[2]);
	if (slc_mul3((size_t)n[0], (size_t)n[1], (size_t)n[2], &nc))
		return slc_fail(err, "confinement: grid too large");
	for (a = 0; a < 4; a++)
		if (!(buf[a] = advect_pool_take(pool, nc, err)))
			goto done;
	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(vel, a);

		om[a] = fc[a] = buf[a];
		st[a][0] = 1;
		st[a][1] = (size_t)f->ni;
		st[a][2] = (size_t)f->ni * (size_t)f->nj;
	}
	mag = buf[3];
	/* thesis eq. 3.3: omega = curl u, from the cell-centred velocity
	 * formed where it is needed instead of stored */
#pragma omp parallel for collapse(2) schedule(static) if (nc >= FORCES_PAR_MIN)
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++) {
			size_t c = (size_t)n[0] * (j + (size_t)n[1] * k), lj, hj, lk, hk, li, hi;
			size_t su = FIELD_IDX(U, 0, j, k), sv = FIELD_IDX(V, 0, j, k);
			size_t sw = FIELD_IDX(Wf, 0, j, k);
			double yj, zk, xi;
			int i;

			diff_axis(j, n[1], 1, dx, &lj, &hj, &yj);
			diff_axis(k, n[2], 1, dx, &lk, &hk, &zk);
			for (i = 0; i < n[0]; i++, c++, su++, sv++, sw++) {
				double wx, wy, wz;

				diff_axis(i, n[0], 1, dx, &li, &hi, &xi);
				wx = diff_mean(Wf, sw, st[2][2], lj * st[2][1], hj * st[2][1], yj) -
				     diff_mean(V, sv, st[1][1], lk * st[1][2], hk * st[1][2], zk);
				wy = diff_mean(U, su, 1, lk * st[0][2], hk * st[0][2], zk) -
				     diff_mean(Wf, sw, st[2][2], li, hi, xi);
				wz = diff_mean(V, sv, st[1][1], li, hi, xi) -
				     diff_mean(U, su, 1, lj * st[0][1], hj * st[0][1], yj);
				om[0][c] = (float)wx;
				om[1][c] = (float)wy;
				om[2][c] = (float)wz;
				mag[c] = (float)sqrt(wx * wx + wy * wy + wz * wz);
			}
		}
	/* guendelman2005 §4.1: one-sided next to thin shells */
	if (sh && forces_shell_curl(vel, sh, trk, om, mag, &near, err))
		goto done;
	/* N = grad|omega| / |grad|omega||, f = eps dx (N x omega) */
#pragma omp parallel for collapse(2) schedule(static) if (nc >= FORCES_PAR_MIN)
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++) {
			size_t c = (size_t)n[0] * (j + (size_t)n[1] * k), lj, hj, lk, hk, li, hi;
			double yj, zk, xi;
			int i;

			diff_axis(j, n[1], (size_t)n[0], dx, &lj, &hj, &yj);
			diff_axis(k, n[2], (size_t)n[0] * n[1], dx, &lk, &hk, &zk);
			for (i = 0; i < n[0]; i++, c++) {
				double g[3], gl, N[3], w[3];
				int b;

				diff_axis(i, n[0], 1, dx, &li, &hi, &xi);
				g[0] = diff1(mag, c, li, hi, xi);
				g[1] = diff1(mag, c, lj, hj, yj);
				g[2] = diff1(mag, c, lk, hk, zk);
				for (b = 0; b < 3; b++)
					w[b] = om[b][c];
				gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
				if (!(gl * dx > FORCES_N_REL * mag[c])) {
					fc[0][c] = fc[1][c] = fc[2][c] = 0;
					continue;
				}
				for (b = 0; b < 3; b++)
					N[b] = g[b] / gl;
				fc[0][c] = (float)(eps * dx * (N[1] * w[2] - N[2] * w[1]));
				fc[1][c] = (float)(eps * dx * (N[2] * w[0] - N[0] * w[2]));
				fc[2][c] = (float)(eps * dx * (N[0] * w[1] - N[1] * w[0]));
			}
		}
	if (near.n)
		forces_shell_force(vel, sh, &near, mag, eps, fc);
	/* average the cell forces to the faces (a boundary face takes its
	 * one cell) and add dt f */
	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);

#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= FORCES_PAR_MIN)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++) {
				int i;

				for (i = 0; i < f->ni; i++) {
					int lo[3] = { i, j, k }, hi[3] = { i, j, k };
					size_t cl, ch;

					lo[a] = lo[a] > 0 ? lo[a] - 1 : 0;
					hi[a] = hi[a] < n[a] ? hi[a] : n[a] - 1;
					cl = (size_t)lo[0] + (size_t)n[0] * (lo[1] + (size_t)n[1] * lo[2]);
					ch = (size_t)hi[0] + (size_t)n[0] * (hi[1] + (size_t)n[1] * hi[2]);
					f->a[FIELD_IDX(f, i, j, k)] +=
						(float)(dt * 0.5 * ((double)fc[a][cl] + fc[a][ch]));
				}
			}
	}
	rc = 0;
done:
	forces_shell_cells_free(&near);
	for (a = 0; a < 4; a++)
		advect_pool_give(pool, buf[a]);
	return rc;
}
