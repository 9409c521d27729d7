/* prim_char.c: the animated characters of prim_char.h: the two-bone arm
 * skinned by linear blend, the ball on a path, the head, their skeleton poses and
 * their per-frame records. */
#include "prim/prim_char.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "prim/prim_head.h"

#define V(s, k) ((s)->p[k].v[0])

/* Rotation by a about axis ax (0, 1, 2) as a 3x4 matrix about point o,
 * and its derivative times the angular rate w. */
static void
turn(double M[12], double Md[12], int ax, double a, double w, const double o[3])
{
	double R[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, K[9] = { 0 }, KR[9];
	int u = (ax + 1) % 3, v = (ax + 2) % 3, i, j, k;

	R[3 * u + u] = cos(a);
	R[3 * u + v] = -sin(a);
	R[3 * v + u] = sin(a);
	R[3 * v + v] = cos(a);
	K[3 * v + u] = 1;       /* cross product with e_ax */
	K[3 * u + v] = -1;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			KR[3 * i + j] = 0;
			for (k = 0; k < 3; k++)
				KR[3 * i + j] += K[3 * i + k] * R[3 * k + j];
		}
	for (i = 0; i < 3; i++) {
		double t = o[i], td = 0;

		for (j = 0; j < 3; j++) {
			M[4 * i + j] = R[3 * i + j];
			Md[4 * i + j] = w * KR[3 * i + j];
			t -= R[3 * i + j] * o[j];
			td -= w * KR[3 * i + j] * o[j];
		}
		M[4 * i + 3] = t;
		Md[4 * i + 3] = td;
	}
}

void
prim_pose_apply(const prim_pose *pose, const float *w, const double X[3],
		double x[3], double v[3])
{
	int b, i;

	for (i = 0; i < 3; i++)
		x[i] = v[i] = 0;
	for (b = 0; b < pose->nbones; b++)
		for (i = 0; i < 3; i++) {
			const double *m = pose->M[b] + 4 * i, *d = pose->Mdot[b] + 4 * i;

			x[i] += w[b] * (m[0] * X[0] + m[1] * X[1] + m[2] * X[2] + m[3]);
			v[i] += w[b] * (d[0] * X[0] + d[1] * X[1] + d[2] * X[2] + d[3]);
		}
}

void
prim_path_pose(prim_pose *pose, int path, const double v[3], const double o[3],
	       double omega, double t)
{
	int i;

	memset(pose, 0, sizeof *pose);
	pose->nbones = 1;
	if (path == PRIM_PATH_CIRCLE) {
		turn(pose->M[0], pose->Mdot[0], 1, omega * t, omega, o);
		return;
	}
	for (i = 0; i < 3; i++) {
		pose->M[0][5 * i] = 1;
		pose->M[0][4 * i + 3] = v[i] * t;
		pose->Mdot[0][4 * i + 3] = v[i];
	}
}

