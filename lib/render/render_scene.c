/* render_scene.c: one picture of a whole frame: picks the records to draw
 * (level sets, smoke, meshes, particles, strands), gives each a colour by
 * its name, and draws them in an order that composites with depth. */
#include "render/render.h"
#include "render/render_tets.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ambient fraction of the surface shading. */
#define SCENE_AMBIENT 0.25
/* Default splat radius as a fraction of the scene's diagonal. */
#define SCENE_RADIUS_FRACTION 0.004
/* Kajiya-Kay highlight of hair: its weight and exponent.  Neither the
 * model (Kajiya and Kay 1989) nor selle2008 §7.6 fixes them: a soft white
 * sheen that leaves the hair's colour dominant. */
#define HAIR_SPEC 0.25
#define HAIR_SHINE 32

enum { ITEM_NONE, ITEM_LEVELSET, ITEM_DENSITY, ITEM_MESH, ITEM_PARTICLES,
       ITEM_STRANDS };

/* What r is drawn as: nothing when so->only leaves it out. */
static int
classify(const slc_rec *r, const scene_opts *so)
{
	if (so->only && !slc_name_listed(r->name, so->only))
		return ITEM_NONE;
	switch (r->kind) {
	case SLC_GRID:
		if (slc_name_listed(r->name, so->levelsets))
			return ITEM_LEVELSET;
		if (slc_name_listed(r->name, so->densities))
			return ITEM_DENSITY;
		return ITEM_NONE;
	case SLC_MESH:
		return ITEM_MESH;
	case SLC_PARTICLES:
		return ITEM_PARTICLES;
	case SLC_STRANDS:
		return ITEM_STRANDS;
	default:
		return ITEM_NONE;
	}
}

/* Points of a record as floats (caller frees): a mesh's from
 * so->shell_points when it has that channel, else P. */
static float *
points(const slc_rec *r, const scene_opts *so, size_t *np, slc_err *err)
{
	uint64_t n = 0, k;
	const char *name = r->kind == SLC_MESH && so->shell_points &&
			   slc_rec_find(r, so->shell_points) ? so->shell_points : "P";
	double *d = slc_rec_get_f64(r, name, 3, &n, err);
	float *p;

	if (!d)
		return NULL;
	p = slc_calloc(n ? n : 1, 3 * sizeof *p, err);
	if (p)
		for (k = 0; k < 3 * n; k++)
			p[k] = (float)d[k];
	free(d);
	*np = n;
	return p;
}

static void
grow(double lo[3], double hi[3], const double x[3])
{
	int a;

	for (a = 0; a < 3; a++) {
		lo[a] = fmin(lo[a], x[a]);
		hi[a] = fmax(hi[a], x[a]);
	}
}

