/* fuzz_mklevelset: libFuzzer target for what mklevelset does
 * (tools/mklevelset.c) in lib/: the level set of the meshes, particles
 * and strands of a frame built from the input (fz_frame.h) through
 * lib/geom/sdf_recs.h (select, place, sdf_recs_levelset with occlusion
 * velocity and slip, a previous frame, a grid to place like), or
 * --redistance (lib/grid/redistance.h, redistance_rec) of its grids;
 * options as mklevelset(1) takes them.  A bug: a crash, a sanitizer
 * report, a timeout, or NaN or Inf in a field made with success from a
 * frame without any. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fz_frame.h"
#include "geom/sdf_recs.h"
#include "grid/redistance.h"

/* Grids larger than this are not made: one input must run in
 * milliseconds (mklevelset itself goes to 2^31 samples). */
#define CELLS_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const from_lists[] = { "body", "tri,spray", "hair", "water,dust,sdf",
					  "cloth", "phi", "solid,density", "nothing" };

/* Abort when one of the n floats of a is NaN or Inf. */
static void
require_finite(const float *a, size_t n, const char *what)
{
	for (size_t q = 0; q < n; q++)
		if (!isfinite(a[q]))
			fz_bug("mklevelset", what);
}

/* --redistance: every grid record named in from (default phi). */
static void
redistance_all(fz *z, const slc_frame *F, const char *from, int clean)
{
	static const double width[] = { 0, 3, 1, 0.5, 100 };
	double wd = fz_pick(z, width, sizeof width / sizeof *width);
	slc_rec out;
	slc_err err;

	for (size_t q = 0; q < F->n; q++) {
		const slc_rec *r = F->r[q];

		if (r->kind != SLC_GRID || !slc_name_listed(r->name, from ? from : "phi"))
			continue;
		if (redistance_rec(r, wd, &out, &err))
			continue;
		if (clean)
			fz_require_finite(&out, "mklevelset --redistance");
		slc_rec_free(&out);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double dxs[] = { 0, 0.1, 1, 0.05, 1e-3 };
	static const double bands[] = { 3, 1, 2, 1.5, 6 };
	slc_frame F, prev, like;
	sdf_recs_in li = { 0 };
	sdf_recs_out lo = { 0 };
	slc_grid g;
	slc_err err;
	double box[6], dx, pad, radius, t0 = 0, *slip = NULL;
	const char *from = NULL;
	int *use = NULL, nmesh, npart, nhair, have_like, have_prev, have_box, clean;
	long res;
	size_t n;
	fz z;

	fz_init(&z, data, size);
	if (fz_byte(&z) >= 192)
		from = from_lists[fz_below(&z, sizeof from_lists / sizeof *from_lists)];
	if (fz_frame(&z, FZ_MESHES | FZ_PARTICLES | FZ_STRANDS | FZ_CLOTH | FZ_LIQUID |
		     FZ_SOLID | FZ_GRIDS, &F))
		return 0;
	clean = fz_frame_finite(&F);
	if (fz_byte(&z) >= 224) {
		redistance_all(&z, &F, from, clean);
		slc_frame_free(&F);
		return 0;
	}
	dx = fz_pick(&z, dxs, sizeof dxs / sizeof *dxs);
	res = (long)fz_below(&z, 16) + 1;
	pad = fz_real(&z, 0, 4);
	radius = fz_byte(&z) < 192 ? 0 : fz_opt(&z, 0);
	li.o.band = fz_pick(&z, bands, sizeof bands / sizeof *bands);
	li.o.unsigned_dist = fz_byte(&z) >= 192;
	li.o.narrow = fz_byte(&z) >= 192;
	li.occl = fz_byte(&z) >= 160;
	li.dt = fz_byte(&z) < 128 ? 0 : fz_opt(&z, 0);
	if ((have_box = fz_byte(&z) >= 224))
		for (int a = 0; a < 3; a++) {
			box[a] = fz_real(&z, -2, 2);
			box[a + 3] = box[a] + fz_real(&z, 1e-3, 3);
		}
	have_like = fz_byte(&z) >= 224 && !fz_frame(&z, FZ_MAC | FZ_GRIDS, &like);
	have_prev = fz_byte(&z) >= 192 && !fz_frame(&z, FZ_MESHES | FZ_CLOTH, &prev);

	use = calloc(F.n + 1, sizeof *use);
	slip = calloc(F.n + 1, sizeof *slip);
	if (!use || !slip)
		abort();
	sdf_recs_select(&F, from, use, &nmesh, &npart, &nhair, &t0);
	/* mklevelset refuses these before any call into lib/ */
	if ((!nmesh && !npart && !nhair) || (li.occl && (npart || nhair)))
		goto out;
	if (sdf_recs_place(&F, use, have_like ? &like : NULL, have_box ? box : NULL, pad, dx,
			   res, radius, &g, &err) ||
	    slc_mul3((size_t)g.ni, (size_t)g.nj, (size_t)g.nk, &n) || n > CELLS_MAX)
		goto out;
	for (size_t q = 0; q < F.n; q++)
		slip[q] = fz_byte(&z) < 192 ? 0 : fz_real(&z, 0, 1);
	li.use = use;
	li.slip = slip;
	li.radius = radius > 0 ? radius : g.dx;
	li.prev = have_prev ? &prev : NULL;
	if (sdf_recs_levelset(&F, &li, &g, &lo, &err) == 0 && clean) {
		require_finite(lo.phi.a, n, "level set not finite");
		if (li.occl) {
			require_finite(lo.vel, 3 * n, "occlusion velocity not finite");
			require_finite(lo.slip, n, "slip not finite");
		}
	}
	sdf_recs_out_free(&lo);
out:
	free(use);
	free(slip);
	if (have_like)
		slc_frame_free(&like);
	if (have_prev)
		slc_frame_free(&prev);
	slc_frame_free(&F);
	return 0;
}
