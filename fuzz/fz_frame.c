/* fz_frame.c: bytes to choices, choices to a valid frame (fz_frame.h). */
#define _GNU_SOURCE
#include "fz_frame.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"

#define CELLS_MAX 6             /* cells per axis: a frame steps in ms */
#define MESH_RAND_MAX 16        /* points and triangles of a loose mesh */
#define PARTICLES_MAX 32
#define STRANDS_MAX 4
#define STRAND_POINTS_MAX 6
#define BODIES_MAX 2
#define SKIN_BONES_MAX 2        /* bones of a skin's skeleton */

void
fz_init(fz *z, const uint8_t *data, size_t size)
{
	z->p = data;
	z->n = size;
}

unsigned
fz_byte(fz *z)
{
	if (!z->n)
		return 0;
	z->n--;
	return *z->p++;
}

unsigned
fz_below(fz *z, unsigned n)
{
	unsigned v = fz_byte(z);

	if (n > 256)
		v |= fz_byte(z) << 8;
	return n ? v % n : 0;
}

double
fz_real(fz *z, double lo, double hi)
{
	unsigned v = fz_byte(z) | fz_byte(z) << 8;

	return lo + (hi - lo) * (double)v / 65535.0;
}

double
fz_pick(fz *z, const double *list, unsigned n)
{
	return list[fz_below(z, n)];
}

double
fz_scale(fz *z)
{
	static const double s[] = { 0, 1, 1e-3, 0.1, 10, 1e-6, 1e3, 0.5, 2,
				    1e-2, 1e30, 3e38 };

	return fz_pick(z, s, sizeof s / sizeof *s);
}

double
fz_opt(fz *z, int nan_ok)
{
	double v;

	if (nan_ok && fz_byte(z) < 128)
		return NAN;
	v = fz_scale(z) * fz_real(z, 0, 2);
	return fz_byte(z) & 1 ? -v : v;
}

/* A double stored into a float channel: out of range becomes +-Inf, as a
 * writer clamping it would (a plain conversion is undefined). */
static float
f32(double v)
{
	if (v > FLT_MAX)
		return INFINITY;
	if (v < -FLT_MAX)
		return -INFINITY;
	return (float)v;
}

/* A value that is no ordinary sample. */
static double
special(fz *z)
{
	static const double s[] = { NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX,
				    1e-45, -1e-45, FLT_MIN, 0, -0.0, 1e30, -1e30,
				    1e300, 1e-300 };

	return s[fz_below(z, sizeof s / sizeof *s)];
}

/* --- the frame being built ------------------------------------------- */

typedef struct build {
	fz *z;
	slc_frame F;            /* the records before the stream */
	slc_grid cells;         /* the cell placement every grid is near */
	double lo[3], ext[3];   /* the box of the cells, metres */
	slc_err err;
} build;

/* A point near the box: inside it mostly, up to a quarter out. */
static void
point(build *b, double x[3])
{
	for (int a = 0; a < 3; a++)
		x[a] = b->lo[a] + b->ext[a] * fz_real(b->z, -0.25, 1.25);
}

/* Overwrite a few of the n*ncomp values of a with special values: for
 * about one record in eight. */
static void
spoil_f32(build *b, float *a, size_t n)
{
	if (!n || fz_byte(b->z) < 224)
		return;
	for (unsigned k = fz_below(b->z, 4) + 1; k; k--)
		a[fz_below(b->z, 65536) % n] = f32(special(b->z));
}

static void
spoil_f64(build *b, double *a, size_t n)
{
	if (!n || fz_byte(b->z) < 224)
		return;
	for (unsigned k = fz_below(b->z, 4) + 1; k; k--)
		a[fz_below(b->z, 65536) % n] = special(b->z);
}

