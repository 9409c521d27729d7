/* prim_shape: from mkprim's parameters to the records of each shape: the
 * defaults, the checks that make a bad value a usage error before anything
 * is built, and the building, one record at a time.  The meshes and
 * strands (sphere, box, torus, cup, paddle, cloth, curtain, hull, basin,
 * hair) are here, the
 * grid shapes (pool, smoke, ball) in prim_shape_grid.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prim/prim.h"
#include "prim/prim_rigid.h"
#include "prim/prim_shape.h"

#define V(s, k) ((s)->p[k].v[0])
#define RES(s, a) ((int)(s)->p[PP_RES].v[a])

/* The mesh m (built with status rc) as record name or dname, with the
 * constant --velocity when given; frees m. */
static int
emit_mesh(const prim_spec *s, prim_mesh *m, int rc, const char *dname,
	  prim_emit emit, void *arg, slc_err *err)
{
	const prim_list *vel = &s->p[PP_VELOCITY];
	slc_rec r;

	if (rc)
		return -1;
	rc = prim_mesh_rec(m, s->name ? s->name : dname, V(s, PP_TIME),
			   vel->n ? vel->v : NULL, &r, err);
	rc = prim_emit_rec(&r, rc, emit, arg, err);
	prim_mesh_free(m);
	return rc;
}

static int
check_sphere(prim_spec *s, slc_err *err)
{
	if (V(s, PP_SUBDIV) < 0 || V(s, PP_SUBDIV) > PRIM_SUBDIV_MAX)
		return slc_fail(err, "--subdiv: %g, expected 0..%d", V(s, PP_SUBDIV),
				PRIM_SUBDIV_MAX);
	return 0;
}

static int
make_sphere(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	prim_mesh m;

	return emit_mesh(s, &m, prim_icosphere(&m, (int)V(s, PP_SUBDIV), V(s, PP_RADIUS),
					       s->p[PP_CENTER].v, err),
			 "sphere", emit, arg, err);
}

static int
check_box(prim_spec *s, slc_err *err)
{
	if (prim_spec_want(s, PP_SIZE, "size", 3, err) ||
	    prim_spec_want(s, PP_RES, "res", 3, err) || prim_spec_res(s, 0, 1, err) ||
	    prim_spec_res(s, 1, 1, err) || prim_spec_res(s, 2, 1, err))
		return -1;
	return 0;
}

static int
make_box(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	int n[3] = { RES(s, 0), RES(s, 1), RES(s, 2) };
	prim_mesh m;

	return emit_mesh(s, &m, prim_box(&m, s->p[PP_SIZE].v, n, s->p[PP_CENTER].v, err),
			 "box", emit, arg, err);
}

static int
check_torus(prim_spec *s, slc_err *err)
{
	prim_list *res = &s->p[PP_RES];
	const double *radii = s->p[PP_RADII].v;

	if (radii[1] >= radii[0])
		return slc_fail(err, "--radii: %g,%g, expected R,r with R > r", radii[0],
				radii[1]);
	if (res->n == 1)   /* about equal spacing around and along the tube */
		res->v[res->n++] = fmax(3, round(res->v[0] * radii[1] / radii[0]));
	if (prim_spec_want(s, PP_RES, "res", 2, err))
		return -1;
	return prim_spec_res(s, 0, 3, err) || prim_spec_res(s, 1, 3, err) ? -1 : 0;
}

static int
make_torus(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *radii = s->p[PP_RADII].v;
	prim_mesh m;

	return emit_mesh(s, &m, prim_torus(&m, radii[0], radii[1], RES(s, 0),
					   RES(s, 1), s->p[PP_CENTER].v, err),
			 "torus", emit, arg, err);
}

static int
check_cup(prim_spec *s, slc_err *err)
{
	prim_list *res = &s->p[PP_RES];
	const double *radii = s->p[PP_RADII].v;

	if (res->n == 1) {   /* wall segments about as long as those around */
		double wall = hypot(V(s, PP_HEIGHT), radii[0] - radii[1]);

		res->v[res->n++] = fmax(1, ceil(wall * res->v[0] / (2 * M_PI * radii[0])));
	}
	if (prim_spec_want(s, PP_RES, "res", 2, err))
		return -1;
	return prim_spec_res(s, 0, 3, err) || prim_spec_res(s, 1, 1, err) ? -1 : 0;
}

