/* test_project_frames: frames for tests/project.bats, and checks of the
 * rigid-body record (lib/fluid/rigid.c).
 *
 *   test_project_frames KIND FILE [N]   write a frame of N^3 cells (16):
 *     box    closed box of smoke around a resting ball, random velocity,
 *            plus a 'density' record and a 'note' mesh to pass through
 *     tank   water (phi) in a box tilted 30 degrees (solid), at rest plus
 *            one step of gravity (scene dt 1/60)
 *     rigid  the tank with a ball of density 0.1 (rigid, rigid_phi)
 *     nan    the box with a NaN in v
 *     inflow the box with u = 1 m/s on its x = 0 face
 *   test_project_frames                  TAP checks of rigid_read/write
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "core/meta.h"
#include "fluid/rigid.h"
#include "core/slc.h"

static unsigned long rng = 99;
static double
urand(void)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static double
tilted(const double p0[3])
{
	double p[3] = {p0[0] - .5, p0[1] - .5, p0[2] - .5}, c = cos(M_PI / 6), s = sin(M_PI / 6);
	double r[3] = {c * p[0] + s * p[1], -s * p[0] + c * p[1], p[2]}, h = 0.33;
	double out = 0, in = -1e30;
	for (int a = 0; a < 3; a++) {
		double q = fabs(r[a]) - h;
		out += q > 0 ? q * q : 0;
		in = q > in ? q : in;
	}
	return -(sqrt(out) + (in < 0 ? in : 0));
}

static void
add_rigid(slc_rec *r, int nb, const double *com, double mass, double I)
{
	slc_err err;
	slc_rec_init(r, SLC_PARTICLES, "rigid");
	double *P = slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, nb, &err);
	double *m = slc_rec_add(r, "mass", SLC_F64, 1, SLC_POINT, nb, &err);
	double *in = slc_rec_add(r, "inertia", SLC_F64, 9, SLC_POINT, nb, &err);
	slc_rec_add(r, "v", SLC_F32, 3, SLC_POINT, nb, &err);
	slc_rec_add(r, "omega", SLC_F64, 3, SLC_POINT, nb, &err);
	float *id = slc_rec_add(r, "orient", SLC_F32, 4, SLC_POINT, nb, &err);
	for (int b = 0; b < nb; b++) {
		memcpy(P + 3 * b, com + 3 * b, 3 * sizeof *P);
		m[b] = mass;
		in[9 * b] = in[9 * b + 4] = in[9 * b + 8] = I;
		id[4 * b + 3] = 1;
	}
}

static int
gen(const char *kind, const char *path, int n)
{
	slc_err err;
	slc_rec sc, u[3], solid, phi, dens, rig, rphi, note;
	const char *vn[3] = {"u", "v", "w"};
	double dx = 1.0 / n, dt = 1.0 / 60;
	int inflow = strcmp(kind, "inflow") == 0;
	int box = strcmp(kind, "box") == 0 || strcmp(kind, "nan") == 0 || inflow;
	int rigid = strcmp(kind, "rigid") == 0;
	FILE *f = fopen(path, "wb");
	if (!f)
		return 2;
	slc_meta_init(&sc, "scene", &err);
	slc_meta_set(&sc, "frame", "7", &err);
	slc_meta_set(&sc, "dt", "0.0166666666667", &err);
	slc_meta_set(&sc, "gravity", "0,-9.81,0", &err);
	slc_grid gc = {n, n, n, SLC_CELL, {0, 0, 0}, dx};
	float *so = slc_grid_new(&solid, "solid", &gc, 1, &err);
	float *ph = box ? NULL : slc_grid_new(&phi, "phi", &gc, 1, &err);
	float *de = slc_grid_new(&dens, "density", &gc, 1, &err);
	float *rp = rigid ? slc_grid_new(&rphi, "rigid_phi", &gc, 1, &err) : NULL;
	double ball[3] = {0.5, 0.45, 0.5}, R = 0.15;
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double x[3] = {(i + .5) * dx, (j + .5) * dx, (k + .5) * dx};
				size_t c = (size_t)i + (size_t)n * ((size_t)j + (size_t)n * k);
				double d = sqrt((x[0] - ball[0]) * (x[0] - ball[0]) +
						(x[1] - ball[1]) * (x[1] - ball[1]) +
						(x[2] - ball[2]) * (x[2] - ball[2])) - R;
				so[c] = (float)(box ? d : tilted(x));
				if (ph)
					ph[c] = (float)(x[1] - 0.53);
				if (rp)
					rp[c] = (float)d;
				de[c] = (float)(x[0] * x[1]);
			}
	for (int a = 0; a < 3; a++) {
		slc_grid g = {n + (a == 0), n + (a == 1), n + (a == 2), SLC_FACE_X + a, {0, 0, 0}, dx};
		float *v = slc_grid_new(&u[a], vn[a], &g, 1, &err);
		for (int k = 0; k < g.nk; k++)
			for (int j = 0; j < g.nj; j++)
				for (int i = 0; i < g.ni; i++) {
					int q[3] = {i, j, k};
					size_t c = (size_t)i + (size_t)g.ni * ((size_t)j + (size_t)g.nj * k);
					int wall = q[a] == 0 || q[a] == n;
					v[c] = wall ? 0 : box ? (float)urand() : a == 1 ? (float)(-9.81 * dt) : 0;
					if (inflow && a == 0 && i == 0)
						v[c] = 1;
				}
		if (a == 1 && strcmp(kind, "nan") == 0)
			v[n * n + 3] = NAN;
	}
	slc_rec_init(&note, SLC_MESH, "note");
	float *P = slc_rec_add(&note, "P", SLC_F32, 3, SLC_POINT, 3, &err);
	uint32_t *tri = slc_rec_add(&note, "tri", SLC_U32, 3, SLC_PRIM, 1, &err);
	P[3] = 1, P[7] = 1, tri[1] = 1, tri[2] = 2;
	if (rigid) {
		/* density 0.1 of water's: m = 0.1 * 1000 * 4/3 pi R^3, I = 2/5 m R^2 */
		double m = 100 * 4.0 / 3 * M_PI * R * R * R;
		add_rigid(&rig, 1, ball, m, 0.4 * m * R * R);
	}
	slc_writer *w = slc_writer_open(f, 0, &err);
	int bad = !w || slc_write(w, &sc, &err) || slc_write(w, &note, &err);
	for (int a = 0; a < 3; a++)
		bad = bad || slc_write(w, &u[a], &err);
	bad = bad || slc_write(w, &solid, &err) || slc_write(w, &dens, &err);
	if (ph)
		bad = bad || slc_write(w, &phi, &err);
	if (rigid)
		bad = bad || slc_write(w, &rig, &err) || slc_write(w, &rphi, &err);
	bad = bad || slc_writer_close(w, &err);
	fclose(f);
	return bad ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 3)
		return gen(argv[1], argv[2], argc > 3 ? atoi(argv[3]) : 16);

	slc_rec r;
	slc_err err;
	ps_body *b;
	int nb;
	double com[6] = {1, 2, 3, 4, 5, 6};
	add_rigid(&r, 2, com, 2.5, 0.5);
	CHECK(rigid_read(&r, &b, &nb, &err) == 0 && nb == 2, "two bodies read");
	CHECK(b[1].com[2] == 6 && b[1].mass == 2.5 && b[1].inertia[4] == 0.5 &&
	      b[1].inertia[1] == 0, "centre, mass and inertia of body 1");
	b[1].V[1] = 3, b[1].V[5] = -2;
	CHECK(rigid_write(&r, b, nb, &err) == 0 &&
	      ((float *)slc_rec_find(&r, "v")->data)[4] == 3 &&
	      ((double *)slc_rec_find(&r, "omega")->data)[5] == -2,
	      "velocities written back in the channels' types");
	free(b);
	((double *)slc_rec_find(&r, "mass")->data)[0] = 0;
	CHECK(rigid_read(&r, &b, &nb, &err) == -1 && strstr(err.msg, "body 0"),
	      "zero mass refused: %s", err.msg);
	slc_rec_remove(&r, "inertia");
	CHECK(rigid_read(&r, &b, &nb, &err) == -1 && strstr(err.msg, "inertia"),
	      "missing inertia refused: %s", err.msg);
	slc_rec_free(&r);
	return ctest_done();
}
