/* test_slc.c: the stream format round-trips every record kind byte for
 * byte, and rejects every single-byte flip, every truncation and every
 * lying size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "ctest.h"
#include "core/meta.h"
#include "core/slc.h"

/* One record of every kind, with channels of several types. */
static void
build(slc_rec *r, int n)
{
	slc_err err;
	slc_grid g = { 3, 4, 5, SLC_FACE_X, { -1, 0, 0.5 }, 0.25 };
	float *f, *p;
	uint32_t *t, *o;
	int q;

	switch (n) {
	case 0:
		slc_meta_init(r, "scene", &err);
		slc_meta_set(r, "dt", "0.04", &err);
		slc_meta_set(r, "gravity", "0,-9.8,0", &err);
		break;
	case 1:
		f = slc_grid_new(r, "u", &g, 1, &err);
		for (q = 0; q < 60; q++)
			f[q] = (float)q * 0.5f - 3;
		r->time = 1.5;
		break;
	case 2:
		slc_rec_init(r, SLC_MESH, "cloth");
		p = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 4, &err);
		t = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, 2, &err);
		for (q = 0; q < 12; q++)
			p[q] = (float)(q % 5);
		memcpy(t, (uint32_t[]){ 0, 1, 2, 0, 2, 3 }, 6 * sizeof *t);
		slc_rec_add(r, "mass", SLC_F64, 1, SLC_POINT, 4, &err);
		break;
	case 3:
		slc_rec_init(r, SLC_TETS, "skin");
		p = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 4, &err);
		t = slc_rec_add(r, "tet", SLC_U32, 4, SLC_PRIM, 1, &err);
		for (q = 0; q < 4; q++)
			t[q] = (uint32_t)q;
		p[3] = p[7] = p[11] = 1;        /* volume 1/6, positive */
		slc_rec_add(r, "rank", SLC_I32, 1, SLC_PRIM, 1, &err);
		break;
	case 4:
		slc_rec_init(r, SLC_PARTICLES, "spray");
		p = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 3, &err);
		p[4] = 7;
		slc_rec_add(r, "radius", SLC_F32, 1, SLC_POINT, 3, &err);
		slc_rec_add(r, "id", SLC_U64, 1, SLC_POINT, 3, &err);
		break;
	default:
		slc_rec_init(r, SLC_STRANDS, "hair");
		p = slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, 5, &err);
		o = slc_rec_add(r, "offset", SLC_U32, 1, SLC_STRAND, 3, &err);
		o[0] = 0;
		o[1] = 2;
		o[2] = 5;
		p[0] = 1;
		slc_rec_add(r, "root", SLC_U8, 1, SLC_STRAND, 2, &err);
		break;
	}
}

#define NKIND 6

/* Recompute the crc of the record at the start of buf after patching it,
 * so that only the patched field is wrong. */
static void
fix_crc(char *buf)
{
	uint32_t desc_len, crc;
	uint64_t stored;
	size_t n;

	memcpy(&desc_len, buf + 24, 4);
	memcpy(&stored, buf + 32, 8);
	n = 48 + desc_len + (size_t)stored;
	crc = (uint32_t)crc32(0, (const Bytef *)buf, (uInt)n);
	memcpy(buf + n, &crc, 4);
}

/* The encodings every stream test runs through. */
static const struct enc_case {
	uint32_t enc;
	int level;
	const char *name;
} encs[] = {
	{ SLC_RAW, 0, "raw" }, { SLC_ZLIB, 6, "zlib-6" }, { SLC_ZSTD, 3, "zstd-3" },
};
#define NENC 3

/* Write records to a memory buffer in encoding enc at level; returns its
 * size. */
static size_t
write_enc(slc_rec *recs, int n, uint32_t enc, int level, char **buf)
{
	size_t len;
	FILE *f = open_memstream(buf, &len);
	slc_writer *w = slc_writer_open_enc(f, enc, level, NULL);
	int q;

	for (q = 0; q < n; q++)
		if (slc_write(w, &recs[q], NULL))
			return 0;
	slc_writer_close(w, NULL);
	fclose(f);
	return len;
}

/* Write records to a memory buffer, raw (level 0) or zlib; returns its
 * size. */
static size_t
write_all(slc_rec *recs, int n, int level, char **buf)
{
	size_t len;
	FILE *f = open_memstream(buf, &len);
	slc_writer *w = slc_writer_open(f, level, NULL);
	int q;

	for (q = 0; q < n; q++)
		if (slc_write(w, &recs[q], NULL))
			return 0;
	slc_writer_close(w, NULL);
	fclose(f);
	return len;
}

/* Read everything; 0 if the whole stream is good, -1 with err otherwise.
 * Records read are re-written with slc_write_raw into *copy. */
