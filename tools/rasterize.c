/* rasterize: one frame (a sluice stream) in, one PNG picture out.
 *
 * A 3D view of the frame (level sets ray-marched and shaded, smoke
 * volume-rendered, meshes rasterized with a z-buffer, particles as
 * splats, strands as Kajiya-Kay shaded ribbons, all composited by depth; liquid and smoke evaluated
 * one-sidedly next to thin shells, selle2008 thesis §4.6), or with --slice, slices of
 * one grid through a colour map side by side.  The same input and options
 * give the same bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "render/camera.h"
#include "grid/field.h"
#include "core/meta.h"
#include "io/pngio.h"
#include "render/raster.h"
#include "render/colormap.h"
#include "render/render.h"
#include "render/render_tets.h"

#define SLICE_MAX 16            /* --slice given at most this often */
#define SIZE_MAX_PX 16384       /* largest width or height */

struct size { long w, h; };

static double eye[3] = {NAN, NAN, NAN}, target[3] = {NAN, NAN, NAN}, up[3] = {0, 1, 0}, light[3] = {-0.4, 1, 0.6};
static double fov = 40, radius, sigma = 10, albedo = 0.9, ambient = 0.15;
static double bg[3] = {0.12, 0.13, 0.15}, range[2], shell_eps = 0.01;
static double view[3] = {0.55, 0.45, 1}, iso;
static double hair_color[3] = {-1, -1, -1}, hair_width;
static struct size size = {640, 480};
static slice_spec slices[SLICE_MAX];
static long aa = 1;
static int nslice, smooth, flat_shells, mode, have_range;
static const char *field_name, *only, *frame, *levelsets = "phi,solid,sdf", *densities = "density";
static const char *shell_points;

static const char *const modes[] = {"auto", "scene", "slice", NULL};
/* a field of view strictly between 0 and 180 degrees; antialiasing 1..8 */
static const struct opt_range fov_range = {0, 180, OPEN_MIN | OPEN_MAX};
static const struct opt_range aa_range = {1, 8, 0};
static const struct opt_range unit_range = {0, 1, 0};

static int
parse_size(const char *a, void *dst)
{
	struct size *s = dst;
	char *e;

	s->w = strtol(a, &e, 10);
	if (*e != 'x' || s->w < 1 || s->w > SIZE_MAX_PX)
		return -1;
	s->h = strtol(e + 1, &e, 10);
	return *e || s->h < 1 || s->h > SIZE_MAX_PX ? -1 : 0;
}

static int
parse_vec(const char *a, double *v)
{
	char *e;
	int k;

	for (k = 0; k < 3; k++) {
		v[k] = strtod(a, &e);
		if (e == a || !isfinite(v[k]) || *e != (k < 2 ? ',' : 0))
			return -1;
		a = e + 1;
	}
	return 0;
}

/* "#rrggbb" or "r,g,b" with components in [0, 1] (sRGB) */
static int
parse_color(const char *a, void *dst)
{
	double *c = dst;
	unsigned v;
	int k;

	if (a[0] == '#') {
		if (strlen(a) != 7 || sscanf(a + 1, "%6x", &v) != 1)
			return -1;
		for (k = 0; k < 3; k++)
			c[k] = ((v >> (16 - 8 * k)) & 255) / 255.0;
		return 0;
	}
	if (parse_vec(a, c))
		return -1;
	for (k = 0; k < 3; k++)
		if (!(c[k] >= 0 && c[k] <= 1))
			return -1;
	return 0;
}

/* x|y|z=POS, POS in metres or N% of the grid's extent */
/* "x|y|z=POS", POS in metres or "N%": 0, or -1 for a bad value */
static int
axis_pos(const char *a, int *axis, double *pos, int *percent)
{
	char *e;

	if (!a[0] || !strchr("xyz", a[0]) || a[1] != '=')
		return -1;
	*axis = a[0] - 'x';
	*pos = strtod(a + 2, &e);
	*percent = *e == '%';
	return e == a + 2 || *(e + *percent) || !isfinite(*pos) ? -1 : 0;
}

