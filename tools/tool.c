/* tool.c: the skeleton every sluice program shares (see tool.h).
 *
 * Option parsing and --help from one table, strict error helpers, stream
 * input with file-named messages, and atomic output: -o FILE is written to
 * a temp file beside it, fsync'd and renamed, and removed by die() or a
 * fatal signal, so a failed run leaves no file (or the previous one).
 */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/meta.h"
#include "core/name.h"

#define TEMP_MAX 16             /* plain and stream outputs open at once */
#define PATH_MAXLEN 4096
#define PROVENANCE_KEEP 64      /* stages remembered in the provenance */

const char *argv0 = "sluice";
int verbosity;
int progress;
const char *out_path;
int zlib_level;
int zstd_level;

static int show_help, show_version, quiet, progress_flag;
static long zlib_arg, zstd_arg;         /* -1 until given */
static char temps[TEMP_MAX][PATH_MAXLEN];       /* temp files to remove */
static char finals[TEMP_MAX][PATH_MAXLEN];      /* where they go */
static FILE *temp_files[TEMP_MAX];

const struct opt_range opt_positive = { 0, HUGE_VAL, OPEN_MIN };
const struct opt_range opt_nonneg = { 0, HUGE_VAL, 0 };
static const struct opt_range zlib_range = { 0, 9, 0 };  /* zlib's levels */
static const struct opt_range zstd_range = { 1, SLC_ZSTD_LEVEL_MAX, 0 };

