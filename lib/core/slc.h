/* slc.h: the sluice stream (.slc): records in memory, reading and writing.
 *
 * A stream is a sequence of self-describing records ending with an end
 * record; formats/slc.md is the byte-level specification.  Every record is
 * a kind, a name, a time, a small kind-specific block (the grid placement for
 * grids) and a list of channels: named, typed arrays with a component count
 * and a domain (point, primitive, strand, sample or detail).  The library
 * owns the format: tools never touch bytes.
 *
 * Ownership: a record owns its channels' memory; slc_rec_free() releases it.
 * A record read from a stream also keeps its exact stored bytes so that a
 * filter can pass it on unchanged with slc_write_raw().
 *
 * Still-encoded records: a reader told to (slc_reader_defer) checks a
 * compressed (zlib or zstd) grid, particles or unknown-kind record
 * completely but keeps only
 * its stored bytes, so that passing a record through costs its stored
 * size, not its decoded size.  Such a record has `encoded` set and every
 * channel's data NULL until slc_rec_decode(); the functions below that
 * read or change channel data and take an slc_err decode it first (only
 * memory can fail), slc_rec_find() does not.  Readers not told to defer
 * return decoded records only.
 */
#ifndef SLC_SLC_H
#define SLC_SLC_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#define SLC_VERSION_MAJOR 1
#define SLC_VERSION_MINOR 0
#define SLC_NAME_MAX 255            /* bytes in a record or channel name */

/* Limits checked before anything is allocated (formats/slc.md, "Limits"). */
#define SLC_DESC_MAX ((uint32_t)1 << 20)        /* descriptor bytes */
#define SLC_CHAN_MAX 1024                       /* channels per record */
#define SLC_PAYLOAD_MAX ((uint64_t)1 << 40)     /* payload bytes, raw */
#define SLC_ZLIB_RATIO_MAX 1100                 /* raw/stored bound for zlib */
/* raw/stored bound for zstd: a zstd block decodes to at most 128 KiB
 * (ZSTD_BLOCKSIZE_MAX) and takes at least 4 stored bytes (a 3-byte block
 * header and the one byte an RLE block repeats), RFC 8878 §3.1.1.2 */
#define SLC_ZSTD_RATIO_MAX 32768
#define SLC_ZSTD_LEVEL_MAX 19                   /* zstd's levels without --ultra */
/* the largest zstd window a reader accepts, 2^27 bytes: zstd's own default
 * limit for decoders (ZSTD_WINDOWLOG_LIMIT_DEFAULT), RFC 8878 §3.1.1.1.2 */
#define SLC_ZSTD_WINDOW_LOG_MAX 27

enum slc_kind {
	SLC_END = 0,
	SLC_META = 1,       /* key=value text lines in channel "text" */
	SLC_GRID = 2,       /* dims, staggering, origin, dx; sample channels */
	SLC_MESH = 3,       /* "P" point f32x3 or f64x3, "tri" prim u32x3 */
	SLC_TETS = 4,       /* "P" point, "tet" prim u32x4 */
	SLC_PARTICLES = 5,  /* "P" point */
	SLC_STRANDS = 6,    /* "P" point, "offset" strand u32 (nstrands+1) */
	SLC_KIND_COUNT
};

/* The u8 prim channel of a tets record that marks a disabled tet with 0;
 * only such a tet may have zero or negative volume (formats/slc.md). */
#define SLC_TET_ALIVE "alive"

enum slc_type {
	SLC_U8 = 1, SLC_I32 = 2, SLC_U32 = 3, SLC_F32 = 4, SLC_F64 = 5,
	SLC_I64 = 6, SLC_U64 = 7,
	SLC_TYPE_COUNT
};

enum slc_domain {
	SLC_DETAIL = 0,     /* one value (or a free-length array) per record */
	SLC_POINT = 1,      /* per vertex, node or particle */
	SLC_PRIM = 2,       /* per triangle or tetrahedron */
	SLC_STRAND = 3,     /* per strand */
	SLC_SAMPLE = 4,     /* per grid sample, count = ni*nj*nk */
	SLC_DOMAIN_COUNT
};

/* Where grid samples sit (formats/slc.md, "Grid"): sample (i,j,k) is at
 * origin + dx*(i+oi, j+oj, k+ok) with o = 1/2 on cell-centred axes, 0 on
 * staggered ones.  Cell dims are the sample dims minus one on staggered axes. */
