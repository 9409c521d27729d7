/* name.c: the escaping of names and text from input, and the check of
 * metadata text (see name.h). */
#include "core/name.h"

#include <stdlib.h>
#include <string.h>

int
slc_utf8_next(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *b = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;     /* range of the second byte */
	uint32_t c;
	int n, k;

	if (len == 0)
		return 0;
	if (b[0] < 0x80) {
		*cp = b[0];
		return 1;
	}
	/* RFC 3629 §4: the lead byte gives the length; E0, ED, F0 and F4
	 * narrow the second byte to rule out overlong forms, surrogates and
	 * code points beyond U+10FFFF */
	if (b[0] >= 0xc2 && b[0] <= 0xdf) {
		n = 2;
		c = b[0] & 0x1f;
	} else if (b[0] >= 0xe0 && b[0] <= 0xef) {
		n = 3;
		c = b[0] & 0x0f;
		if (b[0] == 0xe0)
			lo = 0xa0;
		else if (b[0] == 0xed)
			hi = 0x9f;
	} else if (b[0] >= 0xf0 && b[0] <= 0xf4) {
		n = 4;
		c = b[0] & 0x07;
		if (b[0] == 0xf0)
			lo = 0x90;
		else if (b[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len < (size_t)n || b[1] < lo || b[1] > hi)
		return 0;
	for (k = 1; k < n; k++) {
		if ((b[k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (b[k] & 0x3f);
	}
	*cp = c;
	return n;
}

int
slc_cp_kept(uint32_t cp)
{
	if (cp < 0x20 || cp == '\\' || (cp >= 0x7f && cp <= 0x9f))
		return 0;
	/* line and paragraph separators end a line in some viewers; the
	 * bidirectional controls reorder what follows them on the line */
	if (cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return 1;
}

/* The escape of one byte that is not kept: `\n`, `\t`, `\r`, `\\` or
 * `\xNN` into e (5 bytes); returns its length. */
static size_t
byte_escape(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	e[0] = '\\';
	switch (c) {
	case '\n': e[1] = 'n'; return 2;
	case '\t': e[1] = 't'; return 2;
	case '\r': e[1] = 'r'; return 2;
	case '\\': e[1] = '\\'; return 2;
	default:
		e[1] = 'x';
		e[2] = hex[c >> 4];
		e[3] = hex[c & 15];
		return 4;
	}
}

size_t
slc_escape(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i = 0, o = 0, total = 0;
	int cut = 0;

	while (i < len) {
		char e[5];
		const char *piece = e;
		size_t plen;
		uint32_t cp;
		int n = slc_utf8_next(s + i, len - i, &cp);

		if (n > 0 && slc_cp_kept(cp)) {
			piece = s + i;
			plen = (size_t)n;
		} else {
			/* an escaped code point: each of its bytes (an
			 * invalid byte is a sequence of one) */
			n = 1;
			plen = byte_escape((unsigned char)s[i], e);
		}
		i += (size_t)n;
		total += plen;
		if (!cut && o + plen < outlen) {
			memcpy(out + o, piece, plen);
			o += plen;
		} else {
			cut = 1;
		}
	}
	if (outlen > 0)
		out[o] = '\0';
	return total;
}

const char *
slc_escstr(const char *s, char *out, size_t outlen)
{
	slc_escape(s, strlen(s), out, outlen);
	return out;
}

int
slc_meta_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* bytes of a bad line or key that a message quotes */
#define META_SHOWN 32

/* One key of the text being checked: where it starts, its length and
 * its line (from 1), for sorting to find a repeated key. */
struct key_at {
	const char *s;
	size_t len, line;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int
slc_meta_text_check(const char *t, size_t n, slc_err *err)
{
	struct key_at *keys = NULL;
	size_t i = 0, nkeys = 0, line = 0, k;
	int rc = 0;

	if (n && t[n - 1] != '\n')
		return slc_fail(err, "metadata text does not end with a newline");
	for (k = 0; k < n; k++)
		nkeys += t[k] == '\n';
	if (nkeys && !(keys = malloc(nkeys * sizeof *keys)))
		return slc_fail(err, "out of memory checking %zu metadata lines", nkeys);
	while (i < n) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = (size_t)(nl - t), kl = 0, at;
		char esc[SLC_ESC_BUF(META_SHOWN)];

		line++;
		while (i + kl < e && slc_meta_key_char(t[i + kl]))
			kl++;
		if (kl == 0 || i + kl == e || t[i + kl] != '=') {
			slc_escape(t + i, e - i < META_SHOWN ? e - i : META_SHOWN, esc, sizeof esc);
			rc = slc_fail(err, "metadata line %zu '%s%s' is not key=value (a key of "
				      "A-Z a-z 0-9 _ . -, then '=')", line, esc, e - i > META_SHOWN ? "..." : "");
			goto out;
		}
		for (at = i + kl + 1; at < e;) {
			uint32_t cp;
			int len = slc_utf8_next(t + at, e - at, &cp);

			if (len == 0 || cp == 0) {
				slc_escape(t + i, kl < META_SHOWN ? kl : META_SHOWN, esc, sizeof esc);
				rc = slc_fail(err, "metadata line %zu: the value of '%s' is not UTF-8 "
					      "without NUL (byte %zu of the text)", line, esc, at);
				goto out;
			}
			at += (size_t)len;
		}
		keys[line - 1] = (struct key_at){ t + i, kl, line };
		i = e + 1;
	}
	if (nkeys > 1)
		qsort(keys, nkeys, sizeof *keys, key_cmp);
	for (k = 1; k < nkeys; k++)
		if (keys[k].len == keys[k - 1].len && !memcmp(keys[k].s, keys[k - 1].s, keys[k].len)) {
			char esc[SLC_ESC_BUF(META_SHOWN)];

			slc_escape(keys[k].s, keys[k].len < META_SHOWN ? keys[k].len :
				   META_SHOWN, esc, sizeof esc);
			rc = slc_fail(err, "metadata key '%s' repeated (lines %zu and %zu): keys "
				      "are unique", esc, keys[k - 1].line, keys[k].line);
			goto out;
		}
out:
	free(keys);
	return rc;
}
