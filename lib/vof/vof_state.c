/* vof_state.c: the water state, the spray list, the ledger and the spray
 * jitter shared by advection and pushout (see vof.h). */
#include "vof/vof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

int
vof_state_init(vof_state *s, size_t nt, slc_err *err)
{
	s->nt = nt;
	s->W = slc_calloc(nt ? nt : 1, sizeof *s->W, err);
	s->u = s->W ? slc_calloc(nt ? nt : 1, 3 * sizeof *s->u, err) : NULL;
	if (!s->u) {
		free(s->W);
		s->W = NULL;
		s->nt = 0;
		return -1;
	}
	return 0;
}

void
vof_state_free(vof_state *s)
{
	free(s->W);
	free(s->u);
	memset(s, 0, sizeof *s);
}

void
vof_spray_free(vof_spray *sp)
{
	free(sp->P);
	free(sp->v);
	free(sp->vol);
	memset(sp, 0, sizeof *sp);
}

int
vof_spray_add(vof_spray *sp, const double P[3], const double v[3], double vol, slc_err *err)
{
	int a;

	if (sp->n == sp->cap) {
		size_t c = sp->cap ? 2 * sp->cap : 64;
		double *nP, *nv, *nvol;

		nP = slc_malloc(c, 3 * sizeof *nP, err);
		nv = nP ? slc_malloc(c, 3 * sizeof *nv, err) : NULL;
		nvol = nv ? slc_malloc(c, sizeof *nvol, err) : NULL;
		if (!nvol) {
			free(nP);
			free(nv);
			return -1;
		}
		if (sp->n) {
			memcpy(nP, sp->P, sp->n * 3 * sizeof *nP);
			memcpy(nv, sp->v, sp->n * 3 * sizeof *nv);
			memcpy(nvol, sp->vol, sp->n * sizeof *nvol);
		}
		free(sp->P);
		free(sp->v);
		free(sp->vol);
		sp->P = nP;
		sp->v = nv;
		sp->vol = nvol;
		sp->cap = c;
	}
	for (a = 0; a < 3; a++) {
		sp->P[3 * sp->n + a] = P[a];
		sp->v[3 * sp->n + a] = v[a];
	}
	sp->vol[sp->n++] = vol;
	return 0;
}

/* One splitmix64 output keyed by the state s. */
static uint64_t
mix(uint64_t s)
{
	rng g;

	rng_init(&g, s);
	return rng_next(&g);
}

void
vof_jitter(uint64_t seed, long frame, int stream, size_t tet, int sample, double r,
	   double d[3])
{
	rng g;
	double l2;
	int a;

	rng_init(&g, mix(mix(mix(mix(seed) ^ (uint64_t)frame) ^ (uint64_t)stream) ^ tet) ^
			     (uint64_t)sample);
	/* rejection from the cube: uniform in the ball, a bounded number of
	 * tries in practice, the same count for the same key */
	do {
		for (a = 0; a < 3; a++)
			d[a] = rng_range(&g, -1, 1);
		l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	} while (l2 > 1);
	for (a = 0; a < 3; a++)
		d[a] *= r;
}

double
vof_max_edge(const kdsm_mesh *m, size_t t)
{
	const uint32_t *q = m->tet + 4 * t;
	double e = 0;
	int i, j, a;

	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++) {
			double l2 = 0;

			for (a = 0; a < 3; a++) {
				double d = m->P[3 * q[i] + a] - m->P[3 * q[j] + a];

				l2 += d * d;
			}
			e = fmax(e, sqrt(l2));
		}
	return e;
}

double
vof_volume(const vof_state *s)
{
	vof_sum v = { 0, 0 };
	size_t t;

	for (t = 0; t < s->nt; t++)
		vof_sum_add(&v, s->W[t]);
	return vof_sum_get(&v);
}

void
vof_ledger_open(vof_ledger *L, const vof_state *s)
{
	memset(L, 0, sizeof *L);
	L->before = vof_volume(s);
}

void
vof_ledger_close(vof_ledger *L, const vof_state *s)
{
	L->after = vof_volume(s);
}

double
vof_ledger_residual(const vof_ledger *L)
{
	return L->after -
	       (L->before + L->grid_in + L->grid_fill + L->particles_in - L->particles_out);
}
