/* fuzz_shellcouple: libFuzzer target for the shellcouple stage
 * (lib/stage/shell_stage.h) on a frame built from the input
 * (fz_frame.h): u, v, w, solid, phi, rigid bodies, p, the scene and the
 * shell 'cloth' (v, mass, pinned), to which the target adds P_prev and
 * f_fluid from the input (plain, extreme or non-finite); options as
 * shellcouple(1) takes them.  Load, run, store.  A bug: a crash, a
 * sanitizer report, a timeout, or a record the stage changed holding NaN
 * or Inf after success from a frame without any. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fz_frame.h"
#include "stage/shell_stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const shell_name[] = { "cloth" };

/* shellcouple(1)'s options within their ranges; --maxiter at most 200;
 * the cloth's springs clothstep's defaults, the edge stiffness scaled. */
static void
options(fz *z, shell_opts *o)
{
	static const double tol[] = { 1e-6, 1e-3, 1e-12, 0.5 };
	static const double density[] = { 1000, 1.2, 1e-3, 1e6 };
	static const double eps[] = { 1e-3, 0.1, 1e-9, 2 };
	static const double scale[] = { 1, 0, 1e5, 1e-6 };

	memset(o, 0, sizeof *o);
	o->stage = fz_byte(z) & 1;
	o->coupling = fz_byte(z) & 1;
	o->transfer = fz_byte(z) & 1;
	o->names = shell_name;
	o->nnames = 1;
	o->eps = fz_pick(z, eps, sizeof eps / sizeof *eps);
	o->sigma = fz_byte(z) < 128 ? NAN : fabs(fz_opt(z, 0));
	if (!(o->sigma > 0) || !isfinite(o->sigma))
		o->sigma = NAN;
	o->po.precond = fz_byte(z) & 1 ? PCG_MIC0 : PCG_MG;
	o->po.binary = fz_byte(z) & 1;
	o->po.bc = (int)fz_below(z, 3);
	o->po.tol = fz_pick(z, tol, sizeof tol / sizeof *tol);
	o->po.maxiter = (int)fz_below(z, 200) + 1;
	o->po.density = fz_pick(z, density, sizeof density / sizeof *density);
	o->po.dt = fz_byte(z) < 192 ? NAN : fabs(fz_opt(z, 0));
	if (!(o->po.dt > 0))
		o->po.dt = NAN;
	spring_params_default(&o->spring);
	o->spring.E_e *= fz_pick(z, scale, sizeof scale / sizeof *scale);
	o->g[0] = o->g[1] = o->g[2] = NAN;
}

/* P_prev (P moved by small or extreme offsets) and f_fluid on the
 * cloth, each there or not by the input. */
static void
shell_channels(fz *z, slc_frame *F)
{
	slc_rec *m = slc_frame_find(F, "cloth", SLC_MESH);
	slc_chan *P = m ? slc_rec_find(m, "P") : NULL;
	slc_err err;

	if (!P || P->ncomp != 3 || slc_rec_own(m, &err))
		return;
	P = slc_rec_find(m, "P");
	for (int c = 0; c < 2; c++) {
		if (fz_byte(z) < 96)
			continue;
		double *d = slc_rec_add(m, c ? "f_fluid" : "P_prev", SLC_F64, 3, SLC_POINT,
					P->count, &err);
		if (!d)
			return;
		P = slc_rec_find(m, "P");      /* the add may move the channels */
		for (uint64_t i = 0; i < 3 * P->count; i++) {
			double x = P->type == SLC_F64 ? ((double *)P->data)[i] :
				   P->type == SLC_F32 ? ((float *)P->data)[i] : 0;
			d[i] = c ? fz_opt(z, 1) : x + fz_real(z, -0.1, 0.1) * fz_scale(z);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	shell_opts o;
	shell_stage S;
	shell_stats st;
	slc_frame F;
	slc_err err;
	fz z;
	int clean;

	fz_init(&z, data, size);
	options(&z, &o);
	if (fz_frame(&z, FZ_SCENE | FZ_MAC | FZ_SOLID | FZ_LIQUID | FZ_RIGID | FZ_PRESSURE |
		     FZ_CLOTH, &F))
		return 0;
	shell_channels(&z, &F);
	clean = fz_frame_finite(&F);
	if (shell_stage_load(&S, &F, &o, NULL, &err) == 0) {
		if (shell_stage_run(&S, &st, NULL, &err) == 0 &&
		    shell_stage_store(&S, NULL, &err) == 0 && clean)
			for (size_t i = 0; i < F.n; i++)
				if (shell_stage_changed(&S, F.r[i]))
					fz_require_finite(F.r[i], "shellcouple");
		shell_stage_free(&S);
	}
	slc_frame_free(&F);
	return 0;
}
