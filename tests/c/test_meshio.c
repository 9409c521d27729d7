/* test_meshio.c: the OBJ, PLY and STL readers build the meshes the files
 * describe (counts, fan triangulation, negative indices, welding, vertex
 * channels), the writers round-trip through them, and malformed inputs are
 * refused with the line or byte and the bad value.  Hostile record names
 * are written escaped; unknown PLY header lines are skipped with a note;
 * a grid extent that overflows is not written to VTI. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "io/meshio.h"
#include "core/slc.h"

/* A unit cube as OBJ: quads, one negative-index face, v/vt/vn corners. */
static const char cube_obj[] =
	"# cube\n"
	"mtllib cube.mtl\no cube\n"
	"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
	"v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
	"g sides\nusemtl grey\ns off\n"
	"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\n"
	"f -8 -4 -1 -5\n";

static int
read_str(int fmt, const char *s, slc_rec *r, slc_err *err)
{
	return slc_mesh_read(fmt, s, strlen(s), "m", r, NULL, err);
}

/* The error message of reading s as fmt, or "" if it was accepted. */
static const char *
refusal(int fmt, const void *s, size_t len)
{
	static slc_err err;
	slc_rec r;

	if (slc_mesh_read(fmt, s, len, "m", &r, NULL, &err) == 0) {
		slc_rec_free(&r);
		return "";
	}
	CHECK(r.nchan == 0 && r.chan == NULL, "a refused input leaves the record empty");
	return err.msg;
}

static const char *
refused(int fmt, const char *s)
{
	return refusal(fmt, s, strlen(s));
}

static int
same_chan(const slc_rec *a, const slc_rec *b, const char *name)
{
	const slc_chan *x = slc_rec_find(a, name), *y = slc_rec_find(b, name);

	return x && y && x->type == y->type && x->ncomp == y->ncomp &&
	       x->count == y->count && x->domain == y->domain &&
	       !memcmp(x->data, y->data, x->count * x->ncomp * slc_type_size(x->type));
}

/* Write r with fn into memory; returns the bytes (caller frees). */
static char *
write_mem(const slc_rec *r, int fmt, int ascii, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	slc_err err;
	int rc = fmt == SLC_MF_OBJ ? slc_obj_write(f, r, &err)
				   : slc_ply_write(f, r, ascii, &err);

	fclose(f);
	CHECK(rc == 0, "write %s%s '%s'", slc_mfmt_name(fmt),
	      fmt == SLC_MF_PLY ? (ascii ? " ascii" : " binary") : "", rc ? err.msg : "");
	return buf;
}

