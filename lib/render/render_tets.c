/* render_tets.c: a tetrahedral mesh as its outer surface and a cut
 * through it coloured by a per-tet channel (see render_tets.h). */
#include "render/render_tets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/colormap.h"

/* The face opposite corner k of a positive tet, wound outward. */
static const int face_of[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

typedef struct face_key {
	uint32_t a, b, c;       /* sorted node indices */
	uint32_t id;            /* 4 tet + corner */
} face_key;

static int
face_cmp(const void *pa, const void *pb)
{
	const face_key *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int
tets_neighbours(const uint32_t *tet, size_t nt, int32_t **nbr, slc_err *err)
{
	face_key *f;
	size_t nf, q, e;
	int32_t *o;

	*nbr = NULL;
	if (nt > (size_t)INT32_MAX / 4 || slc_mul(nt, 4, &nf))
		return slc_fail(err, "%zu tets are too many", nt);
	f = slc_calloc(nf ? nf : 1, sizeof *f, err);
	o = f ? slc_calloc(nf ? nf : 1, sizeof *o, err) : NULL;
	if (!o) {
		free(f);
		return -1;
	}
	for (q = 0; q < nf; q++) {
		const uint32_t *t = tet + 4 * (q / 4);
		const int *c = face_of[q % 4];
		uint32_t u = t[c[0]], v = t[c[1]], w = t[c[2]], s;

		if (u > v)
			s = u, u = v, v = s;
		if (v > w)
			s = v, v = w, w = s;
		if (u > v)
			s = u, u = v, v = s;
		f[q] = (face_key){u, v, w, (uint32_t)q};
		o[q] = -1;
	}
	qsort(f, nf, sizeof *f, face_cmp);
	for (q = 0; q < nf; q = e) {
		for (e = q + 1; e < nf && f[e].a == f[q].a && f[e].b == f[q].b &&
		     f[e].c == f[q].c; e++)
			;
		if (e - q > 2) {
			uint32_t a = f[q].a, b = f[q].b, c = f[q].c;

			free(f);
			free(o);
			return slc_fail(err, "face %u,%u,%u is shared by %zu tets", a, b, c, e - q);
		}
		if (e - q == 2) {
			o[f[q].id] = (int32_t)(f[q + 1].id / 4);
			o[f[q + 1].id] = (int32_t)(f[q].id / 4);
		}
	}
	free(f);
	*nbr = o;
	return 0;
}

/* The record's nodes, tets and optional alive flags, checked. */
typedef struct tmesh {
	double *P;              /* nn*3, owned */
	size_t nn, nt;
	const uint32_t *tet;
	const uint8_t *alive;   /* NULL: all live */
} tmesh;

static int
tmesh_get(tmesh *m, const slc_rec *r, slc_err *err)
{
	const slc_chan *c;
	uint64_t n = 0;
	size_t q;

	memset(m, 0, sizeof *m);
	if (!(m->P = slc_rec_get_f64(r, "P", 3, &n, err)))
		return -1;
	m->nn = n;
	if (!(m->tet = slc_rec_get(r, "tet", SLC_U32, 4, 0, err)))
		goto bad;
	m->nt = slc_rec_find(r, "tet")->count;
	for (q = 0; q < 4 * m->nt; q++)
		if (m->tet[q] >= m->nn) {
			slc_fail(err, "tet %zu: node %u out of range (%zu nodes)", q / 4,
				 m->tet[q], m->nn);
			goto bad;
		}
	if ((c = slc_rec_find(r, SLC_TET_ALIVE)) &&
	    !(m->alive = slc_rec_get(r, SLC_TET_ALIVE, SLC_U8, 1, m->nt, err)))
		goto bad;
	return 0;
bad:
	free(m->P);
	m->P = NULL;
	return -1;
}

int
tets_bounds(const slc_rec *r, double lo[3], double hi[3], slc_err *err)
{
	tmesh m;
	size_t t;
	int k, a, any = 0;

	if (tmesh_get(&m, r, err))
		return -1;
	for (a = 0; a < 3; a++)
		lo[a] = INFINITY, hi[a] = -INFINITY;
	for (t = 0; t < m.nt; t++) {
		if (m.alive && !m.alive[t])
			continue;
		any = 1;
		for (k = 0; k < 4; k++)
			for (a = 0; a < 3; a++) {
				double x = m.P[3 * m.tet[4 * t + k] + a];

				lo[a] = fmin(lo[a], x);
				hi[a] = fmax(hi[a], x);
			}
	}
	free(m.P);
	return any;
}

/* Value of the first component of element t of c, as a double. */
static double
chan_at(const slc_chan *c, size_t t)
{
	size_t q = t * c->ncomp;

	switch (c->type) {
	case SLC_U8: return ((const uint8_t *)c->data)[q];
	case SLC_I32: return ((const int32_t *)c->data)[q];
	case SLC_U32: return ((const uint32_t *)c->data)[q];
	case SLC_F32: return ((const float *)c->data)[q];
	case SLC_F64: return ((const double *)c->data)[q];
	case SLC_I64: return (double)((const int64_t *)c->data)[q];
	default: return (double)((const uint64_t *)c->data)[q];
	}
}

/* The face opposite corner k of tet t appended to tri. */
static void
put_face(uint32_t *tri, size_t *n, const uint32_t *tet, size_t t, int k)
{
	int c;

	for (c = 0; c < 3; c++)
		tri[3 * *n + c] = tet[4 * t + face_of[k][c]];
	(*n)++;
}

int
render_tets(rimage *im, const camera *cam, const slc_rec *r,
	    const tets_style *st, double *plo, double *phi_, slc_err *err)
{
	const char *fname = st->field ? st->field : "rank";
	const slc_chan *fc = NULL, *nc;
	int32_t *own_nbr = NULL;
	const int32_t *nbr;
	uint8_t *kept = NULL;
	uint32_t *tri = NULL, *ctri = NULL;
	uint16_t *clev = NULL;
	size_t *lcount = NULL;
	float *Pf = NULL;
	double pos = st->pos, lo = st->lo, hi = st->hi;
	size_t t, ns = 0, ncut = 0, q;
	tmesh m;
	shade_style ss;
	int k, rc = -1;

	if (tmesh_get(&m, r, err))
		return -1;
	nc = slc_rec_find(r, "nbr");
	if (nc) {
		if (!(nbr = slc_rec_get(r, "nbr", SLC_I32, 4, m.nt, err)))
			goto out;
		for (q = 0; q < 4 * m.nt; q++)
			if (nbr[q] < -1 || nbr[q] >= (int64_t)m.nt) {
				slc_fail(err, "channel 'nbr': tet %zu: neighbour %d out of range",
					 q / 4, nbr[q]);
				goto out;
			}
	} else {
		if (tets_neighbours(m.tet, m.nt, &own_nbr, err))
			goto out;
		nbr = own_nbr;
	}
	if (st->cut) {
		fc = slc_rec_find(r, fname);
		if (!fc || fc->domain != SLC_PRIM || fc->count != m.nt) {
			slc_fail(err, "no per-tet channel '%s' to colour the cut by", fname);
			goto out;
		}
		if (slc_rec_decode((slc_rec *)r, err))
			goto out;
		if (st->percent) {
			double blo[3], bhi[3];

			if (tets_bounds(r, blo, bhi, err) < 0)
				goto out;
			pos = blo[st->axis] + st->pos / 100 * (bhi[st->axis] - blo[st->axis]);
		}
	}
	kept = slc_calloc(m.nt ? m.nt : 1, 1, err);
	Pf = kept ? slc_calloc(m.nn ? m.nn : 1, 3 * sizeof *Pf, err) : NULL;
	if (!Pf)
		goto out;
	for (q = 0; q < 3 * m.nn; q++)
		Pf[q] = (float)m.P[q];
	for (t = 0; t < m.nt; t++) {
		double x = 0;

		if (m.alive && !m.alive[t])
			continue;
		for (k = 0; k < 4; k++)
			x += m.P[3 * m.tet[4 * t + k] + st->axis] / 4;
		kept[t] = !st->cut || (st->keep_above ? x > pos : x < pos);
	}
	/* count the surface faces and the cut faces, then fill them */
	for (t = 0; t < m.nt; t++)
		for (k = 0; kept[t] && k < 4; k++) {
			int32_t n = nbr[4 * t + k];

			if (n < 0 || (m.alive && !m.alive[n]))
				ns++;
			else if (!kept[n])
				ncut++;
		}
	/* tri holds the surface, then each colour level of the cut in turn */
	tri = slc_calloc(ns > ncut ? ns : ncut ? ncut : 1, 3 * sizeof *tri, err);
	ctri = tri ? slc_calloc(ncut ? ncut : 1, 3 * sizeof *ctri, err) : NULL;
	clev = ctri ? slc_calloc(ncut ? ncut : 1, sizeof *clev, err) : NULL;
	lcount = clev ? slc_calloc(TETS_CMAP_LEVELS + 1, sizeof *lcount, err) : NULL;
	if (!lcount)
		goto out;
	if (fc && !st->have_range) {
		lo = INFINITY, hi = -INFINITY;
		for (t = 0; t < m.nt; t++)
			for (k = 0; kept[t] && k < 4; k++) {
				int32_t n = nbr[4 * t + k];

				if (n >= 0 && !(m.alive && !m.alive[n]) && !kept[n]) {
					lo = fmin(lo, chan_at(fc, t));
					hi = fmax(hi, chan_at(fc, t));
				}
			}
		if (!(lo <= hi))
			lo = hi = 0;
	}
	ns = ncut = 0;
	for (t = 0; t < m.nt; t++)
		for (k = 0; kept[t] && k < 4; k++) {
			int32_t n = nbr[4 * t + k];

			if (n < 0 || (m.alive && !m.alive[n])) {
				put_face(tri, &ns, m.tet, t, k);
			} else if (!kept[n]) {
				double v = (chan_at(fc, t) - lo) / (hi > lo ? hi - lo : 1);

				v = isfinite(v) ? fmin(1, fmax(0, v)) : 0;
				clev[ncut] = (uint16_t)lrint(v * (TETS_CMAP_LEVELS - 1));
				lcount[clev[ncut]]++;
				put_face(ctri, &ncut, m.tet, t, k);
			}
		}
	memset(&ss, 0, sizeof ss);
	memcpy(ss.albedo, st->albedo, sizeof ss.albedo);
	memcpy(ss.light, st->light, sizeof ss.light);
	ss.ambient = st->ambient;
	ss.smooth = st->smooth;
	if (raster_mesh(im, cam, Pf, m.nn, tri, ns, &ss, err))
		goto out;
	/* the cut, one flat mesh per colour level in level order */
	ss.smooth = 0;
	for (k = 0; k < TETS_CMAP_LEVELS; k++) {
		size_t n = 0;
		double rgb[3];
		int a;

		if (!lcount[k])
			continue;
		for (q = 0; q < ncut; q++)
			if (clev[q] == k)
				memcpy(tri + 3 * n++, ctri + 3 * q, 3 * sizeof *tri);
		cmap_viridis((double)k / (TETS_CMAP_LEVELS - 1), rgb);
		for (a = 0; a < 3; a++)
			ss.albedo[a] = srgb_to_linear(rgb[a]);
		if (raster_mesh(im, cam, Pf, m.nn, tri, n, &ss, err))
			goto out;
	}
	if (plo)
		*plo = lo;
	if (phi_)
		*phi_ = hi;
	rc = 0;
out:
	free(m.P);
	free(own_nbr);
	free(kept);
	free(tri);
	free(ctri);
	free(clev);
	free(lcount);
	free(Pf);
	return rc;
}

int
tets_frame_bounds(const slc_frame *F, const char *names, double lo[3], double hi[3],
		  slc_err *err)
{
	double a[3], b[3];
	size_t k;
	int n = 0, c, q;

	for (k = 0; k < F->n; k++) {
		const slc_rec *r = F->r[k];

		if (r->kind != SLC_TETS || (names && !slc_name_listed(r->name, names)))
			continue;
		if ((c = tets_bounds(r, a, b, err)) < 0)
			return slc_failctx(err, "record '%s': ", r->name);
		for (q = 0; c && q < 3; q++) {
			lo[q] = fmin(lo[q], a[q]);
			hi[q] = fmax(hi[q], b[q]);
		}
		n += c;
	}
	return n;
}

int
tets_frame_draw(rimage *im, const camera *cam, const slc_frame *F, const char *names,
		const tets_style *s, slc_err *err)
{
	size_t k;

	for (k = 0; k < F->n; k++)
		if (F->r[k]->kind == SLC_TETS && (!names || slc_name_listed(F->r[k]->name, names)) &&
		    render_tets(im, cam, F->r[k], s, NULL, NULL, err))
			return slc_failctx(err, "record '%s': ", F->r[k]->name);
	return 0;
}
