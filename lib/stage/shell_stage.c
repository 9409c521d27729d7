/* shell_stage.c: shellcouple's frame: thin shells in the pressure solve,
 * the force on them (guendelman2005 §4.3, §5; batty2007 §3); see
 * shell_stage.h. */
#include "stage/shell_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "core/meta.h"
#include "fluid/pcg.h"

const char *const shell_stage_names[] = {"force", "project", NULL};
const char *const shell_coupling_names[] = {"split", "implicit", NULL};
const char *const shell_transfer_names[] = {"face", "paper", NULL};

/* Optional point channel `name` of mesh m, ncomp doubles a point. */
static int
point_chan(shell_one *m, const char *name, uint32_t ncomp, double **out, slc_err *err)
{
	uint64_t n;

	*out = NULL;
	if (!slc_rec_find(m->r, name))
		return 0;
	if (!(*out = slc_rec_get_f64(m->r, name, ncomp, &n, err)))
		return slc_failctx(err, "channel %s: ", name);
	if (n != m->np)
		return slc_fail(err, "channel %s: %llu values for %zu points", name,
				(unsigned long long)n, m->np);
	for (uint64_t i = 0; i < n * ncomp; i++)
		if (!isfinite((*out)[i]) && strcmp(name, "mass"))
			return slc_fail(err, "channel %s: value %llu not finite", name,
					(unsigned long long)i);
	return 0;
}

/* Each node's areal density: sigma_i = m_i / (a third of the area of
 * its triangles), which undoes mkprim's lumping; o->sigma when given.
 * A pinned node, or one of infinite mass, is infinitely dense. */
static int
areal_density(shell_stage *S, shell_one *m, slc_err *err)
{
	double *area = slc_calloc(m->np + 1, sizeof *area, err);

	if (!area || !(m->sigma = slc_calloc(m->np + 1, sizeof *m->sigma, err))) {
		free(area);
		return -1;
	}
	for (size_t t = 0; t < m->ntri; t++) {
		const uint32_t *q = m->tri + 3 * t;
		double e1[3], e2[3], c[3];
		for (int d = 0; d < 3; d++) {
			e1[d] = m->P[3 * q[1] + d] - m->P[3 * q[0] + d];
			e2[d] = m->P[3 * q[2] + d] - m->P[3 * q[0] + d];
		}
		c[0] = e1[1] * e2[2] - e1[2] * e2[1];
		c[1] = e1[2] * e2[0] - e1[0] * e2[2];
		c[2] = e1[0] * e2[1] - e1[1] * e2[0];
		double a = 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
		for (int e = 0; e < 3; e++)
			area[q[e]] += a / 3;
	}
	for (size_t i = 0; i < m->np; i++) {
		if ((m->pin && m->pin[i]) || (m->mass && isinf(m->mass[i])))
			m->sigma[i] = INFINITY;
		else if (S->o.sigma > 0)
			m->sigma[i] = S->o.sigma;
		else if (m->mass && m->mass[i] > 0 && area[i] > 0)
			m->sigma[i] = m->mass[i] / area[i];
		else {
			free(area);
			return slc_fail(err, "point %zu: no mass and area to give an areal "
					"density (--sigma)", i);
		}
	}
	free(area);
	return 0;
}

/* The node velocity of the cut faces: project: v_eff = (P - P_prev)/dt
 * (guendelman2005 eq 3; 0 for a still mesh with no P_prev); force, split:
 * v (eq 5's u_old on the cut faces); force, implicit: the velocity the
 * fluid was held at over the last frame, (P - P_prev)/dt, else v (the
 * start of the response's step, shell_resp.h). */
static int
node_velocity(shell_stage *S, shell_one *m, slc_err *err)
{
	double dt = S->P.dt;
	int mean = S->o.stage == SHELL_STAGE_PROJECT ||
		   (S->o.coupling == SHELL_IMPLICIT && m->Pprev);

	if (!(m->vel = slc_calloc(3 * m->np + 1, sizeof *m->vel, err)))
		return -1;
	if (mean) {
		if (m->Pprev && !(dt > 0))
			return slc_fail(err, "P_prev given but no time step (scene dt or --dt)");
		for (size_t i = 0; m->Pprev && i < 3 * m->np; i++)
			m->vel[i] = (m->P[i] - m->Pprev[i]) / dt;
		return 0;
	}
	for (size_t i = 0; m->v && i < 3 * m->np; i++)
		m->vel[i] = m->v[i];
	return 0;
}