static int
read_all(const char *buf, size_t len, char **copy, size_t *copylen, slc_err *err)
{
	FILE *f = fmemopen((void *)buf, len ? len : 1, "rb");
	FILE *o = open_memstream(copy, copylen);
	slc_reader *rd;
	slc_writer *w = slc_writer_open(o, 0, NULL);
	slc_rec r;
	int rc;

	if (!len) {  /* fmemopen cannot open an empty buffer */
		fclose(f);
		f = fopen("/dev/null", "rb");
	}
	rd = slc_reader_open(f, err);
	while ((rc = slc_read(rd, &r, err)) > 0) {
		slc_write_raw(w, &r, NULL);
		slc_rec_free(&r);
	}
	slc_writer_close(w, NULL);
	fclose(o);
	slc_reader_close(rd);
	fclose(f);
	return rc;
}


/* A record built byte by byte into out (room for it assumed): prefix,
 * descriptor (padded here), stored payload, crc.  Returns its length. */
static size_t
make_rec(unsigned char *out, uint32_t kind, uint32_t enc, const void *desc,
	 size_t dlen, const void *payload, uint64_t stored, uint64_t raw)
{
	uint32_t desc_len = (uint32_t)((dlen + 7) / 8 * 8), crc;
	size_t n;

	memset(out, 0, 48 + desc_len);
	memcpy(out, "SLCR\1\0\0\0", 8);
	memcpy(out + 8, &kind, 4);
	memcpy(out + 12, &enc, 4);
	memcpy(out + 24, &desc_len, 4);
	memcpy(out + 32, &stored, 8);
	memcpy(out + 40, &raw, 8);
	memcpy(out + 48, desc, dlen);
	memcpy(out + 48 + desc_len, payload, (size_t)stored);
	n = 48 + desc_len + (size_t)stored;
	crc = (uint32_t)crc32(0, out, (uInt)n);
	memcpy(out + n, &crc, 4);
	return n + 4;
}

/* The end record of an empty name, no channels, no payload. */
static size_t
end_rec(unsigned char *out)
{
	static const unsigned char d[10];

	return make_rec(out, SLC_END, SLC_RAW, d, sizeof d, "", 0, 0);
}

/* Read one record from buf: 1, or -1 with err; with defer the reader
 * keeps zlib records encoded. */
static int
read_one_rec(const void *buf, size_t len, int defer, slc_rec *r, slc_err *err)
{
	FILE *f = fmemopen((void *)buf, len, "rb");
	slc_reader *rd = slc_reader_open(f, err);
	int rc;

	slc_reader_defer(rd, defer);
	rc = slc_read(rd, r, err);
	slc_reader_close(rd);
	fclose(f);
	return rc;
}

/* A particles record of one point whose second channel is named cname
 * (len bytes), then an end record. */
static size_t
named_particles(unsigned char *out, const char *rname, size_t rlen, const char *cname,
		size_t clen)
{
	unsigned char d[600], pay[32] = { 0 };
	size_t at = 0, n;
	uint64_t one = 1;

	memcpy(d + at, &(uint16_t){ (uint16_t)rlen }, 2);
	memcpy(d + at + 2, rname, rlen);
	at += 2 + rlen;
	memset(d + at, 0, 4);                        /* kind block length */
	memcpy(d + at + 4, &(uint32_t){ 2 }, 4);     /* channels */
	at += 8;
	memcpy(d + at, &(uint16_t){ 1 }, 2);
	memcpy(d + at + 2, "P\4\3\1\0", 5);          /* f32 x3 point */
	memcpy(d + at + 7, &one, 8);
	at += 15;
	memcpy(d + at, &(uint16_t){ (uint16_t)clen }, 2);
	memcpy(d + at + 2, cname, clen);
	memcpy(d + at + 2 + clen, "\1\1\1\0", 4);    /* u8 x1 point */
	memcpy(d + at + 6 + clen, &one, 8);
	at += 14 + clen;
	n = make_rec(out, SLC_PARTICLES, SLC_RAW, d, at, pay, 24, 24);
	return n + end_rec(out + n);
}

