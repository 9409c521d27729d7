/* prim.h: procedural shapes and initial states, so that every pipeline runs
 * with no asset from outside the repository.
 *
 * Meshes (prim_mesh.c): icosphere, box, torus and an open cup, closed and
 * consistently outward-oriented where the shape is closed.  Cloth
 * (prim_cloth.c): a rectangular sheet with the herring-bone triangulation
 * (selle2008 thesis §5.2), lumped masses and pinned vertices.  Hair
 * (prim_hair.c): straight or curly strands rooted on a spherical scalp.  Grids
 * (prim_grid.c): the exact signed distance of a pool plus a drop, and a
 * smoke source.  prim_rec.c turns them into stream records.
 *
 * Geometry is built in double precision; records store f32.  Lengths are
 * metres, masses kilograms.  y is up.
 */
#ifndef SLC_PRIM_H
#define SLC_PRIM_H

#include <stdint.h>

#include "core/err.h"
#include "grid/field.h"
#include "core/slc.h"

/* Largest accepted icosphere subdivision (10*4^9+2 = 2.6M vertices). */
#define PRIM_SUBDIV_MAX 9
/* Largest accepted segment count along any one direction of a shape. */
#define PRIM_RES_MAX 8192

/* A triangle mesh: nv vertices P[3*v..], nt triangles tri[3*t..] whose
 * corners are listed counter-clockwise seen from outside. */
typedef struct prim_mesh {
	size_t nv, nt;
	double *P;
	uint32_t *tri;
} prim_mesh;

/* Free what the mesh owns and zero it. */
void prim_mesh_free(prim_mesh *m);

/* Icosphere: the icosahedron with each triangle split in four `subdiv`
 * times (0..PRIM_SUBDIV_MAX), midpoints pushed onto the sphere of `radius`
 * around `c`.  10*4^subdiv+2 vertices, 20*4^subdiv triangles, closed.
 * m must be zeroed; 0 or -1 with err (bad value, out of memory). */
int prim_icosphere(prim_mesh *m, int subdiv, double radius, const double c[3],
		   slc_err *err);

/* Axis-aligned box of edge lengths size[] centred at c, each face a grid
 * of res[a] x res[b] quads (res[axis] segments along that axis), two
 * triangles per quad; shared edge vertices are welded, so the mesh is
 * closed.  0 or -1 with err. */
int prim_box(prim_mesh *m, const double size[3], const int res[3],
	     const double c[3], slc_err *err);

/* Torus around the y axis through c: tube centre radius R, tube radius r
 * (0 < r < R), nmaj segments around the y axis, nmin around the tube (each
 * >= 3).  Closed, genus one.  0 or -1 with err. */
int prim_torus(prim_mesh *m, double R, double r, int nmaj, int nmin,
	       const double c[3], slc_err *err);

/* Open cup: a zero-thickness surface of revolution about the y axis
 * through c.  The bottom is a disk of radius rbot at height c[1]; the wall
 * is a straight cone frustum from radius rbot up to the rim of radius rtop
 * at height c[1]+height.  nseg segments around (>= 3), nwall along the
 * wall (>= 1); the bottom gets rings of about the same spacing.  The only
 * boundary is the rim; normals face away from the inside of the cup.
 * 0 or -1 with err. */
int prim_cup(prim_mesh *m, double rtop, double rbot, double height, int nseg,
	     int nwall, const double c[3], slc_err *err);

/* Open tub: a zero-thickness open-top box shell, its walls planar
 * (vertical when bot = top).  The bottom is the rectangle bot[0] (along
 * x) by bot[1] (along z) centred at c, the rim the rectangle top[0] by
 * top[1] at height c[1]+height above it; res[0], res[2] quads along x and
 * z on the bottom and across the walls, res[1] up the walls.  The
 * bottom and the four walls share their seams vertex by vertex (no gap):
 * the only boundary is the rim, 2 (res[0] + res[2]) edges; normals face
 * away from the inside.  mkprim's hull and basin.  0 or -1 with err. */
int prim_tub(prim_mesh *m, const double top[2], const double bot[2], double height,
	     const int res[3], const double c[3], slc_err *err);

/* Paddle wheel (the batty2007 §3.3 scene, after Klingner et al. 2006): a
 * hub of radius rhub and nblades (1..PRIM_BLADES_MAX) flat blades of
 * thickness `thick` reaching `R` from the axis (rhub < R, thick < 2 rhub,
 * blades not overlapping on the hub), all `width` long along the axis.
 * The cross-section (the hub circle, nseg segments around, joined to the
 * blade rectangles) is star-shaped about the axis and is extruded along
 * it: one closed, outward mesh with no inner surfaces.  The axis runs
 * through c along x, y or z (axis 0, 1, 2); blade 0 points along the next
 * axis (y for x, z for y, x for z) turned by `angle` radians about the
 * axis, right-handed.  0 or -1 with err. */
