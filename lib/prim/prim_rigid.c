/* prim_rigid.c: a rigid ball as frame records (prim_rigid.h). */
#include "prim/prim_rigid.h"

#include <math.h>
#include <string.h>

#include "fluid/rigid_move.h"

static int
add(slc_rec *r, const char *name, uint32_t nc, const double *x, slc_err *err)
{
	double *d = slc_rec_add(r, name, SLC_F64, nc, SLC_POINT, 1, err);

	if (!d)
		return -1;
	memcpy(d, x, nc * sizeof *d);
	return 0;
}

int
prim_ball_recs(const prim_ball *b, const field *cells, double time, slc_rec rec[3],
	       slc_err *err)
{
	double m = 4.0 / 3 * M_PI * b->radius * b->radius * b->radius * b->density;
	double I = 0.4 * m * b->radius * b->radius, q[4] = {0, 0, 0, 1};
	double in[9] = {I, 0, 0, 0, I, 0, 0, 0, I}, dx = cells->dx;
	int ni, nj, nk;
	field phi0, phi;
	rigid_body body = {0};

	if (!(b->radius > 0) || !(b->density > 0) || !isfinite(m))
		return slc_fail(err, "ball radius %g, density %g: expected > 0", b->radius,
				b->density);
	memset(rec, 0, 3 * sizeof *rec);
	slc_rec_init(&rec[0], SLC_PARTICLES, "rigid");
	rec[0].time = time;
	uint8_t *s;
	if (add(&rec[0], "P", 3, b->center, err) || add(&rec[0], "mass", 1, &m, err) ||
	    add(&rec[0], "inertia", 9, in, err) || add(&rec[0], "v", 3, b->v, err) ||
	    add(&rec[0], "omega", 3, b->omega, err) || add(&rec[0], "orient", 4, q, err) ||
	    !(s = slc_rec_add(&rec[0], "scripted", SLC_U8, 1, SLC_POINT, 1, err)) ||
	    (b->scripted && add(&rec[0], "accel", 3, b->accel, err)) ||
	    (b->scripted && isfinite(b->stop) && add(&rec[0], "stop", 1, &b->stop, err)))
		goto fail;
	*s = (uint8_t)(b->scripted != 0);

	/* body frame: a cube of whole cells centred on the centre of mass */
	int n = 2 * ((int)ceil(b->radius / dx) + PRIM_BALL_MARGIN);
	double o = -0.5 * n * dx;
	if (field_alloc(&phi0, n, n, n, SLC_CELL, (double[3]){o, o, o}, dx, err))
		goto fail;
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double y[3];
				field_pos(&phi0, i, j, k, y);
				phi0.a[FIELD_IDX(&phi0, i, j, k)] =
					(float)(sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]) - b->radius);
			}
	field_cell_dims(cells, &ni, &nj, &nk);
	if (field_alloc(&phi, ni, nj, nk, SLC_CELL, cells->origin, dx, err)) {
		field_free(&phi0);
		goto fail;
	}
	memcpy(body.P, b->center, sizeof body.P);
	memcpy(body.q, q, sizeof body.q);
	rigid_phi_place(&phi, &phi0, &body);
	int rc = field_to_rec(&phi0, &rec[1], "rigid_phi0", time, err) ||
		 field_to_rec(&phi, &rec[2], "rigid_phi", time, err);
	field_free(&phi0);
	field_free(&phi);
	if (!rc)
		return 0;
fail:
	for (int r = 0; r < 3; r++)
		slc_rec_free(&rec[r]);
	return -1;
}
