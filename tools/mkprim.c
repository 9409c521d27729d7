/* mkprim: procedural meshes and initial states (sphere, box, torus, cup,
 * paddle, cloth, curtain, hull, basin, hair, pool, smoke), so that every pipeline runs with no asset
 * from outside the repository.  The shapes, their defaults and checks live
 * in lib/prim/prim_shape.c, the geometry in lib/prim*.c; this file parses the
 * options and writes the records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "prim/prim_shape.h"
#include "prim/prim_char.h"

/* Every numeric option fills one parameter of spec (lib/prim/prim_shape.h);
 * the choices are -1 until given or set from the shape's defaults. */
static prim_spec spec = { .pin = -1, .source = -1, .motion = -1, .axis = -1 };
static const char *const pin_modes[] = { "none", "corners", "edge", NULL };
static const char *const source_shapes[] = { "sphere", "box", NULL };
static const char *const motions[] = { "dynamic", "scripted", "thrown", NULL };
static const char *const axes[] = { "x", "y", "z", NULL };

static int parse_list(const char *arg, void *dst);

/* --- animated characters for kdsmbake: arm, ball --path (lib/prim/prim_char.c):
 * their own numbers in cspec, the shared ones in spec; chosen in main by
 * prim_char_find before the other shapes. */
static prim_char_spec cspec = { .path = -1 };
static const char *const char_paths[] = { "line", "circle", NULL };
#define CNUM(lng, k, arg, help) { lng, 0, OPT_FUNC, &cspec.p[k], arg, help, 0, parse_list, 0 }
#define CHAR_OPTS \
	{ "path", 0, OPT_CHOICE, &cspec.path, "P", "ball: an animated skinned ball (kdsmbake input) moving along\n" \
	  "                            a line at --velocity, or in a circle about --orbit at --rate", char_paths, 0, 0 }, \
	CNUM("frame", PC_FRAME, "N", "arm, head, ball --path: frame number, time N/--fps (0)"), \
	CNUM("bones", PC_BONES, "L1,L2", "arm: upper arm and forearm lengths (0.25,0.2); --radius 0.05, --res 16"), \
	CNUM("elbow", PC_ELBOW, "DEG,AMP", "arm: elbow angle DEG + AMP sin(2 pi t / --period), degrees (20,50)"), \
	CNUM("period", PC_PERIOD, "S", "arm: period of the elbow's swing, s (1)"), \
	CNUM("orbit", PC_ORBIT, "X,Y,Z", "ball --path circle: point on the vertical axis it turns about (0.3,0.5,0.5)"), \
	CNUM("turn", PC_TURN, "DEG,T0,T1", "head: turn DEG about +y from time T0 to T1, s, eased (60,0.25,1.25)"), \
	CNUM("nod", PC_NOD, "DEG,T0,T1", "head: nod down DEG about the neck and back from T0 to T1 (20,1.25,2)"),
/* --- end of the characters' block */