/* The shell named name: its channels and densities. */
static int
load_one(shell_stage *S, shell_one *m, const char *name, slc_err *err)
{
	uint64_t np;

	if (!(m->r = slc_frame_find(S->F, name, SLC_MESH)))
		return slc_fail(err, "no mesh record '%s' (--shell)", name);
	if (!(m->P = slc_rec_get_f64(m->r, "P", 3, &np, err)))
		return -1;
	m->np = np;
	if (!(m->tri = slc_rec_get(m->r, "tri", SLC_U32, 3, 0, err)))
		return -1;
	m->ntri = slc_rec_find(m->r, "tri")->count;
	for (size_t i = 0; i < 3 * m->np; i++)
		if (!isfinite(m->P[i]))
			return slc_fail(err, "channel P: value %zu not finite", i);
	for (size_t i = 0; i < 3 * m->ntri; i++)
		if (m->tri[i] >= m->np)
			return slc_fail(err, "triangle %zu: index %u out of range", i / 3,
					m->tri[i]);
	if (point_chan(m, "P_prev", 3, &m->Pprev, err) || point_chan(m, "v", 3, &m->v, err) ||
	    point_chan(m, "mass", 1, &m->mass, err) || point_chan(m, "rest", 3, &m->rest, err) ||
	    point_chan(m, "goal", 3, &m->goal, err))
		return -1;
	if (slc_rec_find(m->r, "pinned") &&
	    !(m->pin = slc_rec_get(m->r, "pinned", SLC_U8, 1, np, err)))
		return -1;
	if (S->o.stage == SHELL_STAGE_FORCE && areal_density(S, m, err))
		return -1;
	return node_velocity(S, m, err);
}

/* The shells' triangles, where the faces are cut (force: P; project:
 * P_prev when given), binned over the grid's cells, and the cut faces. */
static int
find_faces(shell_stage *S, slc_err *err)
{
	const field *g = &S->P.m.u;
	double dx = g->dx, origin[3];
	shell_face_mesh *sm = slc_calloc((size_t)S->nm + 1, sizeof *sm, err);
	int rc = -1;

	if (!sm)
		return -1;
	/* the cell lattice: the minimum corner of the cells */
	memcpy(origin, g->origin, sizeof origin);
	if (shell_init(&S->set, S->o.eps * dx, err))
		goto out;
	for (int q = 0; q < S->nm; q++) {
		shell_one *m = &S->m[q];
		const double *X = S->o.stage == SHELL_STAGE_PROJECT && m->Pprev ? m->Pprev : m->P;
		float *Pf = slc_malloc(3 * m->np + 1, sizeof *Pf, err);
		if (!Pf)
			goto out;
		for (size_t i = 0; i < 3 * m->np; i++)
			Pf[i] = (float)X[i];
		int bad = shell_add_mesh(&S->set, Pf, m->np, m->tri, m->ntri, err);
		free(Pf);
		if (bad)
			goto out;
		sm[q] = (shell_face_mesh){m->tri, m->ntri, m->np, m->vel};
	}
	if (shell_build(&S->set, origin, dx, S->P.ni, S->P.nj, S->P.nk, err) ||
	    shell_faces_find(&S->faces, &S->set, sm, (size_t)S->nm, S->P.ni, S->P.nj,
			     S->P.nk, dx, origin, err))
		goto out;
	rc = 0;
out:
	free(sm);
	return rc;
}

/* The implicit coupling's gravity: the option, else the scene's, else
 * clothstep's default (cloth_params_default), as clothstep takes it. */
