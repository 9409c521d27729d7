/* test_extrapolate.c: constrained velocity extrapolation into solids
 * (houston2003 §4.2) on a half-space solid, against the closed form. */
#include <math.h>
#include <stdlib.h>

#include "ctest.h"
#include "grid/extrapolate.h"

#define NC 16

static const double org[3] = { 0, 0, 0 }, dx = 1.0 / NC;

/* Uniform fluid velocity c above y = 0.5 (solid below), junk (9) inside. */
static void
setup(macgrid *m, field *solid, const double c[3])
{
	int a, i, j, k;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(m, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3];

					field_pos(f, i, j, k, x);
					f->a[FIELD_IDX(f, i, j, k)] = (float)(x[1] - 0.5 >= 0 ? c[a] : 9);
				}
	}
	for (k = 0; k < NC; k++)
		for (j = 0; j < NC; j++)
			for (i = 0; i < NC; i++) {
				double x[3];

				field_pos(solid, i, j, k, x);
				solid->a[FIELD_IDX(solid, i, j, k)] = (float)(x[1] - 0.5);
			}
}

/* Max deviation from want inside the solid within `band` of the surface,
 * and whether the faces deeper hold the object velocity uo (not the junk
 * left there) and those outside kept their values. */
static double
check(const macgrid *m, const double want[3], const double uo[3], double band, int *kept)
{
	double e = 0;
	int a, i, j, k;

	*kept = 1;
	for (a = 0; a < 3; a++) {
		const field *f = mac_ccomp(m, a);

		for (k = 0; k < f->nk; k++)
			for (j = 0; j < f->nj; j++)
				for (i = 0; i < f->ni; i++) {
					double x[3], v = f->a[FIELD_IDX(f, i, j, k)], d;

					field_pos(f, i, j, k, x);
					d = 0.5 - x[1];
					if (d > 0 && d <= band)
						e = fmax(e, fabs(v - want[a]));
					else if (d > band + 2 * dx)
						*kept &= v == (float)uo[a];
				}
	}
	return e;
}

int
main(void)
{
	macgrid m;
	field solid, uo[3], slip;
	slc_err err;
	double band = 3 * dx, e, still[3] = { 0, 0, 0 };
	int kept, a;
	size_t s;

	mac_alloc(&m, NC, NC, NC, org, dx, &err);
	field_alloc(&solid, NC, NC, NC, SLC_CELL, org, dx, &err);

	/* leaving the wall at full slip: the fluid velocity carries on */
	setup(&m, &solid, (double[3]){ 1, 0.5, -0.25 });
	extrapolate_solid(&m, &solid, NULL, NULL, band, &err);
	e = check(&m, (double[3]){ 1, 0.5, -0.25 }, still, band, &kept);
	CHECK(e < 1e-6 && kept, "full slip, separating flow: extended unchanged (err %.2g), still deep inside", e);

	/* approaching a still wall: the normal part is the wall's (0) */
	setup(&m, &solid, (double[3]){ 1, -0.5, -0.25 });
	extrapolate_solid(&m, &solid, NULL, NULL, band, &err);
	e = check(&m, (double[3]){ 1, 0, -0.25 }, still, band, &kept);
	CHECK(e < 1e-6 && kept, "full slip, approaching flow: no normal velocity into the wall (err %.2g)", e);

	/* no slip on a still wall: tangential part reflected */
	field_alloc(&slip, NC, NC, NC, SLC_CELL, org, dx, &err);
	for (s = 0; s < field_count(&slip); s++)
		slip.a[s] = 1;
	setup(&m, &solid, (double[3]){ 1, 0.5, -0.25 });
	extrapolate_solid(&m, &solid, NULL, &slip, band, &err);
	e = check(&m, (double[3]){ -1, 0.5, 0.25 }, still, band, &kept);
	CHECK(e < 1e-6 && kept, "no slip: tangential velocity reflected (err %.2g)", e);

	/* a wall rising at 0.3 m/s under fluid falling at 0.5, half slip:
	 * normal 0.3, tangential uf (1 - 2 alpha) + 2 alpha uo = uo_t = 0 */
	for (a = 0; a < 3; a++) {
		field_alloc(&uo[a], NC, NC, NC, SLC_CELL, org, dx, &err);
		for (s = 0; s < field_count(&uo[a]); s++)
			uo[a].a[s] = a == 1 ? 0.3f : 0;
	}
	for (s = 0; s < field_count(&slip); s++)
		slip.a[s] = 0.5;
	setup(&m, &solid, (double[3]){ 1, -0.5, -0.25 });
	extrapolate_solid(&m, &solid, uo, &slip, band, &err);
	e = check(&m, (double[3]){ 0, 0.3, 0 }, (double[3]){ 0, 0.3, 0 }, band, &kept);
	CHECK(e < 1e-6 && kept, "moving wall, half slip: normal from the wall, tangential blended (err %.2g), the wall's velocity deep inside", e);

	{
		double uf[3] = { 1, 2, 3 }, u0[3] = { 0.5, -1, 0 }, n[3] = { 0, 0, 1 }, out[3];

		extrapolate_constrain(uf, u0, 0.25, n, out);
		CHECK(fabs(out[0] - 0.75) < 1e-12 && fabs(out[1] - 0.5) < 1e-12 && out[2] == 3,
		      "constraint formula: (%.3f %.3f %.3f)", out[0], out[1], out[2]);
	}
	for (a = 0; a < 3; a++)
		field_free(&uo[a]);
	field_free(&slip);
	field_free(&solid);
	mac_free(&m);
	return ctest_done();
}
