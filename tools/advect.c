/* advect: the intermediate velocity of one frame.  Moves every grid field
 * (velocity included, component by component) and every particle set of a
 * frame through the MAC velocity and adds body forces, in CFL substeps.
 * Rigid bodies move with their velocity (lib/rigid_set.c).  The numerics
 * are in lib/advect.c (selle2008 ch. 2), lib/forces.c, lib/vortex.c
 * (ch. 3) and lib/extrapolate.c (houston2003 §4.2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "../lib/advect.h"
#include "../lib/extrapolate.h"
#include "../lib/forces.h"
#include "../lib/meta.h"
#include "../lib/pls_step.h"
#include "../lib/recfield.h"
#include "../lib/rigid_set.h"
#include "../lib/vortex.h"

#define MAX_SUBSTEPS 100000     /* a frame needing more is an error */

static int scheme = ADVECT_MACCORMACK, limiter = ADVECT_LIMIT_REVERT, open_box;
static double cfl = 1, frame_dt = NAN, gravity[3] = { NAN, NAN, NAN };
static double buoy[2], ambient, confine, src_den = 1, src_tem = 1;
static double src_vel[3] = { NAN, NAN, NAN };
static const char *source;
static vortex_opts vopt = { 0, 2e-3, 4, VORTEX_GAUSSIAN, 1 };
static long seed, reseed = 10, pls_mode, per_cell = 16;
static pls_water water;
static int liquid;
static const double no_g[3];
#define EXTRAP_BAND 5   /* cells of velocity extrapolation (thesis §2.9) */

static const char *const schemes[] = { "sl", "maccormack", "bfecc", NULL };
static const char *const limiters[] = { "revert", "clamp", "none", NULL };
static const char *const kernels[] = { "gaussian", "tent", NULL };
static const char *const pls_modes[] = { "auto", "on", "off", NULL };

static int
parse_pair(const char *arg, void *dst)
{
	double *b = dst;
	char *end;

	b[0] = strtod(arg, &end);
	if (end == arg || *end != ',')
		return -1;
	arg = end + 1;
	b[1] = strtod(arg, &end);
	return end == arg || *end || !isfinite(b[0]) || !isfinite(b[1]) ? -1 : 0;
}