/* The cup of s with its bottom's centre at c, tipped by deg degrees
 * about the z axis through c (pouring). */
static int
cup_at(const prim_spec *s, const double c[3], double deg, prim_mesh *m, slc_err *err)
{
	const double *radii = s->p[PP_RADII].v;
	double a = deg * M_PI / 180, cs = cos(a), sn = sin(a);
	size_t q;

	if (prim_cup(m, radii[0], radii[1], V(s, PP_HEIGHT), RES(s, 0), RES(s, 1), c, err))
		return -1;
	for (q = 0; q < m->nv; q++) {
		double *p = &m->P[3 * q], x = p[0] - c[0], y = p[1] - c[1];

		p[0] = c[0] + cs * x - sn * y;
		p[1] = c[1] + sn * x + cs * y;
	}
	return 0;
}

/* A scripted cup one frame ahead (formats/shell.md): P at --center and
 * --angle, P_prev (f64) at --prev-center and --prev-angle. */
static int
make_cup(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	prim_mesh m, m0;
	slc_rec r;
	double *pp;
	int rc;

	if (cup_at(s, s->p[PP_CENTER].v, V(s, PP_ANGLE), &m, err))
		return -1;
	if (!s->p[PP_PREV_CENTER].n)
		return emit_mesh(s, &m, 0, "cup", emit, arg, err);
	if (cup_at(s, s->p[PP_PREV_CENTER].v, V(s, PP_PREV_ANGLE), &m0, err)) {
		prim_mesh_free(&m);
		return -1;
	}
	rc = prim_mesh_rec(&m, s->name ? s->name : "cup", V(s, PP_TIME),
			   s->p[PP_VELOCITY].n ? s->p[PP_VELOCITY].v : NULL, &r, err);
	if (!rc) {
		if ((pp = slc_rec_add(&r, "P_prev", SLC_F64, 3, SLC_POINT, m0.nv, err)))
			memcpy(pp, m0.P, 3 * m0.nv * sizeof *pp);
		else {
			slc_rec_free(&r);
			rc = -1;
		}
	}
	rc = prim_emit_rec(&r, rc, emit, arg, err);
	prim_mesh_free(&m);
	prim_mesh_free(&m0);
	return rc;
}

static int
check_paddle(prim_spec *s, slc_err *err)
{
	const double *radii = s->p[PP_RADII].v, *size = s->p[PP_SIZE].v;
	double blades = V(s, PP_BLADES);

	if (prim_spec_want(s, PP_SIZE, "size", 2, err))
		return -1;
	if (s->p[PP_VELOCITY].n && s->p[PP_RATE].n)
		return slc_fail(err, "--velocity and --rate: give one (rate writes the velocity)");
	if (blades < 1 || blades > PRIM_BLADES_MAX)
		return slc_fail(err, "--blades: %g, expected 1..%d", blades, PRIM_BLADES_MAX);
	if (radii[1] >= radii[0] || size[0] / 2 >= radii[1] ||
	    asin(size[0] / 2 / radii[1]) >= M_PI / blades)
		return slc_fail(err, "--radii %g,%g, --size %g, --blades %g: expected R > HUB, "
				"blades thinner than the hub and not overlapping on it",
				radii[0], radii[1], size[0], blades);
	return prim_spec_res(s, 0, 3, err);
}

/* The paddle wheel at --time: turned by angle + rate * time about its
 * axis, with the velocity of that rotation when --rate is given. */
