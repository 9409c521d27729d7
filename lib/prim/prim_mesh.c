/* prim_mesh.c: closed procedural meshes (icosphere, box, torus, paddle
 * wheel) and the open cup and tub, outward-oriented (see prim.h). */
#include "prim/prim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- an open-addressing map from 64-bit keys to vertex indices --------- */

typedef struct vmap {
	size_t cap;         /* power of two */
	uint64_t *key;      /* key+1, 0 = empty */
	uint32_t *val;
} vmap;

static int
vmap_init(vmap *h, size_t n, slc_err *err)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	h->cap = cap;
	h->key = slc_calloc(cap, sizeof *h->key, err);
	h->val = h->key ? slc_calloc(cap, sizeof *h->val, err) : NULL;
	if (!h->val) {
		free(h->key);
		return -1;
	}
	return 0;
}

static void
vmap_free(vmap *h)
{
	free(h->key);
	free(h->val);
}

/* Return the slot of key, inserting val if it is absent (*found = 0). */
static uint32_t
vmap_get(vmap *h, uint64_t key, uint32_t val, int *found)
{
	uint64_t x = key * 0x9E3779B97F4A7C15ull;   /* Fibonacci hashing */
	size_t s = (size_t)(x >> 17) & (h->cap - 1);

	while (h->key[s]) {
		if (h->key[s] == key + 1) {
			*found = 1;
			return h->val[s];
		}
		s = (s + 1) & (h->cap - 1);
	}
	h->key[s] = key + 1;
	h->val[s] = val;
	*found = 0;
	return val;
}

void
prim_mesh_free(prim_mesh *m)
{
	free(m->P);
	free(m->tri);
	memset(m, 0, sizeof *m);
}

static int
mesh_alloc(prim_mesh *m, size_t nv, size_t nt, slc_err *err)
{
	size_t n3;

	memset(m, 0, sizeof *m);
	if (nv > UINT32_MAX || slc_mul(nt, 3, &n3))
		return slc_fail(err, "mesh of %zu vertices is too large", nv);
	m->P = slc_calloc(nv, 3 * sizeof *m->P, err);
	m->tri = m->P ? slc_calloc(nt, 3 * sizeof *m->tri, err) : NULL;
	if (!m->tri) {
		prim_mesh_free(m);
		return -1;
	}
	return 0;
}

static void
set_tri(uint32_t *t, size_t at, uint32_t a, uint32_t b, uint32_t c)
{
	t[3 * at] = a;
	t[3 * at + 1] = b;
	t[3 * at + 2] = c;
}

/* --- icosphere --------------------------------------------------------- */

