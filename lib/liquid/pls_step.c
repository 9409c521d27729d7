/* pls_step.c: one substep of a liquid with the particle level set, the
 * velocity extrapolation across its surface, and the frame records of the
 * particles (see pls_step.h). */
#include "liquid/pls_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "liquid/pls_redist.h"
#include "liquid/pls_shell.h"
#include "shell/shell_fill.h"
#include "shell/shell_sweep.h"
#include "liquid/pls_solid.h"
#include "grid/redistance.h"

#define REDIST_BAND 8.0         /* cells: covers the particle band (3) and
				   the velocity extrapolation (<= 5) */
#define SEED_MIX 0x9e3779b97f4a7c15ULL  /* golden ratio: spreads frames */

void
pls_step_defaults(pls_step_opts *o)
{
	pls_default(&o->p);
	o->particles = 1;
	o->redist_band = REDIST_BAND;
	advect_opts_default(&o->ao);
	o->ao.walls = 1;
}

/* --- velocity extrapolation ---------------------------------------- */

typedef struct cand {
	float phi;
	size_t at;
} cand;

static int
cand_cmp(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;

	if (a->phi != b->phi)
		return a->phi < b->phi ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* phi of cell c (clamped index check done by the caller) */
static double
cell_phi(const field *phi, const int c[3])
{
	return phi->a[FIELD_IDX(phi, c[0], c[1], c[2])];
}

/* Is face sample b of f visible from face sample a (both indices) in
 * sh (NULL: no shells)? */
static int
face_sees(const field *f, const shell_set *sh, size_t a, size_t b)
{
	double x[3], y[3];
	int n0 = f->ni, n1 = f->nj;

	if (!sh)
		return 1;
	field_pos(f, (int)(a % n0), (int)(a / n0 % n1), (int)(a / ((size_t)n0 * n1)), x);
	field_pos(f, (int)(b % n0), (int)(b / n0 % n1), (int)(b / ((size_t)n0 * n1)), y);
	return shell_visible(sh, x, y);
}

/* Component a of the velocity extrapolated from the liquid's faces; with
 * thin shells sh (moving as trk), guendelman2005 §4.4: neighbours on the
 * far side of a shell are ruled out, and a face with none on its side is
 * invalid and refilled by shell_fill (the shell's velocity at last). */
static int
extrapolate_comp(field *f, int a, const field *phi, double band, const shell_set *sh,
		 const shell_track *trk, slc_err *err)
{
	unsigned char *bad = NULL;
	int nbad = 0;
	int n[3] = { f->ni, f->nj, f->nk }, nc[3] = { phi->ni, phi->nj, phi->nk };
	size_t count = field_count(f), nc_ = 0, q;
	unsigned char *known = slc_calloc(count, 1, err);
	cand *list = known ? slc_calloc(count, sizeof *list, err) : NULL;
	int i, j, k;

	if (!list) {
		free(known);
		return -1;
	}
	for (k = 0; k < n[2]; k++)
		for (j = 0; j < n[1]; j++)
			for (i = 0; i < n[0]; i++) {
				int c[3] = { i, j, k }, ia = c[a], wall = ia == 0 || ia == nc[a];
				double ph = 0;
				int m = 0, liquid = 0;
				size_t at = FIELD_IDX(f, i, j, k);

				if (ia < nc[a]) {
					double v = cell_phi(phi, c);
					ph += v, m++, liquid |= v < 0;
				}
				if (ia > 0) {
					double v;

					c[a] = ia - 1;
					v = cell_phi(phi, c);
					ph += v, m++, liquid |= v < 0;
				}
				ph /= m;
				if (liquid)
					known[at] = 1;
				else if (wall)
					;
				else if (ph <= band) {
					list[nc_].phi = (float)ph;
					list[nc_++].at = at;
				} else
					f->a[at] = 0;
			}
	qsort(list, nc_, sizeof *list, cand_cmp);
	/* in order of increasing phi: the mean of the known neighbours */
	for (q = 0; q < nc_; q++) {
		size_t at = list[q].at, stride[3] = { 1, (size_t)n[0], (size_t)n[0] * n[1] };
		int c[3], b, m = 0;
		double sum = 0;

		c[0] = (int)(at % n[0]);
		c[1] = (int)(at / n[0] % n[1]);
		c[2] = (int)(at / stride[2]);
		int hidden = 0;

		for (b = 0; b < 3; b++) {
			if (c[b] > 0 && known[at - stride[b]]) {
				if (face_sees(f, sh, at, at - stride[b]))
					sum += f->a[at - stride[b]], m++;
				else
					hidden = 1;
			}
			if (c[b] < n[b] - 1 && known[at + stride[b]]) {
				if (face_sees(f, sh, at, at + stride[b]))
					sum += f->a[at + stride[b]], m++;
				else
					hidden = 1;
			}
		}
		f->a[at] = m ? (float)(sum / m) : 0;
		known[at] = m > 0;
		if (!m && hidden) {
			if (!bad && !(bad = slc_calloc(count, 1, err))) {
				free(known);
				free(list);
				return -1;
			}
			bad[at] = 1;
			nbad = 1;
		}
	}
	free(known);
	free(list);
	if (nbad) {
		shell_fallback fb = { SHELL_FILL_VEL, 0, a, trk };
		int rc = shell_fill(f, bad, sh, &fb, NULL, err);

		free(bad);
		return rc;
	}
	return 0;
}

/* selle2008 thesis §2.9 (after Enright, Marschner and Fedkiw 2002): the
 * velocity extrapolated across the interface must be divergence free.
 * Continued face by face it is not: in the air cells beside a spreading or
 * converging surface it sinks or sources volume, and phi and the marker
 * particles, both moved by it, lose or gain liquid together, which no
 * particle correction can see.  Here the air cells of the band are made
 * divergence free by Gauss-Seidel sweeps on the pressure-like Poisson
 * problem of the band: the faces the projection owns (beside a liquid
 * cell) and the faces of the grid box stay as they are (Neumann), the air
 * beyond the band takes up the rest (Dirichlet 0).  Sweeps stop when the
 * largest cell divergence is below DIVFREE_TOL of the largest speed times
 * the cell face, or after DIVFREE_SWEEPS (successive over-relaxation,
 * in the fixed order of the cells: deterministic). */
#define DIVFREE_SWEEPS 200      /* a 5-cell band of a plane: ~45 sweeps */
#define DIVFREE_TOL 1e-4        /* relative to max |u| */
#define DIVFREE_SOR 1.7         /* over-relaxation: 45 sweeps instead of
				   180 for that band (1.5: 90, 1.85: 70) */

typedef struct band_cell {
	int ijk[3];
	unsigned char free;     /* bit 2a+s: face on axis a, side s movable */
} band_cell;

static int
divfree_band(macgrid *vel, const field *phi, double band, slc_err *err)
{
	int nc[3] = { phi->ni, phi->nj, phi->nk }, i, j, k, a, sweep;
	size_t n = 0, q;
	band_cell *list;
	double vmax = mac_max_speed(vel), tol;

	if (!(vmax > 0))
		return 0;
	tol = DIVFREE_TOL * vmax;
	list = slc_calloc(field_count(phi), sizeof *list, err);
	if (!list)
		return -1;
	for (k = 0; k < nc[2]; k++)
		for (j = 0; j < nc[1]; j++)
			for (i = 0; i < nc[0]; i++) {
				int c[3] = { i, j, k }, s;
				float v = phi->a[FIELD_IDX(phi, i, j, k)];
				unsigned char fr = 0;

				if (v < 0 || v > band)
					continue;
				for (a = 0; a < 3; a++)
					for (s = 0; s < 2; s++) {
						int d[3] = { i, j, k };

						d[a] += s ? 1 : -1;
						if (d[a] < 0 || d[a] >= nc[a] || nc[a] < 2)
							continue;       /* a box face */
						if (phi->a[FIELD_IDX(phi, d[0], d[1], d[2])] < 0)
							continue;       /* the projection's */
						fr |= (unsigned char)(1u << (2 * a + s));
					}
				if (!fr)
					continue;
				memcpy(list[n].ijk, c, sizeof c);
				list[n++].free = fr;
			}
	for (sweep = 0; sweep < DIVFREE_SWEEPS; sweep++) {
		double worst = 0;

		for (q = 0; q < n; q++) {
			const int *c = list[q].ijk;
			float *lo[3], *hi[3];
			double div = 0, m = 0, d;

			for (a = 0; a < 3; a++) {
				field *f = mac_comp(vel, a);
				int e[3] = { c[0], c[1], c[2] };

				lo[a] = &f->a[FIELD_IDX(f, e[0], e[1], e[2])];
				e[a]++;
				hi[a] = &f->a[FIELD_IDX(f, e[0], e[1], e[2])];
				div += *hi[a] - *lo[a];
				m += ((list[q].free >> (2 * a)) & 1) + ((list[q].free >> (2 * a + 1)) & 1);
			}
			if (fabs(div) > worst)
				worst = fabs(div);
			d = DIVFREE_SOR * div / m;
			for (a = 0; a < 3; a++) {
				if (list[q].free & (1u << (2 * a)))
					*lo[a] = (float)(*lo[a] + d);
				if (list[q].free & (1u << (2 * a + 1)))
					*hi[a] = (float)(*hi[a] - d);
			}
		}
		if (worst <= tol)
			break;
	}
	free(list);
	return 0;
}

int
pls_extrapolate(macgrid *vel, const field *phi, double band, slc_err *err)
{
	return pls_extrapolate_shell(vel, phi, band, NULL, NULL, err);
}

int
pls_extrapolate_shell(macgrid *vel, const field *phi, double band, const shell_set *sh,
		      const shell_track *trk, slc_err *err)
{
	int nc[3], a;

	if (mac_check(vel, err))
		return -1;
	field_cell_dims(&vel->u, &nc[0], &nc[1], &nc[2]);
	if (phi->stagger != SLC_CELL || phi->ni != nc[0] || phi->nj != nc[1] ||
	    phi->nk != nc[2])
		return slc_fail(err, "phi: %dx%dx%d samples, expected %dx%dx%d cell centres",
				phi->ni, phi->nj, phi->nk, nc[0], nc[1], nc[2]);
	for (a = 0; a < 3; a++)
		if (extrapolate_comp(mac_comp(vel, a), a, phi, band * phi->dx, sh, trk, err))
			return -1;
	return divfree_band(vel, phi, band * phi->dx, err);
}

void
pls_walls(macgrid *vel)
{
	int a, i, j, k;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		int n[3] = { f->ni, f->nj, f->nk };

		if (n[a] < 3)
			continue;
		for (k = 0; k < n[2]; k++)
			for (j = 0; j < n[1]; j++)
				for (i = 0; i < n[0]; i++) {
					int c[3] = { i, j, k };

					if (c[a] == 0 || c[a] == n[a] - 1)
						f->a[FIELD_IDX(f, i, j, k)] = 0;
				}
	}
}

