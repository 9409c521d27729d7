/* test_prim: the procedural shapes of lib/prim*.c checked against what
 * cannot be fooled: topology (every edge in exactly two triangles, in
 * opposite directions; Euler characteristics 2, 0, 1), signed volumes
 * against the analytic ones, the herring-bone pattern and lumped mass of
 * the cloth, and the pool level set against a brute-force distance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "prim/prim.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct topo {
	size_t dup;         /* directed edges used twice (inconsistent or non-manifold) */
	size_t boundary;    /* directed edges without their reverse */
	size_t edges;       /* undirected edges */
	long euler;         /* V - E + F */
	uint64_t *bnd;      /* the boundary edges (a<<32|b), caller frees */
};

/* Directed edges a->b of every triangle, sorted: a closed consistently
 * oriented 2-manifold has each one exactly once and its reverse too. */
static void
topology(const prim_mesh *m, struct topo *t)
{
	size_t n = 3 * m->nt, q;
	uint64_t *d = malloc(n * sizeof *d);

	memset(t, 0, sizeof *t);
	t->bnd = malloc((n + 1) * sizeof *t->bnd);
	for (q = 0; q < n; q++) {
		uint64_t a = m->tri[q], b = m->tri[q - q % 3 + (q + 1) % 3];

		d[q] = a << 32 | b;
	}
	qsort(d, n, sizeof *d, cmp_u64);
	for (q = 0; q < n; q++) {
		uint64_t a = d[q] >> 32, b = d[q] & 0xffffffffu, rev = b << 32 | a;

		if (q > 0 && d[q] == d[q - 1])
			t->dup++;
		if (!bsearch(&rev, d, n, sizeof *d, cmp_u64)) {
			t->bnd[t->boundary++] = d[q];
			t->edges++;
		} else if (a < b) {
			t->edges++;
		}
	}
	t->euler = (long)m->nv - (long)t->edges + (long)m->nt;
	free(d);
}

