/* hair_build.c: virtual particles and the springs of fig. 7.2 on hair
 * strands (selle2008 thesis §7.3; see hair_build.h). */
#include "hair/hair_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_vec.h"

/* SPEC (notes §1 item 2): §7.3.1 subdivides a segment "colinear" with a
 * neighbour; a turn below this many degrees counts as colinear. */
#define HAIR_COLINEAR_DEG 10.0
/* SPEC: the virtuals of a run turn by this much about the axis, "for good
 * direction sampling" (§7.3.1), which gives the tetrahedra between them
 * volume. */
#define HAIR_VIRT_TURN_DEG 90.0
/* A strand whose rest axis points lie this close to a line (relative to
 * its length) has no orientation about that line for Kabsch to fit. */
#define HAIR_STRAIGHT_TOL 1e-6
/* Jacobi sweeps for the 4x4 eigenproblem of Horn's method; it converges
 * quadratically, a handful suffice. */
#define JACOBI_SWEEPS 30

/* Unit direction of segment (a, b) of positions x; 0 if it has no
 * length. */
static int
seg_dir(const double *x, size_t a, size_t b, double u[3])
{
	v3sub(x + 3 * b, x + 3 * a, u);
	double l = v3norm(u);
	if (!(l > 0))
		return 0;
	v3scale(1 / l, u);
	return 1;
}

int
hair_choose(size_t nstrands, const uint32_t *offset, size_t naxis,
	    const double *rest, int mode, uint32_t **virt_seg, size_t *nvirt,
	    slc_err *err)
{
	const double cmin = cos(HAIR_COLINEAR_DEG * M_PI / 180);
	size_t n = 0;

	(void)naxis;
	*virt_seg = slc_calloc(naxis + 1, sizeof **virt_seg, err);
	if (!*virt_seg)
		return -1;
	for (size_t s = 0; s < nstrands; s++) {
		uint32_t a = offset[s], b = offset[s + 1];
		for (uint32_t i = a; i + 1 < b; i++) {
			int sub = mode == HAIR_SUB_ALL;
			double u[3], w[3];
			if (mode == HAIR_SUB_AUTO && seg_dir(rest, i, i + 1, u)) {
				if (i > a && seg_dir(rest, i - 1, i, w) &&
				    v3dot(u, w) > cmin)
					sub = 1;
				if (i + 2 < b && seg_dir(rest, i + 1, i + 2, w) &&
				    v3dot(u, w) > cmin)
					sub = 1;
			}
			if (sub)
				(*virt_seg)[n++] = i;
		}
	}
	*nvirt = n;
	return 0;
}

void
hair_topo_free(hair_topo *t)
{
	free(t->offset); free(t->voff); free(t->virt_seg); free(t->seg_virt);
	free(t->seq); free(t->edge); free(t->pair); free(t->tet);
	free(t->tet_norm); free(t->pair_k); free(t->pair_xi); free(t->tet_k);
	memset(t, 0, sizeof *t);
}

