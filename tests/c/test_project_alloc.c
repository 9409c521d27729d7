/* test_project_alloc.c: the out-of-memory paths of the pressure system
 * (lib/fluid/pressure.h, pcg.h) and of project's stage: every allocation
 * of psys_init, psys_rhs, psys_null, pcg_solve and project_stage_solve is
 * made to fail in turn (slc_alloc_fail_after, core/err.h).  Each failure
 * must come back as -1 with a message saying that memory ran out, free
 * what was allocated (the sanitizer build checks for leaks) and leave the
 * next attempt giving the same bits as a run without the hook.  The
 * systems are enclosed (walls all round, no free surface), so that the
 * compatibility condition and the null space of selle2008 §4.4.2 are
 * in play: one region, and more regions than psys_null sums in parallel
 * (PS_PART_REGIONS). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "core/meta.h"
#include "fluid/pcg.h"
#include "fluid/pressure.h"
#include "grid/field.h"
#include "stage/project_stage.h"

/* Allocations tried before giving up on a call ever succeeding. */
#define MAX_ALLOCS 1000

/* A box of smoke (no liquid level set) with walls all round. */
typedef struct sys {
	int n[3];
	size_t nf[3];
	float *w[3], *u[3];
	float *us;              /* solid velocity, xyz per cell */
	double origin[3];
	psys_in in;
	psys ps;
} sys;

static unsigned long rng = 12345;

static double
urand(void)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* Is face f of axis a on the box of ni x nj x nk cells? */
static int
on_box(int a, size_t f, int ni, int nj, int nk)
{
	size_t at = a == 0 ? f % (size_t)(ni + 1) :
		    a == 1 ? f / (size_t)ni % (size_t)(nj + 1) : f / ((size_t)ni * nj);
	size_t n = a == 0 ? (size_t)ni : a == 1 ? (size_t)nj : (size_t)nk;

	return at == 0 || at == n;
}

/* ni x nj x nk cells of size 1/ni; slabs: the x faces between cells closed,
 * which makes each slab of cells at one i its own enclosed region.  The
 * box's faces are half covered by a solid moving at the random us, so
 * that every region has a net flow through its walls to remove. */
static void
sys_make(sys *s, int ni, int nj, int nk, int slabs)
{
	memset(s, 0, sizeof *s);
	s->n[0] = ni, s->n[1] = nj, s->n[2] = nk;
	s->nf[0] = (size_t)(ni + 1) * nj * nk;
	s->nf[1] = (size_t)ni * (nj + 1) * nk;
	s->nf[2] = (size_t)ni * nj * (nk + 1);
	for (int a = 0; a < 3; a++) {
		s->w[a] = malloc(s->nf[a] * sizeof(float));
		s->u[a] = malloc(s->nf[a] * sizeof(float));
		for (size_t f = 0; f < s->nf[a]; f++) {
			s->w[a][f] = a == 0 && slabs ? 0.0f :
				     on_box(a, f, ni, nj, nk) ? 0.5f : 1.0f;
			s->u[a][f] = (float)urand();
		}
	}
	size_t nc = (size_t)ni * nj * nk;
	s->us = malloc(3 * nc * sizeof *s->us);
	for (size_t c = 0; c < 3 * nc; c++)
		s->us[c] = (float)(0.1 * urand());
	s->in = (psys_in){.ni = ni, .nj = nj, .nk = nk, .dx = 1.0 / ni,
			  .origin = s->origin, .rho = 1000,
			  .wx = s->w[0], .wy = s->w[1], .wz = s->w[2]};
}

static void
sys_free(sys *s)
{
	psys_free(&s->ps);
	for (int a = 0; a < 3; a++)
		free(s->w[a]), free(s->u[a]);
	free(s->us);
}

/* Failures of one kind of call, and the first message that is not the
 * one expected. */
typedef struct tally {
	int fails, bad;
	int saw_rhs, saw_null;  /* messages naming psys_rhs, psys_null */
	char first_bad[SLC_ERR_MAX + 32];
} tally;

static void
tally_fail(tally *t, int n, int rc, const slc_err *err)
{
	t->fails++;
	t->saw_rhs += strstr(err->msg, "pressure right-hand side: ") != NULL;
	t->saw_null += strstr(err->msg, "pressure null space: ") != NULL;
	if (rc != -1 || !strstr(err->msg, "out of memory") || strstr(err->msg, "overflow")) {
		if (!t->bad++)
			snprintf(t->first_bad, sizeof t->first_bad, "allocation %d: rc %d '%s'",
				 n, rc, err->msg);
	}
}

/* psys_init: fails at each allocation, then builds the system. */
static void
test_init(sys *s, const char *what)
{
	slc_err err;
	tally t = {0};
	int n;

	for (n = 1; n < MAX_ALLOCS; n++) {
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = psys_init(&s->ps, &s->in, &err);
		slc_alloc_fail_after(0);
		if (rc == 0)
			break;
		tally_fail(&t, n, rc, &err);
	}
	CHECK(n < MAX_ALLOCS && t.fails > 5,
	      "%s: psys_init fails at each of its %d allocations, then succeeds", what, t.fails);
	CHECK(!t.bad, "%s: every psys_init failure says out of memory (%d do not; first %s)",
	      what, t.bad, t.first_bad);
}

