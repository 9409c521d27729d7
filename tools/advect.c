/* advect: the intermediate velocity of one frame.  Moves every grid field
 * (velocity included, component by component) and every particle set of a
 * frame through the MAC velocity and adds body forces, in CFL or fixed
 * substeps.  The frame physics is lib/stage/advect_stage.c; the numerics
 * are in lib/fluid/advect.c (selle2008 ch. 2), lib/fluid/forces.c,
 * lib/fluid/vortex.c (ch. 3), lib/fluid/rigid_set.c, lib/liquid/pls_step.c
 * and lib/grid/extrapolate.c (houston2003 §4.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "stage/advect_stage.h"
#ifdef SLC_MPI
#include "tool_mpi.h"
#endif

static advect_stage_opts o;     /* advect_stage_defaults before parsing */

/* advect_stage_opts.per_cell: at least one marker of each sign in a band
 * cell, and at most 1000 (guendelman2005 §4.4.2 uses 16; more only costs
 * memory, a thousand times that of a one-marker band) */
static const struct opt_range per_cell_range = { 1, 1000, 0 };

static const char *const schemes[] = { "sl", "maccormack", "bfecc", NULL };
static const char *const limiters[] = { "revert", "clamp", "none", NULL };
static const char *const kernels[] = { "gaussian", "tent", NULL };
static const char *const pls_modes[] = { "auto", "on", "off", NULL };    /* enum advect_pls */
static const char *const shell_modes[] = { "on", "no-sweep", "off", NULL };     /* enum advect_shell_mode */

/* The --shell names, in the order given (at most one per argument). */
static const char **shell_names;
static size_t nshell;

static int
add_shell(const char *arg, void *dst)
{
	const char **grown;

	(void)dst;
	if (!*arg)
		return -1;
	if (!(grown = realloc(shell_names, (nshell + 1) * sizeof *grown)))
		die("out of memory");
	shell_names = grown;
	shell_names[nshell++] = arg;
	return 0;
}

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
	{ "scheme", 0, OPT_CHOICE, &o.scheme, "S", "advection scheme (default maccormack)", schemes, 0, 0 },
	{ "limiter", 0, OPT_CHOICE, &o.limiter, "L", "at new extrema: first order, clamped, none (default revert)", limiters, 0, 0 },
	{ "open", 0, OPT_FLAG, &o.open, NULL, "the grid box is open: no first order band along its faces", 0, 0, 0 },
	{ "cfl", 0, OPT_DOUBLE, &o.cfl, "C", "substeps of at most C cells of travel, >= 0 (default 1; 0: one step)", 0, 0, &opt_nonneg },
	{ "substep", 0, OPT_DOUBLE, &o.substep, "S", "substeps of S seconds, >= 0, the last one shortened to end the frame (instead of --cfl)", 0, 0, &opt_nonneg },
	{ "dt", 0, OPT_DOUBLE, &o.dt, "S", "frame length in seconds, > 0 (default: dt of the scene record)", 0, 0, &opt_positive },
	{ "gravity", 0, OPT_VEC3, o.gravity, "X,Y,Z", "gravity, m/s^2 (default: the scene's unless --buoyancy)", 0, 0, 0 },
	{ "buoyancy", 0, OPT_FUNC, o.buoyancy, "ALPHA,BETA", "smoke: -ALPHA*density + BETA*(temperature - ambient), up", 0, parse_pair, 0 },
	{ "ambient", 0, OPT_DOUBLE, &o.ambient, "T", "ambient temperature (default 0)", 0, 0, 0 },
	{ "confinement", 0, OPT_DOUBLE, &o.confinement, "EPS", "vorticity confinement strength (default 0)", 0, 0, 0 },
	{ "source", 0, OPT_STRING, &o.source, "NAME", "grid level set record: inside it, inject each substep", 0, 0, 0 },
	{ "source-density", 0, OPT_DOUBLE, &o.source_density, "D", "density injected at least (default 1)", 0, 0, 0 },
	{ "source-temperature", 0, OPT_DOUBLE, &o.source_temperature, "T", "temperature injected at least (default 1)", 0, 0, 0 },
	{ "source-velocity", 0, OPT_VEC3, o.source_velocity, "X,Y,Z", "velocity set in the source (default: none)", 0, 0, 0 },
	{ "vortex-seed", 0, OPT_DOUBLE, &o.vortex.rate, "N", "vortex particles seeded per second in the source, >= 0 (default 0)", 0, 0, &opt_nonneg },
	{ "vortex-omega", 0, OPT_DOUBLE, &o.vortex.omega, "W", "vorticity of a seeded particle, m^3/s (default 2e-3)", 0, 0, 0 },
	{ "vortex-radius", 0, OPT_DOUBLE, &o.vortex.radius, "CELLS", "particle kernel radius in cells, > 0 (default 4)", 0, 0, &opt_positive },
	{ "vortex-kernel", 0, OPT_CHOICE, &o.vortex.kernel, "K", "particle kernel (default gaussian)", kernels, 0, 0 },
	{ "vortex-eps", 0, OPT_DOUBLE, &o.vortex.eps, "EPS", "particle confinement strength, m/s (default 1)", 0, 0, 0 },
	{ "seed", 0, OPT_INT, &o.seed, "N", "random seed of the vortex and particle level set seeding, >= 0 (default 0)", 0, 0, &opt_nonneg },
	{ "pls", 0, OPT_CHOICE, &o.pls, "M", "particle level set: auto (with phi), on, off (level set only)", pls_modes, 0, 0 },
	{ "reseed", 0, OPT_INT, &o.reseed, "N", "reseed the level set particles every N frames, >= 0 (default 10; 0 never)", 0, 0, &opt_nonneg },
	{ "pls-per-cell", 0, OPT_INT, &o.per_cell, "N", "level set particles of each sign per band cell, 1..1000 (default 16)", 0, 0, &per_cell_range },
	{ "shell", 0, OPT_FUNC, NULL, "NAME", "mesh record NAME is a thin shell, moving from its P_prev to its P (repeatable)", 0, add_shell, 0 },
	{ "shell-eps", 0, OPT_DOUBLE, &o.shell_eps, "CELLS", "thin shell wedge thickness in cells, > 0 (default 0.1)", 0, 0, &opt_positive },
	{ "shell-handling", 0, OPT_CHOICE, &o.shell_mode, "M", "on, no-sweep (no swept invalidation), off (shells ignored): the last two are controls", shell_modes, 0, 0 },