/* The cell placement: 1..6 cells an axis, a cell size and an origin. */
static void
place(build *b)
{
	static const double dx[] = { 0.1, 1, 0.25, 0.01, 1e-3, 1e-6, 1e3, 1e-30, 1e30 };
	static const double org[] = { 0, -0.5, 1, -3, 1e6, 1e-7, -1e20 };
	fz *z = b->z;
	slc_grid *g = &b->cells;

	g->ni = (int32_t)fz_below(z, CELLS_MAX) + 1;
	g->nj = (int32_t)fz_below(z, CELLS_MAX) + 1;
	g->nk = (int32_t)fz_below(z, CELLS_MAX) + 1;
	g->stagger = SLC_CELL;
	g->dx = fz_pick(z, dx, sizeof dx / sizeof *dx);
	if (fz_byte(z) >= 192)
		g->dx *= fz_real(z, 0.5, 2);
	for (int a = 0; a < 3; a++) {
		g->origin[a] = fz_pick(z, org, sizeof org / sizeof *org);
		b->lo[a] = g->origin[a];
	}
	b->ext[0] = g->ni * g->dx;
	b->ext[1] = g->nj * g->dx;
	b->ext[2] = g->nk * g->dx;
}

/* Sample dim a (0 i, 1 j, 2 k) of g. */
static int32_t *
dim(slc_grid *g, unsigned a)
{
	return a == 0 ? &g->ni : a == 1 ? &g->nj : &g->nk;
}

/* The samples of a grid of this stagger on the cells, now and then
 * placed a little off (a sample more, another stagger, dx or origin
 * moved): what a stage must notice or tolerate. */
static void
grid_of(build *b, uint32_t stagger, slc_grid *g)
{
	*g = b->cells;
	g->stagger = stagger;
	g->ni += stagger == SLC_FACE_X || stagger == SLC_NODE;
	g->nj += stagger == SLC_FACE_Y || stagger == SLC_NODE;
	g->nk += stagger == SLC_FACE_Z || stagger == SLC_NODE;
	if (fz_byte(b->z) < 240)
		return;
	switch (fz_below(b->z, 6)) {
	case 0:
		(*dim(g, fz_below(b->z, 3)))++;
		break;
	case 1: {
		int32_t *d = dim(g, fz_below(b->z, 3));
		if (*d > 1)
			(*d)--;
		break;
	}
	case 2:
		g->stagger = fz_below(b->z, SLC_STAGGER_COUNT);
		break;
	case 3:
		g->dx *= 2;
		break;
	case 4:
		g->origin[fz_below(b->z, 3)] += 0.5 * g->dx;
		break;
	default:
		g->origin[fz_below(b->z, 3)] += 1e-12 * g->dx;
		break;
	}
}

/* Fill the n samples of a (placed by g) as a scalar field: a sphere or
 * plane distance (a level set), a constant, or noise, in a chosen scale. */
static void
scalar(build *b, float *a, const slc_grid *g, size_t n)
{
	fz *z = b->z;
	double c[3], r, nrm[3], s, x[3], off[3];
	unsigned mode = fz_below(z, 4);
	size_t q = 0;

	for (int e = 0; e < 3; e++)
		off[e] = (g->stagger == SLC_NODE || g->stagger == SLC_FACE_X + (uint32_t)e) ? 0 : 0.5;
	point(b, c);
	r = fz_real(z, 0, 0.6) * fmax(b->ext[0], fmax(b->ext[1], b->ext[2]));
	for (int e = 0; e < 3; e++)
		nrm[e] = fz_real(z, -1, 1);
	s = mode >= 2 ? fz_scale(z) * (fz_byte(z) & 1 ? -1 : 1) : 1;
	for (int32_t k = 0; k < g->nk; k++)
		for (int32_t j = 0; j < g->nj; j++)
			for (int32_t i = 0; i < g->ni; i++, q++) {
				double d = 0;

				x[0] = g->origin[0] + g->dx * (i + off[0]);
				x[1] = g->origin[1] + g->dx * (j + off[1]);
				x[2] = g->origin[2] + g->dx * (k + off[2]);
				if (mode == 0) {
					for (int e = 0; e < 3; e++)
						d += (x[e] - c[e]) * (x[e] - c[e]);
					d = sqrt(d) - r;
				} else if (mode == 1) {
					for (int e = 0; e < 3; e++)
						d += nrm[e] * (x[e] - c[e]);
				} else if (mode == 2) {
					d = s;
				} else {
					d = s * ((double)fz_byte(z) - 128) / 128;
				}
				a[q] = f32(d);
			}
	spoil_f32(b, a, n);
}

