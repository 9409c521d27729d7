/* prim_cloth.c: a rectangular cloth sheet with the herring-bone
 * triangulation, lumped masses and pinned vertices (see prim.h). */
#include "prim/prim.h"

#include "cloth/cloth_mesh.h"
#include "core/rng.h"

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

int
prim_curtain_make(prim_cloth *cl, double w, double h, int nx, int ny,
		  const double c[3], double density, int pin, slc_err *err)
{
	if (prim_cloth_make(cl, w, h, nx, ny, (double[3]){ 0, 0, 0 }, density, pin,
			    err))
		return -1;
	/* turned +90 degrees about x, (x, y, z) -> (x, -z, y): the normals
	 * go from +y to +z and the pinned row at minimum z to the top */
	for (size_t v = 0; v < cl->mesh.nv; v++) {
		double *p = cl->mesh.P + 3 * v, y = p[1], z = p[2];

		p[0] += c[0];
		p[1] = c[1] - h / 2 - z;
		p[2] = c[2] + y;
	}
	return 0;
}

/* A uniformly random rotation matrix R (row-major) from a uniformly random
 * unit quaternion (Shoemake, "Uniform random rotations", Graphics Gems III,
 * 1992). */
static void
random_rotation(rng *g, double R[9])
{
	double u1 = rng_uniform(g), u2 = 2 * M_PI * rng_uniform(g);
	double u3 = 2 * M_PI * rng_uniform(g);
	double a = sqrt(1 - u1), b = sqrt(u1);
	double w = a * sin(u2), x = a * cos(u2), y = b * sin(u3), z = b * cos(u3);

	R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z); R[2] = 2 * (x * z + w * y);
	R[3] = 2 * (x * y + w * z); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
	R[6] = 2 * (x * z - w * y); R[7] = 2 * (y * z + w * x); R[8] = 1 - 2 * (x * x + y * y);
}

int
prim_cloth_scatter(prim_cloth *cl, size_t count, const double box[3],
		   const double c[3], uint64_t seed, slc_err *err)
{
	prim_mesh *m = &cl->mesh;
	const size_t nv = m->nv, nt = m->nt;
	size_t nvall, ntall, tri3, j, v;
	double o[3] = {0, 0, 0}, rad = 0, *P = NULL, *mass = NULL, *at = NULL;
	uint32_t *tri = NULL;
	uint8_t *pinned = NULL;
	rng g;

	if (count < 1 || slc_mul(nv, count, &nvall) || nvall > UINT32_MAX ||
	    slc_mul(nt, count, &ntall) || slc_mul(ntall, 3, &tri3)) {
		prim_cloth_free(cl);
		return slc_fail(err, "%zu sheets of %zu vertices: too many", count, nv);
	}
	for (v = 0; v < nv; v++)
		for (int a = 0; a < 3; a++)
			o[a] += m->P[3 * v + a] / (double)nv;
	for (v = 0; v < nv; v++) {
		double d2 = 0;
		for (int a = 0; a < 3; a++)
			d2 += (m->P[3 * v + a] - o[a]) * (m->P[3 * v + a] - o[a]);
		rad = fmax(rad, sqrt(d2));
	}
	if (!(P = slc_calloc(nvall, 3 * sizeof *P, err)) ||
	    !(tri = slc_calloc(tri3, sizeof *tri, err)) ||
	    !(mass = slc_calloc(nvall, sizeof *mass, err)) ||
	    !(pinned = slc_calloc(nvall, 1, err)) ||
	    !(at = slc_calloc(count, 3 * sizeof *at, err)))
		goto fail;
	rng_init(&g, seed);
	for (j = 0; j < count; j++) {
		double R[9], *cj = at + 3 * j;
		int tries, clear = 0;

		for (tries = 0; tries < PRIM_SCATTER_TRIES && !clear; tries++) {
			for (int a = 0; a < 3; a++)
				cj[a] = c[a] + box[a] * (rng_uniform(&g) - 0.5);
			clear = 1;
			for (size_t k = 0; k < j && clear; k++) {
				double d2 = 0;
				for (int a = 0; a < 3; a++)
					d2 += (cj[a] - at[3 * k + a]) * (cj[a] - at[3 * k + a]);
				clear = d2 > 4 * rad * rad;
			}
		}
		if (!clear) {
			slc_fail(err, "no room for sheet %zu of %zu in a box of "
				 "%g,%g,%g", j + 1, count, box[0], box[1], box[2]);
			goto fail;
		}
		random_rotation(&g, R);
		for (v = 0; v < nv; v++) {
			const double *p = m->P + 3 * v;
			double *q = P + 3 * (j * nv + v);
			for (int a = 0; a < 3; a++)
				q[a] = cj[a] + R[3 * a] * (p[0] - o[0]) +
					R[3 * a + 1] * (p[1] - o[1]) +
					R[3 * a + 2] * (p[2] - o[2]);
			mass[j * nv + v] = cl->mass[v];
			pinned[j * nv + v] = cl->pinned[v];
		}
		for (size_t t = 0; t < 3 * nt; t++)
			tri[3 * j * nt + t] = (uint32_t)(j * nv) + m->tri[t];
	}
	free(at);
	int nx = cl->nx, nz = cl->nz;
	prim_cloth_free(cl);
	cl->nx = nx;
	cl->nz = nz;
	cl->mesh.P = P;
	cl->mesh.tri = tri;
	cl->mesh.nv = nvall;
	cl->mesh.nt = ntall;
	cl->mass = mass;
	cl->pinned = pinned;
	return 0;
fail:
	free(P); free(tri); free(mass); free(pinned); free(at);
	prim_cloth_free(cl);
	return -1;
}