int
hair_topo_build(hair_topo *t, size_t nstrands, const uint32_t *offset,
		size_t naxis, const uint32_t *virt_seg, size_t nvirt,
		const hair_springs *k, const double *kscale, slc_err *err)
{
	memset(t, 0, sizeof *t);
	if (naxis > UINT32_MAX / 8 || nvirt > naxis || nstrands > naxis)
		return slc_fail(err, "%zu points are too many", naxis);
	t->nstrands = nstrands;
	t->naxis = naxis;
	t->nvirt = nvirt;
	t->np = naxis + nvirt;
	/* per strand the sequence has n = points + virtuals particles:
	 * n - 1 edges, n - 2 pairs (j, j+2), n - 3 torsions and tets */
	const size_t np = t->np;
	t->offset = slc_calloc(nstrands + 1, sizeof *t->offset, err);
	t->voff = slc_calloc(nstrands + 1, sizeof *t->voff, err);
	t->virt_seg = slc_calloc(nvirt + 1, sizeof *t->virt_seg, err);
	t->seg_virt = slc_calloc(naxis + 1, sizeof *t->seg_virt, err);
	t->seq = slc_calloc(np + 1, sizeof *t->seq, err);
	t->edge = slc_calloc(4 * np + 1, sizeof *t->edge, err);
	t->pair = slc_calloc(4 * np + 1, sizeof *t->pair, err);
	t->tet = slc_calloc(4 * np + 1, sizeof *t->tet, err);
	t->tet_norm = slc_calloc(np + 1, sizeof *t->tet_norm, err);
	t->pair_k = slc_calloc(2 * np + 1, sizeof *t->pair_k, err);
	t->pair_xi = slc_calloc(2 * np + 1, sizeof *t->pair_xi, err);
	t->tet_k = slc_calloc(np + 1, sizeof *t->tet_k, err);
	if (!t->offset || !t->voff || !t->virt_seg || !t->seg_virt ||
	    !t->seq || !t->edge || !t->pair || !t->tet || !t->tet_norm ||
	    !t->pair_k || !t->pair_xi || !t->tet_k) {
		hair_topo_free(t);
		return -1;
	}
	memcpy(t->offset, offset, (nstrands + 1) * sizeof *offset);
	memcpy(t->virt_seg, virt_seg, nvirt * sizeof *virt_seg);
	for (size_t i = 0; i < naxis; i++)
		t->seg_virt[i] = HAIR_NONE;
	size_t kv = 0;
	for (size_t s = 0; s < nstrands; s++) {
		t->voff[s] = (uint32_t)kv;
		while (kv < nvirt && virt_seg[kv] < offset[s + 1]) {
			uint32_t i = virt_seg[kv];
			if (i < offset[s] || i + 1 >= offset[s + 1] ||
			    (kv > 0 && virt_seg[kv - 1] >= i)) {
				hair_topo_free(t);
				return slc_fail(err, "virtual %zu: segment %u is "
						"not a segment of strand %zu, in "
						"order", kv, i, s);
			}
			t->seg_virt[i] = (uint32_t)(naxis + kv);
			kv++;
		}
	}
	t->voff[nstrands] = (uint32_t)kv;
	if (kv != nvirt) {
		hair_topo_free(t);
		return slc_fail(err, "virtual %zu: segment %u beyond the last "
				"strand", kv, virt_seg[kv]);
	}
	/* the interleaved sequences and their springs (fig. 7.2) */
	size_t ne = 0, npr = 0, nt = 0;
	for (size_t s = 0; s < nstrands; s++) {
		uint32_t *p = t->seq + offset[s] + t->voff[s];
		size_t n = 0;
		double ks = kscale ? kscale[s] : 1;
		for (uint32_t i = offset[s]; i < offset[s + 1]; i++) {
			p[n++] = i;
			if (t->seg_virt[i] != HAIR_NONE)
				p[n++] = t->seg_virt[i];
		}
		for (size_t j = 0; j + 1 < n; j++) {
			t->edge[2 * ne] = p[j];
			t->edge[2 * ne++ + 1] = p[j + 1];
		}
		for (size_t j = 0; j + 2 < n; j++) {
			if (p[j + 1] >= naxis) {
				/* the parent segment of a virtual: "as strong
				 * as the hair edge springs" (§7.3.1) */
				t->edge[2 * ne] = p[j];
				t->edge[2 * ne++ + 1] = p[j + 2];
				continue;
			}
			t->pair[2 * npr] = p[j];
			t->pair[2 * npr + 1] = p[j + 2];
			t->pair_k[npr] = k->k_bend * ks;
			t->pair_xi[npr++] = k->xi_bend;
		}
		for (size_t j = 0; j + 3 < n; j++) {
			/* torsion "three particles away", and the altitude
			 * spring of the tetrahedron it spans, normalised by
			 * the torsion's rest length */
			t->pair[2 * npr] = p[j];
			t->pair[2 * npr + 1] = p[j + 3];
			t->pair_k[npr] = k->k_tors * ks;
			t->pair_xi[npr] = k->xi_tors;
			memcpy(t->tet + 4 * nt, p + j, 4 * sizeof *p);
			t->tet_norm[nt] = (uint32_t)npr++;
			/* a tetrahedron with a virtual particle is the torsion
			 * element of a straight part (§7.3.1, fig. 7.1): fat
			 * by construction, it cannot invert under the
			 * strand's weight, which is what k_alt is sized for
			 * on curls' thin ones (hair.c); at k_alt it would add
			 * a stiffness against bending and twist alike that
			 * keeps a twisted strand from buckling (fig. 7.4b),
			 * so it takes the torsion stiffness */
			int virt = 0;
			for (int c = 0; c < 4; c++)
				virt |= p[j + (size_t)c] >= naxis;
			t->tet_k[nt++] = (virt ? k->k_tors : k->k_alt) * ks;
		}
	}
	spring_lists l = {
		.np = np,
		.nedge = ne, .edge = t->edge, .k_e = k->k_edge, .xi_e = k->xi_edge,
		.npair = npr, .pair = t->pair, .pair_k = t->pair_k,
		.pair_xi = t->pair_xi,
		.ntet = nt, .tet = t->tet, .tet_norm = t->tet_norm,
		.tet_k = t->tet_k, .xi_t = k->xi_alt,
		.compress_scale = 1,
	};
	t->sl = l;
	return 0;
}

