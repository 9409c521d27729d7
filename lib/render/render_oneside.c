/* render_oneside.c: robust one-sided interpolation of a level set next to
 * thin shells, after selle2008 thesis §4.3 (visibility by ray casting
 * against thickened triangle wedges, Figure 4.1) and §4.4.3 "Level Set
 * Method" (replacing samples that are not visible from the one ring, two
 * ring or three ring neighbours of the cell), used for rendering as §4.6
 * describes: "we use the robust interpolation scheme to evaluate the phi
 * implicit function". */
#include "render/render.h"
#include "shell/shell_fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double
dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int
oneside_init(oneside *os, const field *phi, double eps, slc_err *err)
{
	memset(os, 0, sizeof *os);
	os->phi = phi;
	return shell_init(&os->sh, eps, err);
}

void
oneside_free(oneside *os)
{
	shell_free(&os->sh);
	memset(os, 0, sizeof *os);
}

int
oneside_add_mesh(oneside *os, const float *P, size_t np, const uint32_t *tri,
		 size_t ntri, slc_err *err)
{
	return shell_add_mesh(&os->sh, P, np, tri, ntri, err);
}

/* Sample-space coordinate of world coordinate x on axis a. */
static double
to_sample(const field *f, int a, double x)
{
	double off[3];

	field_offset(f, off);
	return (x - f->origin[a]) / f->dx - off[a];
}

/* The lattice of the shells' bins is the level set's own: one cube
 * between each eight neighbouring samples. */
int
oneside_build(oneside *os, slc_err *err)
{
	const field *f = os->phi;
	double o[3];

	field_pos(f, 0, 0, 0, o);
	return shell_build(&os->sh, o, f->dx, f->ni > 1 ? f->ni - 1 : 1,
			   f->nj > 1 ? f->nj - 1 : 1, f->nk > 1 ? f->nk - 1 : 1,
			   err);
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

/* The lattice cell holding x, clamped as field_sample clamps. */
static size_t
lattice_cell(const oneside *os, const double x[3], int b[3], double w[3])
{
	const field *f = os->phi;
	int a;

	for (a = 0; a < 3; a++) {
		int n = a == 0 ? f->ni : a == 1 ? f->nj : f->nk;

		locate(to_sample(f, a, x[a]), n, &b[a], &w[a]);
	}
	return (size_t)b[0] + (size_t)os->sh.ci * ((size_t)b[1] + (size_t)os->sh.cj * b[2]);
}

int
oneside_near(const oneside *os, const double x[3])
{
	const field *f = os->phi;
	int b[3];
	double w[3];
	size_t c;

	if (!os->sh.start || os->sh.ntri == 0 || f->ni < 2 || f->nj < 2 || f->nk < 2)
		return 0;
	c = lattice_cell(os, x, b, w);
	return os->sh.start[c] != os->sh.start[c + 1];
}

double
oneside_phi(const oneside *os, const double x[3])
{
	const field *f = os->phi;
	double w[3], v[8], pos[8][3];
	int b[3], vis[8], corner, nvis = 0;
	size_t c, q;

	if (!os->sh.start || os->sh.ntri == 0 || f->ni < 2 || f->nj < 2 || f->nk < 2)
		return field_sample(f, x);
	c = lattice_cell(os, x, b, w);
	if (os->sh.start[c] == os->sh.start[c + 1])
		return field_sample(f, x);     /* far from every shell */
	for (corner = 0; corner < 8; corner++) {
		int i = b[0] + (corner & 1), j = b[1] + (corner >> 1 & 1);
		int k = b[2] + (corner >> 2);

		v[corner] = f->a[FIELD_IDX(f, i, j, k)];
		field_pos(f, i, j, k, pos[corner]);
		vis[corner] = 1;
		/* the cell's own list: every wedge that meets a segment
		 * inside the cell is binned in it */
		for (q = os->sh.start[c]; q < os->sh.start[c + 1]; q++)
			if (shell_tri_blocked_at(&os->sh, os->sh.list[q], x, pos[corner])) {
				vis[corner] = 0;
				break;
			}
		nvis += vis[corner];
	}
	if (nvis < 8 && shell_ring_rule(v, vis) == 0) {
		/* §4.3: no visible sample: "a zero density ... the positive
		 * distance to the object" (air on the far side of the shell) */
		for (corner = 0; corner < 8; corner++) {
			double d[3] = {pos[corner][0] - x[0], pos[corner][1] - x[1],
				       pos[corner][2] - x[2]};

			v[corner] = os->zero_fallback ? 0 : sqrt(dot3(d, d));
		}
	}
	return (1 - w[2]) * ((1 - w[1]) * ((1 - w[0]) * v[0] + w[0] * v[1]) +
			     w[1] * ((1 - w[0]) * v[2] + w[0] * v[3])) +
	       w[2] * ((1 - w[1]) * ((1 - w[0]) * v[4] + w[0] * v[5]) +
		       w[1] * ((1 - w[0]) * v[6] + w[0] * v[7]));
}
