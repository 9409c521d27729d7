/* mkprim: procedural meshes and initial states (sphere, box, torus, cup,
 * paddle, cloth, hair, pool, smoke), so that every pipeline runs with no asset
 * from outside the repository.  Geometry lives in lib/prim*.c; this file
 * parses options, checks values and writes the records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "../lib/prim.h"
#include "../lib/prim_rigid.h"

/* Every numeric option is a list of 1..3 numbers, "a", "a,b" or "a,b,c";
 * n = 0 until it is given or set from the shape's defaults (shapes[]). */
struct list { int n; double v[3]; };
#define V(l) ((l).v[0])

static struct list subdiv, radius, center, size, radii, res, height, velocity,
	density, strands, segments, length, seed, box, count, origin, dx, depth,
	drop_center, drop_radius, src_density, temperature, dt, fps, gravity,
	rtime, spin, stop, blades, angle, rate;
static int pin = -1, source = -1, motion = -1, axis = -1;
static const char *name;
static const char *const pin_modes[] = { "none", "corners", "edge", NULL };
static const char *const source_shapes[] = { "sphere", "box", NULL };
static const char *const motions[] = { "dynamic", "scripted", "thrown", NULL };
static const char *const axes[] = { "x", "y", "z", NULL };

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

/* The metavariable says how many numbers an option takes ("X,Y,Z": three,
 * "N[,M]": one or two) and, when it starts with N, that they are whole. */
