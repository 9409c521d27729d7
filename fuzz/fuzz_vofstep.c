/* fuzz_vofstep: libFuzzer target for what vofstep does (tools/vofstep.c,
 * lib/stage/vof_stage.c): a skin from the input (fz_frame.h, as
 * fuzz_kdsmbake builds it) baked on a small lattice into two bake frames
 * (the posed skin, and the rest pose: a mesh that moved), then a frame of
 * scene, grid velocity and liquid (phi, spray) whose water is put on the
 * first mesh by `vofstep init --fill phi` and changed by the input, and
 * then either `vofstep step` or the chain advect, conserve, finish (the
 * grid stages between left out: they pass vof through), with options as
 * vofstep(1) takes them.  A bug: a crash, a sanitizer report, a timeout,
 * or NaN or Inf in a record a stage wrote with success from a frame
 * without any. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fz_frame.h"
#include "kdsm/kdsm.h"
#include "kdsm/kdsm_recs.h"
#include "stage/vof_stage.h"

/* Fine tets at most: one input must run in milliseconds under the
 * sanitizers (advection locates every sample of every tet). */
#define FINE_TETS_MAX 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bake skin s (pose P) on L into the bake frame B.  0 or -1. */
static int
bake(const kdsm_lattice *L, const kdsm_skin *s, long frame, slc_frame *B)
{
	kdsm_mesh m = { 0 };
	kdsm_stats st;
	slc_err err;
	int rc = kdsm_frame_bake(L, s, &m, &st, &err) ||
		 kdsm_mesh_write(&m, &st, frame, frame / 24.0, B, &err) ? -1 : 0;

	kdsm_mesh_free(&m);
	return rc;
}

/* One stage of mode on F: load, step, store; the records it wrote must be
 * finite.  0, or -1 when lib/ refused. */
static int
stage(fz *z, slc_frame *F, const slc_frame *B0, const slc_frame *B1, int mode)
{
	vof_stage_opts o;
	vof_stage S;
	slc_err err;
	int rc = -1;

	vof_stage_opts_default(&o);
	o.mode = mode;
	o.fill = mode == VOF_MODE_INIT ? "phi" : NULL;
	o.grid = fz_byte(z) >= 64;
	o.absorb = fz_byte(z) >= 64;
	o.beta = fz_byte(z) < 128 ? 0 : fz_real(z, 0, 1);
	o.dt = fz_byte(z) < 128 ? 0 : fz_real(z, 1e-4, 0.5);
	o.seed = fz_byte(z);
	o.jitter = fz_real(z, VOF_JITTER_MIN, VOF_JITTER_MAX);
	o.fraction = fz_byte(z) >= 128;
	o.adh = fz_byte(z) < 128 ? 0 : fz_real(z, 0, 100);
	o.dmax = fz_byte(z) < 128 ? 0 : fz_real(z, 0, 1);
	if (vof_stage_load(&S, F, B0, B1, &o, NULL, &err) == 0 &&
	    vof_stage_step(&S, NULL, &err) == 0 && vof_stage_store(&S, NULL, &err) == 0) {
		for (size_t q = 0; q < F->n; q++)
			if (vof_stage_changed(&S, F->r[q]))
				fz_require_finite(F->r[q], "vofstep");
		rc = 0;
	}
	vof_stage_free(&S);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	slc_frame F, G, B0 = { 0 }, B1 = { 0 };
	kdsm_skin s, r;
	kdsm_skin_buf b;
	kdsm_lattice L = { 0 };
	slc_err err;
	double lo = INFINITY, hi = -INFINITY, h;
	fz z;

	fz_init(&z, data, size);
	if (fz_frame(&z, FZ_SKIN, &F))
		return 0;
	if (fz_frame(&z, FZ_SCENE | FZ_MAC | FZ_LIQUID, &G)) {
		slc_frame_free(&F);
		return 0;
	}
	if (!fz_frame_finite(&F) || !fz_frame_finite(&G) || kdsm_skin_read(&F, NULL, &s, &b, &err))
		goto out;
	/* a lattice of 2..4 spacings across the skin, no bones: the skin and
	 * its rest pose as two frames of one lattice */
	for (size_t q = 0; q < 3 * s.nv; q++) {
		lo = fmin(lo, fmin(s.P[q], s.R ? s.R[q] : s.P[q]));
		hi = fmax(hi, fmax(s.P[q], s.R ? s.R[q] : s.P[q]));
	}
	h = (hi - lo) / fz_real(&z, 1, 3);
	s.nbones = 0;
	r = s;
	r.P = s.R ? s.R : s.P;
	r.v = NULL;
	if (!(h > 0 && h < INFINITY) ||
	    kdsm_lattice_build(&L, &s, h, fz_real(&z, 0, 1) * h, 0, fz_byte(&z) < 128 ? 1 : 8,
			       &err) ||
	    L.nt > FINE_TETS_MAX || bake(&L, &s, 0, &B0) || bake(&L, &r, 1, &B1))
		goto skin;
	if (stage(&z, &G, NULL, &B0, VOF_MODE_INIT))
		goto skin;
	/* water the input puts on a few tets, any amount, any velocity */
	slc_rec *vr = slc_frame_find(&G, "vof", SLC_TETS);
	double *W = (double *)slc_rec_find(vr, "water")->data;
	double *u = (double *)slc_rec_find(vr, "vel")->data;
	size_t nt = slc_rec_find(vr, "water")->count;
	for (int k = 0, n = (int)fz_below(&z, 16); k < n && nt; k++) {
		size_t t = fz_below(&z, (unsigned)nt);
		W[t] = fz_real(&z, 0, 1) * fz_scale(&z);
		for (int a = 0; a < 3; a++)
			u[3 * t + a] = fz_real(&z, -1, 1) * fz_scale(&z);
	}
	if (!fz_frame_finite(&G))
		goto skin;
	if (fz_byte(&z) < 128)
		stage(&z, &G, &B0, &B1, VOF_MODE_STEP);
	else if (stage(&z, &G, &B0, &B1, VOF_MODE_ADVECT) == 0 &&
		 stage(&z, &G, NULL, &B1, VOF_MODE_CONSERVE) == 0)
		stage(&z, &G, NULL, &B1, VOF_MODE_FINISH);
skin:
	kdsm_skin_buf_free(&b);
out:
	kdsm_lattice_free(&L);
	slc_frame_free(&B0);
	slc_frame_free(&B1);
	slc_frame_free(&G);
	slc_frame_free(&F);
	return 0;
}
