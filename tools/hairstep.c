/* hairstep: advance hair strands one frame (selle2008 thesis ch. 7):
 * mass-spring strands with virtual particles, edge, bend, torsion and
 * altitude springs, implicit springs in Newmark (or backward Euler) steps,
 * biased strain limiting, level-set body collisions with friction, wind
 * drag, adaptive steps.  Reads a frame, writes the next one; every other
 * record is passed on unchanged.  The frame's physics is
 * lib/stage/hair_stage.h. */
#include <stdio.h>
#include <string.h>

#include "stage/hair_stage.h"
#include "tool.h"
#ifdef SLC_MPI
#include "comm/wholeframe.h"
#include "tool_mpi.h"
#define RANK(comm) ((comm)->rank)
#else
#define RANK(comm) 0
#endif

static hair_stage_opts o;       /* hair_stage_opts_default, then argv */
static const char *const subdiv[] = { "auto", "all", "none", NULL };
static const char *const integ[] = { "newmark", "be", NULL };
static const char *const onoff[] = { "off", "on", NULL };
static const char *const precs[] = { "strand", "jacobi", NULL };
/* the caps keep a typing slip from running for hours */
static const struct opt_range steps_range = { 1, 1000000, 0 };
static const struct opt_range root_range = { 0, 1000000, 0 };
static const struct opt_range strain_range = { 0, 1, OPEN_MAX };
static const struct opt_range frac_range = { 0, 10, OPEN_MIN };
static const struct opt_range bonds_range = { 1, 255, 0 };

