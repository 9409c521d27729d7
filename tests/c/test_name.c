/* test_name.c: slc_escape (core/name.h) leaves ordinary names as they
 * are, escapes every control byte, backslash, invalid UTF-8 byte, C1
 * control, separator and bidirectional control, is injective on what it
 * changes, and cuts only at whole escapes. */
#include <string.h>

#include "ctest.h"
#include "core/name.h"

/* The escape of len bytes at s (a static buffer). */
static const char *
esc(const char *s, size_t len)
{
	static char out[256];

	slc_escape(s, len, out, sizeof out);
	return out;
}

#define ESC(lit) esc(lit, sizeof lit - 1)

/* No byte below 0x20, no 0x7f, and every sequence well-formed UTF-8. */
static int
safe(const char *s)
{
	size_t i = 0, n = strlen(s);
	uint32_t cp;
	int k;

	while (i < n) {
		k = slc_utf8_next(s + i, n - i, &cp);
		if (k == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			return 0;
		i += (size_t)k;
	}
	return 1;
}

int
main(void)
{
	char buf[SLC_ESC_BUF(256)], small[8], two_esc[16], a[64];
	unsigned char all[256];
	uint32_t cp;
	size_t n;
	int k, ok;

	CHECK(!strcmp(ESC("phi"), "phi"), "a plain name is kept");
	CHECK(!strcmp(ESC("solid_vel.x-1 'a'"), "solid_vel.x-1 'a'"),
	      "printable ASCII other than the backslash is kept");
	CHECK(!strcmp(ESC("a\nv 1 2 3"), "a\\nv 1 2 3"), "newline: \\n");
	CHECK(!strcmp(ESC("\t\r\\"), "\\t\\r\\\\"), "tab, return, backslash");
	CHECK(!strcmp(ESC("\x1b[2J"), "\\x1b[2J"), "escape: \\x1b (%s)", ESC("\x1b[2J"));
	CHECK(!strcmp(ESC("a\0b"), "a\\x00b"), "a NUL byte inside the length: \\x00");
	CHECK(!strcmp(ESC("\x7f"), "\\x7f"), "DEL: \\x7f");
	CHECK(!strcmp(ESC("d\xc3\xa9j\xc3\xa0 \xe6\xb0\xb4 \xf0\x9f\x8c\x8a"),
		      "d\xc3\xa9j\xc3\xa0 \xe6\xb0\xb4 \xf0\x9f\x8c\x8a"),
	      "printable UTF-8 (2, 3 and 4 bytes) is kept");
	CHECK(!strcmp(ESC("\xc2\x9b" "2J"), "\\xc2\\x9b2J"), "C1 control CSI: its bytes");
	CHECK(!strcmp(ESC("\xe2\x80\xae"), "\\xe2\\x80\\xae"), "bidirectional override: its bytes");
	CHECK(!strcmp(ESC("\xe2\x80\xa8"), "\\xe2\\x80\\xa8"), "line separator: its bytes");
	CHECK(!strcmp(ESC("\xff\xc3"), "\\xff\\xc3"), "invalid byte and cut sequence: \\xNN");
	CHECK(!strcmp(ESC("\xc0\xaf"), "\\xc0\\xaf"), "overlong form: \\xNN");
	CHECK(!strcmp(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80"), "surrogate: \\xNN");
	CHECK(!strcmp(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"), "beyond U+10FFFF: \\xNN");
	CHECK(slc_utf8_next("\xf4\x8f\xbf\xbf", 4, &cp) == 4 && cp == 0x10ffff,
	      "U+10FFFF decodes");
	CHECK(slc_utf8_next("\xe2\x82", 2, &cp) == 0, "a sequence cut short does not");

	/* every byte value, alone and after each lead byte */
	ok = 1;
	for (k = 0; k < 256; k++)
		all[k] = (unsigned char)k;
	n = slc_escape((const char *)all, sizeof all, buf, sizeof buf);
	ok = n == strlen(buf) && n < sizeof buf && safe(buf);
	for (k = 0xc0; k < 256 && ok; k++) {
		char two[2] = { (char)k, (char)0x80 };

		slc_escape(two, 2, two_esc, sizeof two_esc);
		ok = safe(two_esc);
	}
	CHECK(ok, "every byte value escapes to safe text within SLC_ESC_BUF");
	CHECK(strlen(esc((const char *)all, 255)) + 1 <= SLC_ESC_BUF(255),
	      "SLC_ESC_BUF bounds 255 bytes");

	/* distinct inputs stay distinct: a backslash written out is not an
	 * escape */
	strcpy(a, ESC("\\x1b"));
	CHECK(strcmp(a, ESC("\x1b")) != 0, "'\\\\x1b' and ESC differ (%s)", a);
	strcpy(a, ESC("\\n"));
	CHECK(strcmp(a, ESC("\n")) != 0, "'\\\\n' and newline differ (%s)", a);

	/* cut at whole escapes, the full length returned */
	n = slc_escape("ab\x1b" "cd", 5, small, 6);
	CHECK(n == 8 && !strcmp(small, "ab"), "cut before a whole escape (%zu '%s')", n, small);
	n = slc_escape("\xe6\xb0\xb4\xe6\xb0\xb4", 6, small, 6);
	CHECK(n == 6 && !strcmp(small, "\xe6\xb0\xb4"), "cut before a whole UTF-8 sequence");
	CHECK(!strcmp(slc_escstr("x\ny", buf, sizeof buf), "x\\ny"), "slc_escstr");
	return ctest_done();
}
