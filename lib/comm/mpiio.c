/* mpiio.c: raw grid records read and written in place by every rank,
 * their crc folded from the ranks' parts (comm/mpiio.h). */
#define _GNU_SOURCE             /* fseeko, ftello */
#include "comm/mpiio.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/gridplace.h"

/* Bytes of one MPI-IO call at most: counts are ints. */
#define IO_CHUNK ((size_t)1 << 30)

/* Payload arrays are padded to this (formats/slc.md, "Payload"). */
#define IO_ALIGN 8

static const uint8_t io_zeros[IO_ALIGN];

void
slc_io_init(slc_io *t)
{
	memset(t, 0, sizeof *t);
}

void
slc_io_free(slc_io *t)
{
	size_t q;

	for (q = 0; q < t->n; q++)
		free(t->rec[q].head);
	free(t->rec);
	t->rec = NULL;
	t->n = 0;
}

static size_t
pad8(size_t n)
{
	return (n + IO_ALIGN - 1) & ~(size_t)(IO_ALIGN - 1);
}

/* crc32 of n bytes, any size_t (zlib takes uInt). */
static uint32_t
crc_bytes(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		uInt k = (uInt)(n < IO_CHUNK ? n : IO_CHUNK);

		crc = (uint32_t)crc32(crc, b, k);
		b += k;
		n -= k;
	}
	return crc;
}

/* --- rank 0's scan --------------------------------------------------- */

/* One record of the file as its head says. */
typedef struct scan_rec {
	uint64_t at, index;     /* its byte and its number in slc_read's count */
	slc_head h;
	uint8_t *head;          /* prefix and descriptor */
	slc_rec r;              /* the descriptor parsed (no data) */
} scan_rec;

static void
scan_free(scan_rec *s, size_t n)
{
	size_t q;

	for (q = 0; q < n; q++) {
		free(s[q].head);
		slc_rec_free(&s[q].r);
	}
	free(s);
}

/* Read n bytes at byte at of f into p.  0, or -1 (short, error). */
static int
read_at(FILE *f, uint64_t at, void *p, size_t n)
{
	if (fseeko(f, (off_t)at, SEEK_SET))
		return -1;
	return fread(p, 1, n, f) == n ? 0 : -1;
}

/* The heads of every record of f (size bytes) but the end records, in
 * order, into *out, *nout: the stream walked as slc_read walks it (an end
 * record then more bytes: another stream follows). */
static int
scan_heads(FILE *f, uint64_t size, scan_rec **out, size_t *nout, slc_err *err)
{
	scan_rec *s = NULL;
	size_t n = 0, cap = 0;
	uint64_t at = 0, index = 0;
	int seen_end = 0;

	for (;;) {
		uint8_t pre[SLC_PREFIX_LEN];
		slc_head h;
		slc_rec r;
		uint8_t *head;
		uint64_t total;

		if (at == size) {
			if (seen_end)
				break;
			if (index == 0)
				slc_fail(err, "empty input");
			else
				slc_fail(err, "truncated at byte %llu: no end record after record %llu",
					 (unsigned long long)at, (unsigned long long)index - 1);
			goto fail;
		}
		if (size - at < SLC_PREFIX_LEN || read_at(f, at, pre, SLC_PREFIX_LEN)) {
			slc_fail(err, "record %llu at byte %llu: truncated header",
				 (unsigned long long)index, (unsigned long long)at);
			goto fail;
		}
		if (slc_head_prefix(pre, size - at, &h, err)) {
			slc_failctx(err, "record %llu at byte %llu: ", (unsigned long long)index,
				    (unsigned long long)at);
			goto fail;
		}
		if (!(head = slc_malloc(SLC_PREFIX_LEN + (size_t)h.desc_len, 1, err)))
			goto fail;
		memcpy(head, pre, SLC_PREFIX_LEN);
		if (read_at(f, at + SLC_PREFIX_LEN, head + SLC_PREFIX_LEN, h.desc_len) ||
		    slc_head_desc(&h, head + SLC_PREFIX_LEN, &r, err)) {
			if (ferror(f) || feof(f))
				slc_fail(err, "read error");
			free(head);
			slc_failctx(err, "record %llu at byte %llu: ", (unsigned long long)index,
				    (unsigned long long)at);
			goto fail;
		}
		total = SLC_PREFIX_LEN + (uint64_t)h.desc_len + h.stored_len + SLC_CRC_LEN;
		seen_end = h.kind == SLC_END;
		if (seen_end) {
			free(head);
			slc_rec_free(&r);
		} else {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				scan_rec *g = realloc(s, nc * sizeof *g);

				if (!g) {
					free(head);
					slc_rec_free(&r);
					slc_fail(err, "out of memory");
					goto fail;
				}
				s = g;
				cap = nc;
			}
			s[n].at = at;
			s[n].index = index;
			s[n].h = h;
			s[n].head = head;
			s[n].r = r;
			n++;
		}
		at += total;
		index++;
	}
	*out = s;
	*nout = n;
	return 0;