static const struct tool_opt common_opts[] = {
	{ "output", 'o', OPT_STRING, &out_path, "FILE",
	  "write to FILE (atomically) instead of standard output", 0, 0, 0 },
	{ "zlib", 0, OPT_INT, &zlib_arg, "N",
	  "compress written records with zlib level N (1-9; default 0, raw)", 0, 0, &zlib_range },
	{ "zstd", 0, OPT_INT, &zstd_arg, "N",
	  "compress written records with zstd level N (1-19), byte-shuffled; not with --zlib",
	  0, 0, &zstd_range },
	{ "quiet", 'q', OPT_FLAG, &quiet, NULL, "print no warnings", 0, 0, 0 },
	{ "verbose", 'v', OPT_COUNT, &verbosity, NULL,
	  "say more on standard error (repeat for more)", 0, 0, 0 },
	{ "progress", 0, OPT_FLAG, &progress_flag, NULL,
	  "show progress even when standard error is not a terminal", 0, 0, 0 },
	{ "help", 0, OPT_FLAG, &show_help, NULL, "show this help and exit", 0, 0, 0 },
	{ "version", 0, OPT_FLAG, &show_version, NULL,
	  "show the version and exit", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

/* --- messages ---------------------------------------------------------- */

static void
remove_temps(void)
{
	int t;

	for (t = 0; t < TEMP_MAX; t++)
		if (temps[t][0]) {
			unlink(temps[t]);
			temps[t][0] = '\0';
		}
}

static void
on_signal(int sig)
{
	int t;

	/* only async-signal-safe calls here */
	for (t = 0; t < TEMP_MAX; t++)
		if (temps[t][0])
			unlink(temps[t]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Write the text s to stderr escaped (core/name.h), so that no control
 * byte from input (a record, channel or file name in a message) reaches
 * the terminal: every run of bytes between backslashes goes through
 * slc_escape, a backslash is kept.  Keeping it makes the escape
 * idempotent: text lib/ or a tool escaped already (a PLY note, slcinfo's
 * names) prints as it is, not escaped twice. */
static void
put_escaped(const char *s)
{
	char buf[SLC_ESC_BUF(256)];

	while (*s) {
		size_t n = strcspn(s, "\\");

		if (!n) {
			fputc(*s++, stderr);
			continue;
		}
		/* 256 input bytes at a time, cut only between UTF-8
		 * sequences so that a sequence is escaped whole */
		if (n > 256) {
			n = 256;
			while (n > 1 && ((unsigned char)s[n] & 0xc0) == 0x80)
				n--;
		}
		slc_escape(s, n, buf, sizeof buf);
		fputs(buf, stderr);
		s += n;
	}
}

static void
vmsg(const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list aq;
	int len;

	va_copy(aq, ap);
	len = vsnprintf(small, sizeof small, fmt, ap);
	if (len >= (int)sizeof small && (msg = malloc((size_t)len + 1)))
		vsnprintf(msg, (size_t)len + 1, fmt, aq);
	else if (len >= (int)sizeof small)
		msg = small;    /* out of memory: the message cut short */
	va_end(aq);
	fprintf(stderr, "%s: ", argv0);
	put_escaped(len < 0 ? fmt : msg);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	remove_temps();
	exit(1);
}

void
usage_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: try '%s --help'\n", argv0, argv0);
	fflush(stderr);
}

void
usage_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: try '%s --help'\n", argv0, argv0);
	remove_temps();
	exit(2);
}

void
warnmsg(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void
info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void
progressmsg(const char *fmt, ...)
{
	va_list ap;

	if (!progress)
		return;
	fprintf(stderr, "\r%s: ", argv0);
	va_start(ap, fmt);
	{
		char msg[1024];

		vsnprintf(msg, sizeof msg, fmt, ap);
		put_escaped(msg);
	}
	va_end(ap);
	fputs(isatty(2) ? "\033[K" : "\n", stderr);
}

void *
xcalloc(size_t n, size_t sz)
{
	slc_err err;
	void *p = slc_calloc(n, sz, &err);

	if (!p)
		die("%s", err.msg);
	return p;
}

/* --- options ----------------------------------------------------------- */

static void
print_opts(const struct tool_opt *o)
{
	for (; o->lng; o++) {
		char left[64];
		int n;

		n = snprintf(left, sizeof left, "  %c%c%s--%s%s%s",
			     o->shrt ? '-' : ' ', o->shrt ? o->shrt : ' ',
			     o->shrt ? ", " : "  ", o->lng, o->arg ? " " : "",
			     o->arg ? o->arg : "");
		printf("%s%*s%s\n", left, n < 28 ? 28 - n : 1, "", o->help);
		if (o->type == OPT_CHOICE && o->choices) {
			const char *const *c;

			printf("%28s(", "");
			for (c = o->choices; *c; c++)
				printf("%s%s", *c, c[1] ? ", " : ")\n");
		}
	}
}

static void
help(const struct tool_info *info)
{
	printf("Usage: %s [OPTION]... %s\n%s\n\nOptions:\n", info->name,
	       info->synopsis ? info->synopsis : "", info->summary);
	print_opts(info->opts);
	print_opts(common_opts);
	if (info->details)
		printf("\n%s\n", info->details);
	printf("\nExit status: 0 ok, 1 runtime or data error, 2 usage error.\n"
	       "See %s(1).\n", info->name);
}

static const struct tool_opt *
find_long(const struct tool_opt *o, const char *name, size_t len)
{
	for (; o->lng; o++)
		if (strlen(o->lng) == len && !strncmp(o->lng, name, len))
			return o;
	return NULL;
}

static const struct tool_opt *
find_short(const struct tool_opt *o, int c)
{
	for (; o->lng; o++)
		if (o->shrt == c)
			return o;
	return NULL;
}

/* A number outside o's range is a usage error naming the option, the
 * value and the range. */
static void
check_range(const struct tool_opt *o, double v, const char *arg)
{
	const struct opt_range *r = o->range;
	char want[96];

	if (!r || ((r->open & OPEN_MIN ? v > r->min : v >= r->min) &&
		   (r->open & OPEN_MAX ? v < r->max : v <= r->max)))
		return;
	if (isinf(r->max))
		snprintf(want, sizeof want, "%s %g", r->open & OPEN_MIN ? "more than" : "at least",
			 r->min);
	else if (!r->open)
		snprintf(want, sizeof want, "%g..%g", r->min, r->max);
	else
		snprintf(want, sizeof want, "%s%g, %g%s", r->open & OPEN_MIN ? "(" : "[", r->min,
			 r->max, r->open & OPEN_MAX ? ")" : "]");
	usage_die("--%s: %s, expected %s", o->lng, arg, want);
}

static void
set_opt(const struct tool_opt *o, const char *arg)
{
	char *end;

	switch (o->type) {
	case OPT_FLAG:
		*(int *)o->dst = 1;
		return;
	case OPT_COUNT:
		++*(int *)o->dst;
		return;
	case OPT_INT: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			usage_die("--%s: '%s' is not a whole number", o->lng, arg);
		check_range(o, (double)v, arg);
		*(long *)o->dst = v;
		return;
	}
	case OPT_DOUBLE: {
		double v = strtod(arg, &end);

		if (end == arg || *end || !isfinite(v))
			usage_die("--%s: '%s' is not a number", o->lng, arg);
		check_range(o, v, arg);
		*(double *)o->dst = v;
		return;
	}
	case OPT_STRING:
		*(const char **)o->dst = arg;
		return;
	case OPT_VEC3: {
		double *v = o->dst;
		const char *p = arg;
		int a;

		for (a = 0; a < 3; a++) {
			v[a] = strtod(p, &end);
			if (end == p || !isfinite(v[a]) || (a < 2 && *end != ',') ||
			    (a == 2 && *end))
				usage_die("--%s: '%s' is not x,y,z", o->lng, arg);
			check_range(o, v[a], arg);
			p = end + 1;
		}
		return;
	}
	case OPT_CHOICE: {
		int c;

		for (c = 0; o->choices[c]; c++)
			if (!strcmp(o->choices[c], arg)) {
				*(int *)o->dst = c;
				return;
			}
		usage_die("--%s: unknown value '%s'", o->lng, arg);
	}
	case OPT_FUNC:
		if (o->fn(arg, o->dst))
			usage_die("--%s: bad value '%s'", o->lng, arg);
		return;
	}
}

int
tool_parse(int argc, char **argv, const struct tool_info *info)
{
	char **operands = xcalloc((size_t)argc + 1, sizeof *operands);
	char *is_operand = xcalloc((size_t)argc + 1, 1);
	int a, w, nop = 0, only_operands = 0;

	argv0 = info->name;
	zlib_arg = zstd_arg = -1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, on_signal);
	for (a = 1; a < argc; a++) {
		char *s = argv[a];
		const struct tool_opt *o;
		const char *arg = NULL;

		if (only_operands || s[0] != '-' || !s[1]) {
			is_operand[a] = 1;
			operands[nop++] = s;
			continue;
		}
		if (!strcmp(s, "--")) {
			only_operands = 1;
			continue;
		}
		if (s[1] == '-') {
			char *eq = strchr(s + 2, '=');
			size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);

			o = find_long(info->opts, s + 2, len);
			if (!o)
				o = find_long(common_opts, s + 2, len);
			if (!o)
				usage_die("unknown option '%s'", s);
			if (o->type == OPT_FLAG || o->type == OPT_COUNT) {
				if (eq)
					usage_die("option '--%s' takes no value", o->lng);
			} else if (eq) {
				arg = eq + 1;
			} else if (a + 1 < argc) {
				arg = argv[++a];
			} else {
				usage_die("option '--%s' needs a value", o->lng);
			}
			set_opt(o, arg);
			continue;
		}
		/* short options: flags may be bundled, -xVALUE or -x VALUE */
		for (s++; *s; s++) {
			o = find_short(info->opts, *s);
			if (!o)
				o = find_short(common_opts, *s);
			if (!o)
				usage_die("unknown option '-%c'", *s);
			if (o->type == OPT_FLAG || o->type == OPT_COUNT) {
				set_opt(o, NULL);
				continue;
			}
			if (s[1])
				arg = s + 1;
			else if (a + 1 < argc)
				arg = argv[++a];
			else
				usage_die("option '-%c' needs a value", *s);
			set_opt(o, arg);
			break;
		}
	}
	if (show_help) {
		help(info);
		exit(0);
	}
	if (show_version) {
		printf("%s (sluice) %s\n", info->name, SLUICE_VERSION);
		exit(0);
	}
	if (quiet)
		verbosity = -1;
	if (zlib_arg >= 0 && zstd_arg >= 0)
		usage_die("--zlib %ld and --zstd %ld: give one encoding", zlib_arg, zstd_arg);
	zlib_level = zlib_arg > 0 ? (int)zlib_arg : 0;
	zstd_level = zstd_arg > 0 ? (int)zstd_arg : 0;
	progress = verbosity >= 0 && (progress_flag || isatty(2));
	/* options keep their order, operands move to the end (w <= a) */
	for (a = w = 1; a < argc; a++)
		if (!is_operand[a])
			argv[w++] = argv[a];
	for (a = 0; a < nop; a++)
		argv[w++] = operands[a];
	free(operands);
	free(is_operand);
	return argc - nop;
}

