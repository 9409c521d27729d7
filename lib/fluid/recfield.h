/* recfield.h: grid records of several channels or components used as
 * fields: advected component by component, or split into three fields. */
#ifndef SLC_RECFIELD_H
#define SLC_RECFIELD_H

#include "fluid/advect.h"
#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "core/slc.h"

/* Advect every f32 sample channel of grid record r in place through vel
 * for dt seconds, component by component (selle2008 thesis §2.9: fields
 * are advected and limited one scalar at a time).  Other channels are
 * left alone.  0, or -1 with err (memory, advect_field's errors). */
int recfield_advect(slc_rec *r, const macgrid *vel, double dt, const advect_opts *o,
		    advect_stats *st, slc_err *err);

/* The three components of the f32 x3 channel named like grid record r
 * (e.g. solid_vel) as three owned fields with r's placement.  0, or -1
 * with err (no such channel, wrong type, memory). */
int recfield_vec3(const slc_rec *r, field f[3], slc_err *err);

#endif
