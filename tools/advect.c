/* advect: the intermediate velocity of one frame.  Moves every grid field
 * (velocity included, component by component) and every particle set of a
 * frame through the MAC velocity and adds body forces, in CFL or fixed
 * substeps.  Rigid bodies move with their velocity (lib/fluid/rigid_set.c).
 * The records are found by lib/fluid/advect_frame.c; the numerics are in
 * lib/fluid/advect.c (selle2008 ch. 2), lib/fluid/forces.c, lib/fluid/vortex.c (ch. 3) and
 * lib/grid/extrapolate.c (houston2003 §4.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "fluid/advect.h"
#include "fluid/advect_frame.h"
#include "grid/extrapolate.h"
#include "fluid/forces.h"
#include "liquid/pls_step.h"
#include "fluid/recfield.h"
#include "fluid/rigid_set.h"
#include "fluid/vortex.h"

#define MAX_SUBSTEPS 100000     /* a frame needing more is an error */
/* a rest of the frame this close (relative) to --substep is one whole
 * substep, so that rounding neither leaves a vanishing last substep nor
 * makes the last one differ from S in its last bits */
#define SUBSTEP_SLACK 1e-9

static int scheme = ADVECT_MACCORMACK, limiter = ADVECT_LIMIT_REVERT, open_box;
static double cfl = 1, substep, frame_dt = NAN, gravity[3] = { NAN, NAN, NAN };
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
	{ "scheme", 0, OPT_CHOICE, &scheme, "S", "advection scheme (default maccormack)", schemes, 0, 0 },
	{ "limiter", 0, OPT_CHOICE, &limiter, "L", "at new extrema: first order, clamped, none (default revert)", limiters, 0, 0 },
	{ "open", 0, OPT_FLAG, &open_box, NULL, "the grid box is open: no first order band along its faces", 0, 0, 0 },
	{ "cfl", 0, OPT_DOUBLE, &cfl, "C", "substeps of at most C cells of travel (default 1; 0: one step)", 0, 0, 0 },
	{ "substep", 0, OPT_DOUBLE, &substep, "S", "substeps of S seconds, the last one shortened to end the frame (instead of --cfl)", 0, 0, 0 },
	{ "dt", 0, OPT_DOUBLE, &frame_dt, "S", "frame length in seconds (default: dt of the scene record)", 0, 0, 0 },
	{ "gravity", 0, OPT_VEC3, gravity, "X,Y,Z", "gravity, m/s^2 (default: the scene's unless --buoyancy)", 0, 0, 0 },
	{ "buoyancy", 0, OPT_FUNC, buoy, "ALPHA,BETA", "smoke: -ALPHA*density + BETA*(temperature - ambient), up", 0, parse_pair, 0 },
	{ "ambient", 0, OPT_DOUBLE, &ambient, "T", "ambient temperature (default 0)", 0, 0, 0 },
	{ "confinement", 0, OPT_DOUBLE, &confine, "EPS", "vorticity confinement strength (default 0)", 0, 0, 0 },
	{ "source", 0, OPT_STRING, &source, "NAME", "grid level set record: inside it, inject each substep", 0, 0, 0 },
	{ "source-density", 0, OPT_DOUBLE, &src_den, "D", "density injected at least (default 1)", 0, 0, 0 },
	{ "source-temperature", 0, OPT_DOUBLE, &src_tem, "T", "temperature injected at least (default 1)", 0, 0, 0 },
	{ "source-velocity", 0, OPT_VEC3, src_vel, "X,Y,Z", "velocity set in the source (default: none)", 0, 0, 0 },
	{ "vortex-seed", 0, OPT_DOUBLE, &vopt.rate, "N", "vortex particles seeded per second in the source (default 0)", 0, 0, 0 },
	{ "vortex-omega", 0, OPT_DOUBLE, &vopt.omega, "W", "vorticity of a seeded particle, m^3/s (default 2e-3)", 0, 0, 0 },
	{ "vortex-radius", 0, OPT_DOUBLE, &vopt.radius, "CELLS", "particle kernel radius in cells (default 4)", 0, 0, 0 },
	{ "vortex-kernel", 0, OPT_CHOICE, &vopt.kernel, "K", "particle kernel (default gaussian)", kernels, 0, 0 },
	{ "vortex-eps", 0, OPT_DOUBLE, &vopt.eps, "EPS", "particle confinement strength, m/s (default 1)", 0, 0, 0 },
	{ "seed", 0, OPT_INT, &seed, "N", "random seed of the vortex and particle level set seeding (default 0)", 0, 0, 0 },
	{ "pls", 0, OPT_CHOICE, &pls_mode, "M", "particle level set: auto (with phi), on, off (level set only)", pls_modes, 0, 0 },
	{ "reseed", 0, OPT_INT, &reseed, "N", "reseed the level set particles every N frames (default 10; 0 never)", 0, 0, 0 },
	{ "pls-per-cell", 0, OPT_INT, &per_cell, "N", "level set particles of each sign per band cell (default 16)", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
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
	return advect_frame_find(recs, nrec, name, kind);
}