/* 1 if x has finite coordinates. */
static int
finite3(const double x[3])
{
	return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

int
scene_bounds(const slc_frame *F, const scene_opts *so, double lo[3],
	     double hi[3], slc_err *err)
{
	size_t k, q, np;
	int count = 0, a, bad;
	double blo[3] = {INFINITY, INFINITY, INFINITY};
	double bhi[3] = {-INFINITY, -INFINITY, -INFINITY};

	for (k = 0; k < F->n; k++) {
		const slc_rec *r = F->r[k];
		int item = classify(r, so);

		if (item == ITEM_NONE)
			continue;
		if (slc_frame_decode(F, F->r[k], err))
			return -1;
		bad = 0;
		if (item == ITEM_LEVELSET || item == ITEM_DENSITY) {
			field f;
			int i, j, kk, any = 0, nc[3];
			double x[3];

			if (field_from_rec(&f, r, NULL, err))
				return slc_failctx(err, "record '%s': ", r->name);
			/* the grid's cells grown by a cell on each side hold
			 * every point below: positions beyond the range of a
			 * double would make the box and every ray through
			 * the grid infinite */
			field_cell_dims(&f, &nc[0], &nc[1], &nc[2]);
			for (a = 0; a < 3; a++)
				bad |= !isfinite(f.origin[a] - f.dx) ||
				       !isfinite(f.origin[a] + f.dx * ((nc[a] > 0 ? nc[a] : 1) + 1.0));
			if (bad)
				return slc_fail(err, "record '%s': grid extent overflows: origin (%g, %g, %g) "
						"+ %dx%dx%d cells of dx %g is not finite", r->name,
						f.origin[0], f.origin[1], f.origin[2], nc[0], nc[1],
						nc[2], f.dx);
			/* the samples inside the surface or holding smoke,
			 * grown by a cell; the whole grid if there are none */
			for (kk = 0; kk < f.nk; kk++)
				for (j = 0; j < f.nj; j++)
					for (i = 0; i < f.ni; i++) {
						float v = f.a[FIELD_IDX(&f, i, j, kk)];

						if (item == ITEM_LEVELSET ? !(v <= so->iso * f.dx) : !(v > 0))
							continue;
						field_pos(&f, i, j, kk, x);
						for (a = 0; a < 3; a++)
							x[a] -= f.dx;
						grow(blo, bhi, x);
						for (a = 0; a < 3; a++)
							x[a] += 2 * f.dx;
						grow(blo, bhi, x);
						any = 1;
					}
			if (!any) {
				grow(blo, bhi, f.origin);
				for (a = 0; a < 3; a++)
					x[a] = f.origin[a] + f.dx * (nc[a] > 0 ? nc[a] : 1);
				grow(blo, bhi, x);
			}
		} else {
			float *P = points(r, so, &np, err);

			if (!P)
				return slc_failctx(err, "record '%s': ", r->name);
			for (q = 0; q < np; q++) {
				double x[3] = {P[3 * q], P[3 * q + 1], P[3 * q + 2]};

				grow(blo, bhi, x);
				bad |= !finite3(x);
			}
			free(P);
			/* drawn in single precision (points()) */
			if (bad)
				return slc_fail(err, "record '%s': a point is beyond the range of "
						"single precision (%g)", r->name, FLT_MAX);
		}
		count++;
	}
	if (!count || !(blo[0] <= bhi[0]))
		return 0;
	/* one point (a lone particle): no size to frame a camera on or to
	 * scale the default splat by, so the picture would be blank; a
	 * given splat radius is its size */
	if (blo[0] == bhi[0] && blo[1] == bhi[1] && blo[2] == bhi[2]) {
		if (!(so->radius > 0))
			return slc_fail(err, "the records drawn are a single point with no size "
					"(give the particles a radius)");
		for (a = 0; a < 3; a++) {
			blo[a] -= so->radius;
			bhi[a] += so->radius;
		}
	}
	memcpy(lo, blo, sizeof blo);
	memcpy(hi, bhi, sizeof bhi);
	return count;
}

int
scene_all_bounds(const slc_frame *F, const scene_opts *so, const char *names,
		 double lo[3], double hi[3], slc_err *err)
{
	scene_opts o = *so;
	int n, t;

	o.only = names;
	if ((n = scene_bounds(F, &o, lo, hi, err)) < 0)
		return -1;
	if (n == 0)
		for (int a = 0; a < 3; a++)
			lo[a] = INFINITY, hi[a] = -INFINITY;
	if ((t = tets_frame_bounds(F, names, lo, hi, err)) < 0)
		return -1;
	return n + t;
}

/* Linear albedo by record name: water blue, cloth red, hair brown,
 * particles pale blue, anything else (solids, bodies, the level sets
 * solid and rigid_phi) light grey. */
static void
albedo_for(const slc_rec *r, int item, double c[3])
{
	static const double water[3] = {0.10, 0.30, 0.70};
	static const double cloth[3] = {0.65, 0.12, 0.08};
	static const double hair[3] = {0.30, 0.16, 0.06};
	static const double drops[3] = {0.45, 0.60, 0.85};
	static const double solid[3] = {0.55, 0.55, 0.52};
	const double *s = solid;

	if (item == ITEM_LEVELSET && strcmp(r->name, "solid") != 0 &&
	    strcmp(r->name, "rigid_phi") != 0)
		s = water;
	else if (item == ITEM_STRANDS)
		s = hair;
	else if (item == ITEM_PARTICLES)
		s = drops;
	else if (item == ITEM_MESH && strstr(r->name, "cloth"))
		s = cloth;
	memcpy(c, s, 3 * sizeof *c);
}

/* Strands of record r (points P, offsets off) as Kajiya-Kay ribbons
 * so->hair_width wide (0: r0, the splat radius), in the record's Cd
 * (f32 x3, linear, per strand or per point), else so->hair_rgb when set,
 * else the albedo of the record's name. */
static int
draw_strands(rimage *im, const camera *cam, const slc_rec *r, const float *P,
	     size_t np, const uint32_t *off, size_t ns, const shade_style *st,
	     const scene_opts *so, double r0, slc_err *err)
{
	const slc_chan *cd = slc_rec_find(r, "Cd");
	strand_style hs;

	memset(&hs, 0, sizeof hs);
	memcpy(hs.albedo, so->hair_rgb_set ? so->hair_rgb : st->albedo, sizeof hs.albedo);
	memcpy(hs.light, st->light, sizeof hs.light);
	hs.ambient = st->ambient;
	hs.width = so->hair_width > 0 ? so->hair_width : r0;
	hs.spec = HAIR_SPEC;
	hs.shine = HAIR_SHINE;
	if (cd) {
		if (cd->type != SLC_F32 || cd->ncomp != 3 ||
		    !((cd->domain == SLC_STRAND && cd->count == ns) ||
		      (cd->domain == SLC_POINT && cd->count == np)))
			return slc_fail(err, "channel 'Cd' must be f32x3 per strand or per point");
		hs.cd = cd->data;
		hs.cd_point = cd->domain == SLC_POINT;
	}
	return raster_strands(im, cam, P, np, off, ns, &hs, err);
}

static int
draw_points(rimage *im, const camera *cam, const slc_rec *r, int item,
	    const shade_style *st, const scene_opts *so, double r0, slc_err *err)
{
	size_t np = 0;
	float *P = points(r, so, &np, err);
	int rc = -1;

	if (!P)
		return -1;
	if (item == ITEM_MESH) {
		const uint32_t *tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err);
		const slc_chan *c = slc_rec_find(r, "tri");

		if (tri)
			rc = raster_mesh(im, cam, P, np, tri, c->count, st, err);
	} else if (item == ITEM_PARTICLES) {
		const slc_chan *c = slc_rec_find(r, "radius");

		if (!c)
			c = slc_rec_find(r, "pscale");
		if (c && (c->type != SLC_F32 || c->ncomp != 1 || c->count != np))
			rc = slc_fail(err, "channel '%s' must be f32x1 per point", c->name);
		else
			rc = raster_spheres(im, cam, P, np, c ? c->data : NULL, r0,
					    st, err);
	} else {
		const uint32_t *off = slc_rec_get(r, "offset", SLC_U32, 1, 0, err);
		const slc_chan *c = slc_rec_find(r, "offset");

		if (off && c->count < 1)
			rc = slc_fail(err, "empty strand offset table");
		else if (off)
			rc = draw_strands(im, cam, r, P, np, off, c->count - 1, st, so,
					  r0, err);
	}
	free(P);
	return rc;
}

