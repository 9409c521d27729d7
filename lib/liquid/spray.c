/* spray.c: ballistic spray particles that rejoin the liquid (see spray.h). */
#include "liquid/spray.h"

#include "liquid/pls_solid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LAND_REACH 1.0          /* cells beyond the radius the union touches */

void
spray_init(spray *s)
{
	memset(s, 0, sizeof *s);
}

void
spray_free(spray *s)
{
	free(s->x);
	free(s->v);
	free(s->r);
	spray_init(s);
}

static int
grow(float **p, size_t cap, size_t per, slc_err *err)
{
	size_t b;
	float *n;

	if (slc_mul(cap, per * sizeof **p, &b))
		return slc_fail(err, "too many spray particles");
	n = realloc(*p, b);
	if (!n)
		return slc_fail(err, "out of memory for %zu spray particles", cap);
	*p = n;
	return 0;
}

int
spray_push(spray *s, const double x[3], const double v[3], double r,
	   slc_err *err)
{
	int a;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		if (grow(&s->x, cap, 3, err) || grow(&s->v, cap, 3, err) ||
		    grow(&s->r, cap, 1, err))
			return -1;
		s->cap = cap;
	}
	for (a = 0; a < 3; a++) {
		s->x[3 * s->n + a] = (float)x[a];
		s->v[3 * s->n + a] = (float)v[a];
	}
	s->r[s->n++] = (float)r;
	return 0;
}

double
spray_mass(double r)
{
	return SPRAY_WATER_DENSITY * 4.0 / 3.0 * M_PI * r * r * r;
}

static void
remove_at(spray *s, size_t q)
{
	size_t last = s->n - 1;

	memmove(&s->x[3 * q], &s->x[3 * last], 3 * sizeof *s->x);
	memmove(&s->v[3 * q], &s->v[3 * last], 3 * sizeof *s->v);
	s->r[q] = s->r[last];
	s->n--;
}

/* Union the ball of radius r at x into phi: phi = min(phi, |y - x| - r). */
static void
union_ball(field *phi, const double x[3], double r)
{
	double off[3], dx = phi->dx, reach = r + LAND_REACH * dx;
	int n[3] = { phi->ni, phi->nj, phi->nk }, lo[3], hi[3], a, i, j, k;

	field_offset(phi, off);
	for (a = 0; a < 3; a++) {
		double c = (x[a] - phi->origin[a]) / dx - off[a];

		lo[a] = (int)fmax(0, ceil(c - reach / dx));
		hi[a] = (int)fmin(n[a] - 1, floor(c + reach / dx));
	}
	for (k = lo[2]; k <= hi[2]; k++)
		for (j = lo[1]; j <= hi[1]; j++)
			for (i = lo[0]; i <= hi[0]; i++) {
				double y[3], d;
				float *at = &phi->a[FIELD_IDX(phi, i, j, k)];

				field_pos(phi, i, j, k, y);
				d = sqrt((y[0] - x[0]) * (y[0] - x[0]) + (y[1] - x[1]) * (y[1] - x[1]) +
					 (y[2] - x[2]) * (y[2] - x[2])) - r;
				if (d < *at)
					*at = (float)d;
			}
}

void
spray_give_momentum(macgrid *vel, const double x[3], const double v[3],
		    double m)
{
	int a;

	for (a = 0; a < 3; a++) {
		field *f = mac_comp(vel, a);
		double off[3], fr[3], M = SPRAY_WATER_DENSITY * f->dx * f->dx * f->dx;
		int n[3] = { f->ni, f->nj, f->nk }, base[3], top[3], b, di, dj, dk;

		field_offset(f, off);
		for (b = 0; b < 3; b++) {
			double c = (x[b] - f->origin[b]) / f->dx - off[b];

			if (n[b] < 2 || c <= 0) {
				base[b] = 0, fr[b] = 0;
			} else if (c >= n[b] - 1) {
				base[b] = n[b] - 2, fr[b] = 1;
			} else {
				base[b] = (int)floor(c);
				fr[b] = c - base[b];
			}
			top[b] = n[b] < 2 ? 0 : 1;
		}
		for (dk = 0; dk <= top[2]; dk++)
			for (dj = 0; dj <= top[1]; dj++)
				for (di = 0; di <= top[0]; di++) {
					double w = (di ? fr[0] : 1 - fr[0]) * (dj ? fr[1] : 1 - fr[1]) *
						   (dk ? fr[2] : 1 - fr[2]);
					float *u = &f->a[FIELD_IDX(f, base[0] + di, base[1] + dj,
								   base[2] + dk)];

					if (w > 0)
						*u = (float)((M * *u + w * m * v[a]) / (M + w * m));
				}
	}
}

/* Keep particle q out of the solid: pushed out along the normal, the
 * velocity into the solid removed; back at x0 at rest if that fails. */
static void
collide_one(spray *s, size_t q, const field *solid, const double x0[3])
{
	double x[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] }, n[3], vn = 0;
	int rc = pls_solid_push(solid, x, 0, n), a;

	if (rc == 0)
		return;
	if (rc < 0)
		for (a = 0; a < 3; a++) {
			x[a] = x0[a];
			s->v[3 * q + a] = 0;
		}
	else
		for (a = 0; a < 3; a++)
			vn += s->v[3 * q + a] * n[a];
	for (a = 0; a < 3; a++) {
		if (vn < 0)
			s->v[3 * q + a] -= (float)(vn * n[a]);
		s->x[3 * q + a] = (float)x[a];
	}
}