/* A one-channel f32 grid record of this name and stagger: a scalar. */
static slc_rec *
grid_rec(build *b, const char *name, uint32_t stagger)
{
	slc_rec *r = slc_frame_add(&b->F, SLC_GRID, name, &b->err);
	slc_grid g;
	size_t n;
	float *a;

	if (!r)
		return NULL;
	grid_of(b, stagger, &g);
	if (slc_grid_count(&g, &n) || !(a = slc_grid_new(r, name, &g, 1, &b->err)))
		return r;
	scalar(b, a, &g, n);
	r->time = fz_byte(b->z) < 240 ? 0 : fz_opt(b->z, 0);
	return r;
}

/* A velocity sample set: constant, a rotation or noise, in a scale. */
static void
velocity(build *b, float *a, size_t n, size_t ncomp)
{
	fz *z = b->z;
	unsigned mode = fz_below(z, 3);
	double s = fz_scale(z), c[3];

	for (int e = 0; e < 3; e++)
		c[e] = fz_real(z, -1, 1);
	for (size_t q = 0; q < n * ncomp; q++) {
		double v = mode == 0 ? c[q % ncomp % 3] :
			   mode == 1 ? c[0] * sin((double)q) + c[1] * cos((double)q / 3) :
			   ((double)fz_byte(z) - 128) / 128;
		a[q] = f32(s * v);
	}
	spoil_f32(b, a, n * ncomp);
}

static void
mac(build *b)
{
	static const char *const name[3] = { "u", "v", "w" };

	for (int a = 0; a < 3; a++) {
		slc_rec *r;
		slc_grid g;
		size_t n;
		float *d;

		if (fz_byte(b->z) < 16)
			continue;
		if (!(r = slc_frame_add(&b->F, SLC_GRID, name[a], &b->err)))
			return;
		grid_of(b, SLC_FACE_X + (uint32_t)a, &g);
		if (slc_grid_count(&g, &n) || !(d = slc_grid_new(r, name[a], &g, 1, &b->err)))
			continue;
		velocity(b, d, n, 1);
	}
}

/* A cell grid of f32 x3 (solid_vel), or of ncomp channels (rigid_phi). */
static void
vec_grid(build *b, const char *name)
{
	slc_rec *r = slc_frame_add(&b->F, SLC_GRID, name, &b->err);
	slc_grid g;
	size_t n;
	float *d;

	if (!r)
		return;
	grid_of(b, SLC_CELL, &g);
	if (slc_grid_count(&g, &n) || !(d = slc_grid_new(r, name, &g, 3, &b->err)))
		return;
	velocity(b, d, n, 3);
}

/* n points, f32 x3 near the box (or f64 now and then) as channel P. */
static int
points(build *b, slc_rec *r, size_t n)
{
	double x[3];

	if (fz_byte(b->z) >= 224) {
		double *P = slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, n, &b->err);
		if (!P)
			return -1;
		for (size_t p = 0; p < n; p++)
			point(b, P + 3 * p);
		spoil_f64(b, P, 3 * n);
		return 0;
	}
	float *P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, n, &b->err);
	if (!P)
		return -1;
	for (size_t p = 0; p < n; p++) {
		point(b, x);
		for (int a = 0; a < 3; a++)
			P[3 * p + a] = f32(x[a]);
	}
	spoil_f32(b, P, 3 * n);
	return 0;
}

/* Optional per-point channel of ncomp floats: a velocity-like vector,
 * positions near the box (rest, goal) or a positive amount. */
enum { CH_VEC, CH_POS, CH_AMOUNT };

static void
point_chan(build *b, slc_rec *r, const char *name, uint32_t ncomp, size_t n, int what)
{
	float *d;
	double x[3], s;

	if (fz_byte(b->z) < 128)
		return;
	if (!(d = slc_rec_add(r, name, SLC_F32, ncomp, SLC_POINT, n, &b->err)))
		return;
	if (what == CH_VEC) {
		velocity(b, d, n, ncomp);
		return;
	}
	s = fz_scale(b->z);
	for (size_t p = 0; p < n; p++) {
		if (what == CH_POS) {
			point(b, x);
			for (uint32_t a = 0; a < ncomp; a++)
				d[ncomp * p + a] = f32(x[a]);
		} else {
			for (uint32_t a = 0; a < ncomp; a++)
				d[ncomp * p + a] = f32(s * fz_real(b->z, 0, 1));
		}
	}
	spoil_f32(b, d, n * ncomp);
}