/* --- atomic files ------------------------------------------------------ */

/* The temp file of -o DIR/NAME is DIR/.NAME.tmp.PID.XXXXXX: hidden, next
 * to the output (so rename is atomic), and naming the process that writes
 * it.  die() and fatal signals remove it; only kill -9 (or a crash)
 * leaves it behind, and the next run writing the same output removes
 * every such file whose PID no longer runs.  A file of a live PID stays,
 * even when that PID now belongs to another program (reuse can only keep
 * a stale file longer, never remove a live one), and so do other users'
 * files and anything not a regular file. */
static void
split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dirlen, ".");
		*base = path;
	} else {
		snprintf(dir, dirlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

/* Remove the temp files that dead runs writing path left behind. */
static void
remove_stale_temps(const char *path)
{
	char dir[PATH_MAXLEN], prefix[PATH_MAXLEN], full[PATH_MAXLEN];
	const char *base;
	struct dirent *e;
	DIR *d;

	split_path(path, dir, sizeof dir, &base);
	if ((size_t)snprintf(prefix, sizeof prefix, ".%s.tmp.", base) >= sizeof prefix ||
	    !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		size_t plen = strlen(prefix);
		const char *p = e->d_name + plen;
		char *end;
		long pid;
		struct stat st;

		if (strncmp(e->d_name, prefix, plen))
			continue;
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || *end != '.' || strlen(end + 1) != 6)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;       /* alive, or not ours to ask about */
		if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= sizeof full)
			continue;
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlink(full);
	}
	closedir(d);
}