static int
gravity(shell_stage *S, slc_err *err)
{
	if (!isnan(S->o.g[0]))
		return 0;
	if (slc_scene_gravity(slc_frame_find(S->F, "scene", SLC_META), S->o.g, err) < 0)
		return slc_failctx(err, "record 'scene': ");
	if (isnan(S->o.g[0])) {
		cloth_params cp;
		cloth_params_default(&cp);
		memcpy(S->o.g, cp.g, sizeof cp.g);
	}
	return 0;
}

int
shell_stage_load(shell_stage *S, slc_frame *F, const shell_opts *o, slc_comm *comm,
		 slc_err *err)
{
	memset(S, 0, sizeof *S);
	S->o = *o;
	S->F = F;
	if (slc_comm_serial(comm, err) || project_stage_load(&S->P, F, &o->po, comm, err))
		return -1;
	if (!(S->m = slc_calloc((size_t)o->nnames + 1, sizeof *S->m, err)))
		goto fail;
	for (int q = 0; q < o->nnames; q++) {
		S->nm = q + 1;
		if (load_one(S, &S->m[q], o->names[q], err)) {
			slc_failctx(err, "record '%s': ", o->names[q]);
			goto fail;
		}
	}
	if (find_faces(S, err) || gravity(S, err))
		goto fail;
	return 0;
fail:
	shell_stage_free(S);
	return -1;
}

/* The held velocity of each cut face (hv[ax][f]: the shell's velocity
 * along the face's axis, or 0 with zero set) and its weight in the
 * operator: project and implicit, 0 (closed); split, the fluid weight
 * times rho/rho_f with rho_f = sigma/dx the face's density from the
 * shell's mass sigma dx^2 (guendelman2005 §5.1), the crossing's inverse
 * density interpolated by barycentric weight (pinned nodes count 0). */
static int
close_faces(shell_stage *S, int zero, slc_err *err)
{
	float *w[3] = {S->P.wx, S->P.wy, S->P.wz};
	double rho = S->o.po.density, dx = S->P.m.u.dx;

	for (int ax = 0; ax < 3; ax++)
		if (!(S->hv[ax] = slc_calloc(S->faces.nf[ax], sizeof *S->hv[ax], err)))
			return -1;
	for (size_t n = 0; n < S->faces.n; n++) {
		const shell_face *c = &S->faces.face[n];
		S->hv[c->ax][c->f] = zero ? 0.0f : (float)c->v[c->ax];
		double scale = 0;
		if (S->o.stage == SHELL_STAGE_FORCE && S->o.coupling == SHELL_SPLIT) {
			const shell_one *m = &S->m[c->mesh];
			for (int e = 0; e < 3; e++)
				scale += c->bary[e] * rho * dx / m->sigma[c->node[e]];
		}
		w[c->ax][c->f] = (float)(w[c->ax][c->f] * scale);
	}
	for (int ax = 0; ax < 3; ax++) {
		S->P.held[ax] = S->faces.cut[ax];
		S->P.hv[ax] = S->hv[ax];
	}
	return 0;
}

static void face_fluid(const shell_stage *S, size_t n, double *mf, double *uf);

/* The implicit coupling's nodes (ps_shell): every mesh's nodes numbered
 * one after the other, 1/mass (0 pinned: only marks the free nodes, the
 * response is R), V the mean velocity over the frame with no pressure. */
