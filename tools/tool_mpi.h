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
 *
 * With --mpi-io (TOOL_MPI_OPTS in the tool's option table), for frames
 * larger than one machine's memory: the raw grid records on the cells of
 * 'u' are read and written in place by every rank, its own planes
 * (comm/mpiio.h), and only the other records pass through rank 0; even
 * over one rank the frame goes this way.
 */
#ifndef SLC_TOOL_MPI_H
#define SLC_TOOL_MPI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "comm/halo.h"
#include "comm/mpiio.h"
#include "comm/slabframe.h"

/* --mpi-io: raw grid records read and written in place by every rank. */
static int tool_mpi_io;

/* Where the frame's records are in the file read (--mpi-io). */
static slc_io tool_io;

/* Die of an error every rank has (a collective's): rank 0 says it and
 * exits, which stops the others (comm/mpicomm.h: MPI_Abort at exit),
 * waiting meanwhile; one message, never cut short by another rank's
 * exit. */
#define tool_mpi_die(c, ...)                                \
	do {                                                \
		if ((c)->rank == 0)                         \
			die(__VA_ARGS__);                   \
		MPI_Barrier((c)->c);                        \
		die(__VA_ARGS__);                           \
	} while (0)

/* The MPI builds' options, for the tool's option table. */
#define TOOL_MPI_OPTS                                                              \
	{ "mpi-io", 0, OPT_FLAG, &tool_mpi_io, NULL,                               \
	  "MPI: each rank reads and writes its planes of the raw grid records "    \
	  "in place (MPI-IO); FILE and -o FILE", 0, 0, 0 },

/* At a successful exit, under -v (rank 0): the communication counts
 * (comm/mpicomm.h), in one line of a stable format for scripts:
 * "comm: ranks=P wall=S halo=N,B,S reduce=N,B,S gather=N,B,S
 * frame=N,B,S share=F". */
static void
tool_mpi_report(int status, void *arg)
{
	slc_comm_time t;
	char line[512];
	size_t at;
	int k;

	if (status || verbosity < 1)
		return;
	slc_comm_time_get(&t);
	at = (size_t)snprintf(line, sizeof line, "comm: ranks=%d wall=%.6f", *(int *)arg, t.wall);
	for (k = 0; k < SLC_COMM_NKIND && at < sizeof line; k++)
		at += (size_t)snprintf(line + at, sizeof line - at, " %s=%llu,%llu,%.6f",
				       slc_comm_kind_name[k], (unsigned long long)t.calls[k],
				       (unsigned long long)t.bytes[k], t.sec[k]);
	if (at < sizeof line)
		snprintf(line + at, sizeof line - at, " share=%.4f",
			 t.wall > 0 ? (t.sec[SLC_COMM_HALO] + t.sec[SLC_COMM_REDUCE] +
				       t.sec[SLC_COMM_GATHER]) / t.wall : 0.0);
	info("%s", line);
}

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
	if (c->size == 1 && !tool_mpi_io)
		return NULL;
	{
		static int ranks;

		ranks = c->size;
		on_exit(tool_mpi_report, &ranks);
	}
	if (!path || !strcmp(path, "-") || !out_path || !strcmp(out_path, "-")) {
		int said = 1;

		/* rank 0 says it before any rank exits: the launcher stops
		 * every rank when the first exits nonzero */
		if (c->rank == 0)
			usage_say(tool_mpi_io ? "--mpi-io reads FILE and writes -o FILE in place" :
				  "over more than one MPI rank, give FILE and -o FILE "
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
	int rc;

	/* read anew when called again (wider ghosts) */
	slc_frame_free(F);
	slc_frame_init(F);
	slc_io_free(&tool_io);
	if (!tool_mpi_io) {
		if (c->rank == 0)
			read_frame(F, path);
		rc = slc_slab_scatter(c, F, "u", ghost, L, &err);
	} else {
		if (c->rank == 0 && slc_io_scan(path, "u", F, &tool_io, &err))
			die("%s: %s", path, err.msg);
		if (slc_io_open(c, &tool_io, path, 0, &err))
			tool_mpi_die(c, "%s: %s", path, err.msg);
		rc = slc_slab_scatter_io(c, F, &tool_io, "u", ghost, L, &err);
		if (slc_io_close(c, &tool_io, rc ? NULL : &err))
			rc = -1;
	}
	if (rc)
		tool_mpi_die(c, "%s: %s%s", path, err.msg,
			     strstr(err.msg, "thinner than") ? hint : "");
}

/* With --mpi-io: the output's temp file open on every rank for writing
 * in place; dies on every rank when -o FILE is not a regular file. */
static inline void
tool_mpi_io_out(slc_comm *c, tool_out *out)
{
	char path[4096] = "";
	const char *f = out ? out_file(out) : NULL;
	slc_err err;

	if (f && strlen(f) < sizeof path)
		snprintf(path, sizeof path, "%s", f);
	if (slc_comm_bcast(c, path, sizeof path, &err))
		die("%s", err.msg);
	if (!path[0])
		tool_mpi_die(c, "--mpi-io: -o %s: not a regular file written through a temp file "
		    "(the ranks write into it in place)", out_path);
	if (slc_io_open(c, &tool_io, path, 1, &err))
		tool_mpi_die(c, "%s: %s", out_path, err.msg);
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
	tool_out *out = NULL;
	slc_err err;
	size_t q;
	int a, n = 0;

	/* --mpi-io says how the bytes move, not what they are: the
	 * provenance records the run as the serial tool's */
	for (a = 0; a < argc; a++)
		if (strcmp(argv[a], "--mpi-io"))
			argv[n++] = argv[a];
	if (c->rank == 0)
		out = out_open(n, argv);
	if (tool_mpi_io)
		tool_mpi_io_out(c, out);
	for (q = 0; q < L->n; q++) {
		const slc_rec *r = L->r[q];
		/* F is rank 0's: the others know its records from tool_io */
		size_t o = tool_mpi_origin(first, tool_mpi_io ? tool_io.n : nfirst, r);
		int ch = r != scene && changed(S, r);
		const slc_io_rec *e = o < tool_io.n ? &tool_io.rec[o] : NULL;
		int from_file = e && e->head;

		/* in place: a record read so, unchanged (its head as read),
		 * or changed and written raw; a zlib one through rank 0 */
		if (tool_mpi_io && r->nk_all > 0 && ((from_file && !ch) || (ch && !zlib_level))) {
			if ((ch && slc_io_check_finite(c, r, frame, &err)) ||
			    slc_io_write_slab(c, &tool_io, out ? out_stream(out) : NULL, r,
					      ch ? NULL : e->head, ch ? 0 : e->head_len, &err))
				tool_mpi_die(c, "%s", err.msg);
		} else if (r->nk_all > 0 && ch) {
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
	if (slc_io_close(c, &tool_io, &err))
		tool_mpi_die(c, "%s: %s", out_path, err.msg);
	slc_io_free(&tool_io);
	if (out)
		out_close(out);
}

#endif
