/* shell_resp.c: a cloth shell's implicit system over one fluid step and
 * its inverse by conjugate gradient, for the implicit coupling (see
 * shell_resp.h). */
#include "stage/shell_resp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"
#include "cloth/node_order.h"

/* Blocks of the fixed partition the dot products sum over, so that sums
 * do not depend on the number of threads (as masspring's). */
#define RESP_BLOCKS 64
/* Values below which the inner CG's own loops run on one thread: each
 * product is a few microseconds of work a node, less than a parallel
 * region's start and its barrier, which on shared cores waits for a
 * descheduled thread. */
#define RESP_PAR_MIN 262144

void
shell_resp_free(shell_resp *R)
{
	for (int q = 0; q < R->nm && R->mesh; q++) {
		cloth_mesh_free(&R->mesh[q]);
		spring_free(&R->spr[q]);
		cloth_sys_free(&R->sys[q]);
	}
	free(R->base);
	free(R->mesh);
	free(R->spr);
	free(R->sys);
	free(R->m);
	free(R->P);
	free(R->V0);
	free(R->vfix);
	free(R->F);
	free(R->fixed);
	free(R->diag);
	free(R->arp);
	free(R->acol);
	free(R->aval);
	band_chol_free(&R->band);
	free(R->b);
	free(R->r);
	free(R->z);
	free(R->p);
	free(R->q);
	free(R->x);
	memset(R, 0, sizeof *R);
}

/* The transverse stiffness of the stretched two-point springs into D:
 * a spring of tension T = K (l - l0) > 0 and length l resists a
 * sideways move by T/l (I - n n^T), the part of dF/dx that clothstep's
 * fixed-direction springs (§5.5) leave to the next linearization.  Over
 * one of clothstep's substeps that is a small lag; over the coupled
 * solve's whole frame it is what a taut sheet carries a load across its
 * plane with (a flat sheet's springs have no component along the load),
 * so the response has it: A += dt^2 (T/l) alpha alpha^T (I - n n^T).
 * Compressed springs add nothing, which keeps A positive definite. */
static void
add_tension(cloth_sys *S, const spring_set *s, double dt)
{
	const size_t first_alt = s->nedge + s->nbend;

	for (size_t i = 0; i < S->np; i++)
		for (size_t e = s->inc_off[i]; e < s->inc_off[i + 1]; e++) {
			uint32_t q = s->inc[e] >> 2, c = s->inc[e] & 3;
			const double *n = s->n + 3 * q, *al = s->alpha + 4 * q;
			if (q >= first_alt || !(s->fe[q] < 0) || !(s->l[q] > 0))
				continue;
			double g = -s->fe[q] / s->l[q];
			double t[SYS_BLK] = {1 - n[0] * n[0], -n[0] * n[1], -n[0] * n[2],
					     1 - n[1] * n[1], -n[1] * n[2], 1 - n[2] * n[2]};
			for (int c2 = 0; c2 < s->npart[q]; c2++) {
				double f = -dt * g * al[c] * al[c2];
				double *B = S->D + SYS_BLK * S->pos[4 * e + (size_t)c2];
				for (int k = 0; k < SYS_BLK; k++)
					B[k] += f * t[k];
			}
		}
}

/* Copy mesh q's nodes into the global arrays; build and linearize its
 * springs at P (tau = dt: the implicit springs of §5.5) and assemble
 * its D; its elastic forces into F. */
static int
setup_mesh(shell_resp *R, int q, const shell_resp_mesh *me, const spring_params *sp,
	   slc_err *err)
{
	size_t b = R->base[q];

	for (size_t i = 0; i < me->np; i++) {
		R->m[b + i] = me->mass[i];
		R->fixed[b + i] = me->fixed ? me->fixed[i] : 0;
		for (int d = 0; d < 3; d++) {
			R->P[3 * (b + i) + d] = me->P[3 * i + d];
			R->V0[3 * (b + i) + d] = me->V0[3 * i + d];
			R->vfix[3 * (b + i) + d] = me->vfix ? me->vfix[3 * i + d] : 0;
		}
	}
	if (cloth_mesh_build(&R->mesh[q], me->np, me->ntri, me->tri, err) ||
	    spring_build(&R->spr[q], &R->mesh[q], me->rest ? me->rest : me->P, sp, err) ||
	    cloth_sys_build(&R->sys[q], &R->spr[q], err))
		return -1;
	spring_linearize(&R->spr[q], R->P + 3 * b, R->m + b, R->dt);
	spring_force(&R->spr[q], R->F + 3 * b);
	cloth_sys_assemble(&R->sys[q], &R->spr[q], 0, NULL, NULL);
	add_tension(&R->sys[q], &R->spr[q], R->dt);
	return 0;
}

