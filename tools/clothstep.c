/* clothstep: advance cloth meshes one frame (selle2008 thesis ch. 5-6):
 * mass-spring cloth with altitude bending springs, Newmark time stepping
 * with implicit linear springs, level-set body collisions with friction,
 * wind drag, an external per-node force (a fluid's load, guendelman2005
 * §5).  Reads a frame, writes the next one; every other record is passed
 * on unchanged.  The frame's physics is lib/stage/cloth_stage.h.  The MPI
 * build (tool_mpi.h) gives every rank the whole frame, shares the step's
 * work among them and writes the serial bytes from rank 0. */
#include <stdio.h>
#include <string.h>

#include "stage/cloth_stage.h"
#include "tool.h"
#ifdef SLC_MPI
#include "comm/wholeframe.h"
#include "tool_mpi.h"
#define RANK(comm) ((comm)->rank)
#else
#define RANK(comm) 0
#endif

static cloth_stage_opts o;      /* cloth_stage_opts_default, then argv */
static const char *const onoff[] = { "off", "on", NULL };
/* --steps and --loops: at least one step; the cap keeps a typing slip
 * from running for hours */
static const struct opt_range steps_range = { 1, 100000, 0 };

static const struct tool_opt opts[] = {
	{ "cloth", 0, OPT_STRING, &o.cloth, "NAME", "mesh record to advance (cloth)", 0, 0, 0 },
	{ "fps", 0, OPT_DOUBLE, &o.fps, "F", "frames per second (the scene's fps, else 24)", 0, 0, &opt_nonneg },
	{ "steps", 0, OPT_INT, &o.steps, "N", "time steps per frame (8)", 0, 0, &steps_range },
	{ "gravity", 0, OPT_VEC3, o.grav, "X,Y,Z", "gravity, m/s^2 (the scene's, else 0,-9.8,0)", 0, 0, 0 },
	{ "stiffness", 0, OPT_DOUBLE, &o.par.spring.E_e, "K", "edge spring stiffness, N (4.14)", 0, 0, &opt_nonneg },
	{ "damping", 0, OPT_DOUBLE, &o.par.spring.xi_e, "XI", "edge overdamping fraction (15)", 0, 0, 0 },
	{ "bend", 0, OPT_DOUBLE, &o.par.spring.E_b, "K", "bending stiffness, N (0.41)", 0, 0, &opt_nonneg },
	{ "bend-damping", 0, OPT_DOUBLE, &o.par.spring.xi_b, "XI", "bending overdamping fraction (8)", 0, 0, 0 },
	{ "biphasic", 0, OPT_DOUBLE, &o.par.spring.compress_scale, "S", "edge stiffness factor under compression (1)", 0, 0, &opt_nonneg },
	{ "mass", 0, OPT_DOUBLE, &o.mass, "KG", "node mass when the record has no 'mass' channel (1e-6)", 0, 0, &opt_positive },
	{ "cg-tol", 0, OPT_DOUBLE, &o.par.cg_tol, "V", "CG tolerance on velocity, m/s (0.001)", 0, 0, &opt_positive },
	{ "mu", 0, OPT_DOUBLE, &o.mu, "MU", "friction coefficient with bodies (0.3)", 0, 0, &opt_nonneg },
	{ "solid", 0, OPT_STRING, &o.solid, "NAME", "grid level set of the bodies, with NAME_vel (solid)", 0, 0, 0 },
	{ "ground", 0, OPT_DOUBLE, &o.ground, "Y", "add a ground plane at height Y (none)", 0, 0, 0 },
	{ "sphere", 0, OPT_VEC3, o.sphere, "X,Y,Z", "add a still sphere body centred here (with --sphere-radius)", 0, 0, 0 },
	{ "sphere-radius", 0, OPT_DOUBLE, &o.sphere_r, "R", "radius of the --sphere body, m (none)", 0, 0, &opt_nonneg },
	{ "self", 0, OPT_CHOICE, &o.par.self, "on|off", "self-repulsions and self-collisions (on)", onoff, 0, 0 },
	{ "thickness", 0, OPT_DOUBLE, &o.thickness, "H", "repulsion thickness, m (0.01, at most a quarter of the mean edge)", 0, 0, &opt_nonneg },
	{ "repulsion", 0, OPT_DOUBLE, &o.par.k_rep, "K", "repulsion spring stiffness (30)", 0, 0, &opt_nonneg },
	{ "mu-self", 0, OPT_DOUBLE, &o.par.mu_self, "MU", "cloth-cloth friction (0.1)", 0, 0, &opt_nonneg },
	{ "loops", 0, OPT_INT, &o.loops, "K", "time steps per collision step (8)", 0, 0, &steps_range },
	{ "wind", 0, OPT_VEC3, o.par.wind, "X,Y,Z", "wind velocity, m/s (0,0,0)", 0, 0, 0 },
	{ "drag", 0, OPT_DOUBLE, &o.par.wind_drag, "C", "drag along the normal, kg/(m^2 s) (0)", 0, 0, &opt_nonneg },
	{ "keep-scene", 0, OPT_FLAG, &o.keep_scene, NULL, "leave the scene's frame and time as they are (the shell leads the fluid)", 0, 0, 0 },
	{ "keep-prev", 0, OPT_FLAG, &o.keep_prev, NULL, "write the starting positions into P_prev (always when the record has one)", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"clothstep", "Advance cloth one frame: springs, Newmark steps, body collisions and friction.",
	"[FILE]",
	"The cloth is a mesh record with P and tri and optional v, rest, mass and pinned\n"
	"(u8, 1 = pinned) channels, plus goal (positions at the end of the frame of\n"
	"pinned points that are scripted to move).  Bodies: the grid level set --solid\n"
	"(the body at the record's time, moved by its velocity grid NAME_vel; with a next\n"
	"key NAME_next and NAME_next_vel at or after the frame's end, interpolated both ways\n"
	"in time between the keys), and the analytic --ground and --sphere.\n"
	"A point channel f_fluid (x3, N per node) is added to the nodes' forces and held\n"
	"through the frame; P_prev (f64 x3) gets the positions the frame started from.",
	opts
};

/* The -v lines: counts, capped CG solves, self-interactions, timings. */
static void
report(const cloth_stage_figures *f)
{
	const cloth_stats *st = &f->st;

	info("%s: %zu points, %ld steps, %ld CG iterations, %ld body contacts",
	     o.cloth, f->np, st->steps, st->cg_iters, st->body_contacts);
	if (st->cg_capped)
		info("%s: %ld of %ld CG solves stopped at %d iterations, largest "
		     "residual %.3g m/s (tolerance %.3g)", o.cloth, st->cg_capped,
		     st->cg_solves, f->cg_max, st->cg_worst, f->cg_tol);
	if (f->self)
		info("%s: %ld repulsion pairs, %ld collisions, %ld impact-zone "
		     "passes", o.cloth, st->repulsion_pairs, st->collisions,
		     st->impact_zones);
	info("%s: seconds: repulsions %.3f integration %.3f collisions %.3f",
	     o.cloth, st->t_repulsion, st->t_integration, st->t_collision);
	if (f->ranks > 1)
		info("%s: %d ranks, seconds in their gathers (rank 0) %.3f", o.cloth,
		     f->ranks, f->t_comm);
}

int
main(int argc, char **argv)
{
	slc_frame F;
	cloth_stage s;
	slc_err err;
	slc_comm *comm = NULL;
	int first;

	cloth_stage_opts_default(&o);
	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("at most one input");
	const char *path = first < argc ? argv[first] : NULL;
	const char *label = !path || !strcmp(path, "-") ? "<stdin>" : path;

	slc_frame_init(&F);
#ifdef SLC_MPI
	/* every rank holds the whole frame: rank 0 reads, the others get it */
	if ((comm = tool_mpi_open(&argc, &argv, path))) {
		if (comm->rank == 0)
			read_frame(&F, path);
		if (slc_frame_bcast(comm, &F, &err))
			die("%s: %s", label, err.msg);
	} else
#endif
		read_frame(&F, path);
	if (cloth_stage_load(&s, &F, &o, comm, &err) ||
	    cloth_stage_step(&s, comm, &err) ||
	    cloth_stage_store(&s, comm, &err))
		die("%s: %s", label, err.msg);
	if (!comm || RANK(comm) == 0) {
		check_finite(s.cr, (long)s.frame + 1);
		report(&s.fig);
		tool_out *out = out_open(argc, argv);
		for (size_t i = 0; i < F.n; i++) {
			if (F.r[i] == s.cr || (F.r[i] == s.scene && !o.keep_scene))
				out_write(out, F.r[i]);
			else
				out_pass(out, F.r[i]);
		}
		out_close(out);
	}
	cloth_stage_free(&s);
	slc_frame_free(&F);
#ifdef SLC_MPI
	if (comm)
		slc_comm_close(comm);
#endif
	return 0;
}
