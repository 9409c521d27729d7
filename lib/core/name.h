/* name.h: names and text from input, made safe to print or to write into
 * another format.
 *
 * Record names, channel names and meta text come from streams and files
 * anyone may have written: a newline in a name would forge a line of a
 * listing or add a vertex to an OBJ file, an escape sequence would reach
 * the terminal.  Every place that prints such text, or writes it into a
 * text format (OBJ and PLY comments, VTI attributes, slcinfo's listing),
 * passes it through slc_escape first.  The convention (man/slcinfo.1
 * "Names on output", formats/slc.md "Descriptor"):
 *
 *   - a backslash becomes `\\`; newline, tab and carriage return `\n`,
 *     `\t`, `\r`; every other byte below 0x20, and 0x7f, `\xNN`;
 *   - a well-formed UTF-8 sequence (RFC 3629: shortest form, no
 *     surrogates, at most U+10FFFF) is kept as it is, unless it encodes a
 *     C1 control (U+0080..U+009F), a line or paragraph separator (U+2028,
 *     U+2029) or a bidirectional control (U+200E, U+200F, U+202A..U+202E,
 *     U+2066..U+2069): then each of its bytes becomes `\xNN`;
 *   - any other byte (not part of a well-formed sequence) becomes `\xNN`.
 * NN is two lowercase hex digits.  The result holds no byte below 0x20,
 * no 0x7f, and is valid UTF-8; distinct inputs give distinct results.
 * Printable ASCII other than the backslash is kept, so ordinary names
 * print unchanged.
 *
 * The check of metadata text (slc_meta_text_check) is here too, with the
 * UTF-8 rules it uses.
 */
#ifndef SLC_NAME_H
#define SLC_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/slc.h"

/* Bytes that the escaped form of n input bytes can need, with its NUL:
 * every byte may become the four characters `\xNN`. */
#define SLC_ESC_BUF(n) (4 * (size_t)(n) + 1)
/* Room for an escaped record or channel name. */
#define SLC_NAME_ESC_BUF SLC_ESC_BUF(SLC_NAME_MAX)

/* Escape the len bytes at s (NUL bytes included) into out, outlen > 0
 * bytes, by the convention above.  out is always NUL-terminated; when the
 * whole escaped text does not fit, out holds the longest prefix of whole
 * escapes that does.  Returns the length of the whole escaped text
 * (without the NUL), as snprintf does: >= outlen means it was cut.
 * SLC_ESC_BUF(len) bytes always suffice. */
size_t slc_escape(const char *s, size_t len, char *out, size_t outlen);

/* slc_escape of the NUL-terminated string s; returns out, so that it can
 * be an argument of printf. */
const char *slc_escstr(const char *s, char *out, size_t outlen);

/* The well-formed UTF-8 sequence at the start of the len bytes at s (RFC
 * 3629 §4): its length 1..4 with *cp its code point, or 0 when the bytes
 * there are not one (len 0, a stray continuation byte, an overlong form,
 * a surrogate, beyond U+10FFFF, or cut short). */
int slc_utf8_next(const char *s, size_t len, uint32_t *cp);

/* 1 if the code point cp is kept as it is by slc_escape, 0 if escaped:
 * the C0 and C1 controls, DEL, the backslash, the separators and
 * bidirectional controls listed above. */
int slc_cp_kept(uint32_t cp);

/* May byte c stand in a metadata key: A-Z a-z 0-9 _ . - (formats/slc.md,
 * "Meta")?  1 or 0. */
int slc_meta_key_char(char c);

/* Is the n bytes at t a well-formed metadata text (formats/slc.md,
 * "Meta")?  Lines each ending in '\n', each `key=value` with a key of one
 * or more slc_meta_key_char bytes and a value of strict UTF-8 without
 * NUL, no key twice.  0, or -1 with err naming the first bad line or the
 * repeated key.  slc_rec_validate applies it to every meta record read or
 * written, so no program sees a malformed or ambiguous text.  Here, with
 * the UTF-8 rules, so that the reader calls no code of the metadata
 * helpers (which call the reader). */
int slc_meta_text_check(const char *t, size_t n, slc_err *err);

#endif