/* Names: strict UTF-8 without NUL, for records and channels. */
static void
test_names(void)
{
	static const struct { const char *s; size_t n; int ok; const char *what; } t[] = {
		{ "abc", 3, 1, "ASCII" },
		{ "\xc3\xa9t\xc3\xa9", 5, 1, "two-byte UTF-8" },
		{ "\xf0\x9f\x8c\x8a", 4, 1, "four-byte UTF-8 (U+1F30A)" },
		{ "a\0b", 3, 0, "a NUL" },
		{ "\xff", 1, 0, "byte 0xff" },
		{ "\x80", 1, 0, "a lone continuation byte" },
		{ "\xc3", 1, 0, "a cut sequence" },
		{ "\xc0\xae", 2, 0, "an overlong '.'" },
		{ "\xe0\x80\xaf", 3, 0, "an overlong three-byte '/'" },
		{ "\xed\xa0\x80", 3, 0, "a surrogate (U+D800)" },
		{ "\xf4\x90\x80\x80", 4, 0, "U+110000" },
		{ "\xf8\x88\x80\x80\x80", 5, 0, "a five-byte form" },
	};
	unsigned char buf[1024];
	slc_rec r;
	slc_err err;
	size_t q, n;
	int rc;

	for (q = 0; q < sizeof t / sizeof *t; q++) {
		n = named_particles(buf, t[q].s, t[q].n, "ok", 2);
		rc = read_one_rec(buf, n, 0, &r, &err);
		CHECK(t[q].ok ? rc == 1 : rc < 0 && strstr(err.msg, "record name is not UTF-8"),
		      "record name, %s: %s", t[q].what, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = named_particles(buf, "p", 1, t[q].s, t[q].n);
		rc = read_one_rec(buf, n, 0, &r, &err);
		CHECK(t[q].ok ? rc == 1 : rc < 0 && strstr(err.msg, "name is not UTF-8"),
		      "channel name, %s: %s", t[q].what, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
	}
}

/* The descriptor's padding (after the last channel, up to desc_len) must
 * be zero; a nonzero byte is refused, naming the record and the byte. */
static void
test_desc_padding(void)
{
	unsigned char buf[1024];
	slc_rec r;
	slc_err err;
	size_t n = named_particles(buf, "pad", 3, "ok", 2);
	int rc;

	/* descriptor: 2+3 name, 4+4 kind block and channels, 15 for P and
	 * 14+2 for "ok": 44 bytes, padded to 48 */
	rc = read_one_rec(buf, n, 0, &r, &err);
	CHECK(rc == 1 && r.stored[24] == 48, "the record reads, descriptor of 48 bytes");
	slc_rec_free(&r);
	buf[48 + 46] = 0x5a;
	fix_crc((char *)buf);
	rc = read_one_rec(buf, n, 0, &r, &err);
	CHECK(rc < 0 && strstr(err.msg, "record 0 at byte 0: record 'pad': descriptor padding "
			       "byte 46 (record byte 94) is 0x5a, expected 0"),
	      "nonzero descriptor padding refused: %s", rc < 0 ? err.msg : "accepted");
	slc_rec_free(&r);
}

/* The end record has no name, no channels and no payload. */
static void
test_end_record(void)
{
	unsigned char buf[512], d[64] = { 0 }, z[8] = { 0 };
	slc_rec r;
	slc_err err;
	size_t n, m;
	int rc;

	/* a good particles record first, so that the end record is record 1 */
	n = named_particles(buf, "p", 1, "ok", 2);
	m = n - (48 + 16 + 4);                  /* where its end record starts */
	d[0] = 1;
	d[2] = 'x';                             /* name "x" */
	n = m + make_rec(buf + m, SLC_END, SLC_RAW, d, 11, "", 0, 0);
	n += end_rec(buf + n);
	{
		FILE *f = fmemopen(buf, n, "rb");
		slc_reader *rd = slc_reader_open(f, &err);

		rc = slc_read(rd, &r, &err);
		slc_rec_free(&r);
		rc = slc_read(rd, &r, &err);
		slc_reader_close(rd);
		fclose(f);
	}
	CHECK(rc < 0 && strstr(err.msg, "end record with a name"), "end record with a name: %s",
	      rc < 0 ? err.msg : "accepted");
	/* one channel: u16 1, "c", u8 x1 detail, count 0 */
	memset(d, 0, sizeof d);
	d[6] = 1;
	d[10] = 1;
	d[12] = 'c';
	d[13] = 1;
	d[14] = 1;
	n = m + make_rec(buf + m, SLC_END, SLC_RAW, d, 25, "", 0, 0);
	{
		FILE *f = fmemopen(buf, n, "rb");
		slc_reader *rd = slc_reader_open(f, &err);

		slc_read(rd, &r, &err);
		slc_rec_free(&r);
		rc = slc_read(rd, &r, &err);
		slc_reader_close(rd);
		fclose(f);
	}
	CHECK(rc < 0 && strstr(err.msg, "end record with 1 channels"),
	      "end record with a channel: %s", rc < 0 ? err.msg : "accepted");
	memset(d, 0, sizeof d);
	n = m + make_rec(buf + m, SLC_END, SLC_RAW, d, 10, z, 8, 8);
	{
		FILE *f = fmemopen(buf, n, "rb");
		slc_reader *rd = slc_reader_open(f, &err);

		slc_read(rd, &r, &err);
		slc_rec_free(&r);
		rc = slc_read(rd, &r, &err);
		slc_reader_close(rd);
		fclose(f);
	}
	CHECK(rc < 0 && strstr(err.msg, "end record with a payload of 8 bytes"),
	      "end record with a payload: %s", rc < 0 ? err.msg : "accepted");
}

/* Tets: volume > 0, unless the tet's u8 prim 'alive' is 0. */
static void
test_tets(void)
{
	slc_rec r, back;
	slc_err err;
	float *p;
	uint32_t *t;
	uint8_t *alive;
	char *a;
	size_t alen;
	int q, rc;

	slc_rec_init(&r, SLC_TETS, "kdsm");
	p = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, 4, &err);
	t = slc_rec_add(&r, "tet", SLC_U32, 4, SLC_PRIM, 2, &err);
	for (q = 0; q < 4; q++)
		t[q] = (uint32_t)q;
	t[4] = 0, t[5] = 2, t[6] = 1, t[7] = 3;     /* the same tet inverted */
	p[3] = p[7] = p[11] = 1;
	CHECK(slc_rec_validate(&r, &err) < 0 && strstr(err.msg, "tet 1 has volume -0.166667"),
	      "inverted tet refused: %s", err.msg);
	t[4] = 0, t[5] = 1, t[6] = 2, t[7] = 2;     /* flat */
	CHECK(slc_rec_validate(&r, &err) < 0 && strstr(err.msg, "tet 1 has volume 0"),
	      "flat tet refused: %s", err.msg);
	p[11] = NAN;
	CHECK(slc_rec_validate(&r, &err) < 0 && strstr(err.msg, "tet 0"),
	      "tet with a NaN corner refused: %s", err.msg);
	p[11] = 1;
	alive = slc_rec_add(&r, "alive", SLC_U8, 1, SLC_PRIM, 2, &err);
	alive[0] = alive[1] = 1;
	CHECK(slc_rec_validate(&r, &err) < 0, "flat tet with alive 1 refused: %s", err.msg);
	alive[1] = 0;
	CHECK(slc_rec_validate(&r, &err) == 0, "flat tet with alive 0 accepted");
	alive[0] = 0;
	p[11] = -1;
	CHECK(slc_rec_validate(&r, &err) == 0, "inverted tet with alive 0 accepted");
	p[11] = 1;
	alive[0] = 1;
	/* through a stream: a corner moved after writing is refused on reading */
	alen = write_all(&r, 1, 0, &a);
	CHECK(alen > 0, "tets with a disabled flat tet written");
	CHECK(read_one_rec(a, alen, 0, &back, &err) == 1, "and read back");
	slc_rec_free(&back);
	{
		float m = -1;
		size_t at;

		/* P is the first array of the payload: corner 3's z is float 11 */
		memcpy(&at, &(size_t){ 48 + *(uint32_t *)(a + 24) + 11 * sizeof m }, sizeof at);
		memcpy(a + at, &m, sizeof m);
		fix_crc(a);
		rc = read_one_rec(a, alen, 0, &back, &err);
		CHECK(rc < 0 && strstr(err.msg, "tet 0 has volume"),
		      "inverted tet in a stream refused: %s", rc < 0 ? err.msg : "accepted");
		slc_rec_free(&back);
	}
	free(a);
	slc_rec_remove(&r, "alive");
	slc_rec_add(&r, "alive", SLC_F32, 1, SLC_PRIM, 2, &err);
	CHECK(slc_rec_validate(&r, &err) < 0 && strstr(err.msg, "expected u8 x1 prim"),
	      "an f32 'alive' refused: %s", err.msg);
	slc_rec_free(&r);
}

/* A zlib particles record whose payload is the zlib stream of raw bytes
 * (n of them) with extra bytes after it; returns the stream length. */
static size_t
zlib_particles(unsigned char *out, const unsigned char *raw, size_t n, uint64_t raw_len,
	       size_t cut, const char *extra, size_t nextra)
{
	unsigned char d[64] = { 0 }, z[256];
	uLongf zlen = sizeof z;
	size_t at = 0, m;

	compress2(z, &zlen, raw, n, 6);
	zlen -= cut;
	memcpy(z + zlen, extra, nextra);
	d[0] = 1;
	d[2] = 'p';
	at = 3 + 4;
	d[at] = 1;                                   /* one channel */
	at += 4;
	d[at] = 1;
	d[at + 2] = 'P';
	memcpy(d + at + 3, "\4\3\1\0", 4);
	memcpy(d + at + 7, &(uint64_t){ 2 }, 8);
	at += 15;
	m = make_rec(out, SLC_PARTICLES, SLC_ZLIB, d, at, z, zlen + nextra, raw_len);
	return m + end_rec(out + m);
}

/* Every way a zlib payload can disagree with its header, in words. */
static void
test_zlib_messages(void)
{
	unsigned char raw[32] = { 0 }, buf[1024];
	slc_rec r;
	slc_err err;
	size_t n;
	int rc, defer;

	for (defer = 0; defer <= 1; defer++) {
		n = zlib_particles(buf, raw, 24, 24, 0, "xyz", 3);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "3 bytes after the end of the zlib stream") &&
		      strstr(err.msg, "payload byte") && !strstr(err.msg, "header says 24"),
		      "defer %d: trailing bytes named: %s", defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zlib_particles(buf, raw, 24, 24, 4, "", 0);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "cut short"), "defer %d: cut stream named: %s",
		      defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zlib_particles(buf, raw, 32, 24, 0, "", 0);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "more than the 24 bytes"),
		      "defer %d: long stream named: %s", defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zlib_particles(buf, raw, 24, 24, 0, "", 0);
		buf[48 + 32 + 3] ^= 0x40;       /* inside the deflate data */
		{
			uint32_t crc = (uint32_t)crc32(0, buf, (uInt)(n - 68 - 4));

			memcpy(buf + n - 68 - 4, &crc, 4);
		}
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && (strstr(err.msg, "damaged at payload byte") ||
				 strstr(err.msg, "decodes to more") || strstr(err.msg, "ends after")),
		      "defer %d: damaged stream named: %s", defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zlib_particles(buf, raw, 24, 24, 0, "", 0);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc == 1 && r.encoded == defer, "defer %d: a good zlib record read, %s", defer,
		      defer ? "kept encoded" : "decoded");
		slc_rec_free(&r);
	}
}

