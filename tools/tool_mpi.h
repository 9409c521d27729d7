/* tool_mpi.h: what an MPI build of a stage does around its frame
 * (compiled with -DSLC_MPI only; lib/comm/).
 *
 * Over one rank the tool runs as the serial one (stdin and stdout
 * allowed, comm NULL).  Over P > 1 ranks it needs FILE and -o FILE: MPI
 * launchers forward standard input unreliably (Open MPI in ~7 KB chunks,
 * duplicated past 64 KB by prrte 5.0.8), so no pipe goes through them.
 * Rank 0 reads and checks the frame, every rank gets its k slab
 * (comm/slabframe.h), and rank 0 gathers and writes (-o atomic).  Only
 * rank 0 prints warnings and -v figures.  (Inline: a tool that holds the
 * whole frame on every rank, clothstep or hairstep, uses only
 * tool_mpi_open.)
 */
#ifndef SLC_TOOL_MPI_H
#define SLC_TOOL_MPI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "comm/halo.h"
#include "comm/slabframe.h"

/* Start MPI after tool_parse: the communicator over P > 1 ranks, or NULL
 * over one rank (MPI finalized at exit).  P > 1 without FILE or -o FILE
 * is a usage error (exit 2), said once by rank 0. */
static inline slc_comm *
tool_mpi_open(int *argc, char ***argv, const char *path)
{
	slc_err err;
	slc_comm *c = slc_comm_open(argc, argv, &err);

	if (!c)
		die("%s", err.msg);
	if (c->rank)
		verbosity = -1;
	if (c->size == 1)
		return NULL;
	if (!path || !strcmp(path, "-") || !out_path || !strcmp(out_path, "-")) {
		int said = 1;

		/* rank 0 says it before any rank exits: the launcher stops
		 * every rank when the first exits nonzero */
		if (c->rank == 0)
			usage_say("over more than one MPI rank, give FILE and -o FILE "
				  "(no standard input or output through mpirun)");
		slc_comm_bcast(c, &said, sizeof said, &err);
		slc_comm_close(c);
		exit(2);
	}
	return c;
}

/* Read path on rank 0 into F and cut it into this rank's slabs in L,
 * on the cells of 'u', with `ghost` planes.  Dies on every rank on an
 * error; a slab too thin for its ghosts with the hint (the options that
 * set the ghosts). */
static inline void
tool_mpi_read(slc_comm *c, slc_frame *F, slc_frame *L, const char *path, int ghost,
	      const char *hint)
{
	slc_err err;

	if (c->rank == 0)
		read_frame(F, path);
	if (slc_slab_scatter(c, F, "u", ghost, L, &err))
		die("%s: %s%s", path, err.msg, strstr(err.msg, "thinner than") ? hint : "");
}

/* The index in F of record r of L, whose first n records were cut from
 * F's in order (held in first[]), or F->n for a record the stage made. */
static inline size_t
tool_mpi_origin(slc_rec *const *first, size_t n, const slc_rec *r)
{
	size_t q;

	for (q = 0; q < n; q++)
		if (first[q] == r)
			return q;
	return (size_t)-1;
}

/* Does the stage S count record r as changed (to be written anew)? */
typedef int tool_mpi_changed_fn(const void *S, const slc_rec *r);

/* Write the frame as the serial tool does, from rank 0: the records of L
 * in order, a changed slab record gathered whole (slc_slab_gather) and
 * checked finite, another changed one (and `scene`, may be NULL) from L,
 * an unchanged one passed on from F as read (first[0..nfirst-1]: L's
 * records as cut from F's, in F's order).  frame: for check_finite.
 * Collective; dies on an error. */
static inline void
tool_mpi_write(slc_comm *c, slc_frame *F, slc_frame *L, slc_rec *const *first, size_t nfirst,
	       tool_mpi_changed_fn *changed, const void *S, const slc_rec *scene, long frame,
	       int argc, char **argv)
{
	tool_out *out = c->rank == 0 ? out_open(argc, argv) : NULL;
	slc_err err;
	size_t q;

	for (q = 0; q < L->n; q++) {
		const slc_rec *r = L->r[q];
		size_t o = tool_mpi_origin(first, nfirst, r);
		int ch = r != scene && changed(S, r);

		if (r->nk_all > 0 && ch) {
			slc_rec w;

			if (slc_slab_gather(c, r, c->rank ? NULL : &w, &err))
				die("%s", err.msg);
			if (c->rank == 0) {
				check_finite(&w, frame);
				out_write(out, &w);
				slc_rec_free(&w);
			}
		} else if (c->rank == 0) {
			if (ch)
				check_finite(r, frame);
			if (ch || r == scene || o >= F->n)
				out_write(out, r);
			else
				out_pass(out, F->r[o]);
		}
	}
	if (out)
		out_close(out);
}

#endif
