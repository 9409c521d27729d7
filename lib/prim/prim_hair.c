/* prim_hair.c: straight hair strands rooted on a spherical scalp, placed
 * by a seeded pseudo-random sequence (lib/core/rng.h; see prim.h). */
#include "prim/prim.h"

#include "core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
prim_hair_free(prim_hair *h)
{
	free(h->P);
	memset(h, 0, sizeof *h);
}

int
prim_hair_make(prim_hair *h, size_t nstrands, int nseg, double length,
	       double radius, const double c[3], uint64_t seed, slc_err *err)
{
	double cmin = cos(PRIM_SCALP_CAP_DEG * M_PI / 180);
	rng g;
	size_t s, np;
	int q, a;

	memset(h, 0, sizeof *h);
	if (nstrands < 1)
		return slc_fail(err, "strand count %zu, expected >= 1", nstrands);
	if (nseg < 1 || nseg > PRIM_RES_MAX)
		return slc_fail(err, "segments per strand %d, expected 1..%d", nseg,
				PRIM_RES_MAX);
	if (!(length > 0) || !(radius > 0))
		return slc_fail(err, "strand length %g and scalp radius %g, expected > 0",
				length, radius);
	if (slc_mul(nstrands, (size_t)nseg + 1, &np) || np > UINT32_MAX)
		return slc_fail(err, "%zu strands of %d segments are too many points",
				nstrands, nseg);
	h->P = slc_calloc(np, 3 * sizeof *h->P, err);
	if (!h->P)
		return -1;
	rng_init(&g, seed);
	h->nstrands = nstrands;
	h->nseg = nseg;
	for (s = 0; s < nstrands; s++) {
		/* Archimedes: the height of a uniform point on a sphere is
		 * uniform, so y = cos(polar angle) uniform on [cmin, 1] and a
		 * uniform azimuth give a uniform density by area on the cap */
		double y = cmin + (1 - cmin) * rng_uniform(&g);
		double az = 2 * M_PI * rng_uniform(&g);
		double sxz = sqrt(fmax(0, 1 - y * y)), n[3];

		n[0] = sxz * cos(az);
		n[1] = y;
		n[2] = sxz * sin(az);
		for (q = 0; q <= nseg; q++) {
			double *p = h->P + 3 * (s * ((size_t)nseg + 1) + (size_t)q);
			double l = radius + length * q / nseg;

			for (a = 0; a < 3; a++)
				p[a] = c[a] + l * n[a];
		}
	}
	return 0;
}
