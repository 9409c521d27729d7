/* forces.c: gravity, smoke buoyancy (guendelman2005 §4.1) and vorticity
 * confinement (selle2008 thesis §3.2.1) on a MAC velocity. */
#include "forces.h"

#include <math.h>
#include <stdlib.h>

/* Below this many samples a loop runs on one thread. */
#define FORCES_PAR_MIN 32768
/* N is taken as zero where |omega| changes by less than this fraction per
 * cell: omega is stored in float (relative rounding ~1e-7), so a smaller
 * change has no meaningful direction (a rigid rotation would otherwise get
 * a full-strength force in a random direction). */
#define FORCES_N_REL 1e-5

void
forces_gravity(macgrid *vel, const double g[3], double dt)
{
	int a;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		size_t n = field_count(f), s;
		float d = (float)(dt * g[a]);

		if (d == 0)
			continue;
#pragma omp parallel for schedule(static) if (n >= FORCES_PAR_MIN)
		for (s = 0; s < n; s++)
			f->a[s] += d;
	}
}

void
forces_buoyancy(macgrid *vel, const field *rho, const field *T, double alpha,
		double beta, double T_amb, const double up[3], double dt)
{
	int a;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		int k, j;

		if (up[a] == 0)
			continue;
#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= FORCES_PAR_MIN)
		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++) {
				int i;

				for (i = 0; i < f->ni; i++) {
					double x[3], b = 0;

					field_pos(f, i, j, k, x);
					/* guendelman2005 §4.1:
					 * f = -alpha rho z + beta (T - T_amb) z */
					if (rho)
						b -= alpha * field_sample(rho, x);
					if (T)
						b += beta * (field_sample(T, x) - T_amb);
					f->a[FIELD_IDX(f, i, j, k)] += (float)(dt * b * up[a]);
				}
			}
	}
}

void
forces_source(const field *region, field *f, double value, int at_least)
{
	int k, j;

#pragma omp parallel for collapse(2) schedule(static) if (field_count(f) >= FORCES_PAR_MIN)
	for (k = 0; k < f->nk; k++)
		for (j = 0; j < f->nj; j++) {
			int i;

			for (i = 0; i < f->ni; i++) {
				double x[3];
				float *q = &f->a[FIELD_IDX(f, i, j, k)];

				field_pos(f, i, j, k, x);
				if (field_sample(region, x) < 0 &&
				    !(at_least && *q >= value))
					*q = (float)value;
			}
		}
}

void
forces_cell_velocity(const macgrid *vel, float *uc[3])
{
	int n[3], k, j;

	field_cell_dims(&vel->u, &n[0], &n[1], &n[2]);
#pragma omp parallel for collapse(2) schedule(static) \
	if ((size_t)n[0] * n[1] * n[2] >= FORCES_PAR_MIN)
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++) {
			int i;

			for (i = 0; i < n[0]; i++) {
				size_t c = (size_t)i + (size_t)n[0] * (j + (size_t)n[1] * k);

				uc[0][c] = 0.5f * (vel->u.a[FIELD_IDX(&vel->u, i, j, k)] +
						   vel->u.a[FIELD_IDX(&vel->u, i + 1, j, k)]);
				uc[1][c] = 0.5f * (vel->v.a[FIELD_IDX(&vel->v, i, j, k)] +
						   vel->v.a[FIELD_IDX(&vel->v, i, j + 1, k)]);
				uc[2][c] = 0.5f * (vel->w.a[FIELD_IDX(&vel->w, i, j, k)] +
						   vel->w.a[FIELD_IDX(&vel->w, i, j, k + 1)]);
			}
		}
}

/* Central difference of cell array q along axis a at cell (i,j,k),
 * one-sided at the ends, zero along an axis of one cell. */
static double
diff(const float *q, const int n[3], int i, int j, int k, int a, double dx)
{
	int c[3] = { i, j, k }, lo[3] = { i, j, k }, hi[3] = { i, j, k };
	double h;

	if (n[a] < 2)
		return 0;
	lo[a] = c[a] > 0 ? c[a] - 1 : 0;
	hi[a] = c[a] < n[a] - 1 ? c[a] + 1 : n[a] - 1;
	h = (hi[a] - lo[a]) * dx;
	return (q[(size_t)hi[0] + (size_t)n[0] * (hi[1] + (size_t)n[1] * hi[2])] -
		q[(size_t)lo[0] + (size_t)n[0] * (lo[1] + (size_t)n[1] * lo[2])]) / h;
}

int
forces_confinement(macgrid *vel, double eps, double dt, slc_err *err)
{
	int n[3], k, j, a;
	size_t nc;
	float *buf, *uc[3], *om[3], *mag, *fc[3];
	double dx = vel->u.dx;

	field_cell_dims(&vel->u, &n[0], &n[1], &n[2]);
	if (slc_mul3((size_t)n[0], (size_t)n[1], (size_t)n[2], &nc))
		return slc_fail(err, "confinement: grid too large");
	if (!(buf = slc_calloc(nc, 10 * sizeof *buf, err)))
		return -1;
	for (a = 0; a < 3; a++) {
		uc[a] = buf + a * nc;
		om[a] = buf + (3 + a) * nc;
		fc[a] = buf + (6 + a) * nc;
	}
	mag = buf + 9 * nc;
	forces_cell_velocity(vel, uc);
	/* thesis eq. 3.3: omega = curl u */
#pragma omp parallel for collapse(2) schedule(static) if (nc >= FORCES_PAR_MIN)
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++) {
			int i;

			for (i = 0; i < n[0]; i++) {
				size_t c = (size_t)i + (size_t)n[0] * (j + (size_t)n[1] * k);
				double wx = diff(uc[2], n, i, j, k, 1, dx) - diff(uc[1], n, i, j, k, 2, dx);
				double wy = diff(uc[0], n, i, j, k, 2, dx) - diff(uc[2], n, i, j, k, 0, dx);
				double wz = diff(uc[1], n, i, j, k, 0, dx) - diff(uc[0], n, i, j, k, 1, dx);

				om[0][c] = (float)wx;
				om[1][c] = (float)wy;
				om[2][c] = (float)wz;
				mag[c] = (float)sqrt(wx * wx + wy * wy + wz * wz);
			}
		}
	/* N = grad|omega| / |grad|omega||, f = eps dx (N x omega) */
#pragma omp parallel for collapse(2) schedule(static) if (nc >= FORCES_PAR_MIN)
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++) {
			int i;

			for (i = 0; i < n[0]; i++) {
				size_t c = (size_t)i + (size_t)n[0] * (j + (size_t)n[1] * k);
				double g[3], gl, N[3], w[3];
				int b;

				for (b = 0; b < 3; b++) {
					g[b] = diff(mag, n, i, j, k, b, dx);
					w[b] = om[b][c];
				}
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
	free(buf);
	return 0;
}
