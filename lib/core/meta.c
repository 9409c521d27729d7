/* meta.c: key=value lines in metadata records. */
#include "core/meta.h"
#include "core/name.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
slc_meta_init(slc_rec *r, const char *name, slc_err *err)
{
	slc_rec_init(r, SLC_META, name);
	return slc_rec_add(r, "text", SLC_U8, 1, SLC_DETAIL, 0, err) ? 0 : -1;
}

/* May byte c stand in a key (formats/slc.md, "Meta")? */
static int
key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static int
key_ok(const char *key)
{
	const char *k;

	if (!*key)
		return 0;
	for (k = key; *k; k++)
		if (!key_char(*k))
			return 0;
	return 1;
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
slc_meta_check(const slc_rec *r, slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, "text");
	const char *t;
	struct key_at *keys = NULL;
	size_t n, i = 0, nkeys = 0, line = 0, k;
	int rc = 0;

	if (!c || c->type != SLC_U8 || c->ncomp != 1 || c->domain != SLC_DETAIL)
		return slc_fail(err, "no u8 x1 detail channel 'text'");
	t = c->data;
	n = (size_t)c->count;
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
		while (i + kl < e && key_char(t[i + kl]))
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

/* Find the line of key: its start and length (newline included). */
static int
find_line(const slc_rec *r, const char *key, size_t *at, size_t *len)
{
	const slc_chan *c = slc_rec_find(r, "text");
	const char *t;
	size_t n, i = 0, kl = strlen(key);

	if (!c)
		return 0;
	t = c->data;
	n = (size_t)c->count;
	while (i < n) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) + 1 : n;

		if (e - i > kl && !memcmp(t + i, key, kl) && t[i + kl] == '=') {
			*at = i;
			*len = e - i;
			return 1;
		}
		i = e;
	}
	return 0;
}

int
slc_meta_get(const slc_rec *r, const char *key, char *buf, size_t len)
{
	const slc_chan *c = slc_rec_find(r, "text");
	size_t at, n, kl = strlen(key), vl;
	const char *t;

	if (!find_line(r, key, &at, &n))
		return 0;
	t = (const char *)c->data + at + kl + 1;
	vl = n - kl - 1;
	if (vl && t[vl - 1] == '\n')
		vl--;
	if (len) {
		if (vl > len - 1)
			vl = len - 1;
		memcpy(buf, t, vl);
		buf[vl] = '\0';
	}
	return 1;
}

int
slc_meta_get_f64(const slc_rec *r, const char *key, double *v, slc_err *err)
{
	char buf[128], *end;
	double d;

	if (!slc_meta_get(r, key, buf, sizeof buf))
		return 0;
	d = strtod(buf, &end);
	if (end == buf || *end || !isfinite(d))
		return slc_fail(err, "metadata '%s': %s=%s is not a number", r->name,
				key, buf);
	*v = d;
	return 1;
}

/* Replace bytes [at, at+len) of the text with rep (replen bytes). */
static int
splice(slc_rec *r, size_t at, size_t len, const char *rep, size_t replen,
       slc_err *err)
{
	slc_chan *c;
	size_t n, m;
	char *t;

	if (slc_rec_own(r, err))
		return -1;
	c = slc_rec_find(r, "text");
	n = (size_t)c->count;
	m = n - len + replen;
	t = malloc(m ? m : 1);
	if (!t)
		return slc_fail(err, "out of memory");
	memcpy(t, c->data, at);
	memcpy(t + at, rep, replen);
	memcpy(t + at + replen, (char *)c->data + at + len, n - at - len);
	if (c->owned)
		free(c->data);
	c->data = t;
	c->owned = 1;
	c->count = m;
	return 0;
}

int
slc_meta_set(slc_rec *r, const char *key, const char *value, slc_err *err)
{
	size_t at, len, kl = strlen(key), vl = strlen(value);
	char *line;
	int rc;

	if (!key_ok(key))
		return slc_fail(err, "bad metadata key '%s'", key);
	if (strchr(value, '\n'))
		return slc_fail(err, "metadata value for '%s' holds a newline", key);
	if (!slc_rec_find(r, "text") &&
	    !slc_rec_add(r, "text", SLC_U8, 1, SLC_DETAIL, 0, err))
		return -1;
	line = malloc(kl + vl + 2);
	if (!line)
		return slc_fail(err, "out of memory");
	memcpy(line, key, kl);
	line[kl] = '=';
	memcpy(line + kl + 1, value, vl);
	line[kl + 1 + vl] = '\n';
	if (!find_line(r, key, &at, &len)) {
		at = (size_t)slc_rec_find(r, "text")->count;
		len = 0;
	}
	rc = splice(r, at, len, line, kl + vl + 2, err);
	free(line);
	return rc;
}

void
slc_meta_unset(slc_rec *r, const char *key)
{
	size_t at, len;

	if (find_line(r, key, &at, &len))
		splice(r, at, len, "", 0, NULL);
}

int
slc_meta_each(const slc_rec *r,
	      int (*fn)(const char *key, const char *value, void *arg), void *arg)
{
	const slc_chan *c = slc_rec_find(r, "text");
	const char *t;
	size_t n, i = 0;
	int rc = 0;

	if (!c)
		return 0;
	t = c->data;
	n = (size_t)c->count;
	while (i < n && !rc) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) : n;
		const char *eq = memchr(t + i, '=', e - i);
		char *line;

		if (eq) {
			line = malloc(e - i + 1);
			if (!line)
				return -1;
			memcpy(line, t + i, e - i);
			line[e - i] = '\0';
			line[eq - (t + i)] = '\0';
			rc = fn(line, line + (eq - (t + i)) + 1, arg);
			free(line);
		}
		i = e + 1;
	}
	return rc;
}
