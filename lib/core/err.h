/* err.h: the error value that lib/ fills in instead of printing or exiting.
 *
 * Every fallible lib/ function takes a `slc_err *` last and returns 0 on
 * success, -1 on failure with a lowercase message in err->msg (no program
 * name, no trailing newline).  Tools add the program and file name and call
 * die().  A NULL err is allowed and discards the message.
 */
#ifndef SLC_ERR_H
#define SLC_ERR_H

#include <stddef.h>

#define SLC_ERR_MAX 512

typedef struct slc_err {
	char msg[SLC_ERR_MAX];
} slc_err;

#if defined(__GNUC__)
#define SLC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SLC_PRINTF(a, b)
#endif

/* Format a message into err (if non-NULL).  Always returns -1 so that
 * `return slc_fail(err, "...")` reads naturally. */
int slc_fail(slc_err *err, const char *fmt, ...) SLC_PRINTF(2, 3);

/* Prefix the message already in err with formatted context, e.g.
 * "record 3 'u': " + "size ...".  Returns -1. */
int slc_failctx(slc_err *err, const char *fmt, ...) SLC_PRINTF(2, 3);

/* Checked size arithmetic: store a*b (a+b) in *r and return 0, or return
 * -1 on overflow with *r untouched.  Every size product in sluice goes
 * through these. */
int slc_mul(size_t a, size_t b, size_t *r);
int slc_add(size_t a, size_t b, size_t *r);
/* a*b*c, for grid sizes. */
int slc_mul3(size_t a, size_t b, size_t c, size_t *r);

/* Allocate n elements of size sz, zeroed; on overflow or exhaustion return
 * NULL with a message naming the byte count.  Caller frees with free().
 * Large blocks are aligned for transparent huge pages. */
void *slc_calloc(size_t n, size_t sz, slc_err *err);
/* The same, not zeroed. */
void *slc_malloc(size_t n, size_t sz, slc_err *err);

/* Fault injection for the tests of out-of-memory paths: the n-th
 * allocation through slc_malloc or slc_calloc from now on (n = 1: the
 * next) fails as if memory had run out, and only that one; n = 0 turns
 * it off.  The countdown is atomic, so with several threads allocating
 * exactly one allocation fails, but which thread's is not defined.  Off,
 * it costs one relaxed atomic load per allocation. */
void slc_alloc_fail_after(long n);

#endif