static int
make_paddle(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *radii = s->p[PP_RADII].v, *size = s->p[PP_SIZE].v;
	double deg = M_PI / 180, rate = s->p[PP_RATE].n ? V(s, PP_RATE) : 0;
	double turn = (V(s, PP_ANGLE) + rate * V(s, PP_TIME)) * deg;
	double *v;
	prim_mesh m;
	slc_rec r;
	int rc;

	if (prim_paddle(&m, (int)V(s, PP_BLADES), radii[0], radii[1], size[0], size[1],
			RES(s, 0), s->axis, turn, s->p[PP_CENTER].v, err))
		return -1;
	if (!s->p[PP_RATE].n)
		return emit_mesh(s, &m, 0, "paddle", emit, arg, err);
	v = slc_malloc(m.nv, 3 * sizeof *v, err);
	if (!v) {
		prim_mesh_free(&m);
		return -1;
	}
	prim_mesh_spin(&m, s->axis, rate * deg, s->p[PP_CENTER].v, v);
	rc = prim_mesh_rec_v(&m, s->name ? s->name : "paddle", V(s, PP_TIME), v, &r, err);
	rc = prim_emit_rec(&r, rc, emit, arg, err);
	free(v);
	prim_mesh_free(&m);
	return rc;
}

static int
check_cloth(prim_spec *s, slc_err *err)
{
	if (prim_spec_want(s, PP_SIZE, "size", 2, err) ||
	    prim_spec_want(s, PP_RES, "res", 2, err) || prim_spec_res(s, 0, 1, err) ||
	    prim_spec_res(s, 1, 1, err))
		return -1;
	if (V(s, PP_SEED) < 0 || V(s, PP_COUNT) > 1e7)
		return slc_fail(err, "--seed %g, --count %g: expected a seed >= 0 and at most "
				"1e7 sheets", V(s, PP_SEED), V(s, PP_COUNT));
	return 0;
}

static int
make_cloth(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *size = s->p[PP_SIZE].v, *c = s->p[PP_CENTER].v;
	prim_cloth cl;
	slc_rec r;
	int rc;

	if (prim_cloth_make(&cl, size[0], size[1], RES(s, 0), RES(s, 1), c,
			    V(s, PP_DENSITY), s->pin, err))
		return -1;
	rc = V(s, PP_COUNT) > 1 &&
	     prim_cloth_scatter(&cl, (size_t)V(s, PP_COUNT), s->p[PP_BOX].v, c,
				(uint64_t)V(s, PP_SEED), err);
	if (!rc)
		rc = prim_emit_rec(&r, prim_cloth_rec(&cl, s->name ? s->name : "cloth",
						      V(s, PP_TIME), s->p[PP_VELOCITY].v,
						      &r, err),
				   emit, arg, err);
	prim_cloth_free(&cl);
	return rc ? -1 : 0;
}

static int
check_curtain(prim_spec *s, slc_err *err)
{
	if (prim_spec_want(s, PP_SIZE, "size", 2, err) ||
	    prim_spec_want(s, PP_RES, "res", 2, err) || prim_spec_res(s, 0, 1, err) ||
	    prim_spec_res(s, 1, 1, err))
		return -1;
	return 0;
}

static int
make_curtain(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *size = s->p[PP_SIZE].v;
	prim_cloth cl;
	slc_rec r;
	int rc;

	if (prim_curtain_make(&cl, size[0], size[1], RES(s, 0), RES(s, 1),
			      s->p[PP_CENTER].v, V(s, PP_DENSITY), s->pin, err))
		return -1;
	rc = prim_emit_rec(&r, prim_cloth_rec(&cl, s->name ? s->name : "cloth",
					      V(s, PP_TIME), s->p[PP_VELOCITY].v, &r, err),
			   emit, arg, err);
	prim_cloth_free(&cl);
	return rc;
}

/* The fraction of the rim's extents a basin's bottom has when --bottom
 * is not given: walls flaring outwards like a wash basin's. */
#define BASIN_BOTTOM_FRAC 0.8

/* hull and basin: --size W,H,D the rim's extents and the height, --bottom
 * W,D (the rim's for a hull, BASIN_BOTTOM_FRAC of it for a basin); one
 * --res N is N segments along the longest of W, H, D, the others about
 * as long. */
