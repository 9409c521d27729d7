/* obj.c: Wavefront OBJ to and from sluice mesh and particle records.
 *
 * The reader takes the polygonal subset of OBJ: v (x y z [w], or x y z r g
 * b), vt, vn and f with the v, v/vt, v//vn and v/vt/vn corner forms and
 * negative (relative) indices; polygons are fan-triangulated.  Grouping,
 * material, smoothing and free-form statements are accepted and ignored;
 * any other statement is refused.  Two passes over the text: the first
 * checks the syntax and counts, so that the second fills arrays allocated
 * once at their exact size (and positive indices can be checked against
 * the final counts).
 */
#include "io/meshio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/name.h"
#include "io/meshio_chan.h"
#include "io/meshio_scan.h"

/* Most numbers on a `v` line: x y z r g b (a w weight makes 4). */
#define V_NUM_MAX 6
/* Unset entry of the vertex -> texture/normal index maps. */
#define NO_INDEX UINT32_MAX

/* Statements that are valid OBJ but carry nothing for a triangle mesh. */
static const char *const ignored[] = {
	"o", "g", "s", "mg", "usemtl", "mtllib", "l", "p", "vp", "cstype",
	"deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole",
	"scrv", "sp", "end", "con", "lod", "ctech", "stech", "bevel",
	"c_interp", "d_interp", "shadow_obj", "trace_obj", "maplib", "usemap",
	"call", "csh", NULL
};

struct obj {
	mio_scan s;
	int fill;               /* second pass: store */
	uint64_t nv, nvt, nvn, ntri, ncol, nstmt;
	uint64_t tv, tvt, tvn;  /* totals of the first pass */
	int corner_no_vt, corner_no_vn, uv_bad, n_bad;
	float *P, *col, *vt, *vn;
	uint32_t *tri, *vt_of, *vn_of;
	slc_err *err;
};

/* The next token of the statement; a '#' ends it (trailing comment). */
static int
token(struct obj *o, const char **tok, size_t *len)
{
	return mio_token(&o->s, tok, len) && **tok != '#';
}

static int
fail_line(struct obj *o, const char *what, const char *tok, size_t len)
{
	char q[MIO_QUOTE_BUF];

	return slc_fail(o->err, "line %llu: %s '%s'", (unsigned long long)o->s.line,
			what, mio_quote(tok, len, q, sizeof q));
}

/* Read up to max numbers from the rest of the line into v; *n gets the
 * count.  Coordinates must fit a float. */
static int
numbers(struct obj *o, const char *stmt, double *v, int max, int *n)
{
	const char *tok;
	size_t len;
	char what[48];

	*n = 0;
	while (token(o, &tok, &len)) {
		if (*n == max)
			return slc_fail(o->err, "line %llu: too many numbers for '%s' (at most %d)",
					(unsigned long long)o->s.line, stmt, max);
		if (mio_parse_f64(tok, len, &v[*n]) || !isfinite((float)v[*n])) {
			snprintf(what, sizeof what, "bad number in '%s':", stmt);
			return fail_line(o, what, tok, len);
		}
		(*n)++;
	}
	return 0;
}

static int
stmt_v(struct obj *o)
{
	double v[V_NUM_MAX];
	int n, k;

	if (numbers(o, "v", v, V_NUM_MAX, &n))
		return -1;
	if (n != 3 && n != 4 && n != 6)
		return slc_fail(o->err, "line %llu: 'v' needs 3, 4 or 6 numbers, found %d",
				(unsigned long long)o->s.line, n);
	if (o->nv >= NO_INDEX)
		return slc_fail(o->err, "line %llu: more than %u vertices",
				(unsigned long long)o->s.line, NO_INDEX - 1);
	if (o->fill) {
		for (k = 0; k < 3; k++)
			o->P[3 * o->nv + (uint64_t)k] = (float)v[k];
		if (o->col && n == 6)
			for (k = 0; k < 3; k++)
				o->col[3 * o->nv + (uint64_t)k] = (float)v[3 + k];
	}
	if (n == 6)
		o->ncol++;
	o->nv++;
	return 0;
}