/* "LO,HI" with LO < HI, both finite: 0, or -1 for a bad value */
static int
lo_hi(const char *a, double *lo, double *hi)
{
	char *e;

	*lo = strtod(a, &e);
	if (e == a || *e != ',')
		return -1;
	*hi = strtod(e + 1, &e);
	return *e || !(*hi > *lo) || !isfinite(*hi - *lo) ? -1 : 0;
}

static int
parse_slice(const char *a, void *dst)
{
	slice_spec *s = &((slice_spec *)dst)[nslice];

	if (nslice == SLICE_MAX || axis_pos(a, &s->axis, &s->pos, &s->percent))
		return -1;
	nslice++;
	return 0;
}

static int
parse_range(const char *a, void *dst)
{
	double *r = dst;

	have_range = 1;
	return lo_hi(a, &r[0], &r[1]);
}

/* --- tet meshes (render/render_tets.h): the outer surface of every tets
 * record drawn, and a cut through it coloured by a per-tet channel ------ */
static tets_style tet_style = {.field = "rank"};
static const char *const tet_sides[] = {"below", "above", NULL};

/* x|y|z=POS, POS in metres or N% of the live tets' box */
static int
parse_tet_cut(const char *a, void *dst)
{
	tets_style *s = dst;

	s->cut = 1;
	return axis_pos(a, &s->axis, &s->pos, &s->percent);
}

static int
parse_tet_range(const char *a, void *dst)
{
	tets_style *s = dst;

	s->have_range = 1;
	return lo_hi(a, &s->lo, &s->hi);
}

/* Draw the tets records of F that --only names (all without it). */
static void
tets_scene_draw(rimage *im, const camera *cam, const slc_frame *F, const char *label)
{
	slc_err err;

	for (int a = 0; a < 3; a++)
		tet_style.albedo[a] = TETS_GREY;
	memcpy(tet_style.light, light, sizeof light);
	tet_style.ambient = TETS_AMBIENT;
	tet_style.smooth = smooth;
	if (tets_frame_draw(im, cam, F, only, &tet_style, &err))
		die("%s: %s", label, err.msg);
}
/* --- end of tet meshes ------------------------------------------------- */

