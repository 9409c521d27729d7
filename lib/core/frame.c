/* frame.c: one frame in memory, records in stream order (core/frame.h). */
#include "core/frame.h"
#include "core/name.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"

/* room for the first records of a frame before it grows */
#define FRAME_CAP0 16

void
slc_frame_init(slc_frame *F)
{
	memset(F, 0, sizeof *F);
}

void
slc_frame_free(slc_frame *F)
{
	size_t i;

	for (i = 0; i < F->n; i++) {
		slc_rec_free(F->r[i]);
		free(F->r[i]);
	}
	free(F->r);
	slc_frame_init(F);
}

/* Room for one more record pointer.  0, or -1 with err. */
static int
grow(slc_frame *F, slc_err *err)
{
	size_t cap;
	slc_rec **r;

	if (F->n < F->cap)
		return 0;
	if (F->cap == 0)
		cap = FRAME_CAP0;
	else if (slc_mul(F->cap, 2, &cap))
		return slc_fail(err, "out of memory after %zu records", F->n);
	r = cap > (size_t)-1 / sizeof *r ? NULL : realloc(F->r, cap * sizeof *r);
	if (!r)
		return slc_fail(err, "out of memory after %zu records", F->n);
	F->r = r;
	F->cap = cap;
	return 0;
}

slc_rec *
slc_frame_put(slc_frame *F, slc_rec *r, slc_err *err)
{
	slc_rec *own;

	if (grow(F, err))
		return NULL;
	if (!(own = malloc(sizeof *own))) {
		slc_fail(err, "out of memory after %zu records", F->n);
		return NULL;
	}
	*own = *r;
	/* the contents moved: what *r pointed to belongs to own now */
	slc_rec_init(r, SLC_END, "");
	F->r[F->n++] = own;
	return own;
}

slc_rec *
slc_frame_add(slc_frame *F, uint32_t kind, const char *name, slc_err *err)
{
	slc_rec r;

	slc_rec_init(&r, kind, name);
	return slc_frame_put(F, &r, err);
}

int
slc_frame_read(slc_frame *F, slc_reader *rd, slc_err *err)
{
	slc_rec r;
	int rc;

	slc_rec_init(&r, SLC_END, "");
	while ((rc = slc_read(rd, &r, err)) > 0)
		if (!slc_frame_put(F, &r, err)) {
			slc_rec_free(&r);
			return -1;
		}
	return rc;
}

/* The macro in frame.h stands in the way of the definition. */
#undef slc_frame_find

slc_rec *
slc_frame_find(const slc_frame *F, const char *name, uint32_t kind)
{
	return slc_frame_find_undecoded(F, name, kind);
}

slc_rec *
slc_frame_find_undecoded(const slc_frame *F, const char *name, uint32_t kind)
{
	size_t i;

	for (i = 0; i < F->n; i++)
		if (F->r[i]->kind == kind && !strcmp(F->r[i]->name, name))
			return F->r[i];
	return NULL;
}

/* The frame number of the first scene record among records first.. of
 * F, for messages; -1 without one.  A frame number that is not a count
 * (or past 2^53, where doubles stop being exact integers) is left for
 * the stage to refuse; the messages fall back to the time. */
static long
frame_number(const slc_frame *F, size_t first)
{
	size_t i;

	for (i = first; i < F->n; i++) {
		const slc_rec *r = F->r[i];
		double fr;

		if (r->kind != SLC_META || strcmp(r->name, "scene"))
			continue;
		if (slc_meta_get_f64(r, "frame", &fr, NULL) == 1 && fr >= 0 && fr <= 0x1p53 &&
		    fr == floor(fr))
			return (long)fr;
		break;
	}
	return -1;
}

int
slc_frame_decode(const slc_frame *F, slc_rec *r, slc_err *err)
{
	if (!r->encoded)
		return 0;
	if (slc_rec_decode(r, err))
		return -1;
	/* read_frame skipped it: this is its check (formats/slc.md,
	 * "Non-finite values") */
	return slc_rec_check_finite(r, frame_number(F, 0), err);
}

int
slc_frame_get(const slc_frame *F, const char *name, uint32_t kind, slc_rec **out,
	      slc_err *err)
{
	size_t i;

	*out = NULL;
	for (i = 0; i < F->n; i++)
		if (F->r[i]->kind == kind && !strcmp(F->r[i]->name, name)) {
			if (slc_frame_decode(F, F->r[i], err))
				return -1;
			*out = F->r[i];
			return 0;
		}
	return 0;
}

