/* prim_rigid.c: a rigid ball as frame records (prim_rigid.h). */
#include "prim/prim_rigid.h"

#include <math.h>
#include <string.h>

#include "fluid/rigid_move.h"

static int
add(slc_rec *r, const char *name, uint32_t nc, const double *x, slc_err *err)
{
	double *d = slc_rec_add(r, name, SLC_F64, nc, SLC_POINT, 1, err);

	if (!d)
		return -1;
	memcpy(d, x, nc * sizeof *d);
	return 0;
}

/* The `rigid` record of one body into r (empty): centre of mass P,
 * mass, inertia (x9), v, omega, identity orient, scripted, and when
 * scripted accel and a finite stop. */
static int
rigid_rec(slc_rec *r, const double P[3], double m, const double in[9],
	  const double v[3], const double omega[3], int scripted,
	  const double accel[3], double stop, double time, slc_err *err)
{
	const double q[4] = {0, 0, 0, 1};
	uint8_t *s;

	slc_rec_init(r, SLC_PARTICLES, "rigid");
	r->time = time;
	if (add(r, "P", 3, P, err) || add(r, "mass", 1, &m, err) ||
	    add(r, "inertia", 9, in, err) || add(r, "v", 3, v, err) ||
	    add(r, "omega", 3, omega, err) || add(r, "orient", 4, q, err) ||
	    !(s = slc_rec_add(r, "scripted", SLC_U8, 1, SLC_POINT, 1, err)) ||
	    (scripted && add(r, "accel", 3, accel, err)) ||
	    (scripted && isfinite(stop) && add(r, "stop", 1, &stop, err)))
		return -1;
	*s = (uint8_t)(scripted != 0);
	return 0;
}

int
prim_ball_recs(const prim_ball *b, const field *cells, double time, slc_rec rec[3],
	       slc_err *err)
{
	double m = 4.0 / 3 * M_PI * b->radius * b->radius * b->radius * b->density;
	double I = 0.4 * m * b->radius * b->radius;
	double in[9] = {I, 0, 0, 0, I, 0, 0, 0, I}, dx = cells->dx;
	int ni, nj, nk;
	field phi0, phi;
	rigid_body body = {0};

	if (!(b->radius > 0) || !(b->density > 0) || !isfinite(m))
		return slc_fail(err, "ball radius %g, density %g: expected > 0", b->radius,
				b->density);
	memset(rec, 0, 3 * sizeof *rec);
	if (rigid_rec(&rec[0], b->center, m, in, b->v, b->omega, b->scripted, b->accel,
		      b->stop, time, err))
		goto fail;

	/* body frame: a cube of whole cells centred on the centre of mass */
	int n = 2 * ((int)ceil(b->radius / dx) + PRIM_BALL_MARGIN);
	double o = -0.5 * n * dx;
	if (field_alloc(&phi0, n, n, n, SLC_CELL, (double[3]){o, o, o}, dx, err))
		goto fail;
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double y[3];
				field_pos(&phi0, i, j, k, y);
				phi0.a[FIELD_IDX(&phi0, i, j, k)] =
					(float)(sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]) - b->radius);
			}
	field_cell_dims(cells, &ni, &nj, &nk);
	if (field_alloc(&phi, ni, nj, nk, SLC_CELL, cells->origin, dx, err)) {
		field_free(&phi0);
		goto fail;
	}
	memcpy(body.P, b->center, sizeof body.P);
	body.q[3] = 1;
	rigid_phi_place(&phi, &phi0, &body);
	int rc = field_to_rec(&phi0, &rec[1], "rigid_phi0", time, err) ||
		 field_to_rec(&phi, &rec[2], "rigid_phi", time, err);
	field_free(&phi0);
	field_free(&phi);
	if (!rc)
		return 0;
fail:
	for (int r = 0; r < 3; r++)
		slc_rec_free(&rec[r]);
	return -1;
}

/* Mass, centre of mass and inertia about it of the surface of m with
 * areal density sigma.  A triangle of area A and corners v_i (relative to
 * the centre) has second moment int x x^T dA = A/12 (sum v_i v_i^T +
 * s s^T), s = sum v_i; the inertia is tr(S) 1 - S. */