fail:
	scan_free(s, n);
	return -1;
}

/* Does record s stay in the file: a raw grid record on ref's cells? */
static int
stays(const scan_rec *s, const slc_rec *ref)
{
	return ref && s->h.kind == SLC_GRID && s->h.encoding == SLC_RAW &&
	       slc_grid_same_cells(&s->r.grid, &ref->grid, &slc_place_exact);
}

int
slc_io_scan(const char *path, const char *by, slc_frame *F, slc_io *t, slc_err *err)
{
	FILE *f = fopen(path, "rb");
	scan_rec *s = NULL;
	const slc_rec *ref = NULL;
	slc_reader *rd = NULL;
	slc_frame G;
	struct stat st;
	size_t n = 0, q, g = 0;
	int rc = -1;

	slc_frame_init(&G);
	if (!f)
		return slc_fail(err, "%s", strerror(errno));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		slc_fail(err, "not a regular file (--mpi-io reads a file in place)");
		goto done;
	}
	if (scan_heads(f, (uint64_t)st.st_size, &s, &n, err))
		goto done;
	for (q = 0; q < n && !ref; q++)
		if (s[q].h.kind == SLC_GRID && !strcmp(s[q].r.name, by))
			ref = &s[q].r;
	if (!(t->rec = slc_calloc(n ? n : 1, sizeof *t->rec, err)))
		goto done;
	t->n = n;
	rewind(f);
	if (!(rd = slc_reader_open(f, err)))
		goto done;
	slc_reader_defer(rd, 1);
	/* every record rank 0 keeps whole, read and checked as read_frame
	 * does; the others stay in the file */
	for (q = 0; q < n; q++) {
		slc_rec r;

		t->rec[q].at = s[q].at;
		t->rec[q].index = s[q].index;
		if (stays(&s[q], ref)) {
			t->rec[q].head_len = SLC_PREFIX_LEN + s[q].h.desc_len;
			continue;
		}
		if (slc_reader_seek(rd, s[q].index, s[q].at, err) || slc_read(rd, &r, err) != 1)
			goto done;
		if (!slc_frame_put(&G, &r, err)) {
			slc_rec_free(&r);
			goto done;
		}
	}
	if (slc_frame_check_finite(&G, 0, err))
		goto done;
	/* F: G's records, and the heads of the others at their places */
	for (q = 0; q < n; q++) {
		slc_rec *p = slc_frame_add(F, SLC_END, "", err);

		if (!p)
			goto done;
		if (!t->rec[q].head_len) {
			*p = *G.r[g];
			slc_rec_init(G.r[g++], SLC_END, "");
			continue;
		}
		*p = s[q].r;
		slc_rec_init(&s[q].r, SLC_END, "");
		t->rec[q].head = s[q].head;
		s[q].head = NULL;
	}
	rc = 0;
done:
	if (rd)
		slc_reader_close(rd);
	fclose(f);
	slc_frame_free(&G);
	scan_free(s, n);
	return rc;
}

/* --- sharing the table and the file ------------------------------------ */

int
slc_io_share(slc_comm *c, slc_io *t, slc_err *err)
{
	uint64_t n = t->n;
	size_t q;

	if (slc_comm_bcast(c, &n, sizeof n, err))
		return -1;
	if (c->rank) {
		slc_io_free(t);
		if (!(t->rec = slc_calloc(n ? (size_t)n : 1, sizeof *t->rec, err)))
			return -1;
		t->n = (size_t)n;
	}
	for (q = 0; q < t->n; q++) {
		slc_io_rec *e = &t->rec[q];
		uint64_t v[3] = { e->at, e->head_len, e->index };

		if (slc_comm_bcast(c, v, sizeof v, err))
			return -1;
		if (c->rank) {
			e->at = v[0];
			e->head_len = (uint32_t)v[1];
			e->index = v[2];
			if (e->head_len && !(e->head = slc_malloc(e->head_len, 1, err)))
				return -1;
		}
		if (e->head_len && slc_comm_bcast(c, e->head, e->head_len, err))
			return -1;
	}
	return 0;
}

