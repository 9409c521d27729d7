/* slc.c: the sluice stream format, reading and writing records.
 *
 * formats/slc.md is the specification this file implements; the layout
 * constants below are its byte tables.  The reader trusts nothing: every
 * declared size is checked against the limits, against the bytes present
 * (up front for regular files, as the bytes arrive for pipes) and against
 * the other sizes before memory is allocated for it.
 */
#include "core/slc.h"
#include "core/name.h"

#include <errno.h>
#include <libdeflate.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define CRC_LEN 4
#define GRID_KBLOCK_LEN 48      /* ni nj nk stagger (4 x 4) + origin dx (4 x 8) */
#define CHAN_ENTRY_FIXED 14     /* u16 name len + u8 x4 + u64 count */
#define ALIGN 8                 /* descriptor and channel data alignment */
#define NCOMP_MAX 16
#define PIPE_CHUNK ((size_t)1 << 20)  /* growth step when the size is unknown */
#define READ_STEP ((size_t)1 << 18)   /* bytes read, then CRC'd while cached */
#define MAP_MIN ((size_t)1 << 20)     /* records of a file this large are mapped */
#define ZCHUNK ((size_t)1 << 30)      /* bytes handed to zlib at once (uInt) */
#define ZSCRATCH ((size_t)1 << 18)    /* decoded bytes checked at once, not kept */
#define SHUFFLE_CHUNK ((size_t)1 << 18) /* shuffled bytes handed to zstd at once */
/* a reader keeps its buffer for zstd's decoded planes from record to
 * record (fresh pages cost the kernel's zeroing) up to this size */
#define PLANES_KEEP ((size_t)1 << 28)
/* RFC 8878 §3.1.1: a zstd frame starts with this magic (little-endian) */
#define ZSTD_FRAME_MAGIC 0xFD2FB528u

static const uint8_t magic[4] = { 'S', 'L', 'C', 'R' };

/* The fixed record prefix (formats/slc.md, "Record layout"): the byte
 * offset of each field, named once for the reader and the writer. */
enum {
	PRE_MAGIC = 0,          /* 4 bytes, "SLCR" */
	PRE_MAJOR = 4,          /* u16 format version */
	PRE_MINOR = 6,          /* u16 */
	PRE_KIND = 8,           /* u32 enum slc_kind */
	PRE_ENCODING = 12,      /* u32 enum slc_encoding */
	PRE_TIME = 16,          /* f64 seconds */
	PRE_DESC_LEN = 24,      /* u32 descriptor bytes */
	PRE_RESERVED = 28,      /* u32, 0 */
	PRE_STORED_LEN = 32,    /* u64 payload bytes as stored */
	PRE_RAW_LEN = 40,       /* u64 payload bytes decoded */
	PREFIX_LEN = 48
};

/* The fields of a record prefix. */
struct prefix {
	uint16_t major, minor;
	uint32_t kind, enc, desc_len, reserved;
	double time;
	uint64_t stored_len, raw_len;
};

/* A buffer for zstd's decoded planes, and its size. */
struct planes {
	uint8_t *buf;
	size_t cap;
};

struct slc_reader {
	FILE *f;
	uint64_t offset;        /* bytes consumed */
	uint64_t index;         /* records read, end records included */
	uint64_t size;          /* file size if regular, else 0 */
	int regular;
	int seen_end;           /* the last record read was an end record */
	int broken;             /* a previous error: refuse to go on */
	int defer;              /* keep zlib records encoded (slc_reader_defer) */
	struct planes planes;   /* zstd's decoded planes, kept (PLANES_KEEP) */
};

struct slc_writer {
	FILE *f;
	uint32_t enc;           /* enum slc_encoding of every record */
	int level;              /* the encoder's level (0 when raw) */
	int failed;
	ZSTD_CCtx *zc;          /* zstd's context, made at the first zstd record */
	uint8_t *zout;          /* zstd's output, kept from record to record */
	size_t zout_cap;
	uint8_t *chunk;         /* SHUFFLE_CHUNK bytes of one plane */
};