/* A unit vector normal to the unit u: u x the world axis least aligned
 * with it. */
static void
any_normal(const double u[3], double d[3])
{
	double e[3] = {0, 0, 0};
	int a = 0;

	for (int k = 1; k < 3; k++)
		if (fabs(u[k]) < fabs(u[a]))
			a = k;
	e[a] = 1;
	v3cross(u, e, d);
	v3scale(1 / v3norm(d), d);
}

void
hair_virt_rest(const hair_topo *t, const double *rest, double *vrest)
{
	const double turn = HAIR_VIRT_TURN_DEG * M_PI / 180;

	for (size_t s = 0; s < t->nstrands; s++) {
		double d[3];
		int have = 0;
		for (uint32_t i = t->offset[s]; i + 1 < t->offset[s + 1]; i++) {
			double u[3];
			if (!seg_dir(rest, i, i + 1, u))
				continue;
			/* carry d onto this segment (parallel transport by
			 * projection) */
			if (have) {
				v3axpy(-v3dot(d, u), u, d);
				double l = v3norm(d);
				if (l > 1e-6)
					v3scale(1 / l, d);
				else
					have = 0;
			}
			if (!have)
				any_normal(u, d);
			have = 1;
			uint32_t v = t->seg_virt[i];
			if (v == HAIR_NONE)
				continue;
			/* §7.3.1: the equilateral triangle on the segment */
			double e[3];
			v3sub(rest + 3 * i + 3, rest + 3 * i, e);
			double L = v3norm(e);
			double *x = vrest + 3 * (v - t->naxis);
			for (int k = 0; k < 3; k++)
				x[k] = 0.5 * (rest[3 * i + k] + rest[3 * i + 3 + k]) +
					0.5 * sqrt(3.0) * L * d[k];
			/* turn d about u for the next virtual */
			double w[3];
			v3cross(u, d, w);
			for (int k = 0; k < 3; k++)
				d[k] = cos(turn) * d[k] + sin(turn) * w[k];
		}
	}
}

/* Eigenvector of the largest eigenvalue of the symmetric 4x4 A (cyclic
 * Jacobi; A is destroyed). */