FILE *
plain_open(const char *path)
{
	int t, fd;
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	for (t = 0; t < TEMP_MAX && (temps[t][0] || temp_files[t]); t++)
		;
	if (t == TEMP_MAX)
		die("%s: too many outputs open", path);
	if (strlen(path) + 48 > PATH_MAXLEN)
		die("%s: path too long", path);
	snprintf(finals[t], PATH_MAXLEN, "%s", path);
	{
		/* A device or a pipe (-o /dev/null, a FIFO) is written in
		 * place: renaming a temp file over it would replace it. */
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (!(f = fopen(path, "wb")))
				die("%s: cannot open: %s", path, strerror(errno));
			temp_files[t] = f;
			return f;
		}
	}
	remove_stale_temps(path);
	{
		char dir[PATH_MAXLEN];
		const char *base;

		split_path(path, dir, sizeof dir, &base);
		snprintf(temps[t], PATH_MAXLEN, "%.*s.%s.tmp.%ld.XXXXXX", (int)(base - path), path,
			 base, (long)getpid());
	}
	fd = mkstemp(temps[t]);
	if (fd < 0) {
		temps[t][0] = '\0';
		die("%s: cannot create: %s", path, strerror(errno));
	}
	{
		/* mkstemp makes 0600; a finished file gets the usual mode */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	f = fdopen(fd, "wb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	temp_files[t] = f;
	return f;
}

/* ": " and the system's reason for a failed call, e being errno after it
 * (cleared before it); "" when the call gave none (a stream's error
 * indicator set without a failing system call). */
static const char *
reason(int e)
{
	static char buf[128];

	if (!e)
		return "";
	snprintf(buf, sizeof buf, ": %s", strerror(e));
	return buf;
}

void
plain_commit(FILE *f)
{
	int t;

	if (f == stdout) {
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout))
			die("<stdout>: write error%s", reason(errno));
		return;
	}
	for (t = 0; t < TEMP_MAX && temp_files[t] != f; t++)
		;
	if (t == TEMP_MAX)
		die("internal: commit of a file not opened by plain_open");
	errno = 0;
	if (fflush(f) != 0 || ferror(f) || (temps[t][0] && fsync(fileno(f)) != 0)) {
		int e = errno;

		fclose(f);
		die("%s: write error%s", finals[t], reason(e));
	}
	if (fclose(f) != 0)
		die("%s: write error: %s", finals[t], strerror(errno));
	temp_files[t] = NULL;
	if (!temps[t][0])
		return;         /* written in place */
	if (rename(temps[t], finals[t]) != 0)
		die("%s: cannot rename into place: %s", finals[t], strerror(errno));
	temps[t][0] = '\0';
}