/* --- little-endian helpers ------------------------------------------- */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void
putf64(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	put64(p, v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static double
getf64(const uint8_t *p)
{
	uint64_t v = get64(p);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

static size_t
align_up(size_t n)
{
	return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static void
prefix_put(uint8_t *p, const struct prefix *h)
{
	memcpy(p + PRE_MAGIC, magic, 4);
	put16(p + PRE_MAJOR, h->major);
	put16(p + PRE_MINOR, h->minor);
	put32(p + PRE_KIND, h->kind);
	put32(p + PRE_ENCODING, h->enc);
	putf64(p + PRE_TIME, h->time);
	put32(p + PRE_DESC_LEN, h->desc_len);
	put32(p + PRE_RESERVED, h->reserved);
	put64(p + PRE_STORED_LEN, h->stored_len);
	put64(p + PRE_RAW_LEN, h->raw_len);
}

/* The fields of a prefix whose magic has been checked. */
static void
prefix_get(const uint8_t *p, struct prefix *h)
{
	h->major = get16(p + PRE_MAJOR);
	h->minor = get16(p + PRE_MINOR);
	h->kind = get32(p + PRE_KIND);
	h->enc = get32(p + PRE_ENCODING);
	h->time = getf64(p + PRE_TIME);
	h->desc_len = get32(p + PRE_DESC_LEN);
	h->reserved = get32(p + PRE_RESERVED);
	h->stored_len = get64(p + PRE_STORED_LEN);
	h->raw_len = get64(p + PRE_RAW_LEN);
}

/* The host must be little-endian for raw channel data to be used in place;
 * every platform sluice targets is. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "sluice needs a little-endian host");

/* --- names ------------------------------------------------------------ */

size_t
slc_type_size(uint32_t type)
{
	switch (type) {
	case SLC_U8: return 1;
	case SLC_I32: case SLC_U32: case SLC_F32: return 4;
	case SLC_F64: case SLC_I64: case SLC_U64: return 8;
	default: return 0;
	}
}

const char *
slc_type_name(uint32_t type)
{
	static const char *const n[] = { "?", "u8", "i32", "u32", "f32", "f64",
					 "i64", "u64" };
	return type < SLC_TYPE_COUNT ? n[type] : "unknown";
}

const char *
slc_kind_name(uint32_t kind)
{
	static const char *const n[] = { "end", "meta", "grid", "mesh", "tets",
					 "particles", "strands" };
	return kind < SLC_KIND_COUNT ? n[kind] : "unknown";
}

const char *
slc_domain_name(uint32_t domain)
{
	static const char *const n[] = { "detail", "point", "prim", "strand",
					 "sample" };
	return domain < SLC_DOMAIN_COUNT ? n[domain] : "unknown";
}

const char *
slc_stagger_name(uint32_t stagger)
{
	static const char *const n[] = { "cell", "node", "face-x", "face-y",
					 "face-z" };
	return stagger < SLC_STAGGER_COUNT ? n[stagger] : "unknown";
}

const char *
slc_encoding_name(uint32_t encoding)
{
	static const char *const n[] = { "raw", "zlib", "zstd" };
	return encoding < SLC_ENCODING_COUNT ? n[encoding] : "unknown";
}

/* --- checksums and the byte shuffle --------------------------------- */

/* The stream's CRC-32 (ISO-HDLC, the values of zlib's crc32) of n more
 * bytes after crc (0 to start): libdeflate's, which folds with
 * carry-less multiplication (PCLMUL) where the CPU has it, several times
 * faster than the table-driven crc32 of zlib 1.2 (measured: 4 to 14
 * GB/s against 1.5); the same values on every CPU. */
static uint32_t
crc_update(uint32_t crc, const void *p, size_t n)
{
	return libdeflate_crc32(crc, p, n);
}

/* formats/slc.md, "Payload", encoding 2: the n values of s bytes at src
 * as s planes of n bytes, byte b of value v at plane b's byte v; here
 * only values v0 .. v0+len-1 of plane b, into dst.  Element sizes are 1,
 * 4 or 8 (slc_type_size); the loops are written per size so that they
 * vectorize (omp simd: a strided load, a byte kept). */
static void
plane_gather(uint8_t *restrict dst, const uint8_t *restrict src, size_t s, size_t b,
	     size_t v0, size_t len)
{
	const uint8_t *p = src + v0 * s + b;

	if (s == 4) {
#pragma omp simd
		for (size_t v = 0; v < len; v++)
			dst[v] = p[4 * v];
	} else if (s == 8) {
#pragma omp simd
		for (size_t v = 0; v < len; v++)
			dst[v] = p[8 * v];
	} else {
		for (size_t v = 0; v < len; v++)
			dst[v] = p[v * s];
	}
}

/* The inverse of the shuffle: the s planes of n bytes at src back into n
 * values of s bytes at dst (which must not overlap src), each value put
 * together from its bytes in the planes (little-endian, as stored). */
static void
unshuffle(uint8_t *restrict dst, const uint8_t *restrict src, size_t n, size_t s)
{
	if (s == 4) {
		const uint8_t *p0 = src, *p1 = src + n, *p2 = src + 2 * n, *p3 = src + 3 * n;

#pragma omp simd
		for (size_t v = 0; v < n; v++) {
			uint32_t x = (uint32_t)p0[v] | (uint32_t)p1[v] << 8 |
				     (uint32_t)p2[v] << 16 | (uint32_t)p3[v] << 24;

			memcpy(dst + 4 * v, &x, 4);
		}
	} else if (s == 8) {
#pragma omp simd
		for (size_t v = 0; v < n; v++) {
			uint64_t x = 0;

			for (size_t b = 0; b < 8; b++)
				x |= (uint64_t)src[b * n + v] << 8 * b;
			memcpy(dst + 8 * v, &x, 8);
		}
	} else {
		for (size_t v = 0; v < n; v++)
			for (size_t b = 0; b < s; b++)
				dst[v * s + b] = src[b * n + v];
	}
}

/* --- records in memory ------------------------------------------------ */

static int chan_bytes(uint32_t type, uint32_t ncomp, uint64_t count,
		      size_t *bytes);

static void
copy_name(char *dst, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n > SLC_NAME_MAX)
		n = SLC_NAME_MAX;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

void
slc_rec_init(slc_rec *r, uint32_t kind, const char *name)
{
	memset(r, 0, sizeof *r);
	r->kind = kind;
	copy_name(r->name, name);
	r->grid.dx = 1;
}

/* Release a record's stored bytes: a private mapping of the file
 * (read_stored) or an allocation. */
static void
stored_free(slc_rec *r)
{
	if (r->stored_map)
		munmap(r->stored - r->stored_map_off, r->stored_len + r->stored_map_off);
	else
		free(r->stored);
	r->stored = NULL;
	r->stored_map = 0;
}

void
slc_rec_free(slc_rec *r)
{
	uint32_t c;

	for (c = 0; c < r->nchan; c++)
		if (r->chan[c].owned)
			free(r->chan[c].data);
	free(r->chan);
	if (r->encoding != SLC_RAW)
		free(r->payload);   /* a raw payload lies inside stored */
	stored_free(r);
	free(r->kblock);
	slc_rec_init(r, SLC_END, "");
}

int
slc_rec_own(slc_rec *r, slc_err *err)
{
	size_t bytes;
	uint32_t c;

	if (slc_rec_decode(r, err))
		return -1;
	for (c = 0; c < r->nchan; c++) {
		slc_chan *ch = &r->chan[c];
		void *copy;

		if (ch->owned)
			continue;
		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		copy = slc_calloc(bytes ? bytes : 1, 1, err);
		if (!copy)
			return -1;
		memcpy(copy, ch->data, bytes);
		ch->data = copy;
		ch->owned = 1;
	}
	if (r->encoding != SLC_RAW)
		free(r->payload);
	stored_free(r);
	r->stored = r->payload = NULL;
	r->stored_len = 0;
	r->encoding = SLC_RAW;
	return 0;
}

int
slc_rec_copy(slc_rec *dst, const slc_rec *src, slc_err *err)
{
	size_t bytes;
	uint32_t c;

	/* decoding changes how src is held, not what it is */
	if (slc_rec_decode((slc_rec *)src, err)) {
		slc_rec_init(dst, SLC_END, "");
		return -1;
	}
	slc_rec_init(dst, src->kind, src->name);
	dst->time = src->time;
	dst->grid = src->grid;
	if (src->kblock_len) {
		if (!(dst->kblock = slc_calloc(src->kblock_len, 1, err)))
			return -1;
		memcpy(dst->kblock, src->kblock, src->kblock_len);
		dst->kblock_len = src->kblock_len;
	}
	for (c = 0; c < src->nchan; c++) {
		const slc_chan *ch = &src->chan[c];
		void *d = slc_rec_add(dst, ch->name, ch->type, ch->ncomp, ch->domain,
				      ch->count, err);

		if (!d) {
			slc_rec_free(dst);
			return -1;
		}
		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		memcpy(d, ch->data, bytes);
	}
	return 0;
}

/* Bytes of one channel's data, overflow-checked. */
static int
chan_bytes(uint32_t type, uint32_t ncomp, uint64_t count, size_t *bytes)
{
	size_t n;

	if (count > SIZE_MAX)
		return -1;
	if (slc_mul((size_t)count, ncomp, &n) || slc_mul(n, slc_type_size(type), &n))
		return -1;
	*bytes = n;
	return 0;
}

static int
check_chan_shape(const char *name, uint32_t type, uint32_t ncomp,
		 uint32_t domain, slc_err *err)
{
	if (!slc_type_size(type))
		return slc_fail(err, "channel '%s': unknown type %u", name, type);
	if (ncomp < 1 || ncomp > NCOMP_MAX)
		return slc_fail(err, "channel '%s': %u components, expected 1..%d",
				name, ncomp, NCOMP_MAX);
	if (domain >= SLC_DOMAIN_COUNT)
		return slc_fail(err, "channel '%s': unknown domain %u", name, domain);
	return 0;
}

void *
slc_rec_add(slc_rec *r, const char *name, uint32_t type, uint32_t ncomp,
	    uint32_t domain, uint64_t count, slc_err *err)
{
	slc_chan *c, *grown;
	size_t bytes;

	if (!name || !*name || strlen(name) > SLC_NAME_MAX)
		return slc_fail(err, "bad channel name"), NULL;
	/* a new channel changes the payload's layout */
	if (slc_rec_decode(r, err))
		return NULL;
	if (slc_rec_find(r, name))
		return slc_fail(err, "record '%s': duplicate channel '%s'", r->name,
				name), NULL;
	if (check_chan_shape(name, type, ncomp, domain, err))
		return NULL;
	if (r->nchan >= SLC_CHAN_MAX)
		return slc_fail(err, "record '%s': more than %d channels", r->name,
				SLC_CHAN_MAX), NULL;
	if (chan_bytes(type, ncomp, count, &bytes) || bytes > SLC_PAYLOAD_MAX)
		return slc_fail(err, "channel '%s': %llu x %u elements is too large",
				name, (unsigned long long)count, ncomp), NULL;
	grown = realloc(r->chan, (r->nchan + 1) * sizeof *r->chan);
	if (!grown)
		return slc_fail(err, "out of memory"), NULL;
	r->chan = grown;
	c = &r->chan[r->nchan];
	memset(c, 0, sizeof *c);
	c->data = slc_calloc(bytes ? bytes : 1, 1, err);
	if (!c->data)
		return NULL;
	copy_name(c->name, name);
	c->type = (uint8_t)type;
	c->ncomp = (uint8_t)ncomp;
	c->domain = (uint8_t)domain;
	c->count = count;
	c->owned = 1;
	r->nchan++;
	return c->data;
}

slc_chan *
slc_rec_find(const slc_rec *r, const char *name)
{
	uint32_t c;

	for (c = 0; c < r->nchan; c++)
		if (!strcmp(r->chan[c].name, name))
			return &r->chan[c];
	return NULL;
}

int
slc_name_listed(const char *name, const char *list)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

void *
slc_rec_get(const slc_rec *r, const char *name, uint32_t type, uint32_t ncomp,
	    uint64_t count, slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, name);

	if (!c)
		return slc_fail(err, "record '%s': no channel '%s'", r->name, name),
		       NULL;
	/* decoding changes how r is held, not what it is */
	if (slc_rec_decode((slc_rec *)r, err))
		return NULL;
	if (c->type != type || c->ncomp != ncomp)
		return slc_fail(err, "record '%s': channel '%s' is %s x%u, expected %s x%u",
				r->name, name, slc_type_name(c->type), c->ncomp,
				slc_type_name(type), ncomp), NULL;
	if (count && c->count != count)
		return slc_fail(err, "record '%s': channel '%s' has %llu elements, expected %llu",
				r->name, name, (unsigned long long)c->count,
				(unsigned long long)count), NULL;
	return c->data;
}

/* Component q of element e of a channel, as double. */
static double
chan_value(const slc_chan *c, size_t q)
{
	switch (c->type) {
	case SLC_U8: return ((const uint8_t *)c->data)[q];
	case SLC_I32: return ((const int32_t *)c->data)[q];
	case SLC_U32: return ((const uint32_t *)c->data)[q];
	case SLC_F32: return ((const float *)c->data)[q];
	case SLC_F64: return ((const double *)c->data)[q];
	case SLC_I64: return (double)((const int64_t *)c->data)[q];
	case SLC_U64: return (double)((const uint64_t *)c->data)[q];
	default: return 0;
	}
}

void
slc_chan_stats_get(const slc_chan *c, slc_chan_stats *s)
{
	uint64_t q, n = c->count * c->ncomp;

	memset(s, 0, sizeof *s);
	s->min = INFINITY;
	s->max = -INFINITY;
	for (q = 0; q < n; q++) {
		double v = chan_value(c, (size_t)q);

		if (isnan(v))
			s->nnan++;
		else if (isinf(v))
			s->ninf++;
		else {
			if (v < s->min)
				s->min = v;
			if (v > s->max)
				s->max = v;
			s->sum += v;
			s->n++;
		}
	}
}

double *
slc_rec_get_f64(const slc_rec *r, const char *name, uint32_t ncomp,
		uint64_t *count, slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, name);
	size_t n, q;
	double *d;

	if (!c)
		return slc_fail(err, "record '%s': no channel '%s'", r->name, name),
		       NULL;
	if (c->ncomp != ncomp)
		return slc_fail(err, "record '%s': channel '%s' has %u components, expected %u",
				r->name, name, c->ncomp, ncomp), NULL;
	if (slc_rec_decode((slc_rec *)r, err))
		return NULL;
	if (c->count > SIZE_MAX || slc_mul((size_t)c->count, ncomp, &n))
		return slc_fail(err, "record '%s': channel '%s' too large", r->name,
				name), NULL;
	d = slc_calloc(n ? n : 1, sizeof *d, err);
	if (!d)
		return NULL;
	for (q = 0; q < n; q++)
		d[q] = chan_value(c, q);
	if (count)
		*count = c->count;
	return d;
}

int
slc_rec_remove(slc_rec *r, const char *name)
{
	slc_chan *c = slc_rec_find(r, name);
	size_t at;

	if (!c)
		return 0;
	/* the payload's layout changes: the other channels need their data */
	if (slc_rec_decode(r, NULL))
		return -1;
	if (c->owned)
		free(c->data);
	at = (size_t)(c - r->chan);
	memmove(c, c + 1, (r->nchan - at - 1) * sizeof *c);
	r->nchan--;
	return 0;
}

int
slc_grid_count(const slc_grid *g, size_t *n)
{
	if (g->ni < 1 || g->nj < 1 || g->nk < 1)
		return -1;
	return slc_mul3((size_t)g->ni, (size_t)g->nj, (size_t)g->nk, n);
}

float *
slc_grid_new(slc_rec *r, const char *name, const slc_grid *g, uint32_t ncomp,
	     slc_err *err)
{
	size_t n;

	slc_rec_init(r, SLC_GRID, name);
	r->grid = *g;
	if (slc_grid_count(g, &n))
		return slc_fail(err, "grid '%s': bad dims %dx%dx%d", name, g->ni,
				g->nj, g->nk), NULL;
	return slc_rec_add(r, name, SLC_F32, ncomp, SLC_SAMPLE, n, err);
}

int64_t
slc_chan_first_nonfinite(const slc_chan *c, uint64_t *nnan, uint64_t *ninf)
{
	int64_t first = -1;
	uint64_t q, n = c->count * c->ncomp, bad_nan = 0, bad_inf = 0;

	if (c->type == SLC_F32) {
		const float *a = c->data;

		for (q = 0; q < n; q++)
			if (!isfinite(a[q])) {
				if (isnan(a[q]))
					bad_nan++;
				else
					bad_inf++;
				if (first < 0)
					first = (int64_t)(q / c->ncomp);
			}
	} else if (c->type == SLC_F64) {
		const double *a = c->data;

		for (q = 0; q < n; q++)
			if (!isfinite(a[q])) {
				if (isnan(a[q]))
					bad_nan++;
				else
					bad_inf++;
				if (first < 0)
					first = (int64_t)(q / c->ncomp);
			}
	}
	if (nnan)
		*nnan = bad_nan;
	if (ninf)
		*ninf = bad_inf;
	return first;
}

int
slc_rec_check_finite(const slc_rec *r, long frame, slc_err *err)
{
	if (slc_rec_decode((slc_rec *)r, err))
		return -1;
	for (uint32_t c = 0; c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];
		uint64_t nnan, ninf;
		int64_t q = slc_chan_first_nonfinite(ch, &nnan, &ninf);
		char where[96], when[64];

		if (q < 0)
			continue;
		if (r->kind == SLC_GRID) {
			int64_t ni = r->grid.ni, nj = r->grid.nj;
			snprintf(where, sizeof where, "sample (%lld,%lld,%lld)",
				 (long long)(q % ni), (long long)(q / ni % nj),
				 (long long)(q / ni / nj));
		} else {
			snprintf(where, sizeof where, "%s %lld", slc_domain_name(ch->domain),
				 (long long)q);
		}
		if (frame >= 0)
			snprintf(when, sizeof when, "frame %ld", frame);
		else
			snprintf(when, sizeof when, "time %g", r->time);
		return slc_fail(err, "field '%s' channel '%s', %s: %llu NaN and %llu Inf values, "
				"first at %s", r->name, ch->name, when, (unsigned long long)nnan,
				(unsigned long long)ninf, where);
	}
	return 0;
}

/* --- validation ------------------------------------------------------- */

/* Every channel of the domain must have `count` elements. */
static int
check_domain_counts(const slc_rec *r, uint32_t domain, uint64_t count,
		    const char *what, slc_err *err)
{
	uint32_t c;

	for (c = 0; c < r->nchan; c++)
		if (r->chan[c].domain == domain && r->chan[c].count != count)
			return slc_fail(err, "channel '%s' has %llu elements, expected %llu (one per %s)",
					r->chan[c].name,
					(unsigned long long)r->chan[c].count,
					(unsigned long long)count, what);
	return 0;
}

static int
check_positions(const slc_rec *r, uint64_t *np, slc_err *err)
{
	const slc_chan *p = slc_rec_find(r, "P");

	if (!p)
		return slc_fail(err, "no position channel 'P'");
	if ((p->type != SLC_F32 && p->type != SLC_F64) || p->ncomp != 3 ||
	    p->domain != SLC_POINT)
		return slc_fail(err, "channel 'P' is %s x%u %s, expected f32 or f64 x3 point",
				slc_type_name(p->type), p->ncomp,
				slc_domain_name(p->domain));
	*np = p->count;
	return check_domain_counts(r, SLC_POINT, p->count, "point", err);
}

/* Element index channels (tri, tet) are u32 and refer to points: the
 * stages read them as u32, so the reader accepts no other type
 * (formats/slc.md, "Kinds"). */
static int
check_indices(const slc_rec *r, const char *name, uint32_t ncomp, uint64_t np,
	      slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, name);
	uint64_t q, n;

	if (!c)
		return slc_fail(err, "no channel '%s'", name);
	if (c->type != SLC_U32 || c->ncomp != ncomp ||
	    c->domain != SLC_PRIM)
		return slc_fail(err, "channel '%s' is %s x%u %s, expected u32 x%u prim",
				name, slc_type_name(c->type), c->ncomp,
				slc_domain_name(c->domain), ncomp);
	n = c->count * ncomp;
	for (q = 0; q < n; q++) {
		uint32_t v = ((const uint32_t *)c->data)[q];

		if (v >= np)
			return slc_fail(err, "%s %llu refers to point %u of %llu", name,
					(unsigned long long)(q / ncomp), v,
					(unsigned long long)np);
	}
	return check_domain_counts(r, SLC_PRIM, c->count, "primitive", err);
}

