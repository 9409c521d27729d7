/* prim_rec.c: stream records from procedural shapes (see prim.h). */
#include "prim/prim.h"

#include <stdio.h>
#include <string.h>

#include "core/meta.h"

/* Add an f32x3 point channel holding P (or the constant vel if P is NULL). */
static int
add_vec(slc_rec *r, const char *name, size_t n, const double *P,
	const double *vel, slc_err *err)
{
	float *d = slc_rec_add(r, name, SLC_F32, 3, SLC_POINT, n, err);
	size_t q;

	if (!d)
		return -1;
	for (q = 0; q < 3 * n; q++)
		d[q] = (float)(P ? P[q] : vel ? vel[q % 3] : 0);
	return 0;
}

static int
mesh_chans(const prim_mesh *m, const char *name, double time, slc_rec *r,
	   slc_err *err)
{
	uint32_t *t;

	slc_rec_init(r, SLC_MESH, name);
	r->time = time;
	if (add_vec(r, "P", m->nv, m->P, NULL, err))
		return -1;
	t = slc_rec_add(r, "tri", SLC_U32, 3, SLC_PRIM, m->nt, err);
	if (!t)
		return -1;
	memcpy(t, m->tri, 3 * m->nt * sizeof *t);
	return 0;
}

int
prim_mesh_rec(const prim_mesh *m, const char *name, double time,
	      const double *vel, slc_rec *r, slc_err *err)
{
	if (mesh_chans(m, name, time, r, err) ||
	    (vel && add_vec(r, "v", m->nv, NULL, vel, err))) {
		slc_rec_free(r);
		return -1;
	}
	return 0;
}

int
prim_mesh_rec_v(const prim_mesh *m, const char *name, double time,
		const double *v, slc_rec *r, slc_err *err)
{
	if (mesh_chans(m, name, time, r, err) ||
	    add_vec(r, "v", m->nv, v, NULL, err)) {
		slc_rec_free(r);
		return -1;
	}
	return 0;
}

int
prim_cloth_rec(const prim_cloth *cl, const char *name, double time,
	       const double *vel, slc_rec *r, slc_err *err)
{
	const prim_mesh *m = &cl->mesh;
	float *mass;
	uint8_t *pin;
	size_t v;

	if (mesh_chans(m, name, time, r, err) ||
	    add_vec(r, "v", m->nv, NULL, vel, err) ||
	    add_vec(r, "rest", m->nv, m->P, NULL, err) ||
	    !(mass = slc_rec_add(r, "mass", SLC_F32, 1, SLC_POINT, m->nv, err)) ||
	    !(pin = slc_rec_add(r, "pinned", SLC_U8, 1, SLC_POINT, m->nv, err))) {
		slc_rec_free(r);
		return -1;
	}
	for (v = 0; v < m->nv; v++) {
		mass[v] = (float)cl->mass[v];
		pin[v] = cl->pinned[v];
	}
	return 0;
}

int
prim_hair_rec(const prim_hair *h, const char *name, double time,
	      const double *vel, slc_rec *r, slc_err *err)
{
	size_t np = h->nstrands * ((size_t)h->nseg + 1), s;
	uint32_t *off;

	slc_rec_init(r, SLC_STRANDS, name);
	r->time = time;
	if (add_vec(r, "P", np, h->P, NULL, err) ||
	    !(off = slc_rec_add(r, "offset", SLC_U32, 1, SLC_STRAND,
				h->nstrands + 1, err)) ||
	    add_vec(r, "rest", np, h->P, NULL, err) ||
	    add_vec(r, "v", np, NULL, vel, err)) {
		slc_rec_free(r);
		return -1;
	}
	for (s = 0; s <= h->nstrands; s++)
		off[s] = (uint32_t)(s * ((size_t)h->nseg + 1));
	return 0;
}

int
prim_scene_rec(slc_rec *r, double time, double dt, const double g[3],
	       double fps, slc_err *err)
{
	char buf[4][96];

	snprintf(buf[0], sizeof buf[0], "%.12g", time);
	snprintf(buf[1], sizeof buf[1], "%.12g", dt);
	snprintf(buf[2], sizeof buf[2], "%.12g,%.12g,%.12g", g[0], g[1], g[2]);
	snprintf(buf[3], sizeof buf[3], "%.12g", fps);
	if (slc_meta_init(r, "scene", err))
		return -1;
	r->time = time;
	if (slc_meta_set(r, "frame", "0", err) ||
	    slc_meta_set(r, "time", buf[0], err) ||
	    slc_meta_set(r, "dt", buf[1], err) ||
	    slc_meta_set(r, "gravity", buf[2], err) ||
	    slc_meta_set(r, "fps", buf[3], err)) {
		slc_rec_free(r);
		return -1;
	}
	return 0;
}

int
prim_face_rec(slc_rec *r, int axis, const int n[3], const double origin[3],
	      double dx, double time, slc_err *err)
{
	static const char *const uvw[3] = { "u", "v", "w" };
	field f;
	int rc;

	if (field_alloc(&f, n[0], n[1], n[2], SLC_FACE_X + axis, origin, dx, err))
		return -1;
	rc = field_to_rec(&f, r, uvw[axis], time, err);
	field_free(&f);
	return rc;
}