/* A mesh record: a sheet of (2..5)^2 points, a closed tetrahedron or
 * octahedron, loose points and triangles (any indices in range, repeats
 * and slivers included), or points without triangles. */
static slc_rec *
mesh(build *b, const char *name)
{
	static const uint32_t tet[] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
	static const uint32_t oct[] = { 0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
					2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5 };
	static const double octp[] = { 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1 };
	static const double tetp[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	fz *z = b->z;
	slc_rec *r = slc_frame_add(&b->F, SLC_MESH, name, &b->err);
	unsigned mode = fz_below(z, 4), nx = 0, ny = 0;
	size_t np, nt;
	uint32_t *tri;

	if (!r)
		return NULL;
	switch (mode) {
	case 0:
		nx = fz_below(z, 4) + 2;
		ny = fz_below(z, 4) + 2;
		np = (size_t)nx * ny;
		nt = 2 * (size_t)(nx - 1) * (ny - 1);
		break;
	case 1:
		np = fz_byte(z) & 1 ? 6 : 4;
		nt = np == 6 ? 8 : 4;
		break;
	case 2:
		np = fz_below(z, MESH_RAND_MAX + 1);
		nt = np ? fz_below(z, MESH_RAND_MAX + 1) : 0;
		break;
	default:
		np = fz_below(z, MESH_RAND_MAX) + 1;
		nt = 0;
		break;
	}
	if (mode == 2 || mode == 3) {
		if (points(b, r, np))
			return r;
	} else {
		double c[3], h = fz_scale(z), u[3], v[3];
		float *P = slc_rec_add(r, "P", SLC_F32, 3, SLC_POINT, np, &b->err);

		if (!P)
			return r;
		point(b, c);
		for (int a = 0; a < 3; a++) {
			u[a] = fz_real(z, -1, 1);
			v[a] = fz_real(z, -1, 1);
		}
		for (size_t p = 0; p < np; p++)
			for (int a = 0; a < 3; a++) {
				double x = mode == 1 ? (np == 6 ? octp : tetp)[3 * p + (size_t)a] :
					   u[a] * (double)(p % nx) + v[a] * (double)(p / nx);
				P[3 * p + a] = f32(c[a] + h * x + (fz_byte(z) >= 240 ? h * fz_real(z, -0.3, 0.3) : 0));
			}
		spoil_f32(b, P, 3 * np);
	}
	if (!(tri = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, nt, &b->err)))
		return r;
	if (mode == 0) {
		for (size_t t = 0, j = 0; j + 1 < ny; j++)
			for (size_t i = 0; i + 1 < nx; i++, t += 2) {
				uint32_t a = (uint32_t)(i + nx * j), c = a + nx;
				tri[3 * t] = a, tri[3 * t + 1] = a + 1, tri[3 * t + 2] = c + 1;
				tri[3 * t + 3] = a, tri[3 * t + 4] = c + 1, tri[3 * t + 5] = c;
			}
	} else if (mode == 1) {
		memcpy(tri, np == 6 ? oct : tet, 3 * nt * sizeof *tri);
	} else {
		for (size_t q = 0; q < 3 * nt; q++)
			tri[q] = fz_below(z, (unsigned)np);
	}
	return r;
}

/* A particles record with P, and radius and v now and then. */
static slc_rec *
particles(build *b, const char *name, int radius, int vel)
{
	slc_rec *r = slc_frame_add(&b->F, SLC_PARTICLES, name, &b->err);
	size_t n = fz_below(b->z, PARTICLES_MAX + 1);

	if (!r || points(b, r, n))
		return r;
	if (radius || fz_byte(b->z) >= 192)
		point_chan(b, r, "radius", 1, n, CH_AMOUNT);
	if (vel || fz_byte(b->z) >= 192)
		point_chan(b, r, "v", 3, n, CH_VEC);
	return r;
}

/* The particle records of a particle level set and its spray, with what
 * liquid/pls.c and spray.c read (P, radius; spray v, radius, mass). */
