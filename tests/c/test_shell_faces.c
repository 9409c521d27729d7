/* test_shell_faces.c: the faces a shell cuts (lib/shell/shell_faces.h) and
 * the shell in the pressure system (lib/fluid/pressure.h, held faces and
 * ps_shell).  A plate spanning a closed box of smoke cuts exactly one
 * layer of y faces; moving up at V, its cut faces held at V
 * (guendelman2005 eq 4) carry V exactly after the projection, every cell
 * is divergence free to the solver's tolerance and the two pockets give
 * up the flow 2 V (1 m^2) through the compatibility condition
 * (selle2008 §4.4.2); with the faces left open (the control) the plate's
 * faces do not carry V.  The force handed to the nodes sums to the
 * faces' force to rounding on a tilted plate (what the shell gets is
 * what the fluid loses).  The implicit coupling's operator is symmetric,
 * and with every node pinned it is the fluid operator of the closed
 * faces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "ctest.h"
#include "fluid/pcg.h"
#include "fluid/pressure.h"
#include "shell/shell_faces.h"

#define N 8

/* an m x m grid of quads on the plane y = y0 + slope*(x - 0.5), over
 * [0,1]^2 in x, z; P has 3 (m+1)^2 floats, tri 6 m^2 indices */
static void
plate(int m, double y0, double slope, float *P, uint32_t *tri)
{
	for (int b = 0; b <= m; b++)
		for (int a = 0; a <= m; a++) {
			float *p = P + 3 * (a + (m + 1) * b);
			p[0] = (float)a / m;
			p[1] = (float)(y0 + slope * ((double)a / m - 0.5));
			p[2] = (float)b / m;
		}
	for (int b = 0, t = 0; b < m; b++)
		for (int a = 0; a < m; a++, t += 6) {
			uint32_t p = (uint32_t)(a + (m + 1) * b);
			uint32_t q[6] = {p, p + 1, p + m + 2, p, p + m + 2, p + m + 1};
			memcpy(tri + t, q, sizeof q);
		}
}

typedef struct scene {
	shell_set s;
	shell_faces F;
	double *vel;
	float *P;
	uint32_t *tri;
	size_t np, ntri;
} scene;

static int
scene_make(scene *S, int m, double y0, double slope, double V, slc_err *err)
{
	double origin[3] = {0, 0, 0}, dx = 1.0 / N;

	memset(S, 0, sizeof *S);
	S->np = (size_t)(m + 1) * (m + 1), S->ntri = 2 * (size_t)m * m;
	S->P = calloc(3 * S->np, sizeof *S->P);
	S->tri = calloc(3 * S->ntri, sizeof *S->tri);
	S->vel = calloc(3 * S->np, sizeof *S->vel);
	plate(m, y0, slope, S->P, S->tri);
	for (size_t i = 0; i < S->np; i++)
		S->vel[3 * i + 1] = V;
	shell_face_mesh sm = {S->tri, S->ntri, S->np, S->vel};
	if (shell_init(&S->s, 1e-3 * dx, err) ||
	    shell_add_mesh(&S->s, S->P, S->np, S->tri, S->ntri, err) ||
	    shell_build(&S->s, origin, dx, N, N, N, err))
		return -1;
	return shell_faces_find(&S->F, &S->s, &sm, 1, N, N, N, dx, origin, err);
}

static void
scene_free(scene *S)
{
	shell_faces_free(&S->F);
	shell_free(&S->s);
	free(S->P);
	free(S->tri);
	free(S->vel);
}

/* Project a random velocity in a closed N^3 box of unit side with the
 * plate's cut faces held (held = 1) or left open; the largest |v - V|
 * over the cut faces, the largest |divergence| (m/s, flux / dx^2) over
 * the cells, the flow removed from the pockets (m^3/s) and the max norm
 * of the right-hand side. */