/* Coordinate a (0..2) of point p of the position channel. */
static double
point_coord(const slc_chan *P, uint64_t p, int a)
{
	if (P->type == SLC_F64)
		return ((const double *)P->data)[3 * p + (uint64_t)a];
	return ((const float *)P->data)[3 * p + (uint64_t)a];
}

/* Tetrahedra have positive volume (formats/slc.md, "Kinds"): six times
 * the signed volume ((P1-P0)x(P2-P0)).(P3-P0) > 0, NaN refused.  The one
 * exception is a tet marked disabled: a record with a u8 prim channel
 * SLC_TET_ALIVE may hold degenerate or inverted tets whose `alive` is 0
 * (a deforming tet mesh that loses a tet keeps its topology). */
static int
check_tet_volumes(const slc_rec *r, slc_err *err)
{
	const slc_chan *P = slc_rec_find(r, "P"), *T = slc_rec_find(r, "tet");
	const slc_chan *A = slc_rec_find(r, SLC_TET_ALIVE);
	const uint32_t *tet = T->data;
	const uint8_t *alive = NULL;
	uint64_t t;

	if (A && (A->type != SLC_U8 || A->ncomp != 1 || A->domain != SLC_PRIM))
		return slc_fail(err, "channel '%s' is %s x%u %s, expected u8 x1 prim",
				SLC_TET_ALIVE, slc_type_name(A->type), A->ncomp,
				slc_domain_name(A->domain));
	if (A)
		alive = A->data;
	for (t = 0; t < T->count; t++) {
		double e[3][3], c[3], v6;
		int a, k;

		if (alive && !alive[t])
			continue;
		for (k = 0; k < 3; k++)
			for (a = 0; a < 3; a++)
				e[k][a] = point_coord(P, tet[4 * t + (uint64_t)k + 1], a) -
					  point_coord(P, tet[4 * t], a);
		c[0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
		c[1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
		c[2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
		v6 = c[0] * e[2][0] + c[1] * e[2][1] + c[2] * e[2][2];
		if (!(v6 > 0))
			return slc_fail(err, "tet %llu has volume %g (must be > 0 unless its '%s' is 0)",
					(unsigned long long)t, v6 / 6, SLC_TET_ALIVE);
	}
	return 0;
}

int
slc_rec_validate(const slc_rec *r, slc_err *err)
{
	const slc_grid *g = &r->grid;
	const slc_chan *c;
	uint64_t np, q, ns;
	size_t n;
	uint32_t k;

	switch (r->kind) {
	case SLC_GRID:
		if (slc_grid_count(g, &n))
			return slc_fail(err, "bad grid dims %dx%dx%d", g->ni, g->nj, g->nk);
		if (g->stagger >= SLC_STAGGER_COUNT)
			return slc_fail(err, "unknown staggering %u", g->stagger);
		if (!(g->dx > 0) || !isfinite(g->dx))
			return slc_fail(err, "bad dx %g", g->dx);
		for (k = 0; k < 3; k++)
			if (!isfinite(g->origin[k]))
				return slc_fail(err, "origin is not finite");
		for (k = 0; k < r->nchan; k++)
			if (r->chan[k].domain != SLC_SAMPLE)
				return slc_fail(err, "channel '%s' is %s, expected sample",
						r->chan[k].name,
						slc_domain_name(r->chan[k].domain));
		return check_domain_counts(r, SLC_SAMPLE, n, "grid sample", err);
	case SLC_MESH:
		if (check_positions(r, &np, err))
			return -1;
		return check_indices(r, "tri", 3, np, err);
	case SLC_TETS:
		if (check_positions(r, &np, err) || check_indices(r, "tet", 4, np, err))
			return -1;
		return check_tet_volumes(r, err);
	case SLC_PARTICLES:
		return check_positions(r, &np, err);
	case SLC_STRANDS:
		if (check_positions(r, &np, err))
			return -1;
		c = slc_rec_find(r, "offset");
		if (!c || c->type != SLC_U32 || c->ncomp != 1 ||
		    c->domain != SLC_STRAND || c->count < 1)
			return slc_fail(err, "no u32 strand channel 'offset' with nstrands+1 entries");
		ns = c->count - 1;
		for (q = 0; q <= ns; q++) {
			uint32_t o = ((const uint32_t *)c->data)[q];

			if ((q == 0 && o != 0) || (q > 0 && o < ((const uint32_t *)c->data)[q - 1]) ||
			    o > np || (q == ns && o != np))
				return slc_fail(err, "strand offset %llu is %u: offsets must rise from 0 to %llu",
						(unsigned long long)q, o,
						(unsigned long long)np);
		}
		for (k = 0; k < r->nchan; k++)
			if (r->chan[k].domain == SLC_STRAND && &r->chan[k] != c &&
			    r->chan[k].count != ns)
				return slc_fail(err, "channel '%s' has %llu elements, expected %llu (one per strand)",
						r->chan[k].name,
						(unsigned long long)r->chan[k].count,
						(unsigned long long)ns);
		return 0;
	case SLC_META:
		c = slc_rec_find(r, "text");
		if (!c || c->type != SLC_U8 || c->ncomp != 1 || c->domain != SLC_DETAIL)
			return slc_fail(err, "no u8 x1 detail channel 'text'");
		return slc_meta_text_check(c->data, (size_t)c->count, err);
	default:
		return 0;
	}
}

/* --- descriptor encoding --------------------------------------------- */

/* Encode the descriptor of r (padded to ALIGN) into a new buffer and
 * compute the raw payload length. */
static uint8_t *
encode_desc(const slc_rec *r, size_t *desc_len, size_t *raw_len, slc_err *err)
{
	size_t nlen = strlen(r->name), len, raw = 0, bytes;
	uint32_t kblen, c;
	uint8_t *d, *p;

	kblen = r->kind == SLC_GRID ? GRID_KBLOCK_LEN : r->kblock_len;
	len = 2 + nlen + 4 + kblen + 4;
	for (c = 0; c < r->nchan; c++)
		len += CHAN_ENTRY_FIXED + strlen(r->chan[c].name);
	len = align_up(len);
	if (len > SLC_DESC_MAX)
		return slc_fail(err, "record '%s': descriptor of %zu bytes is over the limit",
				r->name, len), NULL;
	d = slc_calloc(len, 1, err);
	if (!d)
		return NULL;
	p = d;
	put16(p, (uint16_t)nlen);
	memcpy(p + 2, r->name, nlen);
	p += 2 + nlen;
	put32(p, kblen);
	p += 4;
	if (r->kind == SLC_GRID) {
		put32(p, (uint32_t)r->grid.ni);
		put32(p + 4, (uint32_t)r->grid.nj);
		put32(p + 8, (uint32_t)r->grid.nk);
		put32(p + 12, r->grid.stagger);
		putf64(p + 16, r->grid.origin[0]);
		putf64(p + 24, r->grid.origin[1]);
		putf64(p + 32, r->grid.origin[2]);
		putf64(p + 40, r->grid.dx);
	} else if (kblen) {
		memcpy(p, r->kblock, kblen);
	}
	p += kblen;
	put32(p, r->nchan);
	p += 4;
	for (c = 0; c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];
		size_t cl = strlen(ch->name);

		put16(p, (uint16_t)cl);
		memcpy(p + 2, ch->name, cl);
		p += 2 + cl;
		p[0] = ch->type;
		p[1] = ch->ncomp;
		p[2] = ch->domain;
		p[3] = 0;
		put64(p + 4, ch->count);
		p += 12;
		if (chan_bytes(ch->type, ch->ncomp, ch->count, &bytes) ||
		    slc_add(raw, align_up(bytes), &raw)) {
			free(d);
			return slc_fail(err, "record '%s': payload size overflows", r->name),
			       NULL;
		}
	}
	*desc_len = len;
	*raw_len = raw;
	return d;
}

/* Is s (n bytes) strict UTF-8 without NUL (formats/slc.md,
 * "Descriptor")?  RFC 3629: no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF. */
static int
name_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t b = s[i];
		uint32_t cp, min;
		size_t len, k;

		if (b == 0)
			return 0;
		if (b < 0x80) {
			i++;
			continue;
		}
		if ((b & 0xe0) == 0xc0)
			len = 2, cp = b & 0x1fu, min = 0x80;
		else if ((b & 0xf0) == 0xe0)
			len = 3, cp = b & 0x0fu, min = 0x800;
		else if ((b & 0xf8) == 0xf0)
			len = 4, cp = b & 0x07u, min = 0x10000;
		else
			return 0;       /* a continuation byte or 0xf8..0xff */
		if (n - i < len)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3fu);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* Parse a descriptor into r (channels without data).  Returns the raw
 * payload length it implies. */
static int
decode_desc(slc_rec *r, const uint8_t *d, size_t len, size_t *raw_len,
	    slc_err *err)
{
	size_t at = 0, raw = 0, bytes;
	uint32_t kblen, nchan, c;
	uint16_t nlen;

#define NEED(n) do { if (len - at < (size_t)(n)) \
	return slc_fail(err, "descriptor ends early (%zu bytes)", len); } while (0)
	NEED(2);
	nlen = get16(d);
	at = 2;
	NEED(nlen);
	if (nlen > SLC_NAME_MAX || !name_valid(d + at, nlen))
		return slc_fail(err, "record name is not UTF-8 without NUL");
	if (r->kind == SLC_END && nlen)
		return slc_fail(err, "end record with a name (it has none)");
	memcpy(r->name, d + at, nlen);
	r->name[nlen] = '\0';
	at += nlen;
	NEED(4);
	kblen = get32(d + at);
	at += 4;
	NEED(kblen);
	if (r->kind == SLC_GRID) {
		const uint8_t *p = d + at;

		if (kblen < GRID_KBLOCK_LEN)
			return slc_fail(err, "grid block of %u bytes, expected %d",
					kblen, GRID_KBLOCK_LEN);
		r->grid.ni = (int32_t)get32(p);
		r->grid.nj = (int32_t)get32(p + 4);
		r->grid.nk = (int32_t)get32(p + 8);
		r->grid.stagger = get32(p + 12);
		r->grid.origin[0] = getf64(p + 16);
		r->grid.origin[1] = getf64(p + 24);
		r->grid.origin[2] = getf64(p + 32);
		r->grid.dx = getf64(p + 40);
	} else if (kblen) {
		r->kblock = slc_calloc(kblen, 1, err);
		if (!r->kblock)
			return -1;
		memcpy(r->kblock, d + at, kblen);
		r->kblock_len = kblen;
	}
	at += kblen;
	NEED(4);
	nchan = get32(d + at);
	at += 4;
	if (nchan > SLC_CHAN_MAX)
		return slc_fail(err, "%u channels, at most %d", nchan, SLC_CHAN_MAX);
	if (r->kind == SLC_END && nchan)
		return slc_fail(err, "end record with %u channels (it has none)", nchan);
	if (nchan) {
		r->chan = slc_calloc(nchan, sizeof *r->chan, err);
		if (!r->chan)
			return -1;
	}
	for (c = 0; c < nchan; c++) {
		slc_chan *ch = &r->chan[c];
		uint16_t cl;

		NEED(2);
		cl = get16(d + at);
		at += 2;
		NEED(cl);
		if (cl == 0 || cl > SLC_NAME_MAX || !name_valid(d + at, cl))
			return slc_fail(err, "channel %u: name is not UTF-8 without NUL (%u bytes)",
					c, cl);
		memcpy(ch->name, d + at, cl);
		ch->name[cl] = '\0';
		at += cl;
		NEED(12);
		ch->type = d[at];
		ch->ncomp = d[at + 1];
		ch->domain = d[at + 2];
		ch->count = get64(d + at + 4);
		at += 12;
		r->nchan = c + 1;
		if (check_chan_shape(ch->name, ch->type, ch->ncomp, ch->domain, err))
			return -1;
		if (slc_rec_find(r, ch->name) != ch)
			return slc_fail(err, "duplicate channel '%s'", ch->name);
		if (chan_bytes(ch->type, ch->ncomp, ch->count, &bytes) ||
		    slc_add(raw, align_up(bytes), &raw) || raw > SLC_PAYLOAD_MAX)
			return slc_fail(err, "channel '%s': %llu elements is too large",
					ch->name, (unsigned long long)ch->count);
	}
#undef NEED
	/* padding up to desc_len is zero, so that equal records have equal
	 * bytes (formats/slc.md, "Descriptor") */
	for (; at < len; at++)
		if (d[at])
			return slc_fail(err, "record '%s': descriptor padding byte %zu (record byte "
					"%zu) is 0x%02x, expected 0", r->name, at,
					(size_t)PREFIX_LEN + at, d[at]);
	*raw_len = raw;
	return 0;
}