static void
eig4_max(double A[4][4], double q[4])
{
	double V[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

	for (int sw = 0; sw < JACOBI_SWEEPS; sw++) {
		double off = 0, tot = 0;
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				if (i == j)
					tot += A[i][j] * A[i][j];
				else
					off += A[i][j] * A[i][j];
		if (off <= 1e-30 * (tot + off) || off == 0)
			break;
		for (int p = 0; p < 3; p++)
			for (int r = p + 1; r < 4; r++) {
				if (A[p][r] == 0)
					continue;
				double th = (A[r][r] - A[p][p]) / (2 * A[p][r]);
				double tn = (th >= 0 ? 1 : -1) /
					(fabs(th) + sqrt(th * th + 1));
				double c = 1 / sqrt(tn * tn + 1), sn = tn * c;
				for (int k = 0; k < 4; k++) {
					double a = A[k][p], b = A[k][r];
					A[k][p] = c * a - sn * b;
					A[k][r] = sn * a + c * b;
				}
				for (int k = 0; k < 4; k++) {
					double a = A[p][k], b = A[r][k];
					A[p][k] = c * a - sn * b;
					A[r][k] = sn * a + c * b;
				}
				for (int k = 0; k < 4; k++) {
					double a = V[k][p], b = V[k][r];
					V[k][p] = c * a - sn * b;
					V[k][r] = sn * a + c * b;
				}
			}
	}
	int best = 0;
	for (int i = 1; i < 4; i++)
		if (A[i][i] > A[best][best])
			best = i;
	for (int k = 0; k < 4; k++)
		q[k] = V[k][best];
}

/* The smallest rotation R (row-major) taking unit a to unit b. */
static void
min_rotation(const double a[3], const double b[3], double R[9])
{
	double v[3], c = v3dot(a, b);

	v3cross(a, b, v);
	if (c < -1 + 1e-12) {
		/* opposite: half a turn about any normal */
		double n[3];
		any_normal(a, n);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				R[3 * i + j] = 2 * n[i] * n[j] - (i == j);
		return;
	}
	double K[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double kk = 0;
			for (int m = 0; m < 3; m++)
				kk += K[3 * i + m] * K[3 * m + j];
			R[3 * i + j] = (i == j) + K[3 * i + j] + kk / (1 + c);
		}
}

void
hair_virt_place(const hair_topo *t, const double *rest, const double *vrest,
		const double *P, double *vP)
{
	const ptrdiff_t ns = (ptrdiff_t)t->nstrands;

#pragma omp parallel for schedule(static) if (ns > 256)
	for (ptrdiff_t s = 0; s < ns; s++) {
		uint32_t a = t->offset[s], b = t->offset[s + 1];
		if (t->voff[s] == t->voff[s + 1])
			continue;
		double rc[3] = {0, 0, 0}, pc[3] = {0, 0, 0}, S[3][3] = {{0}};
		double R[9], u[3], w[3], len, dev = 0;
		for (uint32_t i = a; i < b; i++) {
			v3axpy(1.0 / (b - a), rest + 3 * i, rc);
			v3axpy(1.0 / (b - a), P + 3 * i, pc);
		}
		v3sub(rest + 3 * (b - 1), rest + 3 * a, u);
		len = v3norm(u);
		v3scale(1 / len, u);
		for (uint32_t i = a; i < b; i++) {
			double r[3], c[3];
			v3sub(rest + 3 * i, rest + 3 * a, r);
			v3cross(r, u, c);
			if (v3norm(c) > dev)
				dev = v3norm(c);
		}
		/* a rest strand whose tip is on its root (len 0) has no axis:
		 * the general fit below */
		if (len > 0 && dev <= HAIR_STRAIGHT_TOL * len) {
			double wl;

			v3sub(P + 3 * (b - 1), P + 3 * a, w);
			wl = v3norm(w);
			if (wl > 0) {
				v3scale(1 / wl, w);
				min_rotation(u, w, R);
			} else {
				/* the posed tip on the root: no direction to
				 * turn the axis to; the rest orientation */
				for (int i = 0; i < 9; i++)
					R[i] = i % 4 == 0;
			}
		} else {
			/* Horn 1987: the best rotation is the quaternion of
			 * the largest eigenvalue of N(S), S the cross
			 * covariance of the centred rest and current axes */
			for (uint32_t i = a; i < b; i++) {
				double r[3], p[3];
				v3sub(rest + 3 * i, rc, r);
				v3sub(P + 3 * i, pc, p);
				for (int j = 0; j < 3; j++)
					for (int k = 0; k < 3; k++)
						S[j][k] += r[j] * p[k];
			}
			double N[4][4] = {
				{S[0][0] + S[1][1] + S[2][2], S[1][2] - S[2][1],
				 S[2][0] - S[0][2], S[0][1] - S[1][0]},
				{S[1][2] - S[2][1], S[0][0] - S[1][1] - S[2][2],
				 S[0][1] + S[1][0], S[2][0] + S[0][2]},
				{S[2][0] - S[0][2], S[0][1] + S[1][0],
				 -S[0][0] + S[1][1] - S[2][2], S[1][2] + S[2][1]},
				{S[0][1] - S[1][0], S[2][0] + S[0][2],
				 S[1][2] + S[2][1], -S[0][0] - S[1][1] + S[2][2]}};
			double q[4];
			eig4_max(N, q);
			double qw = q[0], qx = q[1], qy = q[2], qz = q[3];
			R[0] = qw * qw + qx * qx - qy * qy - qz * qz;
			R[1] = 2 * (qx * qy - qw * qz);
			R[2] = 2 * (qx * qz + qw * qy);
			R[3] = 2 * (qx * qy + qw * qz);
			R[4] = qw * qw - qx * qx + qy * qy - qz * qz;
			R[5] = 2 * (qy * qz - qw * qx);
			R[6] = 2 * (qx * qz - qw * qy);
			R[7] = 2 * (qy * qz + qw * qx);
			R[8] = qw * qw - qx * qx - qy * qy + qz * qz;
		}
		for (uint32_t k = t->voff[s]; k < t->voff[s + 1]; k++) {
			double r[3];
			v3sub(vrest + 3 * k, rc, r);
			for (int j = 0; j < 3; j++)
				vP[3 * k + j] = pc[j] + R[3 * j] * r[0] +
					R[3 * j + 1] * r[1] + R[3 * j + 2] * r[2];
		}
	}
}