/* Signed volume by the divergence theorem: sum of a.(b x c)/6. */
static double
volume(const prim_mesh *m)
{
	double v = 0;
	size_t t;

	for (t = 0; t < m->nt; t++) {
		const double *a = m->P + 3 * m->tri[3 * t];
		const double *b = m->P + 3 * m->tri[3 * t + 1];
		const double *c = m->P + 3 * m->tri[3 * t + 2];

		v += (a[0] * (b[1] * c[2] - b[2] * c[1]) -
		      a[1] * (b[0] * c[2] - b[2] * c[0]) +
		      a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
	}
	return v;
}

/* Normal (not normalised) of triangle t. */
static void
normal(const prim_mesh *m, size_t t, double n[3])
{
	const double *a = m->P + 3 * m->tri[3 * t];
	const double *b = m->P + 3 * m->tri[3 * t + 1];
	const double *c = m->P + 3 * m->tri[3 * t + 2];
	double u[3], v[3];
	int q;

	for (q = 0; q < 3; q++) {
		u[q] = b[q] - a[q];
		v[q] = c[q] - a[q];
	}
	n[0] = u[1] * v[2] - u[2] * v[1];
	n[1] = u[2] * v[0] - u[0] * v[2];
	n[2] = u[0] * v[1] - u[1] * v[0];
}

static void
test_sphere(void)
{
	const double c[3] = { 0.3, -1, 2 }, r = 0.7;
	int s;

	for (s = 0; s <= 5; s++) {
		prim_mesh m;
		struct topo t;
		double v, vex = 4.0 / 3 * M_PI * r * r * r, maxdev = 0;
		size_t q;

		CHECK(prim_icosphere(&m, s, r, c, NULL) == 0, "icosphere subdiv %d builds", s);
		CHECK(m.nv == 10 * ((size_t)1 << 2 * s) + 2 && m.nt == 20 * ((size_t)1 << 2 * s),
		      "icosphere %d: %zu vertices, %zu triangles", s, m.nv, m.nt);
		topology(&m, &t);
		CHECK(t.dup == 0 && t.boundary == 0,
		      "icosphere %d: every edge in exactly two triangles, opposite ways (%zu dup, %zu open)",
		      s, t.dup, t.boundary);
		CHECK(t.euler == 2, "icosphere %d: Euler characteristic %ld", s, t.euler);
		for (q = 0; q < m.nv; q++) {
			double *p = m.P + 3 * q;

			maxdev = fmax(maxdev, fabs(hypot(hypot(p[0] - c[0], p[1] - c[1]),
							 p[2] - c[2]) - r));
		}
		CHECK(maxdev < 1e-12, "icosphere %d: vertices on the sphere (%.2g)", s, maxdev);
		v = volume(&m);
		CHECK(v > 0, "icosphere %d: outward (signed volume %g)", s, v);
		if (s == 5)
			CHECK(fabs(v - vex) < 1e-3 * vex,
			      "icosphere 5: volume %.8g vs 4/3 pi r^3 = %.8g", v, vex);
		free(t.bnd);
		prim_mesh_free(&m);
	}
	CHECK(prim_icosphere(&(prim_mesh){ 0 }, PRIM_SUBDIV_MAX + 1, 1, c, NULL) < 0,
	      "icosphere refuses subdiv %d", PRIM_SUBDIV_MAX + 1);
}

static void
test_box(void)
{
	const double size[3] = { 1.5, 0.25, 2 }, c[3] = { 1, 2, 3 };
	const int res[2][3] = { { 1, 1, 1 }, { 3, 2, 5 } };
	int q;

	for (q = 0; q < 2; q++) {
		prim_mesh m;
		struct topo t;
		double v, vex = size[0] * size[1] * size[2];
		const int *n = res[q];
		size_t nv = 2 * ((size_t)(n[0] + 1) * (n[1] + 1) + (size_t)(n[0] + 1) * (n[2] - 1) +
				 (size_t)(n[1] - 1) * (n[2] - 1));

		CHECK(prim_box(&m, size, n, c, NULL) == 0, "box %dx%dx%d builds", n[0], n[1], n[2]);
		topology(&m, &t);
		CHECK(t.dup == 0 && t.boundary == 0, "box %dx%dx%d: closed and consistent",
		      n[0], n[1], n[2]);
		CHECK(t.euler == 2, "box: Euler characteristic %ld", t.euler);
		CHECK(m.nv == nv, "box: %zu welded vertices, expected %zu", m.nv, nv);
		v = volume(&m);
		CHECK(fabs(v - vex) < 1e-12 * vex, "box: volume %.17g, exactly %.17g", v, vex);
		free(t.bnd);
		prim_mesh_free(&m);
	}
}

static void
test_torus(void)
{
	const double c[3] = { 0, 1, 0 }, R = 1, r = 0.25;
	double v, vex = 2 * M_PI * M_PI * R * r * r;
	prim_mesh m;
	struct topo t;

	CHECK(prim_torus(&m, R, r, 256, 64, c, NULL) == 0, "torus builds");
	topology(&m, &t);
	CHECK(t.dup == 0 && t.boundary == 0, "torus: closed and consistent");
	CHECK(t.euler == 0, "torus: Euler characteristic %ld", t.euler);
	v = volume(&m);
	CHECK(v > 0 && fabs(v - vex) < 2e-3 * vex,
	      "torus: outward, volume %.8g vs 2 pi^2 R r^2 = %.8g", v, vex);
	free(t.bnd);
	prim_mesh_free(&m);
	CHECK(prim_torus(&m, 0.2, 0.5, 8, 8, c, NULL) < 0, "torus refuses r > R");
}

static void
test_cup(void)
{
	const double c[3] = { 0, 0.5, 0 }, rt = 0.4, rb = 0.3, h = 0.5;
	const int nseg = 24;
	prim_mesh m;
	struct topo t;
	size_t q, rim = 0, down = 0, bottom = 0, out = 0, wall = 0;

	CHECK(prim_cup(&m, rt, rb, h, nseg, 6, c, NULL) == 0, "cup builds");
	topology(&m, &t);
	CHECK(t.dup == 0, "cup: consistent orientation, no edge used twice one way");
	for (q = 0; q < t.boundary; q++) {
		const double *a = m.P + 3 * (t.bnd[q] >> 32);
		const double *b = m.P + 3 * (t.bnd[q] & 0xffffffffu);

		rim += a[1] == c[1] + h && b[1] == c[1] + h &&
		       fabs(hypot(a[0], a[2]) - rt) < 1e-12;
	}
	CHECK(t.boundary == (size_t)nseg && rim == t.boundary,
	      "cup: %zu boundary edges, %zu of them on the rim (expected %d)",
	      t.boundary, rim, nseg);
	CHECK(t.euler == 1, "cup: Euler characteristic %ld (a disk)", t.euler);
	/* outward: bottom faces down, wall faces away from the axis */
	for (q = 0; q < m.nt; q++) {
		double n[3], mid[3];
		int a;

		normal(&m, q, n);
		for (a = 0; a < 3; a++)
			mid[a] = (m.P[3 * m.tri[3 * q] + a] + m.P[3 * m.tri[3 * q + 1] + a] +
				  m.P[3 * m.tri[3 * q + 2] + a]) / 3;
		if (mid[1] == c[1]) {
			bottom++;
			down += n[1] < 0 && fabs(n[0]) + fabs(n[2]) < 1e-12;
		} else {
			wall++;
			out += n[0] * mid[0] + n[2] * mid[2] > 0;
		}
	}
	CHECK(down == bottom && bottom > 0, "cup: %zu of %zu bottom normals face -y", down, bottom);
	CHECK(out == wall && wall > 0, "cup: %zu of %zu wall normals face out", out, wall);
	free(t.bnd);
	prim_mesh_free(&m);
}

static void
test_cloth(void)
{
	const double c[3] = { 0, 2, 0 }, w = 1.2, d = 0.8, rho = 0.15;
	const int nx = 7, nz = 5;
	prim_cloth cl;
	struct topo t;
	double total = 0;
	size_t q, up = 0, npin = 0, ncorner = 0;
	int i, k, pattern = 1, p;

	CHECK(prim_cloth_make(&cl, w, d, nx, nz, c, rho, PRIM_PIN_CORNERS, NULL) == 0,
	      "cloth builds");
	topology(&cl.mesh, &t);
	CHECK(t.dup == 0 && t.boundary == 2 * (size_t)(nx + nz),
	      "cloth: consistent, boundary only around the sheet (%zu)", t.boundary);
	CHECK(t.euler == 1, "cloth: Euler characteristic %ld", t.euler);
	for (q = 0; q < cl.mesh.nt; q++) {
		double n[3];

		normal(&cl.mesh, q, n);
		up += n[1] > 0;
	}
	CHECK(up == cl.mesh.nt, "cloth: all %zu normals face +y", cl.mesh.nt);
	/* selle2008 thesis §5.2, herring-bone: in every quad exactly one
	 * diagonal is an edge, and its direction flips from each column of
	 * quads to the next while staying the same along the column */
	for (k = 0; k < nz; k++)
		for (i = 0; i < nx; i++) {
			uint32_t a = (uint32_t)(i + (nx + 1) * k), b = a + 1;
			uint32_t dd = a + (uint32_t)(nx + 1), e = dd + 1;
			int main_diag = 0, anti = 0;

			for (q = 0; q < cl.mesh.nt; q++) {
				const uint32_t *tr = cl.mesh.tri + 3 * q;
				int has[4] = { 0 }, v;

				for (v = 0; v < 3; v++) {
					has[0] |= tr[v] == a;
					has[1] |= tr[v] == b;
					has[2] |= tr[v] == dd;
					has[3] |= tr[v] == e;
				}
				main_diag |= has[0] && has[3];
				anti |= has[1] && has[2];
			}
			if (main_diag == anti || main_diag != (i % 2 == 0))
				pattern = 0;
		}
	CHECK(pattern, "cloth: diagonals alternate column to column (herring-bone)");
	for (q = 0; q < cl.mesh.nv; q++) {
		const double *x = cl.mesh.P + 3 * q;

		total += cl.mass[q];
		/* pinned: the corners of the edge at minimum z, nothing else */
		npin += cl.pinned[q];
		ncorner += cl.pinned[q] == 1 && fabs(x[2] - (c[2] - d / 2)) < 1e-12 &&
			   fabs(fabs(x[0] - c[0]) - w / 2) < 1e-12;
	}
	CHECK(fabs(total - rho * w * d) < 1e-12, "cloth: total mass %.15g = density*area %.15g",
	      total, rho * w * d);
	CHECK(npin == 2 && ncorner == 2, "cloth: the two corners at minimum z pinned (%zu, %zu)",
	      npin, ncorner);
	free(t.bnd);
	prim_cloth_free(&cl);
	for (p = PRIM_PIN_NONE; p <= PRIM_PIN_EDGE; p += 2) {
		prim_cloth_make(&cl, w, d, nx, nz, c, rho, p, NULL);
		for (q = 0, npin = 0; q < cl.mesh.nv; q++)
			npin += cl.pinned[q] == 1 &&
				fabs(cl.mesh.P[3 * q + 2] - (c[2] - d / 2)) < 1e-12 ? 1 : 1000 * cl.pinned[q];
		CHECK(npin == (p == PRIM_PIN_NONE ? 0u : (size_t)nx + 1), "cloth: pin %d pins %zu",
		      p, npin);
		prim_cloth_free(&cl);
	}
}

/* A hair spec of ns strands of nseg segments on the scalp (r, c). */
static prim_hair_spec
hair_of(size_t ns, int nseg, double len, double r, const double c[3],
	uint64_t seed)
{
	prim_hair_spec sp;

	prim_hair_spec_default(&sp);
	sp.nstrands = ns;
	sp.nseg = nseg;
	sp.length = len;
	sp.radius = r;
	memcpy(sp.c, c, sizeof sp.c);
	sp.seed = seed;
	return sp;
}

static double
dist(const double *a, const double *b)
{
	return hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]);
}

