/* fuzz_project: libFuzzer target for the project stage
 * (lib/stage/project_stage.h) on a frame built from the input
 * (fz_frame.h): u, v, w, solid with solid_vel, phi, rigid bodies with
 * their level sets, p, the scene; options as project(1) takes them.
 * Load, solve, store.  A bug: a crash, a sanitizer report, a timeout, or
 * a record the stage changed holding NaN or Inf after success from a
 * frame without any. */
#include <math.h>
#include <stdint.h>

#include "fz_frame.h"
#include "stage/project_stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* project(1)'s options within their ranges; --maxiter at most 200 (its
 * default 500 is never reached on these grids but by a bug). */
static void
options(fz *z, project_opts *o)
{
	static const double tol[] = { 1e-6, 1e-3, 1e-12, 0.5, 1e-300, 10 };
	static const double density[] = { 1000, 1, 1e-3, 1e6, 1e-30, 1e30 };

	o->precond = fz_byte(z) & 1 ? PCG_MIC0 : PCG_MG;
	o->binary = fz_byte(z) & 1;
	o->bc = (int)fz_below(z, 3);
	o->tol = fz_pick(z, tol, sizeof tol / sizeof *tol);
	o->maxiter = (int)fz_below(z, 200) + 1;
	o->density = fz_pick(z, density, sizeof density / sizeof *density);
	o->dt = fz_byte(z) < 192 ? NAN : fabs(fz_opt(z, 0));
	if (!(o->dt > 0))
		o->dt = NAN;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	project_opts o;
	project_stage S;
	project_stats st;
	slc_frame F;
	slc_err err;
	fz z;
	int clean;

	fz_init(&z, data, size);
	options(&z, &o);
	if (fz_frame(&z, FZ_SCENE | FZ_MAC | FZ_SOLID | FZ_LIQUID | FZ_RIGID | FZ_PRESSURE |
		     FZ_GRIDS, &F))
		return 0;
	clean = fz_frame_finite(&F);
	if (project_stage_load(&S, &F, &o, NULL, &err) == 0) {
		if (project_stage_solve(&S, &st, NULL, &err) == 0 &&
		    project_stage_store(&S, NULL, &err) == 0 && clean)
			for (size_t i = 0; i < F.n; i++)
				if (project_stage_changed(&S, F.r[i]))
					fz_require_finite(F.r[i], "project");
		project_stage_free(&S);
	}
	slc_frame_free(&F);
	return 0;
}