static int
shell_nodes(shell_stage *S, slc_err *err)
{
	size_t nn = 0, nf = S->faces.n, *base = slc_calloc((size_t)S->nm + 1, sizeof *base, err);
	shell_resp_mesh *rm = base ? slc_calloc((size_t)S->nm + 1, sizeof *rm, err) : NULL;
	int rc = -1;

	if (!rm)
		goto out;
	for (int q = 0; q < S->nm; q++)
		base[q] = nn, nn += S->m[q].np;
	if (nn > UINT32_MAX) {
		slc_fail(err, "%zu shell nodes: too many", nn);
		goto out;
	}
	S->lo = slc_calloc(nf + 1, sizeof *S->lo, err);
	S->hi = S->lo ? slc_calloc(nf + 1, sizeof *S->hi, err) : NULL;
	S->ax = S->hi ? slc_calloc(nf + 1, 1, err) : NULL;
	S->node = S->ax ? slc_calloc(3 * nf + 1, sizeof *S->node, err) : NULL;
	S->w = S->node ? slc_calloc(3 * nf + 1, sizeof *S->w, err) : NULL;
	S->mf = S->w ? slc_calloc(nf + 1, sizeof *S->mf, err) : NULL;
	S->uf = S->mf ? slc_calloc(nf + 1, sizeof *S->uf, err) : NULL;
	S->minv = S->uf ? slc_calloc(nn + 1, sizeof *S->minv, err) : NULL;
	S->V = S->minv ? slc_calloc(3 * nn + 1, sizeof *S->V, err) : NULL;
	if (!S->V)
		goto out;
	const project_stage *P = &S->P;
	for (size_t n = 0; n < nf; n++) {
		const shell_face *c = &S->faces.face[n];
		S->lo[n] = c->lo, S->hi[n] = c->hi, S->ax[n] = (uint8_t)c->ax;
		for (int e = 0; e < 3; e++) {
			S->node[3 * n + e] = (uint32_t)(base[c->mesh] + c->node[e]);
			S->w[3 * n + e] = c->bary[e];
		}
		face_fluid(S, n, &S->mf[n], &S->uf[n]);
	}
	for (int q = 0; q < S->nm; q++) {
		shell_one *m = &S->m[q];
		uint8_t *fix = slc_calloc(m->np + 1, 1, err);
		double *vfix = fix ? slc_calloc(3 * m->np + 1, sizeof *vfix, err) : NULL;
		if (!vfix) {
			free(fix);
			goto out;
		}
		rm[q] = (shell_resp_mesh){m->np, m->ntri, m->tri, m->P, m->rest, m->vel,
					  m->mass, fix, vfix};
		for (size_t i = 0; i < m->np; i++) {
			/* pinned: infinite mass (batty2007 §3's scripted body),
			 * moving to its goal over the frame as clothstep moves it */
			fix[i] = !isfinite(m->sigma[i]);
			double mass = m->mass ? m->mass[i] : NAN;
			if (!fix[i] && !(mass > 0 && isfinite(mass))) {
				slc_fail(err, "record '%s': point %zu: the implicit coupling needs "
					 "a positive mass (channel mass)", m->r->name, i);
				goto out;
			}
			S->minv[base[q] + i] = fix[i] ? 0 : 1 / mass;
			for (int d = 0; fix[i] && m->goal && d < 3; d++)
				vfix[3 * i + d] = (m->goal[3 * i + d] - m->P[3 * i + d]) / P->dt;
		}
		/* the springs' damping reads every node's mass (clothstep's
		 * needs them all positive): a pinned node of no finite mass
		 * takes the mean of the others' (1 kg when there are none) */
		double sum = 0, cnt = 0, *mm = slc_malloc(m->np + 1, sizeof *mm, err);
		if (!mm)
			goto out;
		for (size_t i = 0; m->mass && i < m->np; i++)
			if (m->mass[i] > 0 && isfinite(m->mass[i]))
				sum += m->mass[i], cnt++;
		for (size_t i = 0; i < m->np; i++)
			mm[i] = m->mass && m->mass[i] > 0 && isfinite(m->mass[i]) ? m->mass[i] :
				cnt > 0 ? sum / cnt : 1;
		rm[q].mass = mm;
	}
	shell_resp_opts ro = {S->o.spring, {S->o.g[0], S->o.g[1], S->o.g[2]}, P->dt};
	if (shell_resp_init(&S->R, rm, S->nm, &ro, err))
		goto out;
	shell_resp_faces(&S->R, nf, S->node, S->w, S->ax, S->mf, S->uf);
	shell_resp_unloaded(&S->R, S->V);
	S->sh = (ps_shell){nf, S->lo, S->hi, S->ax, S->node, S->w, nn, S->minv, S->V,
			   shell_resp_apply, &S->R};
	S->P.shell = &S->sh;
	rc = 0;
out:
	for (int q = 0; rm && q < S->nm; q++) {
		free((void *)rm[q].fixed);
		free((void *)rm[q].vfix);
		free((void *)rm[q].mass);
	}
	free(rm);
	free(base);
	return rc;
}