static void
test_hair(void)
{
	const double c[3] = { 0, 1.5, 0 }, r = 0.1, len = 0.3;
	prim_hair_spec sp = hair_of(50, 8, len, r, c, 7);
	prim_hair a, b, e;
	size_t s, bad = 0;

	CHECK(prim_hair_make(&a, &sp, NULL) == 0, "hair builds");
	prim_hair_make(&b, &sp, NULL);
	sp.seed = 8;
	prim_hair_make(&e, &sp, NULL);
	CHECK(!memcmp(a.P, b.P, 50 * 9 * 3 * sizeof *a.P), "hair: same seed, same strands");
	CHECK(memcmp(a.P, e.P, 50 * 9 * 3 * sizeof *a.P), "hair: other seed, other strands");
	for (s = 0; s < 50; s++) {
		const double *root = a.P + 3 * 9 * s, *tip = root + 3 * 8;
		double rr = dist(root, c), l = dist(tip, root);
		double cosang = (root[1] - c[1]) / rr;

		bad += fabs(rr - r) > 1e-12 || fabs(l - len) > 1e-12 ||
		       cosang < cos(PRIM_SCALP_CAP_DEG * M_PI / 180) - 1e-12;
	}
	CHECK(bad == 0, "hair: roots on the scalp cap, strands of the given length (%zu bad)", bad);
	{
		/* uniform by area on the cap: the height of the root is uniform
		 * on [cmin, 1] (Archimedes), the azimuth has no preference */
		const size_t ns = 20000;
		double cmin = cos(PRIM_SCALP_CAP_DEG * M_PI / 180), my = 0, mcos = 0, sigma;
		prim_hair u;

		sp = hair_of(ns, 1, len, r, c, 11);
		prim_hair_make(&u, &sp, NULL);
		for (s = 0; s < ns; s++) {
			const double *root = u.P + 3 * 2 * s;

			my += (root[1] - c[1]) / r / ns;
			mcos += (root[0] - c[0]) / hypot(root[0] - c[0], root[2] - c[2]) / ns;
		}
		sigma = (1 - cmin) / sqrt(12.0 * ns);
		CHECK(fabs(my - (1 + cmin) / 2) < 5 * sigma && fabs(mcos) < 5 * sqrt(0.5 / ns),
		      "hair: root heights uniform (mean %.4f, expected %.4f), azimuths balanced (%.4f)",
		      my, (1 + cmin) / 2, mcos);
		prim_hair_free(&u);
	}
	prim_hair_free(&a);
	prim_hair_free(&b);
	prim_hair_free(&e);
}

