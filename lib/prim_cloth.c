/* prim_cloth.c: a rectangular cloth sheet with the herring-bone
 * triangulation, lumped masses and pinned vertices (see prim.h). */
#include "prim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
prim_cloth_free(prim_cloth *cl)
{
	prim_mesh_free(&cl->mesh);
	free(cl->mass);
	free(cl->pinned);
	memset(cl, 0, sizeof *cl);
}

/* Area of triangle t of m. */
static double
tri_area(const prim_mesh *m, size_t t)
{
	const double *a = m->P + 3 * m->tri[3 * t], *b = m->P + 3 * m->tri[3 * t + 1];
	const double *c = m->P + 3 * m->tri[3 * t + 2];
	double u[3], v[3], n[3];
	int q;

	for (q = 0; q < 3; q++) {
		u[q] = b[q] - a[q];
		v[q] = c[q] - a[q];
	}
	n[0] = u[1] * v[2] - u[2] * v[1];
	n[1] = u[2] * v[0] - u[0] * v[2];
	n[2] = u[0] * v[1] - u[1] * v[0];
	return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

int
prim_cloth_make(prim_cloth *cl, double w, double d, int nx, int nz,
	   const double c[3], double density, int pin, slc_err *err)
{
	prim_mesh *m = &cl->mesh;
	size_t nv, t = 0, v;
	int i, k;

	memset(cl, 0, sizeof *cl);
	if (!(w > 0) || !(d > 0))
		return slc_fail(err, "cloth size %g,%g, expected > 0", w, d);
	if (nx < 1 || nz < 1 || nx > PRIM_RES_MAX || nz > PRIM_RES_MAX)
		return slc_fail(err, "cloth resolution %d,%d, expected 1..%d", nx,
				nz, PRIM_RES_MAX);
	if (!(density > 0))
		return slc_fail(err, "cloth density %g kg/m^2, expected > 0", density);
	if (pin < PRIM_PIN_NONE || pin > PRIM_PIN_EDGE)
		return slc_fail(err, "unknown pin mode %d", pin);
	nv = (size_t)(nx + 1) * (size_t)(nz + 1);
	m->P = slc_calloc(nv, 3 * sizeof *m->P, err);
	m->tri = m->P ? slc_calloc(2 * (size_t)nx * nz, 3 * sizeof *m->tri, err) : NULL;
	cl->mass = m->tri ? slc_calloc(nv, sizeof *cl->mass, err) : NULL;
	cl->pinned = cl->mass ? slc_calloc(nv, 1, err) : NULL;
	if (!cl->pinned) {
		prim_cloth_free(cl);
		return -1;
	}
	cl->nx = nx;
	cl->nz = nz;
	for (k = 0; k <= nz; k++)
		for (i = 0; i <= nx; i++) {
			double *p = m->P + 3 * ((size_t)i + (size_t)(nx + 1) * k);

			p[0] = c[0] + w * ((double)i / nx - 0.5);
			p[1] = c[1];
			p[2] = c[2] + d * ((double)k / nz - 0.5);
		}
	/* selle2008 thesis §5.2: a herring-bone mesh triangulates the quad
	 * grid so that bending is not biased towards one diagonal.  The
	 * diagonal of quad (i,k) runs (i,k)-(i+1,k+1) in even columns i and
	 * (i+1,k)-(i,k+1) in odd ones, so neighbouring columns mirror each
	 * other and the diagonals form chevrons along x.  Corners are listed
	 * counter-clockwise seen from +y. */
	for (k = 0; k < nz; k++)
		for (i = 0; i < nx; i++) {
			uint32_t a = (uint32_t)(i + (nx + 1) * k), b = a + 1;
			uint32_t dd = a + (uint32_t)(nx + 1), e = dd + 1;
			uint32_t *q = m->tri + 6 * t;

			if (i % 2 == 0) {
				q[0] = a; q[1] = dd; q[2] = e;
				q[3] = a; q[4] = e; q[5] = b;
			} else {
				q[0] = a; q[1] = dd; q[2] = b;
				q[3] = b; q[4] = dd; q[5] = e;
			}
			t++;
		}
	m->nv = nv;
	m->nt = 2 * t;
	/* lumped mass: a third of each triangle's mass to each corner */
	for (t = 0; t < m->nt; t++) {
		double third = density * tri_area(m, t) / 3;

		for (i = 0; i < 3; i++)
			cl->mass[m->tri[3 * t + i]] += third;
	}
	for (v = 0; v <= (size_t)nx; v++)
		if (pin == PRIM_PIN_EDGE || (pin == PRIM_PIN_CORNERS &&
					     (v == 0 || v == (size_t)nx)))
			cl->pinned[v] = 1;
	return 0;
}