/* --- the substep ---------------------------------------------------- */

/* spray_cross_fn over the shells of a substep (pls_shell): the move a to
 * b meets a shell (shell_sweep_point), and then whether a shell sweeps
 * over a itself. */
static int
spray_crosses(void *ctx, const double a[3], const double b[3])
{
	const pls_shell *sh = ctx;

	if (!shell_sweep_point(sh->trk, sh->at0, sh->at1, sh->s0, sh->s1, a, b))
		return 0;
	return shell_sweep_point(sh->trk, sh->at0, sh->at1, sh->s0, sh->s1, a, a) ? 2 : 1;
}

/* Escaped negative particles become spray moving with the grid velocity
 * at their place. */
static int
to_spray(pls_water *w, const pls_set *esc, const macgrid *vel, slc_err *err)
{
	size_t q;

	for (q = 0; q < esc->n; q++) {
		double x[3] = { esc->x[3 * q], esc->x[3 * q + 1], esc->x[3 * q + 2] }, v[3];

		mac_velocity(vel, x, v);
		if (spray_push(&w->spr, x, v, esc->r[q], err))
			return -1;
	}
	w->st.sprayed += esc->n;
	return 0;
}

/* Copies of the markers' places before they move, for pls_shell_cull:
 * x0[0] of w->pos, x0[1] of w->neg.  0, or -1 with err (memory). */