/* A's block sparsity over every mesh (global numbers), and the exact
 * factor's chains: each mesh's free nodes in its own order or reverse
 * Cuthill-McKee's, whichever has the narrower band; the factor is set up
 * when the widest band is within SHELL_RESP_BAND_MAX and
 * SHELL_RESP_BAND_MEM.  0 / -1 with err (memory). */
static int
setup_band(shell_resp *R, slc_err *err)
{
	size_t nnz = 0, bw = 0, n = 0, nl;
	uint32_t *seq = NULL, *rcm = NULL, *pos = NULL, *cstart = NULL;
	int rc = -1;

	for (int q = 0; q < R->nm; q++)
		nnz += R->sys[q].nnz;
	R->arp = slc_calloc(R->nn + 1, sizeof *R->arp, err);
	R->acol = R->arp ? slc_calloc(nnz + 1, sizeof *R->acol, err) : NULL;
	R->aval = R->acol ? slc_calloc(9 * nnz + 1, sizeof *R->aval, err) : NULL;
	seq = R->aval ? slc_calloc(R->nn + 1, sizeof *seq, err) : NULL;
	rcm = seq ? slc_calloc(R->nn + 1, sizeof *rcm, err) : NULL;
	pos = rcm ? slc_calloc(R->nn + 1, sizeof *pos, err) : NULL;
	cstart = pos ? slc_calloc((size_t)R->nm + 1, sizeof *cstart, err) : NULL;
	if (!cstart)
		goto out;
	nnz = 0;
	for (int q = 0; q < R->nm; q++) {
		const cloth_sys *S = &R->sys[q];
		size_t b = R->base[q], nown = 0, nr;
		for (size_t i = 0; i < S->np; i++) {
			R->arp[b + i] = nnz + S->rp[i];
			if (!R->fixed[b + i])
				seq[n + nown++] = (uint32_t)i;
		}
		for (size_t e = 0; e < S->nnz; e++)
			R->acol[nnz + e] = (uint32_t)(b + S->col[e]);
		nnz += S->nnz;
		/* both orders in the mesh's own numbers, then made global */
		if (node_order_rcm(S->np, S->rp, S->col, R->fixed + b, rcm, &nr, err))
			goto out;
		size_t bo = node_order_bandwidth(S->np, S->rp, S->col, seq + n, nown, pos);
		size_t br = node_order_bandwidth(S->np, S->rp, S->col, rcm, nr, pos);
		if (br < bo) {
			memcpy(seq + n, rcm, nr * sizeof *rcm);
			bo = br;
		}
		if (bo > bw)
			bw = bo;
		for (size_t k = 0; k < nown; k++)
			seq[n + k] += (uint32_t)b;
		n += nown;
		cstart[q + 1] = (uint32_t)n;
	}
	R->arp[R->nn] = nnz;
	rc = 0;
	if (bw <= SHELL_RESP_BAND_MAX && !slc_mul(n, 9 * (bw + 1), &nl) &&
	    nl <= SHELL_RESP_BAND_MEM) {
		if (band_chol_init(&R->band, (size_t)R->nm, cstart, seq, (int)bw, err))
			rc = -1;
		else
			R->banded = 1;
	}
out:
	free(seq);
	free(rcm);
	free(pos);
	free(cstart);
	return rc;
}