/* psys_rhs: -1 with err at each allocation (it returned NaN, unreached by
 * the hook), then the same b and net flow as a run without the hook. */
static void
test_rhs(sys *s, const char *what, int nenclosed)
{
	size_t nc = s->ps.n;
	double *ref = malloc(nc * sizeof *ref), *b = malloc(nc * sizeof *b);
	double rem_ref = -1, rem = -1;
	slc_err err;
	tally t = {0};
	int n;

	CHECK(s->ps.nenclosed == nenclosed && s->ps.nregion == nenclosed,
	      "%s: %d regions, %d enclosed", what, s->ps.nregion, s->ps.nenclosed);
	CHECK(psys_rhs(&s->ps, s->u[0], s->u[1], s->u[2], s->us, ref, &rem_ref, &err) == 0 &&
	      rem_ref > 0, "%s: psys_rhs without the hook: net flow %g removed", what, rem_ref);
	for (n = 1; n < MAX_ALLOCS; n++) {
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = psys_rhs(&s->ps, s->u[0], s->u[1], s->u[2], s->us, b, &rem, &err);
		slc_alloc_fail_after(0);
		if (rc == 0)
			break;
		tally_fail(&t, n, rc, &err);
	}
	CHECK(n < MAX_ALLOCS && t.fails > 0 && t.saw_rhs == t.fails,
	      "%s: psys_rhs returns -1 naming itself at each of its %d allocations, then 0",
	      what, t.fails);
	CHECK(!t.bad, "%s: every psys_rhs failure says out of memory (%d do not; first %s)",
	      what, t.bad, t.first_bad);
	CHECK(!memcmp(b, ref, nc * sizeof *b) && rem == rem_ref,
	      "%s: after the failures, b and the net flow are those of a clean run, bit for bit",
	      what);
	free(ref);
	free(b);
}

/* psys_null: -1 with err and x untouched at each allocation (it returned
 * silently and left the null space in), then the same x as a clean run. */
static void
test_null(sys *s, const char *what)
{
	size_t nc = s->ps.n;
	double *x0 = malloc(nc * sizeof *x0), *ref = malloc(nc * sizeof *ref);
	double *x = malloc(nc * sizeof *x);
	slc_err err;
	tally t = {0};
	int n, touched = 0;

	for (size_t c = 0; c < nc; c++)
		x0[c] = s->ps.type[c] == PS_FLUID ? urand() + 0.5 : 0;
	memcpy(ref, x0, nc * sizeof *ref);
	CHECK(psys_null(&s->ps, ref, &err) == 0, "%s: psys_null without the hook", what);
	for (n = 1; n < MAX_ALLOCS; n++) {
		memcpy(x, x0, nc * sizeof *x);
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = psys_null(&s->ps, x, &err);
		slc_alloc_fail_after(0);
		if (rc == 0)
			break;
		tally_fail(&t, n, rc, &err);
		touched += memcmp(x, x0, nc * sizeof *x) != 0;
	}
	CHECK(n < MAX_ALLOCS && t.fails > 0 && t.saw_null == t.fails,
	      "%s: psys_null returns -1 naming itself at each of its %d allocations, then 0",
	      what, t.fails);
	CHECK(!t.bad, "%s: every psys_null failure says out of memory (%d do not; first %s)",
	      what, t.bad, t.first_bad);
	CHECK(!touched, "%s: a failed psys_null leaves x as it was", what);
	CHECK(!memcmp(x, ref, nc * sizeof *x),
	      "%s: after the failures, x is that of a clean run, bit for bit", what);
	free(x0);
	free(ref);
	free(x);
}

/* pcg_solve passes psys_null's failures on: -1 at each allocation of the
 * solve (its null-space projections among them), then the clean result. */
static void
test_pcg(sys *s, const char *what, int precond)
{
	size_t nc = s->ps.n;
	double *b = malloc(nc * sizeof *b), *ref = malloc(nc * sizeof *ref);
	double *x = malloc(nc * sizeof *x), rem;
	pcg_opts o = {precond, 1e-8, 200};
	pcg_stats st_ref, st;
	slc_err err;
	tally t = {0};
	int n;

	psys_rhs(&s->ps, s->u[0], s->u[1], s->u[2], s->us, b, &rem, &err);
	CHECK(pcg_solve(&s->ps, b, ref, &o, &st_ref, &err) == 0 && st_ref.converged,
	      "%s, precond %d: solved without the hook in %d iterations", what, precond,
	      st_ref.iters);
	for (n = 1; n < MAX_ALLOCS; n++) {
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = pcg_solve(&s->ps, b, x, &o, &st, &err);
		slc_alloc_fail_after(0);
		if (rc == 0)
			break;
		tally_fail(&t, n, rc, &err);
	}
	CHECK(n < MAX_ALLOCS && t.saw_null >= 3,
	      "%s, precond %d: pcg_solve returns -1 at each of its %d allocations, %d of them "
	      "psys_null's, then 0", what, precond, t.fails, t.saw_null);
	CHECK(!t.bad, "%s, precond %d: every pcg_solve failure says out of memory "
	      "(%d do not; first %s)", what, precond, t.bad, t.first_bad);
	CHECK(!memcmp(x, ref, nc * sizeof *x) && st.iters == st_ref.iters &&
	      st.residual == st_ref.residual && st.converged,
	      "%s, precond %d: after the failures, x is that of a clean solve, bit for bit",
	      what, precond);
	free(b);
	free(ref);
	free(x);
}