static void
shell_mass(const prim_mesh *m, double sigma, double *mass, double P[3],
	   double in[9])
{
	double S[9] = {0}, tot = 0, c[3] = {0, 0, 0};

	for (size_t t = 0; t < m->nt; t++) {
		const double *v[3];
		double u[3], w[3], n[3], A;

		for (int k = 0; k < 3; k++)
			v[k] = m->P + 3 * m->tri[3 * t + k];
		for (int a = 0; a < 3; a++) {
			u[a] = v[1][a] - v[0][a];
			w[a] = v[2][a] - v[0][a];
		}
		n[0] = u[1] * w[2] - u[2] * w[1];
		n[1] = u[2] * w[0] - u[0] * w[2];
		n[2] = u[0] * w[1] - u[1] * w[0];
		A = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		tot += A;
		for (int a = 0; a < 3; a++)
			c[a] += A * (v[0][a] + v[1][a] + v[2][a]) / 3;
	}
	for (int a = 0; a < 3; a++)
		P[a] = tot > 0 ? c[a] / tot : 0;
	for (size_t t = 0; t < m->nt; t++) {
		double v[3][3], s[3] = {0, 0, 0}, u[3], w[3], n[3], A;

		for (int k = 0; k < 3; k++)
			for (int a = 0; a < 3; a++) {
				v[k][a] = m->P[3 * m->tri[3 * t + k] + a] - P[a];
				s[a] += v[k][a];
			}
		for (int a = 0; a < 3; a++) {
			u[a] = v[1][a] - v[0][a];
			w[a] = v[2][a] - v[0][a];
		}
		n[0] = u[1] * w[2] - u[2] * w[1];
		n[1] = u[2] * w[0] - u[0] * w[2];
		n[2] = u[0] * w[1] - u[1] * w[0];
		A = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				double x = s[a] * s[b];
				for (int k = 0; k < 3; k++)
					x += v[k][a] * v[k][b];
				S[3 * a + b] += sigma * A / 12 * x;
			}
	}
	*mass = sigma * tot;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			in[3 * a + b] = (a == b ? S[0] + S[4] + S[8] : 0) - S[3 * a + b];
}

int
prim_shell_body_recs(const prim_mesh *m, const char *name,
		     const prim_shell_body *b, double time, slc_rec rec[2],
		     slc_err *err)
{
	double mass, P[3], in[9];
	double *bp;
	float *Pf, *vf;
	uint32_t *tri, *idx;

	memset(rec, 0, 2 * sizeof *rec);
	if (!(b->density > 0))
		return slc_fail(err, "shell density %g kg/m^2, expected > 0", b->density);
	shell_mass(m, b->density, &mass, P, in);
	if (!(mass > 0) || !isfinite(mass))
		return slc_fail(err, "shell mass %g kg, expected > 0", mass);
	if (rigid_rec(&rec[0], P, mass, in, b->v, b->omega, b->scripted, b->accel,
		      b->stop, time, err))
		goto fail;
	slc_rec_init(&rec[1], SLC_MESH, name);
	rec[1].time = time;
	if (!(Pf = slc_rec_add(&rec[1], "P", SLC_F32, 3, SLC_POINT, m->nv, err)) ||
	    !(tri = slc_rec_add(&rec[1], "tri", SLC_U32, 3, SLC_PRIM, m->nt, err)) ||
	    !(vf = slc_rec_add(&rec[1], "v", SLC_F32, 3, SLC_POINT, m->nv, err)) ||
	    !(bp = slc_rec_add(&rec[1], "body_P", SLC_F64, 3, SLC_POINT, m->nv, err)) ||
	    !(idx = slc_rec_add(&rec[1], "body", SLC_U32, 1, SLC_DETAIL, 1, err)))
		goto fail;
	for (size_t i = 0; i < m->nv; i++) {
		const double *x = m->P + 3 * i;
		double r[3] = { x[0] - P[0], x[1] - P[1], x[2] - P[2] };
		const double *w = b->omega;
		double u[3] = { b->v[0] + w[1] * r[2] - w[2] * r[1],
				b->v[1] + w[2] * r[0] - w[0] * r[2],
				b->v[2] + w[0] * r[1] - w[1] * r[0] };

		for (int a = 0; a < 3; a++) {
			Pf[3 * i + a] = (float)x[a];
			vf[3 * i + a] = (float)u[a];
			bp[3 * i + a] = r[a];
		}
	}
	memcpy(tri, m->tri, 3 * m->nt * sizeof *tri);
	*idx = 0;
	return 0;
fail:
	slc_rec_free(&rec[0]);
	slc_rec_free(&rec[1]);
	return -1;
}
