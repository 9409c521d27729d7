/* prim_cloth.c: a rectangular cloth sheet with the herring-bone
 * triangulation, lumped masses and pinned vertices (see prim.h). */
#include "prim.h"

#include "cloth_mesh.h"

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
	size_t t;
	int i;

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
	/* selle2008 thesis §5.2: the herring-bone sheet of cloth_mesh.c,
	 * its u axis along +x and v along -z from the corner at maximum z,
	 * so that the triangles face +y and row k = nz lies at minimum z */
	if (cloth_sheet(nx, nz, (double[3]){ c[0] - w / 2, c[1], c[2] + d / 2 },
			(double[3]){ 1, 0, 0 }, (double[3]){ 0, 0, -1 }, w, d, &m->P,
			&m->nv, &m->tri, &m->nt, err))
		return -1;
	cl->mass = slc_calloc(m->nv, sizeof *cl->mass, err);
	cl->pinned = cl->mass ? slc_calloc(m->nv, 1, err) : NULL;
	if (!cl->pinned) {
		prim_cloth_free(cl);
		return -1;
	}
	cl->nx = nx;
	cl->nz = nz;
	/* lumped mass: a third of each triangle's mass to each corner */
	for (t = 0; t < m->nt; t++) {
		double third = density * tri_area(m, t) / 3;

		for (i = 0; i < 3; i++)
			cl->mass[m->tri[3 * t + i]] += third;
	}
	for (i = 0; i <= nx; i++)
		if (pin == PRIM_PIN_EDGE || (pin == PRIM_PIN_CORNERS &&
					     (i == 0 || i == nx)))
			cl->pinned[(size_t)nz * (nx + 1) + i] = 1;
	return 0;
}
