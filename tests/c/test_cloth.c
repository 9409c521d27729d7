/* test_cloth.c: cloth topology, springs and Newmark time stepping
 * (selle2008 thesis ch. 5): mesh counts, the altitude spring force is the
 * exact gradient of its energy, and a sheet pinned at two corners comes to
 * rest with its energy decreasing frame by frame; biphasic edges, an
 * inverted or flattened bend recovered by the altitude spring (figure
 * 5.3b), damping along the spring only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cloth.h"
#include "cloth/cloth_vec.h"
#include "ctest.h"

static void
test_topology(void)
{
	double *x, o[3] = {0, 0, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	cloth_mesh m;
	slc_err err;
	int nu = 5, nv = 3;

	CHECK(cloth_sheet(nu, nv, o, eu, ev, 1, 1, &x, &np, &tri, &nt, &err) == 0,
	      "sheet");
	CHECK(cloth_mesh_build(&m, np, nt, tri, &err) == 0, "build");
	size_t ne = (size_t)(nu * (nv + 1) + nv * (nu + 1) + nu * nv);
	CHECK(m.ne == ne, "edges %zu == %zu", m.ne, ne);
	CHECK(m.nb == ne - 2 * (size_t)(nu + nv), "bending pairs %zu", m.nb);
	/* every bending pair: c and d opposite across a,b, in both triangles */
	int ok = 1;
	for (size_t b = 0; b < m.nb; b++) {
		const uint32_t *q = m.bend + 4 * b;
		if (q[2] == q[0] || q[2] == q[1] || q[3] == q[0] || q[3] == q[1] ||
		    q[2] == q[3])
			ok = 0;
	}
	CHECK(ok, "bending pairs are tetrahedra");
	tri[4] = tri[0];
	cloth_mesh_free(&m);
	CHECK(cloth_mesh_build(&m, np, nt, tri, &err) == -1,
	      "degenerate triangle rejected: %s", err.msg);
	tri[4] = (uint32_t)np;
	CHECK(cloth_mesh_build(&m, np, nt, tri, &err) == -1,
	      "index out of range rejected: %s", err.msg);
	free(x);
	free(tri);
}

/* Meshes without springs at some or all points: no triangles, points no
 * triangle uses, one triangle (no bending pair), no points.  Each builds
 * (every point has its diagonal block, once) and falls freely for one
 * frame: y = -g T^2 / 2, v = -g T.  No triangles once overflowed the
 * block column buffer of cloth_sys_build. */
static void
test_degenerate(void)
{
	static const struct {
		const char *what;
		size_t np, nt;
	} mesh[] = {
		{ "no triangles", 9, 0 }, { "unused points", 9, 1 },
		{ "one triangle", 3, 1 }, { "no points", 0, 0 },
	};
	const uint32_t tri[3] = { 0, 1, 2 };
	const double T = 0.1, g = 9.8;

	for (size_t k = 0; k < sizeof mesh / sizeof *mesh; k++) {
		size_t np = mesh[k].np;
		double *x = calloc(3 * np + 1, sizeof *x), *m = calloc(np + 1, sizeof *m);
		cloth_params par;
		cloth c;
		slc_err err;

		for (size_t i = 0; i < np; i++) {
			x[3 * i] = (double)(i % 3);
			x[3 * i + 2] = (double)(i / 3);
			m[i] = 1e-3;
		}
		cloth_params_default(&par);
		par.g[1] = -g;
		int rc = cloth_init(&c, np, mesh[k].nt, tri, x, NULL, NULL, m, &par, &err);
		CHECK(rc == 0, "%s: init (%s)", mesh[k].what, rc ? err.msg : "ok");
		if (rc) {
			free(x);
			free(m);
			continue;
		}
		int diag = c.ms.sys.nnz >= np;
		for (size_t i = 0; i < np; i++)
			diag = diag && c.ms.sys.col[c.ms.sys.dpos[i]] == i;
		CHECK(diag, "%s: %zu blocks, each point's diagonal among them",
		      mesh[k].what, c.ms.sys.nnz);
		rc = cloth_advance(&c, 0, T, 4, NULL, 0, &err);
		double worst = 0;
		for (size_t i = 0; i < np; i++) {
			double dy = fabs(c.x[3 * i + 1] + g * T * T / 2);
			double dv = fabs(c.v[3 * i + 1] + g * T);
			worst = fmax(worst, fmax(dy, dv));
		}
		CHECK(rc == 0 && worst < 1e-9, "%s: falls freely (worst error %.3g)",
		      mesh[k].what, worst);
		cloth_free(&c);
		free(x);
		free(m);
	}
}

