/* kdsm.h: the kinematically deforming skinned mesh (KDSM) of Lee, Hyde,
 * Li, Fedkiw, "A Robust Volume Conserving Method for Character-Water
 * Interaction" (SCA 2019), §2 and §3.1: a tetrahedral mesh around an
 * animated character whose topology is fixed once (the lattice) and whose
 * nodes follow the character every frame (the frame bake), with the
 * per-tet quantities the water on it (vofstep) needs.
 *
 * The lattice (kdsm_lattice_build): a BCC lattice of spacing h after
 * Molino et al. around the skin's rest pose, the tets with a node inside
 * the skin's level set thickened by delta, the skin vertices embedded
 * barycentrically (the zero-length spring anchors), every node's nearest
 * rest skin point.  Each frame (kdsm_frame_bake) is independent of every
 * other: nodes placed from the skin alone, so frames bake in parallel and
 * frame N baked alone equals frame N of a whole bake.
 *
 * Lengths in metres, velocities in m/s.  lib/ never prints: figures go
 * into kdsm_stats, errors into slc_err.
 */
#ifndef SLC_KDSM_H
#define SLC_KDSM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Not from the paper (its copy lost the numbers): the static spring
 * solve of §2 as damped Jacobi sweeps of the local-global spring step,
 * a fixed count so that every frame costs the same and is independent;
 * the zero-length anchors' stiffness relative to an edge spring's. */
#define KDSM_SPRING_ITERS 60
#define KDSM_SPRING_DAMP (2.0 / 3.0)
#define KDSM_ANCHOR_K 10.0
/* Not from the paper: §6 "iterate a couple of times" against inverted
 * elements: rounds of rest-shape smoothing of the free nodes of tets
 * whose volume fell below KDSM_MIN_J of their rest volume; what is still
 * below after them is degenerate and disabled (alive = 0). */
#define KDSM_FIX_ROUNDS 2
#define KDSM_FIX_SWEEPS 10
#define KDSM_MIN_J 0.05
/* Not from the paper: the nonlocal neighbours of §3.3 (fig. 6): at most
 * this many, found within this many face steps. */
#define KDSM_NL_MAX 8
#define KDSM_NL_DEPTH 12
/* Rank of a tet no skin tet reaches through node neighbours (§3.1 ranks
 * only what the contact graph reaches). */
#define KDSM_RANK_NONE INT32_MAX
/* Not from the paper (§5 gives no rule): a strand segment is cut into
 * pieces of at most this fraction of the mean fine tet edge, each put
 * whole into the tet holding its midpoint. */
#define KDSM_HAIR_PIECE 0.25
/* Largest number of subdivisions (8^L fine tets per coarse tet). */
#define KDSM_LEVELS_MAX 4

/* The fixed part, built once from the rest pose. */
typedef struct kdsm_lattice {
	double h;               /* coarse lattice spacing (cube edge), m */
	int levels;             /* red subdivisions L: fine spacing h / 2^L */
	int nsamp;              /* quadrature samples per fine tet */
	size_t nn, nt;          /* coarse nodes and tets */
	double *X;              /* nn*3 rest positions */
	uint32_t *tet;          /* nt*4, positive rest volume */
	uint8_t *inside;        /* nn: node inside the rest skin */
	int32_t *ctri;          /* nn: nearest rest skin triangle */
	double *cw;             /* nn*3: its barycentric weights there */
	size_t ns, nst;         /* skin vertices and triangles */
	double *R;              /* ns*3 the rest skin's vertices */
	int32_t *atet;          /* ns: coarse tet holding the vertex, -1 none */
	double *ab;             /* ns*4: the vertex's barycentrics in it */
} kdsm_lattice;

