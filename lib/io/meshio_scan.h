/* meshio_scan.h: line-oriented tokens and strict numbers for the text
 * readers of lib/meshio (OBJ, ascii PLY, ascii STL).  Internal to lib/.
 *
 * A scanner walks a byte buffer (not NUL-terminated) keeping the line
 * number (1-based) for messages.  Tokens are runs of bytes other than
 * blanks (space, tab, CR, VT, FF) and newline; a token never spans lines.
 */
#ifndef SLC_MESHIO_SCAN_H
#define SLC_MESHIO_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define MIO_QUOTE_MAX 40 /* bytes of a bad token echoed in a message */
#define MIO_QUOTE_BUF (4 * MIO_QUOTE_MAX + 8) /* room for its quoted form */

typedef struct mio_scan {
	const char *p, *end;
	uint64_t line;
} mio_scan;

void mio_scan_init(mio_scan *s, const void *buf, size_t len);

/* The next token on the current line: 1 with *tok and *len set, 0 at the end
 * of the line (the newline is not consumed). */
int mio_token(mio_scan *s, const char **tok, size_t *len);

/* Skip the rest of the current line and its newline; 0 at end of input
 * (nothing left to read), 1 otherwise. */
int mio_next_line(mio_scan *s);

/* 1 if nothing but blanks is left on the current line. */
int mio_at_eol(mio_scan *s);

/* 1 if the scanner is at the end of the input. */
int mio_at_end(const mio_scan *s);

/* Strict parses of a whole token: 0 ok, -1 if not a number (or, for
 * doubles, not finite; for integers, outside [lo, hi]). */
int mio_parse_f64(const char *tok, size_t len, double *v);
int mio_parse_i64(const char *tok, size_t len, int64_t lo, int64_t hi,
		  int64_t *v);

/* Token equal to the NUL-terminated word (case-sensitive / -insensitive). */
int mio_is(const char *tok, size_t len, const char *word);
int mio_is_ci(const char *tok, size_t len, const char *word);

/* A printable copy of a token for messages: bytes outside 0x21..0x7e as
 * \xNN, cut at MIO_QUOTE_MAX with "...".  Returns out. */
char *mio_quote(const char *tok, size_t len, char *out, size_t outlen);

#endif
