/* advect_any.c: grid advection for a field whose cell size differs from
 * the velocity's (selle2008 thesis §2.3, §2.4, §2.7, §2.9).
 *
 * lib/fluid/advect.c runs the schemes in the field's sample space, which needs
 * the field and the velocity on cells of one size; this file is the
 * general path for any placement: every sample is traced back from its
 * world position in double precision (lib/fluid/advect_lin.h) and the passes
 * are the plain ones of thesis §2.4 (no fused or cached steps).  Same
 * schemes, limiter and wall reversion as lib/fluid/advect.c.
 */
#include "fluid/advect.h"
#include "fluid/advect_lin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this many samples a loop runs on one thread. */
#define ADVECT_PAR_MIN 32768

/* One semi-Lagrangian step (as advect_sl); with q0 != NULL the BFECC
 * corrected data q0 - (sl - q0)/2 is written instead of the value sl (the
 * backward step and the correction in one pass). */
static void
sl_pass(const macgrid *vel, double dt, const field *q, field *out,
	float *lo, float *hi, const float *q0)
{
	linmac M;
	lin Q;
	double off[3];
	int k, j;

	linmac_init(&M, vel);
	lin_init(&Q, q);
	field_offset(out, off);
#pragma omp parallel for collapse(2) schedule(static) if (field_count(out) >= ADVECT_PAR_MIN)
	for (k = 0; k < out->nk; k++)
		for (j = 0; j < out->nj; j++) {
			size_t s = FIELD_IDX(out, 0, j, k);
			double x[3], xb[3];
			int i;

			x[1] = out->origin[1] + out->dx * (j + off[1]);
			x[2] = out->origin[2] + out->dx * (k + off[2]);
			for (i = 0; i < out->ni; i++, s++) {
				x[0] = out->origin[0] + out->dx * (i + off[0]);
				linmac_trace(&M, x, dt, xb);
				if (lo)
					out->a[s] = (float)lin_sample_bounds(&Q, xb, &lo[s], &hi[s]);
				else if (q0)
					out->a[s] = (float)(q0[s] + 0.5 * (q0[s] - lin_sample(&Q, xb)));
				else
					out->a[s] = (float)lin_sample(&Q, xb);
			}
		}
}

/* Is sample position x close enough to a solid or a wall that a ray of
 * length `reach` (plus its interpolation stencil) could source from it?
 * thesis §2.9: "revert to the first order accurate semi-Lagrangian scheme
 * at any grid point whose semi-Lagrangian characteristic could source from
 * a solid wall". */
static int
near_wall(const advect_opts *o, const macgrid *vel, const int nc[3],
	  const double x[3], double reach)
{
	int a;

	if (o->solid && field_sample(o->solid, x) < reach)
		return 1;
	if (!o->walls)
		return 0;
	for (a = 0; a < 3; a++) {
		double lo = vel->u.origin[a], hi = lo + nc[a] * vel->u.dx;

		if (nc[a] > 1 && (x[a] - lo < reach || hi - x[a] < reach))
			return 1;
	}
	return 0;
}

/* The corrected values c limited against the first order values sl (thesis
 * §2.7) and reverted to sl near walls (§2.9).  MacCormack (back != NULL):
 * c = sl + (q - back)/2, sl may alias out; BFECC: c is already in out. */