/* The skin at rest: nv vertices R, nt triangles (closed, outward). */
typedef struct kdsm_skin {
	size_t nv, nt;
	const double *P;        /* nv*3 posed positions (rest for the lattice) */
	const uint32_t *tri;    /* nt*3 */
	const double *R;        /* nv*3 rest positions, or NULL: P */
	const double *v;        /* nv*3 velocities, or NULL: still */
	const float *bw;        /* nv*bw_n bone weights, or NULL */
	int bw_n;               /* weights per vertex (>= nbones) */
	const float *adh;       /* nv painted adhesion, or NULL (§3.4) */
	const float *adh_dir;   /* nv*3 painted adhesion direction, or NULL */
	int nbones;             /* 0: no skeleton */
	const double *M;        /* nbones*12 rest-to-pose 3x4 matrices */
	const double *Mdot;     /* nbones*12 their time derivatives */
} kdsm_skin;

/* Build the lattice around the skin's rest pose (s->R, or s->P): BCC of
 * spacing h, tets with a node where phi_rest <= delta (§2), anchors and
 * nearest skin points; L levels (0..KDSM_LEVELS_MAX) and nsamp
 * (kdsm_rule) recorded for the frames.  L is zeroed first; 0, or -1
 * with err (bad values, a skin with no inside, out of memory). */
int kdsm_lattice_build(kdsm_lattice *L, const kdsm_skin *s, double h,
		       double delta, int levels, int nsamp, slc_err *err);

/* Free what the lattice owns and zero it. */
void kdsm_lattice_free(kdsm_lattice *L);

/* The equal-weight sample rule of nsamp points per tet (1: centroid; 4:
 * the symmetric 4-point rule; 8: centroids of the red children; 32: the
 * 4-point rule in each child; 64: the centroids of the grandchildren):
 * nsamp*4 barycentrics into b (NULL: only the check).  0, or -1 for any
 * other count. */
int kdsm_rule(int nsamp, double *b);

/* Figures of one frame's bake. */
typedef struct kdsm_stats {
	size_t coarse_dead;     /* coarse tets disabled (all their children) */
	size_t dead, cut, inside, nonlocal, unranked;
	int32_t max_rank;
	size_t fixed_nodes;     /* nodes the inversion rounds moved */
	double min_ratio;       /* smallest live fine volume / rest volume */
	double volume;          /* sum of the fine tets' volumes, m^3 */
	double volume_coarse;   /* sum of the coarse tets' volumes, m^3 */
	double occ_volume;      /* sum occ * V, m^3 */
	double skin_volume;     /* the posed skin's enclosed volume, m^3 */
	double hair_volume;     /* hair volume put into tets, m^3 (§5) */
	size_t hair_outside;    /* strand pieces in no live tet */
	size_t hair_clamped;    /* tets whose hair exceeded 1 - occ */
} kdsm_stats;

/* One frame's fine mesh and its channels (the `kdsm` record). */
typedef struct kdsm_mesh {
	size_t nn, nt;
	double *P;              /* nn*3 posed positions */
	double *rest;           /* nn*3 */
	float *v;               /* nn*3 node velocity, d/dt of P */
	float *sdf;             /* nn skin signed distance (interpolated) */
	uint32_t *tet;          /* nt*4 */
	float *occ;             /* nt fraction of samples inside the skin */
	uint8_t *cut, *alive;   /* nt */
	int32_t *rank;          /* nt: -1 inside, 0 cut, r by node steps */
	float *n, *vobj;        /* nt*3 skin normal and object velocity */
	double *cap;            /* nt V (1 - occ) */
	int32_t *nbr;           /* nt*4: across the face opposite node k */
	float *dist;            /* nt centroid's signed distance to the skin */
	float *adh, *adh_dir;   /* nt, nt*3 when the skin has them, else NULL */
	float *hair, *hair_dir; /* nt, nt*3 after kdsm_hair_fraction, else NULL */
	uint32_t *nl_off;       /* nt+1 CSR offsets into nl_idx */
	int32_t *nl_idx;
	double *qb;             /* nsamp*4 the sample rule */
	int nsamp;
} kdsm_mesh;

