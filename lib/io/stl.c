/* stl.c: STL (ascii and binary) to sluice mesh records.
 *
 * STL stores each triangle with its own three corners; the reader welds
 * corners with bitwise equal coordinates into one vertex (in order of first
 * appearance) so that the mesh is connected.  Binary STL: an 80-byte
 * header, a u32 triangle count, and 50 bytes per triangle (normal, three
 * corners as f32 x3, u16 attribute).  A file is binary when its size is
 * exactly 84 + 50 * count; otherwise it must be ascii (`solid` ...
 * `endsolid`), one or more solids.
 */
#include "io/meshio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/meshio_scan.h"

#define STL_HEADER 80   /* bytes before the triangle count */
#define STL_TRI 50      /* bytes per binary triangle */

/* --- welding ------------------------------------------------------------ */

struct weld {
	uint32_t *slot;         /* vertex index + 1, 0 empty */
	size_t mask;
	float *P;               /* welded vertices */
	uint32_t n;
};

static uint64_t
hash3(const uint32_t b[3])
{
	/* FNV-1a over the 12 bytes, then a final avalanche (splitmix64) */
	uint64_t h = 1469598103934665603ull;
	int k, s;

	for (k = 0; k < 3; k++)
		for (s = 0; s < 32; s += 8) {
			h ^= (b[k] >> s) & 0xff;
			h *= 1099511628211ull;
		}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* A table for up to ncorner vertices, at most half full. */
static int
weld_init(struct weld *w, size_t ncorner, slc_err *err)
{
	size_t cap = 16;

	memset(w, 0, sizeof *w);
	while (cap < 2 * ncorner) {
		if (slc_mul(cap, 2, &cap))
			return slc_fail(err, "too many triangles");
	}
	w->slot = slc_calloc(cap, sizeof *w->slot, err);
	w->P = slc_calloc(ncorner ? ncorner : 1, 3 * sizeof *w->P, err);
	if (!w->slot || !w->P) {
		free(w->slot);
		free(w->P);
		return -1;
	}
	w->mask = cap - 1;
	return 0;
}

/* The index of the vertex at x, added if new.  x must be finite; -0 is
 * stored as +0 so that the two weld. */
static uint32_t
weld_add(struct weld *w, const float x[3])
{
	float y[3];
	uint32_t b[3];
	size_t h;
	int k;

	for (k = 0; k < 3; k++)
		y[k] = x[k] == 0.0f ? 0.0f : x[k];
	memcpy(b, y, sizeof b);
	for (h = (size_t)hash3(b) & w->mask;; h = (h + 1) & w->mask) {
		uint32_t s = w->slot[h];

		if (!s)
			break;
		if (!memcmp(&w->P[3 * (size_t)(s - 1)], y, sizeof y))
			return s - 1;
	}
	memcpy(&w->P[3 * (size_t)w->n], y, sizeof y);
	w->slot[h] = ++w->n;
	return w->n - 1;
}

/* Move the welded vertices and the triangles into a mesh record. */
static int
weld_finish(struct weld *w, uint32_t *tri, uint64_t ntri, const char *name,
	    slc_rec *r, slc_err *err)
{
	float *P;
	uint32_t *T;

	slc_rec_init(r, SLC_MESH, name ? name : "mesh");
	P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, w->n, err);
	T = P ? slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, ntri, err) : NULL;
	if (!T) {
		slc_rec_free(r);
		return -1;
	}
	memcpy(P, w->P, (size_t)w->n * 3 * sizeof *P);
	memcpy(T, tri, (size_t)ntri * 3 * sizeof *T);
	return 0;
}

static void
weld_free(struct weld *w)
{
	free(w->slot);
	free(w->P);
}