static int
io_fail(int rc, const char *what, slc_err *err)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
		len = 0;
	s[len] = 0;
	return slc_fail(err, "%s: MPI error: %s", what, s);
}

int
slc_io_open(slc_comm *c, slc_io *t, const char *path, int write, slc_err *err)
{
	int rc = MPI_File_open(c->c, path, write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY,
			       MPI_INFO_NULL, &t->fh);

	if (rc != MPI_SUCCESS)
		return io_fail(rc, write ? "cannot open the output in place"
				   : "cannot open the input in place", err);
	MPI_File_set_errhandler(t->fh, MPI_ERRORS_RETURN);
	t->open = 1 + !!write;
	return 0;
}

int
slc_io_close(slc_comm *c, slc_io *t, slc_err *err)
{
	int rc = MPI_SUCCESS;

	(void)c;
	if (!t->open)
		return 0;
	if (t->open == 2)
		rc = MPI_File_sync(t->fh);
	if (MPI_File_close(&t->fh) != MPI_SUCCESS && rc == MPI_SUCCESS)
		rc = MPI_ERR_FILE;
	t->open = 0;
	return rc == MPI_SUCCESS ? 0 : io_fail(rc, "closing the file written in place", err);
}

/* --- the parts of a record ------------------------------------------- */

int
slc_io_crc_parts(slc_comm *c, uint32_t crc0, const uint32_t *crc, const uint64_t *len, int n,
		 uint32_t *out, slc_err *err)
{
	uint64_t *mine, *all = NULL;
	double t0;
	int j, r, rc;

	if (n < 0 || (size_t)n > (size_t)INT_MAX / 2 / (size_t)c->size)
		return slc_fail(err, "crc of %d parts a rank", n);
	if (!(mine = slc_malloc(2 * (size_t)n + 1, sizeof *mine, err)))
		return -1;
	for (j = 0; j < n; j++) {
		mine[2 * j] = crc[j];
		mine[2 * j + 1] = len[j];
	}
	if (c->rank == 0 && !(all = slc_malloc(2 * (size_t)n * (size_t)c->size + 1,
					       sizeof *all, err))) {
		free(mine);
		return -1;
	}
	t0 = slc_comm_time_begin();
	rc = MPI_Gather(mine, 2 * n, MPI_UINT64_T, all, 2 * n, MPI_UINT64_T, 0, c->c);
	slc_comm_time_end(SLC_COMM_FRAME, t0, 16 * (uint64_t)n);
	free(mine);
	if (rc != MPI_SUCCESS) {
		free(all);
		return io_fail(rc, "crc gather", err);
	}
	if (c->rank == 0) {
		uLong v = crc0;

		/* zlib's crc32_combine(a, b, lenb): the crc of A then B
		 * from the crcs of A and of B's lenb bytes */
		for (j = 0; j < n; j++)
			for (r = 0; r < c->size; r++) {
				const uint64_t *p = all + 2 * ((size_t)r * (size_t)n + (size_t)j);

				v = crc32_combine(v, (uLong)p[0], (z_off_t)p[1]);
			}
		*out = (uint32_t)v;
	}
	free(all);
	return slc_comm_bcast(c, out, sizeof *out, err);
}

/* The sample planes rank `rank` owns of a grid of nk_all sample planes
 * (its cells', and on the last rank those past the last cell). */
static void
owned_planes(const slc_comm *c, int rank, int nk_all, int *lo, int *hi)
{
	*lo = c->k0[rank];
	*hi = rank == c->size - 1 ? nk_all : c->k0[rank + 1];
}

/* Bytes of one sample plane of channel ch of a grid ni x nj. */
static size_t
plane_bytes(const slc_grid *g, const slc_chan *ch)
{
	return (size_t)g->ni * (size_t)g->nj * ch->ncomp * slc_type_size(ch->type);
}

