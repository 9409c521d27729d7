/* prim_shape: mkprim's shapes by name: the parameters each one takes and
 * their defaults, the checks of their values, and the records built from
 * them.  The geometry itself is in prim*.c; mkprim parses the options. */
#ifndef SLC_PRIM_SHAPE_H
#define SLC_PRIM_SHAPE_H

#include "core/err.h"
#include "core/slc.h"

/* The numeric parameters, one per mkprim option of the same name. */
enum prim_param {
	PP_SUBDIV, PP_RADIUS, PP_CENTER, PP_SIZE, PP_RADII, PP_RES, PP_BLADES,
	PP_ANGLE, PP_RATE, PP_HEIGHT, PP_VELOCITY, PP_DENSITY, PP_STRANDS,
	PP_SEGMENTS, PP_LENGTH, PP_COUNT, PP_SEED, PP_BOX, PP_ORIGIN, PP_DX,
	PP_DEPTH, PP_DROP_CENTER, PP_DROP_RADIUS, PP_SRC_DENSITY,
	PP_TEMPERATURE, PP_DT, PP_FPS, PP_GRAVITY, PP_SPIN, PP_STOP, PP_TIME,
	PP_CURL, PP_CAP, PP_JITTER, PP_BOTTOM, PP_PREV_CENTER, PP_PREV_ANGLE,
	PP_COUNT_
};

/* One parameter: 1..3 numbers; n = 0 while neither given nor defaulted. */
typedef struct prim_list { int n; double v[3]; } prim_list;

/* Everything a shape is made from, in SI units (angles in degrees). */
typedef struct prim_spec {
	prim_list p[PP_COUNT_];
	int pin;                /* cloth: 0 none, 1 corners, 2 edge */
	int source;             /* smoke: 0 sphere, 1 box */
	int motion;             /* ball, hull: 0 dynamic, 1 scripted, 2 thrown
				   (hull: -1, no body) */
	int axis;               /* paddle: 0 x, 1 y, 2 z */
	const char *name;       /* record name, or NULL for the shape's */
} prim_spec;

/* Receives each record a shape builds, in stream order; the record is
 * freed by the caller of emit afterwards.  0, or -1 with err. */
typedef int (*prim_emit)(slc_rec *r, void *arg, slc_err *err);

typedef struct prim_shape {
	const char *name;
	/* "param=value ..." for every parameter that applies and has a
	 * default (choices by name), and " param= ..." for the optional
	 * ones without a default */
	const char *defaults, *optional;
	/* Check the values against the shape's limits after defaults are
	 * in: -1 with a message naming the options (a usage error); fills
	 * what follows from them (a single value standing for all, the
	 * second --res of torus and cup).  0 on success. */
	int (*check)(prim_spec *s, slc_err *err);
	/* Build the records from checked values and pass each to emit.
	 * 0, or -1 with err (out of memory, no room to scatter, emit). */
	int (*make)(const prim_spec *s, prim_emit emit, void *arg, slc_err *err);
} prim_shape;

/* The shape called name, or NULL. */
const prim_shape *prim_shape_find(const char *name);

/* The default value text of parameter param ("radius", up to the next
 * space) in sh->defaults, NULL when it has none; *takes is set to whether
 * the parameter applies to the shape at all (default or optional). */
const char *prim_shape_param(const prim_shape *sh, const char *param,
			     int *takes);

/* --- for the shape files (prim_shape*.c) ------------------------------ */

/* Parameter k given as one value stands for all n; any count other than
 * 1 or n is an error naming option opt. */
int prim_spec_want(prim_spec *s, int k, const char *opt, int n, slc_err *err);

/* Check --res value a against lo..PRIM_RES_MAX. */
int prim_spec_res(const prim_spec *s, int a, int lo, slc_err *err);

/* Hand r, built with status rc (nonzero: r is empty, err set), to emit
 * and free it.  0, or -1 with err. */
int prim_emit_rec(slc_rec *r, int rc, prim_emit emit, void *arg, slc_err *err);

/* The grid shapes, from prim_shape_grid.c. */
extern const prim_shape prim_grid_shapes[];
extern const size_t prim_grid_nshapes;

#endif