/* --- reading ---------------------------------------------------------- */

slc_reader *
slc_reader_open(FILE *f, slc_err *err)
{
	slc_reader *rd = slc_calloc(1, sizeof *rd, err);
	struct stat st;

	if (!rd)
		return NULL;
	rd->f = f;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		long pos = ftell(f);

		rd->regular = 1;
		rd->size = (uint64_t)st.st_size;
		/* a reader opened mid-file counts from where it starts */
		if (pos > 0)
			rd->size -= (uint64_t)pos;
	}
	return rd;
}

void
slc_reader_defer(slc_reader *rd, int on)
{
	rd->defer = on;
}

void
slc_reader_close(slc_reader *rd)
{
	if (rd)
		free(rd->planes.buf);
	free(rd);
}

uint64_t
slc_reader_index(const slc_reader *rd)
{
	return rd->index;
}

uint64_t
slc_reader_offset(const slc_reader *rd)
{
	return rd->offset;
}

/* Read exactly n bytes into *buf at offset at.  The buffer grows by
 * doubling as bytes arrive (never past at + n), so a size that a pipe's
 * header lies about costs at most twice the bytes really sent.  The CRC
 * *crc goes on over the bytes read below crc_end, READ_STEP at a time,
 * while they are still in the cache.  Returns 0, 1 at a premature end of
 * file, -1 on error. */
static int
read_exact(slc_reader *rd, uint8_t **buf, size_t *cap, size_t at, size_t n,
	   uint32_t *crc, size_t crc_end, slc_err *err)
{
	size_t end = at + n;

	while (at < end) {
		size_t got, want;

		if (*cap == at) {
			size_t newcap = *cap < PIPE_CHUNK / 2 ? PIPE_CHUNK : *cap * 2;
			uint8_t *g;

			if (newcap > end || newcap < *cap)
				newcap = end;
			g = realloc(*buf, newcap);
			if (!g)
				return slc_fail(err, "out of memory reading %zu bytes", newcap);
			*buf = g;
			*cap = newcap;
		}
		want = *cap - at < READ_STEP ? *cap - at : READ_STEP;
		got = fread(*buf + at, 1, want, rd->f);
		rd->offset += got;
		if (at < crc_end)
			*crc = crc_update(*crc, *buf + at,
					  (at + got < crc_end ? at + got : crc_end) - at);
		at += got;
		if (got < want) {
			if (ferror(rd->f))
				return slc_fail(err, "read error");
			return 1;
		}
	}
	return 0;
}

/* Point the channels at their data in the decoded payload. */
static int
place_channels(slc_rec *r, uint8_t *payload, size_t raw_len, slc_err *err)
{
	size_t at = 0, bytes;
	uint32_t c;

	for (c = 0; c < r->nchan; c++) {
		slc_chan *ch = &r->chan[c];
		size_t q;

		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		ch->data = payload + at;
		ch->owned = 0;
		/* padding is zero so that equal records have equal bytes */
		for (q = bytes; q < align_up(bytes); q++)
			if (payload[at + q])
				return slc_fail(err, "channel '%s': nonzero padding", ch->name);
		at += align_up(bytes);
	}
	return at == raw_len ? 0 : slc_fail(err, "payload of %zu bytes, channels need %zu",
					    raw_len, at);
}

/* Padding bytes of r's payload that fall in the decoded bytes p[0..len),
 * which sit at payload offset off, must be zero. */
static int
check_pad_span(const slc_rec *r, size_t off, const uint8_t *p, size_t len,
	       slc_err *err)
{
	size_t at = 0, bytes, q;
	uint32_t c;

	for (c = 0; c < r->nchan && at < off + len; c++) {
		const slc_chan *ch = &r->chan[c];

		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		for (q = at + bytes; q < at + align_up(bytes); q++)
			if (q >= off && q < off + len && p[q - off])
				return slc_fail(err, "channel '%s': nonzero padding", ch->name);
		at += align_up(bytes);
	}
	return 0;
}

/* Inflate the zlib payload src (n stored bytes, which start at byte base
 * of the record) that must decode to exactly raw_len bytes and end
 * exactly at the end of src.  Into dst when it is not NULL; else the
 * decoded bytes go through a bounded scratch buffer and are dropped,
 * their padding checked against pad_rec's channels: the check of a
 * record whose decoded payload is not kept.  Every failure says what is
 * wrong: damaged data (and where), a stream cut short, one that decodes
 * to more or fewer bytes than raw_len, bytes after the stream's end.
 * 0, or -1 with err. */