/* Bake one frame (§2, §3.1): coarse nodes from the skin (interior nodes
 * by the skeleton's linear blend skinning with their nearest skin
 * point's weights, or free without a skeleton; exterior nodes by the
 * static spring solve anchored to the skin), inverted tets fixed or
 * disabled (§6), red subdivision L times, and every fine tet's channels.
 * The skin s must have the lattice's vertex and triangle counts.  m is
 * overwritten; free it with kdsm_mesh_free either way.  0, or -1 with
 * err.  The same bytes for any number of threads. */
int kdsm_frame_bake(const kdsm_lattice *L, const kdsm_skin *s, kdsm_mesh *m,
		    kdsm_stats *st, slc_err *err);

void kdsm_mesh_free(kdsm_mesh *m);

/* Hair in the mesh (lee2019 §5): strands s = 0..ns-1 through the points
 * off[s] .. off[s+1]-1 of P (np points, the posed hair of this frame),
 * each a cylinder of radius r metres.  Every segment is cut into pieces
 * no longer than KDSM_HAIR_PIECE of the mesh's mean fine edge; a piece
 * adds its volume pi r^2 len to the live tet holding its midpoint and its
 * direction, weighted by len and turned to agree with what the tet holds
 * already, to the tet's direction.  Sets m->hair (volume fraction, at
 * most 1 - occ: the rest is counted in st->hair_clamped) and m->hair_dir
 * (unit, 0 where no hair), and lowers cap to V (1 - occ - hair).  Pieces
 * in no live tet are counted in st->hair_outside; st->hair_volume is the
 * volume put in.  Serial in strand order, so the same bytes for any
 * number of threads.  0, or -1 with err (bad offsets, memory). */
int kdsm_hair_fraction(kdsm_mesh *m, const float *P, size_t np, const uint32_t *off,
		       size_t ns, double r, kdsm_stats *st, slc_err *err);

/* --- pieces, public for the tests ------------------------------------ */

/* §3.4: adhesion carried from the lower ranks to the higher: for r = 1 ..
 * max_rank in turn, every tet of rank r gets the mean of adh (and of
 * adh_dir, if m->adh_dir) over its face neighbours and its nonlocal
 * sources (the tets whose nl_off/nl_idx list holds it) that have rank 0
 * .. r-1 and has[] set, and has[] set itself; with none it is left as it
 * is.  Needs m->nt, rank, nbr, nl_off, nl_idx, adh; has is nt flags (the
 * rank 0 tets the skin was rasterized into).  0, or -1 with err (memory).
 * The same bytes for any number of threads. */
int kdsm_adhesion_spread(kdsm_mesh *m, uint8_t *has, int32_t max_rank, slc_err *err);

/* Red subdivision (Molino et al., as §3.1 uses it: only the subdivision):
 * each tet into 8, the octahedron split along its shortest diagonal in
 * the rest positions X, levels times.  Writes the fine tets (child c of
 * tet t at 8t + c, so fine tet f descends from coarse tet f >> 3L) and,
 * for each new node nn.. in order, its two parent nodes (par, 2 per new
 * node).  Positions of the new nodes: kdsm_refine_points.  All arrays
 * allocated here.  0, or -1 with err. */
int kdsm_refine(const uint32_t *tet, size_t nt, const double *X, size_t nn,
		int levels, uint32_t **ftet, size_t *fnt, uint32_t **par,
		size_t *fnn, slc_err *err);

/* Fill x[3*nn ..] (fnn points in all) with the midpoints of par. */
void kdsm_refine_points(double *x, size_t nn, size_t fnn, const uint32_t *par);

/* Signed volume of tet (a, b, c, d): ((b-a) x (c-a)) . (d-a) / 6. */
double kdsm_tet_volume(const double *a, const double *b, const double *c,
		       const double *d);

/* Volume enclosed by a closed outward triangle mesh (divergence theorem). */
double kdsm_skin_volume(const double *P, const uint32_t *tri, size_t nt);

#endif
