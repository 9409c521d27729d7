/* test_slc.c: the stream format round-trips every record kind byte for
 * byte, and rejects every single-byte flip, every truncation and every
 * lying size. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* Write records to a memory buffer; returns its size. */
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

int
main(void)
{
	slc_rec recs[NKIND];
	slc_err err;
	int q, level;

	for (q = 0; q < NKIND; q++)
		build(&recs[q], q);
	for (q = 0; q < NKIND; q++)
		CHECK(slc_rec_validate(&recs[q], &err) == 0, "record %d valid", q);

	for (level = 0; level <= 6; level += 6) {
		char *a, *b = NULL, *c = NULL;
		size_t alen = write_all(recs, NKIND, level, &a), blen, clen;
		size_t pos, nflip = 0, ncaught = 0, ntrunc = 0;

		CHECK(alen > 0, "level %d: wrote %zu bytes", level, alen);
		CHECK(read_all(a, alen, &b, &blen, &err) == 0 && blen == alen &&
		      !memcmp(a, b, alen),
		      "level %d: write, read, write raw gives identical bytes", level);
		/* decode and re-encode from the channels: identical too */
		{
			FILE *f = fmemopen(a, alen, "rb");
			slc_reader *rd = slc_reader_open(f, &err);
			slc_rec r[NKIND];
			int n = 0;

			while (n < NKIND && slc_read(rd, &r[n], &err) > 0)
				n++;
			clen = write_all(r, n, level, &c);
			CHECK(n == NKIND && clen == alen && !memcmp(a, c, alen),
			      "level %d: write, read, re-encode gives identical bytes", level);
			CHECK(!strcmp(r[1].name, "u") && r[1].grid.ni == 3 &&
			      r[1].grid.stagger == SLC_FACE_X && r[1].grid.dx == 0.25 &&
			      r[1].time == 1.5 &&
			      ((float *)r[1].chan[0].data)[59] == 59 * 0.5f - 3,
			      "level %d: grid placement, time and values survive", level);
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
		CHECK(ncaught == nflip, "level %d: %zu of %zu flipped bytes caught",
		      level, ncaught, nflip);
		/* every truncation is caught */
		for (pos = 0; pos < alen; pos++) {
			char *d = NULL;
			size_t dlen;

			if (read_all(a, pos, &d, &dlen, &err) < 0)
				ntrunc++;
			free(d);
		}
		CHECK(ntrunc == alen, "level %d: %zu of %zu truncations caught", level,
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
	 * for byte, raw and zlib; its name and channels are still listed */
	for (level = 0; level <= 6; level += 6) {
		char *a, *d = NULL;
		size_t alen = write_all(recs, NKIND, level, &a), dlen, at = 0;
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
		      "level %d: unknown kind passes through byte-identical", level);
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
			      "level %d: unknown kind keeps its name and channels", level);
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
	return ctest_done();
}