static const struct tool_opt opts[] = {
	{ "hair", 0, OPT_STRING, &o.hair, "NAME", "strands record to advance (hair)", 0, 0, 0 },
	{ "fps", 0, OPT_DOUBLE, &o.fps, "F", "frames per second (the scene's fps, else 24)", 0, 0, &opt_nonneg },
	{ "frames", 0, OPT_INT, &o.frames, "N", "frames to advance in one run; the output is the last (1)", 0, 0, &steps_range },
	{ "steps", 0, OPT_INT, &o.steps, "N", "fewest time steps per frame (8)", 0, 0, &steps_range },
	{ "max-steps", 0, OPT_INT, &o.max_steps, "N", "most time steps per frame (10000)", 0, 0, &steps_range },
	{ "courant", 0, OPT_DOUBLE, &o.par.courant, "C", "fraction of the shortest edge a point may cross in a step (0.5)", 0, 0, &frac_range },
	{ "strain-step", 0, OPT_DOUBLE, &o.par.strain_step, "E", "largest strain change of an edge in a step (0.01)", 0, 0, &frac_range },
	{ "gravity", 0, OPT_VEC3, o.grav, "X,Y,Z", "gravity, m/s^2 (the scene's, else 0,-9.8,0)", 0, 0, 0 },
	{ "subdivide", 0, OPT_CHOICE, &o.par.subdivide, "MODE", "virtual particles on colinear segments, every segment or none (auto)", subdiv, 0, 0 },
	{ "root", 0, OPT_INT, &o.root, "N", "axis points pinned at each root without a 'pinned' channel (2)", 0, 0, &root_range },
	{ "stiffness", 0, OPT_DOUBLE, &o.par.k.k_edge, "K", "edge spring stiffness, N (1)", 0, 0, &opt_nonneg },
	{ "damping", 0, OPT_DOUBLE, &o.par.k.xi_edge, "XI", "edge overdamping fraction (15)", 0, 0, &opt_nonneg },
	{ "bend", 0, OPT_DOUBLE, &o.par.k.k_bend, "K", "bending stiffness, N (1e-3)", 0, 0, &opt_nonneg },
	{ "torsion", 0, OPT_DOUBLE, &o.par.k.k_tors, "K", "torsion stiffness, N (1e-3)", 0, 0, &opt_nonneg },
	{ "altitude", 0, OPT_DOUBLE, &o.par.k.k_alt, "K", "altitude spring stiffness of curls' tetrahedra (those of virtuals take --torsion), N (1e-2)", 0, 0, &opt_nonneg },
	{ "soft-damping", 0, OPT_DOUBLE, &o.par.k.xi_bend, "XI", "bend, torsion and altitude overdamping fraction (8)", 0, 0, &opt_nonneg },
	{ "density", 0, OPT_DOUBLE, &o.par.density, "KG", "strand mass per metre without a 'mass' channel, kg/m (5e-6)", 0, 0, &opt_positive },
	{ "strain", 0, OPT_DOUBLE, &o.par.strain, "S", "strain limit, 0 off (0.1)", 0, 0, &strain_range },
	{ "integrator", 0, OPT_CHOICE, &o.par.mp.backward_euler, "newmark|be", "Newmark steps or backward Euler (newmark)", integ, 0, 0 },
	{ "implicit", 0, OPT_CHOICE, &o.par.mp.implicit_springs, "on|off", "implicit linear springs (on)", onoff, 0, 0 },
	{ "self", 0, OPT_CHOICE, &o.self, "on|off", "strand repulsions and self-collisions (on)", onoff, 0, 0 },
	{ "stiction", 0, OPT_CHOICE, &o.par.self.stiction, "on|off", "stiction bonds between close segments (on)", onoff, 0, 0 },
	{ "thickness", 0, OPT_DOUBLE, &o.par.self.thickness, "H", "repulsion thickness, m; 0: 0.1 of the mean rest segment (0)", 0, 0, &opt_nonneg },
	{ "bond", 0, OPT_DOUBLE, &o.par.self.stic.eps_s, "D", "stiction bonding distance and rest length, m; 0: the thickness (0)", 0, 0, &opt_nonneg },
	{ "break", 0, OPT_DOUBLE, &o.par.self.stic.eps_break, "D", "stiction bonds longer than this break, m; 0: twice --bond (0)", 0, 0, &opt_nonneg },
	{ "bonds-per-seg", 0, OPT_INT, &o.par.self.stic.nmax, "N", "most stiction bonds a segment holds (2)", 0, 0, &bonds_range },
	{ "stiction-k", 0, OPT_DOUBLE, &o.par.self.stic.k, "K", "stiction spring stiffness, N; 0: --bend (0)", 0, 0, &opt_nonneg },
	{ "precond", 0, OPT_CHOICE, &o.par.precond, "strand|jacobi", "CG preconditioner: each strand's band factored, or 3x3 diagonal blocks (strand)", precs, 0, 0 },
	{ "cg-tol", 0, OPT_DOUBLE, &o.par.mp.cg_tol, "V", "CG tolerance on velocity, m/s (1e-5)", 0, 0, &opt_positive },
	{ "mu", 0, OPT_DOUBLE, &o.mu, "MU", "friction coefficient with bodies (0.3)", 0, 0, &opt_nonneg },
	{ "solid", 0, OPT_STRING, &o.solid, "NAME", "grid level set of the bodies, with NAME_vel (solid)", 0, 0, 0 },
	{ "ground", 0, OPT_DOUBLE, &o.ground, "Y", "add a ground plane at height Y (none)", 0, 0, 0 },
	{ "sphere", 0, OPT_VEC3, o.sphere, "X,Y,Z", "add a still sphere body centred here (with --sphere-radius)", 0, 0, 0 },
	{ "sphere-radius", 0, OPT_DOUBLE, &o.sphere_r, "R", "radius of the --sphere body, m (none)", 0, 0, &opt_nonneg },
	{ "wind", 0, OPT_VEC3, o.par.mp.wind, "X,Y,Z", "wind velocity, m/s (0,0,0)", 0, 0, 0 },
	{ "drag", 0, OPT_DOUBLE, &o.par.mp.wind_drag, "C", "drag per metre of strand, kg/(m s) (0)", 0, 0, &opt_nonneg },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"hairstep", "Advance hair strands one frame: springs with torsion, strain limiting, body collisions.",
	"[FILE]",
	"The hair is a strands record with P and offset and optional v, rest, mass,\n"
	"pinned (u8) and goal point channels and a kscale strand channel (scales bend,\n"
	"torsion and altitude stiffness).  Its virtual particles are kept as the detail\n"
	"channels virt_P, virt_v, virt_rest, virt_mass, virt_seg and virt_pinned, with\n"
	"the last step's accelerations acc_last: frames baked one at a time equal one\n"
	"run.  Bodies: the grid level set --solid (moved by its velocity grid\n"
	"NAME_vel, or between it and the next key NAME_next with NAME_next_vel),\n"
	"--ground, --sphere.\n"
	"Stiction bonds are kept as the detail channels stic_seg and stic_frac.\n"
	"The figures of the step go to the meta record 'hairstep'; -v prints them\n"
	"with the time spent in integration, collisions and stiction.",
	opts
};