enum slc_stagger {
	SLC_CELL = 0, SLC_NODE = 1, SLC_FACE_X = 2, SLC_FACE_Y = 3, SLC_FACE_Z = 4,
	SLC_STAGGER_COUNT
};

/* How a record's payload is stored (formats/slc.md, "Payload"): as it
 * is, one zlib stream, or byte-shuffled channels in one zstd frame. */
enum slc_encoding { SLC_RAW = 0, SLC_ZLIB = 1, SLC_ZSTD = 2, SLC_ENCODING_COUNT };

typedef struct slc_chan {
	char name[SLC_NAME_MAX + 1];
	uint8_t type;       /* enum slc_type */
	uint8_t ncomp;      /* components per element, 1..16 */
	uint8_t domain;     /* enum slc_domain */
	uint64_t count;     /* elements */
	void *data;         /* count*ncomp*slc_type_size(type) bytes */
	int owned;          /* data is the channel's own allocation */
} slc_chan;

typedef struct slc_grid {
	int32_t ni, nj, nk; /* sample dims */
	uint32_t stagger;   /* enum slc_stagger */
	double origin[3];   /* minimum corner of the cell grid, metres */
	double dx;          /* cell size, metres */
} slc_grid;

typedef struct slc_rec {
	uint32_t kind;      /* enum slc_kind, or an unknown kind passed through */
	char name[SLC_NAME_MAX + 1];
	double time;        /* seconds */
	slc_grid grid;      /* meaningful for SLC_GRID only */
	uint32_t nchan;
	slc_chan *chan;
	/* as read (private to slc.c, but visible for slc_write_raw) */
	uint8_t *stored;    /* header, descriptor, payload as stored, crc */
	size_t stored_len;
	int stored_map;     /* stored is a mapping of the file, not allocated */
	size_t stored_map_off; /* bytes mapped before stored (page alignment) */
	uint8_t *payload;   /* decoded payload that raw channels point into */
	uint8_t *kblock;    /* kind block bytes of an unknown kind */
	uint32_t kblock_len;
	uint32_t encoding;  /* encoding as read */
	int encoded;        /* still encoded: channel data NULL (slc_rec_decode) */
	/* in memory only, never written: a grid record holding sample planes
	 * k0 .. k0+nk-1 of a grid of nk_all planes along k (an MPI rank's
	 * slab with its ghost planes, lib/comm/); 0, 0: the whole grid */
	int32_t k0, nk_all;
} slc_rec;

typedef struct slc_reader slc_reader;
typedef struct slc_writer slc_writer;

/* Bytes per component of a type; 0 for an unknown type. */
size_t slc_type_size(uint32_t type);
const char *slc_type_name(uint32_t type);
const char *slc_kind_name(uint32_t kind);
const char *slc_domain_name(uint32_t domain);
const char *slc_stagger_name(uint32_t stagger);
/* "raw", "zlib", "zstd"; "unknown" for any other code. */
const char *slc_encoding_name(uint32_t encoding);

/* --- records in memory --------------------------------------------- */

/* Start an empty record of the given kind and name (truncated to
 * SLC_NAME_MAX).  Never fails. */
void slc_rec_init(slc_rec *r, uint32_t kind, const char *name);

/* Decode a still-encoded record (r->encoded) in place, so that its
 * channels' data are set; no-op for any other.  The stored bytes were
 * checked when read, so only memory can fail: 0, or -1 with err, r then
 * unchanged.  Every code path that reads channel data of a record from a
 * deferring reader calls this (or a function below that does) first. */
int slc_rec_decode(slc_rec *r, slc_err *err);

/* Release everything the record owns and leave it empty (kind SLC_END). */
void slc_rec_free(slc_rec *r);

/* Give every channel its own copy of its data and drop the stored bytes,
 * so that a record read from a stream can change size; slc_write_raw then
 * re-encodes it.  (A tool that only changes values in place needs no call:
 * it writes with slc_write, which always encodes from the channels.) */
int slc_rec_own(slc_rec *r, slc_err *err);

/* A deep copy of src into dst (which is overwritten, not freed): kind,
 * name, time, placement and channels, each channel in memory of its own;
 * not the stored bytes, so slc_write_raw re-encodes the copy.  0, or -1
 * with err (memory), dst then empty. */
