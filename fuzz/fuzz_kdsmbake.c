/* fuzz_kdsmbake: libFuzzer target for what kdsmbake does (tools/kdsmbake.c)
 * in lib/kdsm/: on a frame built from the input (fz_frame.h) with a skin
 * (the mesh 'body' with rest, v, bw, adh, adh_dir now and then, and a
 * skeleton), the lattice around the skin's rest pose, written and read
 * back as the lattice file is, then the frame bake of the posed skin on
 * it, its records, and now and then the solid grids on a grid of the
 * frame ('kdsmbake frame --like').  Options as kdsmbake(1) takes them.  A
 * bug: a crash, a sanitizer report, a timeout, or NaN or Inf in a record
 * written with success from a frame without any. */
#include <math.h>
#include <stdint.h>

#include "fz_frame.h"
#include "kdsm/kdsm.h"
#include "kdsm/kdsm_recs.h"

/* Lattice spacings across the skin's rest box and fine tets at most: one
 * input must run in milliseconds (kdsmbake goes to KDSM_AXIS_MAX spacings
 * an axis, and 8000 fine tets take half a second under the sanitizers). */
#define SPANS_MAX 3.0
#define FINE_TETS_MAX 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The largest extent of the n points X along an axis. */
static double
extent(const double *X, size_t n)
{
	double e = 0;

	for (int a = 0; a < 3; a++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t q = 0; q < n; q++) {
			lo = fmin(lo, X[3 * q + a]);
			hi = fmax(hi, X[3 * q + a]);
		}
		if (n)
			e = fmax(e, hi - lo);
	}
	return e;
}

/* Does the posed skin stay within reach of its lattice: P and the rest
 * pose R together span at most SPANS_MAX spacings h, and each bone (3x4,
 * row-major) moves the rest box by at most about its size e (rotation part
 * within 1 of the identity, translation within e, R within 4e of the
 * origin)?  Else the bake's skin level set is a grid of up to 2^28
 * samples around nodes far from the skin: minutes, not a defect. */
static int
within_reach(const kdsm_skin *s, double e, double h)
{
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	const double *R = s->R ? s->R : s->P;

	for (size_t q = 0; q < s->nv; q++)
		for (int a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], fmin(s->P[3 * q + a], R[3 * q + a]));
			hi[a] = fmax(hi[a], fmax(s->P[3 * q + a], R[3 * q + a]));
			if (s->nbones && !(fabs(R[3 * q + a]) <= 4 * e))
				return 0;
		}
	for (int a = 0; a < 3; a++)
		if (s->nv && !(hi[a] - lo[a] <= SPANS_MAX * h))
			return 0;
	for (int b = 0; b < s->nbones; b++)
		for (int k = 0; k < 12; k++) {
			double m = s->M[12 * b + k];
			if (k % 4 == 3 ? !(fabs(m) <= e) : !(fabs(m - (k % 5 == 0)) <= 1))
				return 0;
		}
	return 1;
}

/* Every float of every record of out finite, else a bug. */
static void
require_all(const slc_frame *out)
{
	for (size_t q = 0; q < out->n; q++)
		fz_require_finite(out->r[q], "kdsmbake");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double rel[] = { 1, 0.5, 2, 0.25, 4 };
	static const int samples[] = { 8, 1, 4, 32, 64 };
	slc_frame F, like, LF = { 0 }, out = { 0 };
	kdsm_skin s;
	kdsm_skin_buf b;
	kdsm_lattice L = { 0 }, L2 = { 0 };
	kdsm_mesh m = { 0 };
	kdsm_stats st;
	slc_err err;
	double dx, ratio, shell, h, e;
	int levels, nsamp, have_like;
	fz z;

	fz_init(&z, data, size);
	ratio = fz_byte(&z) < 192 ? 4 : fz_real(&z, 4, 8);
	levels = (int)fz_below(&z, 3);
	shell = fz_byte(&z) < 192 ? 1 : fz_real(&z, 0, 2);
	nsamp = samples[fz_below(&z, sizeof samples / sizeof *samples)];
	dx = fz_pick(&z, rel, sizeof rel / sizeof *rel);
	if (fz_frame(&z, FZ_SKIN, &F))
		return 0;
	have_like = fz_byte(&z) >= 128 && !fz_frame(&z, FZ_GRIDS | FZ_SOLID, &like);
	/* kdsmbake refuses a frame with NaN or Inf as it reads it */
	if (!fz_frame_finite(&F) || (have_like && !fz_frame_finite(&like)) ||
	    kdsm_skin_read(&F, NULL, &s, &b, &err))
		goto out;
	/* --dx: a fraction of the skin's rest box, or 1 m for a flat one */
	e = extent(s.R ? s.R : s.P, s.nv);
	dx = e > 0 ? dx * e : dx;
	h = ldexp(dx / ratio, levels);
	if (!(h > 0) || !(e + 2 * shell * dx <= SPANS_MAX * h) || !within_reach(&s, e, h))
		goto skin;
	if (kdsm_lattice_build(&L, &s, h, shell * dx, levels, nsamp, &err) ||
	    (L.nt << 3 * levels) > FINE_TETS_MAX)
		goto skin;
	/* the lattice file, then the frame bake from it */
	if (kdsm_lattice_write(&L, &LF, &err))
		fz_bug("kdsmbake", "a built lattice not written");
	if (kdsm_lattice_read(&L2, &LF, &err))
		fz_bug("kdsmbake", "a written lattice not read back");
	if (kdsm_frame_bake(&L2, &s, &m, &st, &err) == 0 &&
	    kdsm_mesh_write(&m, &st, 0, b.mesh->time, &out, &err) == 0 &&
	    (!have_like || kdsm_solid_write(&F, b.mesh, &like, &out, &err) == 0))
		require_all(&out);
	kdsm_mesh_free(&m);
skin:
	kdsm_skin_buf_free(&b);
out:
	kdsm_lattice_free(&L);
	kdsm_lattice_free(&L2);
	slc_frame_free(&LF);
	slc_frame_free(&out);
	if (have_like)
		slc_frame_free(&like);
	slc_frame_free(&F);
	return 0;
}
