/* forces_shell.c: one-sided vorticity confinement next to thin shells
 * (guendelman2005 §4.1; forces_shell.h). */
#include "fluid/forces_shell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A gradient of |omega| below this fraction of |omega| / dx gives no
 * direction: the same bound as forces.c's FORCES_N_REL. */
#define SHELL_N_REL 1e-5

/* Centre of cell (i, j, k) of vel. */
static void
centre(const macgrid *vel, int i, int j, int k, double x[3])
{
	double dx = vel->u.dx;

	x[0] = vel->u.origin[0] + (i + 0.5) * dx;
	x[1] = vel->u.origin[1] + (j + 0.5) * dx;
	x[2] = vel->u.origin[2] + (k + 0.5) * dx;
}

/* Component a of the cell-centred velocity at cell c[] (the mean of its
 * two faces). */
static double
cell_vel(const macgrid *vel, int a, const int c[3])
{
	const field *f = mac_ccomp(vel, a);
	int hi[3] = {c[0], c[1], c[2]};

	hi[a]++;
	return 0.5 * ((double)f->a[FIELD_IDX(f, c[0], c[1], c[2])] +
		      f->a[FIELD_IDX(f, hi[0], hi[1], hi[2])]);
}

/* The neighbours of cell c[] along each axis (the cell itself at the
 * grid's ends): nv[a][side][comp], the velocity there, a hidden one
 * taking the shell's velocity (trk) where the ray to it hits (0 for a
 * still shell); the hidden ones' bits (bit 2 a + side) are returned and
 * inside[a] counts the neighbours within the grid. */
static unsigned
neighbours(const macgrid *vel, const shell_set *sh, const shell_track *trk, const int n[3],
	   const int c[3], double nv[3][2][3], int inside[3])
{
	double x[3];
	int moving = trk && shell_track_moving(trk), ax, side, comp;
	unsigned hid = 0;

	centre(vel, c[0], c[1], c[2], x);
	for (ax = 0; ax < 3; ax++) {
		inside[ax] = 0;
		for (side = 0; side < 2; side++) {
			int m[3] = {c[0], c[1], c[2]};
			double y[3];
			shell_hit hit;

			m[ax] += side ? 1 : -1;
			if (m[ax] < 0 || m[ax] >= n[ax]) {
				for (comp = 0; comp < 3; comp++)
					nv[ax][side][comp] = cell_vel(vel, comp, c);
				continue;
			}
			inside[ax]++;
			centre(vel, m[0], m[1], m[2], y);
			if (moving ? shell_segment_hit(sh, x, y, 0, &hit) : !shell_visible(sh, x, y)) {
				hid |= 1u << (2 * ax + side);
				if (moving)
					shell_track_velocity(trk, sh, &hit, nv[ax][side]);
				else
					nv[ax][side][0] = nv[ax][side][1] = nv[ax][side][2] = 0;
			} else {
				for (comp = 0; comp < 3; comp++)
					nv[ax][side][comp] = cell_vel(vel, comp, m);
			}
		}
	}
	return hid;
}

/* d(component comp)/d(axis ax) from the neighbours' velocities. */
static double
diff(double nv[3][2][3], const int inside[3], double dx, int comp, int ax)
{
	return inside[ax] ? (nv[ax][1][comp] - nv[ax][0][comp]) / (inside[ax] * dx) : 0;
}

int
forces_shell_curl(const macgrid *vel, const shell_set *sh, const shell_track *trk,
		  float *const om[3], float *mag, forces_shell_cells *C, slc_err *err)
{
	int n[3], i, j, k;
	size_t q;

	memset(C, 0, sizeof *C);
	field_cell_dims(&vel->u, &n[0], &n[1], &n[2]);
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++)
			for (i = 0; i < n[0]; i++) {
				double x[3];

				centre(vel, i, j, k, x);
				C->n += shell_near(sh, x);
			}
	if (!C->n)
		return 0;
	C->cell = slc_malloc(C->n, sizeof *C->cell, err);
	/* omega, then the hidden bits (forces_shell_hidden) */
	C->om = C->cell ? slc_malloc(1, 3 * C->n * sizeof *C->om + C->n, err) : NULL;
	if (!C->om) {
		forces_shell_cells_free(C);
		return -1;
	}
	for (k = 0, q = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++)
			for (i = 0; i < n[0]; i++) {
				double x[3];

				centre(vel, i, j, k, x);
				if (shell_near(sh, x))
					C->cell[q++] = (size_t)i + (size_t)n[0] * (j + (size_t)n[1] * k);
			}
	/* thesis eq. 3.3, omega = curl u, one-sided (guendelman2005 §4.1);
	 * each neighbour's visibility found once */