#ifdef SLC_MPI
	TOOL_MPI_OPTS
#endif
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
	"velocity and their level sets 'rigid_phi' with them.  A --shell mesh (no inside: cloth, a\n"
	"cup's wall) is a barrier that no field and no marker particle crosses (guendelman2005 §4):\n"
	"every field is advected one-sided next to it and samples it sweeps over are refilled from\n"
	"its side of them.  Pipe into project.",
	opts
};

static int
changed(const void *S, const slc_rec *r)
{
	return advect_stage_changed(S, r);
}

int
main(int argc, char **argv)
{
	const char *path, *label;
	slc_frame F, L, *G = &F;
	slc_rec **cut = NULL;
	slc_comm *comm = NULL;
	slc_rec *scene;
	advect_stage S;
	advect_stage_stats st;
	slc_err err;
	tool_out *out;
	size_t i;
	int first;

	advect_stage_defaults(&o);
	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("one input at most");
	if (o.vortex.rate > 0 && !o.source)
		usage_die("--vortex-seed needs --source");
	o.shells = shell_names;
	o.nshell = nshell;
	path = first < argc ? argv[first] : NULL;
	label = path && strcmp(path, "-") ? path : "<stdin>";
	slc_frame_init(&F);
	slc_frame_init(&L);
#ifdef SLC_MPI
	if ((comm = tool_mpi_open(&argc, &argv, path))) {
		static const char hint[] = ": lower --cfl or use --scheme sl, or run on fewer ranks";
		int g = advect_stage_opts_ghost(&o);

		/* unbounded substeps: the widest ghosts the slabs hold */
		tool_mpi_read(comm, &F, &L, path, g < 0 ? 0 : g, hint);
		if (g < 0) {
			slc_frame_free(&L);
			slc_frame_init(&L);
			tool_mpi_read(comm, &F, &L, path, slc_comm_thinnest(comm->nk, comm->size) - 1,
				      hint);
		}
		G = &L;
		cut = xcalloc(L.n ? L.n : 1, sizeof *cut);
		memcpy(cut, L.r, L.n * sizeof *cut);
	}
#endif
	if (!comm)
		read_frame(&F, path);
	if (advect_stage_load(&S, G, &o, comm, &err))
		die("%s: %s", label, err.msg);
	while (!advect_stage_done(&S)) {
		if (advect_stage_substep(&S, &err))
			die("%s: %s", label, err.msg);
		progressmsg("advect: %.0f%%", advect_stage_percent(&S));
	}
	if (advect_stage_store(&S, &err))
		die("%s: %s", label, err.msg);
	advect_stage_stats_get(&S, &st);
	info("%d substeps, %zu samples advected, %zu limited, %zu first order near walls",
	     st.substeps, st.adv.samples, st.adv.limited, st.adv.near_wall);
	if (nshell)
		info("shells: %zu samples advected one-sided, %zu swept over and refilled (%zu by the fallback)",
		     st.shell_samples, st.shell_swept, st.shell_fallback);
	if (st.liquid)
		info("liquid volume %.9g m^3, spray %.9g m^3 in %zu particles, %zu+%zu marker particles",
		     st.volume, st.spray_volume, st.spray, st.pos, st.neg);
	if (st.liquid)
		info("volume change by advection %.3g, spray landing %.3g, particle correction %.3g, redistancing %.3g m^3; "
		     "%zu escaped particles corrected phi, %zu removed, %zu became spray",
		     st.water.dv_advect, st.water.dv_spray, st.water.dv_correct, st.water.dv_redist,
		     st.water.corrected, st.water.removed, st.water.sprayed);
#ifdef SLC_MPI
	if (comm && st.liquid)
		info("%zu marker particles moved into another rank's slab", st.migrated);
#endif
	scene = slc_frame_find(G, "scene", SLC_META);
#ifdef SLC_MPI
	if (comm) {
		tool_mpi_write(comm, &F, &L, cut, F.n, changed, &S, scene, advect_stage_frame(&S),
			       argc, argv);
		goto done;
	}
#endif
	(void)changed;
	(void)cut;
	out = out_open(argc, argv);
	for (i = 0; i < F.n; i++) {
		if (F.r[i] == scene) {
			out_write(out, F.r[i]);
		} else if (advect_stage_changed(&S, F.r[i])) {
			check_finite(F.r[i], advect_stage_frame(&S));
			out_write(out, F.r[i]);
		} else {
			out_pass(out, F.r[i]);
		}
	}
	out_close(out);
#ifdef SLC_MPI
done:
	if (comm)
		slc_comm_close(comm);
#endif
	free(cut);
	advect_stage_free(&S);
	slc_frame_free(&L);
	slc_frame_free(&F);
	free(shell_names);
	return 0;
}
