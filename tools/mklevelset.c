/* mklevelset: triangle meshes, particles and hair strands -> signed
 * distance on a grid, with the occlusion velocity and slip fields of
 * houston2003; or
 * --redistance: grid level sets -> signed distance again.  The numerics
 * are in lib/geom/sdf.c, lib/grid/redistance.c and lib/geom/occlusion.c, what is done
 * per record and to the chosen records together in lib/geom/sdf_recs.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "grid/field.h"
#include "io/meshio.h"
#include "geom/occlusion.h"
#include "grid/redistance.h"
#include "geom/sdf.h"
#include "geom/sdf_recs.h"

#define MAX_SLIP 64             /* --slip NAME=V entries */
#define MAX_CELLS ((size_t)1 << 31)     /* samples per grid */

static double dx, pad = 4, band = 3, width, dt, radius, box[6];
static long res = 64;
static int unsig, redist, occl, have_box, narrow;
static const char *like, *from, *name, *prev;
static struct { char name[SLC_NAME_MAX + 1]; double v; } slip[MAX_SLIP];
static int nslip;
static double slip_all;
static const char **src;        /* the file each input record came from */
static slc_frame in;            /* the input records */
static const struct opt_range at_least_1 = { 1, HUGE_VAL, 0 };

static int
parse_box(const char *arg, void *dst)
{
	double *b = dst;
	char *end;
	int a;

	for (a = 0; a < 6; a++, arg = end + 1) {
		b[a] = strtod(arg, &end);
		if (end == arg || !isfinite(b[a]) || *end != (a < 5 ? ',' : '\0'))
			return -1;
	}
	have_box = 1;
	return b[0] < b[3] && b[1] < b[4] && b[2] < b[5] ? 0 : -1;
}

static int
parse_slip(const char *arg, void *dst)
{
	const char *eq = strchr(arg, '=');
	char *end;
	double v = strtod(eq ? eq + 1 : arg, &end);

	(void)dst;
	if (*end || end == (eq ? eq + 1 : arg) || !(v >= 0 && v <= 1))
		return -1;
	if (!eq) {
		slip_all = v;
		return 0;
	}
	if (nslip == MAX_SLIP || eq == arg || (size_t)(eq - arg) > SLC_NAME_MAX)
		return -1;
	memcpy(slip[nslip].name, arg, (size_t)(eq - arg));
	slip[nslip++].v = v;
	return 0;
}

static const struct tool_opt opts[] = {
	{ "dx", 0, OPT_DOUBLE, &dx, "DX", "cell size in metres (default: from --res)", 0, 0, &opt_nonneg },
	{ "res", 0, OPT_INT, &res, "N", "cells along the longest side of the box (default 64)", 0, 0, &at_least_1 },
	{ "pad", 0, OPT_DOUBLE, &pad, "CELLS", "cells of margin around the input's bounding box (default 4)", 0, 0, &opt_nonneg },
	{ "box", 0, OPT_FUNC, box, "X0,Y0,Z0,X1,Y1,Z1", "grid box in metres instead of the padded bounding box", 0, parse_box, 0 },
	{ "like", 0, OPT_STRING, &like, "FILE", "place the grid like the first grid record of FILE", 0, 0, 0 },
	{ "band", 0, OPT_DOUBLE, &band, "CELLS", "half-width of the exact-distance band, >= 1 (default 3)", 0, 0, &at_least_1 },
	{ "narrow", 0, OPT_FLAG, &narrow, NULL, "beyond the band write +-band*dx instead of marching the whole grid", 0, 0, 0 },
	{ "unsigned", 0, OPT_FLAG, &unsig, NULL, "unsigned distance (thin shells: cloth, open cups)", 0, 0, 0 },
	{ "from", 0, OPT_STRING, &from, "NAMES", "comma-separated input records to use (default: every mesh, particle and strands record; with --redistance, phi)", 0, 0, 0 },
	{ "name", 0, OPT_STRING, &name, "NAME", "output level set record (default solid, or phi from particles only)", 0, 0, 0 },
	{ "occlusion", 0, OPT_FLAG, &occl, NULL, "also write NAME_vel (f32x3) and NAME_slip (houston2003)", 0, 0, 0 },
	{ "slip", 0, OPT_FUNC, NULL, "[MESH=]A", "slip coefficient, 0 full slip .. 1 no slip, for all or one mesh (default 0)", 0, parse_slip, 0 },
	{ "prev", 0, OPT_STRING, &prev, "FILE", "previous frame of the meshes: velocity = (P - Pprev)/dt", 0, 0, 0 },
	{ "dt", 0, OPT_DOUBLE, &dt, "DT", "seconds between --prev and this frame (default: from record times)", 0, 0, 0 },
	{ "radius", 0, OPT_DOUBLE, &radius, "R", "particle and strand radius in metres when there is no 'radius' channel (default dx)", 0, 0, 0 },
	{ "redistance", 0, OPT_FLAG, &redist, NULL, "redistance the grid records named by --from instead", 0, 0, 0 },
	{ "width", 0, OPT_DOUBLE, &width, "CELLS", "with --redistance: clamp beyond this many cells (default: whole grid)", 0, 0, &opt_nonneg },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"mklevelset", "Make signed distance fields from meshes, particles and hair, or redistance level sets.",
	"[FILE]...",
	"Reads sluice streams (standard input without FILE) and OBJ, PLY or STL files (by extension).  Every record passes through; records named\n"
	"like the output are replaced.  Inside is negative.  The sign comes from rays cast along x, y and z\n"
	"voting inside/outside (houston2003 §3.1), so holes, flipped or repeated triangles are tolerated;\n"
	"a mesh with no consistent inside is refused unless --unsigned is given.  Particles give the union\n"
	"of their spheres, hair strands the union of capsules around their segments.",
	opts
};