/* After the implicit solve: the nodes' mean velocity V + kappa R J x
 * (as psys_update would make it), and each cut face's own fluid's
 * change of momentum over the frame, extra_f = m_f (u*_f - w . V_ax) /
 * dt along its axis: the force the shell gets from it (shell_resp.h). */
static int
face_fluid_force(shell_stage *S, slc_err *err)
{
	const project_stage *P = &S->P;
	const psys *ps = &P->ps;
	size_t nn = S->sh.nnode, nf = S->faces.n;
	double kappa = P->o.density * P->m.u.dx * P->m.u.dx * P->m.u.dx;
	double *t = slc_calloc(3 * nn + 1, sizeof *t, err);

	if (!t || !(S->extra = slc_calloc(nf + 1, sizeof *S->extra, err))) {
		free(t);
		return -1;
	}
	for (size_t q = 0; q < nf; q++) {
		double xl = ps->type[S->lo[q]] == PS_FLUID ? P->x[S->lo[q]] : 0;
		double xh = ps->type[S->hi[q]] == PS_FLUID ? P->x[S->hi[q]] : 0;
		for (int e = 0; e < 3; e++)
			t[3 * (size_t)S->node[3 * q + e] + S->ax[q]] += S->w[3 * q + e] * (xl - xh);
	}
	shell_resp_apply(&S->R, t);
	for (size_t k = 0; k < 3 * nn; k++)
		t[k] = S->V[k] + kappa * t[k];

	for (size_t q = 0; q < nf; q++) {
		double uf = 0;
		for (int e = 0; e < 3; e++)
			uf += S->w[3 * q + e] * t[3 * (size_t)S->node[3 * q + e] + S->ax[q]];
		S->extra[q] = S->mf[q] * (S->uf[q] - uf) / P->dt;
	}
	free(t);
	return 0;
}

/* The force stage's solve: the system with the shells' faces as the
 * coupling says, its right-hand side and conjugate gradient; the fluid's
 * velocity is left as it was (guendelman2005 §5.1: "we do not actually
 * apply this velocity change"). */
static int
force_solve(shell_stage *S, slc_err *err)
{
	project_stage *P = &S->P;
	psys_in in = {.ni = P->ni, .nj = P->nj, .nk = P->nk, .dx = P->m.u.dx,
		      .origin = P->m.u.origin, .rho = P->o.density,
		      .wx = P->wx, .wy = P->wy, .wz = P->wz, .phi = P->phi,
		      .body = P->body, .nbody = P->nbody, .bc = P->o.bc,
		      .held = {P->held[0], P->held[1], P->held[2]},
		      .hv = {P->hv[0], P->hv[1], P->hv[2]}, .shell = P->shell};

	if (psys_init(&P->ps, &in, err))
		return -1;
	psys_set_voxelized(&P->ps, P->o.binary);
	P->b = slc_calloc(P->ps.n, sizeof *P->b, err);
	P->x = P->b ? slc_calloc(P->ps.n, sizeof *P->x, err) : NULL;
	if (!P->x)
		return -1;
	if (psys_rhs(&P->ps, P->m.u.a, P->m.v.a, P->m.w.a, P->solid_vel, P->b, &P->removed, err))
		return -1;
	pcg_opts po = {P->o.precond, P->o.tol, P->o.maxiter};
	return pcg_solve(&P->ps, P->b, P->x, &po, &P->st, err);
}

/* The force of the solved pressure on the shells: per cut face, handed
 * to the nodes (shell_faces_force); the totals and the torque about the
 * mean of the nodes. */
