/* test_cloth_alloc.c: the out-of-memory paths of the cloth (lib/cloth/):
 * every allocation of cloth_init, of cloth_advance's collision loop and
 * of cloth_set_force is made to fail in turn (slc_alloc_fail_after, core/err.h); each failure
 * must come back as -1 with a message saying that memory ran out (not
 * that a count overflowed), free what was allocated (the sanitizer build
 * checks for leaks) and leave the next attempt working. */
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "ctest.h"

/* Allocations tried before giving up on cloth_init ever succeeding. */
#define MAX_ALLOCS 1000

static void
test_init(int self)
{
	double *x, o[3] = {0, 0, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	cloth_params par;
	slc_err err;
	cloth c;
	int n, bad = 0, fails = 0;
	char first_bad[SLC_ERR_MAX + 32] = "";

	CHECK(cloth_sheet(4, 4, o, eu, ev, 1, 1, &x, &np, &tri, &nt, &err) == 0,
	      "sheet");
	double *m = malloc(np * sizeof *m);
	for (size_t i = 0; i < np; i++)
		m[i] = 1e-3;
	cloth_params_default(&par);
	par.self = self;
	for (n = 1; n < MAX_ALLOCS; n++) {
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err);
		slc_alloc_fail_after(0);
		if (rc == 0)
			break;
		fails++;
		if (!strstr(err.msg, "out of memory") || strstr(err.msg, "overflow")) {
			if (!bad++)
				snprintf(first_bad, sizeof first_bad, "allocation %d: '%s'",
					 n, err.msg);
		}
	}
	CHECK(n < MAX_ALLOCS && fails > 20,
	      "self %d: cloth_init fails at each of its %d allocations, then succeeds",
	      self, fails);
	CHECK(!bad, "self %d: every failure says out of memory (%d do not; first %s)",
	      self, bad, first_bad);
	if (n < MAX_ALLOCS)
		cloth_free(&c);
	free(x);
	free(tri);
	free(m);
}

/* cloth_advance's own buffers (the collision loop's start positions) */
static void
test_advance(void)
{
	double *x, o[3] = {0, 1, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	cloth_params par;
	slc_err err;
	cloth c;

	cloth_sheet(4, 4, o, eu, ev, 1, 1, &x, &np, &tri, &nt, &err);
	double *m = malloc(np * sizeof *m);
	for (size_t i = 0; i < np; i++)
		m[i] = 1e-3;
	cloth_params_default(&par);
	par.self = 1;
	CHECK(cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err) == 0,
	      "init: %s", err.msg);
	slc_alloc_fail_after(1);
	int rc = cloth_advance(&c, 0, 1.0 / 24, 2, NULL, 0, &err);
	slc_alloc_fail_after(0);
	CHECK(rc == -1 && strstr(err.msg, "out of memory"),
	      "cloth_advance out of memory: -1, '%s'", err.msg);
	CHECK(cloth_advance(&c, 0, 1.0 / 24, 2, NULL, 0, &err) == 0,
	      "the next advance works: %s", err.msg);
	cloth_free(&c);
	free(x);
	free(tri);
	free(m);
}

/* cloth_set_force's copy of the force: out of memory keeps the force
 * held before (none here), and the next attempt works */
static void
test_force(void)
{
	double *x, o[3] = {0, 1, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	cloth_params par;
	slc_err err;
	cloth c;

	err.msg[0] = 0;
	cloth_sheet(2, 2, o, eu, ev, 1, 1, &x, &np, &tri, &nt, &err);
	double *m = malloc(np * sizeof *m), *f = calloc(3 * np, sizeof *f);
	for (size_t i = 0; i < np; i++)
		m[i] = 1e-3;
	cloth_params_default(&par);
	CHECK(cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err) == 0,
	      "init: %s", err.msg);
	slc_alloc_fail_after(1);
	int rc = cloth_set_force(&c, f, &err);
	slc_alloc_fail_after(0);
	CHECK(rc == -1 && strstr(err.msg, "out of memory") && !c.ms.fext,
	      "cloth_set_force out of memory: -1, '%s', no force held", err.msg);
	CHECK(cloth_set_force(&c, f, &err) == 0 && c.ms.fext,
	      "the next cloth_set_force works: %s", err.msg);
	cloth_free(&c);
	free(x);
	free(tri);
	free(m);
	free(f);
}

/* the hook itself: the n-th allocation fails, only that one */
static void
test_hook(void)
{
	slc_err err;
	void *p[4];

	slc_alloc_fail_after(3);
	for (int k = 0; k < 4; k++)
		p[k] = k % 2 ? slc_malloc(8, 8, &err) : slc_calloc(8, 8, &err);
	slc_alloc_fail_after(0);
	CHECK(p[0] && p[1] && !p[2] && p[3], "the third allocation fails, only it");
	for (int k = 0; k < 4; k++)
		free(p[k]);
}

int
main(void)
{
	test_hook();
	test_init(0);
	test_init(1);
	test_advance();
	test_force();
	return ctest_done();
}
