/* test_frame.c: a frame (core/frame.h) holds a stream's records in order
 * at fixed addresses however many are read or added (5000, past any
 * fixed array), finds them by name and kind, refuses a name required to
 * be unique that is not, reads and advances the scene, and names the
 * first NaN of the records read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "core/frame.h"
#include "core/meta.h"

#define NREC 5000       /* more than the 4096 a fixed array once held */

/* A stream of n particle records "p0".."p{n-1}" and a scene, in memory. */
static FILE *
stream(int n)
{
	FILE *f = tmpfile();
	slc_writer *w = slc_writer_open(f, 0, NULL);
	slc_rec r;
	int i, ok = 1;

	slc_meta_init(&r, "scene", NULL);
	slc_meta_set(&r, "frame", "7", NULL);
	slc_meta_set(&r, "time", "0.28", NULL);
	slc_meta_set(&r, "dt", "0.04", NULL);
	ok &= slc_write(w, &r, NULL) == 0;
	slc_rec_free(&r);
	for (i = 0; i < n; i++) {
		char name[32];
		float *P;

		snprintf(name, sizeof name, "p%d", i);
		slc_rec_init(&r, SLC_PARTICLES, name);
		if ((P = slc_rec_add(&r, "P", SLC_F32, 3, SLC_POINT, 1, NULL)))
			P[0] = (float)i;
		ok &= P && slc_write(w, &r, NULL) == 0;
		slc_rec_free(&r);
	}
	ok &= slc_writer_close(w, NULL) == 0;
	rewind(f);
	return ok ? f : NULL;
}