static int
inflate_payload(const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len,
		const slc_rec *pad_rec, size_t base, slc_err *err)
{
	uint8_t *scratch = NULL, extra;
	size_t out = 0, in = 0;
	z_stream z;
	int ret;

	if (!dst && !(scratch = malloc(ZSCRATCH)))
		return slc_fail(err, "out of memory checking a zlib payload");
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK) {
		free(scratch);
		return slc_fail(err, "zlib init failed");
	}
	for (;;) {
		size_t given = n - in < ZCHUNK ? n - in : ZCHUNK, want;

		z.next_in = (Bytef *)(src + in);
		z.avail_in = (uInt)given;
		if (out < raw_len) {
			want = raw_len - out;
			if (want > (dst ? ZCHUNK : ZSCRATCH))
				want = dst ? ZCHUNK : ZSCRATCH;
			z.next_out = dst ? dst + out : scratch;
		} else {
			/* room for one byte more than declared, to see it */
			want = 1;
			z.next_out = &extra;
		}
		z.avail_out = (uInt)want;
		ret = inflate(&z, Z_NO_FLUSH);
		in += given - z.avail_in;
		want -= z.avail_out;
		if (want && out >= raw_len) {
			ret = slc_fail(err, "zlib stream decodes to more than the %zu bytes the header "
				       "declares", raw_len);
			break;
		}
		if (scratch && pad_rec && check_pad_span(pad_rec, out, scratch, want, err)) {
			ret = -1;
			break;
		}
		out += want;
		if (ret == Z_STREAM_END) {
			ret = 0;
			break;
		}
		if (ret == Z_BUF_ERROR && in == n) {
			ret = slc_fail(err, "zlib stream is cut short: the payload's %zu bytes end "
				       "before the stream does (%zu of %zu bytes decoded)", n, out,
				       raw_len);
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			ret = slc_fail(err, "zlib stream is damaged at payload byte %zu (record byte "
				       "%zu): %s", in, base + in,
				       ret == Z_NEED_DICT ? "it needs a preset dictionary" :
				       z.msg ? z.msg : "invalid data");
			break;
		}
	}
	inflateEnd(&z);
	free(scratch);
	if (ret)
		return -1;
	if (out != raw_len)
		return slc_fail(err, "zlib stream ends after %zu decoded bytes, the header declares %zu",
				out, raw_len);
	if (in != n)
		return slc_fail(err, "%zu bytes after the end of the zlib stream, from payload byte "
				"%zu (record byte %zu): the header's stored length is %zu, the stream "
				"is %zu", n - in, in, base + in, n, in);
	return 0;
}

/* The frame header of the zstd payload src (n stored bytes, which start
 * at byte base of the record) checked against formats/slc.md's encoding
 * 2 before anything is allocated for it (RFC 8878 §3.1.1.1): the zstd
 * magic, a decoded size declared and equal to raw_len, no dictionary, a
 * window of at most 2^SLC_ZSTD_WINDOW_LOG_MAX bytes; then that the
 * frame's blocks end exactly where src does (zstd walks the block
 * headers, decoding nothing).  0, or -1 with err. */
static int
zstd_check_frame(const uint8_t *src, size_t n, size_t raw_len, size_t base,
		 slc_err *err)
{
	static const unsigned fcs_bytes[4] = { 0, 2, 4, 8 }, did_bytes[4] = { 0, 1, 2, 4 };
	const uint64_t window_max = (uint64_t)1 << SLC_ZSTD_WINDOW_LOG_MAX;
	uint64_t fcs = 0, did = 0, window = 0;
	unsigned single, nfcs, ndid, q;
	size_t at, len;
	uint8_t fhd;

	/* magic, Frame_Header_Descriptor */
	if (n < 5)
		return slc_fail(err, "zstd frame is cut short: the payload's %zu bytes end "
				"inside its header", n);
	if (get32(src) != ZSTD_FRAME_MAGIC)
		return slc_fail(err, "the payload is not a zstd frame (magic %08x, expected %08x)",
				get32(src), ZSTD_FRAME_MAGIC);
	fhd = src[4];
	single = fhd >> 5 & 1;
	nfcs = fcs_bytes[fhd >> 6];
	if (!nfcs && single)
		nfcs = 1;
	ndid = did_bytes[fhd & 3];
	if (n < 5 + !single + ndid + nfcs)
		return slc_fail(err, "zstd frame is cut short: the payload's %zu bytes end "
				"inside its header", n);
	at = 5;
	if (!single) {  /* Window_Descriptor: exponent, mantissa in eighths */
		uint8_t wd = src[at++];

		window = (uint64_t)1 << (10 + (wd >> 3));
		window += window / 8 * (wd & 7);
	}
	for (q = 0; q < ndid; q++)
		did |= (uint64_t)src[at + q] << 8 * q;
	at += ndid;
	for (q = 0; q < nfcs; q++)
		fcs |= (uint64_t)src[at + q] << 8 * q;
	if (nfcs == 2)
		fcs += 256;
	if (single)
		window = fcs;
	if (!nfcs)
		return slc_fail(err, "zstd frame does not declare its decoded size (a record's "
				"frame must)");
	if (fcs != raw_len)
		return slc_fail(err, "zstd frame declares %llu decoded bytes, the header declares %zu",
				(unsigned long long)fcs, raw_len);
	if (did)
		return slc_fail(err, "zstd frame needs dictionary %llu (a record's frame uses none)",
				(unsigned long long)did);
	if (window > window_max)
		return slc_fail(err, "zstd frame's window of %llu bytes is over the limit of %llu",
				(unsigned long long)window, (unsigned long long)window_max);
	len = ZSTD_findFrameCompressedSize(src, n);
	if (ZSTD_isError(len) && ZSTD_getErrorCode(len) == ZSTD_error_srcSize_wrong)
		return slc_fail(err, "zstd frame is cut short: the payload's %zu bytes end "
				"before the frame does", n);
	if (ZSTD_isError(len))
		return slc_fail(err, "zstd frame is damaged: %s", ZSTD_getErrorName(len));
	if (len != n)
		return slc_fail(err, "%zu bytes after the end of the zstd frame, from payload byte "
				"%zu (record byte %zu): the header's stored length is %zu, the frame "
				"is %zu", n - len, len, base + len, n, len);
	return 0;
}

/* Decode the zstd payload src (n stored bytes, which start at byte base
 * of the record r) that must decode to exactly raw_len bytes: r's
 * channels byte-shuffled, with their zero padding (formats/slc.md,
 * encoding 2).  The frame header is checked first (zstd_check_frame).
 * Into dst when it is not NULL: the frame decoded into the planes buffer
 * pl (a reader's, kept from record to record; NULL: one of its own),
 * then each channel unshuffled into dst.  Else the decoded bytes go
 * through a bounded scratch buffer and are dropped, their padding
 * checked (the shuffle leaves padding where it is): the check of a
 * record whose decoded payload is not kept.  0, or -1 with err. */
static int
unzstd_payload(const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len,
	       const slc_rec *r, size_t base, struct planes *pl, slc_err *err)
{
	struct planes own = { NULL, 0 };
	ZSTD_DCtx *dc;
	size_t got = 0, at = 0, bytes;
	uint8_t *tmp = NULL;
	uint32_t c;
	int rc = 0;

	if (zstd_check_frame(src, n, raw_len, base, err))
		return -1;
	if (!pl)
		pl = &own;
	if (dst && pl->cap < raw_len) {
		free(pl->buf);
		pl->cap = 0;
		if (!(pl->buf = slc_malloc(raw_len, 1, NULL)))
			return slc_fail(err, "out of memory decoding %zu bytes", raw_len);
		pl->cap = raw_len;
	}
	if (!dst && !(tmp = malloc(ZSCRATCH)))
		return slc_fail(err, "out of memory checking a zstd payload");
	if (!(dc = ZSTD_createDCtx())) {
		free(tmp);
		return slc_fail(err, "out of memory decoding a zstd payload");
	}
	if (dst) {
		got = ZSTD_decompressDCtx(dc, pl->buf, raw_len, src, n);
		if (ZSTD_isError(got))
			rc = slc_fail(err, "zstd frame is damaged: %s", ZSTD_getErrorName(got));
	} else {
		ZSTD_inBuffer in = { src, n, 0 };
		size_t left;

		ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, SLC_ZSTD_WINDOW_LOG_MAX);
		do {
			ZSTD_outBuffer out = { tmp, ZSCRATCH, 0 };

			left = ZSTD_decompressStream(dc, &out, &in);
			if (ZSTD_isError(left))
				rc = slc_fail(err, "zstd frame is damaged: %s", ZSTD_getErrorName(left));
			else if (out.pos > raw_len - got)
				rc = slc_fail(err, "zstd frame decodes to more than the %zu bytes the "
					      "header declares", raw_len);
			else if (check_pad_span(r, got, tmp, out.pos, err))
				rc = -1;
			else if (left && !out.pos && in.pos == in.size)
				rc = slc_fail(err, "zstd frame is cut short: the payload's %zu bytes "
					      "end before the frame does", n);
			got += out.pos;
		} while (!rc && left);
	}
	ZSTD_freeDCtx(dc);
	free(tmp);
	if (!rc && got != raw_len)
		rc = slc_fail(err, "zstd frame ends after %zu decoded bytes, the header declares %zu",
			      got, raw_len);
	/* each channel's planes back into values; the padding as decoded
	 * (place_channels checks that it is zero) */
	for (c = 0; !rc && dst && c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];
		size_t s = slc_type_size(ch->type);

		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		unshuffle(dst + at, pl->buf + at, bytes / s, s);
		memcpy(dst + at + bytes, pl->buf + at + bytes, align_up(bytes) - bytes);
		at += align_up(bytes);
	}
	if (pl == &own || pl->cap > PLANES_KEEP) {
		free(pl->buf);
		pl->buf = NULL;
		pl->cap = 0;
	}
	return rc;
}

/* Decode (dst) or only check (dst NULL) the payload src of n stored
 * bytes at record byte base in the encoding enc (zlib or zstd) of r. */
static int
decode_stored(uint32_t enc, const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len,
	      const slc_rec *r, size_t base, struct planes *pl, slc_err *err)
{
	if (enc == SLC_ZSTD)
		return unzstd_payload(src, n, dst, raw_len, r, base, pl, err);
	return inflate_payload(src, n, dst, raw_len, dst ? NULL : r, base, err);
}