int slc_rec_copy(slc_rec *dst, const slc_rec *src, slc_err *err);

/* Add a zeroed channel; returns its data pointer (owned by the record) or
 * NULL with err set (duplicate name, bad type/ncomp/domain, size overflow,
 * too many channels, out of memory). */
void *slc_rec_add(slc_rec *r, const char *name, uint32_t type, uint32_t ncomp,
		  uint32_t domain, uint64_t count, slc_err *err);

/* Find a channel by name; NULL if absent. */
slc_chan *slc_rec_find(const slc_rec *r, const char *name);

/* Is name one of the comma-separated names of list (as given to options
 * such as --only or --from)?  A NULL or empty list holds no name. */
int slc_name_listed(const char *name, const char *list);

/* Find a channel and check its type, ncomp and (if count != 0) count;
 * returns its data or NULL with err naming what was found instead. */
void *slc_rec_get(const slc_rec *r, const char *name, uint32_t type,
		  uint32_t ncomp, uint64_t count, slc_err *err);

/* Copy a channel of any numeric type into a newly allocated double array
 * of count*ncomp values (caller frees).  NULL with err if absent. */
double *slc_rec_get_f64(const slc_rec *r, const char *name, uint32_t ncomp,
			uint64_t *count, slc_err *err);

/* Remove a channel by name (no-op if absent).  0, or -1 when r is still
 * encoded and decoding it ran out of memory (r unchanged). */
int slc_rec_remove(slc_rec *r, const char *name);

/* Set up a grid record: kind SLC_GRID, placement g, one zeroed float
 * channel `name` with ncomp components.  Returns the data or NULL. */
float *slc_grid_new(slc_rec *r, const char *name, const slc_grid *g,
		    uint32_t ncomp, slc_err *err);

/* Number of samples ni*nj*nk, overflow-checked; -1 on bad dims. */
int slc_grid_count(const slc_grid *g, size_t *n);

/* Check that a record is well formed for its kind: channel counts agree
 * with the grid dims / point count, indices in range, finite placement.
 * Unknown kinds pass.  0 or -1 with err. */
int slc_rec_validate(const slc_rec *r, slc_err *err);

/* Count NaN and Inf values in a float channel; returns the flat index of
 * the first non-finite value or -1 if all are finite. */
int64_t slc_chan_first_nonfinite(const slc_chan *c, uint64_t *nnan,
				 uint64_t *ninf);

/* Every sample of every float channel of r finite: 0, else -1 with err
 * "field 'NAME' channel 'C', frame F: N NaN and M Inf values, first at
 * WHERE", naming the frame (or the record's time when frame < 0) and the
 * first bad sample (grid sample (i,j,k), or point / prim N). */
int slc_rec_check_finite(const slc_rec *r, long frame, slc_err *err);

/* What a channel's values are, over every component of every element:
 * the finite ones' min, max and sum (min Inf, max -Inf when none), how
 * many are finite, NaN and Inf.  The channel must be decoded. */
typedef struct slc_chan_stats {
	double min, max, sum;
	uint64_t n, nnan, ninf;
} slc_chan_stats;

void slc_chan_stats_get(const slc_chan *c, slc_chan_stats *s);

/* --- reading ------------------------------------------------------- */

/* Open a reader on a FILE (not closed by the reader).  `label` names the
 * input in messages by the caller; the reader keeps a copy. */
slc_reader *slc_reader_open(FILE *f, slc_err *err);
void slc_reader_close(slc_reader *rd);

/* From the next record on, keep compressed (zlib or zstd) grid,
 * particles and unknown-kind records encoded (on != 0) after checking
 * them in full: a record that is passed through unused never costs its
 * decoded size.  The caller then decodes (slc_rec_decode) every such
 * record whose channel data it reads.  Off by default. */
void slc_reader_defer(slc_reader *rd, int on);

/* Read the next record into r (which must be empty or freed).  Returns 1
 * for a record, 0 at the end of the stream (an end record followed by end
 * of file; an end record followed by another stream continues, so that
 * `cat a.slc b.slc` is a stream), -1 on error.  Every error message names
 * the record index, its name when known, and the byte offset, e.g.
 * "record 3 'u' at byte 1204: crc mismatch (stored 0x1, computed 0x2)".
 * Damage, truncation, a bad magic, a declared size past the data or over
 * the limits, and an empty input are all errors; nothing larger than the
 * bytes actually present is ever allocated. */