static void
finish(const macgrid *vel, double dt, const field *q, const float *back,
       const float *sl, field *out, const float *lo, const float *hi,
       const advect_opts *o, advect_stats *st)
{
	int nc[3], k, j;
	double reach;
	size_t limited = 0, nearw = 0;
	int check_walls = o->solid || o->walls;
	double vmax = o->vmax > 0 ? o->vmax : (check_walls ? mac_max_speed(vel) : 0);

	field_cell_dims(&vel->u, &nc[0], &nc[1], &nc[2]);
	reach = fabs(dt) * vmax + vel->u.dx;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : limited, nearw) \
	if (field_count(out) >= ADVECT_PAR_MIN)
	for (k = 0; k < out->nk; k++)
		for (j = 0; j < out->nj; j++) {
			size_t s = FIELD_IDX(out, 0, j, k);
			int i;

			for (i = 0; i < out->ni; i++, s++) {
				double c, first = sl[s];
				int hit = 0;

				if (check_walls) {
					double x[3];

					field_pos(out, i, j, k, x);
					if (near_wall(o, vel, nc, x, reach)) {
						out->a[s] = sl[s];
						nearw++;
						continue;
					}
				}
				if (back)   /* thesis §2.4: phi_hat^{n+1} - e */
					c = first + 0.5 * ((double)q->a[s] - back[s]);
				else
					c = out->a[s];
				if (lo)
					c = advect_limit(o->limiter, c, first, lo[s], hi[s], &hit);
				limited += (size_t)hit;
				out->a[s] = (float)c;
			}
		}
	if (st) {
		st->samples += field_count(out);
		st->limited += limited;
		st->near_wall += nearw;
	}
}

void
advect_sl_any(const macgrid *vel, double dt, const field *q, field *out,
	      float *lo, float *hi)
{
	sl_pass(vel, dt, q, out, lo, hi, NULL);
}

int
advect_field_any(const macgrid *vel, double dt, const field *q, field *out,
		 const advect_opts *o, advect_stats *st, slc_err *err)
{
	size_t n = field_count(q);
	float *lo = NULL, *hi = NULL, *tmp = NULL, *hat = NULL;
	field ft, fh;
	int rc = -1;

	if (o->scheme == ADVECT_SL) {
		sl_pass(vel, dt, q, out, NULL, NULL, NULL);
		if (st)
			st->samples += n;
		return 0;
	}
	if (o->scheme != ADVECT_MACCORMACK && o->scheme != ADVECT_BFECC)
		return slc_fail(err, "advect: unknown scheme %d", o->scheme);
	if (o->limiter != ADVECT_LIMIT_NONE) {
		if (!(lo = advect_pool_take(o->pool, n, err)) ||
		    !(hi = advect_pool_take(o->pool, n, err)))
			goto done;
	}
	if (!(tmp = advect_pool_take(o->pool, n, err)))
		goto done;
	ft = *q;
	ft.a = tmp;
	ft.owned = 0;
	if (o->scheme == ADVECT_MACCORMACK) {
		/* thesis §2.4: phi_hat^{n+1} = A(phi^n) (in out), phi_hat^n =
		 * A^R(phi_hat^{n+1}) (in tmp), phi^{n+1} = phi_hat^{n+1} - e with
		 * e = (phi_hat^n - phi^n)/2; finish() reads each first order
		 * value before it overwrites it */
		sl_pass(vel, dt, q, out, lo, hi, NULL);
		sl_pass(vel, -dt, out, &ft, NULL, NULL, NULL);
		finish(vel, dt, q, tmp, out->a, out, lo, hi, o, st);
	} else {
		/* thesis §2.4 (BFECC): phi_hat^{n+1} = A(phi^n) (in hat),
		 * phi_hat^n = A^R(phi_hat^{n+1}), e = (phi_hat^n - phi^n)/2,
		 * phi_bar^n = phi^n - e (both in tmp), phi^{n+1} = A(phi_bar^n) */
		if (!(hat = advect_pool_take(o->pool, n, err)))
			goto done;
		fh = *q;
		fh.a = hat;
		fh.owned = 0;
		sl_pass(vel, dt, q, &fh, lo, hi, NULL);
		sl_pass(vel, -dt, &fh, &ft, NULL, NULL, q->a);
		sl_pass(vel, dt, &ft, out, NULL, NULL, NULL);
		finish(vel, dt, q, NULL, hat, out, lo, hi, o, st);
	}
	rc = 0;
done:
	advect_pool_give(o->pool, lo);
	advect_pool_give(o->pool, hi);
	advect_pool_give(o->pool, tmp);
	advect_pool_give(o->pool, hat);
	return rc;
}