int
prim_arm(prim_mesh *m, float **bw, prim_pose *pose, const double c[3], double L1,
	 double L2, double r, int res, double theta0, double amp, double period,
	 double t, slc_err *err)
{
	/* profile (x along the arm, rho from the axis): a pole, a quarter
	 * circle of cap rings, the cylinder, the other cap, a pole */
	int ncap = res / 4 > 2 ? res / 4 : 2, ncyl, nring, i, j, q;
	double L = L1 + L2, b = PRIM_ARM_BLEND * r, *px, *pr;
	double elbow[3] = { c[0] + L1, c[1], c[2] }, w = 2 * M_PI / period;
	size_t nv, nt, v, k = 0;

	memset(m, 0, sizeof *m);
	*bw = NULL;
	ncyl = (int)ceil(L / (2 * M_PI * r / res));
	nring = 2 * ncap + ncyl - 1 + 2;        /* with the two poles */
	nv = (size_t)(nring - 2) * (size_t)res + 2;
	nt = 2 * (size_t)res * (size_t)(nring - 2);
	px = slc_malloc((size_t)nring, 2 * sizeof *px, err);
	m->P = px ? slc_malloc(nv, 3 * sizeof *m->P, err) : NULL;
	m->tri = m->P ? slc_malloc(nt, 3 * sizeof *m->tri, err) : NULL;
	*bw = m->tri ? slc_malloc(nv, 2 * sizeof **bw, err) : NULL;
	if (!*bw) {
		free(px);
		prim_mesh_free(m);
		return -1;
	}
	pr = px + nring;
	for (q = 0, i = 0; i <= ncap; i++, q++) {
		double a = M_PI / 2 * i / ncap;

		px[q] = -r * cos(a);
		pr[q] = r * sin(a);
	}
	for (i = 1; i < ncyl; i++, q++) {
		px[q] = L * i / ncyl;
		pr[q] = r;
	}
	for (i = ncap; i >= 0; i--, q++) {
		double a = M_PI / 2 * i / ncap;

		px[q] = L + r * cos(a);
		pr[q] = r * sin(a);
	}
	m->nv = nv;
	m->nt = nt;
	for (q = 0; q < nring; q++)
		for (j = 0; j < (q == 0 || q == nring - 1 ? 1 : res); j++) {
			double a = 2 * M_PI * j / res, s = (px[q] - (L1 - b)) / (2 * b);

			v = q == 0 ? 0 : q == nring - 1 ? nv - 1 : 1 + (size_t)(q - 1) * res + j;
			m->P[3 * v] = c[0] + px[q];
			m->P[3 * v + 1] = c[1] + pr[q] * cos(a);
			m->P[3 * v + 2] = c[2] + pr[q] * sin(a);
			s = s < 0 ? 0 : s > 1 ? 1 : s;
			(*bw)[2 * v] = (float)(1 - s);
			(*bw)[2 * v + 1] = (float)s;
		}
	/* quads (a, b next along the arm, c, d next around) as (a, d, c),
	 * (a, c, b): counter-clockwise from outside; the poles' fans */
	for (q = 0; q + 1 < nring; q++)
		for (j = 0; j < res; j++) {
			int jn = (j + 1) % res;
			uint32_t a0 = q == 0 ? 0 : (uint32_t)(1 + (q - 1) * res + j);
			uint32_t d0 = q == 0 ? 0 : (uint32_t)(1 + (q - 1) * res + jn);
			uint32_t b0 = q + 1 == nring - 1 ? (uint32_t)nv - 1 : (uint32_t)(1 + q * res + j);
			uint32_t c0 = q + 1 == nring - 1 ? (uint32_t)nv - 1 : (uint32_t)(1 + q * res + jn);

			if (q > 0) {
				m->tri[3 * k] = a0;
				m->tri[3 * k + 1] = d0;
				m->tri[3 * k + 2] = c0;
				k++;
			}
			if (q + 1 < nring - 1) {
				m->tri[3 * k] = a0;
				m->tri[3 * k + 1] = c0;
				m->tri[3 * k + 2] = b0;
				k++;
			}
		}
	free(px);
	memset(pose, 0, sizeof *pose);
	pose->nbones = 2;
	turn(pose->M[0], pose->Mdot[0], 2, 0, 0, c);
	turn(pose->M[1], pose->Mdot[1], 2, theta0 + amp * sin(w * t),
	     amp * w * cos(w * t), elbow);
	return 0;
}

/* "a,b,c,..." of n numbers that read back to the same doubles. */
static void
numbers(char *buf, size_t len, const double *a, int n)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%.17g", i ? "," : "", a[i]);
}