int slc_read(slc_reader *rd, slc_rec *r, slc_err *err);

/* Index of the next record and byte offset of the reader. */
uint64_t slc_reader_index(const slc_reader *rd);
uint64_t slc_reader_offset(const slc_reader *rd);

/* --- records in place (lib/comm/mpiio.h) ---------------------------- */

/* A record as stored is its prefix (SLC_PREFIX_LEN bytes), descriptor,
 * payload and crc (SLC_CRC_LEN bytes): formats/slc.md, "Record layout".
 * These read and make the head (prefix and descriptor) alone, for a
 * program that moves a raw payload itself (each MPI rank its part) and
 * checks the crc from the parts (zlib's crc32_combine). */
#define SLC_PREFIX_LEN 48
#define SLC_CRC_LEN 4

/* The fields of a record's prefix. */
typedef struct slc_head {
	uint32_t kind, encoding, desc_len;
	double time;
	uint64_t stored_len, raw_len;
} slc_head;

/* Parse the prefix pre (SLC_PREFIX_LEN bytes) of a record with `left`
 * bytes from its start to the end of its file, with slc_read's checks
 * (magic, major version, encoding, sizes, the limits, the record within
 * the file).  0, or -1 with err (slc_read's message, without the
 * record's place). */
int slc_head_prefix(const uint8_t *pre, uint64_t left, slc_head *h, slc_err *err);

/* Parse the descriptor desc (h->desc_len bytes) of a record whose prefix
 * is h into r (empty): kind, name, time, kind block, channels with data
 * NULL and not owned; the payload length the channels need must be
 * h->raw_len, and a grid's channels must count its samples.  0, or -1
 * with err. */
int slc_head_desc(const slc_head *h, const uint8_t *desc, slc_rec *r, slc_err *err);

/* The head slc_write would write for r raw (level 0): prefix and
 * descriptor in a new buffer of *len bytes, *raw_len the payload bytes
 * that follow (channels in order, each padded with zeros to 8 bytes),
 * from r's names, types and counts; channel data is not read.  NULL
 * with err (a record slc_write refuses, memory). */
uint8_t *slc_head_encode(const slc_rec *r, size_t *len, uint64_t *raw_len, slc_err *err);

/* Go to the record at byte offset of the reader's file (opened at its
 * start), counting it as record `index` in messages: the next slc_read
 * reads it.  0, or -1 with err (the file cannot seek). */
int slc_reader_seek(slc_reader *rd, uint64_t index, uint64_t offset, slc_err *err);

/* --- writing ------------------------------------------------------- */

/* Open a writer on a FILE (not closed by the writer).  level: 0 writes
 * raw payloads, 1..9 zlib at that level. */
slc_writer *slc_writer_open(FILE *f, int level, slc_err *err);

/* Open a writer on a FILE (not closed by the writer) that writes every
 * record's payload with the encoding enc: SLC_RAW (level 0), SLC_ZLIB at
 * level 1..9, or SLC_ZSTD at level 1..SLC_ZSTD_LEVEL_MAX (byte-shuffled
 * channels in one zstd frame; the bytes do not depend on the number of
 * threads).  NULL with err for another encoding or level. */
slc_writer *slc_writer_open_enc(FILE *f, uint32_t enc, int level, slc_err *err);

/* Encode and write one record (kind must not be SLC_END). */
int slc_write(slc_writer *w, const slc_rec *r, slc_err *err);

/* Write a record read by slc_read exactly as it was stored (byte
 * identical), for records the tool did not change; falls back to slc_write for records built in memory.
 * slc_write of a still-encoded record (renamed, say) writes its stored
 * zlib or zstd payload as it is under the new descriptor, whatever the
 * writer's encoding and level. */
int slc_write_raw(slc_writer *w, const slc_rec *r, slc_err *err);

/* Write the end record and flush; the writer is freed.  Returns -1 if any
 * write failed (disk full, closed pipe), with err "write error", followed
 * by the system's reason (strerror) only when a failing call gave one. */
int slc_writer_close(slc_writer *w, slc_err *err);

/* Free a writer without writing the end record (after an error, so the
 * output is visibly truncated). */
void slc_writer_abort(slc_writer *w);

#endif