static int
check_tub(prim_spec *s, double frac, slc_err *err)
{
	prim_list *res = &s->p[PP_RES], *bot = &s->p[PP_BOTTOM];
	const double *size = s->p[PP_SIZE].v;

	if (prim_spec_want(s, PP_SIZE, "size", 3, err))
		return -1;
	if (bot->n == 0) {
		bot->n = 2;
		bot->v[0] = frac * size[0];
		bot->v[1] = frac * size[2];
	} else if (bot->n != 2) {
		return slc_fail(err, "--bottom: %d value%s, expected W,D", bot->n,
				bot->n > 1 ? "s" : "");
	}
	if (res->n == 1) {
		double h = fmax(size[0], fmax(size[1], size[2])) / res->v[0];

		for (int a = 0; a < 3; a++)
			res->v[a] = fmax(1, ceil(size[a] / h - 1e-9));
		res->n = 3;
	}
	if (prim_spec_want(s, PP_RES, "res", 3, err) || prim_spec_res(s, 0, 1, err) ||
	    prim_spec_res(s, 1, 1, err) || prim_spec_res(s, 2, 1, err))
		return -1;
	return 0;
}

static int
make_tub(const prim_spec *s, prim_mesh *m, slc_err *err)
{
	const double *size = s->p[PP_SIZE].v;
	int n[3] = { RES(s, 0), RES(s, 1), RES(s, 2) };

	return prim_tub(m, (double[2]){ size[0], size[2] }, s->p[PP_BOTTOM].v, size[1], n,
			s->p[PP_CENTER].v, err);
}

static int
check_hull(prim_spec *s, slc_err *err)
{
	if (s->motion == 2)
		return slc_fail(err, "--motion thrown: a hull is dynamic or scripted");
	if (s->motion < 0 && (s->p[PP_SPIN].n || s->p[PP_STOP].n))
		return slc_fail(err, "--spin, --stop: only with --motion (a rigid hull)");
	if (s->p[PP_STOP].n && s->motion != 1)
		return slc_fail(err, "--stop: only a scripted hull comes to rest");
	return check_tub(s, 1, err);
}

/* The hull: a mesh record, or with --motion the rigid body of the shell
 * (prim_shell_body_recs) and its mesh. */
static int
make_hull(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	const double *v = s->p[PP_VELOCITY].v, *w = s->p[PP_SPIN].v;
	prim_shell_body b = { V(s, PP_DENSITY), { 0, 0, 0 }, { 0, 0, 0 }, s->motion == 1,
			      { 0, 0, 0 }, s->p[PP_STOP].n ? V(s, PP_STOP) : INFINITY };
	prim_mesh m;
	slc_rec r[2];
	int rc;

	if (s->motion < 0)
		return emit_mesh(s, &m, make_tub(s, &m, err), "hull", emit, arg, err);
	for (int a = 0; a < 3; a++) {
		b.v[a] = s->p[PP_VELOCITY].n ? v[a] : 0;
		b.omega[a] = s->p[PP_SPIN].n ? w[a] : 0;
	}
	if (make_tub(s, &m, err))
		return -1;
	rc = prim_shell_body_recs(&m, s->name ? s->name : "hull", &b, V(s, PP_TIME), r, err);
	prim_mesh_free(&m);
	if (rc)
		return -1;
	rc = prim_emit_rec(&r[0], 0, emit, arg, err);
	if (rc)
		slc_rec_free(&r[1]);
	else
		rc = prim_emit_rec(&r[1], 0, emit, arg, err);
	return rc;
}

static int
check_basin(prim_spec *s, slc_err *err)
{
	return check_tub(s, BASIN_BOTTOM_FRAC, err);
}

static int
make_basin(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	prim_mesh m;

	return emit_mesh(s, &m, make_tub(s, &m, err), "basin", emit, arg, err);
}

/* The hair of the checked values (prim_hair_spec). */
static void
hair_spec(const prim_spec *s, prim_hair_spec *sp)
{
	prim_hair_spec_default(sp);
	sp->nstrands = (size_t)V(s, PP_STRANDS);
	sp->nseg = (int)fmin(V(s, PP_SEGMENTS), INT32_MAX);
	sp->length = V(s, PP_LENGTH);
	sp->jitter = V(s, PP_JITTER);
	sp->radius = V(s, PP_RADIUS);
	memcpy(sp->c, s->p[PP_CENTER].v, sizeof sp->c);
	sp->cap_deg = V(s, PP_CAP);
	if (s->p[PP_CURL].n) {
		sp->curl_r = s->p[PP_CURL].v[0];
		sp->curl_pitch = s->p[PP_CURL].v[1];
	}
	sp->seed = (uint64_t)V(s, PP_SEED);
}