/* Append the records of a stream, or of an OBJ, PLY or STL file (one
 * record named after the file, without directory and extension); for the
 * input records, note where each came from. */
static void
read_all(slc_frame *F, const char *path)
{
	int fmt = path ? slc_mfmt_from_path(path) : SLC_MF_NONE;
	char nm[SLC_NAME_MAX + 1], *dot;
	const char *base;
	slc_rec r;
	slc_mesh_notes notes;
	slc_err err;
	size_t q = F->n;

	if (fmt != SLC_MF_OBJ && fmt != SLC_MF_PLY && fmt != SLC_MF_STL) {
		read_frame(F, path);
	} else {
		base = strrchr(path, '/');
		snprintf(nm, sizeof nm, "%s", base ? base + 1 : path);
		if ((dot = strrchr(nm, '.')) && dot != nm)
			*dot = '\0';
		if (slc_mesh_load(path, fmt, nm, &r, &notes, &err) || !slc_frame_put(F, &r, &err))
			die("%s", err.msg);
		mesh_notes_warn(path, &notes);
	}
	if (F == &in && !(src = realloc(src, (F->n + 1) * sizeof *src)))
		die("out of memory");
	for (; F == &in && q < F->n; q++)
		src[q] = path ? path : "<stdin>";
}

static double
slip_of(const char *obj)
{
	for (int s = nslip - 1; s >= 0; s--)
		if (!strcmp(slip[s].name, obj))
			return slip[s].v;
	return slip_all;
}

/* Write grid record NAME+suffix holding n*ncomp floats, checked finite. */
static void
put(tool_out *o, const char *suffix, const slc_grid *g, int ncomp,
    const float *a, double t)
{
	char nm[SLC_NAME_MAX + 16];
	size_t n = (size_t)g->ni * g->nj * g->nk;
	slc_rec r;
	slc_err err;
	float *d;

	snprintf(nm, sizeof nm, "%s%s", name, suffix);
	slc_rec_init(&r, SLC_GRID, nm);
	if (!(d = slc_grid_new(&r, nm, g, (uint32_t)ncomp, &err)))
		die("%s", err.msg);
	r.time = t;     /* after slc_grid_new, which starts the record anew */
	memcpy(d, a, n * (size_t)ncomp * sizeof *d);
	check_finite(&r, -1);
	out_write(o, &r);
	slc_rec_free(&r);
}

/* The -v line of a mesh whose level set is made. */
static void
mesh_info(void *ctx, const slc_rec *r, const sdf_stats *st)
{
	(void)ctx;
	info("mesh '%s': %zu samples in the band, %zu duplicate triangles, "
	     "%zu of %zu lines odd", r->name, st->nband, st->nduplicate,
	     st->lines_odd, st->lines_hit);
}

/* Die with sdf_recs_levelset's error, naming the input of the record that
 * failed (for a velocity from --prev, that file), with a hint where the
 * options can help. */
