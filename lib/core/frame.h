/* frame.h: one frame in memory: the records of a stream in stream order,
 * owned by the frame, which grows as records are read or added.
 *
 * A frame (HACKING.md, "Record names in a frame") is one stream holding
 * the whole state of a simulation at one time.  Stages read a frame, find
 * the records they work on by name and kind, change or add records, and
 * write the frame out in order.  Records live at fixed addresses: a
 * pointer to a record stays valid while other records are added, until
 * that record is removed or the frame freed.
 *
 * The scene record ('scene', kind meta) carries the frame number, the
 * time and the frame length; slc_scene_read and slc_scene_advance read
 * and set them.
 */
#ifndef SLC_FRAME_H
#define SLC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/slc.h"

typedef struct slc_frame {
	slc_rec **r;            /* records in stream order, each owned */
	size_t n, cap;
} slc_frame;

/* An empty frame; equivalent to zeroing it. */
void slc_frame_init(slc_frame *F);

/* Free every record and the frame's arrays; F is left empty. */
void slc_frame_free(slc_frame *F);

/* Append every record of rd up to the end of its stream to F.  0, or -1
 * with err (the reader's message, or memory); on failure the records
 * read so far stay in F. */
int slc_frame_read(slc_frame *F, slc_reader *rd, slc_err *err);

/* Append record r to F, moving its contents: on success the record F
 * owns is returned and *r is left empty (as after slc_rec_free), so the
 * caller frees nothing; NULL with err (memory) leaves *r untouched. */
slc_rec *slc_frame_put(slc_frame *F, slc_rec *r, slc_err *err);

/* Append a new empty record of the given kind and name (slc_rec_init).
 * The record or NULL with err (memory). */
slc_rec *slc_frame_add(slc_frame *F, uint32_t kind, const char *name, slc_err *err);

/* Records kept encoded: read_frame reads with slc_reader_defer, so a
 * zlib grid or particles record (or one of an unknown kind) of a frame
 * holds only its stored bytes until used (slc.h, "Still-encoded
 * records").  A stage reaches the data of a grid or particles record
 * only through slc_frame_get or slc_frame_find_unique, which decode the
 * record and check its values finite, or by calling slc_frame_decode on
 * a record it picked from F->r itself; records it passes on unused stay
 * encoded and are written as stored.  slc_frame_find does not decode and
 * refuses, when compiled, to look up a grid or particles record. */

/* Decode record r of F if it is still encoded, and check every value of
 * its float channels finite (the check read_frame left to the stage that
 * uses the record), naming F's frame number.  No-op for a decoded
 * record.  0, or -1 with err (memory, or slc_rec_check_finite's
 * message). */
int slc_frame_decode(const slc_frame *F, slc_rec *r, slc_err *err);

/* The first record of F with this name and kind, decoded
 * (slc_frame_decode): 0 with *out set (NULL when F has none), or -1 with
 * err and *out NULL. */
int slc_frame_get(const slc_frame *F, const char *name, uint32_t kind, slc_rec **out,
		  slc_err *err);

/* The first record of F with this name and kind, or NULL; not decoded.
 * For kinds that are never kept encoded (meta, meshes, tets, strands):
 * the kind must be a constant other than SLC_GRID and SLC_PARTICLES,
 * which the macro below checks when compiling (use slc_frame_get). */
slc_rec *slc_frame_find(const slc_frame *F, const char *name, uint32_t kind);
#define slc_frame_find(F, name, kind)                                             \
	slc_frame_find((F), (name), (kind) + (uint32_t)(0 * sizeof(struct {       \
		_Static_assert((kind) != SLC_GRID && (kind) != SLC_PARTICLES,     \
			       "a grid or particles record may be still encoded: " \
			       "look it up with slc_frame_get");                   \
		int unused; })))

/* The first record of F with this name and kind, or NULL, of any kind
 * and not decoded: for a record the caller replaces or removes without
 * reading its channel data. */
