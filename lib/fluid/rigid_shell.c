/* rigid_shell.c: rigid bodies shaped by a thin shell: their meshes, moved
 * with the body, and the faces they cut in the pressure system
 * (batty2007 §3, guendelman2005 §5); see rigid_shell.h. */
#include "fluid/rigid_shell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid/rigid_move.h"

int
rigid_shell_rec(const slc_rec *r)
{
	return r->kind == SLC_MESH && slc_rec_find(r, "body_P") != NULL;
}

/* One shell: its channels read and checked. */
static int
load_one(rigid_shell *s, slc_rec *r, int nbody, slc_err *err)
{
	uint64_t np, nb;
	uint32_t *body;
	slc_chan *c;

	s->r = r;
	if (!(s->P = slc_rec_get_f64(r, "P", 3, &np, err)))
		return -1;
	s->np = np;
	if (!(s->bodyP = slc_rec_get_f64(r, "body_P", 3, &nb, err)))
		return -1;
	if (nb != np)
		return slc_fail(err, "channel body_P: %llu points, P has %llu",
				(unsigned long long)nb, (unsigned long long)np);
	c = slc_rec_find(r, "body");
	if (!c || c->type != SLC_U32 || c->ncomp != 1 || c->domain != SLC_DETAIL || c->count != 1)
		return slc_fail(err, "channel body: missing or not u32 x1 detail (the rigid "
				"shell's point in 'rigid')");
	body = c->data;
	if (*body >= (uint32_t)nbody)
		return slc_fail(err, "channel body: %u, but 'rigid' has %d bodies", *body, nbody);
	s->body = (int)*body;
	if (!(c = slc_rec_find(r, "tri")) || !(s->tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err)))
		return slc_fail(err, "no triangles (channel tri, u32 x3)");
	s->ntri = c->count;
	for (size_t i = 0; i < 3 * s->np; i++)
		if (!isfinite(s->P[i]) || !isfinite(s->bodyP[i]))
			return slc_fail(err, "channel %s: value %zu not finite",
					isfinite(s->P[i]) ? "body_P" : "P", i);
	for (size_t i = 0; i < 3 * s->ntri; i++)
		if (s->tri[i] >= s->np)
			return slc_fail(err, "triangle %zu: index %u out of range", i / 3, s->tri[i]);
	return 0;
}

int
rigid_shells_load(rigid_shells *S, const slc_frame *F, int nbody, slc_err *err)
{
	int n = 0;

	memset(S, 0, sizeof *S);
	for (size_t q = 0; q < F->n; q++)
		n += rigid_shell_rec(F->r[q]);
	S->nbody = nbody;
	if (!(S->has = slc_calloc((size_t)nbody + 1, 1, err)))
		return -1;
	if (!n)
		return 0;
	if (!(S->s = slc_calloc((size_t)n, sizeof *S->s, err)))
		goto fail;
	for (size_t q = 0; q < F->n; q++) {
		if (!rigid_shell_rec(F->r[q]))
			continue;
		rigid_shell *s = &S->s[S->n++];
		if (load_one(s, F->r[q], nbody, err)) {
			slc_failctx(err, "record '%s': ", F->r[q]->name);
			goto fail;
		}
		S->has[s->body] = 1;
	}
	return 0;
fail:
	rigid_shells_free(S);
	return -1;
}

void
rigid_shells_free(rigid_shells *S)
{
	for (int q = 0; q < S->n; q++) {
		free(S->s[q].bodyP);
		free(S->s[q].P);
	}
	free(S->s);
	free(S->has);
	memset(S, 0, sizeof *S);
}

double
rigid_shells_reach(const rigid_shells *S, int b)
{
	double m = 0;

	for (int q = 0; q < S->n; q++) {
		const rigid_shell *s = &S->s[q];
		for (size_t i = 0; s->body == b && i < s->np; i++) {
			const double *x = s->bodyP + 3 * i;
			double d2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
			m = d2 > m ? d2 : m;
		}
	}
	return sqrt(m);
}

void
rigid_shells_place(rigid_shells *S, int b, const double X[3], const double q[4])
{
	for (int k = 0; k < S->n; k++) {
		rigid_shell *s = &S->s[k];
		for (size_t i = 0; s->body == b && i < s->np; i++) {
			double y[3];
			rigid_rotate(q, s->bodyP + 3 * i, y);
			for (int a = 0; a < 3; a++)
				s->P[3 * i + a] = y[a] + X[a];
		}
	}
}