/* Energy of the springs of a set at positions x (linearized there). */
static double
energy_at(spring_set *s, const double *x, const double *m)
{
	spring_linearize(s, x, m, 0);
	return spring_energy(s);
}

static void
test_altitude_gradient(void)
{
	/* two triangles (0,1,2), (1,0,3) sharing edge 0-1, bent */
	double xr[12] = {0, 0, 0, 1, 0, 0, 0.4, 0.9, 0, 0.6, -0.8, 0};
	double x[12] = {0, 0, 0, 1, 0.05, 0, 0.35, 0.8, 0.4, 0.7, -0.7, 0.2};
	double m[4] = {1, 1, 1, 1};
	uint32_t tri[6] = {0, 1, 2, 1, 0, 3};
	cloth_mesh mesh;
	spring_set s;
	spring_params p;
	slc_err err;
	double F[12] = {0}, maxe = 0, maxf = 0;

	spring_params_default(&p);
	CHECK(cloth_mesh_build(&mesh, 4, 2, tri, &err) == 0, "pair mesh");
	CHECK(spring_build(&s, &mesh, xr, &p, &err) == 0, "springs");
	CHECK(s.nalt == 1 && s.nbend == 1 && s.nedge == 5, "5 edges, 1 bend, "
	      "1 altitude");
	spring_linearize(&s, x, m, 0);
	spring_force(&s, F);
	for (int k = 0; k < 12; k++) {
		double e = 1e-6, xp[12], xm[12];
		memcpy(xp, x, sizeof xp);
		memcpy(xm, x, sizeof xm);
		xp[k] += e;
		xm[k] -= e;
		double g = -(energy_at(&s, xp, m) - energy_at(&s, xm, m)) / (2 * e);
		if (fabs(g - F[k]) > maxe)
			maxe = fabs(g - F[k]);
		if (fabs(F[k]) > maxf)
			maxf = fabs(F[k]);
	}
	CHECK(maxe < 1e-6 * maxf, "spring forces are minus the energy gradient "
	      "(err %.2e of %.2e)", maxe, maxf);
	/* the altitude alone: zero at rest, restoring when flattened */
	spring_linearize(&s, xr, m, 0);
	double fmax = 0;
	for (size_t q = 0; q < s.ns; q++)
		fmax = fmax > fabs(s.fe[q]) ? fmax : fabs(s.fe[q]);
	CHECK(fmax < 1e-12, "no force at rest (%.2e)", fmax);
	spring_free(&s);
	cloth_mesh_free(&mesh);
}