static void
test_obj(void)
{
	slc_rec r, r2;
	slc_err err;
	const float *P;
	const uint32_t *t;
	char *out, *out2;
	size_t len, len2;

	CHECK(read_str(SLC_MF_OBJ, cube_obj, &r, &err) == 0, "obj cube reads (%s)", err.msg);
	t = slc_rec_get(&r, "tri", SLC_U32, 3, 12, &err);
	P = slc_rec_get(&r, "P", SLC_F32, 3, 8, &err);
	CHECK(r.kind == SLC_MESH && P && t, "obj cube: 8 vertices, 12 triangles");
	CHECK(t && t[0] == 0 && t[1] == 3 && t[2] == 2 && t[3] == 0 && t[4] == 2 &&
	      t[5] == 1, "quad 1 4 3 2 fans to (0 3 2) (0 2 1)");
	/* -8 -4 -1 -5 with 8 vertices is 1 5 8 4 */
	CHECK(t && t[30] == 0 && t[31] == 4 && t[32] == 7 && t[33] == 0 &&
	      t[34] == 7 && t[35] == 3, "negative indices count back from the last vertex");
	CHECK(P && P[18] == 1 && P[19] == 1 && P[20] == 1, "vertex 7 is (1,1,1)");
	CHECK(slc_rec_validate(&r, &err) == 0, "obj cube record is valid");

	/* OBJ -> record -> OBJ -> record -> OBJ: the same records, the same text */
	out = write_mem(&r, SLC_MF_OBJ, 0, &len);
	CHECK(slc_obj_read(out, len, "m", &r2, &err) == 0, "written obj reads back");
	CHECK(same_chan(&r, &r2, "P") && same_chan(&r, &r2, "tri"), "obj round trip keeps P and tri");
	out2 = write_mem(&r2, SLC_MF_OBJ, 0, &len2);
	CHECK(len == len2 && !memcmp(out, out2, len), "obj write, read, write gives the same bytes");
	free(out);
	free(out2);
	slc_rec_free(&r);
	slc_rec_free(&r2);

	/* v/vt/vn corners become per-vertex uv and N */
	CHECK(read_str(SLC_MF_OBJ,
		       "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nv 1 1 0 1 1 1\n"
		       "vt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvn 0 0 1\n"
		       "f 1/1/1 2/2/1 4/4/1 3/3/1\n", &r, &err) == 0, "obj with vt, vn, colours reads");
	{
		const float *uv = slc_rec_get(&r, "uv", SLC_F32, 2, 4, &err);
		const float *N = slc_rec_get(&r, "N", SLC_F32, 3, 4, &err);
		const float *Cd = slc_rec_get(&r, "Cd", SLC_F32, 3, 4, &err);

		CHECK(uv && uv[6] == 1 && uv[7] == 1 && N && N[11] == 1 && Cd && Cd[4] == 1,
		      "uv, N and Cd per vertex");
		CHECK(r.chan[1].count == 2, "a quad is two triangles");
		out = write_mem(&r, SLC_MF_OBJ, 0, &len);
		CHECK(strstr(out, "f 1/1/1 2/2/2 4/4/4") && strstr(out, "v 1 0 0 0 1 0"),
		      "obj writer emits vt/vn corners and colours");
		CHECK(slc_obj_read(out, len, "m", &r2, &err) == 0 && same_chan(&r, &r2, "uv") &&
		      same_chan(&r, &r2, "N") && same_chan(&r, &r2, "Cd"), "uv, N, Cd round trip");
		free(out);
		slc_rec_free(&r2);
	}
	slc_rec_free(&r);
	CHECK(read_str(SLC_MF_OBJ, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 1\n"
		       "f 1/1 2/1 3/1\nf 1/2 3/1 2/1\n", &r, &err) == 0 &&
	      !slc_rec_find(&r, "uv"), "a vertex with two texture coordinates gets no uv channel");
	slc_rec_free(&r);
	CHECK(read_str(SLC_MF_OBJ, "v 0 0 0\nv 1 0 0\r\nv 0 1 0 # c\n\n", &r, &err) == 0 &&
	      r.kind == SLC_PARTICLES && r.chan[0].count == 3 && !strcmp(r.name, "m"),
	      "obj with no faces is a particle record");
	slc_rec_free(&r);

	CHECK(!strcmp(refused(SLC_MF_OBJ,
			      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 1\n"
			      "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
			      "f 1 2 3\nf 2 3 4\n\nf 1 2 9\n"),
		      "line 12: face index 9 out of range (8 vertices)"),
	      "face index past the last vertex names line and index");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf -2 1 1\n"),
		      "line 2: face index -2 out of range (1 vertices so far)"),
	      "negative index before the first vertex");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf 1 1 99999999999999999999\n"),
		      "line 2: bad face index '99999999999999999999'"), "index beyond 64 bits");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf 1 1 -9223372036854775808\n"),
		      "line 2: face index -9223372036854775808 out of range (1 vertices so far)"),
	      "most negative index");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf 1 1 1x\n"), "line 2: bad face index '1x'"),
	      "index with a trailing letter");
	CHECK(read_str(SLC_MF_OBJ, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf +1 2 -1 # tri\n", &r, &err) == 0 &&
	      ((uint32_t *)r.chan[1].data)[2] == 2, "a '+' index and a trailing comment on a face");
	slc_rec_free(&r);
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf 0 1 1\n"),
		      "line 2: face index 0 (indices start at 1)"), "index 0");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nv 0 x 0\n"),
		      "line 2: bad number in 'v': 'x'"), "bad coordinate");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nv 0 1e60 0\n"),
		      "line 2: bad number in 'v': '1e60'"), "coordinate beyond float range");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 nan\n"),
		      "line 1: bad number in 'v': 'nan'"), "NaN coordinate");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nv 1 1 1\nf 1 2\n"),
		      "line 3: face has 2 vertices, expected at least 3"), "two-vertex face");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nhello world\n"),
		      "line 2: unknown statement 'hello'"), "unknown statement");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nf 1/1/1/1 1 1\n"),
		      "line 2: bad face vertex '1/1/1/1'"), "bad corner");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0 0\nvt 0 0\nf 1/2 1/1 1/1\n"),
		      "line 3: texture index 2 out of range (1 texture coordinates)"),
	      "texture index out of range");
	CHECK(read_str(SLC_MF_OBJ, "\xef\xbb\xbfv 0 0 0\n", &r, &err) == 0,
	      "a UTF-8 byte order mark is skipped (%s)", err.msg);
	slc_rec_free(&r);
	CHECK(!strcmp(refused(SLC_MF_OBJ, "v 0 0\n"),
		      "line 1: 'v' needs 3, 4 or 6 numbers, found 2"), "short v line");
	CHECK(!strcmp(refused(SLC_MF_OBJ, ""), "empty input"), "empty obj");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "# nothing\n\n"), "empty input"), "comments only");
	CHECK(!strcmp(refused(SLC_MF_OBJ, "o thing\n"), "no vertices"), "no vertices");
	CHECK(!strcmp(refusal(SLC_MF_OBJ, "v 0 0 \0 0\n", 10), "line 1: bad number in 'v': '\\x00'"),
	      "a NUL byte is quoted in the message");
}