static int
check_hair(prim_spec *s, slc_err *err)
{
	if (V(s, PP_SEED) < 0 || V(s, PP_STRANDS) > 1e7)
		return slc_fail(err, "--seed %g, --strands %g: expected a seed >= 0 and at "
				"most 1e7 strands", V(s, PP_SEED), V(s, PP_STRANDS));
	if (V(s, PP_CAP) > 180)
		return slc_fail(err, "--cap: %g, expected 0 < DEG <= 180", V(s, PP_CAP));
	if (!(V(s, PP_JITTER) >= 0 && V(s, PP_JITTER) < 1))
		return slc_fail(err, "--length-jitter: %g, expected 0 <= F < 1",
				V(s, PP_JITTER));
	return 0;
}

static int
make_hair(const prim_spec *s, prim_emit emit, void *arg, slc_err *err)
{
	prim_hair_spec sp;
	prim_hair h;
	slc_rec r;
	int rc;

	hair_spec(s, &sp);
	if (prim_hair_make(&h, &sp, err))
		return -1;
	rc = prim_hair_rec(&h, s->name ? s->name : "hair", V(s, PP_TIME),
			   s->p[PP_VELOCITY].v, &r, err);
	rc = prim_emit_rec(&r, rc, emit, arg, err);
	prim_hair_free(&h);
	return rc;
}

/* The defaults name every parameter that applies to a shape. */
#define MESH_OPT " velocity= name= time="
static const prim_shape shapes[] = {
	{ "sphere", "subdiv=3 radius=0.5 center=0,0,0", MESH_OPT, check_sphere,
	  make_sphere },
	{ "box", "size=1 res=1 center=0,0,0", MESH_OPT, check_box, make_box },
	{ "torus", "radii=0.5,0.2 res=48 center=0,0,0", MESH_OPT, check_torus, make_torus },
	{ "cup", "radii=0.4,0.3 height=0.5 res=32 center=0,0,0 angle=0 prev-angle=0",
	  MESH_OPT " prev-center=", check_cup,
	  make_cup },
	{ "paddle", "blades=4 radii=0.4,0.08 size=0.06,0.5 res=32 axis=z angle=0 center=0,0,0",
	  MESH_OPT " rate=", check_paddle, make_paddle },
	{ "cloth", "size=1 res=32 density=0.1 pin=none center=0,0,0 velocity=0,0,0 "
	  "count=1 seed=1 box=1,1,1", MESH_OPT, check_cloth, make_cloth },
	{ "curtain", "size=1 res=32 density=0.1 pin=edge center=0,1,0 velocity=0,0,0",
	  MESH_OPT, check_curtain, make_curtain },
	{ "hull", "size=0.3,0.15,0.3 res=16 density=10 center=0,0,0", MESH_OPT
	  " bottom= motion= spin= stop=", check_hull, make_hull },
	{ "basin", "size=0.6,0.25,0.6 res=24 center=0,0,0", MESH_OPT " bottom=", check_basin,
	  make_basin },
	{ "hair", "strands=200 segments=16 length=0.3 length-jitter=0 cap=75 seed=1 "
	  "radius=0.1 center=0,0,0 velocity=0,0,0", MESH_OPT " curl=", check_hair,
	  make_hair },
};

const prim_shape *
prim_shape_find(const char *name)
{
	size_t q;

	for (q = 0; q < sizeof shapes / sizeof *shapes; q++)
		if (!strcmp(shapes[q].name, name))
			return &shapes[q];
	for (q = 0; q < prim_grid_nshapes; q++)
		if (!strcmp(prim_grid_shapes[q].name, name))
			return &prim_grid_shapes[q];
	return NULL;
}

/* The value text of param in a list of "name=value" words, or NULL. */
static const char *
word(const char *list, const char *param)
{
	size_t l = strlen(param);
	const char *p;

	for (p = list; (p = strstr(p, param)); p++)
		if ((p == list || p[-1] == ' ') && p[l] == '=')
			return p + l + 1;
	return NULL;
}

const char *
prim_shape_param(const prim_shape *sh, const char *param, int *takes)
{
	const char *d = word(sh->defaults, param);

	*takes = d || word(sh->optional, param);
	return d;
}
