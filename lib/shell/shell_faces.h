/* shell_faces.h: the MAC faces a thin shell cuts (guendelman2005 §4.3,
 * Figure 5; selle2008 thesis §4.4.2, eqs 4.1-4.2).
 *
 * A face between two cells is cut when the ray between the two cell
 * centres meets the shell (shell_segment_hit, shell_vis.h).  Each cut
 * face keeps the crossing's triangle, its barycentric weights and the
 * shell's velocity there: in the projection (eq 4) the face is a Neumann
 * face holding that velocity's component along its axis, and the
 * pressure jump across it is the force on the shell, handed to the
 * triangle's nodes by the same weights.
 */
#ifndef SLC_SHELL_FACES_H
#define SLC_SHELL_FACES_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "shell/shell_vis.h"

/* One mesh of a shell set, as the faces need it: its triangles' node
 * indices (in the order given to shell_add_mesh) and its nodes'
 * velocities (3 doubles a node, m/s; NULL: a still mesh). */
typedef struct shell_face_mesh {
	const uint32_t *tri;    /* 3 per triangle */
	size_t ntri, np;
	const double *vel;      /* 3 per node, or NULL */
} shell_face_mesh;

/* A cut face: axis ax (0 x, 1 y, 2 z), the cell (i, j, k) below it on
 * that axis, its index f in the axis' face grid (i + (ni+1)*(j + nj*k)
 * for x and so on), the cells lo and hi on its two sides, the crossing
 * (mesh, node indices, barycentric weights, parameter t from lo to hi)
 * and the shell's velocity there. */
typedef struct shell_face {
	int ax, i, j, k;
	size_t f, lo, hi;
	uint32_t mesh;
	uint32_t node[3];
	double bary[3];
	double t;
	double v[3];            /* m/s: sum of bary * node velocity */
} shell_face;

typedef struct shell_faces {
	shell_face *face;       /* in axis order, then face index order */
	size_t n;
	uint8_t *cut[3];        /* per face of each axis: 1 where cut */
	size_t nf[3];           /* faces per axis */
} shell_faces;

/* Find the cut faces of an ni x nj x nk grid of cell size dx with
 * minimum corner origin: every face between two cells whose
 * centre-to-centre ray meets a triangle of s (built over this grid or
 * any lattice), the crossing nearest the face (shell_segment_hit with
 * t0 = 1/2).  mesh[q] describes mesh q of s (nmesh of them, as many as
 * s holds).  Faces of the grid box are not looked at (they are walls or
 * open already).  The result does not depend on the thread count.  0,
 * or -1 with err (memory, size overflow, a mesh that does not match s);
 * F is then empty. */
int shell_faces_find(shell_faces *F, const shell_set *s, const shell_face_mesh *mesh,
		     size_t nmesh, int ni, int nj, int nk, double dx,
		     const double origin[3], slc_err *err);

void shell_faces_free(shell_faces *F);

/* The per-face force of eq 4's pressure: for each cut face the pressure
 * difference across it times its area, F_f = (p_lo - p_hi) dx^2 e_ax (N),
 * on the shell (p in Pa per cell, 0 where there is no unknown), plus
 * extra[n] along the axis of face n when extra is given (the impulse of
 * the fluid in the face's own control volume, which the held face stops:
 * shell_stage.c).  Each F_f is handed to the crossing
 * triangle's nodes by barycentric weight and added into force[mesh q]
 * (3 doubles a node, zeroed by the caller; NULL entries skipped).  The
 * sum of F_f over the faces, added in face order, goes to face_sum (3
 * doubles); the total handed to the nodes equals it to rounding (the
 * weights sum to one), the fluid losing exactly what the shell gets. */
void shell_faces_force(const shell_faces *F, const double *p, const double *extra,
		       double dx, double *const *force, double face_sum[3]);

/* Gauss-Jacobi sweeps that spread the paper transfer's nodal jumps into
 * a band around the shell: guendelman2005 §5.1 says "a band of grid
 * points" without a width; three reach every node of the cells next to
 * the cut faces' nodes, enough for the trilinear stencil of any
 * triangle's barycentre near them. */
#define SHELL_PAPER_BAND 3

/* guendelman2005 §5.1's transfer of eq 6's pressure to the shell, the
 * paper's route: the jump p_lo - p_hi (p in Pa per cell) of each cut face
 * goes to the grid nodes as the mean of the up to four cut faces of that
 * axis around each node, is spread by SHELL_PAPER_BAND Gauss-Jacobi
 * sweeps into a band, separately per axis, and the vector D of the three
 * axes is interpolated trilinearly (over valid nodes) to each triangle's
 * barycentre; the triangle's force is F = (D . n) A n, a third to each
 * node, added into force[q] (3 doubles a node of mesh q, zeroed by the
 * caller; NULL entries skipped).  P[q]: mesh q's node positions (where
 * the faces were cut).  On a shell tilted from the axes D . n
 * overestimates the jump by |n|_1 (sqrt 2 at 45 degrees): the sum is not
 * the faces' (shell_faces_force's face_sum).  0, or -1 with err
 * (memory). */
int shell_faces_force_paper(const shell_faces *F, const double *p, int ni, int nj, int nk,
			    double dx, const double origin[3], const shell_face_mesh *mesh,
			    const double *const *P, size_t nmesh, double *const *force,
			    slc_err *err);

#endif
