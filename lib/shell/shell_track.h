/* shell_track.h: thin shells moving over one frame, for the fluid steps
 * that must see them at any time inside it.
 *
 * guendelman2005 §5 and selle2008 thesis §4.5 treat the solid as a black
 * box known only by its node positions at discrete times: between them a
 * node moves on a straight line at constant speed, and the velocity of a
 * point of a triangle is the barycentric blend of its nodes' (M13 of the
 * reading notes).  A track holds, for each mesh, the positions x^n at the
 * start of the frame (the mesh record's `P_prev`, or `P` for a still
 * shell) and x^{n+1} at its end (`P`), and sets up a shell_set at any
 * fraction s of the frame.
 */
#ifndef SLC_SHELL_TRACK_H
#define SLC_SHELL_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "shell/shell_vis.h"

typedef struct shell_mesh {
	size_t np, ntri;
	double *P0, *P1;        /* 3 np each, owned: x^n and x^{n+1} */
	uint32_t *tri;          /* 3 ntri, owned */
	int moving;             /* P0 differs from P1 somewhere */
} shell_mesh;

typedef struct shell_track {
	shell_mesh *m;
	size_t nmesh;
	double T;               /* the frame's length, s: node velocities are
				   (P1 - P0) / T */
	double eps;             /* wedge thickness, metres */
	double origin[3], h;    /* the lattice of the sets made */
	int ci, cj, ck;
} shell_track;

/* An empty track for a frame of T seconds (> 0) with wedges eps thick,
 * binned over ci*cj*ck cubes of edge h from origin (shell_build).  0, or
 * -1 with err. */
int shell_track_init(shell_track *t, double T, double eps, const double origin[3],
		     double h, int ci, int cj, int ck, slc_err *err);

/* Add a mesh of np points: P0 (3 np doubles, or NULL for a still mesh)
 * and P1, and ntri triangles; everything is copied.  0, or -1 with err
 * (a point index out of range, a coordinate not finite, memory). */
int shell_track_add(shell_track *t, const double *P0, const double *P1, size_t np,
		    const uint32_t *tri, size_t ntri, slc_err *err);

/* Does any mesh move over the frame? */
int shell_track_moving(const shell_track *t);

/* The position of point p of mesh m at fraction s of the frame. */
void shell_track_point(const shell_track *t, size_t m, size_t p, double s, double x[3]);

/* Set s (freed first, then initialised) to the shells at fraction s of
 * the frame (0: its start, 1: its end), binned.  0, or -1 with err. */
int shell_track_set(const shell_track *t, double frac, shell_set *s, slc_err *err);

/* The velocity (m/s) of the shell at a hit of a set made by
 * shell_track_set: the barycentric blend of the hit triangle's node
 * velocities. */
void shell_track_velocity(const shell_track *t, const shell_set *s,
			  const shell_hit *hit, double v[3]);

void shell_track_free(shell_track *t);

#endif
