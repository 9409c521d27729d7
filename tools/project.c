/* project: pressure projection of a frame.  Reads the MAC velocity u, v, w
 * (and solid, solid_vel, phi, rigid bodies), solves the variational
 * pressure system of batty2007 with multigrid- or MIC(0)-preconditioned CG
 * and writes the divergence-free velocity, the pressure p, the rigid
 * bodies' new velocities and a `project` metadata record.  Every other
 * record passes through byte-identical.  The frame's physics is in
 * lib/stage/project_stage.c, the numerics in lib/fluid/pressure.c,
 * lib/fluid/pcg.c, lib/fluid/mg.c, lib/fluid/mic0.c, lib/fluid/weights.c
 * and lib/fluid/rigid.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "stage/project_stage.h"
#ifdef SLC_MPI
#include "tool_mpi.h"
#endif

static int precond, binary, bc;
static double tol = 1e-6, density = 1000, dt_opt;
static long maxiter = 500;

/* conjugate gradient takes at least one iteration */
static const struct opt_range maxiter_range = {1, HUGE_VAL, 0};

static const struct tool_opt opts[] = {
	{"precond", 0, OPT_CHOICE, &precond, "P", "preconditioner: mg (multigrid V-cycle, default) or mic0", project_precond_names, 0, 0},
	{"tol", 0, OPT_DOUBLE, &tol, "TOL", "relative residual (max norm) to reach, > 0 (default 1e-6)", 0, 0, &opt_positive},
	{"maxiter", 0, OPT_INT, &maxiter, "N", "most CG iterations, >= 1 (default 500)", 0, 0, &maxiter_range},
	{"weights", 0, OPT_CHOICE, &binary, "W", "face weights: variational (fluid fractions, default) or binary (voxelized)", project_weight_names, 0, 0},
	{"boundary", 0, OPT_CHOICE, &bc, "B", "faces of the grid box: wall (at rest, default), stored (walls at the stored velocity: inflow), open (p = 0 outside)", project_bc_names, 0, 0},
	{"density", 0, OPT_DOUBLE, &density, "RHO", "fluid density in kg/m^3, > 0 (default 1000)", 0, 0, &opt_positive},
	{"dt", 0, OPT_DOUBLE, &dt_opt, "DT", "time step for the pressure p, s, > 0 (default: dt of the scene record)", 0, 0, &opt_positive},
#ifdef SLC_MPI
	TOOL_MPI_OPTS
#endif
	{0, 0, 0, 0, 0, 0, 0, 0, 0},
};

static const struct tool_info tinfo = {
	"project", "Make a frame's velocity divergence free (variational pressure projection).",
	"[FILE]",
	"Reads one frame (standard input without FILE).  Needs u, v, w; uses solid (solid level set),\n"
	"solid_vel, phi (liquid level set: free surface) and rigid + rigid_phi (two-way coupled rigid\n"
	"bodies) when present.  Writes u, v, w, p (when a time step is known), rigid and a metadata\n"
	"record 'project' (iterations, residual, converged); everything else passes through unchanged.",
	opts
};

static int
changed(const void *S, const slc_rec *r)
{
	return project_stage_changed(S, r);
}

int
main(int argc, char **argv)
{
	slc_frame F, L, *G = &F;
	slc_rec **cut = NULL;
	slc_comm *comm = NULL;
	project_stage S;
	project_stats st;
	slc_err err;
	int op = tool_parse(argc, argv, &tinfo);

	if (argc - op > 1)
		usage_die("one input at most");
	const char *path = op < argc ? argv[op] : NULL;
	const char *label = path && strcmp(path, "-") ? path : "<stdin>";
	project_opts o = {precond ? PCG_MIC0 : PCG_MG, binary, bc, tol, (int)maxiter, density,
			  dt_opt > 0 ? dt_opt : NAN};

	slc_frame_init(&F);
	slc_frame_init(&L);
#ifdef SLC_MPI
	/* over ranks: each its k slab of the frame (tool_mpi.h) */
	if ((comm = tool_mpi_open(&argc, &argv, path))) {
		tool_mpi_read(comm, &F, &L, path, PROJECT_GHOST, ": run on fewer ranks");
		G = &L;
		cut = xcalloc(L.n ? L.n : 1, sizeof *cut);
		memcpy(cut, L.r, L.n * sizeof *cut);
	}
#endif
	if (!comm)
		read_frame(&F, path);
	if (project_stage_load(&S, G, &o, comm, &err) ||
	    project_stage_solve(&S, &st, comm, &err))
		die("%s: %s", label, err.msg);
	info("%s: %s-pcg: %d iterations, residual %.3g%s, %d regions (%d enclosed), "
	     "%.3fs setup, %.3fs solve", label, project_precond_names[precond], st.pcg.iters,
	     st.pcg.residual, st.pcg.converged ? "" : " (not converged)", st.nregion,
	     st.nenclosed, st.pcg.t_setup, st.pcg.t_solve);
#ifdef SLC_MPI
	/* over ranks, rank 0's figures in a fixed form (bench/mpi.sh) */
	if (comm)
		info("%s: mpi ranks=%d levels=%d cut=%d iterations=%d solve_s=%.6f comm_s=%.6f",
		     label, comm->size, st.pcg.levels, st.pcg.levels_cut, st.pcg.iters,
		     st.pcg.t_solve, st.pcg.t_comm);
#endif
	if (!st.pcg.converged)
		warnmsg("%s: not converged after %d iterations (residual %.3g > --tol %g)",
			label, st.pcg.iters, st.pcg.residual, tol);
	if (!st.have_dt)
		info("%s: no time step (scene dt or --dt): p not written", label);
	if (project_stage_store(&S, comm, &err))
		die("%s: %s", label, err.msg);
#ifdef SLC_MPI
	if (comm) {
		tool_mpi_write(comm, &F, &L, cut, F.n, changed, &S, NULL, S.frame, argc, argv);
		slc_comm_close(comm);
		goto done;
	}
#endif
	(void)changed;
	tool_out *out = out_open(argc, argv);
	for (size_t q = 0; q < F.n; q++) {
		if (project_stage_changed(&S, F.r[q]))
			out_write(out, F.r[q]);
		else
			out_pass(out, F.r[q]);
	}
	out_close(out);
#ifdef SLC_MPI
done:
#endif
	free(cut);
	project_stage_free(&S);
	slc_frame_free(&L);
	slc_frame_free(&F);
	return 0;
}
