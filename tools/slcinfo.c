/* slcinfo: list and verify the records of sluice streams.
 *
 * For each record: kind, name, time, encoding, sizes and placement, and
 * per channel min/max/mean and NaN/Inf counts.  Every checksum and size is
 * verified by reading; any damage ends the listing with exit 1.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tool.h"
#include "../lib/meta.h"

static int json, no_stats;

static const struct tool_opt opts[] = {
	{ "json", 'j', OPT_FLAG, &json, NULL, "print JSON for scripts", 0, 0 },
	{ "no-stats", 0, OPT_FLAG, &no_stats, NULL,
	  "skip per-channel statistics (faster on large grids)", 0, 0 },
	{ 0, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct tool_info tinfo = {
	"slcinfo", "List and verify the records of sluice streams.",
	"[FILE]...",
	"With no FILE, or FILE -, read standard input.  The listing goes to "
	"standard output; a damaged\nor truncated stream is reported on "
	"standard error and exits 1.",
	opts
};

struct stats {
	double min, max, sum;
	uint64_t n, nnan, ninf;
};

static void
chan_stats(const slc_chan *c, struct stats *s)
{
	uint64_t q, n = c->count * c->ncomp;

	memset(s, 0, sizeof *s);
	s->min = INFINITY;
	s->max = -INFINITY;
	for (q = 0; q < n; q++) {
		double v;

		switch (c->type) {
		case SLC_U8: v = ((const uint8_t *)c->data)[q]; break;
		case SLC_I32: v = ((const int32_t *)c->data)[q]; break;
		case SLC_U32: v = ((const uint32_t *)c->data)[q]; break;
		case SLC_F32: v = ((const float *)c->data)[q]; break;
		case SLC_F64: v = ((const double *)c->data)[q]; break;
		case SLC_I64: v = (double)((const int64_t *)c->data)[q]; break;
		default: v = (double)((const uint64_t *)c->data)[q]; break;
		}
		if (isnan(v)) {
			s->nnan++;
			continue;
		}
		if (isinf(v)) {
			s->ninf++;
			continue;
		}
		if (v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
		s->sum += v;
		s->n++;
	}
}

static void
json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* JSON has no NaN or Inf: a channel with no finite value reports null. */
static void
json_num(double v)
{
	if (isfinite(v))
		printf("%.9g", v);
	else
		printf("null");
}

static int
print_meta_line(const char *key, const char *value, void *arg)
{
	int *first = arg;

	if (json) {
		printf("%s", *first ? "" : ",");
		json_str(key);
		putchar(':');
		json_str(value);
	} else {
		printf("    %s=%s\n", key, value);
	}
	*first = 0;
	return 0;
}