static int
io_check_finite(slc_comm *c, const slc_rec *loc, long frame, slc_err *err)
{
	uint32_t n = loc->nchan, q;
	uint64_t *cnt;
	int64_t *first;
	size_t per = (size_t)loc->grid.ni * (size_t)loc->grid.nj;
	int o0, o1, rc;

	if (n == 0)
		return 0;
	cnt = slc_malloc(2 * (size_t)n, sizeof *cnt, err);
	first = slc_malloc(n, sizeof *first, err);
	if (!cnt || !first) {
		free(cnt);
		free(first);
		return -1;
	}
	owned_planes(c, c->rank, loc->nk_all, &o0, &o1);
	for (q = 0; q < n; q++) {
		slc_chan v = loc->chan[q];
		int64_t f;

		v.count = per * (size_t)(o1 - o0);
		v.data = (char *)v.data + plane_bytes(&loc->grid, &v) * (size_t)(o0 - loc->k0);
		f = slc_chan_first_nonfinite(&v, &cnt[2 * q], &cnt[2 * q + 1]);
		first[q] = f < 0 ? INT64_MAX : (int64_t)(per * (size_t)o0) + f;
	}
	rc = MPI_Allreduce(MPI_IN_PLACE, cnt, 2 * (int)n, MPI_UINT64_T, MPI_SUM, c->c);
	if (rc == MPI_SUCCESS)
		rc = MPI_Allreduce(MPI_IN_PLACE, first, (int)n, MPI_INT64_T, MPI_MIN, c->c);
	if (rc != MPI_SUCCESS) {
		free(cnt);
		free(first);
		return io_fail(rc, "finite check", err);
	}
	rc = 0;
	for (q = 0; q < n && !rc; q++) {
		int64_t ni = loc->grid.ni, nj = loc->grid.nj, f = first[q];
		char when[64];

		if (f == INT64_MAX)
			continue;
		/* slc_rec_check_finite's words for the whole record */
		if (frame >= 0)
			snprintf(when, sizeof when, "frame %ld", frame);
		else
			snprintf(when, sizeof when, "time %g", loc->time);
		rc = slc_fail(err, "field '%s' channel '%s', %s: %llu NaN and %llu Inf values, "
			      "first at sample (%lld,%lld,%lld)", loc->name, loc->chan[q].name,
			      when, (unsigned long long)cnt[2 * q],
			      (unsigned long long)cnt[2 * q + 1], (long long)(f % ni),
			      (long long)(f / ni % nj), (long long)(f / ni / nj));
	}
	free(cnt);
	free(first);
	return rc;
}

/* Read n bytes at byte at of t's file into p (any size_t). */
static int
file_read(slc_io *t, uint64_t at, void *p, size_t n)
{
	char *b = p;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;
	int rc = 0;

	while (n && !rc) {
		size_t k = n < IO_CHUNK ? n : IO_CHUNK;
		MPI_Status st;
		int got = 0;

		if (MPI_File_read_at(t->fh, (MPI_Offset)at, b, (int)k, MPI_BYTE, &st) != MPI_SUCCESS ||
		    MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || (size_t)got != k)
			rc = -1;
		at += k;
		b += k;
		n -= k;
	}
	slc_comm_time_end(SLC_COMM_FRAME, t0, all);
	return rc;
}

