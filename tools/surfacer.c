/* surfacer: level sets and particles -> triangle meshes.
 *
 * Reads a stream, meshes the grid level set named by --field (marching
 * cubes, lib/liquid/mcubes.h: closed, oriented, 2-manifold, welded, gradient
 * normals) and, with --particles, the particles' implicit surface (Zhu and
 * Bridson 2005 or the anisotropic kernels of Yu and Turk 2013,
 * lib/liquid/partsurf.h; the particles gathered by lib/liquid/partsurf_frame.h)
 * merged with the level set by union (kdsm-vof §4.2).
 * Writes the input records and the mesh record, or the mesh alone as OBJ
 * or PLY with --format.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "grid/field.h"
#include "liquid/mcubes.h"
#include "io/meshio.h"
#include "liquid/partsurf.h"
#include "liquid/partsurf_frame.h"
#include "liquid/surface.h"

static const char *field_name = "phi", *parts_name, *mesh_name = "surface";
static double iso, radius, support = 4, lattice_dx;
static long smooth, refine = 1;
static int format, kernel, mesh_only;

/* --smooth passes and --refine factors allowed; --support in particle radii */
static const struct opt_range smooth_range = { 0, 1000, 0 };
static const struct opt_range refine_range = { 1, 16, 0 };
static const struct opt_range support_range = { 1, 64, 0 };

static const char *const formats[] = { "slc", "obj", "ply", "ply-ascii", NULL };
static const char *const kernels[] = { "zhu-bridson", "yu-turk", NULL };