static void
print_record(const slc_rec *r, uint64_t index, int first)
{
	uint32_t c;

	if (json) {
		printf("%s\n    {\"index\":%llu,\"kind\":", first ? "" : ",",
		       (unsigned long long)index);
		json_str(slc_kind_name(r->kind));
		printf(",\"kind_code\":%u,\"name\":", r->kind);
		json_str(r->name);
		printf(",\"time\":");
		json_num(r->time);
		printf(",\"encoding\":\"%s\",\"bytes\":%zu",
		       r->encoding == SLC_ZLIB ? "zlib" : "raw", r->stored_len);
		if (r->kind == SLC_GRID)
			printf(",\"dims\":[%d,%d,%d],\"stagger\":\"%s\",\"origin\":[%.17g,%.17g,%.17g],\"dx\":%.17g",
			       r->grid.ni, r->grid.nj, r->grid.nk,
			       slc_stagger_name(r->grid.stagger), r->grid.origin[0],
			       r->grid.origin[1], r->grid.origin[2], r->grid.dx);
		if (r->kind == SLC_META) {
			int f = 1;

			printf(",\"meta\":{");
			slc_meta_each(r, print_meta_line, &f);
			printf("}");
		}
		printf(",\"channels\":[");
	} else {
		printf("%llu %s '%s' time %g, %s, %zu bytes\n",
		       (unsigned long long)index, slc_kind_name(r->kind), r->name,
		       r->time, r->encoding == SLC_ZLIB ? "zlib" : "raw",
		       r->stored_len);
		if (r->kind == SLC_GRID)
			printf("  %dx%dx%d %s, origin (%g, %g, %g), dx %g\n",
			       r->grid.ni, r->grid.nj, r->grid.nk,
			       slc_stagger_name(r->grid.stagger), r->grid.origin[0],
			       r->grid.origin[1], r->grid.origin[2], r->grid.dx);
	}
	for (c = 0; c < r->nchan; c++) {
		const slc_chan *ch = &r->chan[c];
		struct stats s;

		/* metadata text is listed as lines, not as numbers */
		int stats = !no_stats && r->kind != SLC_META;

		if (stats)
			chan_stats(ch, &s);
		if (json) {
			printf("%s{\"name\":", c ? "," : "");
			json_str(ch->name);
			printf(",\"type\":\"%s\",\"ncomp\":%u,\"domain\":\"%s\",\"count\":%llu",
			       slc_type_name(ch->type), ch->ncomp,
			       slc_domain_name(ch->domain),
			       (unsigned long long)ch->count);
			if (stats) {
				printf(",\"min\":");
				json_num(s.n ? s.min : NAN);
				printf(",\"max\":");
				json_num(s.n ? s.max : NAN);
				printf(",\"mean\":");
				json_num(s.n ? s.sum / (double)s.n : NAN);
				printf(",\"nan\":%llu,\"inf\":%llu",
				       (unsigned long long)s.nnan,
				       (unsigned long long)s.ninf);
			}
			printf("}");
			continue;
		}
		printf("  %-12s %s x%u %s %llu", ch->name, slc_type_name(ch->type),
		       ch->ncomp, slc_domain_name(ch->domain),
		       (unsigned long long)ch->count);
		if (stats && s.n)
			printf("  min %g max %g mean %g", s.min, s.max,
			       s.sum / (double)s.n);
		if (stats && (s.nnan || s.ninf))
			printf("  NaN %llu Inf %llu", (unsigned long long)s.nnan,
			       (unsigned long long)s.ninf);
		putchar('\n');
	}
	if (json)
		printf("]}");
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
			die("%s: %s", path, strerror(errno));
	} else {
		path = "<stdin>";
	}
	rd = slc_reader_open(f, &err);
	if (!rd)
		die("%s: %s", path, err.msg);
	if (json) {
		printf("%s\n  {\"file\":", first_file ? "" : ",");
		json_str(path);
		printf(",\"records\":[");
	} else {
		printf("%s:\n", path);
	}
	while ((rc = slc_read(rd, &r, &err)) > 0) {
		print_record(&r, slc_reader_index(rd) - 1, n == 0);
		slc_rec_free(&r);
		n++;
	}
	if (json) {
		printf("],\"ok\":%s", rc < 0 ? "false" : "true");
		if (rc < 0) {
			printf(",\"error\":");
			json_str(err.msg);
		}
		printf("}");
	}
	fflush(stdout);
	if (rc < 0)   /* damage is an error, reported even with -q */
		fprintf(stderr, "%s: %s: %s\n", argv0, path, err.msg);
	slc_reader_close(rd);
	if (f != stdin)
		fclose(f);
	return rc < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	int first = tool_parse(argc, argv, &tinfo), a, bad = 0;

	if (out_path)
		usage_die("-o: slcinfo writes its listing to standard output");
	if (json)
		printf("{\"streams\":[");
	if (first == argc)
		bad |= list(NULL, 1);
	for (a = first; a < argc; a++)
		bad |= list(argv[a], a == first);
	if (json)
		printf("\n]}\n");
	if (fflush(stdout) != 0)
		die("<stdout>: write error");
	return bad ? 1 : 0;
}