static int
shell_forces(shell_stage *S, slc_err *err)
{
	project_stage *P = &S->P;
	double s = P->o.density * P->m.u.dx / P->dt, centre[3] = {0, 0, 0};
	size_t nn = 0;
	double **fq = slc_calloc((size_t)S->nm + 1, sizeof *fq, err);

	if (!fq || !(S->p = slc_calloc(P->ps.n, sizeof *S->p, err))) {
		free(fq);
		return -1;
	}
	for (size_t c = 0; c < P->ps.n; c++)
		S->p[c] = P->ps.type[c] == PS_FLUID ? P->x[c] * s : 0;
	for (int q = 0; q < S->nm; q++) {
		if (!(S->m[q].force = slc_calloc(3 * S->m[q].np + 1, sizeof *S->m[q].force, err))) {
			free(fq);
			return -1;
		}
		fq[q] = S->m[q].force;
	}
	if (S->o.stage == SHELL_STAGE_FORCE && S->o.coupling == SHELL_SPLIT &&
	    S->o.transfer == SHELL_TRANSFER_PAPER) {
		/* the faces' total alone, then the paper's route to the nodes */
		double **none = slc_calloc((size_t)S->nm + 1, sizeof *none, err);
		shell_face_mesh *sm = none ? slc_calloc((size_t)S->nm + 1, sizeof *sm, err) : NULL;
		const double **X = sm ? slc_calloc((size_t)S->nm + 1, sizeof *X, err) : NULL;
		int bad = !X;
		if (!bad) {
			shell_faces_force(&S->faces, S->p, S->extra, P->m.u.dx, none,
					  S->st.face_force);
			for (int q = 0; q < S->nm; q++) {
				sm[q] = (shell_face_mesh){S->m[q].tri, S->m[q].ntri, S->m[q].np, NULL};
				X[q] = S->m[q].P;
			}
			bad = shell_faces_force_paper(&S->faces, S->p, P->ni, P->nj, P->nk,
						      P->m.u.dx, P->m.u.origin, sm, X,
						      (size_t)S->nm, fq, err);
		}
		free(none);
		free(sm);
		free(X);
		if (bad) {
			free(fq);
			return -1;
		}
	} else
		shell_faces_force(&S->faces, S->p, S->extra, P->m.u.dx, fq, S->st.face_force);
	free(fq);
	for (int q = 0; q < S->nm; q++)
		for (size_t i = 0; i < S->m[q].np; i++, nn++)
			for (int d = 0; d < 3; d++)
				centre[d] += S->m[q].P[3 * i + d];
	for (int d = 0; d < 3 && nn; d++)
		centre[d] /= (double)nn;
	for (int q = 0; q < S->nm; q++)
		for (size_t i = 0; i < S->m[q].np; i++) {
			const double *f = S->m[q].force + 3 * i, *x = S->m[q].P + 3 * i;
			double r[3] = {x[0] - centre[0], x[1] - centre[1], x[2] - centre[2]};
			for (int d = 0; d < 3; d++)
				S->st.force[d] += f[d];
			S->st.torque[0] += r[1] * f[2] - r[2] * f[1];
			S->st.torque[1] += r[2] * f[0] - r[0] * f[2];
			S->st.torque[2] += r[0] * f[1] - r[1] * f[0];
		}
	return 0;
}

/* The fluid in cut face n's own control volume, from one cell centre to
 * the other, cut by the shell at t: on each side where the cell is
 * liquid (phi < 0, or no phi), rho dx^3 times that side's part, moving
 * with the liquid of its cell: the velocity of the cell's face across
 * from the cut one (the cut face's own u* is one side's only: a face a
 * falling bag just swept over holds the air's velocity below it).  The
 * cut face's u* where that face is the grid box's or cut too.  *mf kg,
 * *uf m/s along the axis (u* when *mf = 0). */
