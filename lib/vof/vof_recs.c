/* vof_recs.c: the KDSM mesh and the water state in records (see
 * vof_recs.h). */
#include "vof/vof_recs.h"

#include <math.h>
#include <string.h>

/* Channel name of r: type, ncomp and count checked; NULL with err. */
static void *
chan(const slc_rec *r, const char *name, uint32_t type, uint32_t ncomp, uint64_t count,
     slc_err *err)
{
	void *d = slc_rec_get(r, name, type, ncomp, count, err);

	if (!d)
		slc_failctx(err, "record '%s': ", r->name);
	return d;
}

/* An optional channel: absent leaves *d NULL; present must match. */
static int
opt_chan(const slc_rec *r, const char *name, uint32_t type, uint32_t ncomp, uint64_t count,
	 void **d, slc_err *err)
{
	*d = NULL;
	if (!slc_rec_find(r, name))
		return 0;
	return (*d = chan(r, name, type, ncomp, count, err)) ? 0 : -1;
}

int
vof_mesh_from_rec(kdsm_mesh *m, const slc_rec *r, slc_err *err)
{
	const slc_chan *P, *T, *q, *nl;
	uint64_t nn, nt, t;
	void *d;
	int k;

	memset(m, 0, sizeof *m);
	if (r->kind != SLC_TETS)
		return slc_fail(err, "record '%s': not a tets record", r->name);
	if (!(P = slc_rec_find(r, "P")) || !(T = slc_rec_find(r, "tet")))
		return slc_fail(err, "record '%s': no P or tet channel", r->name);
	nn = P->count;
	nt = T->count;
	if (!(m->P = chan(r, "P", SLC_F64, 3, nn, err)) ||
	    !(m->tet = chan(r, "tet", SLC_U32, 4, nt, err)) ||
	    !(m->v = chan(r, "v", SLC_F32, 3, nn, err)) ||
	    !(m->sdf = chan(r, "sdf", SLC_F32, 1, nn, err)) ||
	    !(m->alive = chan(r, "alive", SLC_U8, 1, nt, err)) ||
	    !(m->occ = chan(r, "occ", SLC_F32, 1, nt, err)) ||
	    !(m->cut = chan(r, "cut", SLC_U8, 1, nt, err)) ||
	    !(m->rank = chan(r, "rank", SLC_I32, 1, nt, err)) ||
	    !(m->n = chan(r, "n", SLC_F32, 3, nt, err)) ||
	    !(m->vobj = chan(r, "vobj", SLC_F32, 3, nt, err)) ||
	    !(m->cap = chan(r, "cap", SLC_F64, 1, nt, err)) ||
	    !(m->nbr = chan(r, "nbr", SLC_I32, 4, nt, err)) ||
	    !(m->dist = chan(r, "dist", SLC_F32, 1, nt, err)) ||
	    !(m->nl_off = chan(r, "nl_off", SLC_U32, 1, nt + 1, err)))
		return -1;
	if (opt_chan(r, "adh", SLC_F32, 1, nt, &d, err))
		return -1;
	m->adh = d;
	if (opt_chan(r, "adh_dir", SLC_F32, 3, nt, &d, err))
		return -1;
	m->adh_dir = d;
	if (opt_chan(r, "hair", SLC_F32, 1, nt, &d, err))
		return -1;
	m->hair = d;
	if (opt_chan(r, "hair_dir", SLC_F32, 3, nt, &d, err))
		return -1;
	m->hair_dir = d;
	if (!(nl = slc_rec_find(r, "nl_idx")) || !(q = slc_rec_find(r, "qb")))
		return slc_fail(err, "record '%s': no nl_idx or qb channel", r->name);
	if (!(m->nl_idx = chan(r, "nl_idx", SLC_I32, 1, nl->count, err)) ||
	    !(m->qb = chan(r, "qb", SLC_F64, 4, q->count, err)))
		return -1;
	if (q->count > 64 || kdsm_rule((int)q->count, NULL))
		return slc_fail(err, "record '%s': qb: %llu samples, expected 1, 4, 8, 32 or 64",
				r->name, (unsigned long long)q->count);
	m->nsamp = (int)q->count;
	m->nn = (size_t)nn;
	m->nt = (size_t)nt;
	if (m->nl_off[0] != 0 || m->nl_off[nt] != nl->count)
		return slc_fail(err, "record '%s': nl_off: from %u to %u, expected 0 to %llu",
				r->name, m->nl_off[0], m->nl_off[nt],
				(unsigned long long)nl->count);
	for (t = 0; t < nt; t++) {
		if (m->nl_off[t + 1] < m->nl_off[t])
			return slc_fail(err, "record '%s': nl_off: falls at tet %llu", r->name,
					(unsigned long long)t);
		if (!(m->cap[t] >= 0))
			return slc_fail(err, "record '%s': cap: %g at tet %llu, expected >= 0",
					r->name, m->cap[t], (unsigned long long)t);
		for (k = 0; k < 4; k++) {
			int32_t o = m->nbr[4 * t + k];

			if (o < -1 || o >= (int64_t)nt || o == (int64_t)t)
				return slc_fail(err, "record '%s': nbr: %d at tet %llu, expected "
						"-1 or another of %llu tets", r->name, o,
						(unsigned long long)t, (unsigned long long)nt);
			if (m->tet[4 * t + k] >= nn)
				return slc_fail(err, "record '%s': tet: node %u at tet %llu of "
						"%llu nodes", r->name, m->tet[4 * t + k],
						(unsigned long long)t, (unsigned long long)nn);
		}
	}
	for (t = 0; t < nl->count; t++)
		if (m->nl_idx[t] < 0 || m->nl_idx[t] >= (int64_t)nt)
			return slc_fail(err, "record '%s': nl_idx: %d at %llu, expected 0..%llu",
					r->name, m->nl_idx[t], (unsigned long long)t,
					(unsigned long long)nt - 1);
	return 0;
}

