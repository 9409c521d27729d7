/* test_gridplace: the one test of grid placement (lib/core/gridplace.h,
 * field_same_cells and field_same_place in lib/grid/field.h) and its
 * callers: exact where the placement is copied, rounded for grids from
 * other stages, cell dims across staggerings; render_speed now refuses
 * u, v, w whose origins differ (its own test compared dims and dx only). */
#include <math.h>
#include <string.h>

#include "ctest.h"
#include "core/gridplace.h"
#include "grid/field.h"
#include "grid/macgrid.h"
#include "render/render.h"

static slc_grid
grid(int ni, int nj, int nk, uint32_t stagger, double ox, double dx)
{
	slc_grid g = {ni, nj, nk, stagger, {ox, 0.25, -0.5}, dx};
	return g;
}

int
main(void)
{
	slc_grid c = grid(8, 6, 4, SLC_CELL, 0.125, 0.1);
	slc_grid u = grid(9, 6, 4, SLC_FACE_X, 0.125, 0.1);
	slc_grid n = grid(9, 7, 5, SLC_NODE, 0.125, 0.1);
	int32_t cells[3];

	slc_grid_cells(&u, cells);
	CHECK(cells[0] == 8 && cells[1] == 6 && cells[2] == 4, "face-x grid 9x6x4 has 8x6x4 cells");
	slc_grid_cells(&n, cells);
	CHECK(cells[0] == 8 && cells[1] == 6 && cells[2] == 4, "node grid 9x7x5 has 8x6x4 cells");
	CHECK(slc_grid_same_cells(&c, &u, &slc_place_exact), "cells and u's faces: same cells");
	CHECK(slc_grid_same_cells(&n, &c, &slc_place_exact), "nodes and cells: same cells");
	CHECK(!slc_grid_same_place(&c, &u, &slc_place_exact), "cells and faces: not the same samples");
	CHECK(slc_grid_same_place(&c, &c, &slc_place_exact), "a grid is placed like itself");

	slc_grid d = c;
	d.ni = 9;
	CHECK(!slc_grid_same_cells(&d, &c, &slc_place_rounded), "other dims: never the same");

	/* rounded: dx to 1e-9 relative, origin to 1e-6 of a cell */
	d = c;
	d.origin[0] += 0.5e-6 * c.dx;
	d.dx *= 1 + 0.5e-9;
	CHECK(slc_grid_same_cells(&d, &c, &slc_place_rounded), "within the rounded tolerance");
	CHECK(!slc_grid_same_cells(&d, &c, &slc_place_exact), "but not exactly");
	d = c;
	d.origin[2] += 2e-6 * c.dx;
	CHECK(!slc_grid_same_cells(&d, &c, &slc_place_rounded), "origin 2e-6 cells off: refused");
	d = c;
	d.dx *= 1 + 2e-9;
	CHECK(!slc_grid_same_cells(&d, &c, &slc_place_rounded), "dx 2e-9 off: refused");
	d = c;
	d.origin[1] = NAN;
	CHECK(!slc_grid_same_cells(&d, &c, &slc_place_rounded), "a NaN origin is never the same");
	d = c;
	d.origin[0] = nextafter(c.origin[0], 1);
	CHECK(!slc_grid_same_place(&d, &c, &slc_place_exact), "exact: one ulp apart differs");

	/* the same through fields */
	field a, b;
	double o[3] = {0.125, 0.25, -0.5}, o2[3] = {0.125, 0.25, -0.5 + 1e-3};
	slc_err err;
	CHECK(!field_alloc(&a, 4, 3, 2, SLC_CELL, o, 0.1, &err) &&
	      !field_alloc(&b, 4, 3, 2, SLC_FACE_Y, o, 0.1, &err), "fields allocated");
	CHECK(field_same_cells(&a, &b, &slc_place_exact), "field cells and y faces: same cells");
	CHECK(!field_same_place(&a, &b, &slc_place_exact), "but not the same samples");
	field_free(&b);
	CHECK(!field_alloc(&b, 4, 3, 2, SLC_CELL, o2, 0.1, &err), "shifted field allocated");
	CHECK(!field_same_place(&a, &b, &slc_place_rounded), "a field shifted 1e-2 cells differs");
	field_free(&a);
	field_free(&b);

	/* render_speed: u, v, w one MAC grid, the origin included */
	macgrid m;
	field sp;
	CHECK(!mac_alloc(&m, 4, 3, 2, o, 0.1, &err), "MAC grid allocated");
	CHECK(render_speed(&m.u, &m.v, &m.w, &sp, &err) == 0, "render_speed of one MAC grid");
	field_free(&sp);
	m.w.origin[2] += 0.5 * m.w.dx;
	CHECK(render_speed(&m.u, &m.v, &m.w, &sp, &err) == -1,
	      "render_speed refuses a w half a cell off: %s", err.msg);
	mac_free(&m);
	return ctest_done();
}