static void
test_pinned_sheet(void)
{
	double *x, o[3] = {0, 0, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	int nu = 10, nv = 10;
	const double L = 0.5, density = 0.1, fps = 24;
	const int frames = 72, steps = 4;
	cloth c;
	cloth_params par;
	slc_err err;

	cloth_sheet(nu, nv, o, eu, ev, L, L, &x, &np, &tri, &nt, &err);
	double *m = calloc(np, sizeof *m);
	for (size_t i = 0; i < np; i++)
		m[i] = density * L * L / (double)np;
	cloth_params_default(&par);
	/* still air: the drag along the normal (§6.6) damps the swing that
	 * springs damped along themselves cannot */
	par.wind_drag = 0.5;
	par.cg_tol = 1e-5;
	CHECK(cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err) == 0,
	      "init");
	double zero[3] = {0, 0, 0};
	cloth_constrain(&c, 0, zero);
	cloth_constrain(&c, (size_t)nu, zero);
	double e0 = cloth_energy(&c), e = e0, emin = e0;
	int mono = 1;
	double worst = 0;
	for (int f = 0; f < frames; f++) {
		cloth_advance(&c, f / fps, 1 / fps, steps, NULL, 0, &err);
		double e1 = cloth_energy(&c);
		/* allowance for the CG tolerance: 1e-7 of m g L */
		if (e1 > e + 1e-7 * density * L * L * 9.8 * L) {
			mono = 0;
			if (e1 - e > worst)
				worst = e1 - e;
		}
		e = e1;
		if (e < emin)
			emin = e;
	}
	double vmax = 0, ymin = 0;
	for (size_t i = 0; i < np; i++) {
		double s = v3norm(c.v + 3 * i);
		vmax = s > vmax ? s : vmax;
		ymin = c.x[3 * i + 1] < ymin ? c.x[3 * i + 1] : ymin;
	}
	CHECK(mono, "energy decreases every frame (worst rise %.3e J)", worst);
	CHECK(e < e0 - 0.1 * density * L * L * 9.8 * L * 0.1,
	      "the sheet fell (energy %.4g -> %.4g J)", e0, e);
	CHECK(ymin < -0.5 * L, "it hangs (lowest point %.3f m)", ymin);
	CHECK(vmax < 5e-3, "at rest after %d frames (max speed %.2e m/s)",
	      frames, vmax);
	cloth_free(&c);
	free(m);
	free(x);
	free(tri);
}

/* §5.5: with the table 6.1 node mass and one time step per frame, the
 * implicit linear springs stay stable and lose energy, where the plain
 * semi-implicit springs blow up. */
static void
test_frame_step(void)
{
	double *x, o[3] = {0, 0, 0}, eu[3] = {1, 0, 0}, ev[3] = {0, 0, 1};
	uint32_t *tri;
	size_t np, nt;
	const int nu = 10, frames = 24;
	const double fps = 24;
	slc_err err;

	cloth_sheet(nu, nu, o, eu, ev, 0.5, 0.5, &x, &np, &tri, &nt, &err);
	double *m = calloc(np, sizeof *m);
	for (size_t i = 0; i < np; i++)
		m[i] = 1e-6;
	for (int imp = 1; imp >= 0; imp--) {
		cloth c;
		cloth_params par;
		cloth_params_default(&par);
		par.implicit_springs = imp;
		par.wind_drag = 0.5;
		cloth_init(&c, np, nt, tri, x, NULL, NULL, m, &par, &err);
		double zero[3] = {0, 0, 0};
		cloth_constrain(&c, 0, zero);
		cloth_constrain(&c, (size_t)nu, zero);
		double e0 = cloth_energy(&c), e = e0, emax = e0;
		for (int f = 0; f < frames; f++) {
			cloth_advance(&c, f / fps, 1 / fps, 1, NULL, 0, &err);
			e = cloth_energy(&c);
			if (!(e <= emax))
				emax = isfinite(e) ? e : INFINITY;
		}
		if (imp)
			CHECK(emax == e0 && e < e0, "one step per frame, implicit "
			      "springs: energy %.3g -> %.3g J, never above the start",
			      e0, e);
		else
			CHECK(!(emax < e0 + 1), "one step per frame, plain "
			      "semi-implicit springs: unstable (energy up to %.3g J)",
			      emax);
		cloth_free(&c);
	}
	free(m);
	free(x);
	free(tri);
}

/* §5.3.2 biphasic springs: under compression an edge spring's stiffness is
 * scaled by compress_scale, under extension it is not. */
