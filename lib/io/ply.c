/* ply.c: PLY (ascii, binary little and big endian) to and from sluice mesh
 * and particle records.
 *
 * The header declares elements (name, count) and their properties (scalar
 * or list, with a type).  The reader keeps the `vertex` element (x y z
 * into "P", every other scalar property into a point channel, grouped as
 * described in meshio.h) and the `face` element's vertex_indices list
 * (fan-triangulated); every other element and property is parsed and
 * dropped.  Header lines of unknown keywords are skipped, as other
 * readers do, and noted for the tool to warn about.  Two passes over the
 * body: the first checks every value and counts the triangles, the second
 * fills arrays allocated at their exact size.  Before the first pass, the
 * bytes the header's counts need at the least are checked against the
 * bytes present.
 */
#include "io/meshio.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/name.h"
#include "io/meshio_chan.h"
#include "io/meshio_scan.h"

#define ELEM_MAX 64             /* elements in a header */
#define PROP_MAX SLC_CHAN_MAX   /* properties of one element */
#define GROUP_MAX 16            /* components of a NAME_0.. group (slc ncomp) */

enum ptype { PT_NONE, PT_I8, PT_U8, PT_I16, PT_U16, PT_I32, PT_U32, PT_F32,
	     PT_F64, PT_COUNT };

static const struct {
	const char *name, *alt;
	size_t size;
	double lo, hi;          /* range of an integer type */
	uint32_t slc;           /* channel type it becomes */
} ptypes[PT_COUNT] = {
	[PT_I8] = { "char", "int8", 1, -128, 127, SLC_I32 },
	[PT_U8] = { "uchar", "uint8", 1, 0, 255, SLC_U8 },
	[PT_I16] = { "short", "int16", 2, -32768, 32767, SLC_I32 },
	[PT_U16] = { "ushort", "uint16", 2, 0, 65535, SLC_U32 },
	[PT_I32] = { "int", "int32", 4, -2147483648.0, 2147483647.0, SLC_I32 },
	[PT_U32] = { "uint", "uint32", 4, 0, 4294967295.0, SLC_U32 },
	[PT_F32] = { "float", "float32", 4, 0, 0, SLC_F32 },
	[PT_F64] = { "double", "float64", 8, 0, 0, SLC_F64 },
};

enum { FMT_ASCII, FMT_LE, FMT_BE };

struct prop {
	char name[SLC_NAME_MAX + 1];
	int type;               /* value type (of the items, for a list) */
	int ctype;              /* list count type, PT_NONE for a scalar */
	int chan, comp;         /* vertex: target channel index and component */
};

struct elem {
	char name[SLC_NAME_MAX + 1];
	uint64_t count;
	struct prop *prop;
	uint32_t nprop;
};

/* A planned vertex channel. */
struct plan {
	char name[SLC_NAME_MAX + 1];
	uint32_t type, ncomp;
};

struct ply {
	int fmt;
	struct elem elem[ELEM_MAX];
	int nelem, vert, face, face_list;
	struct plan plan[PROP_MAX];
	int nplan;
	const unsigned char *b;
	size_t len, body;       /* body: offset of the first data byte */
	uint64_t body_line;     /* and its line number */
	size_t pos;             /* binary cursor */
	mio_scan s;             /* ascii cursor */
	uint64_t nv, ntri;
	int fill;
	slc_rec *r;
	uint32_t *tri;
	slc_mesh_notes *notes;
	slc_err *err;
};

static int
ptype_of(const char *tok, size_t len)
{
	int t;

	for (t = 1; t < PT_COUNT; t++)
		if (mio_is(tok, len, ptypes[t].name) || mio_is(tok, len, ptypes[t].alt))
			return t;
	return PT_NONE;
}

static int
is_int(int t)
{
	return t != PT_F32 && t != PT_F64;
}

/* --- header ------------------------------------------------------------- */

static int
hfail(struct ply *p, const char *what, const char *tok, size_t len)
{
	char q[MIO_QUOTE_BUF];

	return slc_fail(p->err, "line %llu: %s '%s'", (unsigned long long)p->s.line,
			what, mio_quote(tok, len, q, sizeof q));
}

/* Element and property names: printable ASCII words (they become channel
 * names and appear in messages). */