static void
face_fluid(const shell_stage *S, size_t n, double *mf, double *uf)
{
	const project_stage *P = &S->P;
	const shell_face *c = &S->faces.face[n];
	const float *u = c->ax == 0 ? P->m.u.a : c->ax == 1 ? P->m.v.a : P->m.w.a;
	const uint8_t *cut = S->faces.cut[c->ax];
	int at = c->ax == 0 ? c->i : c->ax == 1 ? c->j : c->k;
	int dim = c->ax == 0 ? P->ni : c->ax == 1 ? P->nj : P->nk;
	size_t st = c->ax == 0 ? 1 : c->ax == 1 ? (size_t)P->ni : (size_t)P->ni * (size_t)P->nj;
	double dx = P->m.u.dx, m = P->o.density * dx * dx * dx;
	double part[2] = {c->t, 1 - c->t}, mom = 0;
	size_t cell[2] = {c->lo, c->hi};
	int across[2] = {at - 1 > 0, at + 1 < dim};

	*mf = 0;
	for (int s = 0; s < 2; s++) {
		if (P->phi && !(P->phi[cell[s]] < 0))
			continue;
		size_t g = s ? c->f + st : c->f - st;
		double v = across[s] && !cut[g] ? u[g] : u[c->f];
		*mf += m * part[s];
		mom += m * part[s] * v;
	}
	*uf = *mf > 0 ? mom / *mf : u[c->f];
}

/* eq 4 holds each cut face at the shell's velocity: the fluid in the
 * face's own control volume (face_fluid) changes its velocity from u_f
 * to the held one, and that momentum goes to the shell as well as the
 * pressure's: extra_f = m_f (u_f - hv_f) / dt along the face's axis.
 * With it the force on a held container of still water is the weight of
 * all the water the grid holds, not of the water above the first cell
 * centres. */
static int
face_impulse(shell_stage *S, slc_err *err)
{
	if (!(S->extra = slc_calloc(S->faces.n + 1, sizeof *S->extra, err)))
		return -1;
	for (size_t n = 0; n < S->faces.n; n++) {
		const shell_face *c = &S->faces.face[n];
		double mf, uf;
		face_fluid(S, n, &mf, &uf);
		S->extra[n] = mf * (uf - S->hv[c->ax][c->f]) / S->P.dt;
	}
	return 0;
}

int
shell_stage_run(shell_stage *S, shell_stats *st, slc_comm *comm, slc_err *err)
{
	project_stats pst;
	int force = S->o.stage == SHELL_STAGE_FORCE;
	int implicit = force && S->o.coupling == SHELL_IMPLICIT;

	if (slc_comm_serial(comm, err))
		return -1;
	if (!(S->P.dt > 0))
		return slc_fail(err, "no time step (scene dt or --dt): the force on a "
				"shell needs one");
	if (close_faces(S, implicit, err) || (implicit && shell_nodes(S, err)))
		return -1;
	if (force) {
		if (force_solve(S, err) || (implicit && face_fluid_force(S, err)))
			return -1;
		S->st.pcg = S->P.st;
		S->st.inner_solves = S->R.solves;
		S->st.inner_iters = S->R.iters;
		S->st.inner_residual = S->R.worst;
	} else {
		if (face_impulse(S, err) || project_stage_solve(&S->P, &pst, comm, err))
			return -1;
		S->st.pcg = pst.pcg;
	}
	if (shell_forces(S, err))
		return -1;
	S->st.cut = S->faces.n;
	S->st.compat = S->P.removed * S->P.m.u.dx * S->P.m.u.dx;
	S->done = 1;
	*st = S->st;
	return 0;
}