/* The cube as ascii PLY with normals, colours, a scalar and a 3-vector. */
static const char cube_ply_head[] =
	"ply\nformat %s 1.0\ncomment test\n"
	"element vertex 8\nproperty float x\nproperty float y\nproperty float z\n"
	"property uchar red\nproperty uchar green\nproperty uchar blue\n"
	"property double temp\nproperty int w_0\nproperty int w_1\nproperty int w_2\n"
	"element material 1\nproperty list uchar float rgb\n"
	"element face 6\nproperty uchar flags\nproperty list uchar int vertex_indices\n"
	"end_header\n";

static const double cube_v[8][3] = {
	{ 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 },
	{ 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 }
};
static const int cube_f[6][4] = {
	{ 0, 3, 2, 1 }, { 4, 5, 6, 7 }, { 0, 1, 5, 4 }, { 1, 2, 6, 5 },
	{ 2, 3, 7, 6 }, { 3, 0, 4, 7 }
};

static char *
cube_ply_ascii(void)
{
	static char s[4096];
	size_t n = (size_t)snprintf(s, sizeof s, cube_ply_head, "ascii");
	int v, f;

	for (v = 0; v < 8; v++)
		n += (size_t)snprintf(s + n, sizeof s - n, "%g %g %g %d 0 255 %g %d %d %d\n",
				      cube_v[v][0], cube_v[v][1], cube_v[v][2], v * 10,
				      0.5 * v, v, -v, 100000 * v);
	n += (size_t)snprintf(s + n, sizeof s - n, "3 0.5 0.25 1\n");
	for (f = 0; f < 6; f++)
		n += (size_t)snprintf(s + n, sizeof s - n, "7 4 %d %d %d %d\n", cube_f[f][0],
				      cube_f[f][1], cube_f[f][2], cube_f[f][3]);
	return s;
}

static void
put(unsigned char **p, const void *v, size_t sz, int be)
{
	size_t i;

	for (i = 0; i < sz; i++)
		(*p)[i] = ((const unsigned char *)v)[be ? sz - 1 - i : i];
	*p += sz;
}

/* The same cube in binary, little (be = 0) or big endian. */
static size_t
cube_ply_binary(unsigned char *buf, size_t cap, int be)
{
	unsigned char *p = buf;
	int v, f, k;

	p += snprintf((char *)buf, cap, cube_ply_head,
		      be ? "binary_big_endian" : "binary_little_endian");
	for (v = 0; v < 8; v++) {
		unsigned char c[3] = { (unsigned char)(v * 10), 0, 255 };
		double temp = 0.5 * v;
		int32_t w[3] = { v, -v, 100000 * v };

		for (k = 0; k < 3; k++) {
			float x = (float)cube_v[v][k];

			put(&p, &x, 4, be);
		}
		memcpy(p, c, 3);
		p += 3;
		put(&p, &temp, 8, be);
		for (k = 0; k < 3; k++)
			put(&p, &w[k], 4, be);
	}
	{
		unsigned char n = 3;
		float m[3] = { 0.5f, 0.25f, 1 };

		put(&p, &n, 1, be);
		for (k = 0; k < 3; k++)
			put(&p, &m[k], 4, be);
	}
	for (f = 0; f < 6; f++) {
		unsigned char fl = 7, n = 4;

		put(&p, &fl, 1, be);
		put(&p, &n, 1, be);
		for (k = 0; k < 4; k++) {
			int32_t i = cube_f[f][k];

			put(&p, &i, 4, be);
		}
	}
	return (size_t)(p - buf);
}