static void
project_plate(scene *S, double V, int held, double *verr, double *div, double *flow,
	      double *bmax)
{
	size_t nf = (size_t)(N + 1) * N * N, n = (size_t)N * N * N;
	float *w[3], *u[3], *hv[3];
	double origin[3] = {0, 0, 0}, dx = 1.0 / N, removed;
	rng g;
	slc_err err = {0};
	psys ps;

	rng_init(&g, 7);
	for (int a = 0; a < 3; a++) {
		w[a] = malloc(nf * sizeof *w[a]);
		u[a] = malloc(nf * sizeof *u[a]);
		hv[a] = calloc(nf, sizeof *hv[a]);
		for (size_t f = 0; f < nf; f++)
			w[a][f] = 1, u[a][f] = (float)(rng_uniform(&g) - 0.5);
	}
	for (size_t q = 0; q < S->F.n; q++) {
		const shell_face *c = &S->F.face[q];
		if (held)
			w[c->ax][c->f] = 0;
		hv[c->ax][c->f] = (float)c->v[c->ax];
	}
	psys_in in = {.ni = N, .nj = N, .nk = N, .dx = dx, .origin = origin, .rho = 1.2,
		      .wx = w[0], .wy = w[1], .wz = w[2]};
	if (held)
		for (int a = 0; a < 3; a++)
			in.held[a] = S->F.cut[a], in.hv[a] = hv[a];
	double *b = calloc(n, sizeof *b), *x = calloc(n, sizeof *x);
	pcg_opts po = {PCG_MIC0, 1e-6, 400};
	pcg_stats st;
	CHECK(psys_init(&ps, &in, &err) == 0, "psys_init (%s)", err.msg);
	CHECK(psys_rhs(&ps, u[0], u[1], u[2], NULL, b, &removed, &err) == 0, "rhs");
	*bmax = psys_maxabs(&ps, b);
	CHECK(pcg_solve(&ps, b, x, &po, &st, &err) == 0 && st.converged, "solve (%d its)",
	      st.iters);
	psys_update(&ps, x, u[0], u[1], u[2], NULL);
	*verr = 0;
	for (size_t q = 0; q < S->F.n; q++) {
		const shell_face *c = &S->F.face[q];
		double e = fabs(u[c->ax][c->f] - V);
		*verr = e > *verr ? e : *verr;
	}
	/* selle2008 §4.4.2: a pocket's net flow leaves through its boundary
	 * cells in proportion to their boundary faces (box faces, and the
	 * plate's y faces, which split the box at j = N/2): there the
	 * divergence over the boundary faces is one value per pocket;
	 * elsewhere it is 0 to the solver's tolerance */
	double per[2] = {NAN, NAN};
	*div = 0;
	for (int k = 0; k < N; k++)
		for (int j = 0; j < N; j++)
			for (int i = 0; i < N; i++) {
				double d = u[0][i + 1 + (N + 1) * (j + N * k)] - u[0][i + (N + 1) * (j + N * k)] +
					   u[1][i + N * (j + 1 + (N + 1) * k)] - u[1][i + N * (j + (N + 1) * k)] +
					   u[2][i + N * (j + N * (k + 1))] - u[2][i + N * (j + N * k)];
				int r = j >= N / 2;
				int nb = (i == 0) + (i == N - 1) + (j == 0) + (j == N - 1) + (k == 0) +
					 (k == N - 1) + (held && (j == N / 2 - 1 || j == N / 2));
				if (nb) {
					if (isnan(per[r]))
						per[r] = d / nb;
					d -= per[r] * nb;
				}
				*div = fabs(d) > *div ? fabs(d) : *div;
			}
	*flow = removed * dx * dx;
	psys_free(&ps);
	for (int a = 0; a < 3; a++)
		free(w[a]), free(u[a]), free(hv[a]);
	free(b);
	free(x);
}

static void
test_plate(void)
{
	scene S;
	slc_err err = {0};
	double V = 0.1, verr, div, flow, bmax;

	CHECK(scene_make(&S, 4, 0.5 + 0.25 / N, 0, V, &err) == 0, "plate (%s)", err.msg);
	size_t ny = 0;
	for (size_t q = 0; q < S.F.n; q++)
		ny += S.F.face[q].ax == 1 && S.F.face[q].j == N / 2;
	CHECK(S.F.n == (size_t)N * N && ny == S.F.n,
	      "plate: %zu cut faces, %zu of them the y faces at j = %d, expected %d", S.F.n,
	      ny, N / 2, N * N);
	double vmax = 0;
	for (size_t q = 0; q < S.F.n; q++)
		vmax = fmax(vmax, fabs(S.F.face[q].v[1] - V));
	CHECK(vmax < 1e-15, "plate: face velocity is the plate's (off by %g)", vmax);
	project_plate(&S, V, 1, &verr, &div, &flow, &bmax);
	CHECK(verr == fabs((double)(float)V - V), "held: cut faces carry V exactly (off by %g)",
	      verr);
	CHECK(div <= 1e-6 * bmax, "held: divergence %g below the tolerance 1e-6 x b max %g (beyond the pockets' "
	      "compatibility flow)", div, bmax);
	CHECK(fabs(flow - 2 * V) < 1e-6, "held: compat flow %.9g, expected 2 V = %g", flow,
	      2 * V);
	project_plate(&S, V, 0, &verr, &div, &flow, &bmax);
	CHECK(verr > 1e-2, "control, faces open: the plate's faces off V by %g", verr);
	scene_free(&S);
}

/* shell_faces_force on a 45-degree plate and a random pressure: the
 * nodes get the faces' total to rounding. */
static void
test_conserve(void)
{
	scene S;
	slc_err err = {0};
	rng g;
	double p[N * N * N], fs[3], tot[3] = {0, 0, 0};

	CHECK(scene_make(&S, 6, 0.5 + 0.1 / N, 1, 0, &err) == 0, "tilted (%s)", err.msg);
	int ax[3] = {0, 0, 0};
	for (size_t q = 0; q < S.F.n; q++)
		ax[S.F.face[q].ax]++;
	CHECK(ax[0] > 0 && ax[1] > 0 && ax[2] == 0, "tilted: x and y faces cut (%d %d %d)",
	      ax[0], ax[1], ax[2]);
	rng_init(&g, 3);
	for (int c = 0; c < N * N * N; c++)
		p[c] = 1000 * rng_uniform(&g);
	double *force = calloc(3 * S.np, sizeof *force);
	double *fl[1] = {force};
	shell_faces_force(&S.F, p, NULL, 1.0 / N, fl, fs);
	for (size_t i = 0; i < S.np; i++)
		for (int d = 0; d < 3; d++)
			tot[d] += force[3 * i + d];
	double e = 0, mag = 0;
	for (int d = 0; d < 3; d++)
		e = fmax(e, fabs(tot[d] - fs[d])), mag = fmax(mag, fabs(fs[d]));
	CHECK(mag > 1 && e <= 1e-12 * mag, "given %g,%g,%g = taken %g,%g,%g (off %g)", tot[0],
	      tot[1], tot[2], fs[0], fs[1], fs[2], e);
	free(force);
	scene_free(&S);
}