/* A frame of an n^3 box of smoke: u, v, w and the scene. */
static void
frame_make(slc_frame *F, int n)
{
	static const char *const name[3] = {"u", "v", "w"};
	double o[3] = {0, 0, 0};
	slc_err err;

	slc_frame_init(F);
	for (int a = 0; a < 3; a++) {
		field f;
		slc_rec r;
		field_alloc(&f, n, n, n, SLC_FACE_X + a, o, 1.0 / n, &err);
		for (size_t q = 0; q < field_count(&f); q++)
			f.a[q] = (float)sin(0.7 * (double)q + a);
		slc_rec_init(&r, SLC_GRID, name[a]);
		field_to_rec(&f, &r, name[a], 0, &err);
		slc_frame_put(F, &r, &err);
		field_free(&f);
	}
	slc_rec *scene = slc_frame_add(F, SLC_META, "scene", &err);
	slc_meta_set(scene, "dt", "0.04", &err);
}

/* project_stage_solve passes psys_rhs's and psys_null's failures on; a
 * failed solve leaves the velocity records as they were. */
static void
test_stage(void)
{
	project_opts o = {PCG_MG, 0, PS_BC_WALL, 1e-8, 200, 1000, NAN};
	slc_frame F0, F;
	project_stage S;
	project_stats st;
	slc_err err;
	tally t = {0};
	int n, touched = 0;

	frame_make(&F0, 8);
	frame_make(&F, 8);
	float *orig[3];
	size_t bytes[3];
	for (int a = 0; a < 3; a++) {
		bytes[a] = (size_t)F.r[a]->grid.ni * F.r[a]->grid.nj * F.r[a]->grid.nk *
			   sizeof(float);
		orig[a] = malloc(bytes[a]);
		memcpy(orig[a], F.r[a]->chan[0].data, bytes[a]);
	}
	CHECK(project_stage_load(&S, &F0, &o, NULL, &err) == 0 &&
	      project_stage_solve(&S, &st, NULL, &err) == 0 && st.nenclosed == 1,
	      "stage: solved without the hook");
	project_stage_free(&S);
	for (n = 1; n < MAX_ALLOCS; n++) {
		if (project_stage_load(&S, &F, &o, NULL, &err))
			break;
		strcpy(err.msg, "");
		slc_alloc_fail_after(n);
		int rc = project_stage_solve(&S, &st, NULL, &err);
		slc_alloc_fail_after(0);
		project_stage_free(&S);
		if (rc == 0)
			break;
		tally_fail(&t, n, rc, &err);
		for (int a = 0; a < 3; a++)
			touched += memcmp(F.r[a]->chan[0].data, orig[a], bytes[a]) != 0;
	}
	CHECK(n < MAX_ALLOCS && t.saw_rhs > 0 && t.saw_null > 0,
	      "stage: project_stage_solve returns -1 at each of its %d allocations, "
	      "psys_rhs's (%d) and psys_null's (%d) among them, then 0", t.fails, t.saw_rhs,
	      t.saw_null);
	CHECK(!t.bad, "stage: every failure says out of memory (%d do not; first %s)", t.bad,
	      t.first_bad);
	CHECK(!touched, "stage: a failed solve leaves the velocity records as they were");
	int same = 1;
	for (int a = 0; a < 3; a++) {
		same &= !memcmp(F.r[a]->chan[0].data, F0.r[a]->chan[0].data, bytes[a]);
		free(orig[a]);
	}
	CHECK(same, "stage: after the failures, the velocity is that of a clean solve, "
	      "bit for bit");
	slc_frame_free(&F0);
	slc_frame_free(&F);
}

int
main(void)
{
	sys s;

	sys_make(&s, 8, 8, 8, 0);
	test_init(&s, "one region");
	test_rhs(&s, "one region", 1);
	test_null(&s, "one region");
	test_pcg(&s, "one region", PCG_MG);
	test_pcg(&s, "one region", PCG_MIC0);
	sys_free(&s);

	sys_make(&s, PS_PART_REGIONS + 2, 6, 5, 1);
	test_init(&s, "slabs");
	test_rhs(&s, "slabs", PS_PART_REGIONS + 2);
	test_null(&s, "slabs");
	test_pcg(&s, "slabs", PCG_MG);
	sys_free(&s);

	test_stage();
	return ctest_done();
}