int
main(int argc, char **argv)
{
	slc_frame F;
	hair_stage s;
	slc_err err;
	slc_comm *comm = NULL;
	int first;

	hair_stage_opts_default(&o);
	first = tool_parse(argc, argv, &tinfo);
	if (argc - first > 1)
		usage_die("at most one input");
	o.par.k.xi_tors = o.par.k.xi_alt = o.par.k.xi_bend;
	o.par.self.repulse = o.par.self.collide = o.self;
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
	/* read_frame has checked every record: no NaN reaches the step */
	if (hair_stage_load(&s, &F, &o, comm, &err) ||
	    hair_stage_step(&s, comm, &err) ||
	    hair_stage_store(&s, comm, &err))
		die("%s: %s", label, err.msg);
	if (comm && RANK(comm)) {
		hair_stage_free(&s);
		slc_frame_free(&F);
#ifdef SLC_MPI
		slc_comm_close(comm);
#endif
		return 0;
	}
	check_finite(s.hr, (long)s.frame + 1);
	info("%s: %zu points, %zu virtuals, %ld steps, %ld CG iterations, "
	     "max strain %.4g, %ld limited, %ld body contacts", o.hair,
	     s.naxis, s.h.topo.nvirt, s.h.st.steps, s.h.st.cg_iters,
	     s.h.st.max_strain, s.h.st.limited, s.h.st.contacts);
	info("%s: %zu bonds (%ld made, %ld broken), %ld collisions, "
	     "%ld unresolved", o.hair, s.h.st.bonds, s.h.st.made,
	     s.h.st.broken, s.h.st.collisions, s.h.st.unresolved);
	info("%s: time %.3f s integration, %.3f s collisions, %.3f s "
	     "stiction", o.hair, s.h.st.t_step, s.h.st.t_collide,
	     s.h.st.t_stiction);
	if (s.sp) {
		/* each rank's share of whole strands (hair_rank_strands) */
		char buf[256];
		size_t len = 0, s0, s1;
		for (int q = 0; q < s.sp->size && len + 24 < sizeof buf; q++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, " %zu",
						hair_rank_strands(&s.h, q, s.sp->size,
								  &s0, &s1));
		info("%s: %d ranks, particles per rank%s, seconds in their "
		     "gathers (rank 0) %.3f", o.hair, s.sp->size, buf,
		     s.sp->t_comm);
	}

	tool_out *out = out_open(argc, argv);
	for (size_t i = 0; i < F.n; i++) {
		if (F.r[i] == s.hr || F.r[i] == s.scene ||
		    (F.r[i]->kind == SLC_META && !strcmp(F.r[i]->name, "hairstep")))
			out_write(out, F.r[i]);
		else
			out_pass(out, F.r[i]);
	}
	out_close(out);
	hair_stage_free(&s);
	slc_frame_free(&F);
#ifdef SLC_MPI
	if (comm)
		slc_comm_close(comm);
#endif
	return 0;
}
