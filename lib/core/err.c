/* err.c: error messages, checked size arithmetic and allocation for lib/. */
#include "core/err.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Buffers of at least SLC_HUGE_MIN bytes are aligned to SLC_HUGE_ALIGN and
 * advised for transparent huge pages: the first touch of a 256^3 grid then
 * costs one page fault per 2 MiB instead of one per 4 KiB, which measured
 * 3-4x faster than malloc + first write on this kind of machine. */
#define SLC_HUGE_MIN ((size_t)8 << 20)
#define SLC_HUGE_ALIGN ((size_t)2 << 20)

/* slc_alloc_fail_after's countdown: the allocation that takes it from 1
 * to 0 fails; at 0 (the start) nothing fails. */
static atomic_long alloc_fail_countdown;

int
slc_fail(slc_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int
slc_failctx(slc_err *err, const char *fmt, ...)
{
	char old[SLC_ERR_MAX];
	va_list ap;
	int n;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof old);
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof err->msg) {
		size_t room = sizeof err->msg - (size_t)n - 1;
		size_t len = strnlen(old, sizeof old - 1);

		if (len > room)
			len = room;
		memcpy(err->msg + n, old, len);
		err->msg[(size_t)n + len] = '\0';
	}
	return -1;
}

int
slc_mul(size_t a, size_t b, size_t *r)
{
	size_t t;

	if (__builtin_mul_overflow(a, b, &t))
		return -1;
	*r = t;
	return 0;
}

int
slc_add(size_t a, size_t b, size_t *r)
{
	size_t t;

	if (__builtin_add_overflow(a, b, &t))
		return -1;
	*r = t;
	return 0;
}

int
slc_mul3(size_t a, size_t b, size_t c, size_t *r)
{
	size_t t;

	if (slc_mul(a, b, &t) || slc_mul(t, c, &t))
		return -1;
	*r = t;
	return 0;
}

/* Uninitialized block of bytes (> 0), huge-page advised when large. */
static void *
big_alloc(size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (bytes >= SLC_HUGE_MIN && bytes <= SIZE_MAX - SLC_HUGE_ALIGN) {
		size_t len = (bytes + SLC_HUGE_ALIGN - 1) / SLC_HUGE_ALIGN * SLC_HUGE_ALIGN;
		void *p = NULL;
		if (posix_memalign(&p, SLC_HUGE_ALIGN, len))
			return NULL;
		/* advice only: without huge pages the block is still good */
		(void)madvise(p, len, MADV_HUGEPAGE);
		return p;
	}
#endif
	return malloc(bytes);
}

void
slc_alloc_fail_after(long n)
{
	atomic_store(&alloc_fail_countdown, n > 0 ? n : 0);
}

/* Is this allocation the one slc_alloc_fail_after asked to fail?  Counts
 * it down when armed. */
static int
alloc_fail_now(void)
{
	long n = atomic_load_explicit(&alloc_fail_countdown, memory_order_relaxed);

	while (n > 0)
		if (atomic_compare_exchange_weak_explicit(&alloc_fail_countdown, &n, n - 1,
							  memory_order_relaxed,
							  memory_order_relaxed))
			return n == 1;
	return 0;
}

void *
slc_malloc(size_t n, size_t sz, slc_err *err)
{
	size_t bytes;
	void *p;

	if (slc_mul(n, sz, &bytes)) {
		slc_fail(err, "allocation of %zu x %zu bytes overflows", n, sz);
		return NULL;
	}
	p = alloc_fail_now() ? NULL : big_alloc(bytes ? bytes : 1);
	if (!p)
		slc_fail(err, "out of memory allocating %zu bytes", bytes);
	return p;
}

void *
slc_calloc(size_t n, size_t sz, slc_err *err)
{
	size_t bytes;
	void *p;

	if (slc_mul(n, sz, &bytes)) {
		slc_fail(err, "allocation of %zu x %zu bytes overflows", n, sz);
		return NULL;
	}
	if (alloc_fail_now()) {
		p = NULL;
	} else if (bytes >= SLC_HUGE_MIN) {
		if ((p = big_alloc(bytes)))
			memset(p, 0, bytes);
	} else {
		p = calloc(n ? n : 1, sz ? sz : 1);
	}
	if (!p)
		slc_fail(err, "out of memory allocating %zu bytes", bytes);
	return p;
}