static int
shell_keep(const pls_water *w, float *x0[2], slc_err *err)
{
	const pls_set *set[2] = { &w->pos, &w->neg };
	int q;

	for (q = 0; q < 2; q++) {
		if (!(x0[q] = slc_malloc(set[q]->n ? 3 * set[q]->n : 1, sizeof *x0[q], err))) {
			free(x0[0]);
			return -1;
		}
		memcpy(x0[q], set[q]->x, 3 * set[q]->n * sizeof *x0[q]);
	}
	return 0;
}

int
pls_step(pls_water *w, field *phi, const macgrid *vel, double dt,
	 const double g[3], slc_err *err)
{
	advect_opts ao = w->o.ao;
	pls_set esc;
	field next;
	size_t r0, r1, used;
	double v0 = pls_liquid_volume(phi), v1;
	int rc = -1;

	if (w->o.particles) {           /* thesis §2.9: first order SL phi */
		ao.scheme = ADVECT_SL;
		ao.limiter = ADVECT_LIMIT_NONE;
	}
	if (field_alloc_like(&next, phi, err))
		return -1;
	if (advect_field(vel, dt, phi, &next, &ao, NULL, err)) {
		field_free(&next);
		return -1;
	}
	memcpy(phi->a, next.a, field_count(phi) * sizeof *phi->a);
	field_free(&next);
	/* guendelman2005 §3: what the shells swept over refilled before the
	 * particles and the redistancing read phi */
	if (w->shell && pls_shell_sweep(phi, w->shell, err))
		return -1;
	if (w->o.particles && w->fresh && w->shell) {
		/* §4.4.2: seeded disregarding the shells, then the
		 * particles of the wrong sign on their side deleted */
		w->st.collided += pls_shell_wrong_side(&w->pos, phi, w->shell) +
				  pls_shell_wrong_side(&w->neg, phi, w->shell);
		if (!w->solid)
			w->fresh = 0;
	}
	if (w->o.particles && w->fresh && w->solid) {
		/* guendelman2005 §4.4.2: seeded disregarding the object,
		 * then the particles inside it deleted */
		w->st.collided += pls_drop_inside(&w->pos, w->solid) +
				  pls_drop_inside(&w->neg, w->solid);
		w->fresh = 0;
	}
	if (w->o.particles) {
		float *x0[2] = { NULL, NULL };

		if (w->shell && shell_keep(w, x0, err))
			return -1;
		pls_advect(&w->pos, vel, dt);
		pls_advect(&w->neg, vel, dt);
		if (w->shell) { /* guendelman2005 §4.4.2: no marker crosses a shell */
			w->st.collided += pls_shell_cull(&w->pos, x0[0], w->shell) +
					  pls_shell_cull(&w->neg, x0[1], w->shell);
			free(x0[0]);
			free(x0[1]);
		}
		if (w->solid)   /* guendelman2005 §4.4.2 */
			w->st.collided += pls_collide(&w->pos, w->solid) +
					  pls_collide(&w->neg, w->solid);
	}
	v1 = pls_liquid_volume(phi);
	w->st.dv_advect += v1 - v0;
	if (w->shell) { /* no spray crosses a shell either */
		size_t gone = 0;

		w->st.landed += spray_step_shell(&w->spr, phi, w->solid, w->live, g, dt,
						 spray_crosses, w->shell, &gone);
		w->st.collided += gone;
	} else
		w->st.landed += spray_step(&w->spr, phi, w->solid, w->live, g, dt);
	v0 = pls_liquid_volume(phi);
	w->st.dv_spray += v0 - v1;
	if (!w->o.particles) {  /* the plain level set method, as before */
		rc = w->shell ? pls_redistance_shell(phi, w->o.redist_band * phi->dx,
						     w->shell->at1, err) :
				redistance(phi, w->o.redist_band * phi->dx, err);
		w->st.dv_redist += pls_liquid_volume(phi) - v0;
		return rc;
	}
	/* Enright et al. 2002 §3.3-3.4: correct, redistance, correct; the
	 * redistancing keeps the zero crossing (pls_redist.h), so that what
	 * the particles put right stays put */
	if (pls_correct_shell(phi, &w->pos, &w->neg, w->shell ? w->shell->at1 : NULL, &used, err))
		return -1;
	w->st.corrected += used;
	v1 = pls_liquid_volume(phi);
	w->st.dv_correct += v1 - v0;
	if (pls_redistance_shell(phi, w->o.redist_band * phi->dx, w->shell ? w->shell->at1 : NULL, err))
		return -1;
	v0 = pls_liquid_volume(phi);
	w->st.dv_redist += v0 - v1;
	if (pls_correct_shell(phi, &w->pos, &w->neg, w->shell ? w->shell->at1 : NULL, &used, err))
		return -1;
	w->st.corrected += used;
	w->st.dv_correct += pls_liquid_volume(phi) - v0;
	/* guendelman2005 §4.4.2: radii and escapes from phi one-sided at the
	 * particles */
	pls_adjust_radii_shell(&w->pos, phi, &w->o.p, w->shell ? w->shell->at1 : NULL);
	pls_adjust_radii_shell(&w->neg, phi, &w->o.p, w->shell ? w->shell->at1 : NULL);
	pls_set_init(&esc, -1);
	r0 = pls_prune_shell(&w->pos, phi, &w->o.p, NULL, w->shell ? w->shell->at1 : NULL, err);
	r1 = r0 == (size_t)-1 ? r0 :
	     pls_prune_shell(&w->neg, phi, &w->o.p, &esc, w->shell ? w->shell->at1 : NULL, err);
	if (r1 != (size_t)-1 && !to_spray(w, &esc, vel, err)) {
		w->st.removed += r0 + r1;
		rc = 0;
	}
	pls_set_free(&esc);
	return rc;
}

