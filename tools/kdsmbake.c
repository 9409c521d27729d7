/* kdsmbake: the kinematically deforming skinned mesh (KDSM) around an
 * animated character (Lee, Hyde, Li, Fedkiw 2019, §2, §3.1), baked once
 * from its animation for the water on it.  Two modes:
 *
 *   kdsmbake lattice REST.slc --like grid.slc -o lattice.slc
 *       once: the BCC lattice around the skin's rest pose, its tets,
 *       anchors and nearest skin points (lib/kdsm/kdsm_lattice.c);
 *   kdsmbake frame --lattice lattice.slc FRAME.slc --like grid.slc -o kdsm-N.slc
 *       per frame, independent of every other frame: the posed, subdivided
 *       tet mesh `kdsm` with its channels, the figures `kdsmbake`, and the
 *       character's grids solid, solid_vel, solid_slip (lib/kdsm/).
 *
 * Frames share nothing but the lattice, so `make -j` bakes them in
 * parallel and frame N baked alone has the bytes of frame N of a whole
 * bake. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "core/meta.h"
#include "geom/sdf_recs.h"
#include "kdsm/kdsm.h"
#include "kdsm/kdsm_recs.h"

static const char *like, *lattice, *from, *hair_name;
static double dx, ratio = 4, shell = 1;
/* not from the paper: a human hair is about 80 micrometres thick */
#define HAIR_RADIUS 4e-5
static double hair_radius = HAIR_RADIUS;
static long levels = 2, samples = 8;
static const struct opt_range ratio_r = { 4, 8, 0 };     /* §3.1: dx/4 .. dx/8 */
static const struct opt_range levels_r = { 0, KDSM_LEVELS_MAX, 0 };
static const struct opt_range samples_r = { 1, 64, 0 };
static const struct opt_range shell_r = { 0, 100, 0 };

