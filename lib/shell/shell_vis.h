/* shell_vis.h: visibility across thin shells (triangle meshes with no
 * inside), after guendelman2005 §3 and selle2008 thesis §4.3, Figure 4.1.
 *
 * A shell set holds the triangles of one or more meshes, each thickened
 * into a wedge eps thick, binned over a lattice of cubes so that a
 * segment between two nearby points (a stencil's ray, a back-trace, the
 * ray between two cell centres) is tested only against the triangles of
 * the cubes it passes through.  Every fluid step that must not see
 * through a shell (advection, forces, extrapolation, the pressure's cut
 * faces) and the renderer's one-sided evaluation ask it the same
 * question: is b visible from a?
 */
#ifndef SLC_SHELL_VIS_H
#define SLC_SHELL_VIS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct shell_set {
	double eps;             /* thickness of a triangle's wedge, metres */
	float *tv;              /* 9 floats per triangle: its corners */
	uint32_t *tmesh;        /* per triangle: the index of its mesh, in
				 * the order of shell_add_mesh */
	uint32_t *tlocal;       /* per triangle: its index in its mesh */
	size_t ntri, cap;
	size_t nmesh;
	double origin[3];       /* lower corner of lattice cube (0,0,0) */
	double h;               /* the cubes' edge, metres */
	int ci, cj, ck;         /* cubes on each axis */
	uint32_t *start;        /* ci*cj*ck+1 offsets into list */
	uint32_t *list;         /* triangle indices per cube */
	float *tbox;            /* 6 floats per triangle (min xyz, max xyz):
				 * a box holding its wedge 2 eps thick, made
				 * by shell_build; a segment whose box misses
				 * it cannot be blocked by the triangle */
	struct shell_pre *pre;  /* per triangle: its plane and edges, made
				 * by shell_build for the wedge tests */
	float *cbox;            /* 6 floats for each cube c that lists a
				 * triangle, at cbox + 6 * start[c]: a box
				 * holding every point of the cube that lies
				 * in the 2 eps wedge of a triangle listed in
				 * it; a segment whose box misses it meets no
				 * wedge inside the cube */
	float gbox[6];          /* a box holding every tbox of a triangle
				 * that is binned (shell_build): a segment
				 * whose box misses it meets no wedge at
				 * most 2 eps thick */
	int olo[3], ohi[3];     /* the cubes of gbox: none beyond lists a
				 * triangle (olo > ohi: none lists one) */
	uint32_t *occ;          /* prefix sums over the cubes olo..ohi, one
				 * more on each axis: occ at (i,j,k) counts
				 * the cubes below i, j and k (from olo) that
				 * list a triangle, so that a range of cubes
				 * with none is passed over in O(1); NULL
				 * when none lists one */
} shell_set;

/* A triangle's wedge test, prepared once (shell_build): the same numbers
 * shell_tri_blocked computes from the corners on every call. */
typedef struct shell_pre {
	double p[3];            /* corner 0 */
	double e1[3], e2[3];    /* corner 1 - corner 0, corner 2 - corner 0 */
	double n[3];            /* unit normal */
	double area2;           /* |e1 x e2|; 0 for a degenerate triangle */
	double el[3];           /* length of the edge opposite each corner */
} shell_pre;

/* The most triangles shell_gather collects. */
#define SHELL_GATHER_MAX 512

/* Triangles that may block a segment lying in a box, gathered once for
 * many segments (an interpolation stencil's eight rays). */
typedef struct shell_cand {
	int n;                  /* triangles in tri, or -1: more than
				 * SHELL_GATHER_MAX (the queries then walk
				 * the lattice themselves) */
	double mn[3], mx[3];    /* the box */
	uint32_t tri[SHELL_GATHER_MAX]; /* ascending */
} shell_cand;

/* A segment's crossing of one triangle's mid-plane. */
typedef struct shell_hit {
	size_t tri;             /* index in the set */
	double t;               /* parameter along the segment, [0, 1] */
	double bary[3];         /* barycentric weights of the crossing on
				 * the triangle, clamped to it */
} shell_hit;

/* Start an empty set with wedges eps thick (guendelman2005 §3: each
 * triangle extended by eps/2 along its normal and across its edges).
 * 0, or -1 with err if eps is not positive. */
int shell_init(shell_set *s, double eps, slc_err *err);

/* Add the triangles of a mesh (np points xyz, ntri index triples); its
 * triangles keep their mesh's number (0 for the first call, then 1, ...)
 * and their index in it.  0 or -1 (an index out of range, too many). */
int shell_add_mesh(shell_set *s, const float *P, size_t np,
		   const uint32_t *tri, size_t ntri, slc_err *err);

