/* fuzz_clothstep: libFuzzer target for the clothstep stage
 * (lib/stage/cloth_stage.h) on a frame built from the input
 * (fz_frame.h): a cloth mesh (a sheet, a closed shape, loose triangles or
 * points without triangles) with v, rest, goal, mass and pinned now and
 * then, the body level set 'solid' with solid_vel, other meshes, the
 * scene; options as clothstep(1) takes them.  Load, step, store.  A bug:
 * a crash, a sanitizer report, a timeout, or the cloth record holding NaN
 * or Inf after success from a frame without any. */
#include <math.h>
#include <stdint.h>

#include "fz_frame.h"
#include "stage/cloth_stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A value >= 0 of option o (those whose range is opt_nonneg). */
static double
nonneg(fz *z, double dflt)
{
	return fz_byte(z) < 160 ? dflt : fabs(fz_opt(z, 0));
}

/* clothstep(1)'s options within their ranges; --steps and --loops at most
 * 3 and 8 (up to 100000 allowed) so that one input runs in milliseconds. */
static void
options(fz *z, cloth_stage_opts *o)
{
	static const char *const names[] = { "cloth", "body", "tri" };

	cloth_stage_opts_default(o);
	if (fz_byte(z) >= 240)
		o->cloth = names[fz_below(z, 3)];
	o->fps = nonneg(z, 0);
	o->steps = (long)fz_below(z, 3) + 1;
	o->loops = (long)fz_below(z, 8) + 1;
	if (fz_byte(z) >= 192)
		for (int a = 0; a < 3; a++)
			o->grav[a] = fz_opt(z, 0);
	o->par.spring.E_e = nonneg(z, o->par.spring.E_e);
	if (fz_byte(z) >= 192)
		o->par.spring.xi_e = fz_opt(z, 0);
	o->par.spring.E_b = nonneg(z, o->par.spring.E_b);
	if (fz_byte(z) >= 192)
		o->par.spring.xi_b = fz_opt(z, 0);
	o->par.spring.compress_scale = nonneg(z, o->par.spring.compress_scale);
	if (fz_byte(z) >= 192 && (o->mass = fabs(fz_opt(z, 0))) == 0)
		o->mass = 1e-6;
	if (fz_byte(z) >= 192 && (o->par.cg_tol = fabs(fz_opt(z, 0))) == 0)
		o->par.cg_tol = 1e-3;
	o->mu = nonneg(z, o->mu);
	if (fz_byte(z) >= 160)
		o->ground = fz_opt(z, 0);
	if (fz_byte(z) >= 160) {
		for (int a = 0; a < 3; a++)
			o->sphere[a] = fz_opt(z, 0);
		o->sphere_r = fabs(fz_opt(z, 0));
	}
	o->par.self = fz_byte(z) < 224;
	o->thickness = nonneg(z, 0);
	o->par.k_rep = nonneg(z, o->par.k_rep);
	o->par.mu_self = nonneg(z, o->par.mu_self);
	if (fz_byte(z) >= 192) {
		for (int a = 0; a < 3; a++)
			o->par.wind[a] = fz_opt(z, 0);
		o->par.wind_drag = fabs(fz_opt(z, 0));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cloth_stage_opts o;
	cloth_stage s;
	slc_frame F;
	slc_err err;
	fz z;
	int clean;

	fz_init(&z, data, size);
	options(&z, &o);
	if (fz_frame(&z, FZ_SCENE | FZ_CLOTH | FZ_SOLID | FZ_MESHES, &F))
		return 0;
	clean = fz_frame_finite(&F);
	if (cloth_stage_load(&s, &F, &o, NULL, &err) == 0 &&
	    cloth_stage_step(&s, NULL, &err) == 0 &&
	    cloth_stage_store(&s, NULL, &err) == 0 && clean)
		fz_require_finite(s.cr, "clothstep");
	cloth_stage_free(&s);
	slc_frame_free(&F);
	return 0;
}
