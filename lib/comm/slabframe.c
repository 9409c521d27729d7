/* slabframe.c: a frame cut into k slabs and put back together
 * (comm/slabframe.h). */
#include "comm/slabframe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/halo.h"
#include "core/gridplace.h"
#include "core/meta.h"

enum { TAG_STREAM = 21, TAG_PLANES = 22 };

/* What becomes of each record of a frame scattered: sent whole, cut into
 * slabs, or read in place by every rank (comm/mpiio.h). */
enum { CUT_WHOLE = 0, CUT_SLAB = 1, CUT_IN_PLACE = 2 };

/* The header rank 0 broadcasts before the slabs: its status and the
 * decomposed grid. */
typedef struct cut_head {
	int32_t ok;             /* 1: slabs follow; 0: rank 0 failed */
	int32_t nk;             /* cells along k of the grid cut */
	int32_t nrec;
	int64_t frame;          /* the scene's frame number, or -1 */
	char msg[SLC_ERR_MAX];  /* rank 0's message when !ok */
} cut_head;

/* Is r a grid record on the cells of ref (any staggering)? */
static int
on_cells(const slc_rec *r, const slc_rec *ref)
{
	return r->kind == SLC_GRID && slc_grid_same_cells(&r->grid, &ref->grid, &slc_place_exact);
}

/* The slab of whole record w for rank `rank` into s: the same kind,
 * name, time and channels over the planes the rank holds; the channel
 * data points into w's. */
static int
cut_rec(const slc_comm *c, const slc_rec *w, int rank, slc_rec *s, slc_err *err)
{
	int lo, hi, ex = w->grid.nk - c->nk;
	uint32_t q;

	slc_comm_held(c, rank, &lo, &hi);
	slc_rec_init(s, w->kind, w->name);
	s->time = w->time;
	s->grid = w->grid;
	s->grid.nk = hi - lo + ex;
	if (!(s->chan = slc_calloc(w->nchan ? w->nchan : 1, sizeof *s->chan, err)))
		return -1;
	s->nchan = w->nchan;
	for (q = 0; q < w->nchan; q++) {
		const slc_chan *C = &w->chan[q];
		size_t per = (size_t)w->grid.ni * (size_t)w->grid.nj;

		s->chan[q] = *C;
		s->chan[q].owned = 0;
		s->chan[q].count = per * (size_t)s->grid.nk;
		s->chan[q].data = (char *)C->data +
				  per * (size_t)lo * C->ncomp * slc_type_size(C->type);
	}
	return 0;
}

int
slc_frame_stream(const slc_comm *c, slc_frame *F, const unsigned char *cut, int rank,
		 char **buf, size_t *len, slc_err *err)
{
	FILE *f = open_memstream(buf, len);
	slc_writer *w;
	size_t q;

	if (!f)
		return slc_fail(err, "out of memory for a frame stream");
	if (!(w = slc_writer_open(f, 0, err))) {
		fclose(f);
		free(*buf);
		return -1;
	}
	for (q = 0; q < F->n; q++) {
		int rc;

		if (cut && cut[q] == CUT_IN_PLACE)
			continue;
		if (cut && cut[q]) {
			slc_rec s;

			rc = cut_rec(c, F->r[q], rank, &s, err) || slc_write(w, &s, err) ? -1 : 0;
			free(s.chan);
		} else {
			rc = slc_write_raw(w, F->r[q], err);
		}
		if (rc) {
			slc_writer_abort(w);
			fclose(f);
			free(*buf);
			return -1;
		}
	}
	if (slc_writer_close(w, err)) {
		fclose(f);
		free(*buf);
		return -1;
	}
	if (fclose(f)) {
		free(*buf);
		return slc_fail(err, "frame stream: write error");
	}
	return 0;
}

/* The records of the stream buf, len into L, the cut ones marked as
 * slabs of this rank. */