/* Bin the triangles over ci*cj*ck cubes of edge h whose first has its
 * lower corner at origin; call after the last shell_add_mesh (and again
 * after the triangles move).  A triangle is listed in every cube whose
 * centre lies within half the cube's diagonal plus eps of its plane and
 * which meets the box of its wedge 2 eps thick (tbox), so that every
 * point of a wedge at most 2 eps thick lies in a cube listing it;
 * triangles beyond the lattice are listed in the nearest boundary cubes,
 * so a query outside the lattice is still answered safely.  0 or -1. */
int shell_build(shell_set *s, const double origin[3], double h,
		int ci, int cj, int ck, slc_err *err);

void shell_free(shell_set *s);

/* Is the segment from a to b blocked by the thickened triangle t (9
 * floats)?  Also true when either end lies inside the wedge.  Growing a
 * wedge only ever labels more points occluded, the safe side (§3). */
int shell_tri_blocked(const double a[3], const double b[3], const float *t,
		      double eps);

/* shell_tri_blocked(a, b, corners of triangle q, s->eps) for a triangle
 * of a built set (shell_build): the same answer, from the numbers
 * shell_build prepared, passing over a triangle whose wedge box misses
 * the segment's box. */
int shell_tri_blocked_at(const shell_set *s, size_t q, const double a[3],
			 const double b[3]);

/* Is b visible from a: no thickened triangle of the set blocks the
 * segment?  Tests the triangles listed in the cubes of the segment's
 * box.  Read-only: safe from many threads. */
int shell_visible(const shell_set *s, const double a[3], const double b[3]);

/* shell_visible with wedges of another thickness, at most twice the
 * set's eps (the binning's margin covers that much): guendelman2005
 * §4.1 clips a back-trace against wedges 2 eps thick, so that its foot is
 * visible through the eps wedges of the stencil's rays. */
int shell_visible_eps(const shell_set *s, const double a[3], const double b[3],
		      double eps);

/* Gather into c the triangles of s whose 2 eps wedge box meets the box
 * [mn, mx], each once.  Returns c->n (0: no segment inside the box is
 * blocked; -1: too many to gather). */
int shell_gather(const shell_set *s, const double mn[3], const double mx[3],
		 shell_cand *c);

/* shell_visible for a segment inside the box of c (shell_gather): the
 * same answer, testing only the gathered triangles. */
int shell_visible_in(const shell_set *s, const shell_cand *c, const double a[3],
		     const double b[3]);

/* shell_segment_hit for a segment inside the box of c: the same answer. */
int shell_segment_hit_in(const shell_set *s, const shell_cand *c, const double a[3],
			 const double b[3], double t0, shell_hit *hit);

/* The most segments shell_fan_in takes at once (an interpolation
 * stencil's eight). */
#define SHELL_FAN_MAX 8

/* shell_visible_in (hit NULL) or shell_segment_hit_in (hit: nb of them)
 * for the nb segments a->b[k] inside the box of c, each answer the same
 * as those give: vis[k] 1 if a->b[k] is visible, else 0 and, with hit,
 * hit[k] its crossing nearest t0.  Cheaper than nb calls: a's distance to
 * each triangle's plane is found once.  Returns the number visible. */
int shell_fan_in(const shell_set *s, const shell_cand *c, const double a[3],
		 const double (*b)[3], int nb, int *vis, double t0, shell_hit *hit);

/* Do the cubes lo..hi (inclusive, within the lattice, as
 * shell_cube_range gives them) list no triangle?  O(1). */
int shell_range_empty(const shell_set *s, const int lo[3], const int hi[3]);

/* shell_gather(s, mn, mx, c) == 0 without gathering: does no triangle's
 * 2 eps wedge box meet the box [mn, mx]?  Stops at the first that does. */
int shell_box_clear(const shell_set *s, const double mn[3], const double mx[3]);

/* Does any triangle of the set come near the cube holding x?  Cheap:
 * callers take their plain path where this is 0. */
int shell_near(const shell_set *s, const double x[3]);

/* The crossing of the segment a->b with a triangle's mid-plane nearest
 * to the point at parameter t0 along it (guendelman2005 §4.3: the face
 * between two cell centres is cut where the ray between them meets the
 * shell; a segment crossing several triangles, a fold, takes the one
 * nearest t0, the face's own position; that rule is not the paper's,
 * which is silent).  Only triangles whose wedge blocks the segment
 * count.  1 with *hit filled, or 0 if the segment is visible. */
int shell_segment_hit(const shell_set *s, const double a[3],
		      const double b[3], double t0, shell_hit *hit);

/* Cube index range [lo, hi] (inclusive, clamped to the lattice) that a
 * world box [mn, mx] touches; for callers that walk the lists. */
void shell_cube_range(const shell_set *s, const double mn[3],
		      const double mx[3], int lo[3], int hi[3]);

#endif
