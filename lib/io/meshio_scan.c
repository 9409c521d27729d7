/* meshio_scan.c: tokens and strict numbers for the text mesh readers. */
#include "io/meshio_scan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest numeric token parsed; longer ones are refused as not numbers
 * (no real coordinate needs more than ~30 characters). */
#define NUM_TOKEN_MAX 63

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void
mio_scan_init(mio_scan *s, const void *buf, size_t len)
{
	s->p = buf;
	s->end = s->p + len;
	s->line = 1;
}

int
mio_token(mio_scan *s, const char **tok, size_t *len)
{
	const char *q;

	while (s->p < s->end && is_blank(*s->p))
		s->p++;
	if (s->p == s->end || *s->p == '\n')
		return 0;
	q = s->p;
	while (s->p < s->end && *s->p != '\n' && !is_blank(*s->p))
		s->p++;
	*tok = q;
	*len = (size_t)(s->p - q);
	return 1;
}

int
mio_next_line(mio_scan *s)
{
	const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));

	if (!nl) {
		s->p = s->end;
		return 0;
	}
	s->p = nl + 1;
	s->line++;
	return s->p < s->end;
}

int
mio_at_eol(mio_scan *s)
{
	while (s->p < s->end && is_blank(*s->p))
		s->p++;
	return s->p == s->end || *s->p == '\n';
}

int
mio_at_end(const mio_scan *s)
{
	return s->p == s->end;
}

static int
copy_num(const char *tok, size_t len, char *buf)
{
	if (len == 0 || len > NUM_TOKEN_MAX)
		return -1;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	return 0;
}

int
mio_parse_f64(const char *tok, size_t len, double *v)
{
	char buf[NUM_TOKEN_MAX + 1], *e;
	double d;

	if (copy_num(tok, len, buf))
		return -1;
	/* strtod skips leading space and takes hex; tokens have no space */
	errno = 0;
	d = strtod(buf, &e);
	if (e != buf + len || !isfinite(d))
		return -1;
	/* an underflow to a denormal or zero is a fine coordinate */
	if (errno == ERANGE && fabs(d) > 1.0)
		return -1;
	*v = d;
	return 0;
}

int
mio_parse_i64(const char *tok, size_t len, int64_t lo, int64_t hi, int64_t *v)
{
	/* a hand loop: strtoll needs a NUL-terminated copy and dominated the
	 * reading of face lines */
	uint64_t n = 0, lim;
	size_t i = 0;
	int neg = 0;

	if (len && (tok[0] == '-' || tok[0] == '+')) {
		neg = tok[0] == '-';
		i = 1;
	}
	if (i == len)
		return -1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		unsigned d = (unsigned char)tok[i] - '0';

		if (d > 9 || n > (lim - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	if (neg) {
		int64_t x = n == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n;

		if (x < lo || x > hi)
			return -1;
		*v = x;
	} else {
		if ((int64_t)n < lo || (int64_t)n > hi)
			return -1;
		*v = (int64_t)n;
	}
	return 0;
}

int
mio_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(tok, word, len);
}

int
mio_is_ci(const char *tok, size_t len, const char *word)
{
	size_t i;

	if (strlen(word) != len)
		return 0;
	for (i = 0; i < len; i++) {
		char a = tok[i], b = word[i];

		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return 0;
	}
	return 1;
}

char *
mio_quote(const char *tok, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 8 < outlen; i++) {
		unsigned char c = (unsigned char)tok[i];

		if (i == MIO_QUOTE_MAX) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (c > 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}