int
vof_state_from_rec(vof_state *s, const slc_rec *r, size_t nt, slc_err *err)
{
	const double *W, *u;
	size_t t;

	memset(s, 0, sizeof *s);
	if (r->kind != SLC_TETS)
		return slc_fail(err, "record '%s': not a tets record", r->name);
	if (!(W = chan(r, "water", SLC_F64, 1, nt, err)) ||
	    !(u = chan(r, "vel", SLC_F64, 3, nt, err)))
		return -1;
	for (t = 0; t < nt; t++)
		if (!(W[t] >= 0))
			return slc_fail(err, "record '%s': water: %g m^3 at tet %zu, expected >= 0",
					r->name, W[t], t);
	if (vof_state_init(s, nt, err))
		return -1;
	memcpy(s->W, W, nt * sizeof *W);
	memcpy(s->u, u, nt * 3 * sizeof *u);
	return 0;
}

static int
put(slc_rec *r, const char *name, uint32_t type, uint32_t ncomp, uint32_t domain, size_t n,
    const void *src, slc_err *err)
{
	void *d = slc_rec_add(r, name, type, ncomp, domain, n, err);

	if (!d)
		return -1;
	memcpy(d, src, n * ncomp * slc_type_size(type));
	return 0;
}

int
vof_state_to_rec(const vof_state *s, const kdsm_mesh *m, slc_rec *r, const char *name, double t,
		 slc_err *err)
{
	float *fill;
	size_t i;

	slc_rec_init(r, SLC_TETS, name);
	r->time = t;
	if (put(r, "P", SLC_F64, 3, SLC_POINT, m->nn, m->P, err) ||
	    put(r, "tet", SLC_U32, 4, SLC_PRIM, m->nt, m->tet, err) ||
	    put(r, "alive", SLC_U8, 1, SLC_PRIM, m->nt, m->alive, err) ||
	    put(r, "nbr", SLC_I32, 4, SLC_PRIM, m->nt, m->nbr, err) ||
	    put(r, "water", SLC_F64, 1, SLC_PRIM, m->nt, s->W, err) ||
	    put(r, "vel", SLC_F64, 3, SLC_PRIM, m->nt, s->u, err) ||
	    !(fill = slc_rec_add(r, "fill", SLC_F32, 1, SLC_PRIM, m->nt, err))) {
		slc_rec_free(r);
		return -1;
	}
	for (i = 0; i < m->nt; i++)
		fill[i] = m->cap[i] > 0 ? (float)(s->W[i] / m->cap[i]) : 0;
	return 0;
}