int
shell_resp_init(shell_resp *R, const shell_resp_mesh *m, int nm, const shell_resp_opts *o,
		slc_err *err)
{
	size_t n3;

	memset(R, 0, sizeof *R);
	R->nm = nm;
	R->dt = o->dt;
	if (!(R->base = slc_calloc((size_t)nm + 1, sizeof *R->base, err)))
		return -1;
	for (int q = 0; q < nm; q++) {
		R->base[q] = R->nn;
		if (R->nn > SIZE_MAX - m[q].np)
			goto overflow;
		R->nn += m[q].np;
	}
	if (slc_mul(R->nn, 9, &n3))
		goto overflow;
	n3 = 3 * R->nn;
	R->mesh = slc_calloc((size_t)nm + 1, sizeof *R->mesh, err);
	R->spr = R->mesh ? slc_calloc((size_t)nm + 1, sizeof *R->spr, err) : NULL;
	R->sys = R->spr ? slc_calloc((size_t)nm + 1, sizeof *R->sys, err) : NULL;
	R->m = R->sys ? slc_calloc(R->nn + 1, sizeof *R->m, err) : NULL;
	R->fixed = R->m ? slc_calloc(R->nn + 1, 1, err) : NULL;
	R->diag = R->fixed ? slc_calloc(3 * n3 + 1, sizeof *R->diag, err) : NULL;
	double **vec[] = {&R->P, &R->V0, &R->vfix, &R->F, &R->b, &R->r, &R->z, &R->p, &R->q, &R->x};
	for (size_t k = 0; R->diag && k < sizeof vec / sizeof *vec; k++)
		if (!(*vec[k] = slc_calloc(n3 + 1, sizeof(double), err)))
			break;
	if (!R->x)
		goto fail;
	for (int q = 0; q < nm; q++)
		if (setup_mesh(R, q, &m[q], &o->spring, err)) {
			slc_failctx(err, "shell %d: ", q);
			goto fail;
		}
	if (R->nn > UINT32_MAX) {
		slc_fail(err, "%zu shell nodes: more than 32-bit numbers hold", R->nn);
		goto fail;
	}
	if (setup_band(R, err))
		goto fail;
	/* gravity joins the elastic forces: F(x) + M g */
	for (size_t i = 0; i < R->nn; i++)
		v3axpy(R->m[i], o->g, R->F + 3 * i);
	return 0;
overflow:
	slc_fail(err, "shell node count overflows");
fail:
	shell_resp_free(R);
	return -1;
}

/* The cut faces' fluid mass on the diagonal blocks, then every block
 * inverted (the block-Jacobi preconditioner). */
static void
make_diag(shell_resp *R)
{
	static const int up[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};

	for (int q = 0; q < R->nm; q++) {
		const cloth_sys *S = &R->sys[q];
		for (size_t i = 0; i < S->np; i++) {
			size_t g = R->base[q] + i;
			double *B = R->diag + 9 * g;
			const double *D = S->D + SYS_BLK * S->dpos[i];
			for (int k = 0; k < 9; k++)
				B[k] = (k % 4 ? 0 : R->m[g]) - R->dt * D[up[k]];
		}
	}
	for (size_t f = 0; f < R->nf; f++)
		for (int e = 0; e < 3; e++) {
			size_t g = R->fnode[3 * f + e];
			R->diag[9 * g + 4 * R->fax[f]] += R->mf[f] * R->fw[3 * f + e] * R->fw[3 * f + e];
		}
	for (size_t g = 0; g < R->nn; g++) {
		double *B = R->diag + 9 * g;
		double a = B[0], b = B[1], c = B[2], d = B[4], e = B[5], f = B[8];
		double A0 = d * f - e * e, A1 = c * e - b * f, A2 = b * e - c * d;
		double det = a * A0 + b * A1 + c * A2;
		if (R->fixed[g] || !(det > 0)) {
			memset(B, 0, 9 * sizeof *B);
			continue;
		}
		double id = 1 / det;
		B[0] = A0 * id;
		B[1] = B[3] = A1 * id;
		B[2] = B[6] = A2 * id;
		B[4] = (a * f - c * c) * id;
		B[5] = B[7] = (b * c - a * e) * id;
		B[8] = (a * d - b * b) * id;
	}
}