/* Put "record N at byte B: " before the message in err: where a record
 * failed before its name is known.  Returns -1. */
static int
fail_at(const slc_reader *rd, uint64_t start, slc_err *err)
{
	return slc_failctx(err, "record %llu at byte %llu: ",
			   (unsigned long long)rd->index, (unsigned long long)start);
}

/* The same once the descriptor gave the name: "record N 'NAME' at byte
 * B: ".  Returns -1. */
static int
fail_named(const slc_reader *rd, uint64_t start, const slc_rec *r, slc_err *err)
{
	return slc_failctx(err, "record %llu '%s' at byte %llu: ",
			   (unsigned long long)rd->index, r->name,
			   (unsigned long long)start);
}

/* Read the prefix of the record at byte start into pre and check its
 * magic and major version.  1 for a prefix, 0 at the clean end of the
 * stream (end of file after an end record), or -1 with err: an empty
 * input, no end record, not a sluice stream, a truncated prefix, a read
 * error, another major version.  Marks the reader broken on anything but
 * a clean end; read_one clears the mark once the whole record is read. */
static int
read_prefix(slc_reader *rd, uint8_t *pre, uint64_t start, slc_err *err)
{
	size_t got = fread(pre, 1, PREFIX_LEN, rd->f);

	rd->offset += got;
	if (got == 0 && !ferror(rd->f)) {
		if (rd->seen_end)
			return 0;
		rd->broken = 1;
		if (rd->index == 0)
			return slc_fail(err, "empty input");
		return slc_fail(err, "truncated at byte %llu: no end record after record %llu",
				(unsigned long long)start,
				(unsigned long long)rd->index - 1);
	}
	rd->broken = 1;
	if (got >= 4 && memcmp(pre + PRE_MAGIC, magic, 4))
		return slc_fail(err, "bad magic %02x%02x%02x%02x, not a sluice stream",
				pre[0], pre[1], pre[2], pre[3]), fail_at(rd, start, err);
	if (got < PREFIX_LEN) {
		if (ferror(rd->f))
			return slc_fail(err, "read error"), fail_at(rd, start, err);
		return slc_fail(err, "truncated header (%zu of %d bytes)", got, PREFIX_LEN),
		       fail_at(rd, start, err);
	}
	if (get16(pre + PRE_MAJOR) != SLC_VERSION_MAJOR)
		return slc_fail(err, "format version %u.%u, this reader knows %d.x",
				get16(pre + PRE_MAJOR), get16(pre + PRE_MINOR),
				SLC_VERSION_MAJOR), fail_at(rd, start, err);
	return 1;
}

/* Check the sizes a prefix declares against the limits, against each
 * other and (for a regular file) against the bytes left after start, and
 * give the whole record's length in *total.  0, or -1 with err. */
static int
check_prefix(const slc_reader *rd, const struct prefix *h, uint64_t start,
	     size_t *total, slc_err *err)
{
	if (h->reserved != 0)
		return slc_fail(err, "reserved field is %u, expected 0", h->reserved);
	if (h->enc >= SLC_ENCODING_COUNT)
		return slc_fail(err, "unknown encoding %u", h->enc);
	if (h->desc_len > SLC_DESC_MAX || h->desc_len % ALIGN)
		return slc_fail(err, "descriptor length %u (must be a multiple of %d, at most %u)",
				h->desc_len, ALIGN, SLC_DESC_MAX);
	if (h->stored_len > SLC_PAYLOAD_MAX || h->raw_len > SLC_PAYLOAD_MAX)
		return slc_fail(err, "payload of %llu bytes (%llu decoded) is over the limit of %llu",
				(unsigned long long)h->stored_len,
				(unsigned long long)h->raw_len,
				(unsigned long long)SLC_PAYLOAD_MAX);
	if (h->kind == SLC_END && (h->stored_len || h->raw_len))
		return slc_fail(err, "end record with a payload of %llu bytes (it has none)",
				(unsigned long long)h->stored_len);
	if (h->enc == SLC_RAW && h->stored_len != h->raw_len)
		return slc_fail(err, "raw payload stored as %llu bytes but %llu decoded",
				(unsigned long long)h->stored_len,
				(unsigned long long)h->raw_len);
	if (h->enc == SLC_ZLIB && h->raw_len / SLC_ZLIB_RATIO_MAX > h->stored_len)
		return slc_fail(err, "zlib payload claims %llu bytes from %llu: beyond any zlib ratio",
				(unsigned long long)h->raw_len,
				(unsigned long long)h->stored_len);
	if (h->enc == SLC_ZSTD && h->raw_len / SLC_ZSTD_RATIO_MAX > h->stored_len)
		return slc_fail(err, "zstd payload claims %llu bytes from %llu: beyond any zstd ratio",
				(unsigned long long)h->raw_len,
				(unsigned long long)h->stored_len);
	*total = PREFIX_LEN + h->desc_len + (size_t)h->stored_len + CRC_LEN;
	if (rd->regular && *total > rd->size - start)
		return slc_fail(err, "truncated: declares %zu bytes, only %llu left in the file",
				*total, (unsigned long long)(rd->size - start));
	return 0;
}

/* A large record of a regular file mapped in place of being read: a
 * private mapping (MAP_PRIVATE: a tool that changes a value in place
 * changes its own copy of the page) of the record's total bytes, which
 * start PREFIX_LEN bytes before the reader's file position; the file
 * position moved past them, *crc the CRC of every byte before the stored
 * one.  Reading a page cache's pages this way costs no copy and no fresh
 * zeroed memory.  0, or -1 (nothing changed) when the mapping fails and
 * the record is to be read. */
static int
map_stored(slc_reader *rd, slc_rec *r, size_t total, uint32_t *crc)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t pos = ftello(rd->f), start, base;
	size_t off;
	uint8_t *p;

	if (page <= 0 || pos < PREFIX_LEN)
		return -1;
	start = pos - PREFIX_LEN;
	base = start - start % page;
	off = (size_t)(start - base);
	/* mapped read-only with every page at once, then made writable:
	 * a writable mapping populated up front would copy every page */
	p = mmap(NULL, total + off, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(rd->f), base);
	if (p == MAP_FAILED)
		return -1;
	if (mprotect(p, total + off, PROT_READ | PROT_WRITE)) {
		munmap(p, total + off);
		return -1;
	}
	if (fseeko(rd->f, start + (off_t)total, SEEK_SET)) {
		munmap(p, total + off);
		return -1;
	}
	rd->offset += total - PREFIX_LEN;
	r->stored = p + off;
	r->stored_map = 1;
	r->stored_map_off = off;
	*crc = crc_update(0, r->stored, total - CRC_LEN);
	return 0;
}

/* The whole record as stored, prefix pre included, total bytes: a new
 * buffer, allocated up front for a regular file (whose size check_prefix
 * has checked) and grown as the bytes arrive from a pipe; *crc the CRC of
 * every byte before the stored one.  NULL with err (memory, a read error,
 * the stream ending early). */