static void
test_biphasic(void)
{
	double xr[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, x[9], m[3] = {1, 1, 1};
	uint32_t tri[3] = {0, 1, 2};
	cloth_mesh mesh;
	spring_set s1, s2;
	spring_params p;
	slc_err err;

	CHECK(cloth_mesh_build(&mesh, 3, 1, tri, &err) == 0, "one triangle");
	spring_params_default(&p);
	spring_build(&s1, &mesh, xr, &p, &err);
	p.compress_scale = 0.1;
	spring_build(&s2, &mesh, xr, &p, &err);
	for (int sgn = -1; sgn <= 1; sgn += 2) {
		memcpy(x, xr, sizeof x);
		x[3] = 1 + sgn * 0.2;   /* point 1 along edge 0-1 */
		spring_linearize(&s1, x, m, 0);
		spring_linearize(&s2, x, m, 0);
		int ok = 1;
		double lin = 0, bi = 0;
		for (size_t q = 0; q < s1.nedge; q++) {
			const uint32_t *id = s1.idx + 4 * q;
			double want = s1.l[q] < s1.l0[q] ? 0.1 : 1;
			if (fabs(s2.fe[q] - want * s1.fe[q]) > 1e-12 * fabs(s1.fe[q]))
				ok = 0;
			if (id[0] + id[1] == 1) {
				lin = s1.fe[q];
				bi = s2.fe[q];
			}
		}
		CHECK(ok && lin != 0, "biphasic: edges scaled by 0.1 when "
		      "compressed only (edge 0-1 %s: %.3g vs %.3g N)",
		      sgn < 0 ? "compressed" : "stretched", bi, lin);
	}
	spring_free(&s1);
	spring_free(&s2);
	cloth_mesh_free(&mesh);
}

/* Six times the signed volume of the tetrahedron of a bend pair. */
static double
vol6(const double *x)
{
	double u[3], v[3], w[3], c[3];
	v3sub(x + 3, x, u);
	v3sub(x + 6, x, v);
	v3sub(x + 9, x, w);
	v3cross(u, v, c);
	return v3dot(c, w);
}

/* Thesis figure 5.3(b) on the smallest shell: two triangles bent at a
 * right angle at rest, started flattened (zero height) or inverted (the
 * bend turned inside out), no gravity.  Edge and bending springs alone
 * cannot tell an inverted bend from the rest state (same lengths) and
 * have no force out of a flat one; the altitude spring (§5.3.4) restores
 * the rest bend. */
static void
test_altitude_recovery(void)
{
	double xr[12] = {0, 0, 0, 0, 0, 1, 1, 0, 0.5, 0, 1, 0.5};
	uint32_t tri[6] = {0, 1, 2, 1, 0, 3};
	double m[4] = {1e-3, 1e-3, 1e-3, 1e-3};
	const double v0 = vol6(xr);

	for (int start = 0; start < 2; start++)
		for (int alt = 1; alt >= 0; alt--) {
			double x[12];
			memcpy(x, xr, sizeof x);
			if (start == 0) {
				x[9] = -0.9;    /* flattened: point 3 in the plane y = 0 */
				x[10] = 0;
			} else {
				x[9] = -0.1;    /* inverted: point 3 through the plane */
				x[10] = -1;
			}
			cloth_params par;
			cloth_params_default(&par);
			par.g[1] = 0;
			par.spring.altitude = alt;
			cloth c;
			slc_err err;
			if (cloth_init(&c, 4, 2, tri, x, NULL, xr, m, &par, &err)) {
				CHECK(0, "init: %s", err.msg);
				return;
			}
			double v1 = vol6(c.x);
			for (int f = 0; f < 48; f++)
				cloth_advance(&c, f / 24.0, 1 / 24.0, 8, NULL, 0, &err);
			double v = vol6(c.x);
			const char *what = start ? "inverted" : "flattened";
			if (alt)
				CHECK(v * v0 > 0 && fabs(v / v0 - 1) < 0.2,
				      "altitude springs recover the %s bend (volume "
				      "%.3g -> %.3g, rest %.3g)", what, v1, v, v0);
			else
				CHECK(!(v * v0 > 0 && fabs(v / v0 - 1) < 0.2),
				      "without them the %s bend stays (volume %.3g "
				      "-> %.3g, rest %.3g)", what, v1, v, v0);
			cloth_free(&c);
		}
}

/* §5.3.2: damping acts along the spring only, so a rigid rotation feels
 * none: every spring's damping force vanishes for v = w x x, and a spinning
 * sheet keeps its kinetic energy, while the same speeds as a stretch are
 * damped. */
static void
test_damping_along(void)
{
	const int n = 6;
	double *x, o[3] = {-0.5, 0, -0.5}, eu[3] = {1, 0, 0}, ev[3] = {0, 0.3, 1};
	uint32_t *tri;
	size_t np, nt;
	slc_err err;

	cloth_sheet(n, n, o, eu, ev, 1, 1, &x, &np, &tri, &nt, &err);
	double *m = calloc(np, sizeof *m), *v = calloc(3 * np, sizeof *v);
	double *F = calloc(3 * np, sizeof *F), w[3] = {0.3, 2, -0.5};
	for (size_t i = 0; i < np; i++) {
		m[i] = 1e-3;
		v3cross(w, x + 3 * i, v + 3 * i);
	}
	cloth_params par;
	cloth_params_default(&par);
	par.g[1] = 0;
	cloth c;
	CHECK(cloth_init(&c, np, nt, tri, x, v, NULL, m, &par, &err) == 0,
	      "spinning sheet");
	spring_linearize(&c.ms.spr, c.x, c.m, 0);
	spring_damp_force(&c.ms.spr, v, F);
	double frot = 0, fstr = 0, vmax = 0;
	for (size_t k = 0; k < 3 * np; k++) {
		frot = fmax(frot, fabs(F[k]));
		vmax = fmax(vmax, fabs(v[k]));
	}
	/* the same speeds as a stretch about the centre */
	memset(F, 0, 3 * np * sizeof *F);
	double *vs = calloc(3 * np, sizeof *vs);
	for (size_t k = 0; k < 3 * np; k++)
		vs[k] = 2 * x[k];
	spring_damp_force(&c.ms.spr, vs, F);
	for (size_t k = 0; k < 3 * np; k++)
		fstr = fmax(fstr, fabs(F[k]));
	CHECK(frot < 1e-12 * fstr && fstr > 0, "no damping force in a rigid "
	      "rotation (%.2e N; a stretch %.2e N)", frot, fstr);
	double ke0 = 0, ke = 0;
	for (size_t i = 0; i < np; i++)
		ke0 += 0.5 * m[i] * v3dot(v + 3 * i, v + 3 * i);
	cloth_advance(&c, 0, 1 / 24.0, 8, NULL, 0, &err);
	for (size_t i = 0; i < np; i++)
		ke += 0.5 * m[i] * v3dot(c.v + 3 * i, c.v + 3 * i);
	CHECK(fabs(ke / ke0 - 1) < 0.01, "a spinning sheet keeps its kinetic "
	      "energy over a frame (%.5f of it)", ke / ke0);
	cloth_free(&c);
	cloth_init(&c, np, nt, tri, x, vs, NULL, m, &par, &err);
	double ks0 = 0, ks = 0;
	for (size_t i = 0; i < np; i++)
		ks0 += 0.5 * m[i] * v3dot(vs + 3 * i, vs + 3 * i);
	cloth_advance(&c, 0, 1 / 24.0, 8, NULL, 0, &err);
	for (size_t i = 0; i < np; i++)
		ks += 0.5 * m[i] * v3dot(c.v + 3 * i, c.v + 3 * i);
	CHECK(ks < 0.5 * ks0, "a stretching sheet is damped (%.3g of its "
	      "kinetic energy left)", ks / ks0);
	cloth_free(&c);
	free(x); free(tri); free(m); free(v); free(F); free(vs);
}

int
main(void)
{
	test_topology();
	test_degenerate();
	test_altitude_gradient();
	test_pinned_sheet();
	test_frame_step();
	test_biphasic();
	test_altitude_recovery();
	test_damping_along();
	return ctest_done();
}