static const struct tool_opt opts[] = {
	{"eye", 0, OPT_VEC3, eye, "X,Y,Z", "camera position (default: framing the whole frame)", 0, 0, 0},
	{"target", 0, OPT_VEC3, target, "X,Y,Z", "point looked at (default: centre of the frame)", 0, 0, 0},
	{"up", 0, OPT_VEC3, up, "X,Y,Z", "up direction (default 0,1,0)", 0, 0, 0},
	{"view", 0, OPT_VEC3, view, "X,Y,Z", "direction from target to eye when --eye is not given (default 0.55,0.45,1)", 0, 0, 0},
	{"fov", 0, OPT_DOUBLE, &fov, "DEG", "vertical field of view (default 40)", 0, 0, &fov_range},
	{"size", 0, OPT_FUNC, &size, "WxH", "picture size in pixels (default 640x480)", 0, parse_size, 0},
	{"aa", 0, OPT_INT, &aa, "N", "antialias: draw N x N samples per pixel, 1..8 (default 1)", 0, 0, &aa_range},
	{"background", 0, OPT_FUNC, bg, "COLOR", "#rrggbb or r,g,b in 0..1 (default 0.12,0.13,0.15)", 0, parse_color, 0},
	{"mode", 0, OPT_CHOICE, &mode, "MODE", "scene: 3D view; slice: --slice panels; auto: slice if --slice is given", modes, 0, 0},
	{"slice", 0, OPT_FUNC, slices, "A=POS", "slice at x|y|z=POS metres (or POS%) of --field; repeat for panels side by side", 0, parse_slice, 0},
	{"field", 0, OPT_STRING, &field_name, "NAME", "grid to slice; 'speed' for |u| from u,v,w (default: phi, else density, else the first grid)", 0, 0, 0},
	{"range", 0, OPT_FUNC, range, "LO,HI", "slice colour range (default: the field's; symmetric for level sets)", 0, parse_range, 0},
	{"levelsets", 0, OPT_STRING, &levelsets, "NAMES", "grids drawn as zero level sets (default phi,solid,sdf)", 0, 0, 0},
	{"densities", 0, OPT_STRING, &densities, "NAMES", "grids drawn as smoke (default density)", 0, 0, 0},
	{"only", 0, OPT_STRING, &only, "NAMES", "draw only the records with these comma-separated names", 0, 0, 0},
	{"frame", 0, OPT_STRING, &frame, "NAMES", "frame the automatic camera on these records, drawn or not (default: those drawn)", 0, 0, 0},
	{"iso", 0, OPT_DOUBLE, &iso, "CELLS", "level sets at phi = CELLS cells (surfaces, slice contours), e.g. 1 for a thin shell's unsigned distance (default 0)", 0, 0, 0},
	{"smooth", 0, OPT_FLAG, &smooth, NULL, "smooth-shade meshes (default flat)", 0, 0, 0},
	{"radius", 0, OPT_DOUBLE, &radius, "R", "particle radius without a radius channel (default 0.4% of the view)", 0, 0, &opt_nonneg},
	{"hair-color", 0, OPT_FUNC, hair_color, "COLOR", "strands without a Cd channel: #rrggbb or r,g,b in 0..1 (default brown)", 0, parse_color, 0},
	{"hair-width", 0, OPT_DOUBLE, &hair_width, "W", "strand ribbon width, m, at least a pixel (default the particle radius)", 0, 0, &opt_nonneg},
	{"light", 0, OPT_VEC3, light, "X,Y,Z", "direction towards the light (default -0.4,1,0.6)", 0, 0, 0},
	{"sigma", 0, OPT_DOUBLE, &sigma, "S", "smoke extinction per unit density, 1/m (default 10)", 0, 0, &opt_nonneg},
	{"albedo", 0, OPT_DOUBLE, &albedo, "A", "smoke scattering albedo 0..1 (default 0.9)", 0, 0, &unit_range},
	{"ambient", 0, OPT_DOUBLE, &ambient, "A", "smoke ambient light (default 0.15)", 0, 0, &opt_nonneg},
	{"shell-eps", 0, OPT_DOUBLE, &shell_eps, "CELLS", "thin shell wedge thickness in cells (default 0.01)", 0, 0, &opt_positive},
	{"shell-points", 0, OPT_STRING, &shell_points, "NAME", "draw meshes that have this point channel (e.g. P_prev, the shell at the fluid's time) there, and evaluate level sets and smoke one-sidedly against it (default P)", 0, 0, 0},
	{"two-sided", 0, OPT_FLAG, &flat_shells, NULL, "plain interpolation of level sets and smoke next to meshes (no one-sided evaluation)", 0, 0, 0},
	{"tet-cut", 0, OPT_FUNC, &tet_style, "A=POS", "cut tet meshes open at x|y|z=POS metres (or POS% of their box)", 0, parse_tet_cut, 0},
	{"tet-keep", 0, OPT_CHOICE, &tet_style.keep_above, "SIDE", "side of --tet-cut kept: below or above (default below)", tet_sides, 0, 0},
	{"tet-field", 0, OPT_STRING, &tet_style.field, "NAME", "per-tet channel colouring the cut, viridis (default rank)", 0, 0, 0},
	{"tet-range", 0, OPT_FUNC, &tet_style, "LO,HI", "its colour range (default: the cut tets')", 0, parse_tet_range, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0},
};

static const struct tool_info tinfo = {
	"rasterize", "Draw one frame of a sluice stream as a PNG picture.", "[FILE]",
	"With no FILE, or FILE -, read standard input; the PNG goes to -o FILE "
	"(written atomically)\nor standard output.  Level sets, smoke, meshes, "
	"particles and strands are composited\nby depth.",
	opts
};

/* The 3D view of the frame F: the camera framed on what is drawn, or on
 * the records named by --frame. */
