/* project: pressure projection of a frame.  Reads the MAC velocity u, v, w
 * (and solid, solid_vel, phi, rigid bodies), solves the variational
 * pressure system of batty2007 with multigrid- or MIC(0)-preconditioned CG
 * and writes the divergence-free velocity, the pressure p, the rigid
 * bodies' new velocities and a `project` metadata record.  Every other
 * record passes through byte-identical.  The numerics are in
 * lib/fluid/pressure.c, lib/fluid/pcg.c, lib/fluid/mg.c, lib/fluid/mic0.c, lib/fluid/weights.c and
 * lib/fluid/rigid.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "core/meta.h"
#include "fluid/pcg.h"
#include "fluid/pressure.h"
#include "fluid/rigid.h"

static const char *const precond_names[] = {"mg", "mic0", NULL};
static const char *const weight_names[] = {"variational", "binary", NULL};
static const char *const bc_names[] = {"wall", "stored", "open", NULL};
static int precond, binary, bc;
static double tol = 1e-6, density = 1000, dt_opt;
static long maxiter = 500;

static const struct tool_opt opts[] = {
	{"precond", 0, OPT_CHOICE, &precond, "P", "preconditioner: mg (multigrid V-cycle, default) or mic0", precond_names, 0, 0},
	{"tol", 0, OPT_DOUBLE, &tol, "TOL", "relative residual (max norm) to reach, > 0 (default 1e-6)", 0, 0, 0},
	{"maxiter", 0, OPT_INT, &maxiter, "N", "most CG iterations, >= 1 (default 500)", 0, 0, 0},
	{"weights", 0, OPT_CHOICE, &binary, "W", "face weights: variational (fluid fractions, default) or binary (voxelized)", weight_names, 0, 0},
	{"boundary", 0, OPT_CHOICE, &bc, "B", "faces of the grid box: wall (at rest, default), stored (walls at the stored velocity: inflow), open (p = 0 outside)", bc_names, 0, 0},
	{"density", 0, OPT_DOUBLE, &density, "RHO", "fluid density in kg/m^3, > 0 (default 1000)", 0, 0, 0},
	{"dt", 0, OPT_DOUBLE, &dt_opt, "DT", "time step for the pressure p, s (default: dt of the scene record)", 0, 0, 0},
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

typedef struct frame {
	slc_rec *r;
	size_t n, cap;
} frame;

static const char *label;

static slc_rec *
find(frame *f, const char *name, uint32_t kind)
{
	slc_rec *hit = NULL;

	for (size_t q = 0; q < f->n; q++)
		if (!strcmp(f->r[q].name, name) && f->r[q].kind == kind) {
			if (hit)
				die("%s: more than one '%s' record (one frame per stream)", label, name);
			hit = &f->r[q];
		}
	return hit;
}

/* A cell-centred one-channel grid record on the velocity's cells. */
static const float *
cell_grid(frame *f, const char *name, const field *u, int ncomp, int chan,
	  int nci, int ncj, int nck, long fr)
{
	slc_rec *r = find(f, name, SLC_GRID);

	if (!r)
		return NULL;
	const slc_grid *g = &r->grid;
	if (g->stagger != SLC_CELL || g->ni != nci || g->nj != ncj || g->nk != nck ||
	    fabs(g->dx - u->dx) > 1e-9 * u->dx ||
	    fabs(g->origin[0] - u->origin[0]) > 1e-6 * u->dx ||
	    fabs(g->origin[1] - u->origin[1]) > 1e-6 * u->dx ||
	    fabs(g->origin[2] - u->origin[2]) > 1e-6 * u->dx)
		die("%s: record '%s': %s grid %dx%dx%d, expected the velocity's %dx%dx%d cells",
		    label, name, slc_stagger_name(g->stagger), g->ni, g->nj, g->nk, nci, ncj, nck);
	if ((uint32_t)chan >= r->nchan)
		die("%s: record '%s': %u channels, expected at least %d", label, name,
		    r->nchan, chan + 1);
	slc_chan *c = &r->chan[chan];
	if (c->type != SLC_F32 || c->ncomp != ncomp)
		die("%s: record '%s' channel '%s': %s x%d, expected f32 x%d", label, name,
		    c->name, slc_type_name(c->type), c->ncomp, ncomp);
	check_finite(r, fr);
	return c->data;
}

