/* meta.h: metadata records, key=value text lines.
 *
 * A metadata record (kind SLC_META) holds UTF-8 text in its u8 channel
 * "text": one `key=value` per line, keys of [A-Za-z0-9_.-], values without
 * newlines, lines ending in '\n'.  Keys are unique; setting a key replaces
 * its line in place, so the order of first setting is kept.
 */
#ifndef SLC_META_H
#define SLC_META_H

#include "core/slc.h"

/* Start an empty metadata record named `name`.  0 or -1 with err. */
int slc_meta_init(slc_rec *r, const char *name, slc_err *err);

/* Copy the value of key into buf (NUL-terminated, truncated to len-1).
 * Returns 1 if found, 0 if absent. */
int slc_meta_get(const slc_rec *r, const char *key, char *buf, size_t len);

/* The value of key parsed as a double; 1 if found and numeric, 0 if
 * absent, -1 with err if present but not a finite number. */
int slc_meta_get_f64(const slc_rec *r, const char *key, double *v, slc_err *err);

/* Set key to value (replacing an existing line).  -1 with err on a bad
 * key or a value holding a newline. */
int slc_meta_set(slc_rec *r, const char *key, const char *value, slc_err *err);

/* Remove a key (no-op if absent). */
void slc_meta_unset(slc_rec *r, const char *key);

/* Visit each line: fn(key, value, arg) with NUL-terminated copies; stops
 * when fn returns nonzero and returns that value. */
int slc_meta_each(const slc_rec *r,
		  int (*fn)(const char *key, const char *value, void *arg),
		  void *arg);

#endif
