/* collide_grid.c: collision bodies sampled from a `solid` level-set grid
 * and its `solid_vel` velocity (see collide_body.h). */
#include "cloth/collide_body.h"

#include <string.h>

#include "cloth/cloth_vec.h"

static void
grid_eval(const cloth_body *b, double t, const double x[3], double *phi,
	  double N[3], double vB[3])
{
	double xs[3], l;

	for (int k = 0; k < 3; k++)
		vB[k] = b->vb[k] ? field_sample(b->vb[k], x) : 0;
	/* the body moves rigidly with its local velocity between samples */
	for (int k = 0; k < 3; k++)
		xs[k] = x[k] - (t - b->t_grid) * vB[k];
	*phi = field_sample(b->phi, xs);
	field_gradient(b->phi, xs, N);
	l = v3norm(N);
	if (l > 0) {
		v3scale(1 / l, N);
	} else {
		N[0] = 0;
		N[1] = 1;
		N[2] = 0;
	}
}

void
body_grid_init(cloth_body *b, const field *phi, const field *const vb[3],
	       double t_grid, double mu)
{
	memset(b, 0, sizeof *b);
	b->shape = BODY_GRID;
	b->phi = phi;
	for (int k = 0; k < 3; k++)
		b->vb[k] = vb ? vb[k] : NULL;
	b->t_grid = t_grid;
	b->mu = mu;
	b->eval = grid_eval;
}