static int
copy_name(struct ply *p, char *dst, const char *tok, size_t len)
{
	size_t i;

	if (len > SLC_NAME_MAX)
		return hfail(p, "name too long:", tok, len);
	for (i = 0; i < len; i++)
		if ((unsigned char)tok[i] <= ' ' || (unsigned char)tok[i] >= 0x7f)
			return hfail(p, "bad name", tok, len);
	memcpy(dst, tok, len);
	dst[len] = '\0';
	return 0;
}

/* "property TYPE NAME" or "property list CTYPE TYPE NAME" */
static int
header_property(struct ply *p)
{
	struct elem *e;
	struct prop *pr, *grown;
	const char *tok;
	size_t len;
	uint32_t k;

	if (!p->nelem)
		return slc_fail(p->err, "line %llu: property before any element",
				(unsigned long long)p->s.line);
	e = &p->elem[p->nelem - 1];
	if (e->nprop == PROP_MAX)
		return slc_fail(p->err, "line %llu: element '%s' has more than %d properties",
				(unsigned long long)p->s.line, e->name, PROP_MAX);
	grown = realloc(e->prop, (e->nprop + 1) * sizeof *e->prop);
	if (!grown)
		return slc_fail(p->err, "out of memory");
	e->prop = grown;
	pr = &e->prop[e->nprop];
	memset(pr, 0, sizeof *pr);
	pr->chan = -1;
	if (!mio_token(&p->s, &tok, &len))
		return slc_fail(p->err, "line %llu: property without a type",
				(unsigned long long)p->s.line);
	if (mio_is(tok, len, "list")) {
		if (!mio_token(&p->s, &tok, &len))
			return slc_fail(p->err, "line %llu: list without a count type",
					(unsigned long long)p->s.line);
		pr->ctype = ptype_of(tok, len);
		if (!pr->ctype || !is_int(pr->ctype))
			return hfail(p, "bad list count type", tok, len);
		if (!mio_token(&p->s, &tok, &len))
			return slc_fail(p->err, "line %llu: list without an item type",
					(unsigned long long)p->s.line);
	}
	pr->type = ptype_of(tok, len);
	if (!pr->type)
		return hfail(p, "unknown property type", tok, len);
	if (!mio_token(&p->s, &tok, &len))
		return slc_fail(p->err, "line %llu: property without a name",
				(unsigned long long)p->s.line);
	if (copy_name(p, pr->name, tok, len))
		return -1;
	if (!mio_at_eol(&p->s))
		return slc_fail(p->err, "line %llu: extra words after property '%s'",
				(unsigned long long)p->s.line, pr->name);
	for (k = 0; k < e->nprop; k++)
		if (!strcmp(e->prop[k].name, pr->name))
			return slc_fail(p->err, "line %llu: duplicate property '%s' in element '%s'",
					(unsigned long long)p->s.line, pr->name, e->name);
	e->nprop++;
	return 0;
}

static int
header_element(struct ply *p)
{
	struct elem *e;
	const char *tok;
	size_t len;
	int64_t n;
	int k;

	if (p->nelem == ELEM_MAX)
		return slc_fail(p->err, "line %llu: more than %d elements",
				(unsigned long long)p->s.line, ELEM_MAX);
	e = &p->elem[p->nelem];
	memset(e, 0, sizeof *e);
	if (!mio_token(&p->s, &tok, &len))
		return slc_fail(p->err, "line %llu: element without a name",
				(unsigned long long)p->s.line);
	if (copy_name(p, e->name, tok, len))
		return -1;
	if (!mio_token(&p->s, &tok, &len))
		return slc_fail(p->err, "line %llu: element '%s' without a count",
				(unsigned long long)p->s.line, e->name);
	if (mio_parse_i64(tok, len, 0, INT64_MAX, &n))
		return hfail(p, "bad element count", tok, len);
	if (!mio_at_eol(&p->s))
		return slc_fail(p->err, "line %llu: extra words after element '%s'",
				(unsigned long long)p->s.line, e->name);
	for (k = 0; k < p->nelem; k++)
		if (!strcmp(p->elem[k].name, e->name))
			return slc_fail(p->err, "line %llu: duplicate element '%s'",
					(unsigned long long)p->s.line, e->name);
	e->count = (uint64_t)n;
	p->nelem++;
	return 0;
}

/* An unknown header line, from its first word tok: skipped, the first
 * one kept in the notes. */
