/* test_pls_redist.c: redistancing a liquid level set keeps its zero
 * crossing (lib/liquid/pls_redist.c): a small sphere's volume survives ten
 * passes, a distance function is left as it was, a stretched level set
 * becomes a distance again, and the crossing moves far less than with
 * the axis-crossing seeding of redistance.h. */
#include <math.h>
#include <stdlib.h>

#include "ctest.h"
#include "liquid/pls.h"
#include "liquid/pls_redist.h"
#include "grid/redistance.h"

#define N 20
#define R 3.0           /* sphere radius, cells: the drop of tests/water.bats */
#define PASSES 10

static void
sphere(field *phi, double scale)
{
	double o[3] = { 0, 0, 0 }, c = 0.5 * N + 0.3;
	int i, j, k;

	field_alloc(phi, N, N, N, SLC_CELL, o, 1.0, NULL);
	for (k = 0; k < N; k++)
		for (j = 0; j < N; j++)
			for (i = 0; i < N; i++) {
				double x[3];

				field_pos(phi, i, j, k, x);
				phi->a[FIELD_IDX(phi, i, j, k)] = (float)(scale *
					(sqrt((x[0] - c) * (x[0] - c) + (x[1] - c) * (x[1] - c) +
					      (x[2] - c) * (x[2] - c)) - R));
			}
}

int
main(void)
{
	field phi, ref;
	slc_err err;
	double v0, vnew, vold, worst = 0, worst_near = 0;
	size_t q;
	int p;

	sphere(&phi, 1);
	v0 = pls_liquid_volume(&phi);
	for (p = 0; p < PASSES; p++)
		CHECK(pls_redistance(&phi, 8, &err) == 0, "pass %d", p);
	vnew = pls_liquid_volume(&phi) / v0 - 1;
	field_free(&phi);
	sphere(&phi, 1);
	for (p = 0; p < PASSES; p++)
		redistance(&phi, 8, &err);
	vold = pls_liquid_volume(&phi) / v0 - 1;
	field_free(&phi);
	printf("# sphere of %.0f cells, %d passes: volume %+.3f%% (redistance.h: %+.3f%%)\n",
	       R, PASSES, 100 * vnew, 100 * vold);
	CHECK(fabs(vnew) < 0.01, "volume kept within 1%%: %+.3f%%", 100 * vnew);
	CHECK(fabs(vnew) < 0.5 * fabs(vold), "less than half the change of redistance.h");

	/* a stretched level set (|grad phi| = 3) becomes a distance, the
	 * sphere's own distance: within a tenth of a cell beside the
	 * interface, within first-order fast marching's error (half a cell on
	 * a sphere of 3 cells) in a band of 4 */
	sphere(&phi, 3);
	sphere(&ref, 1);
	CHECK(pls_redistance(&phi, 8, &err) == 0, "stretched");
	for (q = 0; q < field_count(&phi); q++)
		if (fabs(ref.a[q]) < 4)
			worst = fmax(worst, fabs(phi.a[q] - ref.a[q]));
	for (q = 0; q < field_count(&phi); q++)
		if (fabs(ref.a[q]) < 0.5)
			worst_near = fmax(worst_near, fabs(phi.a[q] - ref.a[q]));
	CHECK(worst_near < 0.1, "distance restored beside the interface: worst error %.3f cells",
	      worst_near);
	CHECK(worst < 0.6, "and in the band: worst error %.3f cells", worst);
	CHECK(fabs(pls_liquid_volume(&phi) / v0 - 1) < 0.01, "and the volume kept");
	field_free(&phi);
	field_free(&ref);
	return ctest_done();
}
