/* partsurf_frame.c: particles for a particle surface, gathered from the
 * particle records of one name in a frame and checked (partsurf_frame.h). */
#include "liquid/partsurf_frame.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "liquid/partsurf.h"

/* Grow ps's arrays to hold n particles (one more, so that no size is 0).
 * 0, or -1 when the sizes overflow or memory runs out (the caller says
 * so). */
static int
grow(ps_particles *ps, size_t n)
{
	size_t np1, nP, nr;
	double *P, *rad;

	if (slc_add(n, 1, &np1) || slc_mul(np1, 3 * sizeof *P, &nP) ||
	    slc_mul(np1, sizeof *rad, &nr))
		return -1;
	if (!(P = realloc(ps->P, nP)))
		return -1;
	ps->P = P;
	if (!(rad = realloc(ps->rad, nr)))
		return -1;
	ps->rad = rad;
	return 0;
}

/* Append the particles of record r to ps (radii 0 where r has none),
 * counting in *nrad those with a radius.  0, or -1 with err. */
static int
gather_one(const slc_rec *r, ps_particles *ps, size_t *nrad, slc_err *err)
{
	uint64_t cnt, cr, i;
	double *p, *rr = NULL;
	size_t n;
	int rc = -1;

	if (slc_rec_check_finite(r, -1, err))
		return -1;
	if (!(p = slc_rec_get_f64(r, "P", 3, &cnt, err)))
		return slc_failctx(err, "particles '%s': ", r->name);
	if (slc_rec_find(r, "radius") && !(rr = slc_rec_get_f64(r, "radius", 1, &cr, err))) {
		slc_failctx(err, "particles '%s': ", r->name);
		goto out;
	}
	if (rr && cr != cnt) {
		slc_fail(err, "particles '%s': %llu radii for %llu points", r->name,
			 (unsigned long long)cr, (unsigned long long)cnt);
		goto out;
	}
	for (i = 0; rr && i < cnt; i++)
		if (!(rr[i] > 0) || !(rr[i] <= PS_RADIUS_MAX)) {
			slc_fail(err, "particles '%s': particle %llu has radius %g (expected 0 < r <= %g m)",
				 r->name, (unsigned long long)i, rr[i], PS_RADIUS_MAX);
			goto out;
		}
	if (slc_add(ps->np, (size_t)cnt, &n) || grow(ps, n)) {
		slc_fail(err, "out of memory for %zu particles", (size_t)(ps->np + cnt));
		goto out;
	}
	memcpy(ps->P + 3 * ps->np, p, cnt * 3 * sizeof *p);
	for (i = 0; i < cnt; i++)
		ps->rad[ps->np + i] = rr ? rr[i] : 0;
	*nrad += rr ? cnt : 0;
	if (!ps->nrec++)
		ps->time = r->time;
	ps->np = n;
	rc = 0;
out:
	free(rr);
	free(p);
	return rc;
}

int
ps_gather(const slc_frame *F, const char *name, ps_particles *ps, slc_err *err)
{
	size_t nrad = 0;

	memset(ps, 0, sizeof *ps);
	for (size_t q = 0; q < F->n; q++) {
		slc_rec *r = F->r[q];

		if (r->kind == SLC_PARTICLES && !strcmp(r->name, name) &&
		    (slc_frame_decode(F, r, err) || gather_one(r, ps, &nrad, err)))
			return -1;
	}
	if (!ps->nrec)
		return slc_fail(err, "no particle record '%s' in the input", name);
	if (nrad && nrad != ps->np)
		return slc_fail(err, "particles '%s': a 'radius' channel in some records only",
				name);
	if (!nrad) {
		free(ps->rad);
		ps->rad = NULL;
	}
	return 0;
}

double
ps_mean_radius(const ps_particles *ps)
{
	double m = 0;

	for (size_t q = 0; ps->rad && q < ps->np; q++)
		m += ps->rad[q] / (double)ps->np;
	return m;
}

void
ps_particles_free(ps_particles *ps)
{
	free(ps->P);
	free(ps->rad);
	memset(ps, 0, sizeof *ps);
}
