/* advect_pool.c: the float temporaries of fluid/advect_pool.h, shared by
 * the advection of fields on the velocity's cells (fluid/advect.c) and on
 * any other (fluid/advect_any.c).
 */
#include "fluid/advect_pool.h"

#include <stdlib.h>
#include <string.h>

float *
advect_pool_take(advect_pool *P, size_t n, slc_err *err)
{
	int s, best = -1, spare = -1, empty = -1;

	if (!P)
		return slc_malloc(n, sizeof(float), err);
	for (s = 0; s < ADVECT_POOL_SLOTS; s++) {
		if (P->busy[s])
			continue;
		if (!P->a[s])
			empty = empty < 0 ? s : empty;
		else if (P->cap[s] >= n && (best < 0 || P->cap[s] < P->cap[best]))
			best = s;
		else if (P->cap[s] < n)
			spare = s;
	}
	if (best < 0) {
		/* a free buffer too small is replaced rather than kept beside
		 * a new one */
		if ((best = spare >= 0 ? spare : empty) < 0) {
			slc_fail(err, "advect: more than %d scratch buffers", ADVECT_POOL_SLOTS);
			return NULL;
		}
		free(P->a[best]);
		P->cap[best] = n > P->min ? n : P->min;
		if (!(P->a[best] = slc_malloc(P->cap[best], sizeof(float), err))) {
			P->cap[best] = 0;
			return NULL;
		}
	}
	P->busy[best] = 1;
	return P->a[best];
}

void
advect_pool_give(advect_pool *P, float *a)
{
	int s;

	if (!P) {
		free(a);
		return;
	}
	for (s = 0; a && s < ADVECT_POOL_SLOTS; s++)
		if (P->a[s] == a)
			P->busy[s] = 0;
}

void
advect_pool_free(advect_pool *P)
{
	int s;

	for (s = 0; s < ADVECT_POOL_SLOTS; s++)
		free(P->a[s]);
	memset(P, 0, sizeof *P);
}