static uint8_t *
read_stored(slc_reader *rd, slc_rec *r, const uint8_t *pre, size_t total, uint32_t *crc,
	    slc_err *err)
{
	uint8_t *buf;
	size_t cap = rd->regular ? total : PREFIX_LEN;
	int rc;

	if (rd->regular && total >= MAP_MIN && !map_stored(rd, r, total, crc))
		return r->stored;

	buf = rd->regular ? slc_malloc(total, 1, NULL) : malloc(cap);
	if (!buf) {
		if (rd->regular)
			slc_fail(err, "out of memory reading %zu bytes", total);
		else
			slc_fail(err, "out of memory");
		return NULL;
	}
	memcpy(buf, pre, PREFIX_LEN);
	*crc = crc_update(0, pre, PREFIX_LEN);
	rc = read_exact(rd, &buf, &cap, PREFIX_LEN, total - PREFIX_LEN, crc, total - CRC_LEN,
			err);
	if (rc > 0)
		slc_fail(err, "truncated: declares %zu bytes, the stream ends at byte %llu",
			 total, (unsigned long long)rd->offset);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Check the crc that ends the n stored bytes of a record against crc,
 * computed as they were read.  0, or -1 with err. */
static int
check_crc(const uint8_t *buf, size_t n, uint32_t crc, slc_err *err)
{
	uint32_t crc_stored = get32(buf + n - CRC_LEN);

	if (crc != crc_stored)
		return slc_fail(err, "crc mismatch (stored %08x, computed %08x): the record is damaged",
				crc_stored, crc);
	return 0;
}

/* May a record of this kind be kept encoded after reading?  Only kinds
 * whose reader rules (slc_rec_validate) read no channel values: grids and
 * particles check counts only, unknown kinds nothing.  Meta, meshes,
 * tets and strands are small next to grids, and their index and volume
 * rules need the values, so they are decoded at once. */
static int
kind_defers(uint32_t kind)
{
	return kind == SLC_GRID || kind == SLC_PARTICLES || kind >= SLC_KIND_COUNT;
}

/* Where the payload of a record read from a stream starts in its stored
 * bytes. */
static size_t
payload_base(const slc_rec *r)
{
	return PREFIX_LEN + get32(r->stored + PRE_DESC_LEN);
}

/* The payload of r (whose descriptor is decoded, raw_len the payload
 * length it implies) from its stored bytes: used in place when raw,
 * inflated when zlib, decompressed and unshuffled when zstd; then the
 * channels placed in it and the record validated.  With defer, a
 * compressed record of a kind_defers kind is checked by decoding it
 * through a bounded buffer (decoded size, stream end, padding) and kept
 * encoded: slc_rec_decode decodes it when it is used.  A zstd frame's
 * header is checked before the decoded payload is allocated.  0, or -1
 * with err. */
static int
decode_payload(slc_rec *r, const struct prefix *h, size_t raw_len, int defer,
	       struct planes *pl, slc_err *err)
{
	size_t base = PREFIX_LEN + h->desc_len;
	const uint8_t *stored = r->stored + base;

	if (raw_len != h->raw_len)
		return slc_fail(err, "payload of %llu bytes, channels need %zu",
				(unsigned long long)h->raw_len, raw_len);
	r->encoding = h->enc;
	if (h->enc == SLC_RAW) {
		r->payload = r->stored + base;
	} else if (defer && kind_defers(r->kind)) {
		if (decode_stored(h->enc, stored, (size_t)h->stored_len, NULL, raw_len, r, base,
				  NULL, err))
			return -1;
		r->encoded = 1;
		return slc_rec_validate(r, err);
	} else {
		if (h->enc == SLC_ZSTD &&
		    zstd_check_frame(stored, (size_t)h->stored_len, raw_len, base, err))
			return -1;
		r->payload = slc_malloc(raw_len ? raw_len : 1, 1, NULL);
		if (!r->payload)
			return slc_fail(err, "out of memory decoding %zu bytes", raw_len);
		if (decode_stored(h->enc, stored, (size_t)h->stored_len, r->payload, raw_len, r,
				  base, pl, err))
			return -1;
	}
	if (place_channels(r, r->payload, raw_len, err) || slc_rec_validate(r, err))
		return -1;
	return 0;
}

int
slc_rec_decode(slc_rec *r, slc_err *err)
{
	size_t base, raw_len = 0, bytes;
	uint8_t *payload;
	uint32_t c;

	if (!r->encoded)
		return 0;
	for (c = 0; c < r->nchan; c++) {
		chan_bytes(r->chan[c].type, r->chan[c].ncomp, r->chan[c].count, &bytes);
		raw_len += align_up(bytes);
	}
	base = payload_base(r);
	payload = slc_malloc(raw_len ? raw_len : 1, 1, NULL);
	if (!payload)
		return slc_fail(err, "record '%s': out of memory decoding %zu bytes", r->name,
				raw_len);
	/* the stored bytes passed this check when read; it cannot fail on
	 * them but is not skipped */
	if (decode_stored(r->encoding, r->stored + base, r->stored_len - base - CRC_LEN, payload,
			  raw_len, r, base, NULL, err) ||
	    place_channels(r, payload, raw_len, err)) {
		for (c = 0; c < r->nchan; c++)
			r->chan[c].data = NULL;
		free(payload);
		return slc_failctx(err, "record '%s': ", r->name);
	}
	r->payload = payload;
	r->encoded = 0;
	return 0;
}

/* Read records up to the next one that is not an end record (an end
 * record followed by another stream goes on into it), in phases: the
 * prefix, its sizes, the stored bytes, the crc, the descriptor, the
 * payload.  1, 0 at the end of the stream, or -1 with err naming the
 * record and its byte (and its name once known). */
static int
read_one(slc_reader *rd, slc_rec *r, slc_err *err)
{
	uint8_t pre[PREFIX_LEN];
	struct prefix h;
	uint64_t start;
	size_t total = 0, raw_len = 0;
	uint32_t crc = 0;
	int rc;

	slc_rec_init(r, SLC_END, "");
	if (rd->broken)
		return slc_fail(err, "stream already failed");
	for (;;) {
		start = rd->offset;
		if ((rc = read_prefix(rd, pre, start, err)) <= 0)
			return rc;
		prefix_get(pre, &h);
		r->kind = h.kind;
		r->time = h.time;
		if (check_prefix(rd, &h, start, &total, err) ||
		    !(r->stored = read_stored(rd, r, pre, total, &crc, err)))
			return fail_at(rd, start, err);
		/* r owns the stored bytes from here, whatever fails */
		r->stored_len = total;
		/* the name may be damaged too, so it is not trusted before
		 * the crc is checked */
		if (check_crc(r->stored, total, crc, err) ||
		    decode_desc(r, r->stored + PREFIX_LEN, h.desc_len, &raw_len, err))
			return fail_at(rd, start, err);
		if (decode_payload(r, &h, raw_len, rd->defer, &rd->planes, err))
			return fail_named(rd, start, r, err);
		rd->index++;
		rd->broken = 0;
		if (h.kind != SLC_END) {
			rd->seen_end = 0;
			return 1;
		}
		/* an end record: the stream ends here unless another follows */
		rd->seen_end = 1;
		slc_rec_free(r);
	}
}

int
slc_read(slc_reader *rd, slc_rec *r, slc_err *err)
{
	int rc = read_one(rd, r, err);

	if (rc < 0)
		slc_rec_free(r);
	return rc;
}

/* --- records in place ------------------------------------------------- */

_Static_assert(SLC_PREFIX_LEN == PREFIX_LEN && SLC_CRC_LEN == CRC_LEN,
	       "slc.h's record layout is slc.c's");

int
slc_head_prefix(const uint8_t *pre, uint64_t left, slc_head *h, slc_err *err)
{
	struct slc_reader whole = { .regular = 1, .size = left };
	struct prefix p;
	size_t total;

	if (memcmp(pre + PRE_MAGIC, magic, 4))
		return slc_fail(err, "bad magic %02x%02x%02x%02x, not a sluice stream",
				pre[0], pre[1], pre[2], pre[3]);
	prefix_get(pre, &p);
	if (p.major != SLC_VERSION_MAJOR)
		return slc_fail(err, "format version %u.%u, this reader knows %d.x", p.major,
				p.minor, SLC_VERSION_MAJOR);
	if (check_prefix(&whole, &p, 0, &total, err))
		return -1;
	h->kind = p.kind;
	h->encoding = p.enc;
	h->desc_len = p.desc_len;
	h->time = p.time;
	h->stored_len = p.stored_len;
	h->raw_len = p.raw_len;
	return 0;
}

int
slc_head_desc(const slc_head *h, const uint8_t *desc, slc_rec *r, slc_err *err)
{
	size_t raw_len = 0;

	slc_rec_init(r, h->kind, "");
	r->time = h->time;
	r->encoding = h->encoding;
	if (decode_desc(r, desc, h->desc_len, &raw_len, err))
		return -1;
	if (raw_len != h->raw_len)
		return slc_fail(err, "payload of %llu bytes, channels need %zu",
				(unsigned long long)h->raw_len, raw_len);
	/* a grid's rules read counts only, never values */
	if (r->kind == SLC_GRID && slc_rec_validate(r, err))
		return -1;
	return 0;
}

uint8_t *
slc_head_encode(const slc_rec *r, size_t *len, uint64_t *raw_len, slc_err *err)
{
	struct prefix h;
	size_t desc_len, raw;
	uint8_t *desc, *out;

	if (r->kind == SLC_END)
		return slc_fail(err, "record '%s': end records are written by slc_writer_close",
				r->name), NULL;
	if ((r->kind == SLC_GRID || r->kind >= SLC_KIND_COUNT) && slc_rec_validate(r, err))
		return slc_failctx(err, "record '%s': ", r->name), NULL;
	if (!(desc = encode_desc(r, &desc_len, &raw, err)))
		return NULL;
	if (!(out = slc_malloc(PREFIX_LEN + desc_len, 1, err))) {
		free(desc);
		return NULL;
	}
	h.major = SLC_VERSION_MAJOR;
	h.minor = SLC_VERSION_MINOR;
	h.kind = r->kind;
	h.enc = SLC_RAW;
	h.time = r->time;
	h.desc_len = (uint32_t)desc_len;
	h.reserved = 0;
	h.stored_len = raw;
	h.raw_len = raw;
	prefix_put(out, &h);
	memcpy(out + PREFIX_LEN, desc, desc_len);
	free(desc);
	*len = PREFIX_LEN + desc_len;
	*raw_len = raw;
	return out;
}

int
slc_reader_seek(slc_reader *rd, uint64_t index, uint64_t offset, slc_err *err)
{
	if (offset > (uint64_t)INT64_MAX || fseeko(rd->f, (off_t)offset, SEEK_SET))
		return slc_fail(err, "cannot seek to byte %llu", (unsigned long long)offset);
	rd->offset = offset;
	rd->index = index;
	rd->broken = 0;
	rd->seen_end = 0;
	return 0;
}

/* --- writing ---------------------------------------------------------- */

slc_writer *
slc_writer_open_enc(FILE *f, uint32_t enc, int level, slc_err *err)
{
	slc_writer *w;

	if (enc == SLC_RAW && level != 0)
		return slc_fail(err, "raw encoding with level %d, expected 0", level), NULL;
	if (enc == SLC_ZLIB && (level < 1 || level > 9))
		return slc_fail(err, "zlib level %d, expected 1..9", level), NULL;
	if (enc == SLC_ZSTD && (level < 1 || level > SLC_ZSTD_LEVEL_MAX))
		return slc_fail(err, "zstd level %d, expected 1..%d", level, SLC_ZSTD_LEVEL_MAX),
		       NULL;
	if (enc >= SLC_ENCODING_COUNT)
		return slc_fail(err, "unknown encoding %u", enc), NULL;
	w = slc_calloc(1, sizeof *w, err);
	if (!w)
		return NULL;
	w->f = f;
	w->enc = enc;
	w->level = level;
	return w;
}

slc_writer *
slc_writer_open(FILE *f, int level, slc_err *err)
{
	if (level < 0 || level > 9)
		return slc_fail(err, "zlib level %d, expected 0..9", level), NULL;
	return slc_writer_open_enc(f, level ? SLC_ZLIB : SLC_RAW, level, err);
}

/* "write error", followed by the system's reason when the call that
 * failed said one: e is errno after the call, which was cleared before
 * it; a stream can fail without one (a stream of fopencookie whose
 * write returns 0, an error indicator left set by an earlier call). */
static int
write_fail(int e, slc_err *err)
{
	if (e)
		return slc_fail(err, "write error: %s", strerror(e));
	return slc_fail(err, "write error");
}

static int
put_bytes(slc_writer *w, const void *p, size_t n, uint32_t *crc, slc_err *err)
{
	if (crc)
		*crc = crc_update(*crc, p, n);
	errno = 0;
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->failed = 1;
		return write_fail(errno, err);
	}
	return 0;
}

static const uint8_t zeros[ALIGN];

/* Feed n bytes (or finish the stream when finish is set) to the deflater,
 * growing the output buffer as needed. */
static int
deflate_feed(z_stream *z, const uint8_t *src, size_t n, int finish,
	     uint8_t **out, size_t *cap)
{
	size_t done = 0;
	int ret;

	for (;;) {
		size_t step = n - done < ZCHUNK ? n - done : ZCHUNK;
		size_t used = (size_t)(z->next_out - *out);

		if (used == *cap) {
			uint8_t *g = realloc(*out, *cap * 2);

			if (!g)
				return Z_MEM_ERROR;
			*out = g;
			*cap *= 2;
		}
		z->next_out = *out + used;
		z->avail_out = (uInt)(*cap - used < ZCHUNK ? *cap - used : ZCHUNK);
		z->next_in = (Bytef *)(src ? src + done : zeros);
		z->avail_in = (uInt)step;
		ret = deflate(z, finish && done + step == n ? Z_FINISH : Z_NO_FLUSH);
		done += step - z->avail_in;
		if (ret == Z_STREAM_END)
			return ret;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return ret;
		if (done == n && !finish && z->avail_out > 0)
			return Z_OK;
	}
}

