/* vof_recs.h: the records of the water on the KDSM: a `kdsm` tets record
 * (kdsmbake frame) read as a kdsm_mesh borrowing its channels, and the
 * water state as the tets record `vof` (formats/slc.md): the mesh's
 * nodes and tets with per-tet `water` and `vel`, so that a frame carries
 * its water and rasterize can draw it cut open by `fill`. */
#ifndef SLC_VOF_RECS_H
#define SLC_VOF_RECS_H

#include "core/err.h"
#include "core/slc.h"
#include "kdsm/kdsm.h"
#include "vof/vof.h"

/* The mesh of a `kdsm` tets record r, every array borrowed from r (which
 * must outlive m; do not kdsm_mesh_free it): P f64x3, tet, v f32x3, sdf
 * f32; prim alive u8, occ f32, cut u8, rank i32, n and vobj f32x3, cap
 * f64, nbr i32x4, dist f32, optional adh f32, adh_dir f32x3, hair f32,
 * hair_dir f32x3; detail nl_off u32 (tets + 1), nl_idx i32, qb f64x4.
 * Checked: the types and counts, neighbours and nonlocal indices within
 * the tets, nl_off rising, caps >= 0, a sample rule of kdsm_rule's
 * counts.  rest is NULL.  0, or -1 with err naming the channel. */
int vof_mesh_from_rec(kdsm_mesh *m, const slc_rec *r, slc_err *err);

/* The water of tets record r (channels water f64 prim and vel f64x3
 * prim) into s, allocated here for nt tets (r must have nt tets).
 * Checked: W >= 0 (a negative volume is refused, naming the tet).  0,
 * or -1 with err. */
int vof_state_from_rec(vof_state *s, const slc_rec *r, size_t nt, slc_err *err);

/* s on mesh m as the tets record r (initialised here, kind tets, name
 * name, time t): P f64x3, tet u32x4, prim alive u8, nbr i32x4, water f64
 * (m^3), vel f64x3 (m/s), fill f32 (W / cap, 0 where cap is 0).  0, or
 * -1 with err (memory; r is then freed). */
int vof_state_to_rec(const vof_state *s, const kdsm_mesh *m, slc_rec *r, const char *name,
		     double t, slc_err *err);

/* Not from the paper: tets filled below this fraction are not drawn. */
#define VOF_RENDER_FILL_MIN 0.05

/* lee2019 §4.2: the water of the tets record vof (P f64x3, tet u32x4,
 * water f64, fill f32) as the particles record out (initialised here,
 * named name, vof's time): 4 particles in every wet tet filled above
 * fmin (VOF_RENDER_FILL_MIN: the films of rounding and the last drops
 * drained off a tet are not drawn; not from the paper), at
 * the points of the 4-point symmetric rule, unjittered, each with a
 * quarter of the tet's water (volume f64, m^3) and radius (3 W / 16
 * pi)^(1/3) (f32, m; not from the paper).  Not done (the paper's
 * "attracted toward the level set"): the particles stay where their tet
 * is; surfacer's union with phi joins them to the pool.  0, or -1 with
 * err (a channel missing or of the wrong type, a node out of range,
 * memory; out is then freed). */
int vof_render_rec(const slc_rec *vof, slc_rec *out, const char *name, double fmin,
		   slc_err *err);

#endif