/* The meshes drawn of the frame as shells around the grid f (none unless
 * wanted); os is left empty (ntri 0) when there are none. */
static int
shells(oneside *os, const field *f, const slc_frame *F, const scene_opts *so,
       int wanted, slc_err *err)
{
	size_t m;
	int rc;

	memset(os, 0, sizeof *os);
	if (!wanted)
		return 0;
	rc = oneside_init(os, f, so->shell_eps * f->dx, err);
	for (m = 0; m < F->n && !rc; m++) {
		const slc_rec *r = F->r[m];
		size_t np = 0;
		float *P;
		const uint32_t *tri;

		if (classify(r, so) != ITEM_MESH)
			continue;
		if (slc_frame_decode(F, F->r[m], err))
			return -1;
		P = points(r, so, &np, err);
		tri = P ? slc_rec_get(r, "tri", SLC_U32, 3, 0, err) : NULL;
		rc = tri ? oneside_add_mesh(os, P, np, tri, slc_rec_find(r, "tri")->count, err)
			 : -1;
		free(P);
		if (rc)
			slc_failctx(err, "shell '%s': ", r->name);
	}
	if (!rc && os->sh.ntri)
		rc = oneside_build(os, err);
	return rc;
}

int
scene_draw(rimage *im, const camera *cam, const slc_frame *F,
	   const scene_opts *so, double diag, slc_err *err)
{
	double r0 = so->radius > 0 ? so->radius : SCENE_RADIUS_FRACTION * diag;
	size_t k;
	int pass;

	/* opaque points and meshes, then level sets, then smoke */
	for (pass = 0; pass < 3; pass++)
		for (k = 0; k < F->n; k++) {
			const slc_rec *r = F->r[k];
			int item = classify(r, so), rc = 0;
			shade_style st;

			if (item != ITEM_NONE && slc_frame_decode(F, F->r[k], err))
				return -1;
			memset(&st, 0, sizeof st);
			albedo_for(r, item, st.albedo);
			memcpy(st.light, so->light, sizeof st.light);
			st.ambient = SCENE_AMBIENT;
			st.smooth = so->smooth;
			if (pass == 0 && item >= ITEM_MESH) {
				rc = draw_points(im, cam, r, item, &st, so, r0, err);
			} else if (pass == 1 && item == ITEM_LEVELSET) {
				field f;
				oneside os, *osp = NULL;

				if (field_from_rec(&f, r, NULL, err))
					return slc_failctx(err, "record '%s': ", r->name);
				if (so->iso != 0) {
					/* the level set phi - iso: a copy we own */
					field g;
					size_t q;

					if (field_alloc_like(&g, &f, err))
						return slc_failctx(err, "record '%s': ", r->name);
					for (q = 0; q < field_count(&f); q++)
						g.a[q] = (float)(f.a[q] - so->iso * f.dx);
					f = g;
				}
				/* a solid's own level set is not evaluated
				 * against its own surface */
				rc = shells(&os, &f, F, so,
					    so->one_sided && strcmp(r->name, "solid") != 0, err);
				osp = os.sh.ntri ? &os : NULL;
				if (!rc)
					rc = render_levelset(im, cam, &f, osp, &st, err);
				oneside_free(&os);
				field_free(&f);     /* frees only the iso copy */
			} else if (pass == 2 && item == ITEM_DENSITY) {
				field f;
				volume_style vs = so->smoke;
				oneside os;

				memcpy(vs.light, so->light, sizeof vs.light);
				memset(&os, 0, sizeof os);
				rc = field_from_rec(&f, r, NULL, err);
				if (!rc)
					rc = shells(&os, &f, F, so, so->one_sided, err);
				os.zero_fallback = 1;
				if (!rc)
					rc = render_volume(im, cam, &f, os.sh.ntri ? &os : NULL, &vs, err);
				oneside_free(&os);
			}
			if (rc)
				return slc_failctx(err, "record '%s': ", r->name);
		}
	return 0;
}