#define PRIM_BLADES_MAX 64
int prim_paddle(prim_mesh *m, int nblades, double R, double rhub, double thick,
		double width, int nseg, int axis, double angle, const double c[3],
		slc_err *err);

/* Velocity of every vertex of m turning rigidly at omega rad/s about the
 * axis (0, 1, 2 for x, y, z) through c: v = omega e_axis x (P - c).
 * v holds 3*m->nv values. */
void prim_mesh_spin(const prim_mesh *m, int axis, double omega, const double c[3],
		    double *v);

/* --- cloth ------------------------------------------------------------ */

enum prim_pin { PRIM_PIN_NONE, PRIM_PIN_CORNERS, PRIM_PIN_EDGE };

/* A rectangular cloth sheet in the plane y = c[1]. */
typedef struct prim_cloth {
	prim_mesh mesh;     /* normals +y */
	int nx, nz;         /* quads along x and z */
	double *mass;       /* per vertex, kg */
	uint8_t *pinned;    /* per vertex, 1 if pinned */
} prim_cloth;

/* Sheet of width w (along x) by depth d (along z) centred at c, nx by nz
 * quads, vertex (i,k) at index i + (nx+1)*k, at x = c[0] - w/2 + w*i/nx and
 * z = c[2] + d/2 - d*k/nz.  Each quad is split along the diagonal that
 * alternates from one column of quads to the next: the herring-bone mesh
 * of selle2008 thesis §5.2 (cloth_sheet in cloth_mesh.h).  Masses lumped from the
 * areal density (kg/m^2): each triangle gives a third of its mass to each
 * corner.  pin: none; corners (the two corners of the edge z = min);
 * edge (every vertex of that edge).  0 or -1 with err. */
int prim_cloth_make(prim_cloth *cl, double w, double d, int nx, int nz,
		    const double c[3], double density, int pin, slc_err *err);
void prim_cloth_free(prim_cloth *cl);

/* A hanging curtain: the sheet of prim_cloth_make, w wide (along x) and h
 * high, nx by ny quads, turned upright into the plane z = c[2], normals
 * +z, its top edge (the rail) the segment of length w centred at c, at
 * height c[1]; the rest hangs down to y = c[1] - h.  pin: none; corners
 * (the two top corners); edge (the whole rail).  Masses lumped from the
 * areal density as for the sheet.  0 or -1 with err. */
int prim_curtain_make(prim_cloth *cl, double w, double h, int nx, int ny,
		      const double c[3], double density, int pin, slc_err *err);

/* Tries per sheet to find a place clear of the sheets already placed. */
#define PRIM_SCATTER_TRIES 1000

/* Replace cl (made by prim_cloth_make) by `count` copies of it, each
 * turned by a uniformly random rotation about its own centre and moved to
 * a uniform random point of the box of edges box[] centred at c, from a
 * pseudo-random sequence fixed by `seed`.  Copies do not touch: their
 * bounding spheres are kept apart (PRIM_SCATTER_TRIES tries each, then an
 * error: the box is too small).  Copy j owns vertices [j*nv, (j+1)*nv) and
 * triangles [j*nt, (j+1)*nt) of the sheet; masses and pins are copied.
 * 0 or -1 with err (cl is then freed). */
int prim_cloth_scatter(prim_cloth *cl, size_t count, const double box[3],
		       const double c[3], uint64_t seed, slc_err *err);

/* --- hair ------------------------------------------------------------- */

/* Default angle from the +y pole within which roots are placed (degrees):
 * the upper part of the scalp sphere. */
#define PRIM_SCALP_CAP_DEG 75.0

/* What a head of hair is made from; prim_hair_spec_default fills it. */
typedef struct prim_hair_spec {
	size_t nstrands;        /* strands (200) */
	int nseg;               /* segments per strand, 1..PRIM_RES_MAX (16) */
	double length;          /* mean strand length along the hair, m (0.3) */
	double jitter;          /* strand s is length (1 + jitter (2u - 1)) long,
				   u uniform on [0, 1): 0 <= jitter < 1 (0) */
	double radius;          /* scalp sphere radius, m (0.1) */
	double c[3];            /* its centre (0,0,0) */
	double cap_deg;         /* roots within this polar angle of +y,
				   (0, 180] (PRIM_SCALP_CAP_DEG) */
	double curl_r;          /* helix radius, m; 0: straight strands (0) */
	double curl_pitch;      /* helix rise per turn along the normal, m,
				   > 0 when curl_r > 0 */
	uint64_t seed;          /* of the pseudo-random sequence (1) */
} prim_hair_spec;