int
main(int argc, char **argv)
{
	int first, nsub = 0, have_g;
	tool_in *in;
	tool_out *out;
	slc_rec *scene, *vort, *rphi;
	advect_frame F;
	macgrid wt;
	field phi, *den, *tem;
	const field *sol, *uop;
	double T, t = 0, frame = -1, time0 = 0, dx, up[3];
	advect_opts ao;
	advect_stats st = { 0, 0, 0 };
	size_t cap = 0, i;

	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("one input at most");
	if (!(cfl >= 0) || !(substep >= 0) || !(frame_dt > 0 || isnan(frame_dt)) || !(vopt.rate >= 0) ||
	    !(vopt.radius > 0) || seed < 0 || reseed < 0 || per_cell < 1 || per_cell > 1000)
		usage_die("--cfl, --substep, --dt, --vortex-seed, --vortex-radius, --seed, --reseed and --pls-per-cell must be positive");
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
	if (scene && advect_scene_read(scene, &frame, &time0, &frame_dt, &err))
		die("%s: scene: %s", in_label(in), err.msg);
	if (!(frame_dt > 0))
		die("%s: no frame length: give --dt or a scene record with dt", in_label(in));
	have_g = advect_scene_gravity(scene, gravity, buoy[0] != 0 || buoy[1] != 0, up);
	if (advect_frame_load(&F, recs, nrec, source, &err) ||
	    rigid_set_load(&rs, recs, nrec, &F.vel.u, &err))
		die("%s: %s", in_label(in), err.msg);
	rs.walls = !open_box;   /* project --boundary wall: the box is solid */
	dx = F.vel.u.dx;
	sol = rs.n ? &rs.solid : F.have_solid ? &F.solid : NULL;   /* what the fluid sees */
	uop = rs.n ? rs.uo : F.have_uo ? F.uo : NULL;
	den = F.have_den ? &F.den : NULL;
	tem = F.have_tem ? &F.tem : NULL;
	vort = find("vortex", SLC_PARTICLES);
	if (vort && vortex_check(vort, &err))
		die("%s: %s", in_label(in), err.msg);
	if (vopt.rate > 0 && !F.have_src)
		usage_die("--vortex-seed needs --source");
	if (vopt.rate > 0 && !vort) {
		vort = &recs[nrec++];   /* the read loop left room for one */
		if (vortex_new(vort, &err))
			die("%s", err.msg);
	}
	if (pls_mode == 1 && !(rphi = find("phi", SLC_GRID)))
		die("%s: --pls on: no grid record 'phi'", in_label(in));
	if ((liquid = (rphi = find("phi", SLC_GRID)) != NULL)) {
		pls_step_defaults(&water.o);    /* guendelman2005 §4.4.2 */
		water.o.particles = pls_mode != 2;
		water.o.p.per_cell = (int)per_cell;
		water.o.ao.scheme = scheme;
		water.o.ao.limiter = limiter;
		water.o.ao.walls = !open_box;
		if (field_from_rec(&phi, rphi, NULL, &err) ||
		    pls_water_load(&water, recs, nrec, &phi, (uint64_t)seed, (long)frame, (int)reseed, &err))
			die("%s: %s", in_label(in), err.msg);
		water.solid = sol;      /* particles stay out, spray momentum to vel */
		water.live = &F.vel;
	}
	if (sol && mac_alloc_like(&wt, &F.vel, &err))
		die("%s", err.msg);
	advect_opts_default(&ao);
	ao.scheme = scheme;
	ao.limiter = limiter;
	ao.solid = sol;
	ao.walls = !open_box;
	ao.pool = &F.pool;      /* temporaries kept across records and substeps */
	T = frame_dt;
	while (t < T) {
		double vmax, dt = T - t, rest = T - t;

		if (liquid && (pls_extrapolate(&F.vel, &phi, EXTRAP_BAND, &err) ||
			       (nsub == 0 && pls_water_freeze(&water, &F.vel, &err))))
			die("%s: %s", in_label(in), err.msg);
		if (rs.n)
			rigid_set_solid(&rs, F.have_solid ? &F.solid : NULL, F.have_uo ? F.uo : NULL);
		/* faces deep in a solid are no part of the flow: not counted */
		if (!isfinite(vmax = mac_max_speed_seen(&F.vel, sol)) && mac_check_finite(&F.vel, &err))
			die("%s: frame %.0f: %s", in_label(in), frame + 1, err.msg);
		if (!isfinite(vmax = fmax(vmax, rigid_set_max_speed(&rs))))
			die("%s: frame %.0f: rigid body velocity NaN or Inf", in_label(in), frame + 1);
		if (substep > 0 && rest > substep * (1 - SUBSTEP_SLACK))
			dt = substep;
		else if (substep == 0 && cfl > 0 && vmax * dt > cfl * dx)
			dt = (T - t) / ceil((T - t) * vmax / (cfl * dx));
		if (++nsub > MAX_SUBSTEPS)
			die("%s: frame %.0f: more than %d substeps", in_label(in), frame + 1, MAX_SUBSTEPS);
		/* houston2003 §4.2: the advecting velocity continues into the
		 * solid as far as a ray and its stencil can reach; body forces
		 * act where fluid is (batty2007 §2.1 weights > 0) */
		if (sol && (rs.n || nsub == 1) && forces_fluid_weights(sol, &wt, &err))
			die("%s", err.msg);
		if (sol && extrapolate_solid(&F.vel, sol, uop, F.have_slip ? &F.slip : NULL,
					     dt * vmax + 2 * dx, &err))
			die("%s", err.msg);
		if (sol)        /* guendelman2005 §4.1: stencils in a solid read clear air */
			forces_solid_smoke(sol, den, tem, ambient);
		ao.vmax = vmax;
		for (i = 0; i < nrec; i++)
			if (liquid && pls_water_owns(&recs[i]))
				;       /* pls_step below */
			else if (advect_frame_moves(&recs[i], source)) {
				if (recfield_advect(&recs[i], &F.vel, dt, &ao, &st, &err))
					die("%s: record '%s': %s", in_label(in), recs[i].name, err.msg);
			}
			else if (&recs[i] == vort)      /* thesis §3.4.1 */
				vortex_step(vort, &F.vel, dt);
			else if (recs[i].kind == SLC_PARTICLES && !rigid_set_owns(&recs[i]) &&
				 advect_frame_particles(&recs[i], &F.vel, dt, &err))
				die("%s: %s", in_label(in), err.msg);
		if (liquid && pls_step(&water, &phi, &water.u0, dt, have_g > 0 ? gravity : no_g, &err))
			die("%s: %s", in_label(in), err.msg);
		if (advect_frame_velocity(&F, dt, &ao, &st, &err))
			die("%s: %s", in_label(in), err.msg);
		if (F.have_src)
			forces_smoke_source(&F.src, den, tem, src_den, src_tem, &F.vel,
					    isnan(src_vel[0]) ? NULL : src_vel);
		if (sol)        /* and no smoke stays inside it */
			forces_solid_smoke(sol, den, tem, ambient);
		if (vort && ((sol && vortex_cull(vort, sol, &err)) ||
			     (vopt.rate > 0 && vortex_seed(vort, &F.src, &vopt, dt, (uint64_t)seed,
							   (uint64_t)fmax(frame + 1, 0) * MAX_SUBSTEPS + (uint64_t)nsub, &err))))
			die("%s", err.msg);
		if (have_g > 0)
			forces_gravity(&F.vel, gravity, dt, sol ? &wt : NULL);
		/* the bodies move last, from the pose the fluid saw; gravity on a
		 * dynamic body is its body force, added here once per substep like
		 * the fluid's; project adds only the pressure's push (batty2007 §3) */
		rigid_set_step(&rs, have_g > 0 ? gravity : NULL, time0 + t, dt);
		if (buoy[0] != 0 || buoy[1] != 0)
			forces_buoyancy(&F.vel, den, tem, buoy[0], buoy[1], ambient, up, dt,
					sol ? &wt : NULL);
		if (confine != 0 && forces_confinement(&F.vel, confine, dt, &F.pool, &err))
			die("%s", err.msg);
		if (vort)       /* thesis §3.4.2 */
			vortex_force(vort, &F.vel, &vopt, dt);
		if (liquid && !open_box)
			pls_walls(&F.vel);
		t = substep > 0 && rest < substep * (1 + SUBSTEP_SLACK) ? T : t + dt;
		progressmsg("advect: %.0f%%", 100 * t / T);
	}
	if (mac_check_finite(&F.vel, &err))
		die("%s: frame %.0f: %s", in_label(in), frame + 1, err.msg);
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
		const char *nm = recs[i].name;

		if (&recs[i] == scene && advect_scene_advance(scene, frame + 1, time0 + T, &err))
			die("%s", err.msg);
		if (&recs[i] == scene) {
			out_write(out, &recs[i]);
		} else if (advect_frame_moves(&recs[i], source) || recs[i].kind == SLC_PARTICLES ||
			   (rs.n && rigid_set_owns(&recs[i])) || !strcmp(nm, "u") || !strcmp(nm, "v") || !strcmp(nm, "w")) {
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
	if (sol)
		mac_free(&wt);
	pls_water_free(&water);
	rigid_set_free(&rs);
	advect_frame_free(&F);
	free(recs);
	return 0;
}