static void
liquid(build *b)
{
	static const char *const name[3] = { "pls_pos", "pls_neg", "spray" };

	for (int q = 0; q < 3; q++) {
		slc_rec *r;
		size_t n;

		if (fz_byte(b->z) < 160)
			continue;
		if (!(r = slc_frame_add(&b->F, SLC_PARTICLES, name[q], &b->err)))
			return;
		n = fz_below(b->z, PARTICLES_MAX + 1);
		if (points(b, r, n))
			continue;
		if (fz_byte(b->z) >= 16)
			point_chan(b, r, "radius", 1, n, CH_AMOUNT);
		if (q == 2) {
			point_chan(b, r, "v", 3, n, CH_VEC);
			point_chan(b, r, "mass", 1, n, CH_AMOUNT);
		}
	}
}

static slc_rec *
strands(build *b, const char *name)
{
	slc_rec *r = slc_frame_add(&b->F, SLC_STRANDS, name, &b->err);
	unsigned ns = fz_below(b->z, STRANDS_MAX + 1), len[STRANDS_MAX];
	size_t np = 0;
	uint32_t *off;

	if (!r)
		return NULL;
	for (unsigned s = 0; s < ns; s++)
		np += len[s] = fz_below(b->z, STRAND_POINTS_MAX + 1);
	if (points(b, r, np) ||
	    !(off = slc_rec_add(r, "offset", SLC_U32, 1, SLC_STRAND, ns + 1, &b->err)))
		return NULL;
	for (unsigned s = 0; s < ns; s++)
		off[s + 1] = off[s] + len[s];
	if (fz_byte(b->z) >= 128)
		point_chan(b, r, "radius", 1, np, CH_AMOUNT);
	return r;
}

/* The strands record 'hair' as hairstep reads it: the strands above with
 * v, rest, goal, mass, pinned now and then, and the strand channel
 * kscale.  (Its virt_* channels come from a step: see fuzz_hairstep.c.) */
static void
hair(build *b)
{
	slc_rec *r = strands(b, "hair");
	const slc_chan *P = r ? slc_rec_find(r, "P") : NULL;
	size_t n, ns;
	float *k;

	if (!P)
		return;
	n = P->count;
	ns = slc_rec_find(r, "offset")->count - 1;
	point_chan(b, r, "v", 3, n, CH_VEC);
	point_chan(b, r, "rest", 3, n, CH_POS);
	point_chan(b, r, "goal", 3, n, CH_POS);
	point_chan(b, r, "mass", 1, n, CH_AMOUNT);
	if (fz_byte(b->z) >= 128) {
		uint8_t *pin = slc_rec_add(r, "pinned", SLC_U8, 1, SLC_POINT, n, &b->err);
		for (size_t p = 0; pin && p < n; p++)
			pin[p] = fz_byte(b->z) >= 192;
	}
	if (fz_byte(b->z) >= 128 &&
	    (k = slc_rec_add(r, "kscale", SLC_F32, 1, SLC_STRAND, ns, &b->err))) {
		double s = fz_scale(b->z);
		for (size_t q = 0; q < ns; q++)
			k[q] = f32(s * fz_real(b->z, 0, 1));
		spoil_f32(b, k, ns);
	}
}

/* A character's skin as kdsmbake reads it (kdsm/kdsm_recs.h): the mesh
 * 'body' (most often a closed shape) with rest, v, bone weights bw,
 * adhesion adh and adh_dir now and then, and the meta 'skeleton' of 0..2
 * bones, each a 3x4 matrix near the identity and its time derivative. */