/* The scalp cap: a 30 degree cap holds every root within 30 degrees of
 * the top, and they fill it evenly by area (the cap's mean height). */
static void
test_hair_cap(void)
{
	const double c[3] = { 0.2, 0, -0.1 }, r = 0.12;
	const size_t ns = 20000;
	prim_hair_spec sp = hair_of(ns, 1, 0.1, r, c, 5);
	double cmin = cos(30 * M_PI / 180), lowest = 1, my = 0, sigma;
	prim_hair h;
	size_t s, off = 0;

	sp.cap_deg = 30;
	CHECK(prim_hair_make(&h, &sp, NULL) == 0, "hair on a 30 degree cap builds");
	for (s = 0; s < ns; s++) {
		const double *root = h.P + 3 * 2 * s;
		double y = (root[1] - c[1]) / r;

		off += fabs(dist(root, c) - r) > 1e-12;
		lowest = fmin(lowest, y);
		my += y / ns;
	}
	sigma = (1 - cmin) / sqrt(12.0 * ns);
	CHECK(off == 0 && lowest >= cmin - 1e-12 && lowest < cmin + 1e-3,
	      "cap: roots on the sphere (%zu off), the lowest at cos %.5f (cap edge %.5f)",
	      off, lowest, cmin);
	CHECK(fabs(my - (1 + cmin) / 2) < 5 * sigma, "cap: even by area (mean height %.5f, "
	      "expected %.5f)", my, (1 + cmin) / 2);
	prim_hair_free(&h);
	sp.cap_deg = 181;
	CHECK(prim_hair_make(&h, &sp, NULL) == -1, "cap of 181 degrees rejected");
}