static void
check_ply_cube(const slc_rec *r, const char *what)
{
	slc_err err;
	const float *P = slc_rec_get(r, "P", SLC_F32, 3, 8, &err);
	const uint32_t *t = slc_rec_get(r, "tri", SLC_U32, 3, 12, &err);
	const uint8_t *Cd = slc_rec_get(r, "Cd", SLC_U8, 3, 8, &err);
	const double *temp = slc_rec_get(r, "temp", SLC_F64, 1, 8, &err);
	const int32_t *w = slc_rec_get(r, "w", SLC_I32, 3, 8, &err);

	CHECK(r->kind == SLC_MESH && P && t && Cd && temp && w && r->nchan == 5,
	      "%s: P, Cd u8x3, temp f64, w i32x3, tri", what);
	CHECK(P && P[18] == 1 && P[19] == 1 && P[20] == 1 && t && t[0] == 0 && t[1] == 3 &&
	      t[2] == 2 && t[33] == 3 && t[34] == 4 && t[35] == 7, "%s: positions and fans", what);
	CHECK(Cd && Cd[21] == 70 && Cd[23] == 255 && temp && temp[7] == 3.5 && w &&
	      w[21] == 7 && w[22] == -7 && w[23] == 700000, "%s: channel values", what);
}

static void
test_ply(void)
{
	static unsigned char bin[8192];
	slc_rec r, r2, r3;
	slc_err err;
	char *a = cube_ply_ascii(), *out, *out2;
	size_t n, len, len2;

	CHECK(read_str(SLC_MF_PLY, a, &r, &err) == 0, "ascii ply cube reads (%s)", err.msg);
	check_ply_cube(&r, "ascii");
	n = cube_ply_binary(bin, sizeof bin, 0);
	CHECK(slc_ply_read(bin, n, "m", &r2, &err) == 0, "binary le ply cube reads (%s)", err.msg);
	check_ply_cube(&r2, "binary le");
	slc_rec_free(&r2);
	n = cube_ply_binary(bin, sizeof bin, 1);
	CHECK(slc_ply_read(bin, n, "m", &r2, &err) == 0, "binary be ply cube reads (%s)", err.msg);
	check_ply_cube(&r2, "binary be");
	slc_rec_free(&r2);

	/* PLY binary and ascii round trips: same channels, and a second write
	 * gives the same bytes */
	out = write_mem(&r, SLC_MF_PLY, 0, &len);
	CHECK(slc_ply_read(out, len, "m", &r2, &err) == 0, "written binary ply reads back (%s)", err.msg);
	check_ply_cube(&r2, "binary round trip");
	out2 = write_mem(&r2, SLC_MF_PLY, 1, &len2);
	CHECK(slc_ply_read(out2, len2, "m", &r3, &err) == 0, "written ascii ply reads back (%s)", err.msg);
	check_ply_cube(&r3, "ascii round trip");
	CHECK(strstr(out2, "property uchar red\n") && strstr(out2, "property int w_2\n") &&
	      strstr(out2, "\n1 1 1 60 0 255 3 6 -6 600000\n"), "ascii ply text");
	free(out2);
	out2 = write_mem(&r3, SLC_MF_PLY, 0, &len2);
	CHECK(len == len2 && !memcmp(out, out2, len), "ply write, read, write gives the same bytes");
	free(out);
	free(out2);
	slc_rec_free(&r2);
	slc_rec_free(&r3);
	slc_rec_free(&r);

	CHECK(read_str(SLC_MF_PLY, "ply\r\nformat ascii 1.0\r\nelement vertex 2\r\n"
		       "property double x\r\nproperty double y\r\nproperty double z\r\n"
		       "property float nx\r\nproperty float ny\r\nproperty float nz\r\n"
		       "property float u\r\nproperty float v\r\nend_header\r\n"
		       "0.1 2 3 0 0 1 0.5 0.25\r\n4 5 6 1 0 0 1 1\r\n", &r, &err) == 0,
	      "ply with vertices only and CRLF reads (%s)", err.msg);
	CHECK(r.kind == SLC_PARTICLES && slc_rec_get(&r, "P", SLC_F64, 3, 2, &err) &&
	      slc_rec_get(&r, "N", SLC_F32, 3, 2, &err) && slc_rec_get(&r, "uv", SLC_F32, 2, 2, &err) &&
	      ((double *)r.chan[0].data)[0] == 0.1,
	      "vertex-only ply is particles: P f64 (double x), N, uv");
	out = write_mem(&r, SLC_MF_PLY, 0, &len);
	CHECK(slc_ply_read(out, len, "m", &r2, &err) == 0 && same_chan(&r, &r2, "P") &&
	      same_chan(&r, &r2, "N") && same_chan(&r, &r2, "uv") && r2.kind == SLC_PARTICLES,
	      "particles round trip through binary ply");
	free(out);
	slc_rec_free(&r2);
	slc_rec_free(&r);

#define HEAD3 "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "element face 1\nproperty list uchar int vertex_indices\n"
			      "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"),
		      "line 13: face index 3 out of range (3 vertices)"), "ply face index out of range");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "end_header\n0 0 0\n1 0 0\n0 1\n"),
		      "line 10: vertex 2: missing value for property 'z'"), "short ascii line");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "end_header\n0 0 0\n1 0 0\n0 1 0 0\n"),
		      "line 10: vertex 2: more values than its 3 properties"), "long ascii line");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "end_header\n0 0 0\n1 0 0\n0 1 zz\n"),
		      "line 10: vertex 2: bad float value 'zz' for property 'z'"), "bad ascii value");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "end_header\n0 0 0\n1 0 0\n0 1 0\n7\n"),
		      "line 11: data after the last element"), "trailing data");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3 "element face 1\nproperty list uchar int vertex_indices\n"
			      "end_header\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n"),
		      "line 13: face 0 has 2 vertices, expected at least 3"), "two-vertex face");
	CHECK(!strcmp(refused(SLC_MF_PLY, "ply\nformat binary_big_endian 1.0\nelement vertex 1000000000000\n"
			      "property float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n"),
		      "byte 124: element 'vertex' declares 1000000000000 instances, more than the 6 bytes of data can hold"),
	      "a huge declared count fails before allocating");
	CHECK(!strcmp(refusal(SLC_MF_PLY, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
			      "property float x\nproperty float y\nproperty float z\nend_header\n"
			      "\0\0\0\0\0\0\0\0\0\0\0\0\0", 128),
		      "byte 127: 1 bytes after the last element"), "binary trailing byte");
	CHECK(!strcmp(refusal(SLC_MF_PLY, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
			      "property float x\nproperty float y\nproperty float z\nend_header\n"
			      "\0\0\0\0\0\0\xc0\x7f\0\0\0\0", 127),
		      "byte 119: vertex 0: property 'y' is not finite (nan)"), "binary NaN");
	CHECK(!strcmp(refused(SLC_MF_PLY, "ply\nformat ascii 1.0\nelement vertex 1\n"
			      "property float x\nproperty float y\nend_header\n0 0\n"),
		      "element 'vertex' has no scalar properties x, y and z"), "no z");
	CHECK(!strcmp(refused(SLC_MF_PLY, "ply\nformat ascii 2.0\n"),
		      "line 2: expected format version 1.0"), "version 2");
	CHECK(!strcmp(refused(SLC_MF_PLY, "ply\nformat ascii 1.0\nelement vertex 1\nproperty quux x\n"),
		      "line 4: unknown property type 'quux'"), "unknown type");
	CHECK(!strcmp(refused(SLC_MF_PLY, HEAD3), "line 7: header without 'end_header'"),
	      "header without end");
	CHECK(!strcmp(refused(SLC_MF_PLY, "solid x\n"), "line 1: not a PLY file (no 'ply' line)"),
	      "not a ply");
	CHECK(!strcmp(refused(SLC_MF_PLY, ""), "empty input"), "empty ply");
	CHECK(!strcmp(refused(SLC_MF_PLY, "ply\nformat ascii 1.0\nelement vertex 0\n"
			      "property float x\nproperty float y\nproperty float z\nend_header\n"),
		      "no vertices"), "zero vertices");