static void
skin(build *b)
{
	fz *z = b->z;
	slc_rec *r = mesh(b, "body"), *sk;
	const slc_chan *P = r ? slc_rec_find(r, "P") : NULL;
	unsigned nb = fz_below(z, SKIN_BONES_MAX + 1);
	char key[32], v[12 * 26];
	size_t n;

	if (!P)
		return;
	n = P->count;
	point_chan(b, r, "rest", 3, n, CH_POS);
	point_chan(b, r, "v", 3, n, CH_VEC);
	point_chan(b, r, "bw", nb ? nb : 1, n, CH_AMOUNT);
	point_chan(b, r, "adh", 1, n, CH_AMOUNT);
	point_chan(b, r, "adh_dir", 3, n, CH_VEC);
	if (fz_byte(z) < 128 || !(sk = slc_frame_add(&b->F, SLC_META, "skeleton", &b->err)) ||
	    slc_meta_init(sk, "skeleton", &b->err))
		return;
	snprintf(v, sizeof v, "%u", nb);
	slc_meta_set(sk, "bones", v, &b->err);
	for (unsigned q = 0; q < nb; q++)
		for (int dot = 0; dot < 2; dot++) {
			size_t at = 0;
			double s = dot ? fz_scale(z) : 1;
			for (int e = 0; e < 12; e++) {
				double m = dot ? s * fz_real(z, -1, 1) :
					   (e % 5 == 0) + (fz_byte(z) >= 192 ? fz_opt(z, 0) : 0);
				at += (size_t)snprintf(v + at, sizeof v - at, "%s%.17g",
						       e ? "," : "", m);
			}
			snprintf(key, sizeof key, dot ? "bone.%u.dot" : "bone.%u", q);
			slc_meta_set(sk, key, v, &b->err);
		}
}

/* Rigid bodies (fluid/rigid.h): P, mass, inertia, v, omega, sometimes
 * scripted; their level sets as rigid_phi on the cells (one channel a
 * body) or rigid_phi0. */
static void
rigid(build *b)
{
	fz *z = b->z;
	slc_rec *r = slc_frame_add(&b->F, SLC_PARTICLES, "rigid", &b->err), *g;
	unsigned nb = fz_below(z, BODIES_MAX + 1);
	double *m, *I;
	slc_grid pl;
	size_t n;

	if (!r || points(b, r, nb) ||
	    !(m = slc_rec_add(r, "mass", SLC_F64, 1, SLC_POINT, nb, &b->err)) ||
	    !(I = slc_rec_add(r, "inertia", SLC_F64, 9, SLC_POINT, nb, &b->err)))
		return;
	for (unsigned q = 0; q < nb; q++) {
		m[q] = fz_scale(z) * fz_real(z, fz_byte(z) < 16 ? -1 : 0, 1);
		for (int a = 0; a < 3; a++)
			I[9 * q + 4 * a] = m[q] * fz_scale(z) * fz_real(z, 0, 1);
		if (fz_byte(z) >= 224)
			I[9 * q + 1] = I[9 * q + 3] = fz_opt(z, 0);
	}
	spoil_f64(b, m, nb);
	spoil_f64(b, I, 9 * (size_t)nb);
	point_chan(b, r, "v", 3, nb, CH_VEC);
	point_chan(b, r, "omega", 3, nb, CH_VEC);
	if (fz_byte(z) >= 224)
		point_chan(b, r, "scripted", 1, nb, CH_AMOUNT);
	if (fz_byte(z) < 32)
		return;
	const char *name = fz_byte(z) < 192 ? "rigid_phi" : "rigid_phi0";
	if (!(g = slc_frame_add(&b->F, SLC_GRID, name, &b->err)))
		return;
	grid_of(b, SLC_CELL, &pl);
	g->grid = pl;
	if (slc_grid_count(&pl, &n))
		return;
	for (unsigned q = 0; q < nb + (fz_byte(z) >= 240); q++) {
		char cn[SLC_NAME_MAX + 1];
		float *a;

		if (q == 0)
			snprintf(cn, sizeof cn, "%s", name);
		else
			snprintf(cn, sizeof cn, "%s.%u", name, q);
		if (!(a = slc_rec_add(g, cn, SLC_F32, 1, SLC_SAMPLE, n, &b->err)))
			return;
		scalar(b, a, &pl, n);
	}
}

/* The scene record: each key there or not, its value a number, or text
 * a reader must refuse or survive. */
