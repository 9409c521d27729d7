/* fuzz_surfacer: libFuzzer target for what surfacer does
 * (tools/surfacer.c) in lib/: on a frame built from the input
 * (fz_frame.h), the grid level set meshed by marching cubes
 * (lib/liquid/mcubes.h) and, with particles, their surface
 * (lib/liquid/partsurf.h, partsurf_frame.h) united with it; smoothing,
 * normals, the mesh's check, its record and its OBJ or PLY; options as
 * surfacer(1) takes them.  A bug: a crash, a sanitizer report, a timeout,
 * or NaN or Inf in the mesh made with success from a frame without any. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fz_frame.h"
#include "grid/field.h"
#include "io/meshio.h"
#include "liquid/mcubes.h"
#include "liquid/partsurf.h"
#include "liquid/partsurf_frame.h"
#include "liquid/surface.h"

/* Lattices larger than this are not sampled: one input must run in
 * milliseconds (surfacer itself goes to 2^31 samples). */
#define LATTICE_MAX 32768

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fields[] = { "phi", "solid", "density", "sdf" };
static const char *const parts[] = { "water", "spray", "pls_pos", "dust" };

/* Samples of the lattice ps_lattice would make without a grid (as it
 * computes them, or more), or SIZE_MAX when past LATTICE_MAX. */
static size_t
lattice_size(const ps_params *p, const ps_particles *ps)
{
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	double margin = p->support * p->radius + 2 * p->dx, cnt = 1;

	for (size_t q = 0; q < ps->np; q++)
		for (int a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], ps->P[3 * q + a]);
			hi[a] = fmax(hi[a], ps->P[3 * q + a]);
		}
	if (!ps->np)
		return 0;       /* ps_lattice refuses it */
	for (int a = 0; a < 3; a++)
		cnt *= ceil((hi[a] - lo[a] + 2 * margin) / p->dx) + 2;
	return cnt >= 0 && cnt <= LATTICE_MAX ? (size_t)cnt : SIZE_MAX;
}

/* The mesh written as surfacer --format writes it, into memory. */
static void
write_mesh(const slc_rec *mr, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	slc_err err;

	if (!f)
		abort();
	if (format == 1)
		slc_obj_write(f, mr, &err);
	else
		slc_ply_write(f, mr, format == 3, &err);
	fclose(f);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double isos[] = { 0, 0.1, -0.1, 1e-3, 1e30 };
	static const double supports[] = { 4, 1, 2, 8 };
	const char *field_name, *parts_name = NULL;
	double iso, radius, lattice_dx, vol_err;
	long smooth, refine;
	int kernel, format, clean;
	slc_frame F;
	slc_rec *grec, mr;
	field g, f, *meshed = &g;
	surf_mesh m = { 0 };
	surf_stats st;
	ps_particles ps = { 0 };
	ps_params p;
	slc_err err;
	fz z;

	fz_init(&z, data, size);
	field_name = fields[fz_below(&z, sizeof fields / sizeof *fields)];
	if (fz_byte(&z) >= 128)
		parts_name = parts[fz_below(&z, sizeof parts / sizeof *parts)];
	iso = fz_pick(&z, isos, sizeof isos / sizeof *isos);
	smooth = (long)fz_below(&z, 4);
	radius = fz_byte(&z) < 128 ? 0 : fabs(fz_opt(&z, 0));
	kernel = (int)fz_below(&z, 2);
	double support = fz_pick(&z, supports, sizeof supports / sizeof *supports);
	lattice_dx = fz_byte(&z) < 128 ? 0 : fabs(fz_opt(&z, 0));
	refine = (long)fz_below(&z, 4) + 1;
	format = (int)fz_below(&z, 4);
	if (fz_frame(&z, FZ_LIQUID | FZ_SOLID | FZ_SMOKE | FZ_PARTICLES | FZ_GRIDS, &F))
		return 0;
	clean = fz_frame_finite(&F);
	/* surfacer's own refusals: several grids of the name, none and no
	 * particles, a grid not finite */
	if (slc_frame_find_unique(&F, field_name, SLC_GRID, &grec, &err) ||
	    (!grec && !parts_name) || (grec && slc_rec_check_finite(grec, -1, &err)))
		goto out;
	if (grec && field_from_rec(&g, grec, NULL, &err))
		goto out;
	if (parts_name) {
		if (ps_gather(&F, parts_name, &ps, &err))
			goto out;
		if (radius == 0 && ps.rad)
			radius = ps_mean_radius(&ps);
		else if (radius == 0 && grec)
			radius = 0.5 * g.dx;
		else if (radius == 0)
			goto out;
		ps_params_default(&p, radius);
		p.kernel = kernel;
		p.support = support;
		p.dx = lattice_dx > 0 ? lattice_dx : radius;
		p.refine = (int)refine;
		p.iso = iso;
		if (grec ? field_count(&g) * refine * refine * refine > LATTICE_MAX :
			   lattice_size(&p, &ps) > LATTICE_MAX)
			goto out;
		if (ps_lattice(&p, ps.P, ps.np, grec ? &g : NULL, &f, &err))
			goto out;
		meshed = &f;
		if (ps_sample(&p, ps.P, ps.rad, ps.np, &f, &err))
			goto out;
		if (grec)
			ps_union(&p, &g, &f);
		iso = 0;
	}
	if (mc_mesh(meshed, iso, &m, &err))
		goto out;
	if (smooth) {
		if (surf_smooth(&m, (int)smooth, &vol_err, &err))
			goto out;
		mc_normals(meshed, iso, &m);
	}
	surf_check(&m, &st, &err);
	if (surf_mesh_to_rec(&m, &mr, "surface", 0, &err) == 0) {
		if (clean)
			fz_require_finite(&mr, "surfacer");
		if (format)
			write_mesh(&mr, format);
		slc_rec_free(&mr);
	}
out:
	surf_mesh_free(&m);
	if (meshed == &f)
		field_free(&f);
	ps_particles_free(&ps);
	slc_frame_free(&F);
	return 0;
}