static void
skip_line(struct ply *p, const char *tok)
{
	slc_mesh_notes *n = p->notes;
	const char *end = memchr(tok, '\n', (size_t)(p->s.end - tok));
	size_t len, keep;

	if (n->nskipped++)
		return;
	n->line = p->s.line;
	len = (size_t)((end ? end : p->s.end) - tok);
	while (len > 0 && (tok[len - 1] == ' ' || tok[len - 1] == '\t' ||
			   tok[len - 1] == '\r' || tok[len - 1] == '\v' ||
			   tok[len - 1] == '\f'))
		len--;
	keep = len;
	if (keep > SLC_MESH_NOTE_MAX) {
		/* back to the start of a UTF-8 sequence */
		keep = SLC_MESH_NOTE_MAX;
		while (keep > 0 && ((unsigned char)tok[keep] & 0xc0) == 0x80)
			keep--;
	}
	slc_escape(tok, keep, n->first, sizeof n->first);
	if (keep < len)
		strcat(n->first, "...");
}

static int
header(struct ply *p)
{
	const char *tok;
	size_t len;
	int64_t ver;

	mio_scan_init(&p->s, p->b, p->len);
	if (p->len == 0)
		return slc_fail(p->err, "empty input");
	if (!mio_token(&p->s, &tok, &len) || !mio_is(tok, len, "ply") ||
	    !mio_at_eol(&p->s))
		return slc_fail(p->err, "line 1: not a PLY file (no 'ply' line)");
	p->fmt = -1;
	for (;;) {
		if (!mio_next_line(&p->s))
			return slc_fail(p->err, "line %llu: header without 'end_header'",
					(unsigned long long)p->s.line);
		if (!mio_token(&p->s, &tok, &len))
			continue;
		if (mio_is(tok, len, "comment") || mio_is(tok, len, "obj_info"))
			continue;
		if (mio_is(tok, len, "format")) {
			if (p->fmt >= 0)
				return slc_fail(p->err, "line %llu: second 'format' line",
						(unsigned long long)p->s.line);
			if (!mio_token(&p->s, &tok, &len))
				return slc_fail(p->err, "line %llu: 'format' without a type",
						(unsigned long long)p->s.line);
			if (mio_is(tok, len, "ascii"))
				p->fmt = FMT_ASCII;
			else if (mio_is(tok, len, "binary_little_endian"))
				p->fmt = FMT_LE;
			else if (mio_is(tok, len, "binary_big_endian"))
				p->fmt = FMT_BE;
			else
				return hfail(p, "unknown format", tok, len);
			/* version 1.0 is the only one there is */
			if (!mio_token(&p->s, &tok, &len) ||
			    !(mio_is(tok, len, "1.0") ||
			      (!mio_parse_i64(tok, len, 1, 1, &ver))) ||
			    !mio_at_eol(&p->s))
				return slc_fail(p->err, "line %llu: expected format version 1.0",
						(unsigned long long)p->s.line);
		} else if (mio_is(tok, len, "element")) {
			if (header_element(p))
				return -1;
		} else if (mio_is(tok, len, "property")) {
			if (header_property(p))
				return -1;
		} else if (mio_is(tok, len, "end_header")) {
			if (!mio_at_eol(&p->s))
				return slc_fail(p->err, "line %llu: extra words after 'end_header'",
						(unsigned long long)p->s.line);
			break;
		} else {
			skip_line(p, tok);
		}
	}
	if (p->fmt < 0)
		return slc_fail(p->err, "line %llu: no 'format' line in the header",
				(unsigned long long)p->s.line);
	/* the body starts after the newline that ends end_header */
	if (mio_at_end(&p->s) || *p->s.p != '\n')
		return slc_fail(p->err, "line %llu: no data after 'end_header'",
				(unsigned long long)p->s.line);
	p->s.p++;
	p->s.line++;
	p->body_line = p->s.line;
	p->body = (size_t)((const unsigned char *)p->s.p - p->b);
	p->pos = p->body;
	return 0;
}

/* --- the vertex channels --------------------------------------------------- */

static int
find_prop(const struct elem *e, const char *name)
{
	uint32_t k;

	for (k = 0; k < e->nprop; k++)
		if (!strcmp(e->prop[k].name, name) && !e->prop[k].ctype)
			return (int)k;
	return -1;
}