void
rigid_shells_extent(const rigid_shells *S, int b, const double q[4], double ext[2][3])
{
	for (int a = 0; a < 3; a++)
		ext[0][a] = INFINITY, ext[1][a] = -INFINITY;
	for (int k = 0; k < S->n; k++) {
		const rigid_shell *s = &S->s[k];
		for (size_t i = 0; s->body == b && i < s->np; i++) {
			double y[3];
			rigid_rotate(q, s->bodyP + 3 * i, y);
			for (int a = 0; a < 3; a++) {
				ext[0][a] = y[a] < ext[0][a] ? y[a] : ext[0][a];
				ext[1][a] = y[a] > ext[1][a] ? y[a] : ext[1][a];
			}
		}
	}
}

/* Store x (3 per point) into point channel ch in its own type. */
static int
put3(slc_chan *ch, const double *x, size_t np, slc_err *err)
{
	if (ch->ncomp != 3 || ch->count != np)
		return slc_fail(err, "channel '%s' is not x3 per point", ch->name);
	for (size_t e = 0; e < 3 * np; e++)
		switch (ch->type) {
		case SLC_F32: ((float *)ch->data)[e] = (float)x[e]; break;
		case SLC_F64: ((double *)ch->data)[e] = x[e]; break;
		default:
			return slc_fail(err, "channel '%s' is %s, expected f32 or f64", ch->name,
					slc_type_name(ch->type));
		}
	return 0;
}

int
rigid_shells_store(rigid_shells *S, const double *X, const double *v,
		   const double *omega, double time, slc_err *err)
{
	for (int q = 0; q < S->n; q++) {
		rigid_shell *s = &S->s[q];
		slc_chan *cv;
		if (slc_rec_own(s->r, err) || put3(slc_rec_find(s->r, "P"), s->P, s->np, err))
			return slc_failctx(err, "record '%s': ", s->r->name);
		s->r->time = time;
		if (!(cv = slc_rec_find(s->r, "v")))
			continue;
		double *u = slc_malloc(3 * s->np + 1, sizeof *u, err);
		if (!u)
			return -1;
		const double *x0 = X + 3 * s->body, *v0 = v + 3 * s->body, *w = omega + 3 * s->body;
		for (size_t i = 0; i < s->np; i++) {
			const double *x = s->P + 3 * i;
			double r[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
			/* the rigid velocity v + omega x r */
			u[3 * i] = v0[0] + w[1] * r[2] - w[2] * r[1];
			u[3 * i + 1] = v0[1] + w[2] * r[0] - w[0] * r[2];
			u[3 * i + 2] = v0[2] + w[0] * r[1] - w[1] * r[0];
		}
		int bad = put3(cv, u, s->np, err);
		free(u);
		if (bad)
			return slc_failctx(err, "record '%s': ", s->r->name);
	}
	return 0;
}

int
rigid_shells_cut(const rigid_shells *S, ps_body *body, int ni, int nj, int nk,
		 double dx, const double origin[3], float *wx, float *wy, float *wz,
		 rigid_cut *C, slc_err *err)
{
	shell_face_mesh *sm = NULL;
	float *w[3] = {wx, wy, wz};

	memset(C, 0, sizeof *C);
	if (!S->n)
		return 0;
	if (shell_init(&C->set, RIGID_SHELL_EPS_DX * dx, err) ||
	    !(sm = slc_calloc((size_t)S->n, sizeof *sm, err)) ||
	    !(C->body = slc_calloc((size_t)S->n, sizeof *C->body, err)))
		goto fail;
	for (int q = 0; q < S->n; q++) {
		const rigid_shell *s = &S->s[q];
		float *Pf = slc_malloc(3 * s->np + 1, sizeof *Pf, err);
		if (!Pf)
			goto fail;
		for (size_t i = 0; i < 3 * s->np; i++)
			Pf[i] = (float)s->P[i];
		int bad = shell_add_mesh(&C->set, Pf, s->np, s->tri, s->ntri, err);
		free(Pf);
		if (bad)
			goto fail;
		sm[q] = (shell_face_mesh){s->tri, s->ntri, s->np, NULL};
		C->body[q] = s->body;
	}
	if (shell_build(&C->set, origin, dx, ni, nj, nk, err) ||
	    shell_faces_find(&C->faces, &C->set, sm, (size_t)S->n, ni, nj, nk, dx, origin, err))
		goto fail;
	for (size_t n = 0; n < C->faces.n; n++) {
		const shell_face *c = &C->faces.face[n];
		ps_body *bd = &body[C->body[c->mesh]];
		float *beta = (float *)(c->ax == 0 ? bd->bx : c->ax == 1 ? bd->by : bd->bz);
		w[c->ax][c->f] = 0;
		beta[c->f] = 1;
	}
	free(sm);
	return 0;
fail:
	free(sm);
	rigid_cut_free(C);
	return -1;
}

/* The J column of a face (batty2007 (10)): (e_ax, r x e_ax), r from the
 * centre of mass to the face centre. */
static void
face_phi(const shell_face *c, const ps_body *bd, double dx, const double origin[3],
	 double phi6[6])
{
	double x[3] = {origin[0] + dx * (c->i + 0.5), origin[1] + dx * (c->j + 0.5),
		       origin[2] + dx * (c->k + 0.5)};

	x[c->ax] -= 0.5 * dx;   /* (i, j, k) is the cell above the face */
	double r[3] = {x[0] - bd->com[0], x[1] - bd->com[1], x[2] - bd->com[2]};
	memset(phi6, 0, 6 * sizeof *phi6);
	phi6[c->ax] = 1;
	if (c->ax == 0) { phi6[4] = r[2]; phi6[5] = -r[1]; }
	if (c->ax == 1) { phi6[3] = -r[2]; phi6[5] = r[0]; }
	if (c->ax == 2) { phi6[3] = r[1]; phi6[4] = -r[0]; }
}

/* r = m^-1 for a 6x6 matrix (Gauss-Jordan, partial pivoting).  -1 when
 * singular. */
static int
inv6(const double m[36], double r[36])
{
	double a[6][12];

	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 12; j++)
			a[i][j] = j < 6 ? m[6 * i + j] : (j - 6 == i);
	for (int c = 0; c < 6; c++) {
		int p = c;
		for (int i = c + 1; i < 6; i++)
			if (fabs(a[i][c]) > fabs(a[p][c]))
				p = i;
		if (!(fabs(a[p][c]) > 0))
			return -1;
		for (int j = 0; j < 12 && p != c; j++) {
			double t = a[c][j];
			a[c][j] = a[p][j], a[p][j] = t;
		}
		double d = a[c][c];
		for (int j = 0; j < 12; j++)
			a[c][j] /= d;
		for (int i = 0; i < 6; i++) {
			double f = a[i][c];
			for (int j = 0; i != c && j < 12; j++)
				a[i][j] -= f * a[c][j];
		}
	}
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			r[6 * i + j] = a[i][j + 6];
	return 0;
}