size_t
spray_step(spray *s, field *phi, const field *solid, macgrid *vel,
	   const double g[3], double dt)
{
	return spray_step_shell(s, phi, solid, vel, g, dt, NULL, NULL, NULL);
}

size_t
spray_step_shell(spray *s, field *phi, const field *solid, macgrid *vel,
		 const double g[3], double dt, spray_cross_fn cross, void *ctx,
		 size_t *removed)
{
	int nc[3], a;
	double lo[3], hi[3];
	size_t q = 0, landed = 0, gone = 0;

	field_cell_dims(phi, &nc[0], &nc[1], &nc[2]);
	for (a = 0; a < 3; a++) {
		lo[a] = phi->origin[a];
		hi[a] = phi->origin[a] + nc[a] * phi->dx;
	}
	while (q < s->n) {
		double x[3], x0[3] = { s->x[3 * q], s->x[3 * q + 1], s->x[3 * q + 2] };

		for (a = 0; a < 3; a++) {
			float *v = &s->v[3 * q + a], *p = &s->x[3 * q + a];

			*v += (float)(g[a] * dt);
			*p += (float)(*v * dt);
			if (*p < lo[a] || *p > hi[a]) {
				*p = (float)(*p < lo[a] ? lo[a] : hi[a]);
				*v = 0;
			}
		}
		if (solid)
			collide_one(s, q, solid, x0);
		for (a = 0; a < 3; a++)
			x[a] = s->x[3 * q + a];
		if (cross) {
			int h = cross(ctx, x0, x);

			if (h == 2) {
				remove_at(s, q);
				gone++;
				continue;
			}
			if (h)
				for (a = 0; a < 3; a++) {
					s->x[3 * q + a] = (float)x0[a];
					s->v[3 * q + a] = 0;
					x[a] = x0[a];
				}
		}
		if (field_sample(phi, x) < 0) {
			double v[3] = { s->v[3 * q], s->v[3 * q + 1], s->v[3 * q + 2] };

			union_ball(phi, x, s->r[q]);
			if (vel)
				spray_give_momentum(vel, x, v, spray_mass(s->r[q]));
			remove_at(s, q);
			landed++;
			continue;
		}
		q++;
	}
	if (removed)
		*removed = gone;
	return landed;
}

double
spray_volume(const spray *s)
{
	double v = 0;
	size_t q;

	for (q = 0; q < s->n; q++)
		v += 4.0 / 3.0 * M_PI * (double)s->r[q] * s->r[q] * s->r[q];
	return v;
}

int
spray_to_rec(const spray *s, slc_rec *r, const char *name, double time,
	     slc_err *err)
{
	float *x, *v, *rad, *m;
	size_t q;

	slc_rec_init(r, SLC_PARTICLES, name);
	r->time = time;
	if (!(x = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, s->n, err)) ||
	    !(v = slc_rec_add(r, "v", SLC_F32, 3, SLC_POINT, s->n, err)) ||
	    !(rad = slc_rec_add(r, "radius", SLC_F32, 1, SLC_POINT, s->n, err)) ||
	    !(m = slc_rec_add(r, "mass", SLC_F32, 1, SLC_POINT, s->n, err))) {
		slc_rec_free(r);
		return -1;
	}
	if (s->n) {
		memcpy(x, s->x, 3 * s->n * sizeof *x);
		memcpy(v, s->v, 3 * s->n * sizeof *v);
		memcpy(rad, s->r, s->n * sizeof *rad);
	}
	for (q = 0; q < s->n; q++)
		m[q] = (float)spray_mass(s->r[q]);
	return 0;
}

int
spray_from_rec(spray *s, const slc_rec *r, slc_err *err)
{
	const float *x, *v, *rad;
	uint64_t q, n;

	spray_init(s);
	if (r->kind != SLC_PARTICLES)
		return slc_fail(err, "record '%s' is a %s, expected particles", r->name,
				slc_kind_name(r->kind));
	if (!(x = slc_rec_get(r, "P", SLC_F32, 3, 0, err)))
		return -1;
	n = slc_rec_find(r, "P")->count;
	if (!(v = slc_rec_get(r, "v", SLC_F32, 3, n, err)) ||
	    !(rad = slc_rec_get(r, "radius", SLC_F32, 1, n, err)))
		return -1;
	for (q = 0; q < n; q++) {
		double y[3] = { x[3 * q], x[3 * q + 1], x[3 * q + 2] };
		double u[3] = { v[3 * q], v[3 * q + 1], v[3 * q + 2] };

		if (!isfinite(y[0] + y[1] + y[2] + u[0] + u[1] + u[2]) || !(rad[q] > 0) ||
		    !isfinite(rad[q]))
			return spray_free(s),
			       slc_fail(err, "particles '%s': particle %llu has a bad position, velocity or radius",
					r->name, (unsigned long long)q);
		if (spray_push(s, y, u, rad[q], err))
			return spray_free(s), -1;
	}
	return 0;
}