static int
parse_list(const char *arg, void *dst)
{
	prim_list *l = dst;
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
#define NUM(lng, k, arg, help) { lng, 0, OPT_FUNC, &spec.p[k], arg, help, 0, parse_list, 0 }
static const struct tool_opt opts[] = {
	NUM("subdiv", PP_SUBDIV, "N", "sphere: icosphere subdivisions, 0..9 (3)"),
	NUM("radius", PP_RADIUS, "R", "sphere (0.5), hair scalp (0.1), smoke source (0.12) radius"),
	NUM("center", PP_CENTER, "X,Y,Z", "centre; of the cup's, hull's, basin's bottom (0,0,0; smoke source\n"
    "                            0.5,0.25,0.5); of the curtain's top edge (0,1,0)"),
	NUM("size", PP_SIZE, "X[,Y[,Z]]", "box edges (1); cloth W,D, curtain W,H (1); smoke box source\n"
	    "                            (0.3,0.1,0.3); paddle blade thickness,length along the axis\n"
	    "                            (0.06,0.5); hull, basin rim W, height H, rim D (0.3,0.15,0.3;\n"
	    "                            0.6,0.25,0.6)"),
	NUM("bottom", PP_BOTTOM, "W,D", "hull, basin: bottom extents (the rim's; basin 0.8 of them)"),
	NUM("radii", PP_RADII, "A,B", "torus R,r (0.5,0.2); cup TOP,BOTTOM (0.4,0.3); paddle R,HUB (0.4,0.08)"),
	NUM("res", PP_RES, "N[,M[,K]]", "segments: box X[,Y,Z] (1), torus (48), cup (32), paddle hub (32),\n"
	    "                            cloth NX[,NZ], curtain NX[,NY] (32), hull, basin X,Y,Z or N along\n"
	    "                            the longest side (16, 24); grids: cells along the box's longest\n"
	    "                            side (32)"),
	NUM("blades", PP_BLADES, "N", "paddle: number of blades, 1..64 (4)"),
	{ "axis", 0, OPT_CHOICE, &spec.axis, "A", "paddle: axis through --center (z)", axes, 0, 0 },
	NUM("angle", PP_ANGLE, "DEG", "paddle: turn about the axis at time 0; cup: tipped about +z\n"
	    "                            through --center, degrees (0)"),
	NUM("prev-center", PP_PREV_CENTER, "X,Y,Z", "cup: --center one frame earlier: adds P_prev (a scripted shell)"),
	NUM("prev-angle", PP_PREV_ANGLE, "DEG", "cup: --angle one frame earlier (with --prev-center; 0)"),
	NUM("rate", PP_RATE, "DEG", "paddle: turning rate about the axis, degrees/s; adds channel v"),
	NUM("height", PP_HEIGHT, "H", "cup height (0.5)"),
	NUM("velocity", PP_VELOCITY, "X,Y,Z", "adds channel v to a mesh; cloth and hair velocity (0,0,0)"),
	NUM("density", PP_DENSITY, "KG", "cloth, curtain areal density, kg/m^2 (0.1); hull's, kg/m^2 (10);\n"
	    "                            ball density, kg/m^3 (500)"),
	{ "pin", 0, OPT_CHOICE, &spec.pin, "MODE", "cloth: pin the corners or the whole edge at minimum z (none);\n"
	  "                            curtain: the top corners or the top edge (edge)", pin_modes, 0, 0 },
	NUM("strands", PP_STRANDS, "N", "hair: number of strands (200)"),
	NUM("segments", PP_SEGMENTS, "N", "hair: segments per strand (16)"),
	NUM("length", PP_LENGTH, "L", "hair: strand length along the hair (0.3)"),
	NUM("length-jitter", PP_JITTER, "F", "hair: lengths uniform in L(1-F)..L(1+F), 0 <= F < 1 (0)"),
	NUM("curl", PP_CURL, "R,PITCH", "hair: helical strands of radius R rising PITCH a turn (straight)"),
	NUM("cap", PP_CAP, "DEG", "hair: roots within DEG of the scalp's top, 0 < DEG <= 180 (75)"),
	NUM("count", PP_COUNT, "N", "cloth: sheets scattered in --box around --center, turned at random (1)"),
	NUM("seed", PP_SEED, "N", "hair: seed of the root placement; cloth: of the scatter; >= 0 (1)"),
	NUM("box", PP_BOX, "X,Y,Z", "pool, smoke: domain size (1,1,1; smoke 1,2,1); cloth: scatter box (1,1,1)"),
	NUM("origin", PP_ORIGIN, "X,Y,Z", "pool, smoke: minimum corner of the domain (0,0,0)"),
	NUM("dx", PP_DX, "H", "pool, smoke: cell size (default box/res)"),
	NUM("depth", PP_DEPTH, "D", "pool: water depth above the domain floor, >= 0 (0.3)"),
	NUM("drop-center", PP_DROP_CENTER, "X,Y,Z", "pool: drop centre (0.5,0.65,0.5)"),
	NUM("drop-radius", PP_DROP_RADIUS, "R", "pool: drop radius (0.15)"),
	{ "source", 0, OPT_CHOICE, &spec.source, "SHAPE", "smoke: source region (sphere)", source_shapes, 0, 0 },
	NUM("source-density", PP_SRC_DENSITY, "D", "smoke: density inside the source (1)"),
	NUM("temperature", PP_TEMPERATURE, "T", "smoke: temperature above ambient in the source, K (1)"),
	NUM("dt", PP_DT, "S", "pool, smoke: frame time step in the scene record (1/fps)"),
	NUM("fps", PP_FPS, "F", "pool, smoke: frames per second (24)"),
	NUM("gravity", PP_GRAVITY, "X,Y,Z", "pool, smoke: gravity, m/s^2; ball: a thrown one's path (0,-9.81,0)"),
	{ "motion", 0, OPT_CHOICE, &spec.motion, "M", "ball: dynamic (pushed by the liquid), scripted (constant\n"
	  "                            velocity), thrown (scripted, falling at --gravity) (dynamic);\n"
	  "                            hull: dynamic or scripted writes a rigid body (none: a mesh)", motions, 0, 0 },
	NUM("spin", PP_SPIN, "X,Y,Z", "ball, rigid hull: angular velocity, rad/s (0,0,0)"),
	NUM("stop", PP_STOP, "T", "ball, scripted or thrown, hull, scripted: time at which it comes to rest, s (never)"),
	{ "name", 0, OPT_STRING, &spec.name, "NAME", "mesh, cloth or hair record name (the shape's name)", 0, 0, 0 },
	NUM("time", PP_TIME, "T", "time of the records, s (0)"),
	CHAR_OPTS
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"mkprim", "Write a procedural shape or initial state as a sluice stream.",
	"SHAPE",
	"SHAPE is one of sphere, box, torus, cup, paddle, cloth, curtain, hull, basin, hair (a mesh\n"
	"or strands record; curtain a hanging cloth, hull and basin open-top shells, a hull with\n"
	"--motion a rigid body made of its shell: records rigid and hull with body_P),\n"
	"pool or smoke (grids: scene, u, v, w and phi, or density, temperature and source),\n"
	"ball (a rigid body: records rigid, rigid_phi0 and rigid_phi on the grid of --box,\n"
	"--res; slccat it after a pool on the same grid); arm, head and ball --path are\n"
	"animated: a mesh at --frame with rest, v and bone weights, and a meta 'skeleton'.\n"
	"An option that does not apply to SHAPE is a usage error.  y is up, units SI.",
	opts
};

static tool_out *out;

/* Each record a shape builds goes out at once (grids one at a time, not
 * all held); NaN or Inf in it stops the run. */
static int
emit(slc_rec *r, void *arg, slc_err *err)
{
	(void)arg;
	(void)err;
	check_finite(r, -1);
	out_write(out, r);
	return 0;
}

/* Options whose every number must be > 0. */
static const char positive[] = " radius size radii res height density strands count blades bottom "
	"segments length box dx drop-radius dt fps curl cap ";

/* Check the count, wholeness and sign of the numbers of option o. */
static void
check(const struct tool_opt *o)
{
	const prim_list *l = o->dst;
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
	int first = tool_parse(argc, argv, &tinfo), c, takes;
	const struct tool_opt *o;
	const prim_shape *sh;
	const prim_char_shape *ch;
	slc_err err;

	if (first == argc)
		usage_die("no SHAPE given");
	if (argc - first > 1)
		usage_die("one SHAPE only, got '%s' too", argv[first + 1]);
	if ((ch = prim_char_find(argv[first], cspec.path >= 0)))
		sh = &ch->sh;
	else if (!(sh = prim_shape_find(argv[first])))
		usage_die("unknown shape '%s'", argv[first]);
	for (o = opts; o->lng; o++) {
		const char *d = prim_shape_param(sh, o->lng, &takes);
		int is_given = o->type == OPT_CHOICE ? *(int *)o->dst >= 0 :
			       o->type == OPT_STRING ? spec.name != NULL :
			       ((prim_list *)o->dst)->n > 0;

		if (is_given && !takes)
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
		if (o->type == OPT_FUNC && ((prim_list *)o->dst)->n > 0)
			check(o);
	}
	if (ch ? ch->check(&spec, &cspec, &err) : sh->check(&spec, &err))
		usage_die("%s", err.msg);
	out = out_open(argc, argv);
	if (ch ? ch->make(&spec, &cspec, emit, NULL, &err) : sh->make(&spec, emit, NULL, &err))
		die("%s", err.msg);
	out_close(out);
	return 0;
}
