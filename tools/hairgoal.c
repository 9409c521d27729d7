/* hairgoal: move the pinned roots of hair with a rigid body.  Reads a
 * frame holding a strands record and a skeleton (mkprim head, arm or ball
 * --path at the time the roots must reach) and sets the strands' goal
 * channels to their rest shape moved by one bone (prim_rigid_goals,
 * lib/prim/prim_head.h), for hairstep to drive its pinned points there over
 * the next frame (selle2008 thesis §7.6: roots embedded in the scalp).
 * Every other record is passed on unchanged. */
#include <string.h>

#include "prim/prim_head.h"
#include "tool.h"

static const char *hair = "hair", *skeleton = "skeleton";
static int drop_skeleton;
static long bone;
static const struct opt_range bone_range = { 0, 1, 0 };

static const struct tool_opt opts[] = {
	{ "hair", 0, OPT_STRING, &hair, "NAME", "strands record whose goals to set (hair)", 0, 0, 0 },
	{ "skeleton", 0, OPT_STRING, &skeleton, "NAME", "meta record of the bones (skeleton)", 0, 0, 0 },
	{ "bone", 0, OPT_INT, &bone, "K", "bone whose rest-to-pose matrix moves the roots (0)", 0, 0, &bone_range },
	{ "drop-skeleton", 0, OPT_FLAG, &drop_skeleton, NULL, "do not pass the skeleton record on", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"hairgoal", "Set the goals of hair's pinned points to its rest shape moved by a skeleton's bone.",
	"[FILE]",
	"The strands record gets the point channel goal = M rest (P without rest) and,\n"
	"when it holds hairstep's virtual particles, the detail channel\n"
	"virt_goal = M virt_rest, M the 3x4 matrix bone.K of the meta record\n"
	"--skeleton (as mkprim's animated shapes write it).  Give it the skeleton of\n"
	"the time the next hairstep ends at: the pinned roots move there rigidly.",
	opts
};

int
main(int argc, char **argv)
{
	slc_frame F;
	slc_rec *hr, *sk;
	double M[12];
	slc_err err;
	int first = tool_parse(argc, argv, &tinfo);

	if (argc - first > 1)
		usage_die("at most one input");
	const char *path = first < argc ? argv[first] : NULL;
	const char *label = !path || !strcmp(path, "-") ? "<stdin>" : path;

	slc_frame_init(&F);
	read_frame(&F, path);
	if (!(hr = slc_frame_find(&F, hair, SLC_STRANDS)))
		die("%s: no strands record '%s'", label, hair);
	if (!(sk = slc_frame_find(&F, skeleton, SLC_META)))
		die("%s: no meta record '%s'", label, skeleton);
	if (prim_bone_read(sk, (int)bone, M, &err) ||
	    prim_rigid_goals(hr, M, &err))
		die("%s: %s", label, err.msg);
	check_finite(hr, -1);

	tool_out *out = out_open(argc, argv);
	for (size_t i = 0; i < F.n; i++) {
		if (F.r[i] == hr)
			out_write(out, F.r[i]);
		else if (!(F.r[i] == sk && drop_skeleton))
			out_pass(out, F.r[i]);
	}
	out_close(out);
	slc_frame_free(&F);
	return 0;
}