/* Length jitter: every strand straight along its normal with equal
 * segments, lengths spread over L(1 +- F) with mean L. */
static void
test_hair_jitter(void)
{
	const double c[3] = { 0, 0, 0 }, r = 0.1, len = 0.2, F = 0.25;
	const size_t ns = 4000;
	prim_hair_spec sp = hair_of(ns, 5, len, r, c, 9);
	double lo = 1e9, hi = 0, mean = 0;
	size_t s, bad = 0;
	prim_hair h;

	sp.jitter = F;
	CHECK(prim_hair_make(&h, &sp, NULL) == 0, "jittered hair builds");
	for (s = 0; s < ns; s++) {
		const double *p = h.P + 3 * 6 * s;
		double l = dist(p + 15, p), seg = dist(p + 3, p);

		for (int q = 1; q < 5; q++)
			bad += fabs(dist(p + 3 * q + 3, p + 3 * q) - seg) > 1e-12;
		bad += fabs(l - 5 * seg) > 1e-12;   /* straight */
		lo = fmin(lo, l), hi = fmax(hi, l), mean += l / ns;
	}
	CHECK(bad == 0 && lo >= len * (1 - F) - 1e-12 && hi <= len * (1 + F) + 1e-12 &&
	      lo < len * (1 - F) + 0.01 * len && hi > len * (1 + F) - 0.01 * len &&
	      fabs(mean - len) < 5 * 2 * F * len / sqrt(12.0 * ns),
	      "jitter: straight, equal segments (%zu bad), lengths %.4f..%.4f mean %.4f",
	      bad, lo, hi, mean);
	prim_hair_free(&h);
}