/* --- frame records -------------------------------------------------- */

void
pls_water_rng(rng *g, uint64_t seed, long frame)
{
	rng_init(g, seed ^ (uint64_t)(frame + 1) * SEED_MIX);
}

int
pls_water_load(pls_water *w, const slc_frame *F, const field *phi, uint64_t seed,
	       long frame, int reseed, slc_err *err)
{
	slc_rec *rp, *rn, *rs;
	rng g;

	pls_set_init(&w->pos, 1);
	pls_set_init(&w->neg, -1);
	spray_init(&w->spr);
	memset(&w->st, 0, sizeof w->st);
	w->have_u0 = 0;
	w->fresh = 0;
	w->solid = NULL;
	w->live = NULL;
	pls_water_rng(&g, seed, frame);
	if (slc_frame_get(F, PLS_REC_POS, SLC_PARTICLES, &rp, err) ||
	    slc_frame_get(F, PLS_REC_NEG, SLC_PARTICLES, &rn, err) ||
	    slc_frame_get(F, PLS_REC_SPRAY, SLC_PARTICLES, &rs, err))
		return -1;
	if (rs && spray_from_rec(&w->spr, rs, err))
		return -1;
	if (!w->o.particles)
		return 0;
	if (!rp || !rn) {
		w->fresh = 1;
		return pls_seed(&w->pos, &w->neg, phi, &w->o.p, &g, err);
	}
	if (pls_from_rec(&w->pos, rp, 1, err) || pls_from_rec(&w->neg, rn, -1, err))
		return -1;
	/* guendelman2005 §4.4.2: reseed every 10-20 frames */
	if (reseed > 0 && frame > 0 && frame % reseed == 0) {
		w->fresh = 1;
		return pls_reseed(&w->pos, &w->neg, phi, &w->o.p, &g, err);
	}
	return 0;
}