/* --- stream input ------------------------------------------------------ */

struct tool_in {
	FILE *f;
	slc_reader *rd;
	const char *label;
};

tool_in *
in_open(const char *path)
{
	tool_in *in = xcalloc(1, sizeof *in);
	slc_err err;

	if (!path || !strcmp(path, "-")) {
		in->f = stdin;
		in->label = "<stdin>";
	} else {
		in->f = fopen(path, "rb");
		if (!in->f)
			die("%s: %s", path, strerror(errno));
		in->label = path;
	}
	in->rd = slc_reader_open(in->f, &err);
	if (!in->rd)
		die("%s: %s", in->label, err.msg);
	return in;
}

int
in_read(tool_in *in, slc_rec *r)
{
	slc_err err;
	int rc = slc_read(in->rd, r, &err);

	if (rc < 0)
		die("%s: %s", in->label, err.msg);
	return rc;
}

void
in_defer(tool_in *in)
{
	slc_reader_defer(in->rd, 1);
}

const char *
in_label(const tool_in *in)
{
	return in->label;
}

void
in_close(tool_in *in)
{
	slc_reader_close(in->rd);
	if (in->f != stdin)
		fclose(in->f);
	free(in);
}

void
read_frame(slc_frame *F, const char *path)
{
	tool_in *in = in_open(path);
	size_t first = F->n;
	slc_err err;

	in_defer(in);
	if (slc_frame_read(F, in->rd, &err) || slc_frame_check_finite(F, first, &err)) {
		const char *label = in->label;  /* the caller's path */

		in_close(in);   /* closed before dying: nothing left unfreed */
		die("%s: %s", label, err.msg);
	}
	in_close(in);
}

/* --- stream output ----------------------------------------------------- */

struct tool_out {
	FILE *f;
	slc_writer *w;
	slc_rec prov;           /* provenance held back until out_close */
	char *stage;            /* this run: "tool version args" */
	const char *label;
};

tool_out *
out_open(int argc, char **argv)
{
	tool_out *o = xcalloc(1, sizeof *o);
	size_t len = strlen(argv0) + strlen(SLUICE_VERSION) + 2, at;
	slc_err err;
	int a;

	for (a = 1; a < argc; a++)
		len += 4 * strlen(argv[a]) + 1;
	o->stage = xcalloc(len + 1, 1);
	at = (size_t)snprintf(o->stage, len + 1, "%s %s", argv0, SLUICE_VERSION);
	for (a = 1; a < argc; a++) {
		const char *s = argv[a];
		size_t i = 0, n = strlen(s);

		o->stage[at++] = ' ';
		/* meta values are UTF-8 (formats/slc.md, "Meta"): a byte of an
		 * argument that is not (a file name in Latin-1) becomes \xNN */
		while (i < n) {
			uint32_t cp;
			int k = slc_utf8_next(s + i, n - i, &cp);

			if (k > 0) {
				memcpy(o->stage + at, s + i, (size_t)k);
				at += (size_t)k;
				i += (size_t)k;
			} else {
				at += (size_t)snprintf(o->stage + at, len + 1 - at, "\\x%02x",
						       (unsigned char)s[i++]);
			}
		}
	}
	for (at = 0; o->stage[at]; at++)
		if (o->stage[at] == '\n')
			o->stage[at] = ' ';
	o->f = plain_open(out_path);
	o->label = out_path && strcmp(out_path, "-") ? out_path : "<stdout>";
	if (zstd_level)
		o->w = slc_writer_open_enc(o->f, SLC_ZSTD, zstd_level, &err);
	else
		o->w = slc_writer_open(o->f, zlib_level, &err);
	if (!o->w)
		die("%s: %s", o->label, err.msg);
	slc_rec_init(&o->prov, SLC_END, "");
	return o;
}

