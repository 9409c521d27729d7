/* vofstep: the volume-conserving water on the skinned tet mesh (KDSM)
 * around an animated character (Lee, Hyde, Li, Fedkiw 2019, §3.2-§5),
 * coupled with the grid's liquid once a frame in the order of §4's list.
 * Modes, each one stage of the frame pipe (lib/stage/vof_stage.h):
 *
 *   vofstep init --kdsm kdsm-0.slc [--fill phi] frame-0.slc
 *   vofstep advect --kdsm kdsm-N.slc --next kdsm-N+1.slc frame-N.slc |
 *       advect | vofstep conserve --kdsm kdsm-N+1.slc | project |
 *       vofstep finish --kdsm kdsm-N+1.slc -o frame-N+1.slc
 *   vofstep step --kdsm kdsm-N.slc --next kdsm-N+1.slc frame-N.slc    (no grid stage)
 *
 * Reads a frame, writes it with the water (`vof`), its ledger
 * (`vofstep`), the spray and what the mode changes; every other record is
 * passed on unchanged.  The frame's work is lib/stage/vof_stage.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stage/vof_stage.h"
#include "vof/vof_recs.h"
#include "tool.h"

static vof_stage_opts o;        /* vof_stage_opts_default, then argv */
static const char *kdsm, *next;
static long seed;
static int grid_choice = 0, absorb_choice = 1;
static const char *const modes[] = { "init", "advect", "conserve", "finish", "step", "render", NULL };
enum { MODE_RENDER = 5 };
static const char *points = "vof_pts";
static double fill_min = VOF_RENDER_FILL_MIN;
static const char *const onoff[] = { "off", "on", NULL };
static const char *const reqs[] = { "potential", "fraction", NULL };
static const struct opt_range unit = { 0, 1, 0 };
static const struct opt_range jitter_r = { VOF_JITTER_MIN, VOF_JITTER_MAX, 0 };
static const struct opt_range seed_r = { 0, 9007199254740992.0, 0 };
static const struct opt_range adh_r = { 0, 1e6, 0 };
static const struct opt_range drag_r = { 0, 1e9, 0 };