/* --- binary ------------------------------------------------------------- */

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static float
lef32(const unsigned char *p)
{
	uint32_t u = le32(p);
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

static int
read_binary(const unsigned char *b, size_t len, uint64_t ntri,
	    const char *name, slc_rec *r, slc_err *err)
{
	struct weld w;
	uint32_t *tri;
	uint64_t t;
	int c, k;

	if (weld_init(&w, (size_t)ntri * 3, err))
		return -1;
	tri = slc_calloc((size_t)ntri * 3 + 1, sizeof *tri, err);
	if (!tri) {
		weld_free(&w);
		return -1;
	}
	for (t = 0; t < ntri; t++) {
		const unsigned char *f = b + STL_HEADER + 4 + STL_TRI * t;

		for (c = 0; c < 3; c++) {
			float x[3];

			for (k = 0; k < 3; k++) {
				x[k] = lef32(f + 12 + 12 * c + 4 * k);
				if (!isfinite(x[k])) {
					slc_fail(err, "byte %llu: triangle %llu: coordinate %g is not finite",
						 (unsigned long long)(f + 12 + 12 * c + 4 * k - b),
						 (unsigned long long)t, (double)x[k]);
					goto fail;
				}
			}
			tri[3 * t + (uint64_t)c] = weld_add(&w, x);
		}
	}
	(void)len;
	if (weld_finish(&w, tri, ntri, name, r, err))
		goto fail;
	weld_free(&w);
	free(tri);
	return 0;
fail:
	weld_free(&w);
	free(tri);
	return -1;
}

/* --- ascii -------------------------------------------------------------- */

struct ascii {
	mio_scan s;
	uint64_t last;          /* line of the last token, for end-of-file */
	slc_err *err;
};

/* The next token, moving over line ends. */
static int
next_tok(struct ascii *a, const char **tok, size_t *len)
{
	while (!mio_token(&a->s, tok, len))
		if (!mio_next_line(&a->s))
			return 0;
	a->last = a->s.line;
	return 1;
}

static int
expect(struct ascii *a, const char *word)
{
	const char *tok;
	size_t len;
	char q[MIO_QUOTE_BUF];

	if (!next_tok(a, &tok, &len))
		return slc_fail(a->err, "line %llu: unexpected end of file, expected '%s'",
				(unsigned long long)a->last, word);
	if (!mio_is_ci(tok, len, word))
		return slc_fail(a->err, "line %llu: expected '%s', found '%s'",
				(unsigned long long)a->s.line, word,
				mio_quote(tok, len, q, sizeof q));
	return 0;
}

/* Facet normals are ignored; some writers put nan there for degenerate
 * facets, so these words pass as normal components. */
static const char *const nonfinite[] = {
	"nan", "-nan", "+nan", "inf", "-inf", "+inf", "infinity", "-infinity",
	"+infinity", NULL
};

/* The next number; normal != 0 also accepts the words of nonfinite[]
 * (and leaves *x unset for them). */
static int
number(struct ascii *a, float *x, int normal)
{
	const char *tok;
	size_t len;
	double d;
	char q[MIO_QUOTE_BUF];
	int k;

	if (!next_tok(a, &tok, &len))
		return slc_fail(a->err, "line %llu: unexpected end of file, expected a number",
				(unsigned long long)a->last);
	for (k = 0; normal && nonfinite[k]; k++)
		if (mio_is_ci(tok, len, nonfinite[k]))
			return 0;
	if (mio_parse_f64(tok, len, &d) || !isfinite((float)d))
		return slc_fail(a->err, "line %llu: bad number '%s'",
				(unsigned long long)a->s.line,
				mio_quote(tok, len, q, sizeof q));
	*x = (float)d;
	return 0;
}

/* Walk the solids; with w NULL only count facets into *ntri. */
static int
ascii_pass(struct ascii *a, const void *buf, size_t len, struct weld *w,
	   uint32_t *tri, uint64_t *ntri)
{
	const char *tok;
	size_t tlen;
	char q[MIO_QUOTE_BUF];
	float x[3];
	int c, k;

	mio_scan_init(&a->s, buf, len);
	*ntri = 0;
	if (!next_tok(a, &tok, &tlen))
		return slc_fail(a->err, "empty input");
	for (;;) {
		/* "solid [name]": the name is the rest of the line */
		if (!mio_is_ci(tok, tlen, "solid"))
			return slc_fail(a->err, "line %llu: expected 'solid', found '%s'",
					(unsigned long long)a->s.line,
					mio_quote(tok, tlen, q, sizeof q));
		mio_next_line(&a->s);
		for (;;) {
			if (!next_tok(a, &tok, &tlen))
				return slc_fail(a->err, "line %llu: unexpected end of file, expected 'facet' or 'endsolid'",
						(unsigned long long)a->last);
			if (mio_is_ci(tok, tlen, "endsolid")) {
				mio_next_line(&a->s);
				break;
			}
			if (!mio_is_ci(tok, tlen, "facet"))
				return slc_fail(a->err, "line %llu: expected 'facet' or 'endsolid', found '%s'",
						(unsigned long long)a->s.line,
						mio_quote(tok, tlen, q, sizeof q));
			if (expect(a, "normal"))
				return -1;
			for (k = 0; k < 3; k++)
				if (number(a, &x[k], 1))
					return -1;
			if (expect(a, "outer") || expect(a, "loop"))
				return -1;
			for (c = 0; c < 3; c++) {
				if (expect(a, "vertex"))
					return -1;
				for (k = 0; k < 3; k++)
					if (number(a, &x[k], 0))
						return -1;
				if (w)
					tri[3 * *ntri + (uint64_t)c] = weld_add(w, x);
			}
			if (expect(a, "endloop") || expect(a, "endfacet"))
				return -1;
			if (*ntri >= UINT32_MAX / 3)
				return slc_fail(a->err, "line %llu: too many facets",
						(unsigned long long)a->s.line);
			(*ntri)++;
		}
		if (!next_tok(a, &tok, &tlen))
			return 0;
	}
}

static int
read_ascii(const void *buf, size_t len, const char *name, slc_rec *r,
	   slc_err *err)
{
	struct ascii a = { .err = err };
	struct weld w;
	uint32_t *tri;
	uint64_t ntri, n2;
	int rc = -1;

	if (ascii_pass(&a, buf, len, NULL, NULL, &ntri))
		return -1;
	if (ntri == 0)
		return slc_fail(err, "no facets");
	if (weld_init(&w, (size_t)ntri * 3, err))
		return -1;
	tri = slc_calloc((size_t)ntri * 3, sizeof *tri, err);
	if (tri && !ascii_pass(&a, buf, len, &w, tri, &n2))
		rc = weld_finish(&w, tri, ntri, name, r, err);
	weld_free(&w);
	free(tri);
	return rc;
}

/* --- entry -------------------------------------------------------------- */

/* A binary file's size is exactly header + count + 50 per triangle. */
static int
is_binary(const unsigned char *b, size_t len, uint64_t *ntri)
{
	size_t need;

	if (len < STL_HEADER + 4)
		return 0;
	*ntri = le32(b + STL_HEADER);
	return !slc_mul((size_t)*ntri, STL_TRI, &need) &&
	       !slc_add(need, STL_HEADER + 4, &need) && need == len;
}

/* Ascii STL starts with "solid" after optional blanks and is text: no
 * control bytes but blanks and newlines.  (Many binary files start their
 * header with "solid" too; their float data is full of control bytes.) */
static int
looks_ascii(const unsigned char *b, size_t len)
{
	size_t i = 0;

	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
		i++;
	if (len - i < 5 || !mio_is_ci((const char *)b + i, 5, "solid"))
		return 0;
	for (; i < len; i++)
		if ((b[i] < 0x20 && !(b[i] >= '\t' && b[i] <= '\r')) || b[i] == 0x7f)
			return 0;
	return 1;
}

int
slc_stl_read(const void *buf, size_t len, const char *name, slc_rec *r,
	     slc_err *err)
{
	const unsigned char *b = buf;
	uint64_t ntri = 0;

	slc_rec_init(r, SLC_END, "");
	if (len == 0)
		return slc_fail(err, "empty input");
	if (is_binary(b, len, &ntri)) {
		if (ntri == 0)
			return slc_fail(err, "byte %d: binary STL with 0 triangles",
					STL_HEADER);
		return read_binary(b, len, ntri, name, r, err);
	}
	if (looks_ascii(b, len))
		return read_ascii(buf, len, name, r, err);
	if (len < STL_HEADER + 4)
		return slc_fail(err, "byte 0: %zu bytes is too short for binary STL and it does not start with 'solid'",
				len);
	return slc_fail(err, "byte %d: binary STL declares %llu triangles (%llu bytes) but the file has %zu bytes",
			STL_HEADER, (unsigned long long)ntri,
			(unsigned long long)(STL_HEADER + 4 + (uint64_t)STL_TRI * ntri), len);
}