static _Noreturn void
levelset_die(const sdf_recs_out *lo, const slc_err *err)
{
	const slc_rec *r = lo->bad < in.n ? in.r[lo->bad] : NULL;

	if (!r)
		die("%s", err->msg);
	if (lo->step == SDF_RECS_VELOCITY)
		die("%s: %s%s", prev && !slc_rec_find(r, "v") ? prev : src[lo->bad], err->msg,
		    prev && dt <= 0 && lo->bad_dt ? " (give --dt)" : "");
	die("%s: %s%s", src[lo->bad], err->msg,
	    lo->thin_shell ? "; use --unsigned for a thin shell" : "");
}

/* --redistance: every grid record named by --from (default phi)
 * redistanced, the other records passed on. */
static void
redistance_all(tool_out *o)
{
	const char *sel = from ? from : "phi";
	slc_rec outr;
	slc_err err;
	int done = 0;

	for (size_t q = 0; q < in.n; q++) {
		const slc_rec *r = in.r[q];

		if (r->kind != SLC_GRID || !slc_name_listed(r->name, sel)) {
			out_pass(o, r);
			continue;
		}
		if (slc_frame_decode(&in, in.r[q], &err) ||
		    redistance_rec(r, width, &outr, &err))
			die("%s: record '%s': %s", src[q], r->name, err.msg);
		check_finite(&outr, -1);
		out_write(o, &outr);
		slc_rec_free(&outr);
		done = 1;
	}
	if (!done)
		die("no grid record named %s in the input", sel);
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), *use, nmesh, npart, nhair;
	slc_frame pv = { 0 }, lk = { 0 };
	slc_grid g = { 0 };
	sdf_recs_in li = { 0 };
	sdf_recs_out lo;
	slc_err err;
	double t0 = 0, *slips;
	size_t q, n;
	tool_out *o;

	if (first == argc)
		read_all(&in, NULL);
	for (int a = first; a < argc; a++)
		read_all(&in, argv[a]);
	o = out_open(argc, argv);
	if (redist) {
		redistance_all(o);
		out_close(o);
		slc_frame_free(&in);
		free(src);
		return 0;
	}
	use = xcalloc(in.n + 1, sizeof *use);
	sdf_recs_select(&in, from, use, &nmesh, &npart, &nhair, &t0);
	if (!nmesh && !npart && !nhair)
		die("no mesh, particle or strands record%s%s in the input", from ? " named " : "",
		    from ? from : "");
	if (occl && (npart || nhair))
		die("--occlusion: the velocity and slip fields come from meshes only");
	if (!name)
		name = nmesh || nhair ? "solid" : "phi";
	if (prev)
		read_all(&pv, prev);
	if (like)
		read_all(&lk, like);
	if (sdf_recs_place(&in, use, like ? &lk : NULL, have_box ? box : NULL, pad, dx, res,
			   radius, &g, &err))
		die("%s%s%s", like ? like : "", like ? ": " : "", err.msg);
	slc_frame_free(&lk);
	if (slc_mul3((size_t)g.ni, (size_t)g.nj, (size_t)g.nk, &n) || n > MAX_CELLS)
		die("grid %dx%dx%d is too large", g.ni, g.nj, g.nk);
	if (radius <= 0)
		radius = g.dx;
	dx = g.dx;
	info("grid %dx%dx%d, dx %g, origin %g,%g,%g", g.ni, g.nj, g.nk, g.dx,
	     g.origin[0], g.origin[1], g.origin[2]);
	li.use = use;
	li.slip = slips = xcalloc(in.n + 1, sizeof *slips);
	for (q = 0; q < in.n; q++)
		slips[q] = slip_of(in.r[q]->name);
	li.radius = radius;
	li.o = (sdf_opts){ band, unsig, narrow };
	li.occl = occl;
	li.prev = prev ? &pv : NULL;
	li.dt = dt;
	li.mesh_done = mesh_info;
	if (sdf_recs_levelset(&in, &li, &g, &lo, &err))
		levelset_die(&lo, &err);
	for (q = 0; q < in.n; q++)
		if (!(in.r[q]->kind == SLC_GRID && sdf_recs_replaces(in.r[q]->name, name, occl)))
			out_pass(o, in.r[q]);
	put(o, "", &g, 1, lo.phi.a, t0);
	if (occl) {
		put(o, "_vel", &g, 3, lo.vel, t0);
		put(o, "_slip", &g, 1, lo.slip, t0);
	}
	out_close(o);
	slc_frame_free(&in);
	slc_frame_free(&pv);
	free(use);
	free(slips);
	free(src);
	sdf_recs_out_free(&lo);
	return 0;
}
