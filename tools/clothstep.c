/* clothstep: advance cloth meshes one frame (selle2008 thesis ch. 5-6):
 * mass-spring cloth with altitude bending springs, Newmark time stepping
 * with implicit linear springs, level-set body collisions with friction,
 * wind drag.  Reads a frame, writes the next one; every other record is
 * passed on unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "core/meta.h"
#include "tool.h"

#define MAX_RECS 4096
#define TABLE61_MASS 1e-6       /* node mass when the record has none */

static const char *cname = "cloth", *solid_name = "solid";
static long steps = 8, loops = 8;
static double fps = 0, mass = TABLE61_MASS, mu = 0.3, ground = NAN;
static double sphere[3], sphere_r = 0, wind[3], grav[3] = {NAN, NAN, NAN};
static cloth_params par;
static int self_mode = 1;
static double thickness = 0;
static const char *const onoff[] = { "off", "on", NULL };
/* Default repulsion thickness: table 6.1's, but at most this fraction of
 * the mean rest edge (a thickness above the edge length would repel
 * neighbours within the sheet). */
#define THICK_EDGE_FRAC 0.25

static const struct tool_opt opts[] = {
	{ "cloth", 0, OPT_STRING, &cname, "NAME", "mesh record to advance (cloth)", 0, 0, 0 },
	{ "fps", 0, OPT_DOUBLE, &fps, "F", "frames per second (the scene's fps, else 24)", 0, 0, 0 },
	{ "steps", 0, OPT_INT, &steps, "N", "time steps per frame (8)", 0, 0, 0 },
	{ "gravity", 0, OPT_VEC3, grav, "X,Y,Z", "gravity, m/s^2 (the scene's, else 0,-9.8,0)", 0, 0, 0 },
	{ "stiffness", 0, OPT_DOUBLE, &par.spring.E_e, "K", "edge spring stiffness, N (4.14)", 0, 0, 0 },
	{ "damping", 0, OPT_DOUBLE, &par.spring.xi_e, "XI", "edge overdamping fraction (15)", 0, 0, 0 },
	{ "bend", 0, OPT_DOUBLE, &par.spring.E_b, "K", "bending stiffness, N (0.41)", 0, 0, 0 },
	{ "bend-damping", 0, OPT_DOUBLE, &par.spring.xi_b, "XI", "bending overdamping fraction (8)", 0, 0, 0 },
	{ "biphasic", 0, OPT_DOUBLE, &par.spring.compress_scale, "S", "edge stiffness factor under compression (1)", 0, 0, 0 },
	{ "mass", 0, OPT_DOUBLE, &mass, "KG", "node mass when the record has no 'mass' channel (1e-6)", 0, 0, 0 },
	{ "cg-tol", 0, OPT_DOUBLE, &par.cg_tol, "V", "CG tolerance on velocity, m/s (0.001)", 0, 0, 0 },
	{ "mu", 0, OPT_DOUBLE, &mu, "MU", "friction coefficient with bodies (0.3)", 0, 0, 0 },
	{ "solid", 0, OPT_STRING, &solid_name, "NAME", "grid level set of the bodies, with NAME_vel (solid)", 0, 0, 0 },
	{ "ground", 0, OPT_DOUBLE, &ground, "Y", "add a ground plane at height Y (none)", 0, 0, 0 },
	{ "sphere", 0, OPT_VEC3, sphere, "X,Y,Z", "add a still sphere body centred here (with --sphere-radius)", 0, 0, 0 },
	{ "sphere-radius", 0, OPT_DOUBLE, &sphere_r, "R", "radius of the --sphere body, m (none)", 0, 0, 0 },
	{ "self", 0, OPT_CHOICE, &self_mode, "on|off", "self-repulsions and self-collisions (on)", onoff, 0, 0 },
	{ "thickness", 0, OPT_DOUBLE, &thickness, "H", "repulsion thickness, m (0.01, at most a quarter of the mean edge)", 0, 0, 0 },
	{ "repulsion", 0, OPT_DOUBLE, &par.k_rep, "K", "repulsion spring stiffness (30)", 0, 0, 0 },
	{ "mu-self", 0, OPT_DOUBLE, &par.mu_self, "MU", "cloth-cloth friction (0.1)", 0, 0, 0 },
	{ "loops", 0, OPT_INT, &loops, "K", "time steps per collision step (8)", 0, 0, 0 },
	{ "wind", 0, OPT_VEC3, wind, "X,Y,Z", "wind velocity, m/s (0,0,0)", 0, 0, 0 },
	{ "drag", 0, OPT_DOUBLE, &par.wind_drag, "C", "drag along the normal, kg/(m^2 s) (0)", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"clothstep", "Advance cloth one frame: springs, Newmark steps, body collisions and friction.",
	"[FILE]",
	"The cloth is a mesh record with P and tri and optional v, rest, mass and pinned\n"
	"(u8, 1 = pinned) channels, plus goal (positions at the end of the frame of\n"
	"pinned points that are scripted to move).  Bodies: the grid level set --solid\n"
	"(the body at the record's time, moved by its velocity grid NAME_vel), and the\n"
	"analytic --ground and --sphere.",
	opts
};

static slc_rec recs[MAX_RECS];
static size_t nrec;

static slc_rec *
find(const char *name, uint32_t kind)
{
	for (size_t i = 0; i < nrec; i++)
		if (recs[i].kind == kind && !strcmp(recs[i].name, name))
			return recs + i;
	return NULL;
}

/* Body velocity fields from a cell-centred f32x3 grid record. */
static void
vel_fields(const slc_rec *r, field vb[3])
{
	slc_err err;
	int nc[3] = {r->grid.ni, r->grid.nj, r->grid.nk};
	const float *a = slc_rec_get(r, r->name, SLC_F32, 3, 0, &err);

	if (!a)
		die("record '%s': %s", r->name, err.msg);
	if (r->grid.stagger != SLC_CELL)
		die("record '%s': expected a cell-centred grid", r->name);
	for (int c = 0; c < 3; c++) {
		if (field_alloc(vb + c, nc[0], nc[1], nc[2], SLC_CELL,
				r->grid.origin, r->grid.dx, &err))
			die("record '%s': %s", r->name, err.msg);
		size_t n = field_count(vb + c);
		for (size_t i = 0; i < n; i++)
			vb[c].a[i] = a[3 * i + (size_t)c];
	}
}

int
main(int argc, char **argv)
{
	slc_err err;
	int first;

	cloth_params_default(&par);
	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("at most one input");
	if (steps < 1 || steps > 100000)
		usage_die("--steps: %ld is not in 1..100000", steps);
	if (loops < 1 || loops > 100000)
		usage_die("--loops: %ld is not in 1..100000", loops);
	if (thickness < 0 || par.k_rep < 0 || par.mu_self < 0)
		usage_die("negative --thickness, --repulsion or --mu-self");
	par.self = self_mode;
	par.loops = (int)loops;
	if (fps < 0 || mass <= 0 || mu < 0 || par.cg_tol <= 0 || sphere_r < 0 ||
	    par.spring.E_e < 0 || par.spring.E_b < 0 || par.wind_drag < 0 ||
	    par.spring.compress_scale < 0)
		usage_die("negative or zero value where a positive one is needed");
	memcpy(par.wind, wind, sizeof wind);

	tool_in *in = in_open(first < argc ? argv[first] : NULL);
	while (nrec < MAX_RECS && in_read(in, recs + nrec))
		nrec++;
	if (nrec == MAX_RECS)
		die("%s: more than %d records", in_label(in), MAX_RECS);

	slc_rec *cr = find(cname, SLC_MESH), *scene = find("scene", SLC_META);
	if (!cr)
		die("%s: no mesh record '%s'", in_label(in), cname);
	double frame = 0, t0 = cr->time, g;
	if (scene) {
		char buf[256];
		if (!fps && slc_meta_get_f64(scene, "fps", &g, &err) == 1)
			fps = g;
		if (slc_meta_get_f64(scene, "frame", &g, &err) == 1)
			frame = g;
		if (isnan(grav[0]) && slc_meta_get(scene, "gravity", buf, sizeof buf) &&
		    sscanf(buf, "%lf,%lf,%lf", grav, grav + 1, grav + 2) != 3)
			die("%s: scene: bad gravity '%s'", in_label(in), buf);
	}
	if (!(fps > 0))
		fps = 24;
	if (!isnan(grav[0]))
		memcpy(par.g, grav, sizeof grav);

	/* the cloth */
	uint64_t np, nt, n2;
	double *P = slc_rec_get_f64(cr, "P", 3, &np, &err);
	if (!P)
		die("%s: record '%s': %s", in_label(in), cname, err.msg);
	const uint32_t *tri = slc_rec_get(cr, "tri", SLC_U32, 3, 0, &err);
	if (!tri)
		die("%s: record '%s': %s", in_label(in), cname, err.msg);
	nt = slc_rec_find(cr, "tri")->count;
	double *v = NULL, *rest = NULL, *m = NULL, *goal = NULL;
	if (slc_rec_find(cr, "v") && (!(v = slc_rec_get_f64(cr, "v", 3, &n2, &err)) || n2 != np))
		die("%s: record '%s': channel v: %s", in_label(in), cname, v ? "wrong count" : err.msg);
	if (slc_rec_find(cr, "rest") && (!(rest = slc_rec_get_f64(cr, "rest", 3, &n2, &err)) || n2 != np))
		die("%s: record '%s': channel rest: %s", in_label(in), cname, rest ? "wrong count" : err.msg);
	if (slc_rec_find(cr, "goal") && (!(goal = slc_rec_get_f64(cr, "goal", 3, &n2, &err)) || n2 != np))
		die("%s: record '%s': channel goal: %s", in_label(in), cname, goal ? "wrong count" : err.msg);
	if (slc_rec_find(cr, "mass")) {
		if (!(m = slc_rec_get_f64(cr, "mass", 1, &n2, &err)) || n2 != np)
			die("%s: record '%s': channel mass: %s", in_label(in), cname, m ? "wrong count" : err.msg);
	} else {
		m = xcalloc(np ? np : 1, sizeof *m);
		for (uint64_t i = 0; i < np; i++)
			m[i] = mass;
	}
	const uint8_t *pin = NULL;
	if (slc_rec_find(cr, "pinned") &&
	    !(pin = slc_rec_get(cr, "pinned", SLC_U8, 1, np, &err)))
		die("%s: record '%s': %s", in_label(in), cname, err.msg);

	if (thickness > 0) {
		par.thickness = thickness;
	} else if (nt) {
		/* mean rest edge over the triangles' edges */
		const double *X = rest ? rest : P;
		double sum = 0;
		for (uint64_t t = 0; t < nt; t++)
			for (int e = 0; e < 3; e++) {
				uint32_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
				if (a >= np || b >= np)
					die("%s: record '%s': triangle %llu: index out of range",
					    in_label(in), cname, (unsigned long long)t);
				sum += sqrt(pow(X[3 * a] - X[3 * b], 2) + pow(X[3 * a + 1] - X[3 * b + 1], 2) +
					    pow(X[3 * a + 2] - X[3 * b + 2], 2));
			}
		double edge = sum / (3.0 * (double)nt);
		if (par.thickness > THICK_EDGE_FRAC * edge)
			par.thickness = THICK_EDGE_FRAC * edge;
	}
	cloth c;
	if (cloth_init(&c, np, nt, tri, P, v, rest, m, &par, &err))
		die("%s: record '%s': %s", in_label(in), cname, err.msg);
	const double T = 1 / fps;
	for (uint64_t i = 0; pin && i < np; i++)
		if (pin[i]) {
			double vel[3] = {0, 0, 0};
			for (int k = 0; goal && k < 3; k++)
				vel[k] = (goal[3 * i + k] - P[3 * i + k]) / T;
			cloth_constrain(&c, i, vel);
		}

	/* bodies */
	cloth_body bodies[3];
	int nb = 0;
	field phi, vb[3];
	int nvel = 0;
	slc_rec *sr = find(solid_name, SLC_GRID);
	if (sr) {
		char vname[SLC_NAME_MAX + 8];
		const field *vp[3] = {NULL, NULL, NULL};
		if (field_from_rec(&phi, sr, NULL, &err))
			die("%s: record '%s': %s", in_label(in), solid_name, err.msg);
		snprintf(vname, sizeof vname, "%s_vel", solid_name);
		slc_rec *vr = find(vname, SLC_GRID);
		if (vr) {
			vel_fields(vr, vb);
			nvel = 3;
			for (int k = 0; k < 3; k++)
				vp[k] = vb + k;
		}
		/* the level set is the body at the record's own time, moved
		 * from there by its velocity (collide_body.h) */
		body_grid_init(bodies + nb++, &phi, vp, sr->time, mu);
	}
	if (!isnan(ground)) {
		cloth_body *b = bodies + nb++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_PLANE;
		b->c[1] = ground;
		b->a[1] = 1;
		b->mu = mu;
	}
	if (sphere_r > 0) {
		cloth_body *b = bodies + nb++;
		memset(b, 0, sizeof *b);
		b->shape = BODY_SPHERE;
		memcpy(b->c, sphere, sizeof sphere);
		b->r = sphere_r;
		b->mu = mu;
	}

	if (cloth_advance(&c, t0, T, (int)steps, bodies, nb, &err))
		die("%s: frame %.0f: %s", in_label(in), frame, err.msg);

	/* write the new state in place of the old channels, double precision */
	double *Po, *vo, *ro, *mo;
	slc_rec_remove(cr, "P");
	slc_rec_remove(cr, "v");
	slc_rec_remove(cr, "rest");
	slc_rec_remove(cr, "mass");
	if (!(Po = slc_rec_add(cr, "P", SLC_F64, 3, SLC_POINT, np, &err)) ||
	    !(vo = slc_rec_add(cr, "v", SLC_F64, 3, SLC_POINT, np, &err)) ||
	    !(ro = slc_rec_add(cr, "rest", SLC_F64, 3, SLC_POINT, np, &err)) ||
	    !(mo = slc_rec_add(cr, "mass", SLC_F64, 1, SLC_POINT, np, &err)))
		die("record '%s': %s", cname, err.msg);
	memcpy(Po, c.x, 3 * np * sizeof *Po);
	memcpy(vo, c.v, 3 * np * sizeof *vo);
	memcpy(ro, rest ? rest : P, 3 * np * sizeof *ro);
	memcpy(mo, m, np * sizeof *mo);
	cr->time = t0 + T;
	check_finite(cr, (long)frame + 1);
	if (scene) {
		char buf[64];
		snprintf(buf, sizeof buf, "%.0f", frame + 1);
		if (slc_meta_set(scene, "frame", buf, &err))
			die("scene: %s", err.msg);
		snprintf(buf, sizeof buf, "%.17g", t0 + T);
		if (slc_meta_set(scene, "time", buf, &err))
			die("scene: %s", err.msg);
	}
	info("%s: %zu points, %ld steps, %ld CG iterations, %ld body contacts",
	     cname, c.np, c.st.steps, c.st.cg_iters, c.st.body_contacts);
	if (c.st.cg_capped)
		info("%s: %ld of %ld CG solves stopped at %d iterations, largest "
		     "residual %.3g m/s (tolerance %.3g)", cname, c.st.cg_capped,
		     c.st.cg_solves, c.par.cg_max, c.st.cg_worst, c.par.cg_tol);
	if (par.self)
		info("%s: %ld repulsion pairs, %ld collisions, %ld impact-zone "
		     "passes", cname, c.st.repulsion_pairs, c.st.collisions,
		     c.st.impact_zones);
	info("%s: seconds: repulsions %.3f integration %.3f collisions %.3f",
	     cname, c.st.t_repulsion, c.st.t_integration, c.st.t_collision);

	tool_out *o = out_open(argc, argv);
	for (size_t i = 0; i < nrec; i++) {
		if (recs + i == cr || recs + i == scene)
			out_write(o, recs + i);
		else
			out_pass(o, recs + i);
		slc_rec_free(recs + i);
	}
	out_close(o);
	in_close(in);
	cloth_free(&c);
	free(P); free(v); free(rest); free(m); free(goal);
	for (int k = 0; k < nvel; k++)
		field_free(vb + k);
	return 0;
}
