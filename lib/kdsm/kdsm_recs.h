/* kdsm_recs.h: the KDSM's stream records: the skin and skeleton read from
 * a frame, the lattice written and read back, one frame's tet mesh and
 * figures, and the character's solid grids on the simulation grid (as
 * `mklevelset --like --occlusion` makes them, through geom/sdf_recs.h).
 * Record names and channels: formats/slc.md, "Record names in a frame". */
#ifndef SLC_KDSM_RECS_H
#define SLC_KDSM_RECS_H

#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"
#include "kdsm/kdsm.h"

#define KDSM_BONES_MAX 64

/* What kdsm_skin_read allocates behind a kdsm_skin. */
typedef struct kdsm_skin_buf {
	const slc_rec *mesh;    /* the skin's record in the frame */
	double *P, *R, *v;
	double M[KDSM_BONES_MAX * 12], Mdot[KDSM_BONES_MAX * 12];
} kdsm_skin_buf;

/* The skin of frame F: the mesh record `name` (NULL: the first mesh)
 * with P, tri and the optional rest, v, bw (f32, as many components as
 * the skeleton has bones or more), adh (f32) and adh_dir (f32x3), and
 * the meta record `skeleton` when there is one (bones=N, bone.K and
 * bone.K.dot: 12 numbers each).  s borrows from F and buf; free buf with
 * kdsm_skin_buf_free.  0, or -1 with err naming the record. */
int kdsm_skin_read(const slc_frame *F, const char *name, kdsm_skin *s,
		   kdsm_skin_buf *buf, slc_err *err);
void kdsm_skin_buf_free(kdsm_skin_buf *buf);

/* The lattice as records appended to out: tets `kdsm_lattice` (P f64
 * rest, tet, point inside u8, ctri i32, cw f64x3; detail R f64x3, atet
 * i32, ab f64x4 per skin vertex) and meta `kdsm_lattice` (h, levels,
 * samples, skin_vertices, skin_triangles, coarse_tets, nodes). */
int kdsm_lattice_write(const kdsm_lattice *L, slc_frame *out, slc_err *err);

/* Read back what kdsm_lattice_write wrote.  0, or -1 with err. */
int kdsm_lattice_read(kdsm_lattice *L, const slc_frame *F, slc_err *err);

/* One frame's records appended to out: tets `kdsm` (P f64; point rest
 * f64x3, v f32x3, sdf f32; prim occ f32, cut u8, rank i32, n f32x3, vobj
 * f32x3, cap f64, nbr i32x4, dist f32, alive u8, and adh f32, adh_dir
 * f32x3 when the skin has them; detail nl_off u32 (tets + 1), nl_idx
 * i32, qb f64x4 (the sample rule)) and meta `kdsmbake` (the figures of
 * st).  Records at time t. */
int kdsm_mesh_write(const kdsm_mesh *m, const kdsm_stats *st, long frame,
		    double t, slc_frame *out, slc_err *err);

/* The grids `solid`, `solid_vel` and `solid_slip` of the mesh record
 * `mesh` of F on the grid of the first grid record of like, appended to
 * out: what `mklevelset --like --occlusion --from NAME` writes.  0, or
 * -1 with err. */
int kdsm_solid_write(const slc_frame *F, const slc_rec *mesh, const slc_frame *like,
		     slc_frame *out, slc_err *err);

#endif