int
main(void)
{
	slc_frame F;
	slc_err err;
	slc_reader *rd;
	slc_rec *first, *found, *added, r;
	slc_scene S = { -1, 0, NAN };
	FILE *f = stream(NREC);
	size_t i;
	int ordered = 1;

	slc_frame_init(&F);
	rd = f ? slc_reader_open(f, &err) : NULL;
	CHECK(rd && slc_frame_read(&F, rd, &err) == 0 && F.n == NREC + 1,
	      "a stream of %d records is read whole", NREC + 1);
	slc_reader_close(rd);
	for (i = 1; i < F.n; i++) {
		char name[32];

		snprintf(name, sizeof name, "p%zu", i - 1);
		ordered &= !strcmp(F.r[i]->name, name) && ((float *)F.r[i]->chan[0].data)[0] == (float)(i - 1);
	}
	CHECK(ordered, "records kept in stream order with their data");

	first = F.r[1];
	CHECK((found = slc_frame_find_undecoded(&F, "p4999", SLC_PARTICLES)) == F.r[NREC], "found by name and kind");
	CHECK(!slc_frame_find_undecoded(&F, "p4999", SLC_GRID) && !slc_frame_find_undecoded(&F, "q", SLC_PARTICLES),
	      "a name of another kind, or absent, is not found");
	for (i = 0; i < 3000; i++)
		if (!slc_frame_add(&F, SLC_PARTICLES, "more", &err))
			break;
	CHECK(i == 3000 && F.n == NREC + 3001, "3000 records added: %zu", F.n);
	CHECK(F.r[1] == first && slc_frame_find_undecoded(&F, "p4999", SLC_PARTICLES) == found,
	      "records keep their addresses as the frame grows");

	CHECK(slc_frame_find_unique(&F, "p17", SLC_PARTICLES, &found, &err) == 0 && found == F.r[18],
	      "a unique name is found");
	CHECK(slc_frame_find_unique(&F, "absent", SLC_PARTICLES, &found, &err) == 0 && !found,
	      "an absent name is no error");
	CHECK(slc_frame_find_unique(&F, "more", SLC_PARTICLES, &found, &err) < 0 && !found &&
	      strstr(err.msg, "3000 records named 'more' of kind particles"),
	      "a repeated name is refused: %s", err.msg);

	slc_rec_init(&r, SLC_GRID, "moved");
	r.time = 2.5;
	added = slc_frame_put(&F, &r, &err);
	CHECK(added && added->time == 2.5 && !strcmp(added->name, "moved") && r.kind == SLC_END &&
	      r.chan == NULL, "put moves a record in and leaves the caller's empty");
	CHECK(slc_frame_index(&F, added) == F.n - 1 && slc_frame_index(&F, &r) == F.n,
	      "index of a record, and of one not in the frame");
	slc_frame_remove(&F, F.r[1]);
	CHECK(F.n == NREC + 3001 && !strcmp(F.r[1]->name, "p1") && F.r[F.n - 1] == added,
	      "remove keeps the order and addresses of the rest");

	CHECK(slc_scene_read(slc_frame_find(&F, "scene", SLC_META), &S, &err) == 0 &&
	      S.frame == 7 && S.time == 0.28 && S.dt == 0.04, "the scene's frame, time and dt");
	S.dt = 0.5;
	CHECK(slc_scene_read(F.r[0], &S, &err) == 0 && S.dt == 0.5, "a frame length given wins over the scene's");
	CHECK(slc_scene_advance(F.r[0], 8, 0.32, &err) == 0 &&
	      slc_meta_get_f64(F.r[0], "frame", &S.frame, &err) == 1 && S.frame == 8 &&
	      slc_meta_get_f64(F.r[0], "time", &S.time, &err) == 1 && S.time == 0.32,
	      "the scene advanced to the next frame");
	/* a NaN in point 0 of p10 (F.r[10], p0 being removed) */
	((float *)F.r[10]->chan[0].data)[1] = NAN;
	CHECK(slc_frame_check_finite(&F, 11, &err) == 0, "records before 'first' are not checked");
	CHECK(slc_frame_check_finite(&F, 0, &err) < 0 &&
	      !strcmp(err.msg, "field 'p10' channel 'P', frame 8: 1 NaN and 0 Inf values, first at point 0"),
	      "a NaN is named by record, channel, element and the scene's frame: %s", err.msg);
	CHECK(slc_frame_check_finite(&F, 1, &err) < 0 && strstr(err.msg, ", time 0: "),
	      "without a scene among the records checked, by the record's time: %s", err.msg);
	slc_meta_set(F.r[0], "time", "soon", &err);
	CHECK(slc_scene_read(F.r[0], &S, &err) < 0, "a time that is not a number is an error: %s", err.msg);
	slc_meta_set(F.r[0], "time", "0", &err);
	slc_meta_set(F.r[0], "frame", "1e20", &err);
	CHECK(slc_scene_read(F.r[0], &S, &err) < 0 && strstr(err.msg, "frame 1"),
	      "a frame number past 2^53 (no long holds it exactly) is an error: %s", err.msg);
	slc_meta_set(F.r[0], "frame", "2.5", &err);
	CHECK(slc_scene_read(F.r[0], &S, &err) < 0, "a frame number that is not whole is an error: %s", err.msg);
	slc_meta_set(F.r[0], "frame", "-3", &err);
	CHECK(slc_scene_read(F.r[0], &S, &err) == 0 && S.frame == -3, "a negative frame (pre-roll) is read");
	{
		double fps = 0, g[3] = { 0, 0, 0 };

		slc_meta_unset(F.r[0], "dt");
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 0 && fps == 0,
		      "neither fps nor dt: 0, fps untouched");
		slc_meta_set(F.r[0], "dt", "0.04", &err);
		slc_meta_set(F.r[0], "fps", "1e-320", &err);
		CHECK(slc_scene_fps(F.r[0], &fps, &err) < 0 && fps == 0,
		      "a subnormal fps (an infinite frame) is an error: %s", err.msg);
		slc_meta_set(F.r[0], "fps", "30", &err);
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 1 && fps == 25,
		      "dt 0.04 wins over an fps of 30 that disagrees: %g", fps);
		slc_meta_set(F.r[0], "fps", "25", &err);
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 1 && fps == 25, "an fps that agrees with dt");
		slc_meta_set(F.r[0], "dt", "0.0416666666667", &err);
		slc_meta_set(F.r[0], "fps", "24", &err);
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 1 && fps == 24,
		      "fps stands when dt is 1/fps to 12 digits: %.17g", fps);
		slc_meta_unset(F.r[0], "fps");
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 1 && fps == 1 / 0.0416666666667,
		      "no fps: the rate is 1/dt");
		slc_meta_unset(F.r[0], "dt");
		slc_meta_set(F.r[0], "fps", "30", &err);
		CHECK(slc_scene_fps(F.r[0], &fps, &err) == 1 && fps == 30, "no dt: fps read");
		S.dt = NAN;
		CHECK(slc_scene_read(F.r[0], &S, &err) == 0 && S.dt == 1.0 / 30,
		      "no dt: the frame length is 1/fps: %.17g", S.dt);
		slc_meta_set(F.r[0], "dt", "0.04", &err);
		S.dt = NAN;
		CHECK(slc_scene_read(F.r[0], &S, &err) == 0 && S.dt == 0.04,
		      "dt is the frame length whatever fps says");
		CHECK(slc_scene_gravity(F.r[0], g, &err) == 0, "no gravity: 0");
		slc_meta_set(F.r[0], "gravity", "0,-9.8,inf", &err);
		CHECK(slc_scene_gravity(F.r[0], g, &err) < 0 && g[1] == 0,
		      "a gravity that is not finite is an error, g untouched: %s", err.msg);
		slc_meta_set(F.r[0], "gravity", "0,-9.8,0 x", &err);
		CHECK(slc_scene_gravity(F.r[0], g, &err) < 0, "trailing text after gravity is an error");
		slc_meta_set(F.r[0], "gravity", "0,-9.8,0", &err);
		CHECK(slc_scene_gravity(F.r[0], g, &err) == 1 && g[1] == -9.8, "gravity read");
	}
	slc_frame_free(&F);
	CHECK(F.n == 0 && F.r == NULL, "free leaves an empty frame");
	if (f)
		fclose(f);
	return ctest_done();
}
