/* advect_shells.c: advect's thin shells, substep by substep
 * (advect_shells.h). */
#include "stage/advect_shells.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell_sweep.h"

/* One mesh record into the track. */
static int
load_mesh(advect_shells *A, slc_frame *F, const char *name, slc_err *err)
{
	slc_rec *r = slc_frame_find(F, name, SLC_MESH);
	uint64_t np = 0, np0 = 0;
	double *P = NULL, *P0 = NULL;
	const uint32_t *tri;
	const slc_chan *ct;
	int rc = -1;

	if (!r)
		return slc_fail(err, "no mesh record '%s'", name);
	if (slc_frame_decode(F, r, err) || !(P = slc_rec_get_f64(r, "P", 3, &np, err)))
		goto out;
	if (slc_rec_find(r, "P_prev") && !(P0 = slc_rec_get_f64(r, "P_prev", 3, &np0, err)))
		goto out;
	if (P0 && np0 != np) {
		slc_fail(err, "P_prev has %llu points, P %llu", (unsigned long long)np0,
			 (unsigned long long)np);
		goto out;
	}
	if (!(tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err)))
		goto out;
	ct = slc_rec_find(r, "tri");
	rc = shell_track_add(&A->trk, P0, P, (size_t)np, tri, (size_t)ct->count, err);
out:
	free(P);
	free(P0);
	return rc ? slc_failctx(err, "shell '%s': ", name) : 0;
}

int
advect_shells_load(advect_shells *A, slc_frame *F, const char *const *names, size_t n,
		   int mode, double eps_cells, double ambient, double T,
		   const macgrid *vel, slc_err *err)
{
	int nc[3];
	size_t m;

	memset(A, 0, sizeof *A);
	A->mode = mode;
	A->ambient = ambient;
	if (!n)
		return 0;
	field_cell_dims(&vel->u, &nc[0], &nc[1], &nc[2]);
	if (shell_track_init(&A->trk, T, eps_cells * vel->u.dx, vel->u.origin, vel->u.dx,
			     nc[0], nc[1], nc[2], err))
		return -1;
	for (m = 0; m < n; m++)
		if (load_mesh(A, F, names[m], err))
			return -1;
	A->on = mode != ADVECT_SHELL_OFF;
	/* guendelman2005 §4.1: hidden samples take the object velocity, zero
	 * density, the ambient temperature; §4.4.1 the level set's rings */
	A->vel.fb.kind = SHELL_FILL_VEL;
	A->vel.fb.trk = &A->trk;
	A->phi.fb.kind = SHELL_FILL_PHI;
	A->den.fb.kind = SHELL_FILL_VALUE;
	A->tem.fb.kind = SHELL_FILL_VALUE;
	A->tem.fb.value = ambient;
	A->other.fb.kind = SHELL_FILL_RING;
	return 0;
}

double
advect_shells_speed(const advect_shells *A)
{
	double v = 0;
	size_t m, p;

	if (!A->on)
		return 0;
	for (m = 0; m < A->trk.nmesh; m++)
		for (p = 0; p < A->trk.m[m].np; p++) {
			const double *a = A->trk.m[m].P0 + 3 * p, *b = A->trk.m[m].P1 + 3 * p;
			double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};

			v = fmax(v, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / A->trk.T);
		}
	return v;
}

const shell_set *
advect_shells_start(advect_shells *A, double s0, int *failed, slc_err *err)
{
	*failed = 0;
	if (!A->on)
		return NULL;
	if ((!A->have0 || A->s0 != s0) && A->have1 && A->s1 == s0) {
		/* the last substep's end is this one's start: the set is
		 * built already */
		shell_set tmp = A->at0;

		A->at0 = A->at1;
		A->at1 = tmp;
		A->band.valid = 0;
		A->s0 = s0;
		A->have0 = 1;
		A->have1 = 0;
	}
	if (!A->have0 || A->s0 != s0) {
		A->have0 = 0;
		A->band.valid = 0;
		if (shell_track_set(&A->trk, s0, &A->at0, err)) {
			*failed = 1;
			return NULL;
		}
		A->s0 = s0;
		A->have0 = 1;
	}
	return &A->at0;
}

int
advect_shells_begin(advect_shells *A, double s0, double s1, slc_err *err)
{
	advect_shell *all[5] = {&A->vel, &A->phi, &A->den, &A->tem, &A->other};
	int q, failed;

	if (!A->on)
		return 0;
	if (!advect_shells_start(A, s0, &failed, err))
		return -1;
	A->s1 = s1;
	A->have1 = 0;
	if (shell_track_moving(&A->trk)) {
		if (shell_track_set(&A->trk, s1, &A->at1, err))
			return -1;
		A->have1 = 1;
	}
	for (q = 0; q < 5; q++) {
		all[q]->set = &A->at0;
		all[q]->count = &A->samples;
		all[q]->band = &A->band;
	}
	A->pls.trk = &A->trk;
	A->pls.at0 = &A->at0;
	A->pls.at1 = shell_track_moving(&A->trk) ? &A->at1 : &A->at0;
	A->pls.s0 = s0;
	A->pls.s1 = s1;
	A->pls.sweep = A->mode == ADVECT_SHELL_ON;
	return 0;
}

const advect_shell *
advect_shells_for(advect_shells *A, const char *name)
{
	if (!A->on)
		return NULL;
	if (!strcmp(name, "u") || !strcmp(name, "v") || !strcmp(name, "w"))
		return &A->vel;
	if (!strcmp(name, "phi"))
		return &A->phi;
	if (!strcmp(name, "density"))
		return &A->den;
	if (!strcmp(name, "temperature"))
		return &A->tem;
	return &A->other;
}

int
advect_shells_sweep(advect_shells *A, field *f, const char *name, slc_err *err)
{
	advect_shell sh;
	unsigned char *bad;
	size_t nf = 0;
	int rc;

	if (!A->on || A->mode == ADVECT_SHELL_NO_SWEEP || !shell_track_moving(&A->trk))
		return 0;
	sh = *advect_shells_for(A, name);
	if (sh.fb.kind == SHELL_FILL_VEL)
		sh.fb.comp = f->stagger >= SLC_FACE_X && f->stagger <= SLC_FACE_Z ?
			     f->stagger - SLC_FACE_X : 0;
	if (!(bad = slc_calloc(field_count(f), 1, err)))
		return -1;
	/* guendelman2005 §3: invalid where the shell passed or is, then
	 * Gauss-Jacobi from the visible valid neighbours at x^{n+1} */
	A->swept += shell_sweep_mark(&A->trk, A->s0, A->s1, f, bad);
	rc = shell_fill(f, bad, &A->at1, &sh.fb, &nf, err);
	A->fallback += nf;
	free(bad);
	return rc;
}

const shell_set *
advect_shells_end(const advect_shells *A)
{
	if (!A->on)
		return NULL;
	return shell_track_moving(&A->trk) ? &A->at1 : &A->at0;
}

void
advect_shells_free(advect_shells *A)
{
	advect_shell_band_free(&A->band);
	shell_free(&A->at0);
	shell_free(&A->at1);
	shell_track_free(&A->trk);
	memset(A, 0, sizeof *A);
}
