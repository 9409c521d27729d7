/* fuzz_advect: libFuzzer target for the advect stage
 * (lib/stage/advect_stage.h) on a frame built from the input
 * (fz_frame.h): velocity, solid, liquid with markers and spray, smoke,
 * vortex particles, rigid bodies, other particles, the scene; options as
 * advect(1) takes them.  Load, up to SUBSTEPS_MAX substeps, store when
 * the frame is done.  A bug: a crash, a sanitizer report, a timeout, or
 * a record the stage changed holding NaN or Inf after success from a
 * frame without any. */
#include <math.h>
#include <stdint.h>

#include "fz_frame.h"
#include "stage/advect_stage.h"

/* A frame needing more substeps than this is left unfinished: one input
 * must run in milliseconds. */
#define SUBSTEPS_MAX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* advect(1)'s options, each within its documented range. */
static void
options(fz *z, advect_stage_opts *o)
{
	static const double cfl[] = { 1, 0, 0.5, 2, 5, 1e-3 };
	static const double per_cell[] = { 16, 1, 2, 4 };

	advect_stage_defaults(o);
	o->scheme = (int)fz_below(z, 3);
	o->limiter = (int)fz_below(z, 3);
	o->open = fz_byte(z) & 1;
	o->cfl = fz_pick(z, cfl, sizeof cfl / sizeof *cfl);
	if (fz_byte(z) >= 224)
		o->substep = fabs(fz_opt(z, 0));
	if (fz_byte(z) >= 160)
		o->dt = fz_real(z, 1e-4, 0.1);
	if (fz_byte(z) >= 192)
		for (int a = 0; a < 3; a++)
			o->gravity[a] = fz_opt(z, 0);
	if (fz_byte(z) >= 160) {
		o->buoyancy[0] = fz_opt(z, 0);
		o->buoyancy[1] = fz_opt(z, 0);
		o->ambient = fz_opt(z, 0);
	}
	if (fz_byte(z) >= 192)
		o->confinement = fz_opt(z, 0);
	if (fz_byte(z) >= 128) {
		o->source = "source";
		o->source_density = fz_opt(z, 0);
		o->source_temperature = fz_opt(z, 0);
		if (fz_byte(z) >= 192)
			for (int a = 0; a < 3; a++)
				o->source_velocity[a] = fz_opt(z, 0);
		if (fz_byte(z) >= 160) {
			o->vortex.rate = fz_real(z, 0, 200);
			o->vortex.omega = fz_opt(z, 0);
			o->vortex.radius = fz_real(z, 0.5, 6);
			o->vortex.kernel = (int)fz_below(z, 2);
			o->vortex.eps = fz_opt(z, 0);
		}
	}
	o->seed = (long)fz_below(z, 4);
	o->pls = (int)fz_below(z, 3);
	o->reseed = (long)fz_below(z, 3);
	o->per_cell = (long)fz_pick(z, per_cell, sizeof per_cell / sizeof *per_cell);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	advect_stage_opts o;
	advect_stage S;
	slc_frame F;
	slc_err err;
	fz z;
	int clean, k;

	fz_init(&z, data, size);
	options(&z, &o);
	if (fz_frame(&z, FZ_SCENE | FZ_MAC | FZ_SOLID | FZ_LIQUID | FZ_SMOKE | FZ_VORTEX |
		     FZ_RIGID | FZ_PRESSURE | FZ_PARTICLES | FZ_GRIDS, &F))
		return 0;
	clean = fz_frame_finite(&F);
	if (advect_stage_load(&S, &F, &o, NULL, &err) == 0) {
		for (k = 0; k < SUBSTEPS_MAX && !advect_stage_done(&S); k++)
			if (advect_stage_substep(&S, &err))
				break;
		if (advect_stage_done(&S) && advect_stage_store(&S, &err) == 0 && clean)
			for (size_t i = 0; i < F.n; i++)
				if (advect_stage_changed(&S, F.r[i]))
					fz_require_finite(F.r[i], "advect");
	}
	advect_stage_free(&S);
	slc_frame_free(&F);
	return 0;
}
