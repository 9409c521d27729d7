/* test_render_tets.c: tet meshes drawn (lib/render/render_tets.c): the
 * neighbours found from the tets alone, the outer surface pictured where
 * it projects, disabled tets left out, the cut showing the colour of the
 * channel's value (rank -1 inside, 3 outside), the record's own nbr and
 * the computed one giving the same picture, and the same bytes twice and
 * from 1 and 2 threads. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "core/slc.h"
#include "render/colormap.h"
#include "render/render_tets.h"

#define W 96
#define H 96
#define NC 6                    /* cubes a side over [-1, 1]^3 */
#define NODES ((NC + 1) * (NC + 1) * (NC + 1))
#define TETS (6 * NC * NC * NC)

static const double bg[3] = {0, 0, 0};

static double
vol(const double *a, const double *b, const double *c, const double *d)
{
	double u[3], v[3], w[3];

	for (int k = 0; k < 3; k++)
		u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
	return ((u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] +
		(u[0] * v[1] - u[1] * v[0]) * w[2]) / 6;
}

/* The cube [-1, 1]^3 as NC^3 cubes of 6 Kuhn tets each, positive; rank
 * -1 for tets whose centroid is within 0.5 of the origin, else 3; alive
 * 0 where the centroid has x > 0 when kill_right; the nbr channel from
 * tets_neighbours when with_nbr. */
static void
make_cube(slc_rec *r, int kill_right, int with_nbr)
{
	static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
				       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	double *P;
	uint32_t *tet;
	int32_t *rank;
	uint8_t *alive;
	size_t t = 0;

	slc_rec_init(r, SLC_TETS, "kdsm");
	P = slc_rec_add(r, "P", SLC_F64, 3, SLC_POINT, NODES, NULL);
	tet = slc_rec_add(r, "tet", SLC_U32, 4, SLC_PRIM, TETS, NULL);
	rank = slc_rec_add(r, "rank", SLC_I32, 1, SLC_PRIM, TETS, NULL);
	alive = slc_rec_add(r, "alive", SLC_U8, 1, SLC_PRIM, TETS, NULL);
	for (int k = 0; k <= NC; k++)
		for (int j = 0; j <= NC; j++)
			for (int i = 0; i <= NC; i++) {
				double *p = P + 3 * (i + (NC + 1) * (j + (NC + 1) * k));

				p[0] = -1 + 2.0 * i / NC, p[1] = -1 + 2.0 * j / NC, p[2] = -1 + 2.0 * k / NC;
			}
	for (int k = 0; k < NC; k++)
		for (int j = 0; j < NC; j++)
			for (int i = 0; i < NC; i++)
				for (int q = 0; q < 6; q++, t++) {
					int c[3] = {0, 0, 0}, s;
					uint32_t *T = tet + 4 * t;
					double x[3] = {0, 0, 0};

					for (int m = 0; m < 4; m++) {
						if (m > 0 && m < 3)
							c[perm[q][m - 1]] = 1;
						if (m == 3)
							c[0] = c[1] = c[2] = 1;
						T[m] = (uint32_t)(i + c[0] + (NC + 1) * (j + c[1] + (NC + 1) * (k + c[2])));
					}
					if (vol(P + 3 * T[0], P + 3 * T[1], P + 3 * T[2], P + 3 * T[3]) < 0)
						s = (int)T[1], T[1] = T[2], T[2] = (uint32_t)s;
					for (int m = 0; m < 4; m++)
						for (int a = 0; a < 3; a++)
							x[a] += P[3 * T[m] + a] / 4;
					rank[t] = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) < 0.5 ? -1 : 3;
					alive[t] = !(kill_right && x[0] > 0);
				}
	if (with_nbr) {
		int32_t *nb, *o = slc_rec_add(r, "nbr", SLC_I32, 4, SLC_PRIM, TETS, NULL);

		tets_neighbours(tet, TETS, &nb, NULL);
		memcpy(o, nb, 4 * TETS * sizeof *nb);
		free(nb);
	}
}

static void
style(tets_style *st)
{
	memset(st, 0, sizeof *st);
	st->albedo[0] = st->albedo[1] = st->albedo[2] = 0.5;
	st->light[2] = 1;       /* from the camera */
	st->ambient = 0.25;
	st->field = "rank";
}

