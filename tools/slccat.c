/* slccat: concatenate sluice streams, keeping, dropping, renaming or
 * re-encoding records.  Records it does not change pass byte-identical.
 * A zlib record is checked in full but kept encoded (in_defer), so a
 * record passed on or renamed costs its stored size, not its decoded
 * size; only --reencode decodes. */
#include <string.h>

#include "tool.h"

static const char *only, *drop, *rename_arg;
static int reencode, kind = -1;

static const char *const kinds[] = { "end", "meta", "grid", "mesh", "tets",
				     "particles", "strands", NULL };

static const struct tool_opt opts[] = {
	{ "only", 0, OPT_STRING, &only, "NAMES",
	  "keep only records with these comma-separated names", 0, 0, 0 },
	{ "drop", 0, OPT_STRING, &drop, "NAMES",
	  "drop records with these comma-separated names", 0, 0, 0 },
	{ "kind", 0, OPT_CHOICE, &kind, "KIND", "keep only records of this kind",
	  kinds, 0, 0 },
	{ "rename", 0, OPT_STRING, &rename_arg, "OLD=NEW",
	  "rename records called OLD to NEW", 0, 0, 0 },
	{ "reencode", 0, OPT_FLAG, &reencode, NULL,
	  "re-encode every record (with --zlib N, or raw) instead of passing it on",
	  0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"slccat", "Concatenate sluice streams, selecting and renaming records.",
	"[FILE]...",
	"With no FILE, or FILE -, read standard input.  The provenance records of "
	"the inputs are merged\ninto one.",
	opts
};

static void
cat(tool_out *o, const char *path, const char *from, const char *to)
{
	tool_in *in = in_open(path);
	slc_rec r;
	slc_err err;

	in_defer(in);
	while (in_read(in, &r)) {
		int keep = (!only || slc_name_listed(r.name, only)) &&
			   !(drop && slc_name_listed(r.name, drop)) &&
			   (kind < 0 || (int)r.kind == kind);

		/* a renamed record still encoded keeps its stored payload
		 * (slc_write); --reencode decodes to encode it anew */
		if (keep && reencode && slc_rec_decode(&r, &err))
			die("%s: %s", in_label(in), err.msg);
		if (keep && from && !strcmp(r.name, from)) {
			strcpy(r.name, to);
			out_write(o, &r);
		} else if (keep) {
			if (reencode)
				out_write(o, &r);
			else
				out_pass(o, &r);
		}
		slc_rec_free(&r);
	}
	in_close(in);
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), a;
	char from[SLC_NAME_MAX + 1] = "", *eq;
	const char *to = NULL;
	tool_out *o;

	if (rename_arg) {
		eq = strchr(rename_arg, '=');
		if (!eq || eq == rename_arg || !eq[1] ||
		    (size_t)(eq - rename_arg) > SLC_NAME_MAX || strlen(eq + 1) > SLC_NAME_MAX)
			usage_die("--rename: expected OLD=NEW, got '%s'", rename_arg);
		memcpy(from, rename_arg, (size_t)(eq - rename_arg));
		from[eq - rename_arg] = '\0';
		to = eq + 1;
	}
	if (kind == 0)
		usage_die("--kind: end records are not selectable");
	/* read every input fully before the output is committed: a damaged
	 * input dies, and -o FILE is left as it was */
	o = out_open(argc, argv);
	if (first == argc)
		cat(o, NULL, to ? from : NULL, to);
	for (a = first; a < argc; a++)
		cat(o, argv[a], to ? from : NULL, to);
	out_close(o);
	return 0;
}