int
prim_icosphere(prim_mesh *m, int subdiv, double radius, const double c[3],
	       slc_err *err)
{
	/* The regular icosahedron: vertices at the cyclic permutations of
	 * (0, +-1, +-t) with t the golden ratio, faces counter-clockwise. */
	static const double ico_t = 1.6180339887498948482;
	static const signed char ico_v[12][3] = {
		{ -1, 2, 0 }, { 1, 2, 0 }, { -1, -2, 0 }, { 1, -2, 0 },
		{ 0, -1, 2 }, { 0, 1, 2 }, { 0, -1, -2 }, { 0, 1, -2 },
		{ 2, 0, -1 }, { 2, 0, 1 }, { -2, 0, -1 }, { -2, 0, 1 } };
	static const unsigned char ico_f[20][3] = {
		{ 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 },
		{ 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
		{ 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 },
		{ 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 } };
	size_t nv = 12, nt = 20, fv, ft, v, t;
	int level, a;

	memset(m, 0, sizeof *m);
	if (subdiv < 0 || subdiv > PRIM_SUBDIV_MAX)
		return slc_fail(err, "subdivision %d, expected 0..%d", subdiv,
				PRIM_SUBDIV_MAX);
	if (!(radius > 0))
		return slc_fail(err, "radius %g, expected > 0", radius);
	fv = 10 * ((size_t)1 << (2 * subdiv)) + 2;
	ft = 20 * ((size_t)1 << (2 * subdiv));
	if (mesh_alloc(m, fv, ft, err))
		return -1;
	for (v = 0; v < 12; v++)
		for (a = 0; a < 3; a++) {
			int q = ico_v[v][a];

			/* code 2 stands for +-t */
			m->P[3 * v + a] = q == 2 ? ico_t : q == -2 ? -ico_t : q;
		}
	for (t = 0; t < 20; t++)
		set_tri(m->tri, t, ico_f[t][0], ico_f[t][1], ico_f[t][2]);
	for (level = 0; level < subdiv; level++) {
		uint32_t *old;
		vmap h;

		old = malloc(nt * 3 * sizeof *old);
		if (!old || vmap_init(&h, nt * 3 / 2, err)) {
			free(old);
			prim_mesh_free(m);
			return old ? -1 : slc_fail(err, "out of memory");
		}
		memcpy(old, m->tri, nt * 3 * sizeof *old);
		for (t = 0; t < nt; t++) {
			uint32_t mid[3], *o = old + 3 * t;

			for (a = 0; a < 3; a++) {
				uint32_t p = o[a], q = o[(a + 1) % 3];
				uint64_t key = p < q ? (uint64_t)p << 32 | q
						     : (uint64_t)q << 32 | p;
				int found;

				mid[a] = vmap_get(&h, key, (uint32_t)nv, &found);
				if (!found) {
					int b;

					for (b = 0; b < 3; b++)
						m->P[3 * nv + b] = 0.5 *
							(m->P[3 * p + b] + m->P[3 * q + b]);
					nv++;
				}
			}
			/* corner triangles and the middle one keep the
			 * orientation of the parent */
			set_tri(m->tri, t, o[0], mid[0], mid[2]);
			set_tri(m->tri, nt + 3 * t, o[1], mid[1], mid[0]);
			set_tri(m->tri, nt + 3 * t + 1, o[2], mid[2], mid[1]);
			set_tri(m->tri, nt + 3 * t + 2, mid[0], mid[1], mid[2]);
		}
		nt *= 4;
		vmap_free(&h);
		free(old);
		/* push onto the unit sphere after each level, so midpoints of
		 * the next level split the spherical triangles evenly */
		for (v = 0; v < nv; v++) {
			double *p = m->P + 3 * v;
			double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);

			p[0] /= l;
			p[1] /= l;
			p[2] /= l;
		}
	}
	m->nv = nv;
	m->nt = nt;
	for (v = 0; v < nv; v++) {
		double *p = m->P + 3 * v;
		double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);

		for (a = 0; a < 3; a++)
			p[a] = c[a] + radius * p[a] / l;
	}
	return 0;
}

/* --- box and open tub --------------------------------------------------- */

/* Where lattice point ijk (0..res[a] along each axis) of a box's surface
 * goes. */
typedef void (*lattice_map)(const void *ctx, const int ijk[3], double p[3]);

/* The surface of the lattice box 0..res[0] x 0..res[1] x 0..res[2], each
 * face a grid of quads split in two triangles, outward for a map that
 * keeps orientation; with open_top the face at ijk[1] = res[1] is left
 * out.  Vertices are welded by their lattice point, so every seam is
 * shared edge by edge and the surface is closed (open: its one boundary
 * is the rim).  res[] must be checked by the caller. */
static int
lattice_surface(prim_mesh *m, const int res[3], int open_top, lattice_map map,
		const void *ctx, slc_err *err)
{
	size_t nv = 0, nt = 0, quads = 0, lat[3];
	int a, s;
	vmap h;

	for (a = 0; a < 3; a++) {
		lat[a] = (size_t)res[a] + 1;
		quads += 2 * (size_t)res[(a + 1) % 3] * (size_t)res[(a + 2) % 3];
	}
	/* every quad has 4 corners: an upper bound on the welded vertices */
	if (mesh_alloc(m, 4 * quads, 2 * quads, err))
		return -1;
	if (vmap_init(&h, 4 * quads, err)) {
		prim_mesh_free(m);
		return -1;
	}
	for (a = 0; a < 3; a++)
		for (s = 0; s < 2; s++) {
			/* tangent axes with e_b x e_e = +e_a; swapped on the
			 * minus side so the normal points out */
			int b = (a + 1 + s) % 3, e = (a + 2 - s) % 3, u, w;

			if (open_top && a == 1 && s == 0)
				continue;
			for (w = 0; w < res[e]; w++)
				for (u = 0; u < res[b]; u++) {
					uint32_t q[4];
					int k;

					for (k = 0; k < 4; k++) {
						int ijk[3], found;
						uint64_t key;

						ijk[a] = s ? 0 : res[a];
						ijk[b] = u + (k == 1 || k == 2);
						ijk[e] = w + (k >= 2);
						key = (uint64_t)ijk[0] + lat[0] *
						      ((uint64_t)ijk[1] + lat[1] * (uint64_t)ijk[2]);
						q[k] = vmap_get(&h, key, (uint32_t)nv, &found);
						if (found)
							continue;
						map(ctx, ijk, m->P + 3 * nv);
						nv++;
					}
					set_tri(m->tri, nt++, q[0], q[1], q[2]);
					set_tri(m->tri, nt++, q[0], q[2], q[3]);
				}
		}
	vmap_free(&h);
	m->nv = nv;
	m->nt = nt;
	return 0;
}

