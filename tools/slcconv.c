/* slcconv: convert between sluice streams and other tools' files.
 *
 * In: OBJ, PLY (ascii or binary) and STL meshes become a mesh record (a
 * PLY or OBJ with vertices only becomes particles) in a stream, or go
 * straight to OBJ/PLY.  Out: a mesh or particle record of a stream becomes
 * OBJ or PLY, grid records become VTK ImageData (.vti) for ParaView or an
 * OpenVDB file (.vdb: level sets as narrow-band level sets, other grids as
 * fog volumes).  The formats come from the file extensions or --from/--to;
 * the readers and writers are in lib/io/meshio.h and lib/io/vdb.h.
 * Nothing is written unless the whole conversion succeeds (-o is atomic).
 * Names and messages that carry text from the input are printed escaped
 * (core/name.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "core/name.h"
#include "io/meshio.h"
#include "io/vdb.h"

/* in the order of enum slc_mfmt, so that the choice index is the format */
static const char *const formats[] = { "auto", "obj", "ply", "stl", "slc", "vti", "vdb", NULL };

#define RECORDS_MAX 64  /* names in --record */

static int from, to, ascii;
static const char *name, *records;
static double band = SLC_VDB_BAND;

static const struct tool_opt opts[] = {
	{ "from", 0, OPT_CHOICE, &from, "FMT",
	  "input format (default: by the extension of INPUT; slc on standard input)",
	  formats, 0, 0 },
	{ "to", 0, OPT_CHOICE, &to, "FMT",
	  "output format (default: by the extension of -o; slc for mesh input)",
	  formats, 0, 0 },
	{ "ascii", 'a', OPT_FLAG, &ascii, NULL,
	  "write ascii PLY or VTI (default: binary)", 0, 0, 0 },
	{ "name", 'n', OPT_STRING, &name, "NAME",
	  "name of the record made from a mesh file (default: its base name)", 0, 0, 0 },
	{ "record", 'r', OPT_STRING, &records, "NAME[,NAME..]",
	  "records to export (default: the first that fits the output format;\n"
	  "                            several grids placed alike share one .vti;\n"
	  "                            .vdb: every grid of one f32/f64 channel)", 0, 0, 0 },
	{ "band", 0, OPT_DOUBLE, &band, "N",
	  "half-width in voxels of the .vdb level sets' narrow band (default 3,\n"
	  "                            OpenVDB's; background N*dx)", 0, 0, &opt_positive },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"slcconv", "Convert meshes and grids between sluice streams and OBJ, PLY, STL, VTK and OpenVDB files.",
	"[INPUT]",
	"INPUT - or none reads standard input.  Examples:\n"
	"  slcconv body.obj -o body.slc       mesh file to a stream\n"
	"  slcconv frame.slc -o cloth.ply     first mesh of a stream to binary PLY\n"
	"  slcconv -r phi,p frame.slc -o f.vti  two cell grids to one ParaView file\n"
	"  slcconv frame.slc -o frame.vdb     every grid to OpenVDB (phi a level set)\n"
	"  slcconv part.stl -o part.obj       mesh file to mesh file",
	opts
};

static int
is_mesh_fmt(int f)
{
	return f == SLC_MF_OBJ || f == SLC_MF_PLY || f == SLC_MF_STL;
}

/* The record name for a mesh file: --name, else the base name of the path
 * without its extension. */
static void
base_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/'), *dot;
	size_t n;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	n = dot && dot > b ? (size_t)(dot - b) : strlen(b);
	if (n >= len)
		n = len - 1;
	memcpy(out, b, n);
	out[n] = '\0';
}

/* Die with "slcconv: FILE: MESSAGE", both escaped: a message may quote a
 * record name or bytes of the input. */
static void
die_esc(const char *file, const char *msg)
{
	static char f[SLC_ESC_BUF(SLC_ERR_MAX)], m[SLC_ESC_BUF(SLC_ERR_MAX)];

	die("%s: %s", slc_escstr(file, f, sizeof f), slc_escstr(msg, m, sizeof m));
}

/* Write one record to a mesh file format, atomically. */
static void
write_mesh_file(const slc_rec *r, int fmt)
{
	FILE *f = plain_open(out_path);
	const char *label = out_path && strcmp(out_path, "-") ? out_path : "<stdout>";
	slc_err err;
	int rc = fmt == SLC_MF_OBJ ? slc_obj_write(f, r, &err)
				   : slc_ply_write(f, r, ascii, &err);

	if (rc)
		die_esc(label, err.msg);
	plain_commit(f);
}