static void
draw(rimage *im, const slc_rec *r, const tets_style *st, double *lo, double *hi)
{
	const double eye[3] = {0, 0, 6}, tgt[3] = {0, 0, 0}, up[3] = {0, 1, 0};
	camera cam;

	camera_init(&cam, eye, tgt, up, 40, W, H, NULL);
	rimage_alloc(im, W, H, bg, NULL);
	if (render_tets(im, &cam, r, st, lo, hi, NULL))
		CHECK(0, "render_tets failed");
}

/* Pixel of world point (x, y) on the plane z = zp seen from (0, 0, 6). */
static size_t
pix(double x, double y, double zp)
{
	double s = H / (2 * tan(20 * M_PI / 180)) / (6 - zp);

	return (size_t)(W / 2 + x * s) + (size_t)W * (size_t)(H / 2 - y * s);
}

static void
test_neighbours(void)
{
	slc_rec r;
	const uint32_t *tet;
	int32_t *nb;
	size_t bound = 0, mutual = 1;

	make_cube(&r, 0, 0);
	tet = slc_rec_find(&r, "tet")->data;
	CHECK(tets_neighbours(tet, TETS, &nb, NULL) == 0, "neighbours of %d tets", TETS);
	for (size_t q = 0; q < 4 * (size_t)TETS; q++) {
		if (nb[q] < 0) {
			bound++;
			continue;
		}
		int back = 0;

		for (int k = 0; k < 4; k++)
			back |= nb[4 * nb[q] + k] == (int32_t)(q / 4);
		mutual &= back;
	}
	CHECK(bound == 12 * NC * NC && mutual,
	      "boundary faces %zu (expected 2 per square of the cube's sides, %d), neighbours mutual",
	      bound, 12 * NC * NC);
	free(nb);
	/* a face in three tets is refused */
	uint32_t bad[12] = {0, 1, 2, 3, 0, 1, 2, 4, 0, 1, 2, 5};
	slc_err err;
	CHECK(tets_neighbours(bad, 3, &nb, &err) == -1 && strstr(err.msg, "shared by 3"),
	      "a face shared by three tets refused: %s", err.msg);
	slc_rec_free(&r);
}

static void
test_surface(void)
{
	slc_rec r;
	rimage im;
	tets_style st;
	size_t c = pix(0, 0, 1), out = pix(-1.6, 1.6, 1);
	int n = 0;

	make_cube(&r, 0, 0);
	style(&st);
	draw(&im, &r, &st, NULL, NULL);
	for (size_t p = 0; p < (size_t)W * H; p++)
		n += isfinite(im.z[p]);
	CHECK(fabs(im.z[c] - 5) < 1e-4 && !isfinite(im.z[out]),
	      "the front face at depth %.5f (expected 5), the corner outside empty", im.z[c]);
	/* the front face is 2 m wide at 5 m: the share of the picture it covers */
	double side = 2 * H / (2 * tan(20 * M_PI / 180)) / 5;
	CHECK(fabs(n - side * side) < 4 * side, "%d pixels drawn, the square projects to %.0f",
	      n, side * side);
	CHECK(fabs(im.rgb[3 * c] - 0.5) < 1e-5, "lit straight on: the albedo, %.4f",
	      im.rgb[3 * c]);
	rimage_free(&im);
	slc_rec_free(&r);

	make_cube(&r, 1, 0);
	draw(&im, &r, &st, NULL, NULL);
	CHECK(!isfinite(im.z[pix(0.6, 0, 1)]) && isfinite(im.z[pix(-0.6, 0, 1)]),
	      "disabled tets (x > 0) not drawn, the live half is");
	rimage_free(&im);
	slc_rec_free(&r);
}

