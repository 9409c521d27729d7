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