/* The grid named name of F, or its first grid for NULL; either only
 * among the grids named in only (NULL: any).  Not decoded: the caller
 * decodes what it reads (slc_frame_decode). */
static slc_rec *
find_grid(const slc_frame *F, const char *only, const char *name)
{
	slc_rec *r = NULL;
	size_t k;

	if (name)
		r = slc_frame_find_undecoded(F, name, SLC_GRID);
	for (k = 0; !name && k < F->n && !r; k++)
		if (F->r[k]->kind == SLC_GRID && (!only || slc_name_listed(F->r[k]->name, only)))
			r = F->r[k];
	return r && (!only || slc_name_listed(r->name, only)) ? r : NULL;
}

/* The field to slice (owned or borrowed, *owned says). */
static int
slice_field(const slc_frame *F, const char *only, const char **name, field *f,
	    int *owned, slc_err *err)
{
	slc_rec *r;
	field parts[3];
	int k;

	*owned = 0;
	if (!*name)
		*name = find_grid(F, only, "phi") ? "phi"
			: find_grid(F, only, "density") ? "density" : NULL;
	if (*name && !strcmp(*name, "speed")) {
		static const char *const uvw[3] = {"u", "v", "w"};

		for (k = 0; k < 3; k++) {
			if (!(r = find_grid(F, only, uvw[k])))
				return slc_fail(err, "speed: no velocity grid '%s'", uvw[k]);
			if (slc_frame_decode(F, r, err) || field_from_rec(&parts[k], r, NULL, err))
				return slc_failctx(err, "speed: record '%s': ", r->name);
		}
		if (render_speed(&parts[0], &parts[1], &parts[2], f, err))
			return slc_failctx(err, "speed: ");
		*owned = 1;
		return 0;
	}
	if (!(r = find_grid(F, only, *name))) {
		if (*name)
			return slc_fail(err, "no grid '%s' to slice", *name);
		return slc_fail(err, "no grid record to slice");
	}
	*name = r->name;
	if (slc_frame_decode(F, r, err) || field_from_rec(f, r, NULL, err))
		return slc_failctx(err, "record '%s': ", r->name);
	return 0;
}