static void
test_cut(void)
{
	slc_rec r, rn;
	rimage im, im2;
	tets_style st;
	double lo, hi, in[3], outc[3];
	size_t c = pix(0, 0, 0), e = pix(0.8, 0.1, 0);

	make_cube(&r, 0, 0);
	style(&st);
	st.cut = 1;
	st.axis = 2;
	st.pos = 50;
	st.percent = 1;         /* z = 0, keep z < 0 */
	draw(&im, &r, &st, &lo, &hi);
	CHECK(lo == -1 && hi == 3, "range from the cut tets: %g..%g", lo, hi);
	CHECK(fabs(im.z[c] - 6) < 1e-4, "the cut plane at depth %.5f (expected 6)", im.z[c]);
	cmap_viridis(0, in);
	cmap_viridis(1, outc);
	for (int a = 0; a < 3; a++)
		in[a] = srgb_to_linear(in[a]) * 1.0, outc[a] = srgb_to_linear(outc[a]);
	CHECK(fabs(im.rgb[3 * c + 1] - in[1]) < 1e-4 && fabs(im.rgb[3 * c] - in[0]) < 1e-4,
	      "inside (rank -1) the low end of viridis: %.4f,%.4f (expected %.4f,%.4f)",
	      im.rgb[3 * c], im.rgb[3 * c + 1], in[0], in[1]);
	CHECK(fabs(im.rgb[3 * e + 1] - outc[1]) < 1e-4 && im.rgb[3 * e + 1] > 10 * im.rgb[3 * c + 1],
	      "outside (rank 3) the high end: green %.4f vs %.4f inside",
	      im.rgb[3 * e + 1], im.rgb[3 * c + 1]);
	/* the record's nbr and the computed one: same picture */
	make_cube(&rn, 0, 1);
	draw(&im2, &rn, &st, NULL, NULL);
	CHECK(!memcmp(im.rgb, im2.rgb, sizeof(float) * 3 * W * H),
	      "the nbr channel gives the picture of the computed neighbours");
	rimage_free(&im2);
	/* a given range: rank 3 at the bottom of 3..7 */
	st.have_range = 1;
	st.lo = 3;
	st.hi = 7;
	draw(&im2, &r, &st, NULL, NULL);
	CHECK(fabs(im2.rgb[3 * e + 1] - in[1]) < 1e-4, "with --tet-range 3,7 rank 3 is the low end");
	rimage_free(&im2);
	/* the other side kept: seen from +z its outer face at z = 1 */
	st.have_range = 0;
	st.keep_above = 1;
	draw(&im2, &r, &st, NULL, NULL);
	CHECK(fabs(im2.z[pix(0, 0, 1)] - 5) < 1e-4, "keep above: the front face at %.4f",
	      im2.z[pix(0, 0, 1)]);
	rimage_free(&im2);
	/* no such channel */
	slc_err err;
	camera cam;
	const double eye[3] = {0, 0, 6}, tgt[3] = {0, 0, 0}, up[3] = {0, 1, 0};
	camera_init(&cam, eye, tgt, up, 40, W, H, NULL);
	rimage_alloc(&im2, W, H, bg, NULL);
	st.field = "nope";
	CHECK(render_tets(&im2, &cam, &r, &st, NULL, NULL, &err) == -1 &&
	      strstr(err.msg, "'nope'"), "a missing channel named: %s", err.msg);
	rimage_free(&im2);
	rimage_free(&im);
	slc_rec_free(&r);
	slc_rec_free(&rn);
}

static void
test_threads(void)
{
	slc_rec r;
	rimage a, b, c;
	tets_style st;

	make_cube(&r, 1, 0);
	style(&st);
	st.cut = 1;
	st.axis = 1;
	st.pos = 0.1;
	omp_set_num_threads(1);
	draw(&a, &r, &st, NULL, NULL);
	draw(&b, &r, &st, NULL, NULL);
	omp_set_num_threads(2);
	draw(&c, &r, &st, NULL, NULL);
	CHECK(!memcmp(a.rgb, b.rgb, sizeof(float) * 3 * W * H) &&
	      !memcmp(a.rgb, c.rgb, sizeof(float) * 3 * W * H) &&
	      !memcmp(a.z, c.z, sizeof(float) * W * H),
	      "same picture twice and from 1 and 2 threads");
	rimage_free(&a);
	rimage_free(&b);
	rimage_free(&c);
	slc_rec_free(&r);
}

int
main(void)
{
	test_neighbours();
	test_surface();
	test_cut();
	test_threads();
	return ctest_done();
}
