/* seeds_slc: writes the seed corpus of fuzz_slc (fuzz/corpus/slc/): one
 * small stream per record kind, raw, zlib and zstd, a stream holding all
 * of them (zlib, zstd),
 * and one record of a kind this version does not know.  Each file starts
 * with the mode byte fuzz_slc reads first (0: the stream is used as is).
 *
 *   make && cc -std=c11 -D_DEFAULT_SOURCE -fopenmp -Ilib fuzz/seeds_slc.c \
 *      build/libsluice.a -lpng -lzstd -ldeflate -lz -lm -o build/seeds_slc &&
 *   build/seeds_slc fuzz/corpus/slc
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/meta.h"
#include "core/slc.h"

#define NSEED 6
#define UNKNOWN_KIND 9  /* above SLC_STRANDS: no 1.0 reader knows it */

static void
fail(const char *what, const slc_err *err)
{
	fprintf(stderr, "seeds_slc: %s: %s\n", what, err->msg);
	exit(1);
}

/* One tiny record of kind q (0 meta .. 5 strands), values arbitrary but
 * valid (counter-clockwise triangles, positive tets, rising offsets). */
static void
build(slc_rec *r, int q, slc_err *err)
{
	static const float tri_p[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	static const uint32_t tri[] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
	static const double tet_p[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1 };
	static const uint32_t tet[] = { 0, 1, 2, 3, 4, 3, 2, 1 };
	slc_grid g = { 3, 2, 2, SLC_FACE_Y, { 0, 0, 0 }, 0.5 };
	float *f, *a;
	size_t n;
	uint32_t *u;
	uint64_t *id;
	uint8_t *pin;
	int i;

	switch (q) {
	case 0:
		slc_meta_init(r, "scene", err);
		slc_meta_set(r, "dt", "0.04", err);
		slc_meta_set(r, "gravity", "0,-9.81,0", err);
		break;
	case 1:
		f = slc_grid_new(r, "v", &g, 1, err);
		slc_grid_count(&g, &n);
		for (i = 0; i < (int)n; i++)
			f[i] = (float)i * 0.25f - 1;
		break;
	case 2:
		slc_rec_init(r, SLC_MESH, "tet");
		f = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 4, err);
		u = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, 4, err);
		a = slc_rec_add(r, "v", SLC_F32, 3, SLC_POINT, 4, err);
		memcpy(f, tri_p, sizeof tri_p);
		memcpy(u, tri, sizeof tri);
		for (i = 0; i < 12; i++)
			a[i] = 0.1f * (float)i;
		break;
	case 3:
		slc_rec_init(r, SLC_TETS, "solid");
		memcpy(slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, 5, err), tet_p,
		       sizeof tet_p);
		memcpy(slc_rec_add(r, "tet", SLC_U32, 4, SLC_PRIM, 2, err), tet,
		       sizeof tet);
		a = slc_rec_add(r, "stiffness", SLC_F32, 1, SLC_PRIM, 2, err);
		a[0] = 1e5f;
		a[1] = 2e5f;
		break;
	case 4:
		slc_rec_init(r, SLC_PARTICLES, "spray");
		f = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 5, err);
		a = slc_rec_add(r, "radius", SLC_F32, 1, SLC_POINT, 5, err);
		id = slc_rec_add(r, "id", SLC_U64, 1, SLC_POINT, 5, err);
		for (i = 0; i < 15; i++)
			f[i] = 0.05f * (float)i;
		for (i = 0; i < 5; i++) {
			a[i] = 0.01f;
			id[i] = (uint64_t)i + 7;
		}
		break;
	default:
		slc_rec_init(r, SLC_STRANDS, "hair");
		f = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, 7, err);
		u = slc_rec_add(r, "offset", SLC_U32, 1, SLC_STRAND, 3, err);
		pin = slc_rec_add(r, "pinned", SLC_U8, 1, SLC_POINT, 7, err);
		for (i = 0; i < 21; i++)
			f[i] = 0.1f * (float)i;
		u[0] = 0;
		u[1] = 3;
		u[2] = 7;
		pin[0] = pin[3] = 1;
		break;
	}
}

/* Write recs[0..n-1] (end record included) in encoding enc at level to
 * dir/name, after the mode byte; with kind nonzero the first record's
 * kind is patched to it and its crc recomputed. */
static void
put(const char *dir, const char *name, slc_rec *recs, int n, uint32_t enc, int level,
    uint32_t kind)
{
	char path[4096], *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len), *f;
	slc_writer *w;
	slc_err err;
	int q;

	if (!m || !(w = slc_writer_open_enc(m, enc, level, &err)))
		fail(name, &err);
	for (q = 0; q < n; q++)
		if (slc_write(w, &recs[q], &err))
			fail(name, &err);
	if (slc_writer_close(w, &err) || fclose(m))
		fail(name, &err);
	if (kind) {
		uint32_t desc_len, crc;
		uint64_t stored;
		size_t at;

		memcpy(buf + 8, &kind, 4);
		memcpy(&desc_len, buf + 24, 4);
		memcpy(&stored, buf + 32, 8);
		at = 48 + (size_t)desc_len + (size_t)stored;
		crc = (uint32_t)crc32(0, (const Bytef *)buf, (uInt)at);
		memcpy(buf + at, &crc, 4);
	}
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")) || fputc(0, f) == EOF ||
	    fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
	free(buf);
}

int
main(int argc, char **argv)
{
	static const char *kind[NSEED] = { "meta", "grid", "mesh", "tets",
					   "particles", "strands" };
	slc_rec recs[NSEED];
	slc_err err;
	char name[64];
	int q;

	if (argc != 2) {
		fprintf(stderr, "usage: seeds_slc DIR\n");
		return 2;
	}
	for (q = 0; q < NSEED; q++) {
		build(&recs[q], q, &err);
		if (slc_rec_validate(&recs[q], &err))
			fail(kind[q], &err);
		snprintf(name, sizeof name, "%s_raw.slc", kind[q]);
		put(argv[1], name, &recs[q], 1, SLC_RAW, 0, 0);
		snprintf(name, sizeof name, "%s_zlib.slc", kind[q]);
		put(argv[1], name, &recs[q], 1, SLC_ZLIB, 6, 0);
		snprintf(name, sizeof name, "%s_zstd.slc", kind[q]);
		put(argv[1], name, &recs[q], 1, SLC_ZSTD, 3, 0);
	}
	put(argv[1], "all_zlib.slc", recs, NSEED, SLC_ZLIB, 1, 0);
	put(argv[1], "all_zstd.slc", recs, NSEED, SLC_ZSTD, 1, 0);
	put(argv[1], "unknown_kind_raw.slc", &recs[4], 1, SLC_RAW, 0, UNKNOWN_KIND);
	put(argv[1], "unknown_kind_zstd.slc", &recs[4], 1, SLC_ZSTD, 3, UNKNOWN_KIND);
	for (q = 0; q < NSEED; q++)
		slc_rec_free(&recs[q]);
	return 0;
}