/* Deflate every channel (with its zero padding) into one new buffer. */
static uint8_t *
deflate_payload(const slc_rec *r, int level, size_t raw_len, size_t *out_len,
		slc_err *err)
{
	size_t cap = raw_len / 4 + 4096, bytes;
	z_stream z;
	uint8_t *out;
	uint32_t c;
	int ret = Z_OK;

	out = malloc(cap);
	if (!out)
		return slc_fail(err, "out of memory compressing %zu bytes", raw_len),
		       NULL;
	memset(&z, 0, sizeof z);
	if (deflateInit(&z, level) != Z_OK) {
		free(out);
		return slc_fail(err, "zlib init failed"), NULL;
	}
	z.next_out = out;
	for (c = 0; c < r->nchan && ret == Z_OK; c++) {
		chan_bytes(r->chan[c].type, r->chan[c].ncomp, r->chan[c].count, &bytes);
		ret = deflate_feed(&z, r->chan[c].data, bytes, 0, &out, &cap);
		if (ret == Z_OK)
			ret = deflate_feed(&z, NULL, align_up(bytes) - bytes, 0, &out, &cap);
	}
	if (ret == Z_OK)
		ret = deflate_feed(&z, NULL, 0, 1, &out, &cap);
	*out_len = (size_t)(z.next_out - out);
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(out);
		return slc_fail(err, "zlib compression failed (%d)", ret), NULL;
	}
	return out;
}

/* Grow the output buffer of a zstd stream when it is full. */
static int
zstd_room(ZSTD_outBuffer *out)
{
	uint8_t *g;

	if (out->pos < out->size)
		return 0;
	if (!(g = realloc(out->dst, out->size * 2)))
		return -1;
	out->dst = g;
	out->size *= 2;
	return 0;
}

/* Hand n bytes at src to the zstd stream (mode ZSTD_e_continue), or end
 * the frame (ZSTD_e_end, src NULL).  0, or zstd's error code, or -1 out
 * of memory. */
static size_t
zstd_feed(ZSTD_CCtx *cc, ZSTD_outBuffer *out, const void *src, size_t n,
	  ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t left;

	do {
		if (zstd_room(out))
			return (size_t)-1;
		left = ZSTD_compressStream2(cc, out, &in, mode);
		if (ZSTD_isError(left))
			return left;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/* The writer's zstd context at its level, made once per writer (its
 * worker threads are reused from record to record).  zstd compresses
 * with worker threads (nbWorkers >= 1), whose output is the same for any
 * number of them (zstd.h, ZSTD_c_nbWorkers); a zstd built without them
 * compresses in the caller's thread.  No frame checksum: the record's
 * CRC covers the stored bytes.  NULL when out of memory. */
static ZSTD_CCtx *
writer_zstd(slc_writer *w)
{
	int workers = omp_get_max_threads();

	if (w->zc)
		return w->zc;
	if (!(w->zc = ZSTD_createCCtx()))
		return NULL;
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level);
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 0);
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 1);
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_nbWorkers, workers > 1 ? workers : 1);
	return w->zc;
}

/* Compress r's payload as formats/slc.md's encoding 2: each channel's n
 * values of s bytes as s planes (every value's byte 0, then every byte
 * 1, ...), then its zero padding, the channels in order, all in one
 * zstd frame that declares raw_len as its decoded size.  The planes are
 * gathered a chunk at a time, so no copy of a channel is made.  The
 * frame is left in w->zout (*out_len bytes), which the writer keeps for
 * the next record (fresh pages cost the kernel's zeroing) up to
 * PLANES_KEEP bytes.  0, or -1 with err. */
static int
zstd_payload(slc_writer *w, const slc_rec *r, size_t raw_len, size_t *out_len,
	     slc_err *err)
{
	ZSTD_CCtx *cc = writer_zstd(w);
	size_t want = raw_len / 4 + 4096, ret = 0, bytes;
	ZSTD_outBuffer out;
	uint32_t c;

	if (w->zout_cap < want) {
		free(w->zout);
		w->zout_cap = 0;
		if ((w->zout = malloc(want)))
			w->zout_cap = want;
	}
	if (!w->chunk)
		w->chunk = malloc(SHUFFLE_CHUNK);
	if (!cc || !w->zout || !w->chunk)
		return slc_fail(err, "out of memory compressing %zu bytes", raw_len);
	out.dst = w->zout;
	out.size = w->zout_cap;
	out.pos = 0;
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
	ZSTD_CCtx_setPledgedSrcSize(cc, raw_len);
	for (c = 0; c < r->nchan && !ret; c++) {
		const slc_chan *ch = &r->chan[c];
		size_t s = slc_type_size(ch->type), nv, b, v0, len;

		chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
		nv = bytes / s;
		if (s == 1)
			ret = zstd_feed(cc, &out, ch->data, bytes, ZSTD_e_continue);
		for (b = 0; s > 1 && b < s && !ret; b++)
			for (v0 = 0; v0 < nv && !ret; v0 += len) {
				len = nv - v0 < SHUFFLE_CHUNK ? nv - v0 : SHUFFLE_CHUNK;
				plane_gather(w->chunk, ch->data, s, b, v0, len);
				ret = zstd_feed(cc, &out, w->chunk, len, ZSTD_e_continue);
			}
		if (!ret)
			ret = zstd_feed(cc, &out, zeros, align_up(bytes) - bytes, ZSTD_e_continue);
	}
	if (!ret)
		ret = zstd_feed(cc, &out, NULL, 0, ZSTD_e_end);
	/* the buffer may have grown (zstd_room) */
	w->zout = out.dst;
	w->zout_cap = out.size;
	if (ret == (size_t)-1)
		return slc_fail(err, "out of memory compressing %zu bytes", raw_len);
	if (ret)
		return slc_fail(err, "zstd compression failed: %s", ZSTD_getErrorName(ret));
	*out_len = out.pos;
	return 0;
}

/* Drop the writer's zstd output buffer when it is over PLANES_KEEP. */
static void
zstd_trim(slc_writer *w)
{
	if (w->zout_cap > PLANES_KEEP) {
		free(w->zout);
		w->zout = NULL;
		w->zout_cap = 0;
	}
}

static int
write_record(slc_writer *w, const slc_rec *r, uint32_t enc, int level, slc_err *err)
{
	uint8_t pre[PREFIX_LEN], crcb[CRC_LEN], *desc, *z = NULL;
	size_t desc_len, raw_len, z_len = 0, bytes;
	uint32_t crc = 0, c;
	struct prefix h;
	int rc = -1;

	desc = encode_desc(r, &desc_len, &raw_len, err);
	if (!desc)
		return -1;
	if (r->encoded) {
		/* still as read: its stored payload goes out as it is, whatever
		 * the writer's encoding (renaming a record costs no decoding) */
		size_t base = payload_base(r);

		z_len = r->stored_len - base - CRC_LEN;
		enc = r->encoding;
	} else if (enc == SLC_ZLIB) {
		z = deflate_payload(r, level, raw_len, &z_len, err);
		if (!z)
			goto out;
	} else if (enc == SLC_ZSTD) {
		if (zstd_payload(w, r, raw_len, &z_len, err))
			goto out;
	}
	h.major = SLC_VERSION_MAJOR;
	h.minor = SLC_VERSION_MINOR;
	h.kind = r->kind;
	h.enc = enc;
	h.time = r->time;
	h.desc_len = (uint32_t)desc_len;
	h.reserved = 0;
	h.stored_len = enc != SLC_RAW ? z_len : raw_len;
	h.raw_len = raw_len;
	prefix_put(pre, &h);
	if (put_bytes(w, pre, PREFIX_LEN, &crc, err) ||
	    put_bytes(w, desc, desc_len, &crc, err))
		goto out;
	if (r->encoded) {
		if (put_bytes(w, r->stored + payload_base(r), z_len, &crc, err))
			goto out;
	} else if (enc == SLC_ZSTD) {
		if (put_bytes(w, w->zout, z_len, &crc, err))
			goto out;
	} else if (enc == SLC_ZLIB) {
		if (put_bytes(w, z, z_len, &crc, err))
			goto out;
	} else {
		for (c = 0; c < r->nchan; c++) {
			const slc_chan *ch = &r->chan[c];

			chan_bytes(ch->type, ch->ncomp, ch->count, &bytes);
			if (put_bytes(w, ch->data, bytes, &crc, err) ||
			    put_bytes(w, zeros, align_up(bytes) - bytes, &crc, err))
				goto out;
		}
	}
	put32(crcb, crc);
	rc = put_bytes(w, crcb, CRC_LEN, NULL, err);
out:
	free(desc);
	free(z);
	zstd_trim(w);
	return rc;
}

int
slc_write(slc_writer *w, const slc_rec *r, slc_err *err)
{
	if (r->kind == SLC_END)
		return slc_fail(err, "record '%s': end records are written by slc_writer_close",
				r->name);
	if (slc_rec_validate(r, err))
		return slc_failctx(err, "record '%s': ", r->name);
	if (write_record(w, r, w->enc, w->level, err))
		return slc_failctx(err, "record '%s': ", r->name);
	return 0;
}

int
slc_write_raw(slc_writer *w, const slc_rec *r, slc_err *err)
{
	if (!r->stored)
		return slc_write(w, r, err);
	if (put_bytes(w, r->stored, r->stored_len, NULL, err))
		return slc_failctx(err, "record '%s': ", r->name);
	return 0;
}

int
slc_writer_close(slc_writer *w, slc_err *err)
{
	slc_rec end;
	int rc, flushed, e;

	slc_rec_init(&end, SLC_END, "");
	rc = write_record(w, &end, SLC_RAW, 0, err);
	errno = 0;
	flushed = fflush(w->f);
	e = errno;
	if (rc)
		;       /* err says why the end record was not written */
	else if (flushed != 0)
		rc = write_fail(e, err);
	else if (ferror(w->f) || w->failed)
		rc = write_fail(0, err);
	slc_writer_abort(w);
	return rc;
}

void
slc_writer_abort(slc_writer *w)
{
	if (w) {
		ZSTD_freeCCtx(w->zc);
		free(w->zout);
		free(w->chunk);
	}
	free(w);
}
