/* mpiio.h: raw grid records read and written in place by every rank
 * (MPI-IO), for frames larger than one machine's memory (the MPI builds'
 * --mpi-io; formats/slc.md, "Record layout").
 *
 * A raw grid record's payload is its channels one after the other, each
 * a block of whole k planes (padded with zeros to 8 bytes), so a rank's
 * k slab of a channel is one contiguous byte range of the file.  Rank 0
 * reads the frame's heads (prefix and descriptor), and every record but
 * the raw grid records on the cells of the decomposed grid, which stay in
 * the file; every rank reads the planes it holds of them with
 * MPI_File_read_at.  The crc of such a record is checked from parts: rank
 * 0's crc of the head, then for each channel each rank's crc of the bytes
 * it owns (the last rank's with the channel's padding), folded by rank 0
 * in that order with zlib's crc32_combine: the crc of the whole record,
 * which no rank ever holds.  Writing mirrors it: rank 0 writes the head
 * and the crc through its output stream, each rank its owned planes with
 * MPI_File_write_at_all, so the file is byte for byte the one rank 0
 * would have written alone.  A zlib record is one deflate stream and
 * cannot be cut: it goes through rank 0 (comm/slabframe.h).
 */
#ifndef SLC_MPIIO_H
#define SLC_MPIIO_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "comm/mpicomm.h"
#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"

/* Where record q of a frame file is. */
typedef struct slc_io_rec {
	uint64_t at;            /* its first byte in the file */
	uint64_t index;         /* its number in slc_read's count (end
				   records included), for messages */
	uint8_t *head;          /* prefix and descriptor as stored; NULL:
				   rank 0 read the record whole */
	uint32_t head_len;
} slc_io_rec;

/* A frame file read or written in place. */
typedef struct slc_io {
	size_t n;               /* records of the frame */
	slc_io_rec *rec;
	MPI_File fh;            /* open on every rank between slc_io_open
				   and slc_io_close */
	int open;
} slc_io;

/* An empty table; equivalent to zeroing it. */
void slc_io_init(slc_io *t);

/* Free t's table, leaving it empty (its file is not touched). */
void slc_io_free(slc_io *t);

/* Rank 0, no MPI: the frame file path into F (empty) and t (empty) as
 * read_frame reads it (every check of slc_read, zlib records kept
 * encoded, float values finite), except the raw grid records on the
 * cells of the first grid record named `by` (same cell dims, origin and
 * dx, any staggering): F holds those with their descriptor only
 * (channels with data NULL; slc_io_read_slab reads them), and
 * t->rec[q].head is set for each.  0, or -1 with err (slc_read's
 * message, "record N 'name' at byte B: ...", or the file's). */
int slc_io_scan(const char *path, const char *by, slc_frame *F, slc_io *t, slc_err *err);

/* Rank 0's table to every rank.  Collective; 0, or -1 with err. */
int slc_io_share(slc_comm *c, slc_io *t, slc_err *err);

/* Open path on every rank, for reading or (write) writing a file that
 * exists (rank 0 made it).  Collective; 0, or -1 with err on every rank. */
int slc_io_open(slc_comm *c, slc_io *t, const char *path, int write, slc_err *err);

/* Close t's file (after a write, synced to the disk first).  Collective;
 * 0, or -1 with err.  No-op when not open. */
int slc_io_close(slc_comm *c, slc_io *t, slc_err *err);

/* Record q of t (a raw grid record of nk_all sample planes over c->nk
 * cells, c decomposed by slc_comm_slabs) as this rank's slab with its
 * ghost planes into s (empty): channels read from the open file, k0 and
 * nk_all set.  The crc of the whole record is checked from every rank's
 * owned parts, and its float values finite (frame: for the message, -1
 * for none).  Collective; 0, or -1 with err on every rank: "record Q
 * 'name' at byte B: crc mismatch ...", slc_rec_check_finite's message,
 * or an MPI error. */
int slc_io_read_slab(slc_comm *c, slc_io *t, size_t q, long frame, slc_rec *s, slc_err *err);

/* Slab record loc (every rank its slab of one record) written raw and
 * whole into t's open file at the position of f0, rank 0's output stream
 * on the same file (NULL on the other ranks): rank 0 writes head (its
 * prefix and descriptor as stored, head_len bytes; NULL: the head
 * slc_write would write) through f0, each rank its owned planes in place,
 * and rank 0 the crc, leaving f0 past the record.  Collective; 0, or -1
 * with err (rank 0's own: a write error on f0, memory). */
int slc_io_write_slab(slc_comm *c, slc_io *t, FILE *f0, const slc_rec *loc,
		      const uint8_t *head, size_t head_len, slc_err *err);

/* slc_rec_check_finite of the whole record of slab record loc, each rank
 * checking the planes it owns: the same message (the first bad sample in
 * grid order, the counts of every rank).  Collective; 0, or -1 with err
 * on every rank. */
int slc_io_check_finite(slc_comm *c, const slc_rec *loc, long frame, slc_err *err);

/* The crc of the concatenation of parts (crc0 the crc of what precedes
 * them): every rank gives n parts, crc[j] the crc32 of part j's len[j]
 * bytes; the parts follow each other as part 0 of rank 0, of rank 1, ...,
 * of the last rank, then part 1 of rank 0, and so on.  Folded by rank 0
 * with crc32_combine, into *out on every rank.  Collective; 0, or -1 with
 * err (memory, MPI). */
int slc_io_crc_parts(slc_comm *c, uint32_t crc0, const uint32_t *crc, const uint64_t *len,
		     int n, uint32_t *out, slc_err *err);

#endif