static const struct tool_opt opts[] = {
	{ "scheme", 0, OPT_CHOICE, &scheme, "S", "advection scheme (default maccormack)", schemes, 0 },
	{ "limiter", 0, OPT_CHOICE, &limiter, "L", "at new extrema: first order, clamped, none (default revert)", limiters, 0 },
	{ "open", 0, OPT_FLAG, &open_box, NULL, "the grid box is open: no first order band along its faces", 0, 0 },
	{ "cfl", 0, OPT_DOUBLE, &cfl, "C", "substeps of at most C cells of travel (default 1; 0: one step)", 0, 0 },
	{ "dt", 0, OPT_DOUBLE, &frame_dt, "S", "frame length in seconds (default: dt of the scene record)", 0, 0 },
	{ "gravity", 0, OPT_VEC3, gravity, "X,Y,Z", "gravity, m/s^2 (default: the scene's unless --buoyancy)", 0, 0 },
	{ "buoyancy", 0, OPT_FUNC, buoy, "ALPHA,BETA", "smoke: -ALPHA*density + BETA*(temperature - ambient), up", 0, parse_pair },
	{ "ambient", 0, OPT_DOUBLE, &ambient, "T", "ambient temperature (default 0)", 0, 0 },
	{ "confinement", 0, OPT_DOUBLE, &confine, "EPS", "vorticity confinement strength (default 0)", 0, 0 },
	{ "source", 0, OPT_STRING, &source, "NAME", "grid level set record: inside it, inject each substep", 0, 0 },
	{ "source-density", 0, OPT_DOUBLE, &src_den, "D", "density injected at least (default 1)", 0, 0 },
	{ "source-temperature", 0, OPT_DOUBLE, &src_tem, "T", "temperature injected at least (default 1)", 0, 0 },
	{ "source-velocity", 0, OPT_VEC3, src_vel, "X,Y,Z", "velocity set in the source (default: none)", 0, 0 },
	{ "vortex-seed", 0, OPT_DOUBLE, &vopt.rate, "N", "vortex particles seeded per second in the source (default 0)", 0, 0 },
	{ "vortex-omega", 0, OPT_DOUBLE, &vopt.omega, "W", "vorticity of a seeded particle, m^3/s (default 2e-3)", 0, 0 },
	{ "vortex-radius", 0, OPT_DOUBLE, &vopt.radius, "CELLS", "particle kernel radius in cells (default 4)", 0, 0 },
	{ "vortex-kernel", 0, OPT_CHOICE, &vopt.kernel, "K", "particle kernel (default gaussian)", kernels, 0 },
	{ "vortex-eps", 0, OPT_DOUBLE, &vopt.eps, "EPS", "particle confinement strength, m/s (default 1)", 0, 0 },
	{ "seed", 0, OPT_INT, &seed, "N", "random seed of the vortex and particle level set seeding (default 0)", 0, 0 },
	{ "pls", 0, OPT_CHOICE, &pls_mode, "M", "particle level set: auto (with phi), on, off (level set only)", pls_modes, 0 },
	{ "reseed", 0, OPT_INT, &reseed, "N", "reseed the level set particles every N frames (default 10; 0 never)", 0, 0 },
	{ "pls-per-cell", 0, OPT_INT, &per_cell, "N", "level set particles of each sign per band cell (default 16)", 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"advect", "Advect a frame's fields and particles through its MAC velocity and add body forces.",
	"[FILE]",
	"Reads one frame (u, v, w and any other grids and particles) and writes the next: every\n"
	"grid record except solid, solid_vel, solid_slip, p, source and the --source region is\n"
	"advected, and the points P of every particle record moved; 'vortex' particles are also\n"
	"stretched and drive the velocity (selle2008 §3.4).  With a 'solid' level set the velocity\n"
	"is first extended into the solid under its boundary condition (houston2003 §4.2;\n"
	"solid_vel, solid_slip).  Rigid bodies ('rigid', 'rigid_phi0') move with their own\n"
	"velocity and their level sets 'rigid_phi' with them.  Pipe into project.",
	opts
};

static slc_rec *recs;
static size_t nrec;
static slc_err err;
static rigid_set rs;

static slc_rec *
find(const char *name, uint32_t kind)
{
	size_t r;

	for (r = 0; r < nrec; r++)
		if (recs[r].kind == kind && !strcmp(recs[r].name, name))
			return &recs[r];
	return NULL;
}

/* A one-channel f32 grid record as a field (borrowed), or die. */
static int
grid_field(const char *label, const char *name, field *f, int required)
{
	slc_rec *r = find(name, SLC_GRID);

	if (!r) {
		if (required)
			die("%s: no grid record '%s'", label, name);
		return 0;
	}
	if (field_from_rec(f, r, NULL, &err))
		die("%s: %s", label, err.msg);
	return 1;
}

static int
advected(const slc_rec *r)
{
	static const char *const keep[] = { "u", "v", "w", "solid", "solid_vel", "solid_slip",
					    "p", "source", NULL };
	int q;

	for (q = 0; keep[q]; q++)
		if (!strcmp(r->name, keep[q]))
			return 0;
	return r->kind == SLC_GRID && !(source && !strcmp(r->name, source)) && !rigid_set_owns(r);
}

/* Move the points of a particle record through the velocity. */
static void
move_particles(slc_rec *r, const macgrid *vel, double dt, const char *label)
{
	slc_chan *P = slc_rec_find(r, "P");

	if (!P)
		return;
	if (P->type != SLC_F32 || P->ncomp != 3)
		die("%s: particles '%s': P is %s x%u, expected f32 x3", label, r->name,
		    slc_type_name(P->type), P->ncomp);
	advect_points(vel, dt, P->data, (size_t)P->count);
}

/* Inside the source region: density and temperature at least the source
 * values, velocity set. */
static void
inject(const field *src, field *den, field *tem, macgrid *vel)
{
	int a;

	if (den)
		forces_source(src, den, src_den, 1);
	if (tem)
		forces_source(src, tem, src_tem, 1);
	for (a = 0; a < 3 && !isnan(src_vel[0]); a++)
		forces_source(src, mac_comp(vel, a), src_vel[a], 0);
}

int
main(int argc, char **argv)
{
	int first, a, nsub = 0, have_g;
	tool_in *in;
	tool_out *out;
	slc_rec r, *scene, *vort;
	macgrid vel, nvel;
	field solid, src, den, tem, uo[3], slip, phi;
	int have_uo = 0, have_slip = 0, have_solid, have_src, have_den, have_tem;
	const field *sol, *uop;
	double T, t = 0, frame = -1, time0 = 0, dx, g, up[3] = { 0, 1, 0 };
	advect_opts ao;
	advect_stats st = { 0, 0, 0 };
	size_t cap = 0, i;
	char buf[64];

	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("one input at most");
	if (!(cfl >= 0) || !(frame_dt > 0 || isnan(frame_dt)) || !(vopt.rate >= 0) ||
	    !(vopt.radius > 0) || seed < 0 || reseed < 0 || per_cell < 1 || per_cell > 1000)
		usage_die("--cfl, --dt, --vortex-seed, --vortex-radius, --seed, --reseed and --pls-per-cell must be positive");
	in = in_open(first < argc ? argv[first] : NULL);
	for (;;) {
		if (nrec == cap)
			recs = realloc(recs, (cap = cap ? 2 * cap : 16) * sizeof *recs);
		if (!recs)
			die("out of memory");
		if (!in_read(in, &recs[nrec]))
			break;
		nrec++;
	}
	if (!(recs = realloc(recs, (nrec + 6) * sizeof *recs)))    /* vortex, pls, rigid stores */
		die("out of memory");
	scene = find("scene", SLC_META);
	if (scene && (slc_meta_get_f64(scene, "frame", &frame, &err) < 0 ||
		      slc_meta_get_f64(scene, "time", &time0, &err) < 0 ||
		      (isnan(frame_dt) && slc_meta_get_f64(scene, "dt", &frame_dt, &err) < 0)))
		die("%s: scene: %s", in_label(in), err.msg);
	if (!(frame_dt > 0))
		die("%s: no frame length: give --dt or a scene record with dt", in_label(in));
	have_g = !isnan(gravity[0]);
	if (!have_g && scene && slc_meta_get(scene, "gravity", buf, sizeof buf) &&
	    sscanf(buf, "%lf,%lf,%lf", &gravity[0], &gravity[1], &gravity[2]) == 3)
		/* guendelman2005 §4.1: smoke feels buoyancy instead */
		have_g = buoy[0] == 0 && buoy[1] == 0 ? 1 : -1;
	g = have_g ? sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]) : 0;
	for (a = 0; a < 3 && g > 0; a++)
		up[a] = -gravity[a] / g;        /* else y, as the format says */
	grid_field(in_label(in), "u", &vel.u, 1);
	grid_field(in_label(in), "v", &vel.v, 1);
	grid_field(in_label(in), "w", &vel.w, 1);
	if (mac_check(&vel, &err))
		die("%s: %s", in_label(in), err.msg);
	dx = vel.u.dx;
	have_solid = grid_field(in_label(in), "solid", &solid, 0);
	if (have_solid) {
		slc_rec *sv = find("solid_vel", SLC_GRID);
		if ((have_uo = sv != NULL) && recfield_vec3(sv, uo, &err))
			die("%s: %s", in_label(in), err.msg);
		have_slip = grid_field(in_label(in), "solid_slip", &slip, 0);
	}
	if (rigid_set_load(&rs, recs, nrec, &vel.u, &err))
		die("%s: %s", in_label(in), err.msg);
	sol = rs.n ? &rs.solid : have_solid ? &solid : NULL;   /* what the fluid sees */
	uop = rs.n ? rs.uo : have_uo ? uo : NULL;
	have_src = source && grid_field(in_label(in), source, &src, 1);
	have_den = grid_field(in_label(in), "density", &den, 0);
	have_tem = grid_field(in_label(in), "temperature", &tem, 0);
	vort = find("vortex", SLC_PARTICLES);
	if (vort && vortex_check(vort, &err))
		die("%s: %s", in_label(in), err.msg);
	if (vopt.rate > 0 && !have_src)
		usage_die("--vortex-seed needs --source");
	if (vopt.rate > 0 && !vort) {
		vort = &recs[nrec++];   /* the read loop left room for one */
		if (vortex_new(vort, &err))
			die("%s", err.msg);
	}
	if (pls_mode == 1 && !find("phi", SLC_GRID))
		die("%s: --pls on: no grid record 'phi'", in_label(in));
	if ((liquid = grid_field(in_label(in), "phi", &phi, 0))) {
		pls_step_defaults(&water.o);    /* guendelman2005 §4.4.2 */
		water.o.particles = pls_mode != 2;
		water.o.p.per_cell = (int)per_cell;
		water.o.ao.scheme = scheme;
		water.o.ao.limiter = limiter;
		water.o.ao.walls = !open_box;
		if (pls_water_load(&water, recs, nrec, &phi, (uint64_t)seed, (long)frame, (int)reseed, &err))
			die("%s: %s", in_label(in), err.msg);
		water.solid = sol;      /* particles stay out, spray momentum to vel */
		water.live = &vel;
	}
	if (mac_alloc_like(&nvel, &vel, &err))
		die("%s", err.msg);
	advect_opts_default(&ao);
	ao.scheme = scheme;
	ao.limiter = limiter;
	ao.solid = sol;
	ao.walls = !open_box;
	T = frame_dt;
	while (t < T) {
		double vmax, dt = T - t;

		if (liquid && (pls_extrapolate(&vel, &phi, EXTRAP_BAND, &err) ||
			       (nsub == 0 && pls_water_freeze(&water, &vel, &err))))
			die("%s: %s", in_label(in), err.msg);
		vmax = fmax(mac_max_speed(&vel), rigid_set_max_speed(&rs));

		if (!isfinite(vmax))
			die("%s: velocity, frame %.0f: NaN or Inf", in_label(in), frame + 1);
		if (cfl > 0 && vmax * dt > cfl * dx)
			dt = (T - t) / ceil((T - t) * vmax / (cfl * dx));
		if (++nsub > MAX_SUBSTEPS)
			die("%s: frame %.0f: more than %d substeps", in_label(in), frame + 1, MAX_SUBSTEPS);
		/* houston2003 §4.2: the advecting velocity continues into the
		 * solid as far as a ray and its stencil can reach */
		if (rs.n)
			rigid_set_solid(&rs, have_solid ? &solid : NULL, have_uo ? uo : NULL);
		if (sol && extrapolate_solid(&vel, sol, uop, have_slip ? &slip : NULL,
					     dt * vmax + 2 * dx, &err))
			die("%s", err.msg);
		ao.vmax = vmax;
		for (i = 0; i < nrec; i++)
			if (liquid && pls_water_owns(&recs[i]))
				;       /* pls_step below */
			else if (advected(&recs[i])) {
				if (recfield_advect(&recs[i], &vel, dt, &ao, &st, &err))
					die("%s: record '%s': %s", in_label(in), recs[i].name, err.msg);
			}
			else if (&recs[i] == vort)      /* thesis §3.4.1 */
				vortex_step(vort, &vel, dt);
			else if (recs[i].kind == SLC_PARTICLES && !rigid_set_owns(&recs[i]))
				move_particles(&recs[i], &vel, dt, in_label(in));
		if (liquid && pls_step(&water, &phi, &water.u0, dt, have_g > 0 ? gravity : no_g, &err))
			die("%s: %s", in_label(in), err.msg);
		for (a = 0; a < 3; a++)
			if (advect_field(&vel, dt, mac_ccomp(&vel, a), mac_comp(&nvel, a), &ao, &st, &err))
				die("%s: %s", in_label(in), err.msg);
		if (mac_copy(&vel, &nvel, &err))
			die("%s", err.msg);
		if (have_src)
			inject(&src, have_den ? &den : NULL, have_tem ? &tem : NULL, &vel);
		if (vort && ((sol && vortex_cull(vort, sol, &err)) ||
			     (vopt.rate > 0 && vortex_seed(vort, &src, &vopt, dt, (uint64_t)seed,
							   (uint64_t)fmax(frame + 1, 0) * MAX_SUBSTEPS + (uint64_t)nsub, &err))))
			die("%s", err.msg);
		if (have_g > 0)
			forces_gravity(&vel, gravity, dt);
		/* the bodies move last, from the pose the fluid saw; gravity on a
		 * dynamic body is its body force, added here once per substep like
		 * the fluid's; project adds only the pressure's push (batty2007 §3) */
		rigid_set_step(&rs, have_g > 0 ? gravity : NULL, time0 + t, dt);
		if (buoy[0] != 0 || buoy[1] != 0)
			forces_buoyancy(&vel, have_den ? &den : NULL, have_tem ? &tem : NULL,
					buoy[0], buoy[1], ambient, up, dt);
		if (confine != 0 && forces_confinement(&vel, confine, dt, &err))
			die("%s", err.msg);
		if (vort)       /* thesis §3.4.2 */
			vortex_force(vort, &vel, &vopt, dt);
		if (liquid && !open_box)
			pls_walls(&vel);
		t += dt;
		progressmsg("advect: %.0f%%", 100 * t / T);
	}
	info("%d substeps, %zu samples advected, %zu limited, %zu first order near walls",
	     nsub, st.samples, st.limited, st.near_wall);
	if ((liquid && pls_water_store(&water, recs, &nrec, time0 + T, &err)) ||
	    rigid_set_store(&rs, recs, &nrec, time0 + T, &err))
		die("%s", err.msg);
	if (liquid)
		info("liquid volume %.9g m^3, spray %.9g m^3 in %zu particles, %zu+%zu marker particles",
		     pls_liquid_volume(&phi), spray_volume(&water.spr), water.spr.n, water.pos.n, water.neg.n);
	if (liquid)
		info("volume change by advection %.3g, spray landing %.3g, particle correction %.3g, redistancing %.3g m^3; "
		     "%zu escaped particles corrected phi, %zu removed, %zu became spray",
		     water.st.dv_advect, water.st.dv_spray, water.st.dv_correct, water.st.dv_redist,
		     water.st.corrected, water.st.removed, water.st.sprayed);
	out = out_open(argc, argv);
	for (i = 0; i < nrec; i++) {
		r = recs[i];
		if (&recs[i] == scene) {
			snprintf(buf, sizeof buf, "%.0f", frame + 1);
			if (slc_meta_set(&recs[i], "frame", buf, &err))
				die("%s", err.msg);
			snprintf(buf, sizeof buf, "%.12g", time0 + T);
			if (slc_meta_set(&recs[i], "time", buf, &err))
				die("%s", err.msg);
			out_write(out, &recs[i]);
		} else if (advected(&recs[i]) || recs[i].kind == SLC_PARTICLES ||
			   (rs.n && rigid_set_owns(&recs[i])) || !strcmp(r.name, "u") || !strcmp(r.name, "v") || !strcmp(r.name, "w")) {
			recs[i].time = time0 + T;
			check_finite(&recs[i], scene ? (long)frame + 1 : -1);
			out_write(out, &recs[i]);
		} else {
			out_pass(out, &recs[i]);
		}
		slc_rec_free(&recs[i]);
	}
	out_close(out);
	in_close(in);
	mac_free(&nvel);
	pls_water_free(&water);
	rigid_set_free(&rs);
	for (a = 0; a < 3 && have_uo; a++)
		field_free(&uo[a]);
	free(recs);
	return 0;
}