/* Plan one channel from n properties (indices pk) of the vertex element. */
static void
plan_group(struct ply *p, const char *name, const int *pk, int n)
{
	struct elem *e = &p->elem[p->vert];
	struct plan *pl = &p->plan[p->nplan];
	int k, same = 1, t0 = e->prop[pk[0]].type;

	snprintf(pl->name, sizeof pl->name, "%s", name);
	pl->ncomp = (uint32_t)n;
	for (k = 0; k < n; k++) {
		e->prop[pk[k]].chan = p->nplan;
		e->prop[pk[k]].comp = k;
		same &= e->prop[pk[k]].type == t0;
	}
	/* mixed types widen to f64, which holds every PLY value exactly */
	pl->type = same ? ptypes[t0].slc : SLC_F64;
	p->nplan++;
}

/* Plan a named group if all its properties exist as scalars. */
static int
plan_named(struct ply *p, const char *name, const char *const *props, int n)
{
	int pk[4], k;

	for (k = 0; k < n; k++) {
		pk[k] = find_prop(&p->elem[p->vert], props[k]);
		if (pk[k] < 0 || p->elem[p->vert].prop[pk[k]].chan >= 0)
			return 0;
	}
	plan_group(p, name, pk, n);
	return 1;
}

/* NAME_0, NAME_1, ... from property k on: the group length (>= 2) and
 * the NAME in base, or 0. */
static int
suffix_group(const struct elem *e, uint32_t k, char *base)
{
	const char *nm = e->prop[k].name;
	size_t bl = strlen(nm), m;
	char want[SLC_NAME_MAX + 24];
	int n = 0;

	if (bl < 3 || strcmp(nm + bl - 2, "_0"))
		return 0;
	bl -= 2;
	memcpy(base, nm, bl);
	base[bl] = '\0';
	for (m = k; m < e->nprop && n < GROUP_MAX; m++, n++) {
		snprintf(want, sizeof want, "%s_%d", base, n);
		if (strcmp(e->prop[m].name, want) || e->prop[m].ctype ||
		    e->prop[m].chan >= 0)
			break;
	}
	return n >= 2 ? n : 0;
}

static int
plan_vertex(struct ply *p)
{
	static const char *const xyz[] = { "x", "y", "z" };
	static const char *const nxyz[] = { "nx", "ny", "nz" };
	static const char *const rgba[] = { "red", "green", "blue", "alpha" };
	static const char *const uvs[][2] = {
		{ "u", "v" }, { "s", "t" }, { "texture_u", "texture_v" },
		{ "texture_s", "texture_t" }
	};
	struct elem *e = &p->elem[p->vert];
	char base[SLC_NAME_MAX + 1];
	uint32_t k, j;
	int pk[GROUP_MAX], n, c;

	if (!plan_named(p, "P", xyz, 3))
		return slc_fail(p->err, "element 'vertex' has no scalar properties x, y and z");
	/* "P" is f32 unless a coordinate is double */
	p->plan[0].type = p->plan[0].type == SLC_F64 ? SLC_F64 : SLC_F32;
	plan_named(p, "N", nxyz, 3);
	if (!plan_named(p, "Cd", rgba, 4))
		plan_named(p, "Cd", rgba, 3);
	for (k = 0; k < 4; k++)
		if (plan_named(p, "uv", uvs[k], 2))
			break;
	for (k = 0; k < e->nprop; k++) {
		if (e->prop[k].chan >= 0 || e->prop[k].ctype)
			continue;
		n = suffix_group(e, k, base);
		if (n) {
			for (c = 0; c < n; c++)
				pk[c] = (int)k + c;
			plan_group(p, base, pk, n);
			continue;
		}
		pk[0] = (int)k;
		plan_group(p, e->prop[k].name, pk, 1);
	}
	for (k = 0; k < (uint32_t)p->nplan; k++)
		for (j = 0; j < k; j++)
			if (!strcmp(p->plan[k].name, p->plan[j].name))
				return slc_fail(p->err, "vertex properties make channel '%s' twice",
						p->plan[k].name);
	return 0;
}

/* --- the body -------------------------------------------------------------- */

/* The least number of bytes an instance of e takes in a binary body (a
 * face list at least 3 indices, other lists none). */
static void
elem_min_bytes(const struct ply *p, const struct elem *e, int is_face,
	       size_t *min)
{
	uint32_t k;
	size_t m = 0, one;

	for (k = 0; k < e->nprop; k++) {
		const struct prop *pr = &e->prop[k];
		int is_list = pr->ctype != PT_NONE;
		int idx = is_face && (int)k == p->face_list;

		one = is_list ? ptypes[pr->ctype].size +
			(idx ? 3 * ptypes[pr->type].size : 0)
			: ptypes[pr->type].size;
		m += one;
	}
	*min = m;
}

