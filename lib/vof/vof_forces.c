/* vof_forces.c: the external forces on the water of the KDSM (lee2019
 * §3.4 adhesion, §5 anisotropic porosity, and gravity; notes §2.3). */
#include "vof/vof.h"

#include <math.h>
#include <string.h>

void
vof_forces_defaults(vof_forces_opts *o)
{
	memset(o, 0, sizeof *o);
	o->g[1] = -9.81;
	o->k_across = VOF_DRAG_ACROSS;
	o->k_along = VOF_DRAG_ALONG;
	o->mu = VOF_ADH_FRICTION;
}

/* Not from the paper: the adhesion's friction on the skin.  The part of
 * the adhesion impulse dv (per unit of d) that presses the water onto
 * the skin, dv max(0, -d.n), takes up to that much off the water's
 * velocity along the skin relative to the skin's (vobj), as a Coulomb
 * friction impulse takes mu times the normal one (the collision
 * impulses of [35], the stacking of [37] the paper's §3.3 follows).
 * Without it nothing in §3.3 resists the pull of gravity along the
 * skin: the velocity correction clamps only the normal part, the film
 * under an adhesive ball slides to its lowest point with a speed that
 * grows every step, piles up there past the range where the adhesion
 * beats gravity, and pushout sends the pile outward to fall. */
static void
stiction(const kdsm_mesh *m, size_t t, double u[3], double dv, const double d[3])
{
	const float *n = m->n + 3 * t, *vo = m->vobj + 3 * t;
	double w[3], wn = 0, dn = 0, wt = 0, c;
	int k;

	for (k = 0; k < 3; k++) {
		w[k] = u[k] - vo[k];
		wn += w[k] * n[k];
		dn -= d[k] * n[k];
	}
	for (k = 0; k < 3; k++) {
		w[k] -= wn * n[k];
		wt += w[k] * w[k];
	}
	wt = sqrt(wt);
	dv *= dn > 0 ? dn : 0;
	if (!(wt > 0) || !(dv > 0))
		return;
	c = dv >= wt ? 1 : dv / wt;
	for (k = 0; k < 3; k++)
		u[k] -= c * w[k];
}

void
vof_forces(const kdsm_mesh *m, vof_state *s, const vof_forces_opts *o)
{
	long i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)m->nt; i++) {
		double *u = s->u + 3 * i, a;
		int k;

		if (!m->alive[i] || !(s->W[i] > 0))
			continue;
		for (k = 0; k < 3; k++)
			u[k] += o->g[k] * o->dt;
		a = o->adh * (m->adh ? m->adh[i] : 1);
		if (a != 0) {
			/* §3.4: within dmax of the skin, falling off linearly
			 * (the law is lost; not from the paper) */
			double dmax = o->dmax > 0 ? o->dmax
						  : VOF_ADH_DMAX_EDGES * vof_max_edge(m, (size_t)i);
			double f = 1 - m->dist[i] / dmax, d[3];

			f = f < 0 ? 0 : f > 1 ? 1 : f;
			for (k = 0; k < 3; k++)
				d[k] = m->adh_dir ? m->adh_dir[3 * i + k] : -m->n[3 * i + k];
			for (k = 0; k < 3 && f > 0; k++)
				u[k] += o->dt * a * f * d[k];
			if (f > 0 && o->mu > 0)
				stiction(m, (size_t)i, u, o->mu * o->dt * a * f, d);
		}
		if (m->hair && m->hair[i] > 0) {
			/* §5: more drag across the strands than along them,
			 * on the velocity relative to the mesh */
			const uint32_t *q = m->tet + 4 * i;
			double vm[3], w[3], d[3], l = 0, wd = 0, h = m->hair[i];
			double ca = 1 / (1 + o->k_along * h * o->dt);
			double cx = 1 / (1 + o->k_across * h * o->dt);

			for (k = 0; k < 3; k++) {
				vm[k] = 0.25 * ((double)m->v[3 * q[0] + k] + m->v[3 * q[1] + k] +
						m->v[3 * q[2] + k] + m->v[3 * q[3] + k]);
				w[k] = u[k] - vm[k];
				d[k] = m->hair_dir ? m->hair_dir[3 * i + k] : 0;
				l += d[k] * d[k];
			}
			l = sqrt(l);
			for (k = 0; k < 3; k++) {
				d[k] = l > 0 ? d[k] / l : 0;
				wd += w[k] * d[k];
			}
			/* no direction: all of it is "across" */
			for (k = 0; k < 3; k++)
				u[k] = vm[k] + ca * wd * d[k] + cx * (w[k] - wd * d[k]);
		}
	}
}