static int
stream_read(slc_comm *c, char *buf, size_t len, const unsigned char *cut, size_t nrec,
	    slc_frame *L, slc_err *err)
{
	FILE *f = fmemopen(buf, len, "r");
	slc_reader *rd;
	size_t q, k, nsent = 0;
	int rc, lo, hi;

	if (!f)
		return slc_fail(err, "slab stream: cannot read it back");
	if (!(rd = slc_reader_open(f, err))) {
		fclose(f);
		return -1;
	}
	slc_reader_defer(rd, 1);
	rc = slc_frame_read(L, rd, err);
	slc_reader_close(rd);
	fclose(f);
	if (rc)
		return -1;
	for (q = 0; q < nrec; q++)
		nsent += cut[q] != CUT_IN_PLACE;
	if (L->n != nsent)
		return slc_fail(err, "slab stream: %zu records, expected %zu", L->n, nsent);
	slc_comm_held(c, c->rank, &lo, &hi);
	for (q = 0, k = 0; q < nrec; q++) {
		if (cut[q] == CUT_IN_PLACE)
			continue;
		if (cut[q]) {
			L->r[k]->k0 = lo;
			L->r[k]->nk_all = c->nk + (L->r[k]->grid.nk - (hi - lo));
		}
		k++;
	}
	return 0;
}

/* The frame number of F's scene, as slc_frame_check_finite names it. */
static long
scene_frame(const slc_frame *F)
{
	const slc_rec *sc = slc_frame_find(F, "scene", SLC_META);
	double fr;

	if (sc && slc_meta_get_f64(sc, "frame", &fr, NULL) == 1 && fr >= 0 && fr <= 0x1p53 &&
	    fr == floor(fr))
		return (long)fr;
	return -1;
}

/* Rank 0: check F, pick the records to cut (decoded) or leave in the
 * file (io, may be NULL: those whose head io holds), fill the header. */
static int
plan(slc_frame *F, const slc_io *io, const char *by, cut_head *h, unsigned char **cut,
     slc_err *err)
{
	slc_rec *ref = NULL;
	int32_t cells[3];
	size_t q, qref = 0;

	for (q = 0; q < F->n && !ref; q++)
		if (F->r[q]->kind == SLC_GRID && !strcmp(F->r[q]->name, by))
			ref = F->r[qref = q];
	if (!ref)
		return slc_fail(err, "no grid record '%s'", by);
	/* decoded and checked as slc_frame_get does; one still in the file
	 * is checked by the ranks as they read it */
	if (!(io && io->rec[qref].head) && slc_frame_decode(F, ref, err))
		return -1;
	slc_grid_cells(&ref->grid, cells);
	h->nk = cells[2];
	h->nrec = (int32_t)F->n;
	h->frame = scene_frame(F);
	if (!(*cut = slc_calloc(F->n ? F->n : 1, 1, err)))
		return -1;
	for (q = 0; q < F->n; q++) {
		if (io && io->rec[q].head) {
			(*cut)[q] = CUT_IN_PLACE;
			continue;
		}
		if (!on_cells(F->r[q], ref))
			continue;
		/* the stage would decode and check it if it used it */
		if (slc_rec_decode(F->r[q], err))
			return slc_failctx(err, "record '%s': ", F->r[q]->name);
		(*cut)[q] = CUT_SLAB;
	}
	return 0;
}

/* L: the records of T (sent) and the slabs of those read in place from
 * io, in the frame's order (cut).  T is left empty. */
static int
read_in_place(slc_comm *c, slc_io *io, const unsigned char *cut, size_t nrec, long frame,
	      slc_frame *T, slc_frame *L, slc_err *err)
{
	size_t q, k = 0;
	int rc = 0;

	for (q = 0; q < nrec; q++) {
		slc_rec s;

		if (cut[q] != CUT_IN_PLACE) {
			slc_rec *p = slc_frame_put(L, T->r[k], err);

			if (!p)
				return -1;
			k++;
			continue;
		}
		/* collective: every rank goes on to the same record */
		if (slc_io_read_slab(c, io, q, frame, &s, err))
			return -1;
		if (!slc_frame_put(L, &s, err)) {
			slc_rec_free(&s);
			rc = -1;
		}
		if (slc_comm_imax(c, &rc, 1, err) || rc)
			return slc_fail(err, "out of memory for the slabs read in place");
	}
	return 0;
}

int
slc_slab_scatter(slc_comm *c, slc_frame *F, const char *by, int ghost, slc_frame *L,
		 slc_err *err)
{
	return slc_slab_scatter_io(c, F, NULL, by, ghost, L, err);
}

