/* fuzz_mesh.h: the body of the libFuzzer targets for the mesh readers
 * (fuzz_obj.c, fuzz_ply.c, fuzz_stl.c), which define FUZZ_MESH_READ (the
 * reader under test) and FUZZ_MESH_OBJ_ROUND_TRIP before including it.
 *
 * Any bytes must give either a record that passes slc_rec_validate or an
 * error message naming a line or byte; never a crash, a leak or undefined
 * behaviour.  An accepted mesh must also survive the writers and read
 * back with the same points and triangles, bit for bit: through binary PLY
 * always, through OBJ where the input's coordinates are floats (a PLY
 * double may not fit OBJ's float text).
 */
#ifndef FUZZ_MESH_H
#define FUZZ_MESH_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/meshio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Channel `name` of a and b: same type, shape and bytes. */
static int
same(const slc_rec *a, const slc_rec *b, const char *name)
{
	const slc_chan *x = slc_rec_find(a, name), *y = slc_rec_find(b, name);

	return x && y && x->type == y->type && x->ncomp == y->ncomp &&
	       x->count == y->count &&
	       !memcmp(x->data, y->data, x->count * x->ncomp * slc_type_size(x->type));
}

/* Write r as OBJ (which = 0) or binary PLY (1), read it back, and compare
 * P and tri. */
static void
round_trip(const slc_rec *r, int which)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	slc_rec back;
	slc_err err;
	int rc;

	if (!f)
		return;
	rc = which ? slc_ply_write(f, r, 0, &err) : slc_obj_write(f, r, &err);
	fclose(f);
	if (rc)
		abort();
	rc = which ? slc_ply_read(buf, len, "m", &back, &err)
		   : slc_obj_read(buf, len, "m", &back, &err);
	if (rc || back.kind != r->kind || !same(&back, r, "P") ||
	    (r->kind == SLC_MESH && !same(&back, r, "tri")))
		abort();
	slc_rec_free(&back);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	slc_rec r;
	slc_err err;

	if (FUZZ_MESH_READ(data, size, "fuzz", &r, &err) == 0) {
		if (slc_rec_validate(&r, &err))
			abort();
		if (FUZZ_MESH_OBJ_ROUND_TRIP)
			round_trip(&r, 0);
		round_trip(&r, 1);
		slc_rec_free(&r);
	} else if (!err.msg[0]) {
		abort();        /* a refusal must say why */
	}
	return 0;
}
#endif