#undef HEAD3
}

static const char cube_stl_facets[][3] = {
	{ 0, 3, 2 }, { 0, 2, 1 }, { 4, 5, 6 }, { 4, 6, 7 }, { 0, 1, 5 }, { 0, 5, 4 },
	{ 1, 2, 6 }, { 1, 6, 5 }, { 2, 3, 7 }, { 2, 7, 6 }, { 3, 0, 4 }, { 3, 4, 7 }
};

static void
test_stl(void)
{
	static char a[8192];
	static unsigned char b[84 + 50 * 12];
	slc_rec r, r2;
	slc_err err;
	size_t n = 0;
	int f, c, k;

	n += (size_t)snprintf(a + n, sizeof a - n, "solid cube\n");
	for (f = 0; f < 12; f++) {
		n += (size_t)snprintf(a + n, sizeof a - n, "  facet normal 0 0 0\n    outer loop\n");
		for (c = 0; c < 3; c++) {
			const double *x = cube_v[(int)cube_stl_facets[f][c]];

			/* -0 must weld with 0 */
			n += (size_t)snprintf(a + n, sizeof a - n, "      vertex %s %g %g\n",
					      x[0] == 0 && f == 11 ? "-0" : x[0] == 0 ? "0" : "1",
					      x[1], x[2]);
		}
		n += (size_t)snprintf(a + n, sizeof a - n, "    endloop\n  endfacet\n");
	}
	snprintf(a + n, sizeof a - n, "endsolid cube\n");
	CHECK(read_str(SLC_MF_STL, a, &r, &err) == 0, "ascii stl cube reads (%s)", err.msg);
	CHECK(r.kind == SLC_MESH && slc_rec_get(&r, "P", SLC_F32, 3, 8, &err) &&
	      slc_rec_get(&r, "tri", SLC_U32, 3, 12, &err), "36 corners weld to 8 vertices (-0 with 0)");
	{
		const float *P = r.chan[0].data;
		const uint32_t *t = r.chan[1].data;

		CHECK(!signbit(P[0]) && !signbit(P[3 * t[33]]), "welded -0 is stored as +0");
		CHECK(t[0] == 0 && t[1] == 1 && t[2] == 2 && t[3] == 0 && t[4] == 2 && t[5] == 3 &&
		      P[3] == 0 && P[4] == 1 && P[5] == 0, "vertices in order of first appearance");
	}
	memset(b, ' ', 80);
	memcpy(b, "solid binary header that starts like ascii", 43);
	b[80] = 12;
	for (f = 0; f < 12; f++)
		for (c = 0; c < 3; c++)
			for (k = 0; k < 3; k++) {
				float x = (float)cube_v[(int)cube_stl_facets[f][c]][k];

				memcpy(b + 84 + 50 * f + 12 + 12 * c + 4 * k, &x, 4);
			}
	CHECK(slc_stl_read(b, sizeof b, "m", &r2, &err) == 0, "binary stl reads (%s)", err.msg);
	CHECK(same_chan(&r, &r2, "P") && same_chan(&r, &r2, "tri"),
	      "binary and ascii stl give the same mesh");
	slc_rec_free(&r2);
	slc_rec_free(&r);
	CHECK(!strcmp(refusal(SLC_MF_STL, b, sizeof b - 1),
		      "byte 80: binary STL declares 12 triangles (684 bytes) but the file has 683 bytes"),
	      "binary size mismatch");
	{
		float nan = NAN;

		memcpy(b + 84 + 50 * 3 + 12 + 4, &nan, 4);
		CHECK(!strcmp(refusal(SLC_MF_STL, b, sizeof b),
			      "byte 250: triangle 3: coordinate nan is not finite"), "binary NaN");
	}
	CHECK(!strcmp(refused(SLC_MF_STL, "solid x\nfacet normal 0 0 0\nouter loop\n"
			      "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 q\nendloop\nendfacet\nendsolid\n"),
		      "line 6: bad number 'q'"), "ascii bad number");
	CHECK(read_str(SLC_MF_STL, "solid x\nfacet normal NaN -nan inf\nouter loop\n"
		       "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n",
		       &r, &err) == 0, "a nan facet normal is ignored (%s)", err.msg);
	slc_rec_free(&r);
	CHECK(!strcmp(refused(SLC_MF_STL, "solid x\nfacet normal 0 0 0\nouter loop\n"
			      "vertex 0 0 0\nvertex 1 0 0\nendloop\n"),
		      "line 6: expected 'vertex', found 'endloop'"), "ascii two-corner facet");
	CHECK(!strcmp(refused(SLC_MF_STL, "solid x\nfacet normal 0 0 0\n"),
		      "line 2: unexpected end of file, expected 'outer'"), "ascii truncated");
	CHECK(!strcmp(refused(SLC_MF_STL, "solid x\nendsolid x\n"), "no facets"), "no facets");
	CHECK(!strcmp(refused(SLC_MF_STL, ""), "empty input"), "empty stl");
	CHECK(!strcmp(refused(SLC_MF_STL, "hello"),
		      "byte 0: 5 bytes is too short for binary STL and it does not start with 'solid'"),
	      "short garbage");
}