static int
check_sizes(struct ply *p)
{
	size_t need = 0, one, all;
	int k;

	for (k = 0; k < p->nelem; k++) {
		const struct elem *e = &p->elem[k];

		if (e->count && !e->nprop)
			return slc_fail(p->err, "element '%s' has %llu instances but no properties",
					e->name, (unsigned long long)e->count);
		/* ascii counts are checked by the first pass, which allocates
		 * nothing and stops at the end of the text */
		if (p->fmt == FMT_ASCII)
			continue;
		elem_min_bytes(p, e, k == p->face, &one);
		if (slc_mul((size_t)e->count, one, &all) || slc_add(need, all, &need) ||
		    e->count > SIZE_MAX || need > p->len - p->body)
			return slc_fail(p->err, "byte %zu: element '%s' declares %llu instances, more than the %zu bytes of data can hold",
					p->body, e->name, (unsigned long long)e->count,
					p->len - p->body);
	}
	return 0;
}

/* Read one value of type t as double: ascii token or binary bytes.
 * `what`/`index`/`prop` name it in messages. */
static int
get(struct ply *p, int t, const struct elem *e, uint64_t index,
    const char *prop, double *v)
{
	if (p->fmt == FMT_ASCII) {
		const char *tok;
		size_t len;
		int64_t n;
		char q[MIO_QUOTE_BUF];

		if (!mio_token(&p->s, &tok, &len))
			return slc_fail(p->err, "line %llu: %s %llu: missing value for property '%s'",
					(unsigned long long)p->s.line, e->name,
					(unsigned long long)index, prop);
		if (is_int(t) ? mio_parse_i64(tok, len, (int64_t)ptypes[t].lo,
					      (int64_t)ptypes[t].hi, &n)
			      : mio_parse_f64(tok, len, v) ||
				(t == PT_F32 && !isfinite((float)*v)))
			return slc_fail(p->err, "line %llu: %s %llu: bad %s value '%s' for property '%s'",
					(unsigned long long)p->s.line, e->name,
					(unsigned long long)index, ptypes[t].name,
					mio_quote(tok, len, q, sizeof q), prop);
		if (is_int(t))
			*v = (double)n;
		return 0;
	} else {
		size_t sz = ptypes[t].size, i;
		unsigned char by[8];
		uint64_t u = 0;

		if (p->len - p->pos < sz)
			return slc_fail(p->err, "byte %zu: %s %llu: data ends in property '%s'",
					p->pos, e->name, (unsigned long long)index, prop);
		for (i = 0; i < sz; i++)
			by[i] = p->b[p->pos + (p->fmt == FMT_LE ? i : sz - 1 - i)];
		for (i = sz; i-- > 0;)
			u = u << 8 | by[i];
		switch (t) {
		case PT_I8: *v = (int8_t)u; break;
		case PT_U8: *v = (uint8_t)u; break;
		case PT_I16: *v = (int16_t)u; break;
		case PT_U16: *v = (uint16_t)u; break;
		case PT_I32: *v = (int32_t)u; break;
		case PT_U32: *v = (uint32_t)u; break;
		case PT_F32: {
			uint32_t w = (uint32_t)u;
			float f;

			memcpy(&f, &w, sizeof f);
			*v = f;
			break;
		}
		default:
			memcpy(v, &u, sizeof *v);
			break;
		}
		if (!isfinite(*v))
			return slc_fail(p->err, "byte %zu: %s %llu: property '%s' is not finite (%g)",
					p->pos, e->name, (unsigned long long)index, prop, *v);
		p->pos += sz;
		return 0;
	}
}

/* Where a value starts: marked before reading it, spelled out only for a
 * message (formatting it for every value would dominate the read time). */
struct mark {
	size_t pos;
	uint64_t line;
};

static struct mark
mark(const struct ply *p)
{
	struct mark m = { p->pos, p->s.line };

	return m;
}

static const char *
where(const struct ply *p, struct mark m, char *buf, size_t len)
{
	if (p->fmt == FMT_ASCII)
		snprintf(buf, len, "line %llu", (unsigned long long)m.line);
	else
		snprintf(buf, len, "byte %zu", m.pos);
	return buf;
}

