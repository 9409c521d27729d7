/* err.c: error messages and checked size arithmetic for lib/. */
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void *
slc_calloc(size_t n, size_t sz, slc_err *err)
{
	size_t bytes;
	void *p;

	if (slc_mul(n, sz, &bytes)) {
		slc_fail(err, "allocation of %zu x %zu bytes overflows", n, sz);
		return NULL;
	}
	p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		slc_fail(err, "out of memory allocating %zu bytes", bytes);
	return p;
}
