/* prim_spec.c: the checks of mkprim's parameters and the hand-over of a
 * built record that every shape shares, the mesh shapes (prim_shape.c)
 * and the grid shapes (prim_shape_grid.c) alike. */
#include "prim/prim.h"
#include "prim/prim_shape.h"

int
prim_spec_want(prim_spec *s, int k, const char *opt, int n, slc_err *err)
{
	prim_list *l = &s->p[k];
	int a;

	if (l->n != 1 && l->n != n)
		return slc_fail(err, "--%s: %d values, expected 1 or %d", opt, l->n, n);
	for (a = l->n; a < 3; a++)
		l->v[a] = l->v[0];
	return 0;
}

int
prim_spec_res(const prim_spec *s, int a, int lo, slc_err *err)
{
	double n = s->p[PP_RES].v[a];

	if (n < lo || n > PRIM_RES_MAX)
		return slc_fail(err, "--res: %g, expected %d..%d", n, lo, PRIM_RES_MAX);
	return 0;
}

int
prim_emit_rec(slc_rec *r, int rc, prim_emit emit, void *arg, slc_err *err)
{
	if (rc)
		return -1;
	rc = emit(r, arg, err);
	slc_rec_free(r);
	return rc;
}