int
slc_slab_scatter_io(slc_comm *c, slc_frame *F, slc_io *io, const char *by, int ghost,
		    slc_frame *L, slc_err *err)
{
	cut_head h;
	unsigned char *cut = NULL;
	char *buf = NULL;
	size_t len = 0;
	uint64_t n64;
	slc_frame T;
	int r, rc = -1;

	slc_frame_init(&T);
	memset(&h, 0, sizeof h);
	if (c->rank == 0) {
		h.ok = !plan(F, io, by, &h, &cut, err);
		if (!h.ok)
			snprintf(h.msg, sizeof h.msg, "%s", err->msg);
	}
	if (slc_comm_bcast(c, &h, sizeof h, err))
		goto done;
	if (!h.ok) {
		if (c->rank)
			slc_fail(err, "on rank 0: %s", h.msg);
		goto done;
	}
	if (slc_comm_slabs(c, h.nk, ghost, err))
		goto done;
	if (c->rank && !(cut = slc_calloc(h.nrec ? (size_t)h.nrec : 1, 1, err)))
		goto done;
	if (slc_comm_bcast(c, cut, (size_t)h.nrec, err))
		goto done;
	if (c->rank == 0) {
		for (r = c->size - 1; r >= 0; r--) {
			if (slc_frame_stream(c, F, cut, r, &buf, &len, err))
				goto done;     /* the others then wait: on_exit aborts */
			if (r == 0)
				break;
			n64 = len;
			if (slc_comm_send(c, &n64, sizeof n64, r, TAG_STREAM, err) ||
			    slc_comm_send(c, buf, len, r, TAG_STREAM, err))
				goto done;
			free(buf);
			buf = NULL;
		}
	} else {
		if (slc_comm_recv(c, &n64, sizeof n64, 0, TAG_STREAM, err))
			goto done;
		len = (size_t)n64;
		if (!(buf = slc_malloc(len ? len : 1, 1, err)) ||
		    slc_comm_recv(c, buf, len, 0, TAG_STREAM, err))
			goto done;
	}
	if (!io) {
		rc = stream_read(c, buf, len, cut, (size_t)h.nrec, L, err);
		goto done;
	}
	if (slc_io_share(c, io, err) ||
	    stream_read(c, buf, len, cut, (size_t)h.nrec, &T, err))
		goto done;
	rc = read_in_place(c, io, cut, (size_t)h.nrec, (long)h.frame, &T, L, err);
done:
	slc_frame_free(&T);
	free(buf);
	free(cut);
	return rc;
}

int
slc_slab_gather(slc_comm *c, const slc_rec *loc, slc_rec *out, slc_err *err)
{
	int own0, own1, r;
	uint32_t q;
	size_t per = (size_t)loc->grid.ni * (size_t)loc->grid.nj;

	slc_halo_owned(c, loc, &own0, &own1);
	if (c->rank) {
		for (q = 0; q < loc->nchan; q++) {
			const slc_chan *C = &loc->chan[q];
			size_t pb = per * C->ncomp * slc_type_size(C->type);

			if (slc_comm_send(c, (const char *)C->data + (size_t)(own0 - loc->k0) * pb,
					  (size_t)(own1 - own0) * pb, 0, TAG_PLANES, err))
				return -1;
		}
		return 0;
	}
	slc_rec_init(out, loc->kind, loc->name);
	out->time = loc->time;
	out->grid = loc->grid;
	out->grid.nk = loc->nk_all;
	for (q = 0; q < loc->nchan; q++) {
		const slc_chan *C = &loc->chan[q];
		size_t pb = per * C->ncomp * slc_type_size(C->type);
		char *d = slc_rec_add(out, C->name, C->type, C->ncomp, C->domain,
				      per * (size_t)loc->nk_all, err);

		if (!d)
			return -1;
		memcpy(d + (size_t)own0 * pb, (const char *)C->data + (size_t)(own0 - loc->k0) * pb,
		       (size_t)(own1 - own0) * pb);
		for (r = 1; r < c->size; r++) {
			int a = c->k0[r], b = r == c->size - 1 ? loc->nk_all : c->k0[r + 1];

			if (slc_comm_recv(c, d + (size_t)a * pb, (size_t)(b - a) * pb, r,
					  TAG_PLANES, err))
				return -1;
		}
	}
	return 0;
}