static int
face_list(struct ply *p, const struct elem *e, const struct prop *pr,
	  uint64_t f, uint64_t n)
{
	char at[32];
	uint32_t first = 0, prev = 0;
	uint64_t k;
	double v;
	struct mark m = mark(p);

	if (n < 3)
		return slc_fail(p->err, "%s: face %llu has %llu vertices, expected at least 3",
				where(p, m, at, sizeof at), (unsigned long long)f,
				(unsigned long long)n);
	for (k = 0; k < n; k++) {
		m = mark(p);
		if (get(p, pr->type, e, f, pr->name, &v))
			return -1;
		if (v < 0 || v >= (double)p->nv)
			return slc_fail(p->err, "%s: face index %.0f out of range (%llu vertices)",
					where(p, m, at, sizeof at), v,
					(unsigned long long)p->nv);
		if (k == 0)
			first = (uint32_t)v;
		if (k >= 2) {
			if (p->fill) {
				p->tri[3 * p->ntri] = first;
				p->tri[3 * p->ntri + 1] = prev;
				p->tri[3 * p->ntri + 2] = (uint32_t)v;
			}
			p->ntri++;
		}
		prev = (uint32_t)v;
	}
	return 0;
}

static int
walk(struct ply *p)
{
	char at[32];
	int k;
	uint64_t i, j, n;
	uint32_t q;
	double v;

	mio_scan_init(&p->s, p->b + p->body, p->len - p->body);
	p->s.line = p->body_line;   /* line numbers continue from the header */
	p->pos = p->body;
	p->ntri = 0;
	for (k = 0; k < p->nelem; k++) {
		const struct elem *e = &p->elem[k];

		for (i = 0; i < e->count; i++) {
			if (p->fmt == FMT_ASCII) {
				while (mio_at_eol(&p->s) && !mio_at_end(&p->s))
					mio_next_line(&p->s);
			}
			for (q = 0; q < e->nprop; q++) {
				const struct prop *pr = &e->prop[q];

				if (pr->ctype) {
					struct mark m = mark(p);

					if (get(p, pr->ctype, e, i, pr->name, &v))
						return -1;
					if (v < 0)
						return slc_fail(p->err, "%s: %s %llu: list '%s' has %.0f items",
								where(p, m, at, sizeof at), e->name,
								(unsigned long long)i, pr->name, v);
					if (k == p->face && (int)q == p->face_list) {
						if (face_list(p, e, pr, i, (uint64_t)v))
							return -1;
						continue;
					}
					for (j = 0, n = (uint64_t)v; j < n; j++)
						if (get(p, pr->type, e, i, pr->name, &v))
							return -1;
					continue;
				}
				if (get(p, pr->type, e, i, pr->name, &v))
					return -1;
				if (p->fill && k == p->vert && pr->chan >= 0) {
					slc_chan *c = &p->r->chan[pr->chan];

					mio_set(c, i * c->ncomp + (uint64_t)pr->comp, v);
				}
			}
			if (p->fmt == FMT_ASCII) {
				if (!mio_at_eol(&p->s))
					return slc_fail(p->err, "line %llu: %s %llu: more values than its %u properties",
							(unsigned long long)p->s.line, e->name,
							(unsigned long long)i, e->nprop);
				mio_next_line(&p->s);
			}
		}
	}
	if (p->fmt == FMT_ASCII) {
		while (mio_at_eol(&p->s) && !mio_at_end(&p->s))
			mio_next_line(&p->s);
		if (!mio_at_end(&p->s))
			return slc_fail(p->err, "line %llu: data after the last element",
					(unsigned long long)p->s.line);
	} else if (p->pos != p->len) {
		return slc_fail(p->err, "byte %zu: %zu bytes after the last element",
				p->pos, p->len - p->pos);
	}
	return 0;
}

static void
ply_free(struct ply *p)
{
	int k;

	for (k = 0; k < p->nelem; k++)
		free(p->elem[k].prop);
}

int
slc_ply_read(const void *buf, size_t len, const char *name, slc_rec *r,
	     slc_err *err)
{
	slc_mesh_notes notes;

	return slc_ply_read_notes(buf, len, name, r, &notes, err);
}