/* A zstd particles record (one f32 x3 point channel 'P' of np points,
 * raw_len declared in the header) whose payload is the zstd frame z of
 * zlen bytes, then an end record; returns the stream length. */
static size_t
zstd_particles(unsigned char *out, const void *z, size_t zlen, uint64_t np, uint64_t raw_len)
{
	unsigned char d[64] = { 0 };
	size_t at, m;

	d[0] = 1;
	d[2] = 'p';
	at = 3 + 4;
	d[at] = 1;                                   /* one channel */
	at += 4;
	d[at] = 1;
	d[at + 2] = 'P';
	memcpy(d + at + 3, "\4\3\1\0", 4);
	memcpy(d + at + 7, &np, 8);
	at += 15;
	m = make_rec(out, SLC_PARTICLES, SLC_ZSTD, d, at, z, zlen, raw_len);
	return m + end_rec(out + m);
}

/* The zstd frame of n bytes at src (content size declared unless
 * no_size), into z; returns its length. */
static size_t
zstd_frame(unsigned char *z, size_t cap, const void *src, size_t n, int no_size)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { z, cap, 0 };

	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, !no_size);
	if (no_size) {      /* feed it first, so that zstd cannot know the size */
		ZSTD_compressStream2(cc, &out, &in, ZSTD_e_continue);
		in.src = NULL;
		in.size = in.pos = 0;
	}
	while (ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end) != 0)
		;
	ZSTD_freeCCtx(cc);
	return out.pos;
}

