/* ctest.h: a minimal TAP harness for the C tests of lib/.
 *
 * CHECK(cond, fmt, ...) prints "ok N - what" or "not ok N - what" and counts
 * failures; ctest_done() prints the plan and returns the exit status. */
#ifndef SLC_CTEST_H
#define SLC_CTEST_H

#include <stdio.h>

static int ctest_n, ctest_failed;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		int ctest_ok_ = !!(cond);                                 \
		ctest_n++;                                                \
		if (!ctest_ok_)                                           \
			ctest_failed++;                                   \
		printf("%s %d - ", ctest_ok_ ? "ok" : "not ok", ctest_n); \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
		if (!ctest_ok_)                                           \
			printf("#   at %s:%d: %s\n", __FILE__, __LINE__,     \
			       #cond);                                    \
		fflush(stdout);                                           \
	} while (0)

static inline int
ctest_done(void)
{
	printf("1..%d\n", ctest_n);
	return ctest_failed ? 1 : 0;
}

#endif
