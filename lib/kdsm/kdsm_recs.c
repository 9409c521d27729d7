/* kdsm_recs.c: the KDSM's records (kdsm_recs.h). */
#include "kdsm/kdsm_recs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "geom/sdf_recs.h"

void
kdsm_skin_buf_free(kdsm_skin_buf *buf)
{
	free(buf->P);
	free(buf->R);
	free(buf->v);
	memset(buf, 0, sizeof *buf);
}

/* "a,b,..." of 12 numbers into m. */
static int
twelve(const slc_rec *sk, const char *key, double *m, slc_err *err)
{
	char val[1024], *p = val, *end;
	int i;

	if (!slc_meta_get(sk, key, val, sizeof val))
		return slc_fail(err, "meta 'skeleton': no %s", key);
	for (i = 0; i < 12; i++, p = end + 1) {
		m[i] = strtod(p, &end);
		if (end == p || !isfinite(m[i]) || *end != (i < 11 ? ',' : '\0'))
			return slc_fail(err, "meta 'skeleton': %s: expected 12 numbers", key);
	}
	return 0;
}

/* An optional f32 point channel of ncomp (or at least ncomp when
 * atleast) components; NULL when absent. */
static int
opt_f32(const slc_rec *r, const char *name, int ncomp, int atleast, const float **out,
	slc_err *err)
{
	const slc_chan *c = slc_rec_find(r, name);

	*out = NULL;
	if (!c)
		return 0;
	if (c->type != SLC_F32 || c->domain != SLC_POINT ||
	    (atleast ? c->ncomp < ncomp : c->ncomp != ncomp))
		return slc_fail(err, "mesh '%s': channel '%s': %s x%u %s, expected f32 x%s%d point",
				r->name, name, slc_type_name(c->type), c->ncomp,
				slc_domain_name(c->domain), atleast ? ">=" : "", ncomp);
	*out = c->data;
	return 0;
}

int
kdsm_skin_read(const slc_frame *F, const char *name, kdsm_skin *s, kdsm_skin_buf *buf,
	       slc_err *err)
{
	const slc_rec *r = NULL, *sk = slc_frame_find(F, "skeleton", SLC_META);
	uint64_t np, n;
	double nb = 0;
	char key[32];
	size_t q;
	int b;

	memset(s, 0, sizeof *s);
	memset(buf, 0, sizeof *buf);
	for (q = 0; q < F->n && !r; q++)
		if (F->r[q]->kind == SLC_MESH && (!name || !strcmp(F->r[q]->name, name)))
			r = F->r[q];
	if (!r)
		return slc_fail(err, "no mesh record%s%s", name ? " named " : "", name ? name : "");
	buf->mesh = r;
	if (!(buf->P = slc_rec_get_f64(r, "P", 3, &np, err)) ||
	    !(s->tri = slc_rec_get(r, "tri", SLC_U32, 3, 0, err)))
		goto fail;
	s->nv = np;
	s->nt = slc_rec_find(r, "tri")->count;
	s->P = buf->P;
	if (slc_rec_find(r, "rest") && !(buf->R = slc_rec_get_f64(r, "rest", 3, &n, err)))
		goto fail;
	if (slc_rec_find(r, "v") && !(buf->v = slc_rec_get_f64(r, "v", 3, &n, err)))
		goto fail;
	s->R = buf->R;
	s->v = buf->v;
	if (sk && slc_meta_get_f64(sk, "bones", &nb, err) < 0)
		goto fail;
	if (!(nb >= 0 && nb <= KDSM_BONES_MAX && nb == floor(nb))) {
		slc_fail(err, "meta 'skeleton': bones=%g, expected 0..%d", nb, KDSM_BONES_MAX);
		goto fail;
	}
	s->nbones = (int)nb;
	if (opt_f32(r, "bw", s->nbones > 0 ? s->nbones : 1, 1, &s->bw, err) ||
	    opt_f32(r, "adh", 1, 0, &s->adh, err) || opt_f32(r, "adh_dir", 3, 0, &s->adh_dir, err))
		goto fail;
	s->bw_n = s->bw ? slc_rec_find(r, "bw")->ncomp : 0;
	if (s->nbones > 0 && !s->bw) {
		slc_fail(err, "mesh '%s': a skeleton of %d bones but no channel 'bw'", r->name,
			 s->nbones);
		goto fail;
	}
	if (s->adh_dir && !s->adh) {
		slc_fail(err, "mesh '%s': 'adh_dir' without 'adh'", r->name);
		goto fail;
	}
	for (b = 0; b < s->nbones; b++) {
		snprintf(key, sizeof key, "bone.%d", b);
		if (twelve(sk, key, buf->M + 12 * b, err))
			goto fail;
		snprintf(key, sizeof key, "bone.%d.dot", b);
		if (twelve(sk, key, buf->Mdot + 12 * b, err))
			goto fail;
	}
	s->M = buf->M;
	s->Mdot = buf->Mdot;
	return 0;
fail:
	kdsm_skin_buf_free(buf);
	return -1;
}