/* The block (i, k) of A in aval, or NULL where A has none. */
static double *
ablock(const shell_resp *R, uint32_t i, uint32_t k)
{
	size_t lo = R->arp[i], hi = R->arp[i + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (R->acol[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < R->arp[i + 1] && R->acol[lo] == k ? R->aval + 9 * lo : NULL;
}

/* band_chol_block over aval (ctx: the shell_resp). */
static void
band_block(void *ctx, uint32_t i, uint32_t k, double B[9])
{
	const double *A = ablock(ctx, i, k);

	if (A)
		memcpy(B, A, 9 * sizeof *B);
	else
		memset(B, 0, 9 * sizeof *B);
}

/* A's blocks into aval (M - dt D, then the cut faces' fluid m_f (w w^T)
 * on their axis, which couples only nodes of one triangle: blocks A has)
 * and its exact factor. */
static void
make_band(shell_resp *R)
{
	static const int up[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};

	for (int q = 0; q < R->nm; q++) {
		const cloth_sys *S = &R->sys[q];
		size_t b = R->base[q];
		for (size_t i = 0; i < S->np; i++)
			for (size_t e = S->rp[i]; e < S->rp[i + 1]; e++) {
				double *B = R->aval + 9 * (R->arp[b] + e);
				const double *D = S->D + SYS_BLK * e;
				for (int k = 0; k < 9; k++)
					B[k] = (k % 4 || e != S->dpos[i] ? 0 : R->m[b + i]) -
						R->dt * D[up[k]];
			}
	}
	for (size_t f = 0; f < R->nf; f++) {
		const uint32_t *nd = R->fnode + 3 * f;
		const double *w = R->fw + 3 * f;
		if (!(R->mf[f] > 0))
			continue;
		for (int e = 0; e < 3; e++)
			for (int e2 = 0; e2 < 3; e2++) {
				double *B = ablock(R, nd[e], nd[e2]);
				if (B)
					B[4 * R->fax[f]] += R->mf[f] * w[e] * w[e2];
			}
	}
	band_chol_factor(&R->band, band_block, R);
}

void
shell_resp_faces(shell_resp *R, size_t nf, const uint32_t *node, const double *w,
		 const uint8_t *ax, const double *mf, const double *uf)
{
	R->nf = nf;
	R->fnode = node;
	R->fw = w;
	R->fax = ax;
	R->mf = mf;
	R->uf = uf;
	make_diag(R);
	if (R->banded)
		make_band(R);
}

/* y = A v: each mesh's M v - dt D v (cloth_sys_apply), then the faces'
 * fluid m_f (w . v_ax) w; with proj, 0 on the fixed nodes. */
static void
apply(const shell_resp *R, const double *v, double *y, int proj)
{
	for (int q = 0; q < R->nm; q++) {
		size_t b = R->base[q];
		cloth_sys_apply(&R->sys[q], R->m + b, R->dt, v + 3 * b, y + 3 * b);
	}
	for (size_t f = 0; f < R->nf; f++) {
		const uint32_t *nd = R->fnode + 3 * f;
		const double *w = R->fw + 3 * f;
		int a = R->fax[f];
		double s = 0;
		if (!(R->mf[f] > 0))
			continue;
		for (int e = 0; e < 3; e++)
			s += w[e] * v[3 * (size_t)nd[e] + a];
		for (int e = 0; e < 3; e++)
			y[3 * (size_t)nd[e] + a] += R->mf[f] * w[e] * s;
	}
	for (size_t g = 0; proj && g < R->nn; g++)
		if (R->fixed[g])
			y[3 * g] = y[3 * g + 1] = y[3 * g + 2] = 0;
}

/* a . b over n values, in RESP_BLOCKS fixed blocks added in order. */
static double
dot(const double *a, const double *b, size_t n)
{
	double part[RESP_BLOCKS], s = 0;

#pragma omp parallel for schedule(static) if (n > RESP_PAR_MIN)
	for (int k = 0; k < RESP_BLOCKS; k++) {
		size_t lo = n * (size_t)k / RESP_BLOCKS, hi = n * (size_t)(k + 1) / RESP_BLOCKS;
		double t = 0;
		for (size_t i = lo; i < hi; i++)
			t += a[i] * b[i];
		part[k] = t;
	}
	for (int k = 0; k < RESP_BLOCKS; k++)
		s += part[k];
	return s;
}

/* z = the preconditioner applied to r (0 on fixed nodes): A's factor's
 * two sweeps, or block Jacobi. */
static void
precond(const shell_resp *R, const double *r, double *z)
{
	const ptrdiff_t nn = (ptrdiff_t)R->nn;

	if (R->banded) {
		band_chol_solve(&R->band, r, z);
		for (size_t g = 0; g < R->nn; g++)
			if (R->fixed[g])
				z[3 * g] = z[3 * g + 1] = z[3 * g + 2] = 0;
		return;
	}
#pragma omp parallel for schedule(static) if (3 * nn > RESP_PAR_MIN)
	for (ptrdiff_t g = 0; g < nn; g++) {
		const double *B = R->diag + 9 * g, *ri = r + 3 * g;
		for (int k = 0; k < 3; k++)
			z[3 * g + k] = B[3 * k] * ri[0] + B[3 * k + 1] * ri[1] + B[3 * k + 2] * ri[2];
	}
}

/* x = A^-1 b on the free nodes (b projected by the caller, x zero on
 * the fixed ones): preconditioned CG from x = 0 until |r| <= tol |b|. */
static void
solve(shell_resp *R, const double *b, double *x)
{
	size_t n3 = 3 * R->nn;
	double *r = R->r, *z = R->z, *p = R->p, *q = R->q;
	double bb = dot(b, b, n3), rz, rr = bb;
	int it = 0;

	memset(x, 0, n3 * sizeof *x);
	R->solves++;
	if (!(bb > 0))
		return;
	memcpy(r, b, n3 * sizeof *r);
	precond(R, r, z);
	memcpy(p, z, n3 * sizeof *p);
	rz = dot(r, z, n3);
	for (; it < SHELL_RESP_MAXITER && rr > SHELL_RESP_TOL * SHELL_RESP_TOL * bb; it++) {
		apply(R, p, q, 1);
		double pq = dot(p, q, n3);
		if (!(pq > 0))
			break;
		double al = rz / pq;
		for (size_t k = 0; k < n3; k++) {
			x[k] += al * p[k];
			r[k] -= al * q[k];
		}
		rr = dot(r, r, n3);
		precond(R, r, z);
		double rz1 = dot(r, z, n3), be = rz1 / rz;
		rz = rz1;
		for (size_t k = 0; k < n3; k++)
			p[k] = z[k] + be * p[k];
	}
	R->iters += it;
	double res = sqrt(rr / bb);
	if (res > R->worst)
		R->worst = res;
}

void
shell_resp_unloaded(shell_resp *R, double *V)
{
	size_t n3 = 3 * R->nn;
	double *b = R->b;

	/* V = vfix on the fixed nodes, 0 elsewhere; b = the right-hand side
	 * less A V, projected; then V += A^-1 b */
	for (size_t g = 0; g < R->nn; g++)
		for (int d = 0; d < 3; d++)
			V[3 * g + d] = R->fixed[g] ? R->vfix[3 * g + d] : 0;
	apply(R, V, R->q, 0);
	for (size_t k = 0; k < n3; k++)
		b[k] = R->m[k / 3] * R->V0[k] + R->dt * R->F[k] - R->q[k];
	for (size_t f = 0; f < R->nf; f++)
		for (int e = 0; e < 3; e++)
			b[3 * (size_t)R->fnode[3 * f + e] + R->fax[f]] +=
				R->mf[f] * R->uf[f] * R->fw[3 * f + e];
	for (size_t g = 0; g < R->nn; g++)
		if (R->fixed[g])
			b[3 * g] = b[3 * g + 1] = b[3 * g + 2] = 0;
	solve(R, b, R->x);
	for (size_t k = 0; k < n3; k++)
		V[k] += R->x[k];
}

void
shell_resp_apply(void *ctx, double *t)
{
	shell_resp *R = ctx;
	size_t n3 = 3 * R->nn;

	memcpy(R->b, t, n3 * sizeof *t);
	for (size_t g = 0; g < R->nn; g++)
		if (R->fixed[g])
			R->b[3 * g] = R->b[3 * g + 1] = R->b[3 * g + 2] = 0;
	solve(R, R->b, t);
}