/* Put tmp (built, owned) in place of the contents of F's particles
 * record of its name, or append it; tmp is left empty.  0, or -1 with err
 * (memory; tmp freed). */
static int
put(slc_frame *F, slc_rec *tmp, slc_err *err)
{
	slc_rec *old = slc_frame_find_undecoded(F, tmp->name, SLC_PARTICLES);

	if (old) {
		slc_rec_free(old);
		*old = *tmp;
		slc_rec_init(tmp, SLC_END, "");
		return 0;
	}
	if (slc_frame_put(F, tmp, err))
		return 0;
	slc_rec_free(tmp);
	return -1;
}

int
pls_water_store(const pls_water *w, slc_frame *F, double time, slc_err *err)
{
	slc_rec tmp;

	if (!w->o.particles)
		return 0;
	if (pls_to_rec(&w->pos, &tmp, PLS_REC_POS, time, err) || put(F, &tmp, err) ||
	    pls_to_rec(&w->neg, &tmp, PLS_REC_NEG, time, err) || put(F, &tmp, err) ||
	    spray_to_rec(&w->spr, &tmp, PLS_REC_SPRAY, time, err) || put(F, &tmp, err))
		return -1;
	return 0;
}

int
pls_water_freeze(pls_water *w, const macgrid *vel, slc_err *err)
{
	if (!w->have_u0 && mac_alloc_like(&w->u0, vel, err))
		return -1;
	w->have_u0 = 1;
	return mac_copy(&w->u0, vel, err);
}

int
pls_water_owns(const slc_rec *r)
{
	if (r->kind == SLC_GRID)
		return !strcmp(r->name, "phi");
	return r->kind == SLC_PARTICLES &&
	       (!strcmp(r->name, PLS_REC_POS) || !strcmp(r->name, PLS_REC_NEG) ||
		!strcmp(r->name, PLS_REC_SPRAY));
}

void
pls_water_free(pls_water *w)
{
	pls_set_free(&w->pos);
	pls_set_free(&w->neg);
	spray_free(&w->spr);
	if (w->have_u0)
		mac_free(&w->u0);
	w->have_u0 = 0;
}