/* vt u [v [w]] and vn x y z */
static int
stmt_vt_vn(struct obj *o, int normal)
{
	double v[3] = { 0, 0, 0 };
	uint64_t *count = normal ? &o->nvn : &o->nvt;
	int n;

	if (numbers(o, normal ? "vn" : "vt", v, 3, &n))
		return -1;
	if (normal ? n != 3 : n < 1)
		return slc_fail(o->err, "line %llu: '%s' needs %s numbers, found %d",
				(unsigned long long)o->s.line, normal ? "vn" : "vt",
				normal ? "3" : "1 to 3", n);
	if (*count >= NO_INDEX)
		return slc_fail(o->err, "line %llu: more than %u %s",
				(unsigned long long)o->s.line, NO_INDEX - 1,
				normal ? "normals" : "texture coordinates");
	/* stored only when the faces make a per-vertex channel of them */
	if (normal && o->vn) {
		o->vn[3 * o->nvn] = (float)v[0];
		o->vn[3 * o->nvn + 1] = (float)v[1];
		o->vn[3 * o->nvn + 2] = (float)v[2];
	} else if (!normal && o->vt) {
		o->vt[2 * o->nvt] = (float)v[0];
		o->vt[2 * o->nvt + 1] = (float)v[1];
	}
	(*count)++;
	return 0;
}

/* Resolve one index of a face corner: 1-based, or negative counting back
 * from the last one defined so far (`cur`).  The range of a positive
 * index is checked in the second pass, against the total `tot`. */
static int
resolve(struct obj *o, const char *part, size_t len, const char *what,
	const char *plural, uint64_t cur, uint64_t tot, uint32_t *out)
{
	int64_t idx;

	if (mio_parse_i64(part, len, INT64_MIN, INT64_MAX, &idx))
		return fail_line(o, "bad face index", part, len);
	if (idx == 0)
		return slc_fail(o->err, "line %llu: %s index 0 (indices start at 1)",
				(unsigned long long)o->s.line, what);
	if (idx < 0) {
		uint64_t back = (uint64_t)0 - (uint64_t)idx;   /* -idx, INT64_MIN too */

		if (back > cur)
			return slc_fail(o->err, "line %llu: %s index %lld out of range (%llu %s so far)",
					(unsigned long long)o->s.line, what,
					(long long)idx, (unsigned long long)cur, plural);
		*out = (uint32_t)(cur - back);
		return 0;
	}
	if (o->fill && (uint64_t)idx > tot)
		return slc_fail(o->err, "line %llu: %s index %lld out of range (%llu %s)",
				(unsigned long long)o->s.line, what, (long long)idx,
				(unsigned long long)tot, plural);
	*out = (uint32_t)(idx - 1);
	return 0;
}

/* One corner "v", "v/vt", "v//vn" or "v/vt/vn": indices (NO_INDEX when
 * absent) into c[0..2]. */
static int
corner(struct obj *o, const char *tok, size_t len, uint32_t c[3])
{
	const char *part[3];
	size_t plen[3], i, np = 1;

	part[0] = tok;
	for (i = 0; i < len; i++)
		if (tok[i] == '/') {
			if (np == 3)
				return fail_line(o, "bad face vertex", tok, len);
			plen[np - 1] = (size_t)(tok + i - part[np - 1]);
			part[np++] = tok + i + 1;
		}
	plen[np - 1] = (size_t)(tok + len - part[np - 1]);
	/* v and vn must be present when their slot exists; vt may be empty
	 * only in the v//vn form */
	if (plen[0] == 0 || (np >= 2 && plen[np - 1] == 0))
		return fail_line(o, "bad face vertex", tok, len);
	c[1] = c[2] = NO_INDEX;
	if (resolve(o, part[0], plen[0], "face", "vertices", o->nv, o->tv, &c[0]))
		return -1;
	if (np >= 2 && plen[1] &&
	    resolve(o, part[1], plen[1], "texture", "texture coordinates",
		    o->nvt, o->tvt, &c[1]))
		return -1;
	if (np == 3 &&
	    resolve(o, part[2], plen[2], "normal", "normals", o->nvn, o->tvn, &c[2]))
		return -1;
	return 0;
}

/* Record the texture (normal) index a corner gives its vertex; a vertex
 * given two different values makes the per-vertex channel impossible. */
static void
note_attr(uint32_t *of, const float *val, int ncomp, uint32_t v, uint32_t a,
	  int *bad)
{
	if (!of || *bad)
		return;
	if (of[v] == NO_INDEX)
		of[v] = a;
	else if (of[v] != a &&
		 memcmp(val + (size_t)ncomp * of[v], val + (size_t)ncomp * a,
			(size_t)ncomp * sizeof *val))
		*bad = 1;
}