static void
test_load(void)
{
	slc_rec r;
	slc_err err;
	const char *path = "/tmp/test_meshio_missing.obj";

	CHECK(slc_mfmt_from_path("a/b.OBJ") == SLC_MF_OBJ && slc_mfmt_from_path("x.ply") == SLC_MF_PLY &&
	      slc_mfmt_from_path("x.stl") == SLC_MF_STL && slc_mfmt_from_path("x.vti") == SLC_MF_VTI &&
	      slc_mfmt_from_path("a.b/c") == SLC_MF_NONE && slc_mfmt_from_name("Slc") == SLC_MF_SLC,
	      "formats by extension and name");
	CHECK(slc_mesh_load(path, SLC_MF_NONE, NULL, &r, NULL, &err) < 0 &&
	      !strncmp(err.msg, path, strlen(path)), "slc_mesh_load names the path (%s)", err.msg);
}

/* Lines of text (a NUL-terminated buffer) that start with prefix. */
static int
count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (; s; s = strchr(s, '\n'), s = s ? s + 1 : s)
		if (!strncmp(s, prefix, strlen(prefix)))
			n++;
	return n;
}

/* A record name holding newlines, a carriage return, an escape and
 * quotes adds no line to OBJ or PLY and no attribute to VTI: it is
 * written escaped (core/name.h), and the files read back as they were. */
