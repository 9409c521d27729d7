/* meshio.c: format names, whole-file reading and reader dispatch for the
 * mesh formats of lib/io/meshio.h (the parsers are in obj.c, ply.c, stl.c). */
#include "io/meshio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* First read size; the buffer doubles from there. */
#define SLURP_CHUNK ((size_t)1 << 16)

static const char *const fmt_names[SLC_MF_COUNT] = {
	"?", "obj", "ply", "stl", "slc", "vti", "vdb"
};

int
slc_mfmt_from_name(const char *s)
{
	int f;
	size_t i;

	if (!s)
		return SLC_MF_NONE;
	for (f = 1; f < SLC_MF_COUNT; f++) {
		for (i = 0; s[i] && fmt_names[f][i]; i++) {
			char c = s[i];

			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != fmt_names[f][i])
				break;
		}
		if (!s[i] && !fmt_names[f][i])
			return f;
	}
	return SLC_MF_NONE;
}

int
slc_mfmt_from_path(const char *path)
{
	const char *dot, *slash;

	if (!path)
		return SLC_MF_NONE;
	dot = strrchr(path, '.');
	slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return SLC_MF_NONE;
	return slc_mfmt_from_name(dot + 1);
}

const char *
slc_mfmt_name(int fmt)
{
	return fmt > 0 && fmt < SLC_MF_COUNT ? fmt_names[fmt] : "?";
}

int
slc_mesh_read(int fmt, const void *buf, size_t len, const char *name,
	      slc_rec *r, slc_mesh_notes *notes, slc_err *err)
{
	slc_mesh_notes none;

	if (!notes)
		notes = &none;
	memset(notes, 0, sizeof *notes);
	switch (fmt) {
	case SLC_MF_OBJ:
		return slc_obj_read(buf, len, name, r, err);
	case SLC_MF_PLY:
		return slc_ply_read_notes(buf, len, name, r, notes, err);
	case SLC_MF_STL:
		return slc_stl_read(buf, len, name, r, err);
	default:
		slc_rec_init(r, SLC_END, "");
		return slc_fail(err, "format %s is not a mesh format (obj, ply, stl)",
				slc_mfmt_name(fmt));
	}
}

int
slc_slurp(FILE *f, void **buf, size_t *len, slc_err *err)
{
	size_t cap = SLURP_CHUNK, n = 0, got;
	char *b = malloc(cap + 1), *grown;

	if (!b)
		return slc_fail(err, "out of memory");
	for (;;) {
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			if (ferror(f)) {
				free(b);
				return slc_fail(err, "read error: %s", strerror(errno));
			}
			break;
		}
		if (slc_mul(cap, 2, &cap) || cap == (size_t)-1) {
			free(b);
			return slc_fail(err, "input too large");
		}
		grown = realloc(b, cap + 1);
		if (!grown) {
			free(b);
			return slc_fail(err, "out of memory reading %zu bytes", cap);
		}
		b = grown;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int
slc_mesh_load(const char *path, int fmt, const char *name, slc_rec *r,
	      slc_mesh_notes *notes, slc_err *err)
{
	FILE *f;
	void *buf;
	size_t len;
	int rc;

	slc_rec_init(r, SLC_END, "");
	if (fmt == SLC_MF_NONE)
		fmt = slc_mfmt_from_path(path);
	if (fmt != SLC_MF_OBJ && fmt != SLC_MF_PLY && fmt != SLC_MF_STL)
		return slc_fail(err, "%s: not a mesh file (expected .obj, .ply or .stl)",
				path);
	f = fopen(path, "rb");
	if (!f)
		return slc_fail(err, "%s: %s", path, strerror(errno));
	rc = slc_slurp(f, &buf, &len, err);
	fclose(f);
	if (rc)
		return slc_failctx(err, "%s: ", path);
	rc = slc_mesh_read(fmt, buf, len, name, r, notes, err);
	free(buf);
	if (rc)
		return slc_failctx(err, "%s: ", path);
	return 0;
}