static const struct tool_opt opts[] = {
	{ "field", 'f', OPT_STRING, &field_name, "NAME",
	  "grid level set to mesh, negative inside (phi)", 0, 0, 0 },
	{ "particles", 'p', OPT_STRING, &parts_name, "NAME",
	  "particle records to mesh too, merged with the grid by union (none)", 0, 0, 0 },
	{ "name", 'n', OPT_STRING, &mesh_name, "NAME", "name of the mesh record (surface)",
	  0, 0, 0 },
	{ "format", 0, OPT_CHOICE, &format, "FMT",
	  "slc: the input stream plus the mesh; obj, ply, ply-ascii: the mesh alone (slc)",
	  formats, 0, 0 },
	{ "mesh-only", 0, OPT_FLAG, &mesh_only, NULL,
	  "slc: write the mesh record without the input records", 0, 0, 0 },
	{ "iso", 0, OPT_DOUBLE, &iso, "VALUE", "iso value of the level set, metres (0)", 0, 0, 0 },
	{ "smooth", 0, OPT_INT, &smooth, "N",
	  "volume-keeping Taubin smoothing passes, 0..1000 (0)", 0, 0, &smooth_range },
	{ "radius", 'r', OPT_DOUBLE, &radius, "R",
	  "particle radius, m (the mean of a 'radius' channel, else half the grid's dx)", 0, 0,
	  &opt_nonneg },
	{ "kernel", 0, OPT_CHOICE, &kernel, "KERNEL",
	  "particle surface: zhu-bridson or yu-turk (anisotropic) (zhu-bridson)", kernels, 0, 0 },
	{ "support", 0, OPT_DOUBLE, &support, "S",
	  "kernel radius in particle radii, 1..64 (4: twice the spacing)", 0, 0, &support_range },
	{ "dx", 0, OPT_DOUBLE, &lattice_dx, "H",
	  "particles without a grid: lattice spacing, m (the radius)", 0, 0, &opt_nonneg },
	{ "refine", 0, OPT_INT, &refine, "N",
	  "particles with a grid: sample N times finer than the grid, 1..16 (1)", 0, 0,
	  &refine_range },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"surfacer", "Mesh level sets and particles into closed triangle meshes.",
	"[FILE]",
	"With no FILE, or FILE -, read standard input.  The grid --field is meshed "
	"where it crosses\n--iso (inside: below).  With --particles, the particles' "
	"surface is sampled on the grid's\nlattice (or on one of spacing --dx "
	"around them when there is no grid) and merged with\nthe level set.  The "
	"mesh is closed at the edges of the grid.  Normals point outwards.",
	opts
};

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo);
	slc_frame in = { 0 };
	slc_rec *grec;
	field g, f, *meshed = &g;
	surf_mesh m;
	surf_stats st;
	slc_rec mr;
	slc_err err;
	ps_particles ps = { 0 };
	double time = 0, vol_err;
	size_t q;

	if (argc - first > 1)
		usage_die("one input at most (use slccat to join streams)");
	if (mesh_only && format)
		usage_die("--mesh-only: only with --format slc");
	if (!*mesh_name || strlen(mesh_name) > SLC_NAME_MAX)
		usage_die("--name: a name of 1 to %d bytes", SLC_NAME_MAX);
	read_frame(&in, first < argc ? argv[first] : NULL);
	/* decoded and checked finite here, as ps_gather does the particles */
	if (slc_frame_find_unique(&in, field_name, SLC_GRID, &grec, &err))
		die("%s", err.msg);
	if (!grec && !parts_name)
		die("no grid '%s' in the input (use --field NAME or --particles NAME)",
		    field_name);
	if (grec) {
		if (field_from_rec(&g, grec, NULL, &err))
			die("grid '%s': %s", grec->name, err.msg);
		time = grec->time;
	}
	if (parts_name) {
		ps_params p;

		if (ps_gather(&in, parts_name, &ps, &err))
			die("%s", err.msg);
		if (!grec)
			time = ps.time;
		if (radius == 0 && ps.rad) {
			radius = ps_mean_radius(&ps);
		} else if (radius == 0 && grec) {
			radius = 0.5 * g.dx;
		} else if (radius == 0) {
			die("particles '%s': no 'radius' channel and no grid: give --radius",
			    parts_name);
		}
		ps_params_default(&p, radius);
		p.kernel = kernel;
		p.support = support;
		p.dx = lattice_dx > 0 ? lattice_dx : radius;
		p.refine = (int)refine;
		p.iso = iso;
		if (ps_lattice(&p, ps.P, ps.np, grec ? &g : NULL, &f, &err) ||
		    ps_sample(&p, ps.P, ps.rad, ps.np, &f, &err))
			die("particles '%s': %s", parts_name, err.msg);
		if (grec)
			ps_union(&p, &g, &f);
		info("particles '%s': %zu, radius %g, %s kernel of radius %g on a %dx%dx%d "
		     "lattice", parts_name, ps.np, radius, kernels[kernel], support * radius,
		     f.ni, f.nj, f.nk);
		meshed = &f;
		iso = 0;
	}
	if (mc_mesh(meshed, iso, &m, &err))
		die("%s: %s", grec ? grec->name : parts_name, err.msg);
	if (m.nt == 0)
		warnmsg("no surface: nothing below the iso value; the mesh is empty");
	if (smooth) {
		if (surf_smooth(&m, (int)smooth, &vol_err, &err))
			die("--smooth: %s", err.msg);
		mc_normals(meshed, iso, &m);
		info("smoothed %ld passes, volume changed by %.2g", smooth, vol_err);
	}
	if (verbosity > 0 && surf_check(&m, &st, &err) == 0)
		info("mesh '%s': %zu triangles, %zu vertices, area %g, volume %g, "
		     "Euler characteristic %ld", mesh_name, m.nt, m.nv, st.area, st.volume,
		     st.euler);
	if (surf_mesh_to_rec(&m, &mr, mesh_name, time, &err))
		die("mesh: %s", err.msg);
	if (format == 0) {
		tool_out *o = out_open(argc, argv);

		for (q = 0; q < in.n && !mesh_only; q++)
			out_pass(o, in.r[q]);
		out_write(o, &mr);
		out_close(o);
	} else {
		FILE *fp = plain_open(out_path);
		int rc = format == 1 ? slc_obj_write(fp, &mr, &err) :
			 slc_ply_write(fp, &mr, format == 3, &err);

		if (rc)
			die("%s: %s", out_path ? out_path : "<stdout>", err.msg);
		plain_commit(fp);
	}
	slc_rec_free(&mr);
	surf_mesh_free(&m);
	if (meshed == &f)
		field_free(&f);
	ps_particles_free(&ps);
	slc_frame_free(&in);
	return 0;
}
