/* tool.h: the skeleton every sluice program shares.
 *
 * One option table per tool generates --help and parses argv; the common
 * options (--help, --version, -q, -v, -o FILE, --zlib N, --zstd N,
 * --progress) are added by tool_parse().  Input and output go through tool_in / tool_out,
 * which name the file in every message, write -o FILE atomically (temp
 * file, fsync, rename) and keep the provenance record up to date.  Only
 * tools call die(); lib/ returns errors.
 *
 * Exit status: 0 ok, 1 runtime or data error (die), 2 usage error
 * (usage_die).
 */
#ifndef SLC_TOOL_H
#define SLC_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "core/frame.h"
#include "core/slc.h"
#include "io/meshio.h"

#define SLUICE_VERSION "0.1.0"

enum opt_type {
	OPT_FLAG,       /* int*, set to 1; no argument */
	OPT_INT,        /* long*, decimal */
	OPT_DOUBLE,     /* double*, finite */
	OPT_STRING,     /* const char** */
	OPT_VEC3,       /* double[3], "x,y,z" */
	OPT_CHOICE,     /* int*, index into the NULL-terminated opt.choices */
	OPT_FUNC,       /* opt.fn(arg, dst) returns 0, or -1 for a bad value */
	OPT_COUNT       /* int*, one more each time given; no argument */
};

/* The values an OPT_INT, OPT_DOUBLE or OPT_VEC3 (each component) may
 * take: min..max, either end open (excluded) by OPEN_MIN, OPEN_MAX.
 * tool_parse refuses any other with "--NAME: VALUE, expected RANGE". */
struct opt_range {
	double min, max;
	int open;               /* OPEN_MIN | OPEN_MAX */
};
#define OPEN_MIN 1
#define OPEN_MAX 2
extern const struct opt_range opt_positive;     /* more than 0 */
extern const struct opt_range opt_nonneg;       /* at least 0 */

struct tool_opt {
	const char *lng;        /* long name without "--" */
	int shrt;               /* short letter, or 0 */
	enum opt_type type;
	void *dst;
	const char *arg;        /* metavariable shown in --help, e.g. "N" */
	const char *help;       /* one line; the default is stated here */
	const char *const *choices;          /* OPT_CHOICE only */
	int (*fn)(const char *arg, void *dst); /* OPT_FUNC only */
	const struct opt_range *range;       /* or NULL: any finite value */
};

struct tool_info {
	const char *name;       /* program name */
	const char *summary;    /* one line: what the stage does */
	const char *synopsis;   /* operands after the options, e.g. "[FILE]" */
	const char *details;    /* optional paragraph after the options */
	const struct tool_opt *opts; /* terminated by an entry with lng NULL */
};

/* Set by tool_parse from the common options. */
extern const char *argv0;       /* program name, for messages */
extern int verbosity;           /* -1 with -q, 0 normal, 1+ with -v */
extern int progress;            /* --progress given or stderr is a tty */
extern const char *out_path;    /* -o FILE, or NULL for stdout */
extern int zlib_level;          /* --zlib N, 0 = raw */
extern int zstd_level;          /* --zstd N, 0 = not zstd */

/* Parse argv against info->opts plus the common options.  Handles --help
 * and --version (exit 0) and usage errors (exit 2).  Returns the index of
 * the first operand. */
int tool_parse(int argc, char **argv, const struct tool_info *info);

/* Print "argv0: message\n" to stderr, remove any temp output, exit 1. */
_Noreturn void die(const char *fmt, ...) SLC_PRINTF(1, 2);
/* The same with exit 2 and a pointer to --help. */
_Noreturn void usage_die(const char *fmt, ...) SLC_PRINTF(1, 2);

/* usage_die's message without the exit, for a caller that must first
 * let other processes know (the MPI builds' ranks). */
void usage_say(const char *fmt, ...) SLC_PRINTF(1, 2);
/* Messages to stderr: warn unless -q; info only with -v. */
void warnmsg(const char *fmt, ...) SLC_PRINTF(1, 2);
void info(const char *fmt, ...) SLC_PRINTF(1, 2);
/* Progress line ("\r..." on a tty) only when progress is on. */
void progressmsg(const char *fmt, ...) SLC_PRINTF(1, 2);

/* Allocation that dies with the byte count on failure or overflow. */
void *xcalloc(size_t n, size_t sz);

/* --- input ---------------------------------------------------------- */
typedef struct tool_in tool_in;
/* Open path ("-" or NULL: stdin) as a stream; dies on failure. */
tool_in *in_open(const char *path);
/* Read the next record: 1, or 0 at the end.  Dies on damage with
 * "argv0: path: record N 'name' at byte B: ...". */
int in_read(tool_in *in, slc_rec *r);
/* Keep the zlib grid, particles and unknown-kind records of in encoded
 * (slc_reader_defer): for a tool that passes records on unused.  The
 * tool then calls slc_rec_decode on every record whose data it reads. */
void in_defer(tool_in *in);
/* The label used in messages ("<stdin>" or the path). */
const char *in_label(const tool_in *in);
void in_close(tool_in *in);

/* Append every record of the stream at path ("-" or NULL: stdin) to the
 * frame F; dies on damage or out of memory, naming the input.  zlib
 * grids and particles stay encoded (in_defer): the stage reaches them
 * through slc_frame_get / slc_frame_find_unique / slc_frame_decode
 * (core/frame.h), which decode them and check them finite, and passes
 * the others on as stored.  Every float channel of every decoded record
 * must be finite (slc_frame_check_finite): a NaN or Inf dies naming the
 * input, record, channel and first bad element, before any step. */
void read_frame(slc_frame *F, const char *path);

/* --- output --------------------------------------------------------- */
typedef struct tool_out tool_out;
/* Open the output: -o FILE (via a temp file in the same directory) or
 * stdout.  argc/argv are recorded in the provenance record. */
tool_out *out_open(int argc, char **argv);
/* Write a record built or changed by the tool. */
void out_write(tool_out *o, const slc_rec *r);
/* Pass on a record the tool did not touch, byte-identical.  A provenance
 * metadata record is copied and held back, to be merged into the one
 * out_close writes; r itself is never changed and stays the caller's. */
void out_pass(tool_out *o, const slc_rec *r);
/* Write provenance and the end record, flush, fsync and rename -o FILE
 * into place.  Dies on any write error, naming the output, with the
 * system's reason only when a failing system call gave one. */
void out_close(tool_out *o);

/* The output's stream and the file it is being written to (the temp
 * file of -o FILE; NULL for standard output or a device written in
 * place): for the MPI builds, whose ranks write parts of records into
 * that file themselves (comm/mpiio.h) while rank 0 writes the rest. */
FILE *out_stream(tool_out *o);
const char *out_file(const tool_out *o);

/* Open a plain (non-stream) output file such as PNG or OBJ, atomically:
 * returns a FILE on a temp file (or stdout for path "-" / NULL); commit
 * with plain_commit, which fsyncs and renames.  die() removes the temp. */
FILE *plain_open(const char *path);
void plain_commit(FILE *f);

/* Die if a float/double channel of r holds NaN or Inf, naming the field,
 * the frame (or time when frame < 0) and the first bad sample: the check
 * of a record a tool computed, before writing it (records read are
 * checked by read_frame). */
void check_finite(const slc_rec *r, long frame);

/* Warn (unless -q) about the PLY header lines a mesh reader skipped in
 * file label: the first one, and how many more. */
void mesh_notes_warn(const char *label, const slc_mesh_notes *notes);

#endif