int
slc_ply_read_notes(const void *buf, size_t len, const char *name, slc_rec *r,
		   slc_mesh_notes *notes, slc_err *err)
{
	struct ply *p = calloc(1, sizeof *p);
	int k, rc = -1;
	uint32_t q;

	slc_rec_init(r, SLC_END, "");
	memset(notes, 0, sizeof *notes);
	if (!p)
		return slc_fail(err, "out of memory");
	p->notes = notes;
	p->b = buf;
	p->len = len;
	p->err = err;
	p->vert = p->face = p->face_list = -1;
	p->r = r;
	if (header(p))
		goto out;
	for (k = 0; k < p->nelem; k++) {
		if (!strcmp(p->elem[k].name, "vertex"))
			p->vert = k;
		else if (!strcmp(p->elem[k].name, "face"))
			p->face = k;
	}
	if (p->vert < 0) {
		slc_fail(err, "no 'vertex' element in the header");
		goto out;
	}
	p->nv = p->elem[p->vert].count;
	if (p->nv == 0) {
		slc_fail(err, "no vertices");
		goto out;
	}
	if (p->face >= 0) {
		const struct elem *e = &p->elem[p->face];

		for (q = 0; q < e->nprop && p->face_list < 0; q++)
			if (e->prop[q].ctype && (!strcmp(e->prop[q].name, "vertex_indices") ||
						 !strcmp(e->prop[q].name, "vertex_index")))
				p->face_list = (int)q;
		if (p->face_list < 0) {
			slc_fail(err, "element 'face' has no list 'vertex_indices'");
			goto out;
		}
		if (!is_int(e->prop[p->face_list].type)) {
			slc_fail(err, "face list '%s' holds %s, expected integers",
				 e->prop[p->face_list].name,
				 ptypes[e->prop[p->face_list].type].name);
			goto out;
		}
		if (e->count && p->nv > UINT32_MAX) {
			slc_fail(err, "%llu vertices, more than 32-bit indices address",
				 (unsigned long long)p->nv);
			goto out;
		}
	}
	if (plan_vertex(p) || check_sizes(p) || walk(p))
		goto out;
	/* all checked: allocate at the exact sizes and read again */
	slc_rec_init(r, p->ntri ? SLC_MESH : SLC_PARTICLES,
		     name ? name : p->ntri ? "mesh" : "particles");
	for (k = 0; k < p->nplan; k++)
		if (!slc_rec_add(r, p->plan[k].name, p->plan[k].type, p->plan[k].ncomp,
				 SLC_POINT, p->nv, err))
			goto out;
	if (p->ntri && !(p->tri = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, p->ntri, err)))
		goto out;
	p->fill = 1;
	if (walk(p))
		goto out;
	rc = 0;
out:
	if (rc)
		slc_rec_free(r);
	ply_free(p);
	free(p);
	return rc;
}

/* --- writer ---------------------------------------------------------------- */

/* The PLY type a channel type is written as. */
static int
ptype_for(uint32_t t)
{
	switch (t) {
	case SLC_U8: return PT_U8;
	case SLC_I32: return PT_I32;
	case SLC_U32: return PT_U32;
	case SLC_F32: return PT_F32;
	default: return PT_F64;  /* f64, and i64/u64 (documented as lossy) */
	}
}

/* Property name of component k of channel c, as the reader groups them. */
static void
prop_name(const slc_chan *c, uint32_t k, char *out, size_t len)
{
	static const char *const xyz[] = { "x", "y", "z" };
	static const char *const nxyz[] = { "nx", "ny", "nz" };
	static const char *const rgba[] = { "red", "green", "blue", "alpha" };
	static const char *const uv[] = { "u", "v" };

	if (!strcmp(c->name, "P") && c->ncomp == 3)
		snprintf(out, len, "%s", xyz[k]);
	else if (!strcmp(c->name, "N") && c->ncomp == 3)
		snprintf(out, len, "%s", nxyz[k]);
	else if (!strcmp(c->name, "Cd") && (c->ncomp == 3 || c->ncomp == 4))
		snprintf(out, len, "%s", rgba[k]);
	else if (!strcmp(c->name, "uv") && c->ncomp == 2)
		snprintf(out, len, "%s", uv[k]);
	else if (c->ncomp == 1)
		snprintf(out, len, "%s", c->name);
	else
		snprintf(out, len, "%s_%u", c->name, k);
}

static void
put_bin(FILE *f, int t, double v)
{
	unsigned char b[8];
	uint64_t u = 0;
	size_t i, sz = ptypes[t].size;

	switch (t) {
	case PT_U8: u = (uint8_t)v; break;
	case PT_I32: u = (uint32_t)(int32_t)v; break;
	case PT_U32: u = (uint32_t)v; break;
	case PT_F32: {
		float x = (float)v;
		uint32_t w;

		memcpy(&w, &x, sizeof w);
		u = w;
		break;
	}
	default:
		memcpy(&u, &v, sizeof u);
		break;
	}
	for (i = 0; i < sz; i++)
		b[i] = (unsigned char)(u >> (8 * i));
	fwrite(b, 1, sz, f);
}