static void
draw_scene(rimage *im, const slc_frame *F, const char *label)
{
	scene_opts so;
	camera cam;
	slc_err err;
	double lo[3], hi[3], e[3], t[3], diag;
	int a, cnt;

	memset(&so, 0, sizeof so);
	so.only = only;
	so.levelsets = levelsets;
	so.densities = densities;
	so.smooth = smooth;
	so.radius = radius;
	so.one_sided = !flat_shells;
	so.shell_eps = shell_eps;
	so.shell_points = shell_points;
	so.iso = iso;
	memcpy(so.light, light, sizeof light);
	so.hair_width = hair_width;
	so.hair_rgb_set = hair_color[0] >= 0;
	for (a = 0; a < 3 && so.hair_rgb_set; a++)
		so.hair_rgb[a] = srgb_to_linear(hair_color[a]);
	so.smoke.sigma = sigma;
	so.smoke.albedo = albedo;
	so.smoke.ambient = ambient;
	so.smoke.intensity = 1;
	so.smoke.color[0] = so.smoke.color[1] = so.smoke.color[2] = 1;
	if ((cnt = scene_all_bounds(F, &so, only, lo, hi, &err)) < 0)
		die("%s: %s", label, err.msg);
	if (cnt == 0)
		die("%s: nothing to draw (no level set, density, mesh, tets, particles or strands)", label);
	if (frame && (cnt = scene_all_bounds(F, &so, frame, lo, hi, &err)) < 0)
		die("%s: --frame %s: %s", label, frame, err.msg);
	if (frame && cnt == 0)
		die("%s: --frame %s: no drawable record", label, frame);
	/* a box the automatic camera cannot frame is the data's fault: its
	 * extent overflows, or is too small for its place */
	if ((isnan(eye[0]) || isnan(target[0])) &&
	    camera_frame(lo, hi, view, fov, (double)size.w / size.h, e, t, &err))
		die("%s: cannot frame the records drawn: %s", label, err.msg);
	diag = camera_box_diag(lo, hi);
	if (isnan(eye[0]))
		memcpy(eye, e, sizeof e);
	if (isnan(target[0]))
		memcpy(target, t, sizeof t);
	if (camera_init(&cam, eye, target, up, fov, im->w, im->h, &err))
		usage_die("camera: %s", err.msg);
	tets_scene_draw(im, &cam, F, label);
	if (scene_draw(im, &cam, F, &so, diag, &err))
		die("%s: %s", label, err.msg);
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), a;
	const char *path = first < argc ? argv[first] : NULL;
	const char *label = !path || !strcmp(path, "-") ? "<stdin>" : path;
	slc_frame F = {0};
	size_t k;
	rimage im;
	slc_err err;
	uint8_t *rgb;
	FILE *f;
	double l = sqrt(light[0] * light[0] + light[1] * light[1] + light[2] * light[2]);

	if (argc - first > 1)
		usage_die("one input stream at most (one frame, one picture)");
	if (!(l > 0))
		usage_die("--light: %g,%g,%g, expected a nonzero direction", light[0], light[1],
			  light[2]);
	for (a = 0; a < 3; a++)
		light[a] /= l;
	if (mode == 2 && nslice == 0)
		usage_die("--mode slice needs --slice");
	read_frame(&F, path);   /* a NaN or Inf is refused, naming where, when read or drawn */
	for (k = 0; k < F.n; k++)
		if (slc_rec_validate(F.r[k], &err))
			die("%s: record '%s': %s", label, F.r[k]->name, err.msg);
	if (rimage_alloc(&im, (int)(size.w * aa), (int)(size.h * aa), bg, &err))
		die("%s", err.msg);
	if (mode == 2 || (mode == 0 && nslice > 0)) {
		if (scene_slices(&im, &F, only, field_name, levelsets, slices, nslice,
				 iso, have_range ? range : NULL, &err))
			die("%s: %s", label, err.msg);
	} else
		draw_scene(&im, &F, label);
	rgb = xcalloc((size_t)size.w * size.h, 3);
	rimage_to_rgb8(&im, (int)aa, rgb);
	f = plain_open(out_path);
	if (pngio_write_rgb8(f, (int)size.w, (int)size.h, rgb, &err))
		die("%s: %s", out_path ? out_path : "<stdout>", err.msg);
	plain_commit(f);
	free(rgb);
	rimage_free(&im);
	slc_frame_free(&F);
	return 0;
}