void
out_write(tool_out *o, const slc_rec *r)
{
	slc_err err;

	if (slc_write(o->w, r, &err))
		die("%s: %s", o->label, err.msg);
}

static int
is_provenance(const slc_rec *r)
{
	return r->kind == SLC_META && !strcmp(r->name, "provenance");
}

void
out_pass(tool_out *o, const slc_rec *r)
{
	slc_err err;

	if (is_provenance(r)) {
		/* a copy: the record stays the caller's, unchanged */
		slc_rec_free(&o->prov);
		if (slc_rec_copy(&o->prov, r, &err))
			die("%s: %s", o->label, err.msg);
		return;
	}
	if (slc_write_raw(o->w, r, &err))
		die("%s: %s", o->label, err.msg);
}

FILE *
out_stream(tool_out *o)
{
	return o->f;
}

const char *
out_file(const tool_out *o)
{
	int t;

	for (t = 0; t < TEMP_MAX; t++)
		if (temp_files[t] == o->f)
			return temps[t][0] ? temps[t] : NULL;
	return NULL;
}

/* Append this run as stage N+1 of the provenance, keeping the last
 * PROVENANCE_KEEP stages. */
static void
add_stage(tool_out *o)
{
	char key[32], buf[32];
	slc_err err;
	long n = 0;

	if (o->prov.kind != SLC_META && slc_meta_init(&o->prov, "provenance", &err))
		die("%s", err.msg);
	if (slc_meta_get(&o->prov, "stages", buf, sizeof buf))
		n = strtol(buf, NULL, 10);
	if (n < 0)
		n = 0;
	snprintf(key, sizeof key, "stage.%ld", n);
	snprintf(buf, sizeof buf, "%ld", n + 1);
	if (slc_meta_set(&o->prov, key, o->stage, &err) ||
	    slc_meta_set(&o->prov, "stages", buf, &err))
		die("%s", err.msg);
	snprintf(key, sizeof key, "stage.%ld", n - PROVENANCE_KEEP);
	slc_meta_unset(&o->prov, key);
}

void
out_close(tool_out *o)
{
	slc_err err;

	add_stage(o);
	out_write(o, &o->prov);
	slc_rec_free(&o->prov);
	if (slc_writer_close(o->w, &err))
		die("%s: %s", o->label, err.msg);
	plain_commit(o->f);
	free(o->stage);
	free(o);
}

/* --- numbers ----------------------------------------------------------- */

void
check_finite(const slc_rec *r, long frame)
{
	slc_err err;

	if (slc_rec_check_finite(r, frame, &err))
		die("%s", err.msg);
}

void
mesh_notes_warn(const char *label, const slc_mesh_notes *notes)
{
	/* warnmsg escapes what it prints; notes->first is escaped already */
	if (notes->nskipped == 1)
		warnmsg("%s: line %llu: unknown PLY header line skipped: %s", label,
			(unsigned long long)notes->line, notes->first);
	else if (notes->nskipped > 1)
		warnmsg("%s: line %llu: unknown PLY header line skipped: %s (and %llu more)",
			label, (unsigned long long)notes->line, notes->first,
			(unsigned long long)(notes->nskipped - 1));
}