/* Curly hair: a helix of the radius and pitch asked for, about the root
 * normal, equal segments, length along the hair as asked. */
static void
test_hair_curl(void)
{
	const double c[3] = { 0, 1, 0 }, r = 0.1, len = 0.3, R = 0.01, pitch = 0.02;
	const int nseg = 60;
	prim_hair_spec sp = hair_of(30, nseg, len, r, c, 4);
	double rise = pitch / (2 * M_PI), cc = sqrt(R * R + rise * rise);
	double worst_r = 0, worst_seg = 0, worst_ax = 0, worst_len = 0;
	size_t s;
	prim_hair h, h2;

	sp.curl_r = R;
	sp.curl_pitch = pitch;
	CHECK(prim_hair_make(&h, &sp, NULL) == 0, "curly hair builds");
	prim_hair_make(&h2, &sp, NULL);
	CHECK(!memcmp(h.P, h2.P, 30 * (nseg + 1) * 3 * sizeof *h.P), "curly: same seed, same strands");
	for (s = 0; s < 30; s++) {
		const double *p = h.P + 3 * (nseg + 1) * s;
		double n[3], seg0 = dist(p + 3, p), arc = 0;

		for (int k = 0; k < 3; k++)
			n[k] = (p[k] - c[k]) / r;
		for (int q = 0; q < nseg; q++) {
			double d = dist(p + 3 * q + 3, p + 3 * q);
			worst_seg = fmax(worst_seg, fabs(d - seg0));
			arc += d;
		}
		/* chords of a helix: arc of the curve is nseg times the step
		 * in angle times cc; the chord is a little shorter */
		double dth = len / nseg / cc;
		double chord = sqrt(pow(2 * R * sin(dth / 2), 2) + pow(rise * dth, 2));
		worst_len = fmax(worst_len, fabs(arc - nseg * chord));
		/* in the plane across n consecutive points lie on a circle of
		 * radius R: the circumradius of each projected triple */
		for (int q = 0; q + 2 <= nseg; q++) {
			double u[3][3], ab, bc, ca, cr[3], area2;
			for (int m = 0; m < 3; m++) {
				const double *x = p + 3 * (q + m);
				double h_ = (x[0] - p[0]) * n[0] + (x[1] - p[1]) * n[1] +
					    (x[2] - p[2]) * n[2];
				for (int k = 0; k < 3; k++)
					u[m][k] = x[k] - h_ * n[k];
			}
			ab = dist(u[0], u[1]), bc = dist(u[1], u[2]), ca = dist(u[2], u[0]);
			double e1[3], e2[3];
			for (int k = 0; k < 3; k++)
				e1[k] = u[1][k] - u[0][k], e2[k] = u[2][k] - u[0][k];
			cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
			cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
			cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
			area2 = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
			worst_r = fmax(worst_r, fabs(ab * bc * ca / (2 * area2) - R));
		}
		/* rise along n: pitch per turn, the turns being len / (2 pi cc) */
		const double *tip = p + 3 * nseg;
		double ax = (tip[0] - p[0]) * n[0] + (tip[1] - p[1]) * n[1] + (tip[2] - p[2]) * n[2];
		worst_ax = fmax(worst_ax, fabs(ax - pitch * len / (2 * M_PI * cc)));
	}
	CHECK(worst_seg < 1e-12, "curly: equal segments (%.2g)", worst_seg);
	CHECK(worst_r < 1e-9, "curly: helix radius R (worst %.2g)", worst_r);
	CHECK(worst_ax < 1e-12, "curly: rise PITCH a turn along the root normal (worst %.2g)",
	      worst_ax);
	CHECK(worst_len < 1e-12, "curly: %d equal chords of the helix (%.2g)", nseg, worst_len);
	prim_hair_free(&h);
	prim_hair_free(&h2);
	sp.curl_pitch = 0;
	CHECK(prim_hair_make(&h, &sp, NULL) == -1, "curl without pitch rejected");
}