int
rigid_cut_mass(const rigid_cut *C, const psys *ps, ps_body *body, int nbody,
	       const float *const vel[3], const float *phi, double rho, slc_err *err)
{
	double dx = ps->dx, m = rho * dx * dx * dx;

	for (int b = 0; b < nbody; b++) {
		ps_body *bd = &body[b];
		double M[36] = {0}, mom[6], Minv[36];
		int any = 0;
		if (isinf(bd->mass))
			continue;
		for (int a = 0; a < 3; a++) {
			M[7 * a] = bd->mass;
			for (int e = 0; e < 3; e++)
				M[6 * (3 + a) + 3 + e] = bd->inertia[3 * a + e];
		}
		for (int r = 0; r < 6; r++) {
			mom[r] = 0;
			for (int e = 0; e < 6; e++)
				mom[r] += M[6 * r + e] * bd->V[e];
		}
		for (size_t n = 0; n < C->faces.n; n++) {
			const shell_face *c = &C->faces.face[n];
			double phi6[6];
			if (C->body[c->mesh] != b)
				continue;
			face_phi(c, bd, dx, ps->origin, phi6);
			double frac = (!phi || phi[c->lo] < 0) * c->t +
				      (!phi || phi[c->hi] < 0) * (1 - c->t);
			double mf = m * frac, u = vel[c->ax][c->f];
			for (int r = 0; r < 6; r++) {
				mom[r] += mf * phi6[r] * u;
				for (int e = 0; e < 6; e++)
					M[6 * r + e] += mf * phi6[r] * phi6[e];
			}
			any = 1;
		}
		if (!any)
			continue;
		if (inv6(M, Minv))
			return slc_fail(err, "rigid body %d: singular mass with its cut faces' fluid", b);
		memcpy(bd->Minv, Minv, sizeof Minv);
		for (int r = 0; r < 6; r++) {
			bd->V[r] = 0;
			for (int e = 0; e < 6; e++)
				bd->V[r] += Minv[6 * r + e] * mom[e];
		}
	}
	return 0;
}

void
rigid_cut_hold(const rigid_cut *C, const ps_body *body, float *const vel[3], double dx,
	       const double origin[3])
{
	for (size_t n = 0; n < C->faces.n; n++) {
		const shell_face *c = &C->faces.face[n];
		const ps_body *bd = &body[C->body[c->mesh]];
		double phi6[6], u = 0;
		face_phi(c, bd, dx, origin, phi6);
		for (int r = 0; r < 6; r++)
			u += phi6[r] * bd->V[r];
		vel[c->ax][c->f] = (float)u;
	}
}

void
rigid_cut_free(rigid_cut *C)
{
	shell_free(&C->set);
	shell_faces_free(&C->faces);
	free(C->body);
	memset(C, 0, sizeof *C);
}