static void
test_hostile_names(void)
{
	static const char evil[] = "m\nv 9 9 9\r\nf 1 2 3\n\x1b[2J\"/><x a='";
	static const char evil_esc[] = "m\\nv 9 9 9\\r\\nf 1 2 3\\n\\x1b[2J\"/><x a='";
	const slc_rec *g[1];
	slc_rec r, r2;
	slc_err err;
	char *out, want[256];
	size_t len;
	float *a;
	FILE *f;
	int ascii;

	CHECK(read_str(SLC_MF_OBJ, cube_obj, &r, &err) == 0, "cube reads");
	snprintf(r.name, sizeof r.name, "%s", evil);
	out = write_mem(&r, SLC_MF_OBJ, 0, &len);
	snprintf(want, sizeof want, "# sluice mesh '%s': 8 vertices, 12 triangles\n", evil_esc);
	CHECK(!strncmp(out, want, strlen(want)), "obj: the name escaped in its comment");
	CHECK(count_lines(out, "v ") == 8 && count_lines(out, "f ") == 12 &&
	      slc_obj_read(out, len, "m", &r2, &err) == 0 && same_chan(&r, &r2, "P") &&
	      same_chan(&r, &r2, "tri"), "obj: 8 vertices, 12 faces, read back the same");
	free(out);
	slc_rec_free(&r2);
	for (ascii = 0; ascii < 2; ascii++) {
		out = write_mem(&r, SLC_MF_PLY, ascii, &len);
		snprintf(want, sizeof want, "comment sluice mesh '%s'\nelement vertex 8\n", evil_esc);
		CHECK(strstr(out, want) != NULL, "ply %s: the name escaped in its comment",
		      ascii ? "ascii" : "binary");
		CHECK(slc_ply_read(out, len, "m", &r2, &err) == 0 && same_chan(&r, &r2, "P") &&
		      same_chan(&r, &r2, "tri"), "ply %s: read back the same (%s)",
		      ascii ? "ascii" : "binary", err.msg);
		free(out);
		slc_rec_free(&r2);
	}
	slc_rec_free(&r);

	slc_rec_init(&r, SLC_GRID, evil);
	r.grid.ni = r.grid.nj = r.grid.nk = 1;
	r.grid.dx = 1;
	a = slc_rec_add(&r, "c\x7f\xff", SLC_F32, 1, SLC_SAMPLE, 1, &err);
	a[0] = 1;
	g[0] = &r;
	f = open_memstream(&out, &len);
	CHECK(slc_vti_write(f, g, 1, 1, &err) == 0, "vti with a hostile name writes");
	fclose(f);
	snprintf(want, sizeof want, "Name=\"m\\nv 9 9 9\\r\\nf 1 2 3\\n\\x1b[2J&quot;/&gt;&lt;x a=&apos;.c\\x7f\\xff\" ");
	CHECK(strstr(out, want) != NULL, "vti: names escaped, then XML-escaped");
	CHECK(count_lines(out, "        <DataArray") == 1 && !strchr(out, '\x1b') && !strchr(out, '\x7f') &&
	      !strchr(out, '\xff'), "vti: one DataArray, no control or invalid byte");
	free(out);

	/* an extent beyond the range of a double: refused, nothing useful
	 * to write (VTK has no infinite Origin) */
	slc_rec_free(&r);
	slc_rec_init(&r, SLC_GRID, "phi");
	r.grid.ni = 4;
	r.grid.nj = r.grid.nk = 1;
	r.grid.dx = 1e308;
	slc_rec_add(&r, "phi", SLC_F32, 1, SLC_SAMPLE, 4, &err);
	f = open_memstream(&out, &len);
	CHECK(slc_vti_write(f, g, 1, 0, &err) == -1 &&
	      !strcmp(err.msg, "record 'phi': grid extent overflows on x: origin 0 + 4 cells of dx 1e+308 is not finite"),
	      "vti: dx 1e308 refused (%s)", err.msg);
	fclose(f);
	free(out);
	r.grid.dx = 1e300;
	f = open_memstream(&out, &len);
	CHECK(slc_vti_write(f, g, 1, 0, &err) == 0, "vti: dx 1e300 writes (%s)", err.msg);
	fclose(f);
	free(out);
	slc_rec_free(&r);
}