static int
meta_num(slc_rec *r, const char *key, double v, slc_err *err)
{
	char val[64];

	snprintf(val, sizeof val, "%.17g", v);
	return slc_meta_set(r, key, val, err);
}

/* Add channel and copy n*size bytes into it. */
static int
put(slc_rec *r, const char *name, uint32_t type, uint32_t ncomp, uint32_t dom,
    uint64_t count, const void *src, slc_err *err)
{
	void *d = slc_rec_add(r, name, type, ncomp, dom, count, err);

	if (!d)
		return -1;
	if (count)
		memcpy(d, src, count * ncomp * slc_type_size(type));
	return 0;
}

int
kdsm_lattice_write(const kdsm_lattice *L, slc_frame *out, slc_err *err)
{
	slc_rec *r = slc_frame_add(out, SLC_TETS, "kdsm_lattice", err), *m;

	if (!r || put(r, "P", SLC_F64, 3, SLC_POINT, L->nn, L->X, err) ||
	    put(r, "tet", SLC_U32, 4, SLC_PRIM, L->nt, L->tet, err) ||
	    put(r, "inside", SLC_U8, 1, SLC_POINT, L->nn, L->inside, err) ||
	    put(r, "ctri", SLC_I32, 1, SLC_POINT, L->nn, L->ctri, err) ||
	    put(r, "cw", SLC_F64, 3, SLC_POINT, L->nn, L->cw, err) ||
	    put(r, "R", SLC_F64, 3, SLC_DETAIL, L->ns, L->R, err) ||
	    put(r, "atet", SLC_I32, 1, SLC_DETAIL, L->ns, L->atet, err) ||
	    put(r, "ab", SLC_F64, 4, SLC_DETAIL, L->ns, L->ab, err))
		return -1;
	if (!(m = slc_frame_add(out, SLC_META, "kdsm_lattice", err)) ||
	    slc_meta_init(m, "kdsm_lattice", err) || meta_num(m, "h", L->h, err) ||
	    meta_num(m, "levels", L->levels, err) || meta_num(m, "samples", L->nsamp, err) ||
	    meta_num(m, "skin_vertices", (double)L->ns, err) ||
	    meta_num(m, "skin_triangles", (double)L->nst, err) ||
	    meta_num(m, "coarse_tets", (double)L->nt, err) ||
	    meta_num(m, "nodes", (double)L->nn, err))
		return -1;
	return 0;
}

/* Copy channel name of r (type, ncomp, count checked) into a new array. */
static void *
take(const slc_rec *r, const char *name, uint32_t type, uint32_t ncomp, uint64_t count,
     slc_err *err)
{
	const void *d = slc_rec_get(r, name, type, ncomp, count, err);
	size_t n = count * ncomp * slc_type_size(type);
	void *c = d ? slc_malloc(n ? n : 1, 1, err) : NULL;

	if (c)
		memcpy(c, d, n);
	return c;
}

