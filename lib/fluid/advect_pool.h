/* advect_pool.h: float temporaries that the advection of a frame takes and
 * gives back, kept across fields, records and substeps by their owner.
 */
#ifndef SLC_ADVECT_POOL_H
#define SLC_ADVECT_POOL_H

#include <stddef.h>

#include "core/err.h"

/* Float buffers kept across fields, records and substeps by their owner
 * (the caller of the advection): a large buffer freed and allocated again
 * comes back as fresh pages that the kernel zeroes first, which costs as
 * much as a pass of the advection itself.  A buffer taken is the
 * caller's until given back; its contents are undefined.  Zero it to
 * start; advect_pool_free releases everything. */
#define ADVECT_POOL_SLOTS 16    /* at most this many buffers taken at once */
typedef struct advect_pool {
	float *a[ADVECT_POOL_SLOTS];
	size_t cap[ADVECT_POOL_SLOTS];  /* floats */
	unsigned char busy[ADVECT_POOL_SLOTS];
	size_t min;             /* floats at least in a new buffer (e.g. the
				   largest grid, so that every buffer fits
				   every use) */
} advect_pool;

/* A buffer of at least n floats (uninitialized) from pool P, or from
 * slc_malloc when P is NULL.  NULL with err (memory, every slot taken). */
float *advect_pool_take(advect_pool *P, size_t n, slc_err *err);

/* Give back a buffer taken from P (freed when P is NULL); NULL is
 * ignored. */
void advect_pool_give(advect_pool *P, float *a);

/* Free every buffer of P (none may be taken) and zero it. */
void advect_pool_free(advect_pool *P);

#endif