/* Unknown PLY header lines are skipped, the first one and the count in
 * the notes, escaped; slc_mesh_read clears the notes for every format. */
static void
test_ply_notes(void)
{
	static const char wuson[] =
		"ply\nformat ascii 1.0\nCreated by Wings3D \x1b[2J\xff  \r\ncomment x\n"
		"element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
		"element face 1\nproperty list uchar int vertex_indices\n"
		"frobnicate 3\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
	char longline[300], a78[79];
	slc_mesh_notes notes;
	slc_rec r;
	slc_err err;

	CHECK(slc_mesh_read(SLC_MF_PLY, wuson, strlen(wuson), "w", &r, &notes, &err) == 0 &&
	      r.kind == SLC_MESH && r.chan[0].count == 3, "a ply with unknown header lines reads (%s)",
	      err.msg);
	CHECK(notes.nskipped == 2 && notes.line == 3 &&
	      !strcmp(notes.first, "Created by Wings3D \\x1b[2J\\xff"),
	      "notes: 2 skipped, the first on line 3, escaped, trailing blanks cut ('%s')", notes.first);
	slc_rec_free(&r);
	CHECK(slc_mesh_read(SLC_MF_OBJ, cube_obj, strlen(cube_obj), "c", &r, &notes, &err) == 0 &&
	      notes.nskipped == 0 && notes.line == 0 && notes.first[0] == '\0', "obj: notes cleared");
	slc_rec_free(&r);
	/* 'x', 78 a's, then a 2-byte sequence across byte 80 of the line */
	memset(a78, 'a', 78);
	a78[78] = '\0';
	snprintf(longline, sizeof longline, "ply\nformat ascii 1.0\nx%s\xc3\xa9tail\n"
		 "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "end_header\n0 0 0\n", a78);
	CHECK(slc_ply_read_notes(longline, strlen(longline), "l", &r, &notes, &err) == 0 &&
	      strlen(notes.first) == 79 + 3 && !strcmp(notes.first + 79, "..."),
	      "a long line is cut between UTF-8 sequences, with '...' (%zu: '%s')",
	      strlen(notes.first), notes.first);
	slc_rec_free(&r);
	CHECK(slc_ply_read(wuson, strlen(wuson), "w", &r, &err) == 0, "slc_ply_read skips them too");
	slc_rec_free(&r);
}

int
main(void)
{
	test_hostile_names();
	test_ply_notes();
	test_obj();
	test_ply();
	test_stl();
	test_load();
	return ctest_done();
}