/* Pool: phi < 0 exactly in the water; |grad phi| = 1 off the kinks; phi
 * equal to a brute-force distance to points sampled on the surface. */
static void
test_pool(void)
{
	const double origin[3] = { 0, 0, 0 }, c[3] = { 0.5, 0.4, 0.45 }, r = 0.2;
	const double level = 0.3, hs = 0.004;   /* surface sample spacing */
	field phi;
	size_t q, wrong = 0, nsurf = 0, graderr = 0, ncell;
	double *surf, maxerr = 0;
	int i, j, k, n;

	CHECK(field_alloc(&phi, 24, 24, 24, SLC_CELL, origin, 1.0 / 24, NULL) == 0,
	      "pool grid allocates");
	prim_pool_fill(&phi, level, c, r);
	ncell = field_count(&phi);
	for (k = 0; k < phi.nk; k++)
		for (j = 0; j < phi.nj; j++)
			for (i = 0; i < phi.ni; i++) {
				double x[3], g[3], h = 1e-7;
				int wet, a;

				field_pos(&phi, i, j, k, x);
				wet = x[1] < level || prim_sdf_sphere(x, c, r) < 0;
				wrong += (phi.a[FIELD_IDX(&phi, i, j, k)] < 0) != wet;
				for (a = 0; a < 3; a++) {
					double xp[3] = { x[0], x[1], x[2] }, xm[3] = { x[0], x[1], x[2] };

					xp[a] += h;
					xm[a] -= h;
					g[a] = (prim_pool_phi(xp, level, c, r) -
						prim_pool_phi(xm, level, c, r)) / (2 * h);
				}
				graderr += fabs(hypot(hypot(g[0], g[1]), g[2]) - 1) > 1e-5;
			}
	CHECK(wrong == 0, "pool: phi < 0 exactly in the water (%zu cells wrong)", wrong);
	CHECK(graderr * 100 < ncell, "pool: |grad phi| = 1 at all but %zu of %zu cells",
	      graderr, ncell);
	/* brute force: the plane outside the ball and the sphere above the plane */
	n = (int)(1.2 / hs);
	surf = malloc((size_t)n * n * 3 * 2 * sizeof *surf);
	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++) {
			double p[3] = { -0.1 + i * hs, level, -0.1 + k * hs };

			if (prim_sdf_sphere(p, c, r) >= 0) {
				memcpy(surf + 3 * nsurf++, p, sizeof p);
			}
		}
	{
		int nth = (int)(M_PI * r / hs), nph;

		for (j = 0; j <= nth; j++) {
			double th = M_PI * j / nth;

			nph = (int)fmax(1, 2 * M_PI * r * sin(th) / hs);
			for (i = 0; i < nph; i++) {
				double ph = 2 * M_PI * i / nph;
				double p[3] = { c[0] + r * sin(th) * cos(ph), c[1] + r * cos(th),
						c[2] + r * sin(th) * sin(ph) };

				if (p[1] >= level)
					memcpy(surf + 3 * nsurf++, p, sizeof p);
			}
		}
	}
	for (q = 0; q < ncell; q += 7) {
		double x[3], best = INFINITY;
		size_t s;

		field_pos(&phi, (int)(q % 24), (int)(q / 24 % 24), (int)(q / 576), x);
		if (fabs(x[0] - 0.5) > 0.5 || fabs(x[2] - 0.5) > 0.5)
			continue;
		for (s = 0; s < nsurf; s++) {
			double *p = surf + 3 * s;
			double d2 = (p[0] - x[0]) * (p[0] - x[0]) + (p[1] - x[1]) * (p[1] - x[1]) +
				    (p[2] - x[2]) * (p[2] - x[2]);

			best = fmin(best, d2);
		}
		maxerr = fmax(maxerr, fabs(fabs(phi.a[q]) - sqrt(best)));
	}
	CHECK(maxerr < hs, "pool: |phi| matches the brute-force distance (max error %.2g)",
	      maxerr);
	free(surf);
	field_free(&phi);
}