/* The box of prim_box: edges size[], centre c. */
struct box_map { const double *size, *c; const int *res; };

static void
box_point(const void *ctx, const int ijk[3], double p[3])
{
	const struct box_map *b = ctx;

	for (int d = 0; d < 3; d++)
		p[d] = b->c[d] + b->size[d] * ((double)ijk[d] / b->res[d] - 0.5);
}

int
prim_box(prim_mesh *m, const double size[3], const int res[3],
	 const double c[3], slc_err *err)
{
	struct box_map b = { size, c, res };
	int a;

	memset(m, 0, sizeof *m);
	for (a = 0; a < 3; a++) {
		if (!(size[a] > 0))
			return slc_fail(err, "box size %g, expected > 0", size[a]);
		if (res[a] < 1 || res[a] > PRIM_RES_MAX)
			return slc_fail(err, "box resolution %d, expected 1..%d",
					res[a], PRIM_RES_MAX);
	}
	return lattice_surface(m, res, 0, box_point, &b, err);
}

/* The tub of prim_tub: at height fraction t = j / res[1] the section is
 * the rectangle whose half extents go linearly from the bottom's to the
 * rim's. */
struct tub_map { const double *top, *bot, *c; double height; const int *res; };

static void
tub_point(const void *ctx, const int ijk[3], double p[3])
{
	const struct tub_map *b = ctx;
	double t = (double)ijk[1] / b->res[1];
	double hx = 0.5 * (b->bot[0] + t * (b->top[0] - b->bot[0]));
	double hz = 0.5 * (b->bot[1] + t * (b->top[1] - b->bot[1]));

	p[0] = b->c[0] + hx * (2.0 * ijk[0] / b->res[0] - 1);
	p[1] = b->c[1] + b->height * t;
	p[2] = b->c[2] + hz * (2.0 * ijk[2] / b->res[2] - 1);
}

int
prim_tub(prim_mesh *m, const double top[2], const double bot[2], double height,
	 const int res[3], const double c[3], slc_err *err)
{
	struct tub_map b = { top, bot, c, height, res };
	int a;

	memset(m, 0, sizeof *m);
	if (!(top[0] > 0) || !(top[1] > 0) || !(bot[0] > 0) || !(bot[1] > 0) ||
	    !(height > 0))
		return slc_fail(err, "tub rim %g,%g, bottom %g,%g, height %g: expected > 0",
				top[0], top[1], bot[0], bot[1], height);
	for (a = 0; a < 3; a++)
		if (res[a] < 1 || res[a] > PRIM_RES_MAX)
			return slc_fail(err, "tub resolution %d, expected 1..%d",
					res[a], PRIM_RES_MAX);
	return lattice_surface(m, res, 1, tub_point, &b, err);
}

/* --- torus ------------------------------------------------------------- */

int
prim_torus(prim_mesh *m, double R, double r, int nmaj, int nmin,
	   const double c[3], slc_err *err)
{
	int i, j;
	size_t t = 0;

	memset(m, 0, sizeof *m);
	if (!(r > 0) || !(R > r))
		return slc_fail(err, "torus radii %g,%g, expected R > r > 0", R, r);
	if (nmaj < 3 || nmin < 3 || nmaj > PRIM_RES_MAX || nmin > PRIM_RES_MAX)
		return slc_fail(err, "torus resolution %d,%d, expected 3..%d", nmaj,
				nmin, PRIM_RES_MAX);
	if (mesh_alloc(m, (size_t)nmaj * nmin, 2 * (size_t)nmaj * nmin, err))
		return -1;
	for (i = 0; i < nmaj; i++)
		for (j = 0; j < nmin; j++) {
			double th = 2 * M_PI * i / nmaj, ph = 2 * M_PI * j / nmin;
			double *p = m->P + 3 * ((size_t)i * nmin + j);
			double rho = R + r * cos(ph);

			p[0] = c[0] + rho * cos(th);
			p[1] = c[1] + r * sin(ph);
			p[2] = c[2] + rho * sin(th);
		}
	for (i = 0; i < nmaj; i++)
		for (j = 0; j < nmin; j++) {
			uint32_t a = (uint32_t)(i * nmin + j);
			uint32_t b = (uint32_t)(i * nmin + (j + 1) % nmin);
			uint32_t e = (uint32_t)((i + 1) % nmaj * nmin + (j + 1) % nmin);
			uint32_t d = (uint32_t)((i + 1) % nmaj * nmin + j);

			/* dP/dphi x dP/dtheta points away from the tube axis */
			set_tri(m->tri, t++, a, b, e);
			set_tri(m->tri, t++, a, e, d);
		}
	m->nv = (size_t)nmaj * nmin;
	m->nt = t;
	return 0;
}

