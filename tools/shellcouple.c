/* shellcouple: thin shells (triangle meshes with no inside) and the fluid,
 * two ways.  --stage force gives each shell the force of the fluid's
 * pressure over the next frame (channel f_fluid; split: guendelman2005
 * §5 eq 6, implicit: the shell's node masses in the pressure system as
 * batty2007 §3 puts a rigid body's); --stage project is project with the
 * faces the shells cut held at the shells' velocity (guendelman2005 §4.3
 * eq 4).  The frame's physics is in lib/stage/shell_stage.c, the cut
 * faces in lib/shell/shell_faces.c, the solve in lib/fluid/pressure.c. */
#include <math.h>
#include <string.h>

#include "tool.h"
#include "cloth/cloth.h"
#include "stage/shell_stage.h"

/* The most shells one run takes (--shell repeated). */
#define SHELLS_MAX 64

static const char *names[SHELLS_MAX];
static int nnames, stage, coupling = SHELL_IMPLICIT, transfer, precond, binary, bc;
static double tol = 1e-6, density = 1000, dt_opt, eps = SHELL_EPS_DX, sigma;
static long maxiter = 500;
static spring_params spring;    /* clothstep's defaults, then argv */
static double grav[3] = {NAN, NAN, NAN};

static const struct opt_range maxiter_range = {1, HUGE_VAL, 0};

/* --shell NAME, once per shell. */
static int
parse_shell(const char *arg, void *dst)
{
	(void)dst;
	if (nnames >= SHELLS_MAX || !*arg)
		return -1;
	for (int q = 0; q < nnames; q++)
		if (!strcmp(names[q], arg))
			return -1;
	names[nnames++] = arg;
	return 0;
}

static const struct tool_opt opts[] = {
	{"stage", 0, OPT_CHOICE, &stage, "S", "force (the fluid's force on the shells, before they move; default) or project (the projection with the shells' cut faces, after they moved)", shell_stage_names, 0, 0},
	{"shell", 0, OPT_FUNC, NULL, "NAME", "a shell: mesh record NAME (repeat for more, at most 64, each once)", 0, parse_shell, 0},
	{"coupling", 0, OPT_CHOICE, &coupling, "C", "force stage: implicit (the cloth's implicit system in the pressure solve, default) or split (guendelman2005 eq 6)", shell_coupling_names, 0, 0},
	{"stiffness", 0, OPT_DOUBLE, &spring.E_e, "K", "implicit: the cloth's edge spring stiffness, N, as given to clothstep (4.14)", 0, 0, &opt_nonneg},
	{"damping", 0, OPT_DOUBLE, &spring.xi_e, "XI", "implicit: its edge overdamping fraction, as clothstep's (15)", 0, 0, 0},
	{"bend", 0, OPT_DOUBLE, &spring.E_b, "K", "implicit: its bending stiffness, N, as clothstep's (0.41)", 0, 0, &opt_nonneg},
	{"bend-damping", 0, OPT_DOUBLE, &spring.xi_b, "XI", "implicit: its bending overdamping fraction, as clothstep's (8)", 0, 0, 0},
	{"biphasic", 0, OPT_DOUBLE, &spring.compress_scale, "S", "implicit: its edge stiffness factor under compression, as clothstep's (1)", 0, 0, &opt_nonneg},
	{"gravity", 0, OPT_VEC3, grav, "X,Y,Z", "implicit: gravity on the cloth, m/s^2, as clothstep's (the scene's, else 0,-9.8,0)", 0, 0, 0},
	{"transfer", 0, OPT_CHOICE, &transfer, "T", "split: face (each cut face's force to its crossing's nodes: sums to the faces' total exactly; default) or paper (guendelman2005 5.1: nodal jumps spread into a band, read at each triangle's barycentre; sqrt 2 too much on a 45-degree shell)", shell_transfer_names, 0, 0},
	{"sigma", 0, OPT_DOUBLE, &sigma, "KG", "areal density of every free node, kg/m^2 (default: node mass over a third of its triangles' area)", 0, 0, &opt_positive},
	{"eps", 0, OPT_DOUBLE, &eps, "F", "wedge thickness of the triangles, in cells (default 0.001)", 0, 0, &opt_positive},
	{"precond", 0, OPT_CHOICE, &precond, "P", "preconditioner: mg (default) or mic0", project_precond_names, 0, 0},
	{"tol", 0, OPT_DOUBLE, &tol, "TOL", "relative residual (max norm) to reach, > 0 (default 1e-6)", 0, 0, &opt_positive},
	{"maxiter", 0, OPT_INT, &maxiter, "N", "most CG iterations, >= 1 (default 500)", 0, 0, &maxiter_range},
	{"weights", 0, OPT_CHOICE, &binary, "W", "face weights: variational (default) or binary", project_weight_names, 0, 0},
	{"boundary", 0, OPT_CHOICE, &bc, "B", "faces of the grid box: wall (default), stored, open", project_bc_names, 0, 0},
	{"density", 0, OPT_DOUBLE, &density, "RHO", "fluid density in kg/m^3, > 0 (default 1000; smoke: air's, about 1.2)", 0, 0, &opt_positive},
	{"dt", 0, OPT_DOUBLE, &dt_opt, "DT", "time step, s, > 0 (default: dt of the scene record)", 0, 0, &opt_positive},
	{0, 0, 0, 0, 0, 0, 0, 0, 0},
};