static const struct tool_opt opts[] = {
	{ "kdsm", 0, OPT_STRING, &kdsm, "FILE", "the bake frame (kdsmbake frame) the water is on", 0, 0, 0 },
	{ "next", 0, OPT_STRING, &next, "FILE", "advect, step: the bake frame the water goes to", 0, 0, 0 },
	{ "name", 0, OPT_STRING, &o.name, "NAME", "the water's tets record (vof)", 0, 0, 0 },
	{ "points", 0, OPT_STRING, &points, "NAME", "render: the particles record of the water (vof_pts)", 0, 0, 0 },
	{ "min-fill", 0, OPT_DOUBLE, &fill_min, "F", "render: draw the tets filled above F, 0..1 (0.05)", 0, 0, &unit },
	{ "spray", 0, OPT_STRING, &o.spray, "NAME", "the spray particles record (spray)", 0, 0, 0 },
	{ "fill", 0, OPT_STRING, &o.fill, "NAME", "init: fill the tets wholly inside this level set grid (dry)", 0, 0, 0 },
	{ "grid", 0, OPT_CHOICE, &grid_choice, "on|off", "couple with the grid's phi, u, v, w when there (on)", onoff, 0, 0 },
	{ "absorb", 0, OPT_CHOICE, &absorb_choice, "on|off", "conserve, step: absorb spray into wet tets (on)", onoff, 0, 0 },
	{ "beta", 0, OPT_DOUBLE, &o.beta, "B", "conserve: blend of the mesh's velocity into the grid, 0..1 (0)", 0, 0, &unit },
	{ "dt", 0, OPT_DOUBLE, &o.dt, "S", "frame length, s (the scene's dt, else 1/fps)", 0, 0, &opt_positive },
	{ "gravity", 0, OPT_VEC3, o.grav, "X,Y,Z", "gravity, m/s^2 (the scene's, else 0,-9.81,0)", 0, 0, 0 },
	{ "seed", 0, OPT_INT, &seed, "N", "seed of the spray's jitter (0)", 0, 0, &seed_r },
	{ "jitter", 0, OPT_DOUBLE, &o.jitter, "F", "spray jitter, of the tet's longest edge, 0.1..1 (0.5)", 0, 0, &jitter_r },
	{ "requests", 0, OPT_CHOICE, &o.fraction, "MODE", "backward samples ask the potential amount or that times the donor's fill (potential)", reqs, 0, 0 },
	{ "adhesion", 0, OPT_DOUBLE, &o.adh, "A", "adhesion, m/s^2, times the painted adh where there is one (0)", 0, 0, &adh_r },
	{ "adhesion-range", 0, OPT_DOUBLE, &o.dmax, "D", "adhesion reach from the skin, m (0: two of the tet's longest edges)", 0, 0, &opt_nonneg },
	{ "adhesion-friction", 0, OPT_DOUBLE, &o.mu, "MU", "friction of the adhesion's push onto the skin against the water's slip along it (0.5)", 0, 0, &opt_nonneg },
	{ "drag-across", 0, OPT_DOUBLE, &o.k_across, "K", "hair drag across the strands, 1/s per hair fraction (200)", 0, 0, &drag_r },
	{ "drag-along", 0, OPT_DOUBLE, &o.k_along, "K", "hair drag along the strands, 1/s per hair fraction (20)", 0, 0, &drag_r },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"vofstep", "Step the volume-conserving water on a character's skinned tet mesh.",
	"init|advect|conserve|finish|step [FILE]",
	"init: the first water on --kdsm (dry, or the tets wholly inside --fill).\n"
	"advect: from --kdsm to --next (backward samples, scale-down, leftovers forward,\n"
	"spray where water leaves), the bake's solid grids swapped in; then the grid's advect.\n"
	"conserve: the grid's liquid into the tets wholly inside it, spray absorbed,\n"
	"gravity, adhesion, hair drag, smear, pushout, velocity correction; then project.\n"
	"finish: the projected velocity copied into the tets wholly inside the liquid.\n"
	"step: advect and conserve in one process, for a frame without grid stages;\n"
	"advances the scene.  The ledger of the frame is the meta record 'vofstep'.\n"
	"render: the water as particles (--points; 4 a wet tet, lee2019 4.2) for\n"
	"surfacer --particles to unite with the pool's phi.",
	opts
};

/* render (§4.2): the frame with the particles of its water added. */
static void
render(int argc, char **argv, const char *path)
{
	const char *label = !path || !strcmp(path, "-") ? "<stdin>" : path;
	slc_frame F;
	slc_rec *vof, pts;
	slc_err err;

	slc_frame_init(&F);
	read_frame(&F, path);
	if (!(vof = slc_frame_find(&F, o.name, SLC_TETS)))
		die("%s: no tets record '%s' (start with vofstep init)", label, o.name);
	if (vof_render_rec(vof, &pts, points, fill_min, &err))
		die("%s: %s", label, err.msg);
	info("render: %zu particles of the water", (size_t)slc_rec_find(&pts, "P")->count);
	tool_out *out = out_open(argc, argv);
	for (size_t i = 0; i < F.n; i++)
		if (F.r[i]->kind != SLC_PARTICLES || strcmp(F.r[i]->name, points))
			out_pass(out, F.r[i]);
	out_write(out, &pts);
	out_close(out);
	slc_rec_free(&pts);
	slc_frame_free(&F);
}

/* A bake frame read whole (its tets and solid grids), or dies. */
static void
bake_read(slc_frame *B, const char *path, const char *opt)
{
	if (!path)
		usage_die("%s: no --%s FILE", modes[o.mode], opt);
	slc_frame_init(B);
	read_frame(B, path);
}