static void
test_grid_place(void)
{
	int n[3];
	double dx;

	CHECK(prim_grid_place((double[3]){ 1, 2, 1 }, 32, 0, n, &dx, NULL) == 0 &&
	      n[0] == 16 && n[1] == 32 && n[2] == 16 && dx == 1.0 / 16,
	      "grid placement: 1x2x1 at res 32 is 16x32x16 cells of 1/16");
	CHECK(prim_grid_place((double[3]){ 1, 1, 0.3 }, 0, 0.25, n, &dx, NULL) == 0 &&
	      n[0] == 4 && n[2] == 2, "grid placement: a partial cell grows the box");
}

static void
test_smoke(void)
{
	const double origin[3] = { 0, 0, 0 }, c[3] = { 0.5, 0.3, 0.5 }, half[3] = { 0.2, 0.1, 0.2 };
	field s, d, t;
	size_t q, bad = 0;

	field_alloc(&s, 16, 16, 16, SLC_CELL, origin, 1.0 / 16, NULL);
	field_alloc_like(&d, &s, NULL);
	field_alloc_like(&t, &s, NULL);
	prim_smoke_fill(&s, &d, &t, 1, c, 0, half, 2, 3);
	for (q = 0; q < field_count(&s); q++) {
		double x[3], in;

		field_pos(&s, (int)(q % 16), (int)(q / 16 % 16), (int)(q / 256), x);
		in = fabs(x[0] - c[0]) <= half[0] && fabs(x[1] - c[1]) <= half[1] &&
		     fabs(x[2] - c[2]) <= half[2];
		bad += (s.a[q] <= 0) != in;
		bad += s.a[q] < -0.5 * s.dx && (d.a[q] != 2 || t.a[q] != 3);
		bad += s.a[q] > 0.5 * s.dx && (d.a[q] != 0 || t.a[q] != 0);
	}
	CHECK(bad == 0, "smoke box source: source < 0 inside, density and temperature set there");
	field_free(&s);
	field_free(&d);
	field_free(&t);
}

static void
test_records(void)
{
	prim_mesh m;
	prim_cloth cl;
	prim_hair h;
	slc_rec r;
	slc_err err;
	const double c[3] = { 0, 0, 0 }, v[3] = { 1, 2, 3 };

	prim_icosphere(&m, 1, 1, c, NULL);
	CHECK(prim_mesh_rec(&m, "ball", 0, v, &r, &err) == 0 && slc_rec_validate(&r, &err) == 0 &&
	      slc_rec_find(&r, "v"), "mesh record is valid, with v");
	slc_rec_free(&r);
	prim_mesh_free(&m);
	prim_cloth_make(&cl, 1, 1, 4, 4, c, 0.1, PRIM_PIN_EDGE, NULL);
	CHECK(prim_cloth_rec(&cl, "cloth", 0, c, &r, &err) == 0 && slc_rec_validate(&r, &err) == 0 &&
	      slc_rec_find(&r, "rest") && slc_rec_find(&r, "mass") && slc_rec_find(&r, "pinned"),
	      "cloth record is valid, with rest, mass and pinned");
	slc_rec_free(&r);
	prim_cloth_free(&cl);
	prim_hair_spec sp = hair_of(10, 4, 0.2, 0.1, c, 1);
	prim_hair_make(&h, &sp, NULL);
	CHECK(prim_hair_rec(&h, "hair", 0, c, &r, &err) == 0 && slc_rec_validate(&r, &err) == 0,
	      "strands record is valid");
	slc_rec_free(&r);
	prim_hair_free(&h);
}

int
main(void)
{
	test_sphere();
	test_box();
	test_torus();
	test_cup();
	test_cloth();
	test_hair();
	test_hair_cap();
	test_hair_jitter();
	test_hair_curl();
	test_pool();
	test_grid_place();
	test_smoke();
	test_records();
	return ctest_done();
}