static void
put_val(FILE *f, int ascii, int t, double v, int first)
{
	if (!ascii) {
		put_bin(f, t, v);
		return;
	}
	if (!first)
		fputc(' ', f);
	if (is_int(t))
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.*g", t == PT_F32 ? 9 : 17, v);
}

int
slc_ply_write(FILE *f, const slc_rec *r, int ascii, slc_err *err)
{
	const slc_chan *P, *tri = NULL;
	char nm[SLC_NAME_MAX + 8], seen[SLC_NAME_MAX + 8], esc[SLC_NAME_ESC_BUF];
	uint32_t c, k, d;
	uint64_t v, t;
	int it;
	size_t s;

	if (r->kind != SLC_MESH && r->kind != SLC_PARTICLES)
		return slc_fail(err, "record '%s' is a %s, PLY takes a mesh or particles",
				r->name, slc_kind_name(r->kind));
	if (slc_rec_validate(r, err))
		return slc_failctx(err, "record '%s': ", r->name);
	P = slc_rec_find(r, "P");
	if (r->kind == SLC_MESH)
		tri = slc_rec_find(r, "tri");
	/* property names must be PLY words and distinct */
	for (c = 0; c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];

		if (ch->domain != SLC_POINT)
			continue;
		for (s = 0; ch->name[s]; s++)
			if ((unsigned char)ch->name[s] <= ' ' || (unsigned char)ch->name[s] >= 0x7f)
				return slc_fail(err, "channel '%s': name is not a PLY property name",
						ch->name);
		for (k = 0; k < ch->ncomp; k++) {
			prop_name(ch, k, nm, sizeof nm);
			for (d = 0; d < r->nchan; d++) {
				uint32_t m, end = d == c ? k : r->chan[d].ncomp;

				if (r->chan[d].domain != SLC_POINT || d > c)
					continue;
				for (m = 0; m < end; m++) {
					prop_name(&r->chan[d], m, seen, sizeof seen);
					if (!strcmp(nm, seen))
						return slc_fail(err, "channel '%s' and '%s' both make PLY property '%s'",
								r->chan[d].name, ch->name, nm);
				}
			}
		}
	}
	/* the name escaped: a newline in it would start a header line */
	fprintf(f, "ply\nformat %s 1.0\ncomment sluice %s '%s'\nelement vertex %llu\n",
		ascii ? "ascii" : "binary_little_endian", slc_kind_name(r->kind),
		slc_escstr(r->name, esc, sizeof esc), (unsigned long long)P->count);
	/* "P" first, then the other point channels in record order */
	for (it = 0; it < 2; it++)
		for (c = 0; c < r->nchan; c++) {
			const slc_chan *ch = &r->chan[c];

			if (ch->domain != SLC_POINT || (ch == P) != (it == 0))
				continue;
			for (k = 0; k < ch->ncomp; k++) {
				prop_name(ch, k, nm, sizeof nm);
				fprintf(f, "property %s %s\n",
					ptypes[ptype_for(ch->type)].name, nm);
			}
		}
	it = P->count > INT32_MAX ? PT_U32 : PT_I32;
	if (tri)
		fprintf(f, "element face %llu\nproperty list uchar %s vertex_indices\n",
			(unsigned long long)tri->count, ptypes[it].name);
	fprintf(f, "end_header\n");
	for (v = 0; v < P->count; v++) {
		int first = 1, pass;

		for (pass = 0; pass < 2; pass++)
			for (c = 0; c < r->nchan; c++) {
				const slc_chan *ch = &r->chan[c];

				if (ch->domain != SLC_POINT || (ch == P) != (pass == 0))
					continue;
				for (k = 0; k < ch->ncomp; k++) {
					put_val(f, ascii, ptype_for(ch->type),
						mio_get(ch, v * ch->ncomp + k), first);
					first = 0;
				}
			}
		if (ascii)
			fputc('\n', f);
	}
	for (t = 0; tri && t < tri->count; t++) {
		put_val(f, ascii, PT_U8, 3, 1);
		for (k = 0; k < 3; k++)
			put_val(f, ascii, it,
				((const uint32_t *)tri->data)[3 * t + k], 0);
		if (ascii)
			fputc('\n', f);
	}
	if (fflush(f) != 0 || ferror(f))
		return slc_fail(err, "write error");
	return 0;
}