#define NUM(lng, var, arg, help) { lng, 0, OPT_FUNC, &var, arg, help, 0, parse_list }
static const struct tool_opt opts[] = {
	NUM("subdiv", subdiv, "N", "sphere: icosphere subdivisions, 0..9 (3)"),
	NUM("radius", radius, "R", "sphere (0.5), hair scalp (0.1), smoke source (0.12) radius"),
	NUM("center", center, "X,Y,Z", "centre; of the cup's bottom (0,0,0; smoke source 0.5,0.25,0.5)"),
	NUM("size", size, "X[,Y[,Z]]", "box edges (1); cloth W,D (1); smoke box source (0.3,0.1,0.3);\n"
	    "                            paddle blade thickness,length along the axis (0.06,0.5)"),
	NUM("radii", radii, "A,B", "torus R,r (0.5,0.2); cup TOP,BOTTOM (0.4,0.3); paddle R,HUB (0.4,0.08)"),
	NUM("res", res, "N[,M[,K]]", "segments: box X[,Y,Z] (1), torus (48), cup (32), paddle hub (32),\n"
	    "                            cloth NX[,NZ] (32); grids: cells along the box's longest side (32)"),
	NUM("blades", blades, "N", "paddle: number of blades, 1..64 (4)"),
	{ "axis", 0, OPT_CHOICE, &axis, "A", "paddle: axis through --center (z)", axes, 0 },
	NUM("angle", angle, "DEG", "paddle: turn about the axis at time 0, degrees (0)"),
	NUM("rate", rate, "DEG", "paddle: turning rate about the axis, degrees/s; adds channel v"),
	NUM("height", height, "H", "cup height (0.5)"),
	NUM("velocity", velocity, "X,Y,Z", "adds channel v to a mesh; cloth and hair velocity (0,0,0)"),
	NUM("density", density, "KG", "cloth areal density, kg/m^2 (0.1); ball density, kg/m^3 (500)"),
	{ "pin", 0, OPT_CHOICE, &pin, "MODE", "cloth: pin the corners or the whole edge at minimum z (none)",
	  pin_modes, 0 },
	NUM("strands", strands, "N", "hair: number of strands (200)"),
	NUM("segments", segments, "N", "hair: segments per strand (16)"),
	NUM("length", length, "L", "hair: strand length (0.3)"),
	NUM("count", count, "N", "cloth: sheets scattered in --box around --center, turned at random (1)"),
	NUM("seed", seed, "N", "hair: seed of the root placement; cloth: of the scatter; >= 0 (1)"),
	NUM("box", box, "X,Y,Z", "pool, smoke: domain size (1,1,1; smoke 1,2,1); cloth: scatter box (1,1,1)"),
	NUM("origin", origin, "X,Y,Z", "pool, smoke: minimum corner of the domain (0,0,0)"),
	NUM("dx", dx, "H", "pool, smoke: cell size (default box/res)"),
	NUM("depth", depth, "D", "pool: water depth above the domain floor, >= 0 (0.3)"),
	NUM("drop-center", drop_center, "X,Y,Z", "pool: drop centre (0.5,0.65,0.5)"),
	NUM("drop-radius", drop_radius, "R", "pool: drop radius (0.15)"),
	{ "source", 0, OPT_CHOICE, &source, "SHAPE", "smoke: source region (sphere)", source_shapes, 0 },
	NUM("source-density", src_density, "D", "smoke: density inside the source (1)"),
	NUM("temperature", temperature, "T", "smoke: temperature above ambient in the source, K (1)"),
	NUM("dt", dt, "S", "pool, smoke: frame time step in the scene record (1/fps)"),
	NUM("fps", fps, "F", "pool, smoke: frames per second (24)"),
	NUM("gravity", gravity, "X,Y,Z", "pool, smoke: gravity, m/s^2; ball: a thrown one's path (0,-9.81,0)"),
	{ "motion", 0, OPT_CHOICE, &motion, "M", "ball: dynamic (pushed by the liquid), scripted (constant\n"
	  "                            velocity), thrown (scripted, falling at --gravity) (dynamic)", motions, 0 },
	NUM("spin", spin, "X,Y,Z", "ball: angular velocity, rad/s (0,0,0)"),
	NUM("stop", stop, "T", "ball, scripted or thrown: time at which it comes to rest, s (never)"),
	{ "name", 0, OPT_STRING, &name, "NAME", "mesh, cloth or hair record name (the shape's name)", 0, 0 },
	NUM("time", rtime, "T", "time of the records, s (0)"),
	{ 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"mkprim", "Write a procedural shape or initial state as a sluice stream.",
	"SHAPE",
	"SHAPE is one of sphere, box, torus, cup, paddle, cloth, hair (a mesh or strands record),\n"
	"pool or smoke (grids: scene, u, v, w and phi, or density, temperature and source),\n"
	"ball (a rigid body: records rigid, rigid_phi0 and rigid_phi on the grid of --box,\n"
	"--res; slccat it after a pool on the same grid).\n"
	"An option that does not apply to SHAPE is a usage error.  y is up, units SI.",
	opts
};

static tool_out *out;
static slc_err err;

/* One value of a list option stands for all n. */
static void
want(struct list *l, const char *opt, int n)
{
	int a;

	if (l->n != 1 && l->n != n)
		usage_die("--%s: %d values, expected 1 or %d", opt, l->n, n);
	for (a = l->n; a < 3; a++)
		l->v[a] = l->v[0];
}

/* Segment count a of --res, checked against lo..PRIM_RES_MAX. */
static int
ires(int a, int lo)
{
	if (res.v[a] < lo || res.v[a] > PRIM_RES_MAX)
		usage_die("--res: %g, expected %d..%d", res.v[a], lo, PRIM_RES_MAX);
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
	put(&r, prim_mesh_rec(m, name ? name : dname, V(rtime),
			      velocity.n ? velocity.v : NULL, &r, &err));
	prim_mesh_free(m);
}

static void
mk_sphere(void)
{
	prim_mesh m;

	if (V(subdiv) < 0 || V(subdiv) > PRIM_SUBDIV_MAX)
		usage_die("--subdiv: %g, expected 0..%d", V(subdiv), PRIM_SUBDIV_MAX);
	put_mesh(&m, prim_icosphere(&m, (int)V(subdiv), V(radius), center.v, &err),
		 "sphere");
}

static void
mk_box(void)
{
	prim_mesh m;

	want(&size, "size", 3);
	want(&res, "res", 3);
	put_mesh(&m, prim_box(&m, size.v, (int[3]){ ires(0, 1), ires(1, 1), ires(2, 1) },
			      center.v, &err), "box");
}

static void
mk_torus(void)
{
	prim_mesh m;

	if (radii.v[1] >= radii.v[0])
		usage_die("--radii: %g,%g, expected R,r with R > r", radii.v[0], radii.v[1]);
	if (res.n == 1)   /* about equal spacing around and along the tube */
		res.v[res.n++] = fmax(3, round(res.v[0] * radii.v[1] / radii.v[0]));
	want(&res, "res", 2);
	put_mesh(&m, prim_torus(&m, radii.v[0], radii.v[1], ires(0, 3), ires(1, 3),
				center.v, &err), "torus");
}

static void
mk_cup(void)
{
	prim_mesh m;

	if (res.n == 1) {   /* wall segments about as long as those around */
		double wall = hypot(V(height), radii.v[0] - radii.v[1]);

		res.v[res.n++] = fmax(1, ceil(wall * res.v[0] / (2 * M_PI * radii.v[0])));
	}
	want(&res, "res", 2);
	put_mesh(&m, prim_cup(&m, radii.v[0], radii.v[1], V(height), ires(0, 3),
			      ires(1, 1), center.v, &err), "cup");
}

/* The paddle wheel at --time: turned by angle + rate * time about its
 * axis, with the velocity of that rotation when --rate is given. */
static void
mk_paddle(void)
{
	double deg = M_PI / 180, turn = (V(angle) + (rate.n ? V(rate) : 0) * V(rtime)) * deg;
	double *v;
	prim_mesh m;
	slc_rec r;

	want(&size, "size", 2);
	if (velocity.n && rate.n)
		usage_die("--velocity and --rate: give one (rate writes the velocity)");
	if (V(blades) < 1 || V(blades) > PRIM_BLADES_MAX)
		usage_die("--blades: %g, expected 1..%d", V(blades), PRIM_BLADES_MAX);
	if (radii.v[1] >= radii.v[0] || size.v[0] / 2 >= radii.v[1] ||
	    asin(size.v[0] / 2 / radii.v[1]) >= M_PI / V(blades))
		usage_die("--radii %g,%g, --size %g, --blades %g: expected R > HUB, blades "
			  "thinner than the hub and not overlapping on it", radii.v[0],
			  radii.v[1], size.v[0], V(blades));
	if (prim_paddle(&m, (int)V(blades), radii.v[0], radii.v[1], size.v[0], size.v[1],
			ires(0, 3), axis, turn, center.v, &err))
		die("%s", err.msg);
	if (!rate.n) {
		put_mesh(&m, 0, "paddle");
		return;
	}
	v = malloc(3 * m.nv * sizeof *v);
	if (!v)
		die("out of memory");
	prim_mesh_spin(&m, axis, V(rate) * deg, center.v, v);
	put(&r, prim_mesh_rec_v(&m, name ? name : "paddle", V(rtime), v, &r, &err));
	free(v);
	prim_mesh_free(&m);
}

static void
mk_cloth(void)
{
	prim_cloth cl;
	slc_rec r;

	want(&size, "size", 2);
	want(&res, "res", 2);
	if (prim_cloth_make(&cl, size.v[0], size.v[1], ires(0, 1), ires(1, 1),
			    center.v, V(density), pin, &err))
		die("%s", err.msg);
	if (V(seed) < 0 || V(count) > 1e7)
		usage_die("--seed %g, --count %g: expected a seed >= 0 and at most 1e7 sheets",
			  V(seed), V(count));
	if (V(count) > 1 && prim_cloth_scatter(&cl, (size_t)V(count), box.v, center.v,
					       (uint64_t)V(seed), &err))
		die("%s", err.msg);
	put(&r, prim_cloth_rec(&cl, name ? name : "cloth", V(rtime), velocity.v, &r, &err));
	prim_cloth_free(&cl);
}

static void
mk_hair(void)
{
	prim_hair h;
	slc_rec r;

	if (V(seed) < 0 || V(strands) > 1e7)
		usage_die("--seed %g, --strands %g: expected a seed >= 0 and at most 1e7 strands",
			  V(seed), V(strands));
	if (prim_hair_make(&h, (size_t)V(strands), (int)fmin(V(segments), INT32_MAX),
			   V(length), V(radius), center.v, (uint64_t)V(seed), &err))
		die("%s", err.msg);
	put(&r, prim_hair_rec(&h, name ? name : "hair", V(rtime), velocity.v, &r, &err));
	prim_hair_free(&h);
}

/* Place the domain grid (a zero cell field in *cell), write the scene
 * record and the zero MAC velocity u, v, w. */
static void
grid_begin(field *cell)
{
	slc_rec r;
	int n[3], a;
	double h;

	if (prim_grid_place(box.v, dx.n ? 0 : ires(0, 1), dx.n ? V(dx) : 0, n, &h, &err))
		usage_die("%s", err.msg);
	put(&r, prim_scene_rec(&r, V(rtime), dt.n ? V(dt) : 1 / V(fps), gravity.v,
			       V(fps), &err));
	for (a = 0; a < 3; a++)
		put(&r, prim_face_rec(&r, a, n, origin.v, h, V(rtime), &err));
	if (field_alloc(cell, n[0], n[1], n[2], SLC_CELL, origin.v, h, &err))
		die("%s", err.msg);
}

static void
put_field(field *f, const char *fname)
{
	slc_rec r;

	put(&r, field_to_rec(f, &r, fname, V(rtime), &err));
	field_free(f);
}

static void
mk_pool(void)
{
	field phi;

	if (V(depth) < 0)
		usage_die("--depth: %g, expected >= 0", V(depth));
	grid_begin(&phi);
	prim_pool_fill(&phi, origin.v[1] + V(depth), drop_center.v, V(drop_radius));
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
	prim_smoke_fill(&src, &den, &tem, source, center.v, V(radius),
			(double[3]){ size.v[0] / 2, size.v[1] / 2, size.v[2] / 2 },
			V(src_density), V(temperature));
	put_field(&den, "density");
	put_field(&tem, "temperature");
	put_field(&src, "source");
}

static void
mk_ball(void)
{
	prim_ball b = { V(radius), { center.v[0], center.v[1], center.v[2] },
			{ velocity.v[0], velocity.v[1], velocity.v[2] },
			{ spin.v[0], spin.v[1], spin.v[2] }, V(density), motion > 0,
			{ 0, 0, 0 }, stop.n ? V(stop) : INFINITY };
	slc_rec r[3];
	int n[3], a;
	double h;
	field cells;

	if (stop.n && !motion)
		usage_die("--stop: only a scripted or thrown ball comes to rest");
	for (a = 0; a < 3 && motion == 2; a++)
		b.accel[a] = gravity.v[a];
	if (prim_grid_place(box.v, dx.n ? 0 : ires(0, 1), dx.n ? V(dx) : 0, n, &h, &err))
		usage_die("%s", err.msg);
	cells = (field){ n[0], n[1], n[2], SLC_CELL, { origin.v[0], origin.v[1], origin.v[2] },
			 h, NULL, 0 };
	if (prim_ball_recs(&b, &cells, V(rtime), r, &err))
		die("%s", err.msg);
	for (a = 0; a < 3; a++)
		put(&r[a], 0);
}

/* Each shape: its defaults (which name every option that applies), the
 * optional ones without a default, and the maker. */
#define MESH_OPT " velocity= name= time="
#define GRID_DEF " origin=0,0,0 res=32 fps=24 gravity=0,-9.81,0 time=0"
static const struct shape {
	const char *name, *defaults, *optional;
	void (*make)(void);
} shapes[] = {
	{ "sphere", "subdiv=3 radius=0.5 center=0,0,0", MESH_OPT, mk_sphere },
	{ "box", "size=1 res=1 center=0,0,0", MESH_OPT, mk_box },
	{ "torus", "radii=0.5,0.2 res=48 center=0,0,0", MESH_OPT, mk_torus },
	{ "cup", "radii=0.4,0.3 height=0.5 res=32 center=0,0,0", MESH_OPT, mk_cup },
	{ "paddle", "blades=4 radii=0.4,0.08 size=0.06,0.5 res=32 axis=z angle=0 center=0,0,0",
	  MESH_OPT " rate=", mk_paddle },
	{ "cloth", "size=1 res=32 density=0.1 pin=none center=0,0,0 velocity=0,0,0 "
	  "count=1 seed=1 box=1,1,1",
	  MESH_OPT, mk_cloth },
	{ "hair", "strands=200 segments=16 length=0.3 seed=1 radius=0.1 center=0,0,0 "
	  "velocity=0,0,0", MESH_OPT, mk_hair },
	{ "pool", "depth=0.3 drop-center=0.5,0.65,0.5 drop-radius=0.15 box=1,1,1" GRID_DEF,
	  " dx= dt=", mk_pool },
	{ "smoke", "source=sphere center=0.5,0.25,0.5 radius=0.12 size=0.3,0.1,0.3 "
	  "source-density=1 temperature=1 box=1,2,1" GRID_DEF, " dx= dt=", mk_smoke },
	{ "ball", "radius=0.15 center=0.5,0.5,0.5 velocity=0,0,0 spin=0,0,0 density=500 "
	  "motion=dynamic box=1,1,1 origin=0,0,0 res=32 gravity=0,-9.81,0 time=0", " dx= stop=",
	  mk_ball },
};

/* Options whose every number must be > 0. */
static const char positive[] = " radius size radii res height density strands count blades "
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

/* Check the count, wholeness and sign of the numbers of option o. */
static void
check(const struct tool_opt *o)
{
	const struct list *l = o->dst;
	int most = 1, a;
	char key[32];

	for (a = 0; o->arg[a]; a++)
		most += o->arg[a] == ',';
	if (l->n > most || (!strchr(o->arg, '[') && l->n != most))
		usage_die("--%s: %d value%s, expected %s", o->lng, l->n,
			  l->n > 1 ? "s" : "", o->arg);
	snprintf(key, sizeof key, " %s ", o->lng);
	for (a = 0; a < l->n; a++) {
		if (o->arg[0] == 'N' && l->v[a] != floor(l->v[a]))
			usage_die("--%s: %g is not a whole number", o->lng, l->v[a]);
		if (strstr(positive, key) && !(l->v[a] > 0))
			usage_die("--%s: %g, expected > 0", o->lng, l->v[a]);
	}
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), c;
	const struct tool_opt *o;
	const struct shape *sh;

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
		const char *d = word(sh->defaults, o->lng);
		int is_given = o->type == OPT_CHOICE ? *(int *)o->dst >= 0 :
			       o->type == OPT_STRING ? name != NULL :
			       ((struct list *)o->dst)->n > 0;

		if (is_given && !d && !word(sh->optional, o->lng))
			usage_die("--%s does not apply to %s", o->lng, sh->name);
		if (d && !is_given && o->type == OPT_CHOICE) {
			for (c = 0; strncmp(o->choices[c], d, strcspn(d, " ")); c++)
				;
			*(int *)o->dst = c;
		} else if (d && !is_given) {
			char v[64];

			snprintf(v, sizeof v, "%.*s", (int)strcspn(d, " "), d);
			parse_list(v, o->dst);
		}
		if (o->type == OPT_FUNC && ((struct list *)o->dst)->n > 0)
			check(o);
	}
	out = out_open(argc, argv);
	sh->make();
	out_close(out);
	return 0;
}
