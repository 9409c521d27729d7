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

static int
key_ok(const char *key)
{
	const char *k;

	if (!*key)
		return 0;
	for (k = key; *k; k++)
		if (!slc_meta_key_char(*k))
			return 0;
	return 1;
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