#pragma omp parallel for schedule(static) if (C->n >= 4096)
	for (q = 0; q < C->n; q++) {
		size_t c = C->cell[q];
		int cc[3], inside[3];
		double *w = C->om + 3 * q, nv[3][2][3], dx = vel->u.dx;
		int a;

		cc[0] = (int)(c % (size_t)n[0]);
		cc[1] = (int)(c / (size_t)n[0] % (size_t)n[1]);
		cc[2] = (int)(c / ((size_t)n[0] * n[1]));
		forces_shell_hidden(C)[q] = (unsigned char)neighbours(vel, sh, trk, n, cc, nv, inside);
		w[0] = diff(nv, inside, dx, 2, 1) - diff(nv, inside, dx, 1, 2);
		w[1] = diff(nv, inside, dx, 0, 2) - diff(nv, inside, dx, 2, 0);
		w[2] = diff(nv, inside, dx, 1, 0) - diff(nv, inside, dx, 0, 1);
		for (a = 0; a < 3; a++)
			om[a][c] = (float)w[a];
		mag[c] = (float)sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
	}
	return 0;
}

void
forces_shell_force(const macgrid *vel, const shell_set *sh, const forces_shell_cells *C,
		   const float *mag, double eps, float *const fc[3])
{
	int n[3];
	double dx = vel->u.dx;
	long q;

	(void)sh;
	field_cell_dims(&vel->u, &n[0], &n[1], &n[2]);
#pragma omp parallel for schedule(static) if (C->n >= 4096)
	for (q = 0; q < (long)C->n; q++) {
		size_t c = C->cell[q];
		int cc[3] = {(int)(c % (size_t)n[0]), (int)(c / (size_t)n[0] % (size_t)n[1]),
			     (int)(c / ((size_t)n[0] * n[1]))};
		const double *w = C->om + 3 * q;
		unsigned hid = forces_shell_hidden(C)[q];
		double g[3], gl, N[3];
		int a;

		for (a = 0; a < 3; a++) {
			double v[2];
			int side, cnt = 0;

			for (side = 0; side < 2; side++) {
				int m[3] = {cc[0], cc[1], cc[2]};

				m[a] += side ? 1 : -1;
				v[side] = mag[c];
				if (m[a] < 0 || m[a] >= n[a])
					continue;
				cnt++;
				/* guendelman2005 §4.1: a hidden neighbour
				 * takes the centre's value */
				if (!(hid >> (2 * a + side) & 1))
					v[side] = mag[(size_t)m[0] + (size_t)n[0] *
						      (m[1] + (size_t)n[1] * m[2])];
			}
			g[a] = cnt ? (v[1] - v[0]) / (cnt * dx) : 0;
		}
		gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
		if (!(gl * dx > SHELL_N_REL * mag[c])) {
			fc[0][c] = fc[1][c] = fc[2][c] = 0;
			continue;
		}
		for (a = 0; a < 3; a++)
			N[a] = g[a] / gl;
		fc[0][c] = (float)(eps * dx * (N[1] * w[2] - N[2] * w[1]));
		fc[1][c] = (float)(eps * dx * (N[2] * w[0] - N[0] * w[2]));
		fc[2][c] = (float)(eps * dx * (N[0] * w[1] - N[1] * w[0]));
	}
}

void
forces_shell_cells_free(forces_shell_cells *C)
{
	free(C->cell);
	free(C->om);
	memset(C, 0, sizeof *C);
}
