/* pls_solid.c: marker and spray particles kept out of solids
 * (pls_solid.h). */
#include "liquid/pls_solid.h"

#include <math.h>

#define PUSH_ITER 4     /* Newton steps: the solid level set need not be a
			   distance far from its surface */
#define PUSH_TOL 1e-3   /* of dx: aimed beyond the wanted distance, so
			   that rounding leaves it there */

int
pls_solid_push(const field *solid, double x[3], double dist, double n[3])
{
	double y[3] = { x[0], x[1], x[2] }, s = field_sample(solid, y);
	double goal = dist + PUSH_TOL * solid->dx;      /* a hair beyond */
	int it, a;

	if (s >= dist)
		return 0;
	for (it = 0; it < PUSH_ITER && s < dist; it++) {
		double g[3], len;

		field_gradient(solid, y, g);
		len = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
		if (!(len > 0))
			return -1;
		for (a = 0; a < 3; a++) {
			n[a] = g[a] / len;
			y[a] += (goal - s) / len * n[a];
		}
		s = field_sample(solid, y);
	}
	if (s < 0)
		return -1;
	x[0] = y[0], x[1] = y[1], x[2] = y[2];
	return 1;
}

int
pls_collide_one(pls_set *s, size_t q, const field *solid)
{
	double x[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] }, n[3];

	if (s->sign > 0)        /* guendelman2005 §4.4.2: deleted */
		return field_sample(solid, x) < 0;
	if (pls_solid_push(solid, x, s->r[q], n) < 0)
		return 1;
	s->x[3 * q] = (float)x[0];
	s->x[3 * q + 1] = (float)x[1];
	s->x[3 * q + 2] = (float)x[2];
	return 0;
}

size_t
pls_collide(pls_set *s, const field *solid)
{
	size_t q = 0, removed = 0;

	if (s->sign > 0)
		return pls_drop_inside(s, solid);
	while (q < s->n) {
		if (pls_collide_one(s, q, solid)) {
			pls_set_swap_remove(s, q);
			removed++;
			continue;
		}
		q++;
	}
	return removed;
}

size_t
pls_drop_inside(pls_set *s, const field *solid)
{
	size_t q = 0, removed = 0;

	while (q < s->n) {
		double x[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] };

		if (field_sample(solid, x) < 0) {
			pls_set_swap_remove(s, q);
			removed++;
			continue;
		}
		q++;
	}
	return removed;
}
