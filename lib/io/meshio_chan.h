/* meshio_chan.h: element access to channels of any numeric type, shared by
 * the mesh readers and writers of lib/meshio.  Internal to lib/. */
#ifndef SLC_MESHIO_CHAN_H
#define SLC_MESHIO_CHAN_H

#include <stdint.h>

#include "core/slc.h"

/* Value q (flat index, element*ncomp + component) of a channel as double. */
static inline double
mio_get(const slc_chan *c, uint64_t q)
{
	switch (c->type) {
	case SLC_U8: return ((const uint8_t *)c->data)[q];
	case SLC_I32: return ((const int32_t *)c->data)[q];
	case SLC_U32: return ((const uint32_t *)c->data)[q];
	case SLC_F32: return ((const float *)c->data)[q];
	case SLC_F64: return ((const double *)c->data)[q];
	case SLC_I64: return (double)((const int64_t *)c->data)[q];
	default: return (double)((const uint64_t *)c->data)[q];
	}
}

/* Store v (already checked to fit the type) at flat index q. */
static inline void
mio_set(slc_chan *c, uint64_t q, double v)
{
	switch (c->type) {
	case SLC_U8: ((uint8_t *)c->data)[q] = (uint8_t)v; break;
	case SLC_I32: ((int32_t *)c->data)[q] = (int32_t)v; break;
	case SLC_U32: ((uint32_t *)c->data)[q] = (uint32_t)v; break;
	case SLC_F32: ((float *)c->data)[q] = (float)v; break;
	case SLC_F64: ((double *)c->data)[q] = v; break;
	case SLC_I64: ((int64_t *)c->data)[q] = (int64_t)v; break;
	default: ((uint64_t *)c->data)[q] = (uint64_t)v; break;
	}
}

/* Significant digits that print a value of the type so it reads back
 * exactly: 9 for f32, 17 for f64 (IEEE 754 round-trip bounds). */
static inline int
mio_digits(uint32_t type)
{
	return type == SLC_F32 ? 9 : 17;
}

#endif
