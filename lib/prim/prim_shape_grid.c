/* prim_shape_grid: the shapes on a grid (pool, smoke, ball) from mkprim's
 * parameters: the domain placed by --box and --res or --dx, the scene
 * record and zero MAC velocity for pool and smoke, then their fields or
 * the rigid ball's records, one record at a time. */
#include <math.h>

#include "grid/field.h"
#include "prim/prim.h"
#include "prim/prim_rigid.h"
#include "prim/prim_shape.h"

#define V(s, k) ((s)->p[k].v[0])
#define RES(s, a) ((int)(s)->p[PP_RES].v[a])

/* The cell counts n and size h of the domain grid: --box with --dx, or
 * cut in --res cells along its longest side. */
static int
grid_place(const prim_spec *s, int n[3], double *h, slc_err *err)
{
	int dx = s->p[PP_DX].n > 0;

	if (!dx && prim_spec_res(s, 0, 1, err))
		return -1;
	return prim_grid_place(s->p[PP_BOX].v, dx ? 0 : RES(s, 0),
			       dx ? V(s, PP_DX) : 0, n, h, err);
}

/* Emit the scene record and the zero MAC velocity u, v, w of the domain,
 * and allocate a zero cell field *cell on it. */
static int
grid_begin(const prim_spec *s, field *cell, prim_emit emit, void *arg, slc_err *err)
{
	const double *o = s->p[PP_ORIGIN].v;
	double h, t = V(s, PP_TIME);
	int n[3], a, rc;
	slc_rec r;

	if (grid_place(s, n, &h, err))
		return -1;
	rc = prim_scene_rec(&r, t, s->p[PP_DT].n ? V(s, PP_DT) : 1 / V(s, PP_FPS),
			    s->p[PP_GRAVITY].v, V(s, PP_FPS), err);
	if (prim_emit_rec(&r, rc, emit, arg, err))
		return -1;
	for (a = 0; a < 3; a++)
		if (prim_emit_rec(&r, prim_face_rec(&r, a, n, o, h, t, err), emit, arg, err))
			return -1;
	return field_alloc(cell, n[0], n[1], n[2], SLC_CELL, o, h, err);
}

/* Emit field f as grid record fname and free it. */
static int
emit_field(const prim_spec *s, field *f, const char *fname, prim_emit emit,
	   void *arg, slc_err *err)
{
	slc_rec r;
	int rc = field_to_rec(f, &r, fname, V(s, PP_TIME), err);

	rc = prim_emit_rec(&r, rc, emit, arg, err);

	field_free(f);
	return rc;
}

static int
check_grid(prim_spec *s, slc_err *err)
{
	int n[3];
	double h;

	return grid_place(s, n, &h, err);
}

static int
check_pool(prim_spec *s, slc_err *err)
{
	if (V(s, PP_DEPTH) < 0)
		return slc_fail(err, "--depth: %g, expected >= 0", V(s, PP_DEPTH));
	return check_grid(s, err);
}

static int
make_pool(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	field phi;

	if (grid_begin(s, &phi, emit, arg, err))
		return -1;
	prim_pool_fill(&phi, s->p[PP_ORIGIN].v[1] + V(s, PP_DEPTH),
		       s->p[PP_DROP_CENTER].v, V(s, PP_DROP_RADIUS));
	return emit_field(s, &phi, "phi", emit, arg, err);
}

static int
check_smoke(prim_spec *s, slc_err *err)
{
	return prim_spec_want(s, PP_SIZE, "size", 3, err) || check_grid(s, err) ? -1 : 0;
}

static int
make_smoke(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *size = s->p[PP_SIZE].v;
	field src, den = { 0 }, tem = { 0 };
	int rc;

	if (grid_begin(s, &src, emit, arg, err))
		return -1;
	rc = field_alloc_like(&den, &src, err) || field_alloc_like(&tem, &src, err);
	if (!rc) {
		prim_smoke_fill(&src, &den, &tem, s->source, s->p[PP_CENTER].v,
				V(s, PP_RADIUS),
				(double[3]){ size[0] / 2, size[1] / 2, size[2] / 2 },
				V(s, PP_SRC_DENSITY), V(s, PP_TEMPERATURE));
		rc = emit_field(s, &den, "density", emit, arg, err) ||
		     emit_field(s, &tem, "temperature", emit, arg, err) ||
		     emit_field(s, &src, "source", emit, arg, err);
	}
	field_free(&den);
	field_free(&tem);
	field_free(&src);
	return rc ? -1 : 0;
}

static int
check_ball(prim_spec *s, slc_err *err)
{
	if (s->p[PP_STOP].n && !s->motion)
		return slc_fail(err, "--stop: only a scripted or thrown ball comes to rest");
	return check_grid(s, err);
}

static int
make_ball(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *c = s->p[PP_CENTER].v, *v = s->p[PP_VELOCITY].v;
	const double *w = s->p[PP_SPIN].v, *o = s->p[PP_ORIGIN].v;
	prim_ball b = { V(s, PP_RADIUS), { c[0], c[1], c[2] }, { v[0], v[1], v[2] },
			{ w[0], w[1], w[2] }, V(s, PP_DENSITY), s->motion > 0, { 0, 0, 0 },
			s->p[PP_STOP].n ? V(s, PP_STOP) : INFINITY };
	slc_rec r[3];
	int n[3], a, rc = 0;
	double h;
	field cells;

	for (a = 0; a < 3 && s->motion == 2; a++)
		b.accel[a] = s->p[PP_GRAVITY].v[a];
	if (grid_place(s, n, &h, err))
		return -1;
	cells = (field){ n[0], n[1], n[2], SLC_CELL, { o[0], o[1], o[2] }, h, NULL, 0, 0, 0 };
	if (prim_ball_recs(&b, &cells, V(s, PP_TIME), r, err))
		return -1;
	for (a = 0; a < 3; a++)
		if (rc)
			slc_rec_free(&r[a]);
		else
			rc = prim_emit_rec(&r[a], 0, emit, arg, err);
	return rc;
}

#define GRID_DEF " origin=0,0,0 res=32 fps=24 gravity=0,-9.81,0 time=0"
const prim_shape prim_grid_shapes[] = {
	{ "pool", "depth=0.3 drop-center=0.5,0.65,0.5 drop-radius=0.15 box=1,1,1" GRID_DEF,
	  " dx= dt=", check_pool, make_pool },
	{ "smoke", "source=sphere center=0.5,0.25,0.5 radius=0.12 size=0.3,0.1,0.3 "
	  "source-density=1 temperature=1 box=1,2,1" GRID_DEF, " dx= dt=", check_smoke,
	  make_smoke },
	{ "ball", "radius=0.15 center=0.5,0.5,0.5 velocity=0,0,0 spin=0,0,0 density=500 "
	  "motion=dynamic box=1,1,1 origin=0,0,0 res=32 gravity=0,-9.81,0 time=0", " dx= stop=",
	  check_ball, make_ball },
};
const size_t prim_grid_nshapes = sizeof prim_grid_shapes / sizeof *prim_grid_shapes;