/* The implicit operator (ps_shell): symmetric; with every node pinned,
 * the fluid operator alone. */
static void
test_implicit_operator(void)
{
	scene S;
	slc_err err = {0};
	size_t nf = (size_t)(N + 1) * N * N, n = (size_t)N * N * N;
	double origin[3] = {0, 0, 0};

	CHECK(scene_make(&S, 6, 0.5 + 0.1 / N, 0.5, 0, &err) == 0, "tilted (%s)", err.msg);
	size_t *lo = calloc(S.F.n, sizeof *lo), *hi = calloc(S.F.n, sizeof *hi);
	uint8_t *ax = calloc(S.F.n, 1);
	uint32_t *node = calloc(3 * S.F.n, sizeof *node);
	double *wb = calloc(3 * S.F.n, sizeof *wb), *minv = calloc(S.np, sizeof *minv);
	double *V = calloc(3 * S.np, sizeof *V);
	float *w[3], *hv[3];
	for (int a = 0; a < 3; a++) {
		w[a] = malloc(nf * sizeof *w[a]);
		hv[a] = calloc(nf, sizeof *hv[a]);
		for (size_t f = 0; f < nf; f++)
			w[a][f] = 1;
	}
	for (size_t q = 0; q < S.F.n; q++) {
		const shell_face *c = &S.F.face[q];
		lo[q] = c->lo, hi[q] = c->hi, ax[q] = (uint8_t)c->ax;
		for (int e = 0; e < 3; e++)
			node[3 * q + e] = c->node[e], wb[3 * q + e] = c->bary[e];
		w[c->ax][c->f] = 0;
	}
	for (size_t i = 0; i < S.np; i++)
		minv[i] = 1 / (0.01 + 0.001 * (double)i);
	ps_shell sh = {S.F.n, lo, hi, ax, node, wb, S.np, minv, V, NULL, NULL};
	psys_in in = {.ni = N, .nj = N, .nk = N, .dx = 1.0 / N, .origin = origin, .rho = 1000,
		      .wx = w[0], .wy = w[1], .wz = w[2], .held = {S.F.cut[0], S.F.cut[1], S.F.cut[2]},
		      .hv = {hv[0], hv[1], hv[2]}, .shell = &sh};
	psys ps, ps0;
	rng g;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	double *Ax = malloc(n * sizeof *Ax), *Ay = malloc(n * sizeof *Ay);
	rng_init(&g, 5);
	for (size_t c = 0; c < n; c++)
		x[c] = rng_uniform(&g) - 0.5, y[c] = rng_uniform(&g) - 0.5;
	CHECK(psys_init(&ps, &in, &err) == 0, "implicit system (%s)", err.msg);
	CHECK(ps.nregion == 1, "free nodes join the two sides: %d region(s)", ps.nregion);
	psys_apply(&ps, x, Ax);
	psys_apply(&ps, y, Ay);
	double xy = psys_dot(&ps, x, Ay), yx = psys_dot(&ps, y, Ax);
	CHECK(fabs(xy - yx) <= 1e-12 * fabs(xy) && fabs(xy) > 0, "symmetric: %.15g %.15g", xy,
	      yx);
	psys_free(&ps);
	/* pinned everywhere: the fluid operator with the faces closed */
	memset(minv, 0, S.np * sizeof *minv);
	in.shell = &sh;
	psys_in in0 = in;
	in0.shell = NULL;
	CHECK(psys_init(&ps, &in, &err) == 0 && psys_init(&ps0, &in0, &err) == 0, "pinned");
	CHECK(ps.nregion == 2, "pinned nodes keep the sides apart: %d regions", ps.nregion);
	psys_apply(&ps, x, Ax);
	psys_apply(&ps0, x, Ay);
	double d = 0;
	for (size_t c = 0; c < n; c++)
		d = fmax(d, fabs(Ax[c] - Ay[c]));
	CHECK(d == 0, "pinned: the fluid operator (off by %g)", d);
	psys_free(&ps);
	psys_free(&ps0);
	for (int a = 0; a < 3; a++)
		free(w[a]), free(hv[a]);
	free(lo), free(hi), free(ax), free(node), free(wb), free(minv), free(V);
	free(x), free(y), free(Ax), free(Ay);
	scene_free(&S);
}

int
main(void)
{
	test_plate();
	test_conserve();
	test_implicit_operator();
	return ctest_done();
}