static const struct tool_info tinfo = {
	"shellcouple", "Couple thin shells (triangle meshes with no inside) with the fluid, two ways.",
	"[FILE]",
	"Reads one frame (standard input without FILE) with the velocity u, v, w (and what project\n"
	"uses) and the shells' mesh records (P, tri; optional P_prev, v, mass, pinned, rest, goal).\n"
	"implicit needs the cloth's springs as clothstep is given them (--stiffness ... --gravity).\n"
	"The pipe: advect | shellcouple --stage force | clothstep | shellcouple --stage project.\n"
	"force: writes each shell's f_fluid (N per node) and P_prev (= P); the fluid passes unchanged.\n"
	"project: project's solve with every face a shell cuts at P_prev held at (P - P_prev)/dt;\n"
	"writes u, v, w, p and 'project'.  Both write a metadata record 'shellcouple' (iterations,\n"
	"residual, cut_faces, force, face_force, torque, compat_flux).  See formats/shell.md.",
	opts
};

int
main(int argc, char **argv)
{
	slc_frame F;
	shell_stage S;
	shell_stats st;
	slc_err err;
	int op;

	spring_params_default(&spring);
	op = tool_parse(argc, argv, &tinfo);

	if (argc - op > 1)
		usage_die("one input at most");
	if (!nnames)
		usage_die("no shell: give --shell NAME");
	const char *path = op < argc ? argv[op] : NULL;
	const char *label = path && strcmp(path, "-") ? path : "<stdin>";
	shell_opts o = {.stage = stage, .coupling = coupling, .names = names, .nnames = nnames,
			.eps = eps, .sigma = sigma > 0 ? sigma : NAN,
			.po = {precond ? PCG_MIC0 : PCG_MG, binary, bc, tol, (int)maxiter, density,
			       dt_opt > 0 ? dt_opt : NAN},
			.transfer = transfer, .spring = spring, .g = {grav[0], grav[1], grav[2]}};

	slc_frame_init(&F);
	read_frame(&F, path);
	if (shell_stage_load(&S, &F, &o, NULL, &err) || shell_stage_run(&S, &st, NULL, &err))
		die("%s: %s", label, err.msg);
	info("%s: %s%s%s: %zu cut faces, %d iterations, residual %.3g%s, force %.6g,%.6g,%.6g N",
	     label, shell_stage_names[stage], stage == SHELL_STAGE_FORCE ? " " : "",
	     stage == SHELL_STAGE_FORCE ? shell_coupling_names[coupling] : "", st.cut,
	     st.pcg.iters, st.pcg.residual, st.pcg.converged ? "" : " (not converged)",
	     st.force[0], st.force[1], st.force[2]);
	if (!st.pcg.converged)
		warnmsg("%s: not converged after %d iterations (residual %.3g > --tol %g)",
			label, st.pcg.iters, st.pcg.residual, tol);
	if (st.inner_residual > SHELL_RESP_WARN)
		warnmsg("%s: the cloth's solves (implicit) stopped at a relative residual of %.3g "
			"(%ld iterations in %ld solves): the pressure system is not quite symmetric",
			label, st.inner_residual, st.inner_iters, st.inner_solves);
	tool_out *out = out_open(argc, argv);
	if (shell_stage_store(&S, NULL, &err))
		die("%s: %s", label, err.msg);
	for (size_t q = 0; q < F.n; q++) {
		if (shell_stage_changed(&S, F.r[q]))
			out_write(out, F.r[q]);
		else
			out_pass(out, F.r[q]);
	}
	out_close(out);
	shell_stage_free(&S);
	slc_frame_free(&F);
	return 0;
}