/* OBJ/PLY/STL in: to a stream or to another mesh format. */
static void
import(const char *path, int in_fmt, int out_fmt, int argc, char **argv)
{
	const char *label = path && strcmp(path, "-") ? path : "<stdin>";
	char rname[SLC_NAME_MAX + 1], ename[SLC_NAME_ESC_BUF];
	char elabel[SLC_ESC_BUF(SLC_ERR_MAX)];
	slc_mesh_notes notes;
	FILE *f = stdin;
	void *buf;
	size_t len;
	slc_rec r;
	slc_err err;
	tool_out *o;

	if (out_fmt != SLC_MF_SLC && out_fmt != SLC_MF_OBJ && out_fmt != SLC_MF_PLY)
		usage_die("cannot convert %s to %s (mesh files go to slc, obj or ply)",
			  slc_mfmt_name(in_fmt), slc_mfmt_name(out_fmt));
	if (strcmp(label, "<stdin>") && !(f = fopen(path, "rb")))
		die_esc(label, strerror(errno));
	if (slc_slurp(f, &buf, &len, &err))
		die_esc(label, err.msg);
	if (f != stdin)
		fclose(f);
	if (name)
		snprintf(rname, sizeof rname, "%s", name);
	else
		base_name(strcmp(label, "<stdin>") ? path : "mesh", rname, sizeof rname);
	if (slc_mesh_read(in_fmt, buf, len, rname, &r, &notes, &err))
		die_esc(label, err.msg);
	free(buf);
	slc_escstr(label, elabel, sizeof elabel);
	mesh_notes_warn(label, &notes);
	info("%s: %s '%s', %llu points, %llu triangles", elabel, slc_kind_name(r.kind),
	     slc_escstr(r.name, ename, sizeof ename), (unsigned long long)r.chan[0].count,
	     (unsigned long long)(r.kind == SLC_MESH ? slc_rec_find(&r, "tri")->count : 0));
	if (out_fmt == SLC_MF_SLC) {
		o = out_open(argc, argv);
		out_write(o, &r);
		out_close(o);
	} else {
		write_mesh_file(&r, out_fmt);
	}
	slc_rec_free(&r);
}

/* Split --record into names; returns the count. */
static int
split_records(char *list, char **names)
{
	int n = 0;
	char *p;

	for (p = strtok(list, ","); p; p = strtok(NULL, ","))
		if (*p) {
			if (n == RECORDS_MAX)
				usage_die("--record: more than %d names", RECORDS_MAX);
			names[n++] = p;
		}
	if (n == 0)
		usage_die("--record: no name given");
	return n;
}

/* Is a record of this name among the first n kept?  (A .vdb names its
 * grids like the records: the first of a name is written.) */
static int
named(const slc_rec *keep, int n, const char *rname)
{
	int k;

	for (k = 0; k < n; k++)
		if (!strcmp(keep[k].name, rname))
			return 1;
	return 0;
}

static int
fits(const slc_rec *r, int out_fmt)
{
	if (out_fmt == SLC_MF_VTI)
		return r->kind == SLC_GRID;
	if (out_fmt == SLC_MF_VDB)
		return slc_vdb_fits(r);
	return r->kind == SLC_MESH || r->kind == SLC_PARTICLES;
}