static int
stmt_f(struct obj *o)
{
	const char *tok;
	size_t len;
	uint32_t c[3], first = 0, prev = 0;
	uint64_t k = 0;

	while (token(o, &tok, &len)) {
		if (corner(o, tok, len, c))
			return -1;
		if (c[1] == NO_INDEX)
			o->corner_no_vt = 1;
		if (c[2] == NO_INDEX)
			o->corner_no_vn = 1;
		if (o->fill) {
			if (c[1] != NO_INDEX)
				note_attr(o->vt_of, o->vt, 2, c[0], c[1], &o->uv_bad);
			if (c[2] != NO_INDEX)
				note_attr(o->vn_of, o->vn, 3, c[0], c[2], &o->n_bad);
		}
		if (k == 0)
			first = c[0];
		if (k >= 2) {
			/* fan: (v0, v[k-1], v[k]) */
			if (o->fill) {
				o->tri[3 * o->ntri] = first;
				o->tri[3 * o->ntri + 1] = prev;
				o->tri[3 * o->ntri + 2] = c[0];
			}
			o->ntri++;
		}
		prev = c[0];
		k++;
	}
	if (k < 3)
		return slc_fail(o->err, "line %llu: face has %llu vertices, expected at least 3",
				(unsigned long long)o->s.line, (unsigned long long)k);
	return 0;
}

static int
pass(struct obj *o, const void *buf, size_t len)
{
	const char *tok;
	size_t tlen;
	int i, rc;

	mio_scan_init(&o->s, buf, len);
	/* a UTF-8 byte order mark, as some Windows tools write */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		o->s.p += 3;
	o->nv = o->nvt = o->nvn = o->ntri = o->ncol = o->nstmt = 0;
	while (!mio_at_end(&o->s)) {
		if (!mio_token(&o->s, &tok, &tlen) || tok[0] == '#') {
			mio_next_line(&o->s);
			continue;
		}
		o->nstmt++;
		if (mio_is(tok, tlen, "v"))
			rc = stmt_v(o);
		else if (mio_is(tok, tlen, "vt"))
			rc = stmt_vt_vn(o, 0);
		else if (mio_is(tok, tlen, "vn"))
			rc = stmt_vt_vn(o, 1);
		else if (mio_is(tok, tlen, "f"))
			rc = stmt_f(o);
		else {
			for (i = 0; ignored[i] && !mio_is(tok, tlen, ignored[i]); i++)
				;
			if (!ignored[i])
				return fail_line(o, "unknown statement", tok, tlen);
			rc = 0;
		}
		if (rc)
			return -1;
		mio_next_line(&o->s);
	}
	return 0;
}

/* Copy the per-vertex attribute picked by the faces into a point channel. */
static int
attr_channel(slc_rec *r, const char *name, int ncomp, const float *val,
	     const uint32_t *of, uint64_t nv, slc_err *err)
{
	float *d = slc_rec_add(r, name, SLC_F32, (uint32_t)ncomp, SLC_POINT, nv, err);
	uint64_t v;

	if (!d)
		return -1;
	for (v = 0; v < nv; v++)
		if (of[v] != NO_INDEX)
			memcpy(d + (size_t)ncomp * v, val + (size_t)ncomp * of[v],
			       (size_t)ncomp * sizeof *d);
	return 0;
}

int
slc_obj_read(const void *buf, size_t len, const char *name, slc_rec *r,
	     slc_err *err)
{
	struct obj o;
	int rc = -1;

	memset(&o, 0, sizeof o);
	o.err = err;
	slc_rec_init(r, SLC_END, "");
	if (pass(&o, buf, len))
		return -1;
	if (o.nv == 0)
		return slc_fail(err, o.nstmt ? "no vertices" : "empty input");
	o.tv = o.nv;
	o.tvt = o.nvt;
	o.tvn = o.nvn;
	slc_rec_init(r, o.ntri ? SLC_MESH : SLC_PARTICLES,
		     name ? name : o.ntri ? "mesh" : "particles");
	o.P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, o.nv, err);
	if (!o.P)
		goto out;
	if (o.ntri && !(o.tri = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, o.ntri, err)))
		goto out;
	if (o.ncol == o.nv && !(o.col = slc_rec_add(r, "Cd", SLC_F32, 3, SLC_POINT, o.nv, err)))
		goto out;
	/* per-vertex uv and N only when every corner names one */
	if (o.ntri && o.nvt && !o.corner_no_vt &&
	    (!(o.vt = slc_calloc(o.nvt, 2 * sizeof *o.vt, err)) ||
	     !(o.vt_of = slc_calloc(o.nv, sizeof *o.vt_of, err))))
		goto out;
	if (o.ntri && o.nvn && !o.corner_no_vn &&
	    (!(o.vn = slc_calloc(o.nvn, 3 * sizeof *o.vn, err)) ||
	     !(o.vn_of = slc_calloc(o.nv, sizeof *o.vn_of, err))))
		goto out;
	if (o.vt_of)
		memset(o.vt_of, 0xff, o.nv * sizeof *o.vt_of);
	if (o.vn_of)
		memset(o.vn_of, 0xff, o.nv * sizeof *o.vn_of);
	o.fill = 1;
	if (pass(&o, buf, len))
		goto out;
	if (o.vt_of && !o.uv_bad &&
	    attr_channel(r, "uv", 2, o.vt, o.vt_of, o.nv, err))
		goto out;
	if (o.vn_of && !o.n_bad &&
	    attr_channel(r, "N", 3, o.vn, o.vn_of, o.nv, err))
		goto out;
	rc = 0;
