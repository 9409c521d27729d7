/* test_shell_resp: the cloth's response over a frame that shellcouple's
 * implicit coupling puts into the pressure solve (stage/shell_resp.h):
 * free fall at rest, symmetry and the pinned nodes' zero, the stretched
 * springs' transverse stiffness, the cut faces' fluid, the exact banded
 * factor against block-Jacobi CG, and the same bytes on one thread and
 * two. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth_mesh.h"
#include "ctest.h"
#include "stage/shell_resp.h"

/* A horizontal sheet of n x n quads, 1 m wide at height 0.5, each node
 * 1e-3 kg; its border pinned when pin. */
typedef struct sheet {
	size_t np, nt;
	double *x, *V0, *m;
	uint32_t *tri;
	uint8_t *fix;
} sheet;

static void
make_sheet(sheet *s, int n, int pin)
{
	const double o[3] = {0, 0.5, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	slc_err err;

	cloth_sheet(n, n, o, eu, ev, 1, 1, &s->x, &s->np, &s->tri, &s->nt, &err);
	s->V0 = calloc(3 * s->np, sizeof *s->V0);
	s->m = malloc(s->np * sizeof *s->m);
	s->fix = calloc(s->np, 1);
	for (size_t i = 0; i < s->np; i++) {
		const double *p = s->x + 3 * i;
		s->m[i] = 1e-3;
		s->fix[i] = pin && (p[0] < 1e-9 || p[0] > 1 - 1e-9 || p[2] < 1e-9 || p[2] > 1 - 1e-9);
	}
}

static void
free_sheet(sheet *s)
{
	free(s->x);
	free(s->V0);
	free(s->m);
	free(s->tri);
	free(s->fix);
}

/* The response of s, its rest state rest (NULL: its positions). */
static int
resp(shell_resp *R, const sheet *s, const double *rest, double k)
{
	shell_resp_mesh me = {s->np, s->nt, s->tri, s->x, rest, s->V0, s->m, s->fix, NULL};
	shell_resp_opts o;
	slc_err err;

	spring_params_default(&o.spring);
	o.spring.E_e = k;
	o.g[0] = o.g[2] = 0;
	o.g[1] = -9.81;
	o.dt = 1.0 / 60;
	if (shell_resp_init(R, &me, 1, &o, &err))
		return -1;
	shell_resp_faces(R, 0, NULL, NULL, NULL, NULL, NULL);
	return 0;
}

/* The centre node of an n x n sheet (n even). */
static size_t
centre(const sheet *s)
{
	for (size_t i = 0; i < s->np; i++)
		if (fabs(s->x[3 * i] - 0.5) < 1e-9 && fabs(s->x[3 * i + 2] - 0.5) < 1e-9)
			return i;
	return 0;
}

/* R's exact factor (what shell_resp_faces set up) against block-Jacobi
 * CG on the same right-hand side: the factor's solves take at most two
 * iterations each, CG many more, the answers agree to 1e-9 of their
 * largest value.  R is left on block Jacobi. */
static void
exact_vs_cg(shell_resp *R, const char *what)
{
	size_t n3 = 3 * R->nn;
	double *x = malloc(n3 * sizeof *x), *y = malloc(n3 * sizeof *y), big = 0, diff = 0;

	for (size_t k = 0; k < n3; k++)
		x[k] = y[k] = cos(0.37 * (double)k);
	CHECK(R->banded, "%s: the factor is in use", what);
	long s0 = R->solves, i0 = R->iters;
	shell_resp_apply(R, x);
	long ib = R->iters - i0;
	CHECK(R->solves == s0 + 1 && ib <= 2, "%s: %ld iterations with the factor", what, ib);
	R->banded = 0;
	i0 = R->iters;
	shell_resp_apply(R, y);
	long ic = R->iters - i0;
	for (size_t k = 0; k < n3; k++) {
		big = fmax(big, fabs(y[k]));
		diff = fmax(diff, fabs(x[k] - y[k]));
	}
	CHECK(ic > 10 * ib, "%s: block-Jacobi CG takes %ld", what, ic);
	CHECK(big > 0 && diff <= 1e-9 * big, "%s: the answers agree to %.3g of %.3g", what, diff,
	      big);
	free(x);
	free(y);
}

int
main(void)
{
	sheet s;
	shell_resp R;

	/* a free sheet at rest falls at g over the frame */
	make_sheet(&s, 8, 0);
	double *V = calloc(3 * s.np, sizeof *V);
	CHECK(resp(&R, &s, NULL, 4.14) == 0, "a free sheet's response");
	shell_resp_unloaded(&R, V);
	double worst = 0;
	for (size_t i = 0; i < s.np; i++)
		worst = fmax(worst, fabs(V[3 * i + 1] + 9.81 / 60) + fabs(V[3 * i]) + fabs(V[3 * i + 2]));
	CHECK(worst < 1e-9, "free fall: every node at g dt (off by %.3g m/s)", worst);
	shell_resp_free(&R);
	free(V);
	free_sheet(&s);

	/* pinned border: R symmetric, zero on and from the pinned nodes */
	make_sheet(&s, 8, 1);
	double *rest = malloc(3 * s.np * sizeof *rest);
	for (size_t k = 0; k < 3 * s.np; k++)
		rest[k] = 0.5 + 0.98 * (s.x[k] - 0.5);
	CHECK(resp(&R, &s, rest, 100) == 0, "a stretched pinned sheet's response");
	size_t n3 = 3 * s.np;
	double *a = malloc(n3 * sizeof *a), *b = malloc(n3 * sizeof *b);
	double *Ra = malloc(n3 * sizeof *Ra), *Rb = malloc(n3 * sizeof *Rb);
	srand(7);
	for (size_t k = 0; k < n3; k++) {
		a[k] = rand() / (double)RAND_MAX - 0.5;
		b[k] = rand() / (double)RAND_MAX - 0.5;
	}
	memcpy(Ra, a, n3 * sizeof *a);
	memcpy(Rb, b, n3 * sizeof *b);
	shell_resp_apply(&R, Ra);
	shell_resp_apply(&R, Rb);
	double ab = 0, ba = 0, pin = 0;
	for (size_t k = 0; k < n3; k++) {
		ab += a[k] * Rb[k];
		ba += b[k] * Ra[k];
		if (s.fix[k / 3])
			pin += fabs(Ra[k]);
	}
	CHECK(fabs(ab - ba) <= 1e-9 * fabs(ab), "symmetric: a.Rb %.12g, b.Ra %.12g", ab, ba);
	CHECK(pin == 0, "the pinned nodes do not move");
	CHECK(R.worst < 1e-10, "inner solves to %.3g", R.worst);
	/* the stretched sheet resists a push across it: the centre node's
	 * response to a vertical force is smaller than the unstretched one's */
	size_t c = centre(&s);
	memset(Ra, 0, n3 * sizeof *Ra);
	Ra[3 * c + 1] = 1;
	shell_resp_apply(&R, Ra);
	double taut = Ra[3 * c + 1];
	shell_resp_free(&R);
	CHECK(resp(&R, &s, NULL, 100) == 0, "an unstretched pinned sheet's response");
	memset(Ra, 0, n3 * sizeof *Ra);
	Ra[3 * c + 1] = 1;
	shell_resp_apply(&R, Ra);
	double slack = Ra[3 * c + 1];
	CHECK(taut > 0 && taut < 0.5 * slack,
	      "tension holds the sheet across: %.4g against %.4g slack (1/kg)", taut, slack);
	/* a cut face's fluid, 1 kg moving down at 1 m/s on the centre node's
	 * triangles, drags the sheet after it */
	uint32_t node[3];
	double w[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, mf = 1, uf = -1;
	uint8_t ax = 1;
	for (size_t t = 0; t < s.nt; t++)
		if (s.tri[3 * t] == c || s.tri[3 * t + 1] == c || s.tri[3 * t + 2] == c) {
			memcpy(node, s.tri + 3 * t, sizeof node);
			break;
		}
	double *V1 = calloc(n3, sizeof *V1), *V2 = calloc(n3, sizeof *V2);
	shell_resp_unloaded(&R, V1);
	shell_resp_faces(&R, 1, node, w, &ax, &mf, &uf);
	shell_resp_unloaded(&R, V2);
	CHECK(V2[3 * c + 1] < V1[3 * c + 1] - 0.01,
	      "the face's fluid drags the sheet: %.4g m/s, %.4g without", V2[3 * c + 1],
	      V1[3 * c + 1]);
	/* the face's fluid couples its triangle's nodes: in the factor too */
	exact_vs_cg(&R, "with a cut face");
	shell_resp_free(&R);
	free_sheet(&s);

	/* a stiff sheet (shellcouple --stiffness 1e5), a cut face's fluid on
	 * a triangle near each corner */
	make_sheet(&s, 24, 1);
	CHECK(resp(&R, &s, NULL, 1e5) == 0, "a stiff pinned sheet's response");
	{
		uint32_t fn[6];
		double fw[6] = {0.2, 0.3, 0.5, 0.6, 0.3, 0.1}, fm[2] = {0.5, 2}, fu[2] = {-1, 1};
		uint8_t fa[2] = {1, 0};
		memcpy(fn, s.tri + 3 * 30, 3 * sizeof *fn);
		memcpy(fn + 3, s.tri + 3 * (s.nt - 30), 3 * sizeof *fn);
		shell_resp_faces(&R, 2, fn, fw, fa, fm, fu);
		exact_vs_cg(&R, "stiff");
		shell_resp_free(&R);
	}
	free(V1);
	free(V2);
	free(a);
	free(b);
	free(Ra);
	free(Rb);
	free(rest);
	free_sheet(&s);

	/* the same bytes on one thread and two (a sheet past the parallel
	 * threshold of cloth/) */
	make_sheet(&s, 72, 1);
	n3 = 3 * s.np;
	double *r1 = malloc(n3 * sizeof *r1), *r2 = malloc(n3 * sizeof *r2);
	for (int th = 1; th <= 2; th++) {
		double *r = th == 1 ? r1 : r2;
		omp_set_num_threads(th);
		CHECK(resp(&R, &s, NULL, 4.14) == 0, "%zu nodes on %d threads", s.np, th);
		for (size_t k = 0; k < n3; k++)
			r[k] = sin(0.1 * (double)k);
		shell_resp_apply(&R, r);
		shell_resp_free(&R);
	}
	CHECK(!memcmp(r1, r2, n3 * sizeof *r1), "one thread and two: the same bytes");
	free(r1);
	free(r2);
	free_sheet(&s);
	return ctest_done();
}