/* --- cup --------------------------------------------------------------- */

int
prim_cup(prim_mesh *m, double rtop, double rbot, double height, int nseg,
	 int nwall, const double c[3], slc_err *err)
{
	int nbot, nring, k, i;
	size_t t = 0;

	memset(m, 0, sizeof *m);
	if (!(rtop > 0) || !(rbot > 0) || !(height > 0))
		return slc_fail(err, "cup radii %g,%g and height %g, expected > 0",
				rtop, rbot, height);
	if (nseg < 3 || nwall < 1 || nseg > PRIM_RES_MAX || nwall > PRIM_RES_MAX)
		return slc_fail(err, "cup resolution %d,%d, expected 3.. and 1..%d",
				nseg, nwall, PRIM_RES_MAX);
	/* bottom rings spaced like the wall segments */
	nbot = (int)ceil(rbot / (height / nwall) - 1e-9);
	if (nbot < 1)
		nbot = 1;
	if (nbot > PRIM_RES_MAX)
		nbot = PRIM_RES_MAX;
	nring = nbot + nwall;   /* rings 1..nring; ring 0 is the centre */
	if (mesh_alloc(m, 1 + (size_t)nring * nseg,
		       (size_t)nseg * (2 * (size_t)nring - 1), err))
		return -1;
	memcpy(m->P, c, 3 * sizeof *c);
	for (k = 1; k <= nring; k++)
		for (i = 0; i < nseg; i++) {
			double th = 2 * M_PI * i / nseg, rho, y;
			double *p = m->P + 3 * (1 + (size_t)(k - 1) * nseg + i);

			if (k <= nbot) {
				rho = rbot * k / nbot;
				y = 0;
			} else {
				rho = rbot + (rtop - rbot) * (k - nbot) / nwall;
				y = height * (k - nbot) / nwall;
			}
			p[0] = c[0] + rho * cos(th);
			p[1] = c[1] + y;
			p[2] = c[2] + rho * sin(th);
		}
	/* along the profile x around = -y on the bottom, out and down on the
	 * wall: away from the inside of the cup */
	for (i = 0; i < nseg; i++)
		set_tri(m->tri, t++, 0, (uint32_t)(1 + i),
			(uint32_t)(1 + (i + 1) % nseg));
	for (k = 1; k < nring; k++)
		for (i = 0; i < nseg; i++) {
			uint32_t a = (uint32_t)(1 + (k - 1) * nseg + i);
			uint32_t b = (uint32_t)(1 + (k - 1) * nseg + (i + 1) % nseg);

			set_tri(m->tri, t++, a, a + (uint32_t)nseg, b + (uint32_t)nseg);
			set_tri(m->tri, t++, a, b + (uint32_t)nseg, b);
		}
	m->nv = 1 + (size_t)nring * nseg;
	m->nt = t;
	return 0;
}

/* --- paddle wheel ------------------------------------------------------ */

/* Put the point (a, b) of the cross-section plane at height h along the
 * axis into p: (a, b, axis) is a right-handed frame, (x,y,z) for axis z,
 * (y,z,x) for x and (z,x,y) for y. */
static void
paddle_point(double *p, int axis, const double c[3], double a, double b,
	     double h)
{
	p[(axis + 1) % 3] = c[(axis + 1) % 3] + a;
	p[(axis + 2) % 3] = c[(axis + 2) % 3] + b;
	p[axis] = c[axis] + h;
}