int
scene_slices(rimage *im, const slc_frame *F, const char *only, const char *name,
	     const char *levelsets, const slice_spec *sp, int ns, double iso,
	     const double *range, slc_err *err)
{
	field f;
	slice_style ss;
	int k, owned, nc[3], rc = 0, is_ls;

	if (slice_field(F, only, &name, &f, &owned, err))
		return -1;
	is_ls = slc_name_listed(name, levelsets);
	if (iso != 0 && is_ls) {
		/* the level set phi - iso: contour and colours about iso */
		field g;
		size_t q;

		if (field_alloc_like(&g, &f, err)) {
			if (owned)
				field_free(&f);
			return -1;
		}
		for (q = 0; q < field_count(&f); q++)
			g.a[q] = (float)(f.a[q] - iso * f.dx);
		if (owned)
			field_free(&f);
		f = g;
		owned = 1;
	}
	memset(&ss, 0, sizeof ss);
	ss.map = is_ls ? SLICE_DIVERGING : SLICE_SEQUENTIAL;
	ss.contour = is_ls;
	if (range) {
		ss.lo = range[0];
		ss.hi = range[1];
	} else {
		size_t q, m = field_count(&f);

		ss.lo = INFINITY;
		ss.hi = -INFINITY;
		for (q = 0; q < m; q++) {
			ss.lo = fmin(ss.lo, is_ls ? -fabs(f.a[q]) : f.a[q]);
			ss.hi = fmax(ss.hi, is_ls ? fabs(f.a[q]) : f.a[q]);
		}
	}
	field_cell_dims(&f, &nc[0], &nc[1], &nc[2]);
	for (k = 0; k < ns && !rc; k++) {
		double pos = sp[k].percent
			? f.origin[sp[k].axis] + sp[k].pos / 100 * f.dx * nc[sp[k].axis]
			: sp[k].pos;
		int x0 = (int)((long)im->w * k / ns), x1 = (int)((long)im->w * (k + 1) / ns);

		if (x1 - x0 < 1)
			rc = slc_fail(err, "picture %d pixels wide is too narrow for %d slices",
				      im->w, ns);
		else if (render_slice(im, x0, 0, x1 - x0, im->h, &f, sp[k].axis, pos,
				      &ss, NULL, NULL, err))
			rc = slc_failctx(err, "field '%s': ", name);
	}
	if (owned)
		field_free(&f);
	return rc;
}
