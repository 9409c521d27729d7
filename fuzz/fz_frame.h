/* fz_frame.h: the shared decoder of the structure-aware fuzz targets
 * (fuzz/fuzz_advect.c, fuzz_project.c, fuzz_clothstep.c, fuzz_mklevelset.c,
 * fuzz_surfacer.c, fuzz_rasterize.c, fuzz_hairstep.c, fuzz_kdsmbake.c): turns the fuzzer's bytes into choices,
 * and choices into a valid frame (core/frame.h) of small size.
 *
 * The bytes are read in order, one choice at a time; past the end of the
 * input every byte reads as 0, which chooses the smallest and plainest
 * option (a record absent, a count of zero or one), so that a short input
 * gives a small frame and a mutation changes one decision at a time.
 *
 * A frame is built from groups of records (FZ_*), the records each stage
 * finds by name (HACKING.md, "Record names in a frame"): a small grid set
 * on one cell placement (1..6 cells an axis, dx and origin chosen, now and
 * then a record placed a little off), level sets shaped as spheres or
 * planes or noise, velocities, meshes (sheets, closed shapes, loose points
 * and triangles, points without triangles), particles, strands, rigid
 * bodies and the scene record with its keys.  Values come in a chosen
 * scale, from 0 to near FLT_MAX, and some records get NaN, Inf, huge or
 * denormal samples.  The frame is then written as a stream and read back,
 * as a tool reads its input, so that the stage sees what the reader lets
 * through (a record the writer refuses is left out).
 *
 * A target decides what is a bug: a crash, a sanitizer report, a timeout,
 * or lib/ saying success while leaving NaN or Inf in what it wrote from a
 * frame that had none (fz_frame_finite, fz_require_finite).  An error
 * returned by lib/ is the input refused: no bug.
 */
#ifndef FZ_FRAME_H
#define FZ_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "core/slc.h"

/* The fuzzer's bytes being read. */
typedef struct fz {
	const uint8_t *p;
	size_t n;
} fz;

void fz_init(fz *z, const uint8_t *data, size_t size);

/* The next byte, 0 past the end. */
unsigned fz_byte(fz *z);

/* A choice among n (1..65536): 0..n-1. */
unsigned fz_below(fz *z, unsigned n);

/* A number in [lo, hi] (two bytes). */
double fz_real(fz *z, double lo, double hi);

/* One of the n values of list. */
double fz_pick(fz *z, const double *list, unsigned n);

/* A length scale: 0 (for an amplitude), 1e-6 .. 1e3, now and then 1e30
 * or 3e38 (near FLT_MAX). */
double fz_scale(fz *z);

/* Either NaN (an option left at "the frame's") or a value of fz_scale
 * with a sign: for options a tool takes as any finite double. */
double fz_opt(fz *z, int nan_ok);

/* The record groups of a frame; a target asks for those its stage
 * reads, and every one is then present or not by the input. */
enum {
	FZ_SCENE = 1 << 0,      /* scene: frame, time, dt, gravity, fps */
	FZ_MAC = 1 << 1,        /* u, v, w */
	FZ_SOLID = 1 << 2,      /* solid, solid_vel, solid_slip */
	FZ_LIQUID = 1 << 3,     /* phi, pls_pos, pls_neg, spray */
	FZ_SMOKE = 1 << 4,      /* density, temperature, source */
	FZ_VORTEX = 1 << 5,     /* vortex particles with omega */
	FZ_RIGID = 1 << 6,      /* rigid, rigid_phi or rigid_phi0 */
	FZ_PRESSURE = 1 << 7,   /* p */
	FZ_CLOTH = 1 << 8,      /* mesh 'cloth' with v, rest, mass, pinned, goal */
	FZ_MESHES = 1 << 9,     /* up to 2 meshes: 'body', 'tri', 'sdf' ... */
	FZ_PARTICLES = 1 << 10, /* up to 2 particle records */
	FZ_STRANDS = 1 << 11,   /* one strands record 'hair' */
	FZ_GRIDS = 1 << 12,     /* up to 2 grids of other names */
	FZ_HAIR = 1 << 13,      /* strands 'hair' with v, rest, goal, mass,
				   pinned, kscale (not with FZ_STRANDS) */
	FZ_SKIN = 1 << 14       /* mesh 'body' with rest, v, bw, adh, adh_dir
				   and meta 'skeleton' */
};

/* The frame built from z: the groups in want (each record present or not
 * by z), written as a stream and read back into F (empty before).  0, or
 * -1 when nothing of it came through (F is then empty). */
int fz_frame(fz *z, unsigned want, slc_frame *F);

/* Every f32 and f64 channel of every grid, mesh, tets, particles and
 * strands record of F finite? */
int fz_frame_finite(const slc_frame *F);

/* Abort, naming record r and what stage, when a float channel of r is
 * NaN or Inf: lib/ said success and wrote a non-finite value. */
void fz_require_finite(const slc_rec *r, const char *stage);

/* Abort with what failed: a contract of lib/ was broken. */
void fz_bug(const char *what, const char *detail);

#endif