/* Every way a zstd payload can disagree with its header, in words, with
 * the reader keeping records decoded and encoded; and the shuffle: the
 * planes of a known payload decode to what formats/slc.md says. */
static void
test_zstd_messages(void)
{
	unsigned char raw[64] = { 0 }, z[256], buf[1024];
	slc_rec r;
	slc_err err;
	size_t n, zlen;
	int rc, defer;

	for (defer = 0; defer <= 1; defer++) {
		zlen = zstd_frame(z, sizeof z, raw, 24, 0);
		memcpy(z + zlen, "xyz", 3);
		n = zstd_particles(buf, z, zlen + 3, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "3 bytes after the end of the zstd frame"),
		      "zstd defer %d: trailing bytes named: %s", defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zstd_particles(buf, z, zlen - 2, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "zstd frame is cut short"),
		      "zstd defer %d: cut frame named: %s", defer, rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		/* a frame declaring more than the header: refused before the
		 * payload is allocated (through slc_malloc/calloc the reader
		 * allocates itself, then the channel table, then the payload:
		 * the third fails, and would say "out of memory") */
		zlen = zstd_frame(z, sizeof z, raw, 32, 0);
		n = zstd_particles(buf, z, zlen, 2, 24);
		slc_alloc_fail_after(3);
		rc = read_one_rec(buf, n, defer, &r, &err);
		slc_alloc_fail_after(0);
		CHECK(rc < 0 && strstr(err.msg, "zstd frame declares 32 decoded bytes, the header "
				       "declares 24"),
		      "zstd defer %d: a frame declaring more refused before allocating: %s", defer,
		      rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		/* a frame whose header says 24 but whose blocks decode 32 */
		z[5] = 24;      /* single segment: the 1-byte content size */
		n = zstd_particles(buf, z, zlen, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "zstd frame is damaged"),
		      "zstd defer %d: a frame decoding more than it declares refused: %s", defer,
		      rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		zlen = zstd_frame(z, sizeof z, raw, 24, 1);
		n = zstd_particles(buf, z, zlen, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "does not declare its decoded size"),
		      "zstd defer %d: a frame without its size refused: %s", defer,
		      rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		n = zstd_particles(buf, "\x50\x2a\x4d\x18\0\0\0\0", 8, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc < 0 && strstr(err.msg, "not a zstd frame"),
		      "zstd defer %d: a skippable frame refused: %s", defer,
		      rc < 0 ? err.msg : "accepted");
		slc_rec_free(&r);
		/* one value 1.0f among zeros, value 1 of 6: its bytes
		 * 00 00 80 3f are byte 1 of planes 2 and 3 */
		memset(raw, 0, sizeof raw);
		raw[2 * 6 + 1] = 0x80;  /* plane 2, value 1 */
		raw[3 * 6 + 1] = 0x3f;  /* plane 3, value 1 */
		zlen = zstd_frame(z, sizeof z, raw, 24, 0);
		n = zstd_particles(buf, z, zlen, 2, 24);
		rc = read_one_rec(buf, n, defer, &r, &err);
		CHECK(rc == 1 && r.encoded == defer && !slc_rec_decode(&r, &err) &&
		      ((float *)r.chan[0].data)[1] == 1.0f && ((float *)r.chan[0].data)[0] == 0 &&
		      ((float *)r.chan[0].data)[2] == 0,
		      "zstd defer %d: a good record decodes, value 1 of the planes is P[1] = 1",
		      defer);
		slc_rec_free(&r);
	}
	/* the ratio: a 64-byte frame cannot decode to 2^40 bytes */
	n = zstd_particles(buf, z, 64, (uint64_t)1 << 36, (uint64_t)12 << 36);
	rc = read_one_rec(buf, n, 0, &r, &err);
	CHECK(rc < 0 && strstr(err.msg, "beyond any zstd ratio"),
	      "a zstd bomb past the ratio refused: %s", rc < 0 ? err.msg : "accepted");
	slc_rec_free(&r);
}

/* A deferred record: checked in full, passed on byte for byte and
 * renamed without decoding, decoded on use. */
static void
test_defer(void)
{
	slc_grid g = { 5, 4, 3, SLC_CELL, { 0, 1, 2 }, 0.5 };
	slc_rec r, back;
	slc_err err;
	float *f;
	char *a, *b = NULL, *c = NULL;
	size_t alen, blen, clen;
	int q;

	f = slc_grid_new(&r, "phi", &g, 1, &err);
	for (q = 0; q < 60; q++)
		f[q] = (float)q / 8;
	slc_rec_add(&r, "odd", SLC_U8, 3, SLC_SAMPLE, 60, &err);   /* 180 bytes, padded */
	alen = write_all(&r, 1, 6, &a);
	CHECK(read_one_rec(a, alen, 1, &back, &err) == 1 && back.encoded &&
	      back.chan[0].data == NULL, "zlib grid kept encoded");
	{
		FILE *o = open_memstream(&b, &blen);
		slc_writer *w = slc_writer_open(o, 0, &err);

		slc_write_raw(w, &back, &err);
		strcpy(back.name, "psi");
		CHECK(slc_write(w, &back, &err) == 0, "renamed encoded record written");
		slc_writer_close(w, &err);
		fclose(o);
	}
	CHECK(blen > alen - 68 && !memcmp(a, b, alen - 68), "passed on byte for byte");
	CHECK(slc_rec_get(&back, "phi", SLC_F32, 1, 60, &err) &&
	      ((float *)back.chan[0].data)[59] == 59.0f / 8 && !back.encoded,
	      "slc_rec_get decodes on use");
	slc_rec_free(&back);
	{
		FILE *i = fmemopen(b, blen, "rb");
		slc_reader *rd = slc_reader_open(i, &err);
		slc_rec s;

		slc_rec_free(&back);
		CHECK(slc_read(rd, &back, &err) == 1 && slc_read(rd, &s, &err) == 1 &&
		      !strcmp(s.name, "psi") && s.encoding == SLC_ZLIB &&
		      ((float *)s.chan[0].data)[7] == 7.0f / 8,
		      "the renamed record reads back with its values");
		slc_rec_free(&s);
		slc_rec_free(&back);
		slc_reader_close(rd);
		fclose(i);
	}
	CHECK(read_one_rec(a, alen, 1, &back, &err) == 1 && slc_rec_decode(&back, &err) == 0 &&
	      back.chan[1].data && slc_rec_decode(&back, &err) == 0,
	      "slc_rec_decode decodes, twice is a no-op");
	clen = write_all(&back, 1, 6, &c);
	CHECK(clen == alen && !memcmp(a, c, alen), "decoded and re-encoded: identical bytes");
	slc_rec_free(&back);
	slc_rec_free(&r);
	free(a);
	free(b);
	free(c);
}

/* The statistics of a channel: finite values' range and sum, NaN and Inf
 * counted apart, every component of every element. */
static void
test_chan_stats(void)
{
	static const float v[6] = { 2, -1.5f, NAN, 4, INFINITY, -INFINITY };
	slc_chan c = { 0 };
	slc_chan_stats s;

	c.type = SLC_F32;
	c.ncomp = 3;
	c.count = 2;
	c.data = (void *)v;
	slc_chan_stats_get(&c, &s);
	CHECK(s.min == -1.5 && s.max == 4 && s.sum == 4.5 && s.n == 3 && s.nnan == 1 &&
	      s.ninf == 2, "channel stats: min %g max %g sum %g n %llu nan %llu inf %llu",
	      s.min, s.max, s.sum, (unsigned long long)s.n, (unsigned long long)s.nnan,
	      (unsigned long long)s.ninf);
	c.count = 0;
	slc_chan_stats_get(&c, &s);
	CHECK(s.n == 0 && s.min == INFINITY && s.max == -INFINITY, "an empty channel: no range");
}

int
main(void)
{
	slc_rec recs[NKIND];
	slc_err err;
	int q;
	size_t e;

	test_desc_padding();
	test_zstd_messages();
	for (q = 0; q < NKIND; q++)
		build(&recs[q], q);
	for (q = 0; q < NKIND; q++)
		CHECK(slc_rec_validate(&recs[q], &err) == 0, "record %d valid", q);

	for (e = 0; e < NENC; e++) {
		const char *level = encs[e].name;
		char *a, *b = NULL, *c = NULL;
		size_t alen = write_enc(recs, NKIND, encs[e].enc, encs[e].level, &a), blen, clen;
		size_t pos, nflip = 0, ncaught = 0, ntrunc = 0;

		CHECK(alen > 0, "%s: wrote %zu bytes", level, alen);
		CHECK(read_all(a, alen, &b, &blen, &err) == 0 && blen == alen &&
		      !memcmp(a, b, alen),
		      "%s: write, read, write raw gives identical bytes", level);
		/* decode and re-encode from the channels: identical too */
		{
			FILE *f = fmemopen(a, alen, "rb");
			slc_reader *rd = slc_reader_open(f, &err);
			slc_rec r[NKIND];
			int n = 0;

			while (n < NKIND && slc_read(rd, &r[n], &err) > 0)
				n++;
			clen = write_enc(r, n, encs[e].enc, encs[e].level, &c);
			CHECK(n == NKIND && clen == alen && !memcmp(a, c, alen),
			      "%s: write, read, re-encode gives identical bytes", level);
			CHECK(!strcmp(r[1].name, "u") && r[1].grid.ni == 3 &&
			      r[1].grid.stagger == SLC_FACE_X && r[1].grid.dx == 0.25 &&
			      r[1].time == 1.5 &&
			      ((float *)r[1].chan[0].data)[59] == 59 * 0.5f - 3,
			      "%s: grid placement, time and values survive", level);
			for (q = 0; q < n; q++)
				slc_rec_free(&r[q]);
			slc_reader_close(rd);
			fclose(f);
			free(c);
		}
		free(b);
		/* every single flipped byte is caught */
		for (pos = 0; pos < alen; pos++) {
			char *d = NULL;
			size_t dlen;

			a[pos] ^= 0x5a;
			nflip++;
			if (read_all(a, alen, &d, &dlen, &err) < 0)
				ncaught++;
			a[pos] ^= 0x5a;
			free(d);
		}
		CHECK(ncaught == nflip, "%s: %zu of %zu flipped bytes caught",
		      level, ncaught, nflip);
		/* every truncation is caught */
		for (pos = 0; pos < alen; pos++) {
			char *d = NULL;
			size_t dlen;

			if (read_all(a, pos, &d, &dlen, &err) < 0)
				ntrunc++;
			free(d);
		}
		CHECK(ntrunc == alen, "%s: %zu of %zu truncations caught", level,
		      ntrunc, alen);
		free(a);
	}

	/* cat a b is a stream */
	{
		char *a, *b, *ab, *d = NULL;
		size_t alen = write_all(recs, 2, 0, &a), blen = write_all(recs + 2, 2, 1, &b);
		size_t dlen;

		ab = malloc(alen + blen);
		memcpy(ab, a, alen);
		memcpy(ab + alen, b, blen);
		CHECK(read_all(ab, alen + blen, &d, &dlen, &err) == 0,
		      "concatenated streams read as one");
		free(a);
		free(b);
		free(ab);
		free(d);
	}

	/* a kind this version does not know is read and written back byte
	 * for byte, raw, zlib and zstd; its name and channels are still
	 * listed */
	for (e = 0; e < NENC; e++) {
		const char *level = encs[e].name;
		char *a, *d = NULL;
		size_t alen = write_enc(recs, NKIND, encs[e].enc, encs[e].level, &a), dlen, at = 0;
		uint32_t desc_len, unknown = 9;
		uint64_t stored;
		int rc;

		for (q = 0; q < 2; q++) {  /* to record 2, the mesh */
			memcpy(&desc_len, a + at + 24, 4);
			memcpy(&stored, a + at + 32, 8);
			at += 48 + desc_len + (size_t)stored + 4;
		}
		memcpy(a + at + 8, &unknown, 4);
		fix_crc(a + at);
		rc = read_all(a, alen, &d, &dlen, &err);
		CHECK(rc == 0 && dlen == alen && !memcmp(a, d, alen),
		      "%s: unknown kind passes through byte-identical", level);
		free(d);
		{
			FILE *f = fmemopen(a, alen, "rb");
			slc_reader *rd = slc_reader_open(f, &err);
			slc_rec r[3];
			int n = 0;

			while (n < 3 && slc_read(rd, &r[n], &err) > 0)
				n++;
			CHECK(n == 3 && r[2].kind == 9 && !strcmp(r[2].name, recs[2].name) &&
			      r[2].nchan == recs[2].nchan &&
			      !strcmp(r[2].chan[0].name, "P"),
			      "%s: unknown kind keeps its name and channels", level);
			while (n > 0)
				slc_rec_free(&r[--n]);
			slc_reader_close(rd);
			fclose(f);
		}
		free(a);
	}

	/* an empty input and a wrong magic are errors with clear words */
	{
		char *d = NULL;
		size_t dlen;

		CHECK(read_all("", 0, &d, &dlen, &err) < 0 && strstr(err.msg, "empty"),
		      "empty input: %s", err.msg);
		free(d);
		d = NULL;
		CHECK(read_all("P6\n3 2\n255\n0123456789abcdef0123456789abcdef0123456789",
			       45, &d, &dlen, &err) < 0 && strstr(err.msg, "magic"),
		      "wrong magic: %s", err.msg);
		free(d);
	}

	/* a header declaring 2^60 cells fails at once */
	{
		slc_rec r;
		char *a, *d = NULL;
		size_t alen, dlen, off;
		unsigned char *p;

		slc_rec_init(&r, SLC_PARTICLES, "big");
		slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, 1, &err);
		alen = write_all(&r, 1, 0, &a);
		/* patch the count of channel P (last 8 bytes of its entry) and
		 * the payload sizes, then fix the crc so only the size is wrong */
		for (p = (unsigned char *)a + 48; *p != 'P'; p++)
			;
		off = (size_t)(p - (unsigned char *)a) + 1 + 4;
		memcpy(a + off, &(uint64_t){ (uint64_t)1 << 60 }, 8);
		fix_crc(a);
		d = NULL;
		CHECK(read_all(a, alen, &d, &dlen, &err) < 0 &&
		      strstr(err.msg, "too large"),
		      "2^60 elements refused: %s", err.msg);
		free(d);
		/* a declared payload past the data on a pipe-like input */
		memcpy(a + 32, &(uint64_t){ (uint64_t)1 << 38 }, 8);
		memcpy(a + 40, &(uint64_t){ (uint64_t)1 << 38 }, 8);
		d = NULL;
		CHECK(read_all(a, alen, &d, &dlen, &err) < 0 &&
		      strstr(err.msg, "truncated"),
		      "payload past the data refused: %s", err.msg);
		free(d);
		memcpy(a + 32, &(uint64_t){ (uint64_t)1 << 62 }, 8);
		d = NULL;
		CHECK(read_all(a, alen, &d, &dlen, &err) < 0 && strstr(err.msg, "limit"),
		      "payload over the limit refused: %s", err.msg);
		free(d);
		free(a);
		slc_rec_free(&r);
	}

	/* metadata keys */
	{
		char v[64];
		double dt = 0;

		CHECK(slc_meta_get(&recs[0], "dt", v, sizeof v) == 1 && !strcmp(v, "0.04"),
		      "meta get");
		CHECK(slc_meta_set(&recs[0], "dt", "0.02", &err) == 0 &&
		      slc_meta_get_f64(&recs[0], "dt", &dt, &err) == 1 && dt == 0.02,
		      "meta set replaces");
		CHECK(slc_meta_set(&recs[0], "bad key", "1", &err) < 0, "bad key refused");
		slc_meta_unset(&recs[0], "dt");
		CHECK(slc_meta_get(&recs[0], "dt", v, sizeof v) == 0 &&
		      slc_meta_get(&recs[0], "gravity", v, sizeof v) == 1, "meta unset");
	}

	/* validation catches bad indices */
	{
		uint32_t *t = recs[2].chan[1].data;

		t[0] = 9;
		CHECK(slc_rec_validate(&recs[2], &err) < 0 && strstr(err.msg, "point 9"),
		      "out-of-range triangle index: %s", err.msg);
	}
	for (q = 0; q < NKIND; q++)
		slc_rec_free(&recs[q]);
	test_names();
	test_end_record();
	test_tets();
	test_zlib_messages();
	test_defer();
	test_chan_stats();
	return ctest_done();
}
