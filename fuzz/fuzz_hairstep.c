/* fuzz_hairstep: libFuzzer target for the hairstep stage
 * (lib/stage/hair_stage.h) on a frame built from the input (fz_frame.h):
 * the strands record 'hair' with v, rest, goal, mass, pinned and kscale
 * now and then, the body level set 'solid' with solid_vel, the scene;
 * options as hairstep(1) takes them.  Load, step, store, and now and then
 * a second frame from the stored one, which reads back the virtual
 * particles the first wrote (virt_*).  A bug: a crash, a sanitizer report,
 * a timeout, or the hair record holding NaN or Inf after success from a
 * frame without any. */
#include <math.h>
#include <stdint.h>

#include "fz_frame.h"
#include "stage/hair_stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A value >= 0 (options whose range is opt_nonneg), or dflt. */
static double
nonneg(fz *z, double dflt)
{
	return fz_byte(z) < 160 ? dflt : fabs(fz_opt(z, 0));
}

/* A value > 0 (opt_positive), or dflt. */
static double
positive(fz *z, double dflt)
{
	double v = nonneg(z, dflt);

	return v > 0 ? v : dflt;
}

/* CG iterations a solve at most (hairstep: HAIR_CG_MAX): ill-conditioned
 * springs took thousands a frame, seconds under the sanitizers. */
#define CG_MAX 64

/* hairstep(1)'s options within their ranges; --steps, --max-steps and
 * --root at most 3, 16 and 4 (up to 1000000 allowed) and CG at most
 * CG_MAX iterations, so that one input runs in milliseconds. */
static void
options(fz *z, hair_stage_opts *o)
{
	static const char *const names[] = { "hair", "body", "solid" };

	hair_stage_opts_default(o);
	o->par.mp.cg_max = CG_MAX;
	if (fz_byte(z) >= 240)
		o->hair = names[fz_below(z, 3)];
	o->fps = nonneg(z, 0);
	o->steps = (long)fz_below(z, 3) + 1;
	o->max_steps = (long)fz_below(z, 16) + 1;
	if (fz_byte(z) >= 192)
		o->par.courant = fz_real(z, 1e-3, 10);
	if (fz_byte(z) >= 192)
		o->par.strain_step = fz_real(z, 1e-3, 10);
	if (fz_byte(z) >= 192)
		for (int a = 0; a < 3; a++)
			o->grav[a] = fz_opt(z, 0);
	o->par.subdivide = (int)fz_below(z, 3);
	o->root = (long)fz_below(z, 5);
	o->par.k.k_edge = nonneg(z, o->par.k.k_edge);
	o->par.k.xi_edge = nonneg(z, o->par.k.xi_edge);
	o->par.k.k_bend = nonneg(z, o->par.k.k_bend);
	o->par.k.k_tors = nonneg(z, o->par.k.k_tors);
	o->par.k.k_alt = nonneg(z, o->par.k.k_alt);
	o->par.k.xi_bend = nonneg(z, o->par.k.xi_bend);
	o->par.k.xi_tors = o->par.k.xi_alt = o->par.k.xi_bend;
	o->par.density = positive(z, o->par.density);
	if (fz_byte(z) >= 192)
		o->par.strain = fz_real(z, 0, 0.999);
	o->par.mp.backward_euler = fz_byte(z) >= 192;
	o->par.mp.implicit_springs = fz_byte(z) < 224;
	o->par.mp.cg_tol = positive(z, o->par.mp.cg_tol);
	o->mu = nonneg(z, o->mu);
	if (fz_byte(z) >= 160)
		o->ground = fz_opt(z, 0);
	if (fz_byte(z) >= 160) {
		for (int a = 0; a < 3; a++)
			o->sphere[a] = fz_opt(z, 0);
		o->sphere_r = fabs(fz_opt(z, 0));
	}
	if (fz_byte(z) >= 192) {
		for (int a = 0; a < 3; a++)
			o->par.mp.wind[a] = fz_opt(z, 0);
		o->par.mp.wind_drag = fabs(fz_opt(z, 0));
	}
}

/* One frame of hairstep on F: 0 when it succeeded. */
static int
one_frame(slc_frame *F, const hair_stage_opts *o, int clean)
{
	hair_stage s;
	slc_err err;
	int rc = hair_stage_load(&s, F, o, NULL, &err) ||
		 hair_stage_step(&s, NULL, &err) ||
		 hair_stage_store(&s, NULL, &err);

	if (!rc && clean)
		fz_require_finite(s.hr, "hairstep");
	hair_stage_free(&s);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hair_stage_opts o;
	slc_frame F;
	fz z;
	int again;

	fz_init(&z, data, size);
	options(&z, &o);
	again = fz_byte(&z) >= 128;
	if (fz_frame(&z, FZ_SCENE | FZ_HAIR | FZ_SOLID, &F))
		return 0;
	/* hairstep refuses a frame with NaN or Inf as it reads it */
	if (fz_frame_finite(&F) && one_frame(&F, &o, 1) == 0 && again)
		one_frame(&F, &o, 1);
	slc_frame_free(&F);
	return 0;
}