/* A stream in: pick the records and write OBJ, PLY or VTI. */
static void
export(const char *path, int out_fmt)
{
	static slc_rec keep[RECORDS_MAX];
	const slc_rec *grids[RECORDS_MAX];
	char *names[RECORDS_MAX], *list = NULL;
	tool_in *in = in_open(path);
	int nnames = 0, nkeep = 0, k;
	slc_rec r;

	if (out_fmt != SLC_MF_OBJ && out_fmt != SLC_MF_PLY && out_fmt != SLC_MF_VTI &&
	    out_fmt != SLC_MF_VDB)
		usage_die("cannot convert a stream to %s (streams go to obj, ply, vti or vdb)",
			  slc_mfmt_name(out_fmt));
	if (records) {
		list = xcalloc(strlen(records) + 1, 1);
		strcpy(list, records);
		nnames = split_records(list, names);
		if (nnames > 1 && out_fmt != SLC_MF_VTI && out_fmt != SLC_MF_VDB)
			usage_die("--record: %s takes one record", slc_mfmt_name(out_fmt));
	}
	/* read the whole stream, so that damage anywhere stops the run
	 * before anything is written; the records not written are checked
	 * but never decoded (in_defer) */
	in_defer(in);
	while (in_read(in, &r)) {
		int want = 0;

		for (k = 0; k < nnames; k++)
			if (!strcmp(r.name, names[k]) && names[k][0]) {
				want = 1;
				names[k][0] = '\0';     /* the first of that name */
				break;
			}
		if (!nnames)
			want = (nkeep == 0 || out_fmt == SLC_MF_VDB) && fits(&r, out_fmt) &&
			       !named(keep, nkeep, r.name);
		if (want && nkeep == RECORDS_MAX)
			die("%s: more than %d grids for %s; say which with --record",
			    in_label(in), RECORDS_MAX, slc_mfmt_name(out_fmt));
		if (want)
			keep[nkeep++] = r;
		else
			slc_rec_free(&r);
	}
	for (k = 0; k < nnames; k++)
		if (names[k][0])
			die("%s: no record named '%s'", in_label(in), names[k]);
	if (nkeep == 0)
		die("%s: no %s record to write as %s", in_label(in),
		    out_fmt == SLC_MF_VTI ? "grid" :
		    out_fmt == SLC_MF_VDB ? "one-channel f32/f64 grid" : "mesh or particle",
		    slc_mfmt_name(out_fmt));
	for (k = 0; k < nkeep; k++) {
		slc_err err;

		if (slc_rec_decode(&keep[k], &err))
			die("%s: %s", in_label(in), err.msg);
		check_finite(&keep[k], -1);
		if (out_fmt == SLC_MF_VDB && !slc_vdb_fits(&keep[k])) {
			char ename[SLC_NAME_ESC_BUF];

			die("%s: record '%s' is not a grid of one f32 or f64 channel",
			    in_label(in), slc_escstr(keep[k].name, ename, sizeof ename));
		}
	}
	if (out_fmt == SLC_MF_VTI) {
		FILE *f = plain_open(out_path);
		slc_err err;

		for (k = 0; k < nkeep; k++)
			grids[k] = &keep[k];
		if (slc_vti_write(f, grids, (size_t)nkeep, ascii, &err))
			die_esc(out_path ? out_path : "<stdout>", err.msg);
		plain_commit(f);
	} else if (out_fmt == SLC_MF_VDB) {
		FILE *f = plain_open(out_path);
		slc_err err;

		for (k = 0; k < nkeep; k++)
			grids[k] = &keep[k];
		if (slc_vdb_write(f, grids, (size_t)nkeep, band, &err))
			die_esc(out_path ? out_path : "<stdout>", err.msg);
		plain_commit(f);
	} else {
		write_mesh_file(&keep[0], out_fmt);
	}
	for (k = 0; k < nkeep; k++)
		slc_rec_free(&keep[k]);
	in_close(in);
	free(list);
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo);
	const char *path = first < argc ? argv[first] : NULL;
	int in_fmt = from, out_fmt = to;

	if (argc - first > 1)
		usage_die("one INPUT at a time (got %d)", argc - first);
	if (in_fmt == SLC_MF_NONE)
		in_fmt = path && strcmp(path, "-") ? slc_mfmt_from_path(path) : SLC_MF_SLC;
	if (in_fmt == SLC_MF_NONE)
		usage_die("%s: unknown extension; say --from obj|ply|stl|slc", path);
	if (out_fmt == SLC_MF_NONE && out_path && strcmp(out_path, "-"))
		out_fmt = slc_mfmt_from_path(out_path);
	if (out_fmt == SLC_MF_NONE && is_mesh_fmt(in_fmt))
		out_fmt = SLC_MF_SLC;
	if (out_fmt == SLC_MF_NONE)
		usage_die("say the output format: -o FILE.obj|.ply|.vti|.vdb or --to obj|ply|vti|vdb");
	if (in_fmt == SLC_MF_VTI || in_fmt == SLC_MF_VDB)
		usage_die("%s is an output format only", slc_mfmt_name(in_fmt));
	if (is_mesh_fmt(in_fmt))
		import(path, in_fmt, out_fmt, argc, argv);
	else
		export(path, out_fmt);
	return 0;
}