static int
io_read_slab(slc_comm *c, slc_io *t, size_t q, long frame, slc_rec *s, slc_err *err)
{
	const slc_io_rec *e = &t->rec[q];
	slc_head h;
	slc_rec w;
	uint32_t *crc = NULL, stored = 0, whole = 0;
	uint64_t *len = NULL, off;
	int lo, hi, o0, o1, bad = 0, rc = -1;
	uint32_t ch;

	slc_rec_init(s, SLC_GRID, "");
	if (slc_head_prefix(e->head, UINT64_MAX, &h, err) ||
	    slc_head_desc(&h, e->head + SLC_PREFIX_LEN, &w, err))
		return -1;
	slc_comm_held(c, c->rank, &lo, &hi);
	hi += w.grid.nk - c->nk;
	owned_planes(c, c->rank, w.grid.nk, &o0, &o1);
	slc_rec_init(s, w.kind, w.name);
	s->time = w.time;
	s->grid = w.grid;
	s->grid.nk = hi - lo;
	s->k0 = lo;
	s->nk_all = w.grid.nk;
	crc = slc_calloc(w.nchan ? w.nchan : 1, sizeof *crc, err);
	len = slc_calloc(w.nchan ? w.nchan : 1, sizeof *len, err);
	if (!crc || !len)
		goto done;
	off = e->at + e->head_len;
	for (ch = 0; ch < w.nchan && !bad; ch++) {
		const slc_chan *C = &w.chan[ch];
		size_t pb = plane_bytes(&w.grid, C), bytes = pb * (size_t)w.grid.nk;
		char *d = slc_rec_add(s, C->name, C->type, C->ncomp, C->domain,
				      (size_t)w.grid.ni * (size_t)w.grid.nj * (size_t)(hi - lo), err);

		if (!d)
			goto done;
		if (file_read(t, off + (uint64_t)lo * pb, d, (size_t)(hi - lo) * pb)) {
			bad = 1;
			break;
		}
		crc[ch] = crc_bytes((uint32_t)crc32(0L, Z_NULL, 0), d + (size_t)(o0 - lo) * pb,
				    (size_t)(o1 - o0) * pb);
		len[ch] = (uint64_t)(o1 - o0) * pb;
		if (c->rank == c->size - 1 && pad8(bytes) > bytes) {
			uint8_t pad[IO_ALIGN];
			size_t np = pad8(bytes) - bytes;

			/* the padding is the last rank's part, and zero */
			if (file_read(t, off + bytes, pad, np)) {
				bad = 1;
				break;
			}
			if (memcmp(pad, io_zeros, np))
				bad = 2;
			crc[ch] = crc_bytes(crc[ch], pad, np);
			len[ch] += np;
		}
		off += pad8(bytes);
	}
	if (c->rank == 0 && file_read(t, e->at + e->head_len + h.stored_len, &stored, sizeof stored))
		bad = 1;
	if (slc_comm_imax(c, &bad, 1, err))
		goto done;
	if (bad == 1) {
		slc_fail(err, "record %llu '%s' at byte %llu: read error",
			 (unsigned long long)e->index, w.name, (unsigned long long)e->at);
		goto done;
	}
	if (slc_io_crc_parts(c, crc_bytes((uint32_t)crc32(0L, Z_NULL, 0), e->head, e->head_len),
			     crc, len, (int)w.nchan, &whole, err) ||
	    slc_comm_bcast(c, &stored, sizeof stored, err))
		goto done;
	if (whole != stored) {
		/* slc_read's words: a name is not trusted before its crc */
		slc_fail(err, "record %llu at byte %llu: crc mismatch (stored %08x, computed "
			 "%08x): the record is damaged", (unsigned long long)e->index,
			 (unsigned long long)e->at, stored, whole);
		goto done;
	}
	if (bad == 2) {
		slc_fail(err, "record %llu '%s' at byte %llu: nonzero padding after a channel",
			 (unsigned long long)e->index, w.name, (unsigned long long)e->at);
		goto done;
	}
	rc = io_check_finite(c, s, frame, err);
done:
	slc_rec_free(&w);
	free(crc);
	free(len);
	if (rc)
		slc_rec_free(s);
	return rc;
}

/* Write n bytes at byte at of t's file from p, collectively, in `calls`
 * calls (the same on every rank; those past the bytes write none). */
static int
file_write_all(slc_io *t, uint64_t at, const void *p, size_t n, size_t calls)
{
	const char *b = p;
	double t0 = slc_comm_time_begin();
	uint64_t all = n;
	int bad = 0;

	for (size_t i = 0; i < calls; i++) {
		size_t k = n < IO_CHUNK ? n : IO_CHUNK;
		MPI_Status st;

		if (MPI_File_write_at_all(t->fh, (MPI_Offset)at, b, (int)k, MPI_BYTE, &st) !=
		    MPI_SUCCESS)
			bad = 1;
		at += k;
		b += k;
		n -= k;
	}
	slc_comm_time_end(SLC_COMM_FRAME, t0, all);
	return bad;
}

