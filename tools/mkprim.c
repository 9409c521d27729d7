/* mkprim: procedural meshes and initial states (sphere, box, torus, cup,
 * cloth, hair, pool, smoke), so that every pipeline runs with no asset
 * from outside the repository.  Geometry lives in lib/prim*.c; this file
 * parses options, checks values and writes the records. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "../lib/meta.h"
#include "../lib/prim.h"

/* A list of 1..3 numbers, "a" or "a,b" or "a,b,c"; n = 0 when not given. */
struct list { int n; double v[3]; };

/* Unset options hold LONG_MIN, NaN, -1, NULL or n = 0; the shape's
 * defaults (the table at the end) fill them in after parsing. */
static long subdiv = LONG_MIN, strands = LONG_MIN, segments = LONG_MIN,
	    seed = LONG_MIN;
static double radius = NAN, height = NAN, density = NAN, length = NAN,
	      depth = NAN, drop_radius = NAN, dx = NAN, src_density = NAN,
	      temperature = NAN, dt = NAN, fps = NAN, rtime = 0;
static double center[3] = { NAN }, velocity[3] = { NAN }, drop_center[3] = { NAN },
	      box[3] = { NAN }, origin[3] = { NAN }, gravity[3] = { NAN };
static struct list size, radii, res;
static int pin = -1, source = -1;
static const char *name;
static const char *const pin_modes[] = { "none", "corners", "edge", NULL };
static const char *const source_shapes[] = { "sphere", "box", NULL };

static int
parse_list(const char *arg, void *dst)
{
	struct list *l = dst;
	char *end;

	for (l->n = 0; l->n < 3; arg = end + 1) {
		l->v[l->n++] = strtod(arg, &end);
		if (end == arg || !isfinite(l->v[l->n - 1]) || (*end && *end != ','))
			return -1;
		if (!*end)
			return 0;
	}
	return -1;
}