static const struct tool_opt opts[] = {
	{ "like", 0, OPT_STRING, &like, "FILE", "simulation grid: the first grid record of FILE "
	  "(lattice: its dx; frame: solid grids on it)", 0, 0, 0 },
	{ "dx", 0, OPT_DOUBLE, &dx, "DX", "lattice: background cell size in metres instead of --like's", 0, 0,
	  &opt_positive },
	{ "ratio", 0, OPT_DOUBLE, &ratio, "R", "lattice: fine tets of spacing dx/R, 4..8 (4; §3.1)", 0, 0, &ratio_r },
	{ "levels", 0, OPT_INT, &levels, "L", "lattice: red subdivisions of the coarse lattice of spacing\n"
	  "                            2^L dx/R, where the springs are solved, 0..4 (2)", 0, 0, &levels_r },
	{ "shell", 0, OPT_DOUBLE, &shell, "CELLS", "lattice: thickness of the mesh around the skin, in dx, 0..100 (1)",
	  0, 0, &shell_r },
	{ "samples", 0, OPT_INT, &samples, "N", "lattice: occupancy samples per tet: 1, 4, 8, 32 or 64 (8)", 0, 0,
	  &samples_r },
	{ "lattice", 0, OPT_STRING, &lattice, "FILE", "frame: the lattice from 'kdsmbake lattice'", 0, 0, 0 },
	{ "hair", 0, OPT_STRING, &hair_name, "NAME", "frame: the strands record of the frame's hair (default 'hair' when\n"
	  "                            there is one): hair, hair_dir and cap of §5", 0, 0, 0 },
	{ "hair-radius", 0, OPT_DOUBLE, &hair_radius, "R", "frame: radius of a strand, m (4e-5)", 0, 0, &opt_positive },
	{ "from", 0, OPT_STRING, &from, "NAME", "the skin's mesh record (default: the first mesh)", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"kdsmbake", "Bake the skinned tet mesh (KDSM) around an animated character.",
	"lattice|frame [FILE]",
	"lattice: from the skin's rest pose (its 'rest' channel, else P), once.\n"
	"frame: one frame of the skin (mesh with P, tri, optional v, bw; meta 'skeleton'),\n"
	"independent of the others.  Without a skeleton the interior follows the skin by the\n"
	"springs alone.  Frames of a user's character: OBJ or PLY of one topology through slcconv.",
	opts
};

/* The skin of the input frame, with the name of its input in errors. */
static void
skin_of(const slc_frame *F, const char *path, kdsm_skin *s, kdsm_skin_buf *b)
{
	slc_err err;

	if (kdsm_skin_read(F, from, s, b, &err))
		die("%s: %s", path ? path : "<stdin>", err.msg);
}

static void
do_lattice(const char *path, int argc, char **argv)
{
	slc_frame F = { 0 }, lk = { 0 }, out = { 0 };
	kdsm_skin s;
	kdsm_skin_buf b;
	kdsm_lattice L;
	slc_err err;
	slc_grid g;
	tool_out *o;
	double h;

	if (!like == !(dx > 0))
		usage_die("lattice: give the background grid by --like FILE or --dx DX, one of them");
	if (kdsm_rule((int)samples, NULL))
		usage_die("--samples: %ld, expected 1, 4, 8, 32 or 64", samples);
	read_frame(&F, path);
	skin_of(&F, path, &s, &b);
	if (like) {
		read_frame(&lk, like);
		if (sdf_recs_like(&lk, &g, &err))
			die("%s: %s", like, err.msg);
		dx = g.dx;
	}
	h = ldexp(dx / ratio, (int)levels);
	info("lattice: spacing %g (fine %g), shell %g m", h, dx / ratio, shell * dx);
	if (kdsm_lattice_build(&L, &s, h, shell * dx, (int)levels, (int)samples, &err))
		die("%s: %s", path ? path : "<stdin>", err.msg);
	info("lattice: %zu nodes, %zu coarse tets, %zu fine tets", L.nn, L.nt, L.nt << (3 * levels));
	if (kdsm_lattice_write(&L, &out, &err))
		die("%s", err.msg);
	o = out_open(argc, argv);
	for (size_t q = 0; q < out.n; q++)
		out_write(o, out.r[q]);
	out_close(o);
	kdsm_lattice_free(&L);
	kdsm_skin_buf_free(&b);
	slc_frame_free(&F);
	slc_frame_free(&lk);
	slc_frame_free(&out);
}

/* The hair of §5 from the strands record --hair (or 'hair' when there
 * is one) into m: 1 when there was hair. */
static int
hair_in(const slc_frame *F, const char *path, kdsm_mesh *m, kdsm_stats *st)
{
	const slc_rec *h = slc_frame_find(F, hair_name ? hair_name : "hair", SLC_STRANDS);
	const uint32_t *off;
	float *P;
	uint64_t np, k;
	slc_err err;
	double *d;

	if (!h && hair_name)
		die("%s: no strands record '%s'", path ? path : "<stdin>", hair_name);
	if (!h)
		return 0;
	if (!(d = slc_rec_get_f64(h, "P", 3, &np, &err)) ||
	    !(off = slc_rec_get(h, "offset", SLC_U32, 1, 0, &err)))
		die("%s: strands '%s': %s", path ? path : "<stdin>", h->name, err.msg);
	P = xcalloc(np ? np : 1, 3 * sizeof *P);
	for (k = 0; k < 3 * np; k++)
		P[k] = (float)d[k];
	if (slc_rec_find(h, "offset")->count < 1 ||
	    kdsm_hair_fraction(m, P, np, off, slc_rec_find(h, "offset")->count - 1, hair_radius, st, &err))
		die("%s: strands '%s': %s", path ? path : "<stdin>", h->name,
		    slc_rec_find(h, "offset")->count < 1 ? "empty offset table" : err.msg);
	free(P);
	free(d);
	return 1;
}

static void
do_frame(const char *path, int argc, char **argv)
{
	slc_frame F = { 0 }, LF = { 0 }, lk = { 0 }, out = { 0 };
	const slc_rec *sk;
	kdsm_skin s;
	kdsm_skin_buf b;
	kdsm_lattice L;
	kdsm_mesh m;
	kdsm_stats st;
	slc_err err;
	double frame = 0;
	tool_out *o;

	if (!lattice)
		usage_die("frame: no --lattice FILE");
	read_frame(&F, path);
	read_frame(&LF, lattice);
	if (kdsm_lattice_read(&L, &LF, &err))
		die("%s: %s", lattice, err.msg);
	slc_frame_free(&LF);
	skin_of(&F, path, &s, &b);
	if ((sk = slc_frame_find(&F, "skeleton", SLC_META)) &&
	    slc_meta_get_f64(sk, "frame", &frame, &err) < 0)
		die("%s: %s", path ? path : "<stdin>", err.msg);
	if (frame != floor(frame) || fabs(frame) > SLC_SCENE_FRAME_MAX)
		die("%s: record 'skeleton': frame %.17g: expected a whole number within +-2^53",
		    path ? path : "<stdin>", frame);
	if (kdsm_frame_bake(&L, &s, &m, &st, &err))
		die("%s: %s", path ? path : "<stdin>", err.msg);
	if (hair_in(&F, path, &m, &st))
		info("frame %g: hair volume %g m^3, %zu pieces outside the mesh, %zu tets full", frame,
		     st.hair_volume, st.hair_outside, st.hair_clamped);
	if (st.dead)
		warnmsg("frame %g: %zu of %zu tets degenerate, disabled (alive=0)", frame, st.dead, m.nt);
	info("frame %g: %zu tets, %zu nodes, %zu cut, %zu nonlocal, rank up to %d", frame, m.nt,
	     m.nn, st.cut, st.nonlocal, st.max_rank);
	if (kdsm_mesh_write(&m, &st, (long)frame, b.mesh->time, &out, &err))
		die("%s", err.msg);
	if (like) {
		read_frame(&lk, like);
		if (kdsm_solid_write(&F, b.mesh, &lk, &out, &err))
			die("%s: %s", like, err.msg);
	}
	o = out_open(argc, argv);
	for (size_t q = 0; q < out.n; q++) {
		check_finite(out.r[q], (long)frame);
		out_write(o, out.r[q]);
	}
	out_close(o);
	kdsm_mesh_free(&m);
	kdsm_lattice_free(&L);
	kdsm_skin_buf_free(&b);
	slc_frame_free(&F);
	slc_frame_free(&lk);
	slc_frame_free(&out);
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo);
	const char *path;

	if (first == argc)
		usage_die("no mode given: lattice or frame");
	if (argc - first > 2)
		usage_die("one input FILE only, got '%s' too", argv[first + 2]);
	path = argc - first == 2 ? argv[first + 1] : NULL;
	if (!strcmp(argv[first], "lattice")) {
		if (lattice || hair_name || hair_radius != HAIR_RADIUS)
			usage_die("--lattice, --hair, --hair-radius apply to frame only");
		do_lattice(path, argc, argv);
	} else if (!strcmp(argv[first], "frame")) {
		if (dx > 0 || ratio != 4 || levels != 2 || shell != 1 || samples != 8)
			usage_die("--dx, --ratio, --levels, --shell, --samples: lattice only "
				  "(the lattice file holds them)");
		do_frame(path, argc, argv);
	} else {
		usage_die("unknown mode '%s', expected lattice or frame", argv[first]);
	}
	return 0;
}