static void
scene(build *b)
{
	static const char *const key[] = { "frame", "time", "dt", "gravity", "fps" };
	static const char *const odd[] = { "nan", "inf", "-inf", "", "1e400", "abc",
					   "1,2", "0", "-1", "0x10", "1,2,3,4", " 5",
					   "nan,0,0", "1e-320", "99999999999999999999" };
	fz *z = b->z;
	slc_rec *r = slc_frame_add(&b->F, SLC_META, "scene", &b->err);
	char v[128];

	if (!r || slc_meta_init(r, "scene", &b->err))
		return;
	for (size_t k = 0; k < sizeof key / sizeof *key; k++) {
		unsigned c = fz_byte(z);

		if (c < 48)
			continue;
		if (c >= 240) {
			snprintf(v, sizeof v, "%s", odd[fz_below(z, sizeof odd / sizeof *odd)]);
		} else if (k == 3) {
			snprintf(v, sizeof v, "%.17g,%.17g,%.17g", fz_opt(z, 0), fz_opt(z, 0),
				 fz_opt(z, 0));
		} else if (k == 2) {
			static const double dt[] = { 0.04, 1.0 / 24, 0.01, 1e-3, 1, 1e-6, 0 };
			snprintf(v, sizeof v, "%.17g", fz_pick(z, dt, sizeof dt / sizeof *dt));
		} else if (k == 4) {
			static const double fps[] = { 24, 30, 1, 1000, 0.5, 0, 1e6 };
			snprintf(v, sizeof v, "%.17g", fz_pick(z, fps, sizeof fps / sizeof *fps));
		} else {
			snprintf(v, sizeof v, "%.17g", fz_opt(z, 0));
		}
		slc_meta_set(r, key[k], v, &b->err);
	}
}

static const char *const other_names[] = { "density", "sdf", "speed", "p", "phi",
					    "solid", "cloth", "source", "rest" };

/* With FZ_SHOW set in the environment, the frame a target runs on, for
 * whoever looks into a crash: each record's kind, name, placement and
 * channels, the scene's text. */
static void
show(const slc_frame *F)
{
	for (size_t i = 0; i < F->n; i++) {
		const slc_rec *r = F->r[i];
		const slc_grid *g = &r->grid;

		fprintf(stderr, "fz: %s '%s' t=%g", slc_kind_name(r->kind), r->name, r->time);
		if (r->kind == SLC_GRID)
			fprintf(stderr, " %dx%dx%d %s dx=%g origin=%g,%g,%g", g->ni, g->nj, g->nk,
				slc_stagger_name(g->stagger), g->dx, g->origin[0], g->origin[1],
				g->origin[2]);
		if (r->kind == SLC_META) {
			const slc_chan *t = slc_rec_find(r, "text");
			fprintf(stderr, " [%.*s]", t ? (int)t->count : 0, t ? (const char *)t->data : "");
		}
		for (uint32_t c = 0; c < r->nchan; c++) {
			const slc_chan *ch = &r->chan[c];
			uint64_t nn = 0, ni = 0;

			if (r->kind == SLC_META)
				continue;
			slc_chan_first_nonfinite(ch, &nn, &ni);
			fprintf(stderr, " %s:%s x%u n=%llu", ch->name, slc_type_name(ch->type),
				ch->ncomp, (unsigned long long)ch->count);
			if (nn || ni)
				fprintf(stderr, "(%llu nan %llu inf)", (unsigned long long)nn,
					(unsigned long long)ni);
		}
		fputc('\n', stderr);
	}
}