static const struct tool_opt opts[] = {
	{ "subdiv", 0, OPT_INT, &subdiv, "N", "sphere: icosphere subdivisions, 0..9 (3)", 0, 0 },
	{ "radius", 0, OPT_DOUBLE, &radius, "R", "radius: sphere (0.5), hair scalp (0.1), smoke source (0.12)", 0, 0 },
	{ "center", 0, OPT_VEC3, center, "X,Y,Z", "centre; of the cup's bottom (0,0,0; smoke source 0.5,0.25,0.5)", 0, 0 },
	{ "size", 0, OPT_FUNC, &size, "X,Y,Z", "box edges (1,1,1); cloth W,D (1,1); smoke box source (0.3,0.1,0.3)", 0, parse_list },
	{ "radii", 0, OPT_FUNC, &radii, "A,B", "torus R,r (0.5,0.2); cup TOP,BOTTOM (0.4,0.3)", 0, parse_list },
	{ "res", 0, OPT_FUNC, &res, "N[,M[,K]]", "segments: box X[,Y,Z] (1), torus (48), cup (32), cloth NX[,NZ] (32);\n"
	  "                            grid cells along the longest side of the box (32)", 0, parse_list },
	{ "height", 0, OPT_DOUBLE, &height, "H", "cup height (0.5)", 0, 0 },
	{ "velocity", 0, OPT_VEC3, velocity, "X,Y,Z", "adds channel v to a mesh; cloth and hair velocity (0,0,0)", 0, 0 },
	{ "density", 0, OPT_DOUBLE, &density, "KG", "cloth areal density, kg/m^2 (0.1)", 0, 0 },
	{ "pin", 0, OPT_CHOICE, &pin, "MODE", "cloth: pin the corners or the whole edge at minimum z (none)", pin_modes, 0 },
	{ "strands", 0, OPT_INT, &strands, "N", "hair: number of strands (200)", 0, 0 },
	{ "segments", 0, OPT_INT, &segments, "M", "hair: segments per strand (16)", 0, 0 },
	{ "length", 0, OPT_DOUBLE, &length, "L", "hair: strand length (0.3)", 0, 0 },
	{ "seed", 0, OPT_INT, &seed, "S", "hair: seed of the root placement, >= 0 (1)", 0, 0 },
	{ "box", 0, OPT_VEC3, box, "X,Y,Z", "pool, smoke: domain size (1,1,1; smoke 1,2,1)", 0, 0 },
	{ "origin", 0, OPT_VEC3, origin, "X,Y,Z", "pool, smoke: minimum corner of the domain (0,0,0)", 0, 0 },
	{ "dx", 0, OPT_DOUBLE, &dx, "H", "pool, smoke: cell size (default box/res)", 0, 0 },
	{ "depth", 0, OPT_DOUBLE, &depth, "D", "pool: water depth above the domain floor (0.3)", 0, 0 },
	{ "drop-center", 0, OPT_VEC3, drop_center, "X,Y,Z", "pool: drop centre (0.5,0.65,0.5)", 0, 0 },
	{ "drop-radius", 0, OPT_DOUBLE, &drop_radius, "R", "pool: drop radius (0.15)", 0, 0 },
	{ "source", 0, OPT_CHOICE, &source, "SHAPE", "smoke: source region (sphere)", source_shapes, 0 },
	{ "source-density", 0, OPT_DOUBLE, &src_density, "D", "smoke: density inside the source (1)", 0, 0 },
	{ "temperature", 0, OPT_DOUBLE, &temperature, "T", "smoke: temperature above ambient in the source, K (1)", 0, 0 },
	{ "dt", 0, OPT_DOUBLE, &dt, "S", "pool, smoke: frame time step in the scene record (1/fps)", 0, 0 },
	{ "fps", 0, OPT_DOUBLE, &fps, "F", "pool, smoke: frames per second (24)", 0, 0 },
	{ "gravity", 0, OPT_VEC3, gravity, "X,Y,Z", "pool, smoke: gravity, m/s^2 (0,-9.81,0)", 0, 0 },
	{ "name", 0, OPT_STRING, &name, "NAME", "mesh, cloth or hair record name (the shape's name)", 0, 0 },
	{ "time", 0, OPT_DOUBLE, &rtime, "T", "time of the records, s (0)", 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"mkprim", "Write a procedural shape or initial state as a sluice stream.",
	"SHAPE",
	"SHAPE is one of sphere, box, torus, cup, cloth, hair (a mesh or strands record),\n"
	"pool or smoke (grids: scene, u, v, w and phi, or density, temperature and source).\n"
	"An option that does not apply to SHAPE is a usage error.  y is up, units SI.",
	opts
};

static tool_out *out;
static slc_err err;

static int
given(const struct tool_opt *o)
{
	switch (o->type) {
	case OPT_INT: return *(long *)o->dst != LONG_MIN;
	case OPT_DOUBLE: case OPT_VEC3: return !isnan(*(double *)o->dst);
	case OPT_STRING: return *(const char **)o->dst != NULL;
	case OPT_CHOICE: return *(int *)o->dst >= 0;
	default: return ((struct list *)o->dst)->n > 0;
	}
}

/* Set an option from a default in the shape table (known good text). */
static void
set_default(const struct tool_opt *o, const char *v)
{
	struct list l;
	int c;

	switch (o->type) {
	case OPT_INT: *(long *)o->dst = strtol(v, NULL, 10); break;
	case OPT_DOUBLE: *(double *)o->dst = strtod(v, NULL); break;
	case OPT_VEC3:
		parse_list(v, &l);
		memcpy(o->dst, l.v, sizeof l.v);
		break;
	case OPT_CHOICE:
		for (c = 0; strncmp(o->choices[c], v, strcspn(v, " ")); c++)
			;
		*(int *)o->dst = c;
		break;
	default: parse_list(v, o->dst);
	}
}

/* Usage error unless every number of option o is > 0. */
static void
check_positive(const struct tool_opt *o)
{
	const double *d = o->dst;
	int n = 1, a;

	if (o->type == OPT_INT && *(long *)o->dst < 1)
		usage_die("--%s: %ld, expected > 0", o->lng, *(long *)o->dst);
	if (o->type == OPT_INT)
		return;
	if (o->type == OPT_VEC3)
		n = 3;
	if (o->type == OPT_FUNC) {
		n = ((const struct list *)o->dst)->n;
		d = ((const struct list *)o->dst)->v;
	}
	for (a = 0; a < n; a++)
		if (!(d[a] > 0))
			usage_die("--%s: %g, expected > 0", o->lng, d[a]);
}

/* The numbers of a list option: one value stands for all `want`. */
static void
want(struct list *l, const char *opt, int n)
{
	int a;

	if (l->n != 1 && l->n != n)
		usage_die("--%s: %d values, expected 1 or %d", opt, l->n, n);
	for (a = l->n; a < 3; a++)
		l->v[a] = l->v[0];
}

/* Segment count a of --res: a whole number in lo..PRIM_RES_MAX. */
static int
ires(int a, int lo)
{
	if (res.v[a] != floor(res.v[a]) || res.v[a] < lo || res.v[a] > PRIM_RES_MAX)
		usage_die("--res: %g, expected a whole number in %d..%d", res.v[a],
			  lo, PRIM_RES_MAX);
	return (int)res.v[a];
}

static void
put(slc_rec *r, int rc)
{
	if (rc)
		die("%s", err.msg);
	check_finite(r, -1);
	out_write(out, r);
	slc_rec_free(r);
}

static void
put_mesh(prim_mesh *m, int rc, const char *dname)
{
	slc_rec r;

	if (rc)
		die("%s", err.msg);
	put(&r, prim_mesh_rec(m, name ? name : dname, rtime,
			      isnan(velocity[0]) ? NULL : velocity, &r, &err));
	prim_mesh_free(m);
}

static void
mk_sphere(void)
{
	prim_mesh m;

	if (subdiv < 0 || subdiv > PRIM_SUBDIV_MAX)
		usage_die("--subdiv: %ld, expected 0..%d", subdiv, PRIM_SUBDIV_MAX);
	put_mesh(&m, prim_icosphere(&m, (int)subdiv, radius, center, &err), "sphere");
}

static void
mk_box(void)
{
	prim_mesh m;

	want(&size, "size", 3);
	want(&res, "res", 3);
	put_mesh(&m, prim_box(&m, size.v, (int[3]){ ires(0, 1), ires(1, 1), ires(2, 1) },
			      center, &err), "box");
}

static void
mk_torus(void)
{
	prim_mesh m;

	if (radii.n != 2 || radii.v[1] >= radii.v[0])
		usage_die("--radii: torus needs R,r with R > r");
	if (res.n == 1)   /* about equal spacing around and along the tube */
		res.v[res.n++] = fmax(3, round(res.v[0] * radii.v[1] / radii.v[0]));
	want(&res, "res", 2);
	put_mesh(&m, prim_torus(&m, radii.v[0], radii.v[1], ires(0, 3), ires(1, 3),
				center, &err), "torus");
}

static void
mk_cup(void)
{
	prim_mesh m;

	if (radii.n != 2)
		usage_die("--radii: cup needs TOP,BOTTOM");
	if (res.n == 1) {   /* wall segments about as long as those around */
		double wall = hypot(height, radii.v[0] - radii.v[1]);

		res.v[res.n++] = fmax(1, ceil(wall * res.v[0] / (2 * M_PI * radii.v[0])));
	}
	want(&res, "res", 2);
	put_mesh(&m, prim_cup(&m, radii.v[0], radii.v[1], height, ires(0, 3),
			      ires(1, 1), center, &err), "cup");
}

static void
mk_cloth(void)
{
	prim_cloth cl;
	slc_rec r;

	want(&size, "size", 2);
	want(&res, "res", 2);
	if (prim_cloth_make(&cl, size.v[0], size.v[1], ires(0, 1), ires(1, 1), center,
			    density, pin, &err))
		die("%s", err.msg);
	put(&r, prim_cloth_rec(&cl, name ? name : "cloth", rtime, velocity, &r, &err));
	prim_cloth_free(&cl);
}

static void
mk_hair(void)
{
	prim_hair h;
	slc_rec r;

	if (seed < 0)
		usage_die("--seed: %ld, expected >= 0", seed);
	if (prim_hair_make(&h, (size_t)strands, (int)segments, length, radius,
			   center, (uint64_t)seed, &err))
		die("%s", err.msg);
	put(&r, prim_hair_rec(&h, name ? name : "hair", rtime, velocity, &r, &err));
	prim_hair_free(&h);
}

/* Place the domain grid (a cell field in *cell), write the scene record
 * and the zero MAC velocity u, v, w. */
static void
grid_begin(field *cell)
{
	slc_rec r;
	int n[3], a;

	want(&res, "res", 1);
	if (isnan(dt))
		dt = 1 / fps;
	if (prim_grid_place(box, isnan(dx) ? ires(0, 1) : 0, isnan(dx) ? 0 : dx,
			    n, &dx, &err))
		usage_die("%s", err.msg);
	put(&r, prim_scene_rec(&r, rtime, dt, gravity, fps, &err));
	for (a = 0; a < 3; a++)
		put(&r, prim_face_rec(&r, a, n, origin, dx, rtime, &err));
	if (field_alloc(cell, n[0], n[1], n[2], SLC_CELL, origin, dx, &err))
		die("%s", err.msg);
}

static void
put_field(field *f, const char *fname)
{
	slc_rec r;

	put(&r, field_to_rec(f, &r, fname, rtime, &err));
	field_free(f);
}

static void
mk_pool(void)
{
	field phi;

	if (!(depth >= 0))
		usage_die("--depth: %g, expected >= 0", depth);
	grid_begin(&phi);
	prim_pool_fill(&phi, origin[1] + depth, drop_center, drop_radius);
	put_field(&phi, "phi");
}

static void
mk_smoke(void)
{
	field src, den, tem;

	want(&size, "size", 3);
	grid_begin(&src);
	if (field_alloc_like(&den, &src, &err) || field_alloc_like(&tem, &src, &err))
		die("%s", err.msg);
	prim_smoke_fill(&src, &den, &tem, source, center, radius,
			(double[3]){ size.v[0] / 2, size.v[1] / 2, size.v[2] / 2 },
			src_density, temperature);
	put_field(&den, "density");
	put_field(&tem, "temperature");
	put_field(&src, "source");
}

/* Each shape: its defaults (which name every option that applies), the
 * optional ones without a default, and the maker. */
#define MESH_OPT " velocity= name= time="
#define GRID_DEF " box=1,1,1 origin=0,0,0 res=32 fps=24 gravity=0,-9.81,0"
#define GRID_OPT " dx= dt= time="
static const struct shape {
	const char *name, *defaults, *optional;
	void (*make)(void);
} shapes[] = {
	{ "sphere", "subdiv=3 radius=0.5 center=0,0,0", MESH_OPT, mk_sphere },
	{ "box", "size=1 res=1 center=0,0,0", MESH_OPT, mk_box },
	{ "torus", "radii=0.5,0.2 res=48 center=0,0,0", MESH_OPT, mk_torus },
	{ "cup", "radii=0.4,0.3 height=0.5 res=32 center=0,0,0", MESH_OPT, mk_cup },
	{ "cloth", "size=1 res=32 density=0.1 pin=none center=0,0,0 velocity=0,0,0",
	  MESH_OPT, mk_cloth },
	{ "hair", "strands=200 segments=16 length=0.3 seed=1 radius=0.1 center=0,0,0 "
	  "velocity=0,0,0", MESH_OPT, mk_hair },
	{ "pool", "depth=0.3 drop-center=0.5,0.65,0.5 drop-radius=0.15" GRID_DEF,
	  GRID_OPT, mk_pool },
	{ "smoke", "source=sphere center=0.5,0.25,0.5 radius=0.12 size=0.3,0.1,0.3 "
	  "source-density=1 temperature=1" GRID_DEF " box=1,2,1", GRID_OPT, mk_smoke },
};

/* Options whose every number must be > 0 (after the defaults). */
static const char positive[] = " radius size radii res height density strands "
	"segments length box dx drop-radius dt fps ";

/* The value text of option lng in a list of "name=value" words, or NULL. */
static const char *
word(const char *list, const char *lng)
{
	size_t l = strlen(lng);
	const char *p;

	for (p = list; (p = strstr(p, lng)); p++)
		if ((p == list || p[-1] == ' ') && p[l] == '=')
			return p + l + 1;
	return NULL;
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo);
	const struct tool_opt *o;
	const struct shape *sh;
	char key[32];

	if (first == argc)
		usage_die("no SHAPE given");
	if (argc - first > 1)
		usage_die("one SHAPE only, got '%s' too", argv[first + 1]);
	for (sh = shapes; sh < shapes + sizeof shapes / sizeof *shapes; sh++)
		if (!strcmp(sh->name, argv[first]))
			break;
	if (sh == shapes + sizeof shapes / sizeof *shapes)
		usage_die("unknown shape '%s'", argv[first]);
	for (o = opts; o->lng; o++) {
		const char *d = word(sh->defaults, o->lng), *last = d;

		if (given(o) && !d && !word(sh->optional, o->lng))
			usage_die("--%s does not apply to %s", o->lng, sh->name);
		/* a default given twice (GRID_DEF then the shape's): the last */
		while (d && (d = word(d, o->lng)))
			last = d;
		if (last && !given(o))
			set_default(o, last);
		snprintf(key, sizeof key, " %s ", o->lng);
		if (strstr(positive, key) && given(o))
			check_positive(o);
	}
	out = out_open(argc, argv);
	sh->make();
	out_close(out);
	return 0;
}