int
prim_char_emit(const prim_mesh *rest, const float *bw, const prim_pose *pose,
	       const char *name, long frame, double t, prim_emit emit, void *arg,
	       slc_err *err)
{
	double *P, *R, *Vv;
	float *W;
	uint32_t *T;
	char key[32], val[512];
	slc_rec r;
	size_t v;
	int b;

	slc_rec_init(&r, SLC_MESH, name);
	r.time = t;
	if (!(P = slc_rec_add(&r, "P", SLC_F64, 3, SLC_POINT, rest->nv, err)) ||
	    !(T = slc_rec_add(&r, "tri", SLC_U32, 3, SLC_PRIM, rest->nt, err)) ||
	    !(R = slc_rec_add(&r, "rest", SLC_F64, 3, SLC_POINT, rest->nv, err)) ||
	    !(Vv = slc_rec_add(&r, "v", SLC_F64, 3, SLC_POINT, rest->nv, err)) ||
	    !(W = slc_rec_add(&r, "bw", SLC_F32, PRIM_BONES_MAX, SLC_POINT, rest->nv, err))) {
		slc_rec_free(&r);
		return -1;
	}
	memcpy(T, rest->tri, rest->nt * 3 * sizeof *T);
	memcpy(R, rest->P, rest->nv * 3 * sizeof *R);
	for (v = 0; v < rest->nv; v++) {
		for (b = 0; b < PRIM_BONES_MAX; b++)
			W[PRIM_BONES_MAX * v + b] = b < pose->nbones ? bw[pose->nbones * v + b] : 0;
		prim_pose_apply(pose, W + PRIM_BONES_MAX * v, rest->P + 3 * v, P + 3 * v,
				Vv + 3 * v);
	}
	if (prim_emit_rec(&r, 0, emit, arg, err) || slc_meta_init(&r, "skeleton", err))
		return -1;
	r.time = t;
	snprintf(val, sizeof val, "%d", pose->nbones);
	if (slc_meta_set(&r, "bones", val, err))
		goto fail;
	snprintf(val, sizeof val, "%ld", frame);
	if (slc_meta_set(&r, "frame", val, err))
		goto fail;
	snprintf(val, sizeof val, "%.17g", t);
	if (slc_meta_set(&r, "time", val, err))
		goto fail;
	for (b = 0; b < pose->nbones; b++) {
		snprintf(key, sizeof key, "bone.%d", b);
		numbers(val, sizeof val, pose->M[b], 12);
		if (slc_meta_set(&r, key, val, err))
			goto fail;
		snprintf(key, sizeof key, "bone.%d.dot", b);
		numbers(val, sizeof val, pose->Mdot[b], 12);
		if (slc_meta_set(&r, key, val, err))
			goto fail;
	}
	return prim_emit_rec(&r, 0, emit, arg, err);
fail:
	slc_rec_free(&r);
	return -1;
}

static double
frame_time(const prim_spec *s, const prim_char_spec *c)
{
	return V(c, PC_FRAME) / V(s, PP_FPS);
}

static int
check_arm(prim_spec *s, prim_char_spec *c, slc_err *err)
{
	const double *bl = c->p[PC_BONES].v;

	if (V(c, PC_FRAME) < 0)
		return slc_fail(err, "--frame: %g, expected >= 0", V(c, PC_FRAME));
	if (!(bl[0] > 2 * V(s, PP_RADIUS) * PRIM_ARM_BLEND && bl[1] > 0))
		return slc_fail(err, "--bones: %g,%g, expected lengths > 0, the upper arm "
				"longer than the elbow's blend (%g)", bl[0], bl[1],
				2 * V(s, PP_RADIUS) * PRIM_ARM_BLEND);
	if (!(V(c, PC_PERIOD) > 0))
		return slc_fail(err, "--period: %g, expected > 0", V(c, PC_PERIOD));
	if (V(s, PP_RES) < 3 || V(s, PP_RES) > PRIM_RES_MAX)
		return slc_fail(err, "--res: %g, expected 3..%d", V(s, PP_RES), PRIM_RES_MAX);
	return 0;
}

static int
make_arm(const prim_spec *s, const prim_char_spec *c, prim_emit emit, void *arg,
	 slc_err *err)
{
	double deg = M_PI / 180, t = frame_time(s, c);
	prim_mesh m;
	prim_pose pose;
	float *bw;
	int rc;

	if (prim_arm(&m, &bw, &pose, s->p[PP_CENTER].v, c->p[PC_BONES].v[0],
		     c->p[PC_BONES].v[1], V(s, PP_RADIUS), (int)V(s, PP_RES),
		     c->p[PC_ELBOW].v[0] * deg, c->p[PC_ELBOW].v[1] * deg,
		     V(c, PC_PERIOD), t, err))
		return -1;
	rc = prim_char_emit(&m, bw, &pose, s->name ? s->name : "body",
			    (long)V(c, PC_FRAME), t, emit, arg, err);
	prim_mesh_free(&m);
	free(bw);
	return rc;
}

static int
check_ball(prim_spec *s, prim_char_spec *c, slc_err *err)
{
	if (V(c, PC_FRAME) < 0)
		return slc_fail(err, "--frame: %g, expected >= 0", V(c, PC_FRAME));
	if (V(s, PP_SUBDIV) < 0 || V(s, PP_SUBDIV) > PRIM_SUBDIV_MAX)
		return slc_fail(err, "--subdiv: %g, expected 0..%d", V(s, PP_SUBDIV),
				PRIM_SUBDIV_MAX);
	return 0;
}