static int
io_write_slab(slc_comm *c, slc_io *t, FILE *f0, const slc_rec *loc, const uint8_t *head,
	      size_t head_len, slc_err *err)
{
	uint8_t *own = NULL;
	uint32_t *crc = NULL, whole = 0;
	uint64_t *len = NULL, v[2] = { 0, 0 }, off, raw = 0;
	int o0, o1, bad = 0, rc = -1;
	uint32_t ch;

	/* rank 0: the head, and where the payload starts */
	if (c->rank == 0) {
		off_t at = ftello(f0);

		if (!head) {
			slc_rec w = *loc;
			slc_chan *cc = slc_calloc(loc->nchan ? loc->nchan : 1, sizeof *cc, err);

			if (!cc)
				goto head_done;
			for (ch = 0; ch < loc->nchan; ch++) {
				cc[ch] = loc->chan[ch];
				cc[ch].count = (size_t)loc->grid.ni * (size_t)loc->grid.nj *
					       (size_t)loc->nk_all;
			}
			w.chan = cc;
			w.grid.nk = loc->nk_all;
			w.stored = NULL;
			own = slc_head_encode(&w, &head_len, &raw, err);
			free(cc);
			if (!(head = own))
				goto head_done;
		}
		if (at < 0 || fwrite(head, 1, head_len, f0) != head_len) {
			slc_fail(err, "write error");
			goto head_done;
		}
		v[0] = (uint64_t)at + head_len;
		v[1] = 1;
head_done:
		;
	}
	if (slc_comm_bcast(c, v, sizeof v, err))
		goto done;
	if (!v[1]) {
		if (c->rank)
			slc_fail(err, "on rank 0: cannot write the head of '%s'", loc->name);
		goto done;
	}
	crc = slc_calloc(loc->nchan ? loc->nchan : 1, sizeof *crc, err);
	len = slc_calloc(loc->nchan ? loc->nchan : 1, sizeof *len, err);
	if (!crc || !len)
		goto done;
	owned_planes(c, c->rank, loc->nk_all, &o0, &o1);
	off = v[0];
	for (ch = 0; ch < loc->nchan; ch++) {
		const slc_chan *C = &loc->chan[ch];
		size_t pb = plane_bytes(&loc->grid, C), bytes = pb * (size_t)loc->nk_all;
		size_t n = (size_t)(o1 - o0) * pb, np = pad8(bytes) - bytes, calls = 0;
		const char *d = (const char *)C->data + (size_t)(o0 - loc->k0) * pb;
		int r, a, b;

		/* every rank makes as many calls as the rank with most bytes */
		for (r = 0; r < c->size; r++) {
			size_t m;

			owned_planes(c, r, loc->nk_all, &a, &b);
			m = ((size_t)(b - a) * pb + IO_CHUNK - 1) / IO_CHUNK;
			calls = m > calls ? m : calls;
		}
		bad |= file_write_all(t, off + (uint64_t)o0 * pb, d, n, calls);
		crc[ch] = crc_bytes((uint32_t)crc32(0L, Z_NULL, 0), d, n);
		len[ch] = n;
		bad |= file_write_all(t, off + bytes, io_zeros, c->rank == c->size - 1 ? np : 0, 1);
		if (c->rank == c->size - 1) {
			crc[ch] = crc_bytes(crc[ch], io_zeros, np);
			len[ch] += np;
		}
		off += pad8(bytes);
	}
	if (slc_comm_imax(c, &bad, 1, err))
		goto done;
	if (bad) {
		slc_fail(err, "record '%s': write error in place", loc->name);
		goto done;
	}
	if (slc_io_crc_parts(c, crc_bytes((uint32_t)crc32(0L, Z_NULL, 0), head, c->rank ? 0 : head_len),
			     crc, len, (int)loc->nchan, &whole, err))
		goto done;
	if (c->rank == 0) {
		uint8_t b[SLC_CRC_LEN] = { (uint8_t)whole, (uint8_t)(whole >> 8),
					   (uint8_t)(whole >> 16), (uint8_t)(whole >> 24) };

		if (fseeko(f0, (off_t)off, SEEK_SET) || fwrite(b, 1, sizeof b, f0) != sizeof b) {
			slc_fail(err, "record '%s': write error", loc->name);
			goto done;
		}
	}
	rc = 0;
done:
	free(own);
	free(crc);
	free(len);
	return rc;
}

int
slc_io_read_slab(slc_comm *c, slc_io *t, size_t q, long frame, slc_rec *s, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = io_read_slab(c, t, q, frame, s, err);

	slc_comm_time_end(SLC_COMM_FRAME, t0, 0);
	return rc;
}

int
slc_io_write_slab(slc_comm *c, slc_io *t, FILE *f0, const slc_rec *loc, const uint8_t *head,
	      size_t head_len, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = io_write_slab(c, t, f0, loc, head, head_len, err);

	slc_comm_time_end(SLC_COMM_FRAME, t0, 0);
	return rc;
}

int
slc_io_check_finite(slc_comm *c, const slc_rec *loc, long frame, slc_err *err)
{
	double t0 = slc_comm_time_begin();
	int rc = io_check_finite(c, loc, frame, err);

	slc_comm_time_end(SLC_COMM_FRAME, t0, 0);
	return rc;
}