int
slc_frame_find_unique(const slc_frame *F, const char *name, uint32_t kind,
		      slc_rec **out, slc_err *err)
{
	size_t i, n = 0;
	slc_rec *r = NULL;

	*out = NULL;
	for (i = 0; i < F->n; i++)
		if (F->r[i]->kind == kind && !strcmp(F->r[i]->name, name) && !n++)
			r = F->r[i];
	if (n > 1)
		return slc_fail(err, "%zu records named '%s' of kind %s", n, name,
				slc_kind_name(kind));
	if (r && slc_frame_decode(F, r, err))
		return -1;
	*out = r;
	return 0;
}

size_t
slc_frame_index(const slc_frame *F, const slc_rec *r)
{
	size_t i;

	for (i = 0; i < F->n && F->r[i] != r; i++)
		;
	return i;
}

void
slc_frame_remove(slc_frame *F, slc_rec *r)
{
	size_t i = slc_frame_index(F, r);

	if (i == F->n)
		return;
	slc_rec_free(F->r[i]);
	free(F->r[i]);
	memmove(&F->r[i], &F->r[i + 1], (F->n - i - 1) * sizeof *F->r);
	F->n--;
}

int
slc_frame_check_finite(const slc_frame *F, size_t first, slc_err *err)
{
	long frame = frame_number(F, first);
	size_t i;

	for (i = first; i < F->n; i++)
		if (!F->r[i]->encoded && slc_rec_check_finite(F->r[i], frame, err))
			return -1;
	return 0;
}

int
slc_scene_read(const slc_rec *scene, slc_scene *S, slc_err *err)
{
	if (!scene)
		return 0;
	if (slc_meta_get_f64(scene, "frame", &S->frame, err) < 0 ||
	    slc_meta_get_f64(scene, "time", &S->time, err) < 0 ||
	    (isnan(S->dt) && slc_meta_get_f64(scene, "dt", &S->dt, err) < 0))
		return -1;
	if (isnan(S->dt)) {
		double fps;
		int rc = slc_scene_fps(scene, &fps, err);

		if (rc < 0)
			return -1;
		if (rc)
			S->dt = 1 / fps;
	}
	if (S->frame != floor(S->frame) || fabs(S->frame) > SLC_SCENE_FRAME_MAX)
		return slc_fail(err, "frame %.17g: expected a whole number within +-2^53", S->frame);
	if (S->dt < 0)
		return slc_fail(err, "dt %.17g: expected a length >= 0", S->dt);
	return 0;
}

int
slc_scene_fps(const slc_rec *scene, double *fps, slc_err *err)
{
	double x, dt;
	int rc, rdt;

	if (!scene)
		return 0;
	if ((rc = slc_meta_get_f64(scene, "fps", &x, err)) < 0 ||
	    (rdt = slc_meta_get_f64(scene, "dt", &dt, err)) < 0)
		return -1;
	if (rc && (!(x > 0) || !isfinite(1 / x)))
		return slc_fail(err, "fps %.17g: expected a positive rate with a finite frame length", x);
	/* dt wins (formats/slc.md, "Meta"): the rate is 1/dt unless fps
	 * says the same to SLC_SCENE_RATE_TOL */
	if (rdt && dt > 0 && isfinite(1 / dt) && (!rc || !(fabs(x * dt - 1) <= SLC_SCENE_RATE_TOL))) {
		x = 1 / dt;
		rc = 1;
	}
	if (rc)
		*fps = x;
	return rc;
}

int
slc_scene_gravity(const slc_rec *scene, double g[3], slc_err *err)
{
	char buf[256], tail;
	double v[3];

	if (!scene || !slc_meta_get(scene, "gravity", buf, sizeof buf))
		return 0;
	if (sscanf(buf, "%lf,%lf,%lf %c", &v[0], &v[1], &v[2], &tail) != 3 ||
	    !isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
		char esc[64];

		return slc_fail(err, "gravity '%s': expected three finite numbers gx,gy,gz",
				slc_escstr(buf, esc, sizeof esc));
	}
	memcpy(g, v, sizeof v);
	return 1;
}

int
slc_scene_advance(slc_rec *scene, double frame, double time, slc_err *err)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.0f", frame);
	if (slc_meta_set(scene, "frame", buf, err))
		return -1;
	snprintf(buf, sizeof buf, "%.12g", time);
	return slc_meta_set(scene, "time", buf, err);
}