int
kdsm_lattice_read(kdsm_lattice *L, const slc_frame *F, slc_err *err)
{
	const slc_rec *r = slc_frame_find(F, "kdsm_lattice", SLC_TETS);
	const slc_rec *m = slc_frame_find(F, "kdsm_lattice", SLC_META);
	double lv = 0, ns = 0, nsamp = 0, nst = 0;
	const slc_chan *c;

	memset(L, 0, sizeof *L);
	if (!r || !m)
		return slc_fail(err, "no tets and meta records 'kdsm_lattice' (from kdsmbake lattice)");
	if (slc_meta_get_f64(m, "h", &L->h, err) != 1 ||
	    slc_meta_get_f64(m, "levels", &lv, err) != 1 ||
	    slc_meta_get_f64(m, "samples", &nsamp, err) != 1 ||
	    slc_meta_get_f64(m, "skin_vertices", &ns, err) != 1 ||
	    slc_meta_get_f64(m, "skin_triangles", &nst, err) != 1 ||
	    !(L->h > 0) || lv < 0 || lv > KDSM_LEVELS_MAX || lv != floor(lv) ||
	    kdsm_rule((int)nsamp, NULL) || !(ns >= 1 && ns < 4e9) || !(nst >= 1 && nst < 4e9))
		return slc_fail(err, "meta 'kdsm_lattice': missing or bad h, levels, samples, "
				"skin_vertices or skin_triangles");
	L->levels = (int)lv;
	L->nsamp = (int)nsamp;
	L->ns = (size_t)ns;
	L->nst = (size_t)nst;
	if (!(c = slc_rec_find(r, "tet")) || !slc_rec_find(r, "P"))
		return slc_fail(err, "tets 'kdsm_lattice': no P or tet");
	L->nt = c->count;
	L->nn = slc_rec_find(r, "P")->count;
	if (!(L->X = take(r, "P", SLC_F64, 3, L->nn, err)) ||
	    !(L->tet = take(r, "tet", SLC_U32, 4, L->nt, err)) ||
	    !(L->inside = take(r, "inside", SLC_U8, 1, L->nn, err)) ||
	    !(L->ctri = take(r, "ctri", SLC_I32, 1, L->nn, err)) ||
	    !(L->cw = take(r, "cw", SLC_F64, 3, L->nn, err)) ||
	    !(L->R = take(r, "R", SLC_F64, 3, L->ns, err)) ||
	    !(L->atet = take(r, "atet", SLC_I32, 1, L->ns, err)) ||
	    !(L->ab = take(r, "ab", SLC_F64, 4, L->ns, err))) {
		kdsm_lattice_free(L);
		return -1;
	}
	for (size_t q = 0; q < L->nn; q++)
		if (L->ctri[q] < 0 || (size_t)L->ctri[q] >= L->nst) {
			kdsm_lattice_free(L);
			return slc_fail(err, "tets 'kdsm_lattice': node %zu: triangle %d out of range",
					q, L->ctri[q]);
		}
	for (size_t q = 0; q < L->ns; q++)
		if (L->atet[q] < -1 || (L->atet[q] >= 0 && (size_t)L->atet[q] >= L->nt)) {
			kdsm_lattice_free(L);
			return slc_fail(err, "tets 'kdsm_lattice': vertex %zu: tet %d out of range",
					q, L->atet[q]);
		}
	return 0;
}