slc_rec *slc_frame_find_undecoded(const slc_frame *F, const char *name, uint32_t kind);

/* The record of F with this name and kind, required to be the only one,
 * decoded (slc_frame_decode): 0 with *out set (NULL when F has none), or
 * -1 with err and *out NULL: "2 records named 'NAME' of kind KIND" when
 * there are several, or slc_frame_decode's message. */
int slc_frame_find_unique(const slc_frame *F, const char *name, uint32_t kind,
			  slc_rec **out, slc_err *err);

/* The position of record r in F, or F->n when r is not one of F's. */
size_t slc_frame_index(const slc_frame *F, const slc_rec *r);

/* Remove record r from F and free it (no-op when r is not one of F's);
 * the records after it keep their order and addresses. */
void slc_frame_remove(slc_frame *F, slc_rec *r);

/* Every sample of every float channel of records first..F->n-1 of F
 * that are decoded finite (a still-encoded record is checked by
 * slc_frame_decode when a stage uses it), so that a stage reading a frame names a NaN or Inf where it is
 * rather than where it has spread to (formats/slc.md, "Errors").  0, or
 * -1 with slc_rec_check_finite's message for the first bad record, which
 * names the record, channel and first bad element, and the frame number
 * of the first scene record among them (the record's time without one). */
int slc_frame_check_finite(const slc_frame *F, size_t first, slc_err *err);

/* What the scene record says of the frame: the frame number, the time
 * (seconds) at which it is, and the frame length dt (seconds). */
typedef struct slc_scene {
	double frame, time, dt;
} slc_scene;

/* Frame numbers are whole numbers within +-SLC_SCENE_FRAME_MAX: 2^53,
 * past which doubles stop counting by one (so a frame number always
 * converts to a long). */
#define SLC_SCENE_FRAME_MAX 9007199254740992.0

/* Read frame, time and dt from the scene record (meta) into S; a key
 * missing leaves its member alone, so the caller sets defaults first,
 * and dt is read only when S->dt is NaN (a length the caller was given
 * wins).  The frame length is the scene's dt; without one, 1/fps
 * (slc_scene_fps).  scene may be NULL (nothing read).  0, or -1 with err when a
 * value is not a finite number, the frame is not a whole number within
 * SLC_SCENE_FRAME_MAX, or dt is negative. */
int slc_scene_read(const slc_rec *scene, slc_scene *S, slc_err *err);

/* How far dt x fps may be from 1 for the scene's fps to stand for its
 * rate: writers print dt to 12 significant digits (prim_scene_rec), so
 * 1e-9 holds a rate written with its dt and tells apart any two rates
 * in use (23.976 and 24 differ by 1e-3). */
#define SLC_SCENE_RATE_TOL 1e-9

/* The scene's frame rate (frames per second) into *fps.  Its dt wins
 * (formats/slc.md, "Meta"): with a dt > 0 the rate is 1/dt, or the
 * scene's `fps` when dt x fps is 1 within SLC_SCENE_RATE_TOL; without a
 * dt, `fps`.  1 when the scene has either, 0 when it has neither or
 * scene is NULL (*fps untouched), -1 with err when a value is not a
 * number or fps is not a positive number whose frame length 1/fps is
 * finite (a subnormal rate gives an infinite frame). */
int slc_scene_fps(const slc_rec *scene, double *fps, slc_err *err);

/* The scene's gravity `gravity=gx,gy,gz` (m/s^2) into g: 1 when the
 * scene has one, 0 when it has none or scene is NULL (g untouched), -1
 * with err when it is not three finite numbers. */
int slc_scene_gravity(const slc_rec *scene, double g[3], slc_err *err);

/* Set the scene record's frame and time to those of the frame written:
 * frame as a whole number, time to 12 significant digits.  0, or -1 with
 * err (memory). */
int slc_scene_advance(slc_rec *scene, double frame, double time, slc_err *err);

#endif
