/* test_tool.c: the stream output of the tool skeleton (tools/tool.h).
 *
 * out_pass leaves the record it is given as it was, a provenance record
 * included (it is copied, then merged into the one out_close writes), and
 * out_close names a write error with the system's reason only when a
 * failing system call gave one: a stream that fails without one (here a
 * stream of fopencookie whose write returns -1 and leaves errno alone)
 * gets no stale strerror(errno) appended.
 *
 * tools/tool.c is not in libsluice.a, so it is compiled in here.
 */
#define _GNU_SOURCE             /* fopencookie */
#include "../../tools/tool.c"

#include <sys/wait.h>

#include "ctest.h"
#include "core/frame.h"

static char *test_argv[] = { "test_tool", NULL };

/* out_pass of a provenance record: the caller's record is unchanged, and
 * the stream written carries its stages and this run's after them. */
static void
test_pass_keeps_record(void)
{
	char path[] = "/tmp/test_tool.XXXXXX", val[128];
	slc_rec prov;
	slc_frame F;
	slc_reader *rd;
	slc_err err;
	tool_out *o;
	FILE *f;
	int fd = mkstemp(path);
	const slc_rec *back;

	CHECK(fd >= 0, "a temp file");
	close(fd);
	slc_meta_init(&prov, "provenance", &err);
	slc_meta_set(&prov, "stage.0", "mkprim 0.1.0 sphere", &err);
	slc_meta_set(&prov, "stages", "1", &err);
	out_path = path;
	o = out_open(1, test_argv);
	out_pass(o, &prov);
	CHECK(prov.kind == SLC_META && !strcmp(prov.name, "provenance") &&
	      slc_meta_get(&prov, "stage.0", val, sizeof val) && !strcmp(val, "mkprim 0.1.0 sphere"),
	      "out_pass leaves the provenance record it is given as it was (kind %u, '%s')",
	      prov.kind, prov.name);
	out_close(o);
	out_path = NULL;
	slc_rec_free(&prov);

	slc_frame_init(&F);
	f = fopen(path, "rb");
	rd = f ? slc_reader_open(f, &err) : NULL;
	CHECK(rd && slc_frame_read(&F, rd, &err) == 0, "the output reads back");
	back = slc_frame_find(&F, "provenance", SLC_META);
	CHECK(back && slc_meta_get(back, "stage.0", val, sizeof val) &&
	      !strcmp(val, "mkprim 0.1.0 sphere"), "the stages passed on are kept");
	CHECK(back && slc_meta_get(back, "stage.1", val, sizeof val) &&
	      !strcmp(val, "sluice " SLUICE_VERSION), "this run is the next stage ('%s')",
	      back ? val : "");
	if (rd)
		slc_reader_close(rd);
	if (f)
		fclose(f);
	slc_frame_free(&F);
	unlink(path);
}

/* A stream that refuses every write without saying why. */
static ssize_t
refuse(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	(void)n;
	return -1;
}

/* out_close on such a stream, errno left at EACCES by something before:
 * "write error" alone, not "write error: Permission denied". */
static void
test_close_reason(void)
{
	char path[] = "/tmp/test_tool.XXXXXX", msg[256] = "";
	int fd = mkstemp(path), status = 0;
	pid_t pid;
	FILE *f;

	CHECK(fd >= 0, "a temp file for the message");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		cookie_io_functions_t io = { NULL, refuse, NULL, NULL };
		tool_out *o;

		dup2(fd, 2);
		stdout = fopencookie(NULL, "w", io);
		if (!stdout)
			_exit(3);
		argv0 = "test_tool";
		o = out_open(1, test_argv);
		errno = EACCES;
		out_close(o);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	f = fdopen(fd, "r");
	rewind(f);
	if (!fgets(msg, sizeof msg, f))
		msg[0] = '\0';
	fclose(f);
	unlink(path);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "out_close dies with status 1 (%d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	CHECK(!strcmp(msg, "test_tool: <stdout>: write error\n"),
	      "a write error no system call explained has no strerror: %.*s",
	      (int)strcspn(msg, "\n"), msg);
}

int
main(void)
{
	test_pass_keeps_record();
	test_close_reason();
	return ctest_done();
}