out:
	free(o.vt);
	free(o.vn);
	free(o.vt_of);
	free(o.vn_of);
	if (rc)
		slc_rec_free(r);
	return rc;
}

/* A point channel of r with ncomp float components, or NULL. */
static const slc_chan *
float_point(const slc_rec *r, const char *name, int ncomp)
{
	const slc_chan *c = slc_rec_find(r, name);

	if (c && c->domain == SLC_POINT && c->ncomp == ncomp &&
	    (c->type == SLC_F32 || c->type == SLC_F64))
		return c;
	return NULL;
}

int
slc_obj_write(FILE *f, const slc_rec *r, slc_err *err)
{
	const slc_chan *P, *uv, *N, *Cd, *tri = NULL;
	char nm[SLC_NAME_ESC_BUF];
	uint64_t v, t, np;
	int d, k;

	if (r->kind != SLC_MESH && r->kind != SLC_PARTICLES)
		return slc_fail(err, "record '%s' is a %s, OBJ takes a mesh or particles",
				r->name, slc_kind_name(r->kind));
	if (slc_rec_validate(r, err))
		return slc_failctx(err, "record '%s': ", r->name);
	P = slc_rec_find(r, "P");
	np = P->count;
	d = mio_digits(P->type);
	if (r->kind == SLC_MESH)
		tri = slc_rec_find(r, "tri");
	uv = tri ? float_point(r, "uv", 2) : NULL;
	N = tri ? float_point(r, "N", 3) : NULL;
	Cd = float_point(r, "Cd", 3);
	/* the name escaped: a newline in it would start an OBJ line */
	fprintf(f, "# sluice %s '%s': %llu vertices, %llu triangles\n",
		slc_kind_name(r->kind), slc_escstr(r->name, nm, sizeof nm), (unsigned long long)np,
		(unsigned long long)(tri ? tri->count : 0));
	for (v = 0; v < np; v++) {
		fprintf(f, "v %.*g %.*g %.*g", d, mio_get(P, 3 * v), d,
			mio_get(P, 3 * v + 1), d, mio_get(P, 3 * v + 2));
		for (k = 0; Cd && k < 3; k++)
			fprintf(f, " %.*g", mio_digits(Cd->type), mio_get(Cd, 3 * v + (uint64_t)k));
		fputc('\n', f);
	}
	for (v = 0; uv && v < np; v++)
		fprintf(f, "vt %.*g %.*g\n", mio_digits(uv->type), mio_get(uv, 2 * v),
			mio_digits(uv->type), mio_get(uv, 2 * v + 1));
	for (v = 0; N && v < np; v++)
		fprintf(f, "vn %.*g %.*g %.*g\n", mio_digits(N->type), mio_get(N, 3 * v),
			mio_digits(N->type), mio_get(N, 3 * v + 1),
			mio_digits(N->type), mio_get(N, 3 * v + 2));
	for (t = 0; tri && t < tri->count; t++) {
		fputc('f', f);
		for (k = 0; k < 3; k++) {
			unsigned long long i =
				(unsigned long long)((const uint32_t *)tri->data)[3 * t + (uint64_t)k] + 1;

			if (uv && N)
				fprintf(f, " %llu/%llu/%llu", i, i, i);
			else if (uv)
				fprintf(f, " %llu/%llu", i, i);
			else if (N)
				fprintf(f, " %llu//%llu", i, i);
			else
				fprintf(f, " %llu", i);
		}
		fputc('\n', f);
	}
	if (fflush(f) != 0 || ferror(f))
		return slc_fail(err, "write error");
	return 0;
}