/* The metadata record 'shellcouple'. */
static int
store_meta(shell_stage *S, slc_err *err)
{
	slc_rec rec, *old;
	char val[128];
	const shell_stats *t = &S->st;

	while ((old = slc_frame_find(S->F, "shellcouple", SLC_META)))
		slc_frame_remove(S->F, old);
	if (slc_meta_init(&rec, "shellcouple", err))
		goto fail;
#define SETV(k, ...) do { snprintf(val, sizeof val, __VA_ARGS__); \
		if (slc_meta_set(&rec, k, val, err)) goto fail; } while (0)
	SETV("stage", "%s", shell_stage_names[S->o.stage]);
	if (S->o.stage == SHELL_STAGE_FORCE)
		SETV("coupling", "%s", shell_coupling_names[S->o.coupling]);
	if (S->o.stage == SHELL_STAGE_FORCE && S->o.coupling == SHELL_SPLIT)
		SETV("transfer", "%s", shell_transfer_names[S->o.transfer]);
	SETV("iterations", "%d", t->pcg.iters);
	SETV("residual", "%.6g", t->pcg.residual);
	SETV("converged", "%d", t->pcg.converged);
	SETV("cut_faces", "%zu", t->cut);
	SETV("force", "%.9g,%.9g,%.9g", t->force[0], t->force[1], t->force[2]);
	SETV("face_force", "%.9g,%.9g,%.9g", t->face_force[0], t->face_force[1],
	     t->face_force[2]);
	SETV("torque", "%.9g,%.9g,%.9g", t->torque[0], t->torque[1], t->torque[2]);
	SETV("compat_flux", "%.6g", t->compat);
	if (S->o.stage == SHELL_STAGE_FORCE && S->o.coupling == SHELL_IMPLICIT) {
		SETV("inner_solves", "%ld", t->inner_solves);
		SETV("inner_iterations", "%ld", t->inner_iters);
		SETV("inner_residual", "%.3g", t->inner_residual);
	}
	SETV("eps", "%.6g", S->set.eps);
#undef SETV
	if (!slc_frame_put(S->F, &rec, err))
		goto fail;
	return 0;
fail:
	slc_rec_free(&rec);
	return -1;
}

/* force: f_fluid and P_prev := P into each shell (f64 x3 points). */
static int
store_shells(shell_stage *S, slc_err *err)
{
	for (int q = 0; q < S->nm; q++) {
		shell_one *m = &S->m[q];
		double *f, *pp;
		if (slc_rec_remove(m->r, "f_fluid") || slc_rec_remove(m->r, "P_prev"))
			return slc_fail(err, "record '%s': out of memory", m->r->name);
		if (!(f = slc_rec_add(m->r, "f_fluid", SLC_F64, 3, SLC_POINT, m->np, err)) ||
		    !(pp = slc_rec_add(m->r, "P_prev", SLC_F64, 3, SLC_POINT, m->np, err)))
			return slc_failctx(err, "record '%s': ", m->r->name);
		memcpy(f, m->force, 3 * m->np * sizeof *f);
		memcpy(pp, m->P, 3 * m->np * sizeof *pp);
	}
	return 0;
}

int
shell_stage_store(shell_stage *S, slc_comm *comm, slc_err *err)
{
	if (slc_comm_serial(comm, err))
		return -1;
	if (!S->done)
		return slc_fail(err, "nothing solved to store");
	if (S->o.stage == SHELL_STAGE_PROJECT) {
		if (project_stage_store(&S->P, comm, err))
			return -1;
	} else if (store_shells(S, err))
		return -1;
	return store_meta(S, err);
}

int
shell_stage_changed(const shell_stage *S, const slc_rec *r)
{
	if (r->kind == SLC_META && !strcmp(r->name, "shellcouple"))
		return 1;
	if (S->o.stage == SHELL_STAGE_PROJECT)
		return project_stage_changed(&S->P, r);
	for (int q = 0; q < S->nm; q++)
		if (r == S->m[q].r)
			return 1;
	return 0;
}

void
shell_stage_free(shell_stage *S)
{
	project_stage_free(&S->P);
	for (int q = 0; q < S->nm && S->m; q++) {
		shell_one *m = &S->m[q];
		free(m->P);
		free(m->Pprev);
		free(m->v);
		free(m->mass);
		free(m->rest);
		free(m->goal);
		free(m->vel);
		free(m->sigma);
		free(m->force);
	}
	free(S->m);
	shell_free(&S->set);
	shell_faces_free(&S->faces);
	for (int ax = 0; ax < 3; ax++)
		free(S->hv[ax]);
	free(S->lo);
	free(S->hi);
	free(S->ax);
	free(S->node);
	free(S->w);
	free(S->minv);
	free(S->V);
	free(S->mf);
	free(S->uf);
	shell_resp_free(&S->R);
	free(S->p);
	free(S->extra);
	memset(S, 0, sizeof *S);
}