/* The defaults above. */
void prim_hair_spec_default(prim_hair_spec *sp);

/* Strands: sp->nstrands roots drawn uniformly by area on the cap of the
 * scalp sphere (radius, c) within cap_deg of +y, from a pseudo-random
 * sequence fixed by seed (lib/core/rng.h).  Each strand leaves its root
 * along the outward normal n: straight along n, or, with curl_r > 0, a
 * right-handed helix of radius curl_r and pitch curl_pitch whose axis is
 * parallel to n at distance curl_r from the root (at a random turn about
 * it), rising along n.  nseg + 1 points per strand, root first, equally
 * spaced in arclength (all segments of a strand have one length: a helix
 * is the same everywhere), so a curl needs no more points.  Strand s owns
 * points [s*(nseg+1), (s+1)*(nseg+1)).  P is owned by the struct.  0 or
 * -1 with err (a value out of range, too many points, out of memory). */
typedef struct prim_hair {
	size_t nstrands;
	int nseg;
	double *P;
} prim_hair;

int prim_hair_make(prim_hair *h, const prim_hair_spec *sp, slc_err *err);
void prim_hair_free(prim_hair *h);

/* --- grids ------------------------------------------------------------ */

/* Place a cell grid on the box [origin, origin+size]: cell size dx if
 * dx > 0, else max(size)/res; cell counts n[a] = ceil(size[a]/dx) (the box
 * grows to a whole number of cells).  0 or -1 with err. */
int prim_grid_place(const double size[3], int res, double dx, int n[3],
		    double *dxo, slc_err *err);

/* Exact signed distance to the union of the water below the plane
 * y = level and the ball (c, r): negative in the water.  Outside the union
 * it is the smaller of the two distances; inside, the distance to the
 * nearest point of the complement, found among the plane outside the
 * ball, the sphere above the plane and their circle of intersection. */
double prim_pool_phi(const double x[3], double level, const double c[3],
		     double r);

/* Fill a cell-centred field with prim_pool_phi at every cell centre. */
void prim_pool_fill(field *phi, double level, const double c[3], double r);

/* Signed distance to a ball and to an axis-aligned box (centre c, half
 * extents h), negative inside; exact. */
double prim_sdf_sphere(const double x[3], const double c[3], double r);
double prim_sdf_box(const double x[3], const double c[3], const double h[3]);

/* Smoke source: `source` (cell-centred, already allocated) gets the signed
 * distance to the sphere (shape 0: c, radius) or the box (shape 1: c,
 * half extents half[]); density and temperature (same placement) get
 * value * coverage, where coverage = clamp(1/2 - source/dx, 0, 1) is a
 * one-cell linear ramp across the surface. */
void prim_smoke_fill(field *source, field *density, field *temperature,
		     int shape, const double c[3], double radius,
		     const double half[3], double dens, double temp);

/* --- records ---------------------------------------------------------- */

/* Mesh record `name` with "P" f32x3 point, "tri" u32x3 prim and, if vel is
 * not NULL, a constant "v" f32x3 point.  r must be empty. */
int prim_mesh_rec(const prim_mesh *m, const char *name, double time,
		  const double *vel, slc_rec *r, slc_err *err);

/* Mesh record like prim_mesh_rec with a per-vertex velocity: "v" f32x3
 * point from v[3*i..] (3*m->nv values). */
int prim_mesh_rec_v(const prim_mesh *m, const char *name, double time,
		    const double *v, slc_rec *r, slc_err *err);

/* Cloth mesh record: P, tri, v (vel or zero), rest (= P), mass f32 point,
 * pinned u8 point. */
int prim_cloth_rec(const prim_cloth *cl, const char *name, double time,
		   const double *vel, slc_rec *r, slc_err *err);

/* Strands record: P, offset, rest (= P), v (vel or zero). */
int prim_hair_rec(const prim_hair *h, const char *name, double time,
		  const double *vel, slc_rec *r, slc_err *err);

/* The frame-0 `scene` metadata record: frame, time, dt (s), gravity
 * (m/s^2) and fps, numbers with 12 significant digits.  r must be empty. */
int prim_scene_rec(slc_rec *r, double time, double dt, const double g[3],
		   double fps, slc_err *err);

/* A zero MAC velocity component: grid record "u", "v" or "w" (axis 0, 1,
 * 2) on the faces normal to that axis of the n[0] x n[1] x n[2] cell grid
 * at origin with cell size dx.  r must be empty. */
int prim_face_rec(slc_rec *r, int axis, const int n[3], const double origin[3],
		  double dx, double time, slc_err *err);

#endif