static int
make_ball(const prim_spec *s, const prim_char_spec *c, prim_emit emit, void *arg,
	  slc_err *err)
{
	static const float one[1] = { 1 };
	double t = frame_time(s, c);
	prim_mesh m;
	prim_pose pose;
	float *bw;
	size_t v;
	int rc;

	if (prim_icosphere(&m, (int)V(s, PP_SUBDIV), V(s, PP_RADIUS), s->p[PP_CENTER].v, err))
		return -1;
	if (!(bw = slc_malloc(m.nv, sizeof *bw, err))) {
		prim_mesh_free(&m);
		return -1;
	}
	for (v = 0; v < m.nv; v++)
		bw[v] = one[0];
	prim_path_pose(&pose, c->path, s->p[PP_VELOCITY].v, c->p[PC_ORBIT].v,
		       V(s, PP_RATE) * M_PI / 180, t);
	rc = prim_char_emit(&m, bw, &pose, s->name ? s->name : "body",
			    (long)V(c, PC_FRAME), t, emit, arg, err);
	prim_mesh_free(&m);
	free(bw);
	return rc;
}

/* A sphere (--radius, --center, --subdiv) turning and nodding on the
 * schedule of prim_head.h (--turn, --nod: DEG,T0,T1). */
static int
check_head(prim_spec *s, prim_char_spec *c, slc_err *err)
{
	if (check_ball(s, c, err))
		return -1;
	if (fabs(c->p[PC_TURN].v[0]) > 3600 || fabs(c->p[PC_NOD].v[0]) > 90)
		return slc_fail(err, "--turn %g, --nod %g: expected |turn| <= 3600 "
				"and |nod| <= 90 degrees", c->p[PC_TURN].v[0],
				c->p[PC_NOD].v[0]);
	return 0;
}

static int
make_head(const prim_spec *s, const prim_char_spec *c, prim_emit emit, void *arg,
	  slc_err *err)
{
	double t = frame_time(s, c);
	prim_head h;
	prim_mesh m;
	prim_pose pose = { .nbones = 1 };
	float *bw;
	size_t v;
	int rc;

	memcpy(h.c, s->p[PP_CENTER].v, sizeof h.c);
	h.r = V(s, PP_RADIUS);
	memcpy(h.turn, c->p[PC_TURN].v, sizeof h.turn);
	memcpy(h.nod, c->p[PC_NOD].v, sizeof h.nod);
	prim_head_pose(&h, t, pose.M[0], pose.Mdot[0]);
	if (prim_icosphere(&m, (int)V(s, PP_SUBDIV), h.r, h.c, err))
		return -1;
	if (!(bw = slc_malloc(m.nv, sizeof *bw, err))) {
		prim_mesh_free(&m);
		return -1;
	}
	for (v = 0; v < m.nv; v++)
		bw[v] = 1;
	rc = prim_char_emit(&m, bw, &pose, s->name ? s->name : "head",
			    (long)V(c, PC_FRAME), t, emit, arg, err);
	prim_mesh_free(&m);
	free(bw);
	return rc;
}

static const prim_char_shape char_shapes[] = {
	{ { "arm", "radius=0.05 center=0.3,0.5,0.5 res=16 fps=24 frame=0 bones=0.25,0.2 "
	    "elbow=20,50 period=1", " name=", NULL, NULL }, check_arm, make_arm },
	{ { "ball", "path=line radius=0.1 center=0.5,0.5,0.5 subdiv=3 fps=24 frame=0 "
	    "velocity=0.5,0,0 orbit=0.3,0.5,0.5 rate=90", " name=", NULL, NULL },
	  check_ball, make_ball },
	{ { "head", "radius=0.1 center=0,0,0 subdiv=3 fps=24 frame=0 turn=60,0.25,1.25 "
	    "nod=20,1.25,2", " name=", NULL, NULL }, check_head, make_head },
};

const prim_char_shape *
prim_char_find(const char *name, int with_path)
{
	if (!strcmp(name, "arm"))
		return &char_shapes[0];
	if (!strcmp(name, "head"))
		return &char_shapes[2];
	if (!strcmp(name, "ball") && with_path)
		return &char_shapes[1];
	return NULL;
}