int
fz_frame(fz *z, unsigned want, slc_frame *F)
{
	static const char *const mesh_names[] = { "body", "tri", "cloth", "sdf", "surface" };
	static const char *const part_names[] = { "spray", "water", "dust", "vortex" };
	build b = { .z = z };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m, *in;
	slc_writer *w;
	slc_reader *rd;
	int rc = -1;

	slc_frame_init(&b.F);
	slc_frame_init(F);
	place(&b);
	if (want & FZ_SCENE && fz_byte(z) >= 16)
		scene(&b);
	if (want & FZ_MAC)
		mac(&b);
	if (want & FZ_SOLID && fz_byte(z) >= 96) {
		grid_rec(&b, "solid", SLC_CELL);
		if (fz_byte(z) >= 128)
			vec_grid(&b, "solid_vel");
		if (fz_byte(z) >= 192)
			grid_rec(&b, "solid_slip", SLC_CELL);
	}
	if (want & FZ_LIQUID && fz_byte(z) >= 96) {
		grid_rec(&b, "phi", SLC_CELL);
		liquid(&b);
	}
	if (want & FZ_SMOKE) {
		if (fz_byte(z) >= 96)
			grid_rec(&b, "density", SLC_CELL);
		if (fz_byte(z) >= 128)
			grid_rec(&b, "temperature", SLC_CELL);
		if (fz_byte(z) >= 128)
			grid_rec(&b, "source", SLC_CELL);
	}
	if (want & FZ_VORTEX && fz_byte(z) >= 160) {
		slc_rec *r = particles(&b, "vortex", 0, 0);
		if (r && slc_rec_find(r, "P"))
			point_chan(&b, r, "omega", 3, slc_rec_find(r, "P")->count, CH_VEC);
	}
	if (want & FZ_RIGID && fz_byte(z) >= 160)
		rigid(&b);
	if (want & FZ_PRESSURE && fz_byte(z) >= 160)
		grid_rec(&b, "p", SLC_CELL);
	if (want & FZ_CLOTH && fz_byte(z) >= 16) {
		slc_rec *r = mesh(&b, "cloth");
		const slc_chan *P = r ? slc_rec_find(r, "P") : NULL;
		if (P) {
			size_t n = P->count;
			point_chan(&b, r, "v", 3, n, CH_VEC);
			point_chan(&b, r, "rest", 3, n, CH_POS);
			point_chan(&b, r, "goal", 3, n, CH_POS);
			point_chan(&b, r, "mass", 1, n, CH_AMOUNT);
			if (fz_byte(z) >= 128) {
				uint8_t *pin = slc_rec_add(r, "pinned", SLC_U8, 1, SLC_POINT, n, &b.err);
				for (size_t p = 0; pin && p < n; p++)
					pin[p] = fz_byte(z) >= 192;
			}
		}
	}
	if (want & FZ_MESHES)
		for (unsigned q = fz_below(z, 3); q; q--) {
			slc_rec *r = mesh(&b, mesh_names[fz_below(z, 5)]);
			const slc_chan *P = r ? slc_rec_find(r, "P") : NULL;
			if (P)
				point_chan(&b, r, "v", 3, P->count, CH_VEC);
		}
	if (want & FZ_PARTICLES)
		for (unsigned q = fz_below(z, 3); q; q--)
			particles(&b, part_names[fz_below(z, 4)], 0, 0);
	if (want & FZ_STRANDS && fz_byte(z) >= 128)
		strands(&b, "hair");
	if (want & FZ_HAIR && fz_byte(z) >= 16)
		hair(&b);
	if (want & FZ_SKIN && fz_byte(z) >= 16)
		skin(&b);
	if (want & FZ_GRIDS)
		for (unsigned q = fz_below(z, 3); q; q--)
			grid_rec(&b, other_names[fz_below(z, sizeof other_names / sizeof *other_names)],
				 fz_below(z, SLC_STAGGER_COUNT));
	/* through a stream, as a tool gets it */
	if (!(m = open_memstream(&buf, &len)) || !(w = slc_writer_open(m, 0, &b.err)))
		abort();
	for (i = 0; i < b.F.n; i++)
		slc_write(w, b.F.r[i], &b.err);  /* refused: left out */
	if (slc_writer_close(w, &b.err) || fclose(m))
		abort();
	slc_frame_free(&b.F);
	if (!(in = fmemopen(buf, len, "rb")))
		abort();
	if ((rd = slc_reader_open(in, &b.err))) {
		rc = slc_frame_read(F, rd, &b.err) || !F->n ? -1 : 0;
		slc_reader_close(rd);
	}
	fclose(in);
	free(buf);
	if (rc)
		slc_frame_free(F);
	else if (getenv("FZ_SHOW"))
		show(F);
	return rc;
}

/* Is every float of every channel of r finite? */
static int
rec_finite(const slc_rec *r)
{
	if (r->kind == SLC_META)
		return 1;
	for (uint32_t c = 0; c < r->nchan; c++)
		if (slc_chan_first_nonfinite(&r->chan[c], NULL, NULL) >= 0)
			return 0;
	return 1;
}

int
fz_frame_finite(const slc_frame *F)
{
	for (size_t i = 0; i < F->n; i++)
		if (!rec_finite(F->r[i]))
			return 0;
	return 1;
}

void
fz_require_finite(const slc_rec *r, const char *stage)
{
	slc_err err;

	if (r->kind == SLC_META || !slc_rec_check_finite(r, -1, &err))
		return;
	fz_bug(stage, err.msg);
}

void
fz_bug(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, detail);
	abort();
}
