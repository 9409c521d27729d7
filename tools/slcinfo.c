/* slcinfo: list and verify the records of sluice streams.
 *
 * For each record: kind, name, time, encoding, sizes and placement, and
 * per channel min/max/mean and NaN/Inf counts.  Every checksum and size is
 * verified by reading; any damage ends the listing with exit 1.  Names,
 * meta text and messages from a stream are printed escaped
 * (core/name.h), so that no byte of a stream reaches the terminal as a
 * control or forges a line of the listing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "core/meta.h"
#include "core/name.h"

static int json, no_stats;
static FILE *out;       /* the listing: stdout, or the temp file of -o */

static const struct tool_opt opts[] = {
	{ "json", 'j', OPT_FLAG, &json, NULL, "print JSON for scripts", 0, 0, 0 },
	{ "no-stats", 0, OPT_FLAG, &no_stats, NULL,
	  "skip per-channel statistics (faster on large grids)", 0, 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"slcinfo", "List and verify the records of sluice streams.",
	"[FILE]...",
	"With no FILE, or FILE -, read standard input.  The listing goes to "
	"standard output, or to\n-o FILE, which is left unwritten when an "
	"input is damaged; a damaged or truncated\nstream is reported on "
	"standard error and exits 1.  slcinfo writes no records: --zlib has "
	"no\neffect.",
	opts
};

/* A JSON string: valid UTF-8 is kept as it is, the characters slc_escape
 * would escape become \uXXXX (so that the text stays exact), and a byte
 * that is not UTF-8 becomes U+FFFD, the replacement character (JSON
 * cannot hold it). */
static void
json_str(const char *s)
{
	size_t i = 0, len = strlen(s);

	fputc('"', out);
	while (i < len) {
		uint32_t cp;
		int n = slc_utf8_next(s + i, len - i, &cp);

		if (n == 0) {
			fputs("\\ufffd", out);
			n = 1;
		} else if (cp == '"' || cp == '\\') {
			fprintf(out, "\\%c", (int)cp);
		} else if (!slc_cp_kept(cp)) {
			fprintf(out, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(s + i, 1, (size_t)n, out);
		}
		i += (size_t)n;
	}
	fputc('"', out);
}

/* A name or text from a stream, escaped for the listing; each of the
 * SLOTS calls in one printf gets its own buffer, grown to fit. */
#define SLOTS 4
static const char *
esc(const char *s)
{
	static char *buf[SLOTS];
	static size_t cap[SLOTS];
	static int slot;
	size_t need = SLC_ESC_BUF(strlen(s));

	slot = (slot + 1) % SLOTS;
	if (cap[slot] < need) {
		free(buf[slot]);
		buf[slot] = xcalloc(need, 1);
		cap[slot] = need;
	}
	return slc_escstr(s, buf[slot], cap[slot]);
}

/* JSON has no NaN or Inf: a channel with no finite value reports null. */
static void
json_num(double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
	else
		fprintf(out, "null");
}

static int
print_meta_line(const char *key, const char *value, void *arg)
{
	int *first = arg;

	if (json) {
		fprintf(out, "%s", *first ? "" : ",");
		json_str(key);
		fputc(':', out);
		json_str(value);
	} else {
		fprintf(out, "    %s=%s\n", esc(key), esc(value));
	}
	*first = 0;
	return 0;
}

static void
print_record(const slc_rec *r, uint64_t index, int first)
{
	uint32_t c;

	if (json) {
		fprintf(out, "%s\n    {\"index\":%llu,\"kind\":", first ? "" : ",",
		        (unsigned long long)index);
		json_str(slc_kind_name(r->kind));
		fprintf(out, ",\"kind_code\":%u,\"name\":", r->kind);
		json_str(r->name);
		fprintf(out, ",\"time\":");
		json_num(r->time);
		fprintf(out, ",\"encoding\":\"%s\",\"bytes\":%zu",
		        slc_encoding_name(r->encoding), r->stored_len);
		if (r->kind == SLC_GRID)
			fprintf(out, ",\"dims\":[%d,%d,%d],\"stagger\":\"%s\",\"origin\":[%.17g,%.17g,%.17g],\"dx\":%.17g",
			        r->grid.ni, r->grid.nj, r->grid.nk,
			        slc_stagger_name(r->grid.stagger), r->grid.origin[0],
			        r->grid.origin[1], r->grid.origin[2], r->grid.dx);
		if (r->kind == SLC_META) {
			int f = 1;

			fprintf(out, ",\"meta\":{");
			slc_meta_each(r, print_meta_line, &f);
			fprintf(out, "}");
		}
		fprintf(out, ",\"channels\":[");
	} else {
		fprintf(out, "%llu %s '%s' time %g, %s, %zu bytes\n",
		        (unsigned long long)index, slc_kind_name(r->kind), esc(r->name),
		        r->time, slc_encoding_name(r->encoding),
		        r->stored_len);
		if (r->kind == SLC_GRID)
			fprintf(out, "  %dx%dx%d %s, origin (%g, %g, %g), dx %g\n",
			        r->grid.ni, r->grid.nj, r->grid.nk,
			        slc_stagger_name(r->grid.stagger), r->grid.origin[0],
			        r->grid.origin[1], r->grid.origin[2], r->grid.dx);
	}
	for (c = 0; c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];
		slc_chan_stats s;

		/* metadata text is listed as lines, not as numbers */
		int stats = !no_stats && r->kind != SLC_META;

		if (stats)
			slc_chan_stats_get(ch, &s);
		if (json) {
			fprintf(out, "%s{\"name\":", c ? "," : "");
			json_str(ch->name);
			fprintf(out, ",\"type\":\"%s\",\"ncomp\":%u,\"domain\":\"%s\",\"count\":%llu",
			        slc_type_name(ch->type), ch->ncomp,
			        slc_domain_name(ch->domain),
			        (unsigned long long)ch->count);
			if (stats) {
				fprintf(out, ",\"min\":");
				json_num(s.n ? s.min : NAN);
				fprintf(out, ",\"max\":");
				json_num(s.n ? s.max : NAN);
				fprintf(out, ",\"mean\":");
				json_num(s.n ? s.sum / (double)s.n : NAN);
				fprintf(out, ",\"nan\":%llu,\"inf\":%llu",
				        (unsigned long long)s.nnan,
				        (unsigned long long)s.ninf);
			}
			fprintf(out, "}");
			continue;
		}
		fprintf(out, "  %-12s %s x%u %s %llu", esc(ch->name), slc_type_name(ch->type),
		        ch->ncomp, slc_domain_name(ch->domain),
		        (unsigned long long)ch->count);
		if (stats && s.n)
			fprintf(out, "  min %g max %g mean %g", s.min, s.max,
			        s.sum / (double)s.n);
		if (stats && (s.nnan || s.ninf))
			fprintf(out, "  NaN %llu Inf %llu", (unsigned long long)s.nnan,
			        (unsigned long long)s.ninf);
		fputc('\n', out);
	}
	if (json)
		fprintf(out, "]}");
	else if (r->kind == SLC_META)
		slc_meta_each(r, print_meta_line, &(int){ 1 });
}

/* List one stream; returns 0, or -1 after reporting damage. */
static int
list(const char *path, int first_file)
{
	FILE *f = stdin;
	slc_reader *rd;
	slc_rec r;
	slc_err err;
	uint64_t n = 0;
	int rc;

	if (path && strcmp(path, "-")) {
		f = fopen(path, "rb");
		if (!f)
			die("%s: %s", esc(path), strerror(errno));
	} else {
		path = "<stdin>";
	}
	rd = slc_reader_open(f, &err);
	if (!rd)
		die("%s: %s", esc(path), esc(err.msg));
	/* a listing without values checks every record but decodes none */
	if (no_stats)
		slc_reader_defer(rd, 1);
	if (json) {
		fprintf(out, "%s\n  {\"file\":", first_file ? "" : ",");
		json_str(path);
		fprintf(out, ",\"records\":[");
	} else {
		fprintf(out, "%s:\n", esc(path));
	}
	while ((rc = slc_read(rd, &r, &err)) > 0) {
		print_record(&r, slc_reader_index(rd) - 1, n == 0);
		slc_rec_free(&r);
		n++;
	}
	if (json) {
		fprintf(out, "],\"ok\":%s", rc < 0 ? "false" : "true");
		if (rc < 0) {
			fprintf(out, ",\"error\":");
			json_str(err.msg);
		}
		fprintf(out, "}");
	}
	fflush(out);
	if (rc < 0)   /* damage is an error, reported even with -q */
		fprintf(stderr, "%s: %s: %s\n", argv0, esc(path), esc(err.msg));
	slc_reader_close(rd);
	if (f != stdin)
		fclose(f);
	return rc < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), a, bad = 0;

	out = plain_open(out_path);
	if (json)
		fprintf(out, "{\"streams\":[");
	if (first == argc)
		bad |= list(NULL, 1);
	for (a = first; a < argc; a++)
		bad |= list(argv[a], a == first);
	if (json)
		fprintf(out, "\n]}\n");
	if (bad && out != stdout)
		die("%s: not written: an input is damaged", out_path);
	plain_commit(out);
	return bad ? 1 : 0;
}
