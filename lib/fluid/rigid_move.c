/* rigid_move.c: the motion of scripted and dynamic rigid bodies in advect,
 * the `rigid` record's channels, and a body's level set at its pose; see
 * rigid_move.h. */
#include "fluid/rigid_move.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_P, C_MASS, C_INERTIA, C_V, C_OMEGA, C_ORIENT, C_SCRIPTED, C_ACCEL, C_STOP, NCH };
static const char *const cname[NCH] = {"P", "mass", "inertia", "v", "omega", "orient",
				       "scripted", "accel", "stop"};
static const uint32_t cnc[NCH] = {3, 1, 9, 3, 3, 4, 1, 3, 1};
#define NREQUIRED 5     /* P .. omega; the rest are optional */

void
rigid_rotate(const double q[4], const double x[3], double y[3])
{
	/* y = x + 2 w (u x x) + 2 u x (u x x), u = (q0, q1, q2) */
	double u[3] = {q[0], q[1], q[2]}, w = q[3];
	double t[3] = {2 * (u[1] * x[2] - u[2] * x[1]), 2 * (u[2] * x[0] - u[0] * x[2]),
		       2 * (u[0] * x[1] - u[1] * x[0])};
	y[0] = x[0] + w * t[0] + (u[1] * t[2] - u[2] * t[1]);
	y[1] = x[1] + w * t[1] + (u[2] * t[0] - u[0] * t[2]);
	y[2] = x[2] + w * t[2] + (u[0] * t[1] - u[1] * t[0]);
}

void
rigid_rotate_inv(const double q[4], const double x[3], double y[3])
{
	double c[4] = {-q[0], -q[1], -q[2], q[3]};
	rigid_rotate(c, x, y);
}