int
prim_paddle(prim_mesh *m, int nblades, double R, double rhub, double thick,
	    double width, int nseg, int axis, double angle, const double c[3],
	    slc_err *err)
{
	double h = thick / 2, half, gap, sh, (*o)[2];
	int k, q, ngap, nout = 0;
	size_t t = 0, M;

	memset(m, 0, sizeof *m);
	if (nblades < 1 || nblades > PRIM_BLADES_MAX || nseg < 3 ||
	    nseg > PRIM_RES_MAX || axis < 0 || axis > 2)
		return slc_fail(err, "paddle: %d blades, %d segments, axis %d: expected "
				"1..%d, 3..%d, 0..2", nblades, nseg, axis,
				PRIM_BLADES_MAX, PRIM_RES_MAX);
	if (!(rhub > 0) || !(R > rhub) || !(h > 0) || !(h < rhub) || !(width > 0) ||
	    !isfinite(angle))
		return slc_fail(err, "paddle: radii %g,%g, thickness %g, width %g: "
				"expected R > hub > thickness/2 > 0", R, rhub, thick,
				width);
	half = asin(h / rhub);          /* half the hub angle a blade covers */
	gap = 2 * M_PI / nblades - 2 * half;
	if (!(gap > 0))
		return slc_fail(err, "paddle: %d blades of thickness %g overlap on a hub "
				"of radius %g", nblades, thick, rhub);
	/* hub arc segments between two blades, about nseg around in all */
	ngap = (int)ceil(nseg * gap / (2 * M_PI) - 1e-9);
	if (ngap < 1)
		ngap = 1;
	M = (size_t)nblades * (size_t)(4 + ngap - 1);
	o = malloc(M * sizeof *o);
	if (!o)
		return slc_fail(err, "out of memory");
	sh = sqrt(rhub * rhub - h * h);
	/* the cross-section, counter-clockwise about the axis: for each blade
	 * its right side, tip and left side, then the hub arc to the next */
	for (k = 0; k < nblades; k++) {
		double ph = angle + 2 * M_PI * k / nblades;
		double e[2] = { cos(ph), sin(ph) }, n[2] = { -sin(ph), cos(ph) };
		const double sd[4][2] = { { sh, -h }, { R, -h }, { R, h }, { sh, h } };

		for (q = 0; q < 4; q++, nout++) {
			o[nout][0] = sd[q][0] * e[0] + sd[q][1] * n[0];
			o[nout][1] = sd[q][0] * e[1] + sd[q][1] * n[1];
		}
		for (q = 1; q < ngap; q++, nout++) {
			double th = ph + half + gap * q / ngap;

			o[nout][0] = rhub * cos(th);
			o[nout][1] = rhub * sin(th);
		}
	}
	/* back ring 0..M-1 at -width/2, front ring M..2M-1 at +width/2, then
	 * the centres of the back and front caps */
	if (mesh_alloc(m, 2 * M + 2, 4 * M, err)) {
		free(o);
		return -1;
	}
	for (q = 0; q < (int)M; q++) {
		paddle_point(m->P + 3 * (size_t)q, axis, c, o[q][0], o[q][1], -width / 2);
		paddle_point(m->P + 3 * (M + (size_t)q), axis, c, o[q][0], o[q][1],
			     width / 2);
	}
	paddle_point(m->P + 3 * (2 * M), axis, c, 0, 0, -width / 2);
	paddle_point(m->P + 3 * (2 * M + 1), axis, c, 0, 0, width / 2);
	free(o);
	for (q = 0; q < (int)M; q++) {
		uint32_t b0 = (uint32_t)q, b1 = (uint32_t)((q + 1) % M);
		uint32_t f0 = b0 + (uint32_t)M, f1 = b1 + (uint32_t)M;

		/* the outline runs counter-clockwise, so tangent x axis points out */
		set_tri(m->tri, t++, b0, b1, f1);
		set_tri(m->tri, t++, b0, f1, f0);
		set_tri(m->tri, t++, (uint32_t)(2 * M + 1), f0, f1);   /* front: +axis */
		set_tri(m->tri, t++, (uint32_t)(2 * M), b1, b0);       /* back: -axis */
	}
	m->nv = 2 * M + 2;
	m->nt = t;
	return 0;
}

void
prim_mesh_spin(const prim_mesh *m, int axis, double omega, const double c[3],
	       double *v)
{
	int a = (axis + 1) % 3, b = (axis + 2) % 3;
	size_t i;

	for (i = 0; i < m->nv; i++) {
		const double *p = m->P + 3 * i;

		/* e_axis x r: (a, b) -> (-r_b, r_a) in the right-handed frame */
		v[3 * i + a] = -omega * (p[b] - c[b]);
		v[3 * i + b] = omega * (p[a] - c[a]);
		v[3 * i + axis] = 0;
	}
}