int
kdsm_mesh_write(const kdsm_mesh *m, const kdsm_stats *st, long frame, double t,
		slc_frame *out, slc_err *err)
{
	slc_rec *r = slc_frame_add(out, SLC_TETS, "kdsm", err), *k;

	if (!r)
		return -1;
	r->time = t;
	if (put(r, "P", SLC_F64, 3, SLC_POINT, m->nn, m->P, err) ||
	    put(r, "tet", SLC_U32, 4, SLC_PRIM, m->nt, m->tet, err) ||
	    put(r, "rest", SLC_F64, 3, SLC_POINT, m->nn, m->rest, err) ||
	    put(r, "v", SLC_F32, 3, SLC_POINT, m->nn, m->v, err) ||
	    put(r, "sdf", SLC_F32, 1, SLC_POINT, m->nn, m->sdf, err) ||
	    put(r, "alive", SLC_U8, 1, SLC_PRIM, m->nt, m->alive, err) ||
	    put(r, "occ", SLC_F32, 1, SLC_PRIM, m->nt, m->occ, err) ||
	    put(r, "cut", SLC_U8, 1, SLC_PRIM, m->nt, m->cut, err) ||
	    put(r, "rank", SLC_I32, 1, SLC_PRIM, m->nt, m->rank, err) ||
	    put(r, "n", SLC_F32, 3, SLC_PRIM, m->nt, m->n, err) ||
	    put(r, "vobj", SLC_F32, 3, SLC_PRIM, m->nt, m->vobj, err) ||
	    put(r, "cap", SLC_F64, 1, SLC_PRIM, m->nt, m->cap, err) ||
	    put(r, "nbr", SLC_I32, 4, SLC_PRIM, m->nt, m->nbr, err) ||
	    put(r, "dist", SLC_F32, 1, SLC_PRIM, m->nt, m->dist, err) ||
	    (m->adh && put(r, "adh", SLC_F32, 1, SLC_PRIM, m->nt, m->adh, err)) ||
	    (m->adh_dir && put(r, "adh_dir", SLC_F32, 3, SLC_PRIM, m->nt, m->adh_dir, err)) ||
	    (m->hair && put(r, "hair", SLC_F32, 1, SLC_PRIM, m->nt, m->hair, err)) ||
	    (m->hair_dir && put(r, "hair_dir", SLC_F32, 3, SLC_PRIM, m->nt, m->hair_dir, err)) ||
	    put(r, "nl_off", SLC_U32, 1, SLC_DETAIL, m->nt + 1, m->nl_off, err) ||
	    put(r, "nl_idx", SLC_I32, 1, SLC_DETAIL, m->nl_off[m->nt], m->nl_idx, err) ||
	    put(r, "qb", SLC_F64, 4, SLC_DETAIL, (uint64_t)m->nsamp, m->qb, err))
		return -1;
	if (!(k = slc_frame_add(out, SLC_META, "kdsmbake", err)) ||
	    slc_meta_init(k, "kdsmbake", err))
		return -1;
	k->time = t;
	if (meta_num(k, "frame", (double)frame, err) || meta_num(k, "tets", (double)m->nt, err) ||
	    meta_num(k, "nodes", (double)m->nn, err) || meta_num(k, "samples", m->nsamp, err) ||
	    meta_num(k, "dead", (double)st->dead, err) ||
	    meta_num(k, "coarse_dead", (double)st->coarse_dead, err) ||
	    meta_num(k, "fixed_nodes", (double)st->fixed_nodes, err) ||
	    meta_num(k, "cut", (double)st->cut, err) || meta_num(k, "inside", (double)st->inside, err) ||
	    meta_num(k, "max_rank", st->max_rank, err) ||
	    meta_num(k, "unranked", (double)st->unranked, err) ||
	    meta_num(k, "nonlocal", (double)st->nonlocal, err) ||
	    meta_num(k, "min_volume_ratio", st->min_ratio, err) ||
	    meta_num(k, "volume", st->volume, err) ||
	    meta_num(k, "volume_coarse", st->volume_coarse, err) ||
	    meta_num(k, "occ_volume", st->occ_volume, err) ||
	    meta_num(k, "skin_volume", st->skin_volume, err))
		return -1;
	if (m->hair && (meta_num(k, "hair_volume", st->hair_volume, err) ||
			meta_num(k, "hair_outside", (double)st->hair_outside, err) ||
			meta_num(k, "hair_clamped", (double)st->hair_clamped, err)))
		return -1;
	return 0;
}

/* Grid record name of n*ncomp floats a at time t appended to out. */
static int
grid_out(slc_frame *out, const char *name, const slc_grid *g, int ncomp, const float *a,
	 double t, slc_err *err)
{
	slc_rec *r = slc_frame_add(out, SLC_GRID, name, err);
	float *d;

	if (!r || !(d = slc_grid_new(r, name, g, (uint32_t)ncomp, err)))
		return -1;
	r->time = t;
	memcpy(d, a, (size_t)g->ni * g->nj * g->nk * ncomp * sizeof *d);
	return 0;
}

int
kdsm_solid_write(const slc_frame *F, const slc_rec *mesh, const slc_frame *like,
		 slc_frame *out, slc_err *err)
{
	int *use = slc_calloc(F->n + 1, sizeof *use, err), nm, np, nh, rc = -1;
	sdf_recs_in li = { 0 };
	sdf_recs_out lo = { 0 };
	slc_grid g;
	double t0 = 0;

	if (!use)
		return -1;
	/* the defaults of mklevelset: band 3 cells, marched beyond, full slip */
	sdf_recs_select(F, mesh->name, use, &nm, &np, &nh, &t0);
	for (size_t q = 0; q < F->n; q++)
		use[q] = use[q] && F->r[q] == mesh;
	if (sdf_recs_place(F, use, like, NULL, 4, 0, 64, 0, &g, err))
		goto out;
	li.use = use;
	li.radius = g.dx;
	li.o = (sdf_opts){ 3, 0, 0 };
	li.occl = 1;
	if (sdf_recs_levelset(F, &li, &g, &lo, err))
		goto out;
	rc = grid_out(out, "solid", &g, 1, lo.phi.a, t0, err) ||
	     grid_out(out, "solid_vel", &g, 3, lo.vel, t0, err) ||
	     grid_out(out, "solid_slip", &g, 1, lo.slip, t0, err) ? -1 : 0;
out:
	sdf_recs_out_free(&lo);
	free(use);
	return rc;
}
