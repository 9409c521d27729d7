/* gridplace.c: the shared test of grid placement; see gridplace.h. */
#include "core/gridplace.h"

#include <math.h>

const slc_place_tol slc_place_exact = {0, 0};
const slc_place_tol slc_place_rounded = {SLC_PLACE_DX_TOL, SLC_PLACE_ORIGIN_TOL};

void
slc_grid_cells(const slc_grid *g, int32_t cells[3])
{
	int node = g->stagger == SLC_NODE;

	cells[0] = g->ni - (node || g->stagger == SLC_FACE_X);
	cells[1] = g->nj - (node || g->stagger == SLC_FACE_Y);
	cells[2] = g->nk - (node || g->stagger == SLC_FACE_Z);
}

int
slc_grid_same_cells(const slc_grid *a, const slc_grid *b, const slc_place_tol *tol)
{
	int32_t ca[3], cb[3];

	slc_grid_cells(a, ca);
	slc_grid_cells(b, cb);
	if (ca[0] != cb[0] || ca[1] != cb[1] || ca[2] != cb[2])
		return 0;
	if (!(fabs(a->dx - b->dx) <= tol->dx * b->dx))
		return 0;
	for (int e = 0; e < 3; e++)
		if (!(fabs(a->origin[e] - b->origin[e]) <= tol->origin * b->dx))
			return 0;
	return 1;
}

int
slc_grid_same_place(const slc_grid *a, const slc_grid *b, const slc_place_tol *tol)
{
	return a->stagger == b->stagger && slc_grid_same_cells(a, b, tol);
}