/* r = a b (Hamilton product, (x, y, z, w) order) */
static void
qmul(const double a[4], const double b[4], double r[4])
{
	double t[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
		       a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
		       a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
		       a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
	memcpy(r, t, sizeof t);
}

static int
inv3(const double m[9], double r[9])
{
	double c[9] = {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
		       m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
		       m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
	double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
	if (!(fabs(det) > 0))
		return -1;
	for (int e = 0; e < 9; e++)
		r[e] = c[e] / det;
	return 0;
}

static void
mat3_vec(const double m[9], const double x[3], double y[3])
{
	for (int a = 0; a < 3; a++)
		y[a] = m[3 * a] * x[0] + m[3 * a + 1] * x[1] + m[3 * a + 2] * x[2];
}

int
rigid_bodies_read(const slc_rec *r, rigid_body **body, int *nbody, slc_err *err)
{
	double *d[NCH] = {0};
	uint64_t n = 0, cnt;
	rigid_body *b = NULL;
	int rc = -1;

	*body = NULL, *nbody = 0;
	for (int c = 0; c < NCH; c++) {
		if (c >= NREQUIRED && !slc_rec_find(r, cname[c]))
			continue;
		if (!(d[c] = slc_rec_get_f64(r, cname[c], cnc[c], &cnt, err)))
			goto out;
		if (c == C_P)
			n = cnt;
		if (cnt != n) {
			slc_fail(err, "channel '%s' has %llu values, %llu bodies", cname[c],
				 (unsigned long long)cnt, (unsigned long long)n);
			goto out;
		}
	}
	if (n > RIGID_MAX_BODIES) {
		slc_fail(err, "%llu bodies", (unsigned long long)n);
		goto out;
	}
	if (!(b = slc_calloc(n ? n : 1, sizeof *b, err)))
		goto out;
	for (uint64_t q = 0; q < n; q++) {
		rigid_body *B = &b[q];
		for (int c = 0; c < NCH; c++)
			for (uint32_t e = 0; d[c] && e < cnc[c]; e++)
				if (!isfinite(d[c][cnc[c] * q + e]) && !(c == C_STOP && d[c][q] > 0)) {
					slc_fail(err, "body %llu: channel '%s' not finite",
						 (unsigned long long)q, cname[c]);
					goto out;
				}
		memcpy(B->P, d[C_P] + 3 * q, sizeof B->P);
		memcpy(B->inertia, d[C_INERTIA] + 9 * q, sizeof B->inertia);
		memcpy(B->v, d[C_V] + 3 * q, sizeof B->v);
		memcpy(B->omega, d[C_OMEGA] + 3 * q, sizeof B->omega);
		B->mass = d[C_MASS][q];
		B->q[3] = 1;
		if (d[C_ORIENT])
			memcpy(B->q, d[C_ORIENT] + 4 * q, sizeof B->q);
		double len = sqrt(B->q[0] * B->q[0] + B->q[1] * B->q[1] + B->q[2] * B->q[2] +
				  B->q[3] * B->q[3]);
		if (!(fabs(len - 1) <= RIGID_ORIENT_TOL)) {
			slc_fail(err, "body %llu: orient has length %g, expected a unit quaternion "
				 "(x,y,z,w)", (unsigned long long)q, len);
			goto out;
		}
		for (int e = 0; e < 4; e++)
			B->q[e] /= len;
		if (!(B->mass > 0)) {
			slc_fail(err, "body %llu: mass %g, expected > 0", (unsigned long long)q, B->mass);
			goto out;
		}
		if (d[C_SCRIPTED] && d[C_SCRIPTED][q] != 0 && d[C_SCRIPTED][q] != 1) {
			slc_fail(err, "body %llu: scripted %g, expected 0 or 1", (unsigned long long)q,
				 d[C_SCRIPTED][q]);
			goto out;
		}
		B->scripted = d[C_SCRIPTED] && d[C_SCRIPTED][q] == 1;
		if (d[C_ACCEL])
			memcpy(B->accel, d[C_ACCEL] + 3 * q, sizeof B->accel);
		B->stop = d[C_STOP] ? d[C_STOP][q] : INFINITY;
	}
	*body = b, *nbody = (int)n;
	b = NULL;
	rc = 0;
out:
	for (int c = 0; c < NCH; c++)
		free(d[c]);
	free(b);
	return rc;
}

/* Store x[0..count*ncomp) in channel ch, in its own type. */
static int
put_chan(slc_chan *ch, const double *x, size_t m, slc_err *err)
{
	for (size_t s = 0; s < m; s++)
		switch (ch->type) {
		case SLC_F32: ((float *)ch->data)[s] = (float)x[s]; break;
		case SLC_F64: ((double *)ch->data)[s] = x[s]; break;
		default:
			return slc_fail(err, "channel '%s' is %s, expected f32 or f64 to write the "
					"moved bodies", ch->name, slc_type_name(ch->type));
		}
	return 0;
}

int
rigid_bodies_write(slc_rec *r, const rigid_body *b, int n, slc_err *err)
{
	static const int wr[] = {C_P, C_ORIENT, C_V, C_OMEGA, C_INERTIA};
	double *x = slc_calloc((size_t)(n ? n : 1) * 9, sizeof *x, err);

	if (!x)
		return -1;
	if (!slc_rec_find(r, "orient") &&
	    !slc_rec_add(r, "orient", SLC_F64, 4, SLC_POINT, (uint64_t)n, err))
		goto fail;
	for (size_t w = 0; w < sizeof wr / sizeof *wr; w++) {
		int c = wr[w];
		slc_chan *ch = slc_rec_find(r, cname[c]);
		if (!ch || ch->ncomp != cnc[c] || ch->count != (uint64_t)n) {
			slc_fail(err, "channel '%s' missing or mis-sized", cname[c]);
			goto fail;
		}
		for (int q = 0; q < n; q++) {
			const double *s = c == C_P ? b[q].P : c == C_ORIENT ? b[q].q : c == C_V ? b[q].v :
					  c == C_OMEGA ? b[q].omega : b[q].inertia;
			memcpy(x + cnc[c] * q, s, cnc[c] * sizeof *x);
		}
		if (put_chan(ch, x, (size_t)n * cnc[c], err))
			goto fail;
	}
	free(x);
	return 0;
fail:
	free(x);
	return -1;
}

/* Turn the body by the rotation omega dt: orientation, world inertia and,
 * for a dynamic body, omega from the conserved angular momentum. */
static void
turn(rigid_body *b, double dt)
{
	double w = sqrt(b->omega[0] * b->omega[0] + b->omega[1] * b->omega[1] +
			b->omega[2] * b->omega[2]);
	if (!(w * dt > 0))
		return;
	double s = sin(0.5 * w * dt) / w, dq[4] = {s * b->omega[0], s * b->omega[1],
						    s * b->omega[2], cos(0.5 * w * dt)};
	double L[3], R[9], RI[9], Iinv[9];
	mat3_vec(b->inertia, b->omega, L);
	qmul(dq, b->q, b->q);
	double len = sqrt(b->q[0] * b->q[0] + b->q[1] * b->q[1] + b->q[2] * b->q[2] + b->q[3] * b->q[3]);
	for (int e = 0; e < 4; e++)
		b->q[e] /= len;
	/* R columns: dR e_a; I <- dR I dR^T */
	for (int a = 0; a < 3; a++) {
		double e[3] = {a == 0, a == 1, a == 2}, c[3];
		rigid_rotate(dq, e, c);
		for (int r = 0; r < 3; r++)
			R[3 * r + a] = c[r];
	}
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			RI[3 * r + c] = R[3 * r] * b->inertia[c] + R[3 * r + 1] * b->inertia[3 + c] +
					R[3 * r + 2] * b->inertia[6 + c];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			b->inertia[3 * r + c] = RI[3 * r] * R[3 * c] + RI[3 * r + 1] * R[3 * c + 1] +
						RI[3 * r + 2] * R[3 * c + 2];
	if (!b->scripted && !inv3(b->inertia, Iinv))
		mat3_vec(Iinv, L, b->omega);
}

void
rigid_body_step(rigid_body *b, const double g[3], double t, double dt)
{
	static const double none[3];
	const double *a = b->scripted ? b->accel : g ? g : none;
	double h = dt;

	if (b->scripted && t + dt >= b->stop)
		h = b->stop > t ? b->stop - t : 0;
	for (int e = 0; e < 3; e++) {
		b->P[e] += b->v[e] * h + 0.5 * a[e] * h * h;
		b->v[e] += a[e] * h;
	}
	turn(b, h);
	if (h < dt)     /* at rest from the stop time on */
		for (int e = 0; e < 3; e++)
			b->v[e] = b->omega[e] = 0;
}

double
rigid_phi_at(const field *phi0, const rigid_body *b, const double x[3])
{
	double r[3] = {x[0] - b->P[0], x[1] - b->P[1], x[2] - b->P[2]}, y[3], lo[3], off[3];
	double d2 = 0;

	rigid_rotate_inv(b->q, r, y);
	field_offset(phi0, off);
	int n[3] = {phi0->ni, phi0->nj, phi0->nk};
	for (int a = 0; a < 3; a++) {
		lo[a] = phi0->origin[a] + phi0->dx * off[a];
		double hi = lo[a] + phi0->dx * (n[a] - 1);
		double e = y[a] < lo[a] ? lo[a] - y[a] : y[a] > hi ? y[a] - hi : 0;
		d2 += e * e;
	}
	return field_sample(phi0, y) + sqrt(d2);
}

void
rigid_phi_place(field *phi, const field *phi0, const rigid_body *b)
{
	double reach = rigid_reach(phi0), near = reach + RIGID_NEAR_CELLS * phi->dx;

#pragma omp parallel for schedule(static)
	for (int k = 0; k < phi->nk; k++)
		for (int j = 0; j < phi->nj; j++)
			for (int i = 0; i < phi->ni; i++) {
				double x[3];
				field_pos(phi, i, j, k, x);
				double d = sqrt((x[0] - b->P[0]) * (x[0] - b->P[0]) +
						(x[1] - b->P[1]) * (x[1] - b->P[1]) +
						(x[2] - b->P[2]) * (x[2] - b->P[2]));
				phi->a[FIELD_IDX(phi, i, j, k)] =
					(float)(d < near ? rigid_phi_at(phi0, b, x) : d - reach);
			}
}

double
rigid_reach(const field *phi0)
{
	double off[3], m = 0;
	int n[3] = {phi0->ni, phi0->nj, phi0->nk};

	field_offset(phi0, off);
	for (int c = 0; c < 8; c++) {
		double d2 = 0;
		for (int a = 0; a < 3; a++) {
			double x = phi0->origin[a] + phi0->dx * (off[a] + ((c >> a & 1) ? n[a] - 1 : 0));
			d2 += x * x;
		}
		m = d2 > m ? d2 : m;
	}
	return sqrt(m);
}

/* The extremes of the body along each axis at orientation q, as offsets
 * from P: ext[0][a] the lowest, ext[1][a] the highest, from the samples of
 * phi0 (rigid_body_box_contact). */
static void
extremes(const field *phi0, const double q[4], double ext[2][3])
{
	for (int a = 0; a < 3; a++) {
		ext[0][a] = INFINITY;
		ext[1][a] = -INFINITY;
	}
	for (int k = 0; k < phi0->nk; k++)
		for (int j = 0; j < phi0->nj; j++)
			for (int i = 0; i < phi0->ni; i++) {
				double x[3], w[3], p = phi0->a[FIELD_IDX(phi0, i, j, k)];
				field_pos(phi0, i, j, k, x);
				rigid_rotate(q, x, w);
				for (int a = 0; a < 3; a++) {
					ext[0][a] = w[a] + p < ext[0][a] ? w[a] + p : ext[0][a];
					ext[1][a] = w[a] - p > ext[1][a] ? w[a] - p : ext[1][a];
				}
			}
}

int
rigid_body_box_contact(rigid_body *b, const field *phi0, const double lo[3],
		       const double hi[3])
{
	double ext[2][3];

	if (b->scripted)
		return 0;
	extremes(phi0, b->q, ext);
	return rigid_body_box_push(b, ext, lo, hi);
}

int
rigid_body_box_push(rigid_body *b, const double ext[2][3], const double lo[3],
		    const double hi[3])
{
	int touched = 0;

	if (b->scripted)
		return 0;
	for (int a = 0; a < 3; a++)
		for (int side = 0; side < 2; side++) {
			double wall = side ? hi[a] : lo[a], n = side ? -1 : 1;  /* into the box */
			double pen = side ? b->P[a] + ext[1][a] - wall : wall - (b->P[a] + ext[0][a]);
			if (!(pen >= 0) || !isfinite(ext[side][a]))
				continue;
			touched++;
			b->P[a] += pen * n;
			if (b->v[a] * n < 0)
				b->v[a] = 0;
		}
	return touched;
}