int
main(int argc, char **argv)
{
	frame f = {0};
	slc_err err;
	int op = tool_parse(argc, argv, &tinfo);

	if (!(tol > 0) || maxiter < 1 || !(density > 0) || dt_opt < 0)
		usage_die("--tol, --maxiter and --density must be positive, --dt not negative");
	if (argc - op > 1)
		usage_die("one input at most");
	tool_in *in = in_open(op < argc ? argv[op] : NULL);
	label = in_label(in);
	for (;;) {
		if (f.n == f.cap) {
			f.cap = f.cap ? 2 * f.cap : 16;
			if (!(f.r = realloc(f.r, f.cap * sizeof *f.r)))
				die("out of memory");
		}
		memset(&f.r[f.n], 0, sizeof f.r[f.n]);
		if (!in_read(in, &f.r[f.n]))
			break;
		f.n++;
	}

	/* scene: frame number for messages, dt for the pressure */
	long fr = -1;
	double dt = dt_opt;
	slc_rec *scene = find(&f, "scene", SLC_META);
	if (scene) {
		double v;
		if (slc_meta_get_f64(scene, "frame", &v, &err) == 1)
			fr = (long)v;
		if (!(dt > 0) && slc_meta_get_f64(scene, "dt", &v, &err) == 1 && v > 0)
			dt = v;
	}

	macgrid m;
	const char *vn[3] = {"u", "v", "w"};
	slc_rec *vr[3];
	for (int a = 0; a < 3; a++) {
		if (!(vr[a] = find(&f, vn[a], SLC_GRID)))
			die("%s: no '%s' grid record (project needs the velocity u, v, w)", label, vn[a]);
		check_finite(vr[a], fr);
		if (field_from_rec(mac_comp(&m, a), vr[a], NULL, &err))
			die("%s: record '%s': %s", label, vn[a], err.msg);
	}
	if (mac_check(&m, &err))
		die("%s: %s", label, err.msg);
	int ni, nj, nk;
	field_cell_dims(&m.u, &ni, &nj, &nk);
	const float *solid = cell_grid(&f, "solid", &m.u, 1, 0, ni, nj, nk, fr);
	const float *phi = cell_grid(&f, "phi", &m.u, 1, 0, ni, nj, nk, fr);
	const float *us = cell_grid(&f, "solid_vel", &m.u, 3, 0, ni, nj, nk, fr);

	/* rigid bodies (rigid.h) */
	ps_body *body = NULL;
	int nbody = 0;
	slc_rec *rig = find(&f, "rigid", SLC_PARTICLES);
	if (rig && rigid_read(rig, &body, &nbody, &err))
		die("%s: record 'rigid': %s", label, err.msg);
	const float **phib = xcalloc(nbody ? (size_t)nbody : 1, sizeof *phib);
	if (nbody && !find(&f, "rigid_phi", SLC_GRID))
		die("%s: %d rigid bodies but no 'rigid_phi' record", label, nbody);
	for (int b = 0; b < nbody; b++)
		phib[b] = cell_grid(&f, "rigid_phi", &m.u, 1, b, ni, nj, nk, fr);

	size_t nfx = field_count(&m.u), nfy = field_count(&m.v), nfz = field_count(&m.w);
	float *wx = xcalloc(nfx, sizeof *wx), *wy = xcalloc(nfy, sizeof *wy);
	float *wz = xcalloc(nfz, sizeof *wz);
	if (rigid_weights(solid, phib, body, nbody, ni, nj, nk, binary, wx, wy, wz, &err))
		die("%s: %s", label, err.msg);

	psys ps;
	if (psys_init_bc(&ps, ni, nj, nk, m.u.dx, m.u.origin, density, wx, wy, wz, phi,
			 body, nbody, bc, &err))
		die("%s: %s", label, err.msg);
	psys_set_voxelized(&ps, binary);
	double *b = xcalloc(ps.n, sizeof *b), *x = xcalloc(ps.n, sizeof *x);
	double removed = psys_rhs(&ps, m.u.a, m.v.a, m.w.a, us, b);
	if (isnan(removed))
		die("out of memory");
	pcg_opts po = {precond ? PCG_MIC0 : PCG_MG, tol, (int)maxiter};
	pcg_stats st;
	if (pcg_solve(&ps, b, x, &po, &st, &err))
		die("%s: %s", label, err.msg);
	info("%s: %s-pcg: %d iterations, residual %.3g%s, %d regions (%d enclosed), "
	     "%.3fs setup, %.3fs solve", label, precond_names[precond], st.iters,
	     st.residual, st.converged ? "" : " (not converged)", ps.nregion,
	     ps.nenclosed, st.t_setup, st.t_solve);
	if (!st.converged)
		warnmsg("%s: not converged after %d iterations (residual %.3g > --tol %g)",
			label, st.iters, st.residual, tol);
	psys_update(&ps, x, m.u.a, m.v.a, m.w.a, us);

	/* output: records in input order, changed ones rewritten */
	tool_out *o = out_open(argc, argv);
	slc_rec prec = {0}, meta = {0};
	int have_p = 0;
	if (dt > 0) {
		field p;
		if (field_alloc(&p, ni, nj, nk, SLC_CELL, m.u.origin, m.u.dx, &err))
			die("%s", err.msg);
		psys_pressure(&ps, x, dt, p.a);
		if (field_to_rec(&p, &prec, "p", vr[0]->time, &err))
			die("%s", err.msg);
		field_free(&p);
		check_finite(&prec, fr);
	} else {
		info("%s: no time step (scene dt or --dt): p not written", label);
	}
	if (nbody && rigid_write(rig, body, nbody, &err))
		die("%s: record 'rigid': %s", label, err.msg);
	char val[64];
	if (slc_meta_init(&meta, "project", &err))
		die("%s", err.msg);
#define SETV(k, ...) do { snprintf(val, sizeof val, __VA_ARGS__); \
		if (slc_meta_set(&meta, k, val, &err)) die("%s", err.msg); } while (0)
	SETV("iterations", "%d", st.iters);
	SETV("residual", "%.6g", st.residual);
	SETV("converged", "%d", st.converged);
	SETV("precond", "%s", precond_names[precond]);
	SETV("weights", "%s", weight_names[binary]);
	SETV("tol", "%.6g", tol);
	SETV("boundary", "%s", bc_names[bc]);
	SETV("regions", "%d", ps.nregion);
	SETV("enclosed", "%d", ps.nenclosed);
	SETV("compat_flux", "%.6g", removed * m.u.dx * m.u.dx);
	for (size_t q = 0; q < f.n; q++) {
		slc_rec *r = &f.r[q];
		if (r == vr[0] || r == vr[1] || r == vr[2] || (nbody && r == rig)) {
			check_finite(r, fr);
			out_write(o, r);
		} else if (r->kind == SLC_GRID && !strcmp(r->name, "p") && dt > 0) {
			out_write(o, &prec);
			have_p = 1;
		} else if (r->kind == SLC_META && !strcmp(r->name, "project")) {
			continue;       /* replaced by this run's */
		} else {
			out_pass(o, r);
		}
	}
	if (dt > 0 && !have_p)
		out_write(o, &prec);
	out_write(o, &meta);
	out_close(o);

	psys_free(&ps);
	rigid_free_fractions(body, nbody);
	free(body), free(phib);
	free(wx), free(wy), free(wz), free(b), free(x);
	slc_rec_free(&prec), slc_rec_free(&meta);
	for (size_t q = 0; q < f.n; q++)
		slc_rec_free(&f.r[q]);
	free(f.r);
	in_close(in);
	return 0;
}