int
main(int argc, char **argv)
{
	slc_frame F, B0, B1;
	vof_stage S;
	slc_err err;
	int first, two;

	vof_stage_opts_default(&o);
	grid_choice = 1;
	first = tool_parse(argc, argv, &tinfo);
	if (first == argc)
		usage_die("no mode given: init, advect, conserve, finish, step or render");
	for (o.mode = 0; modes[o.mode] && strcmp(modes[o.mode], argv[first]); o.mode++)
		;
	if (!modes[o.mode])
		usage_die("unknown mode '%s', expected init, advect, conserve, finish, step or "
			  "render", argv[first]);
	if (argc - first > 2)
		usage_die("one input FILE only, got '%s' too", argv[first + 2]);
	if (o.mode == MODE_RENDER) {
		if (kdsm || next)
			usage_die("render: no --kdsm or --next (the water record holds its mesh)");
		render(argc, argv, argc - first == 2 ? argv[first + 1] : NULL);
		return 0;
	}
	two = o.mode == VOF_MODE_ADVECT || o.mode == VOF_MODE_STEP;
	if (!two && next)
		usage_die("--next: advect and step only");
	if (o.fill && o.mode != VOF_MODE_INIT)
		usage_die("--fill: init only");
	o.grid = grid_choice;
	o.absorb = absorb_choice;
	o.seed = (uint64_t)seed;
	const char *path = argc - first == 2 ? argv[first + 1] : NULL;
	const char *label = !path || !strcmp(path, "-") ? "<stdin>" : path;

	slc_frame_init(&F);
	slc_frame_init(&B0);
	bake_read(&B1, two ? next : kdsm, two ? "next" : "kdsm");
	if (two)
		bake_read(&B0, kdsm, "kdsm");
	read_frame(&F, path);
	/* read_frame has checked every record: no NaN reaches the step */
	if (vof_stage_load(&S, &F, two ? &B0 : NULL, &B1, &o, NULL, &err) ||
	    vof_stage_step(&S, NULL, &err) || vof_stage_store(&S, NULL, &err))
		die("%s: %s", label, err.msg);
	for (size_t i = 0; i < F.n; i++)
		if (vof_stage_changed(&S, F.r[i]))
			check_finite(F.r[i], S.f1);
	if (vof_stage_balance(&S) > VOF_STAGE_LEDGER_TOL)
		warnmsg("%s: mesh frame %ld: the ledger is off by %.3g of the water", label, S.f1,
			vof_stage_balance(&S));
	if (S.n_over)
		warnmsg("%s: mesh frame %ld: %zu tets above their capacity after pushout", label,
			S.f1, S.n_over);
	info("%s: mesh frame %ld: water %.17g -> %.17g m^3, grid in %.6g, filled %.6g, "
	     "particles in %.6g, out %.6g, residual %.3g", modes[o.mode], S.f1, S.L.before,
	     S.L.after, S.L.grid_in, S.L.grid_fill, S.L.particles_in, S.L.particles_out,
	     vof_ledger_residual(&S.L));
	info("%s: %zu spray made, %zu absorbed, %zu tets filled, %zu enclosed, %zu corrected, "
	     "%zu overwritten, backtrace up to %.3g edges", modes[o.mode], S.sp.n, S.L.n_absorbed,
	     S.L.n_filled, S.L.n_enclosed, S.L.n_corrected, S.L.n_overwritten, S.L.max_trace);

	tool_out *out = out_open(argc, argv);
	for (size_t i = 0; i < F.n; i++) {
		if (vof_stage_changed(&S, F.r[i]))
			out_write(out, F.r[i]);
		else
			out_pass(out, F.r[i]);
	}
	out_close(out);
	vof_stage_free(&S);
	slc_frame_free(&F);
	slc_frame_free(&B0);
	slc_frame_free(&B1);
	return 0;
}
