/* prim_char.h: animated characters for the skinned tet mesh bake
 * (kdsmbake), built from nothing outside the repository: a two-bone arm
 * bending at the elbow under linear blend skinning, and a ball carried
 * rigidly along a path, a head turning and nodding (prim_head.h).  Each frame is a closed skin mesh `body` (P, tri,
 * rest, analytic vertex velocity v, bone weights bw f32x2) and a meta
 * record `skeleton` with each bone's rest-to-pose matrix and its time
 * derivative.  The topology is the same at every frame.
 *
 * mkprim's `arm` and `ball --path` use the prim_char_shape table below;
 * their numbers come from the shared prim_spec (radius, center, velocity,
 * subdiv, res, rate, fps, name) and from prim_char_spec (the rest).
 */
#ifndef SLC_PRIM_CHAR_H
#define SLC_PRIM_CHAR_H

#include "core/err.h"
#include "core/slc.h"
#include "prim/prim.h"
#include "prim/prim_shape.h"

/* Half-width of the elbow's blend of the two bones' weights, in arm
 * radii: the weight of the forearm rises linearly from 0 to 1 across
 * [L1 - b, L1 + b] along the rest arm (not from the paper: LBS as
 * characters use it, with its joint collapse on purpose, §6). */
#define PRIM_ARM_BLEND 1.0

/* The parameters of mkprim's character options. */
enum prim_char_param { PC_FRAME, PC_BONES, PC_ELBOW, PC_PERIOD, PC_ORBIT, PC_TURN, PC_NOD,
		       PC_COUNT_ };
enum prim_char_path { PRIM_PATH_LINE, PRIM_PATH_CIRCLE };

typedef struct prim_char_spec {
	prim_list p[PC_COUNT_];
	int path;               /* enum prim_char_path, -1 until given */
} prim_char_spec;

/* A skeleton pose: per bone, the 3x4 rest-to-pose matrix M (row-major,
 * x' = M[0..2] x + M[3] per row) and dM/dt. */
#define PRIM_BONES_MAX 2
typedef struct prim_pose {
	int nbones;
	double M[PRIM_BONES_MAX][12], Mdot[PRIM_BONES_MAX][12];
} prim_pose;

/* The arm at time t (s): shoulder at c, rest pose straight along +x,
 * bones of lengths L1 (upper arm) and L2 (forearm), radius r, res
 * segments around (>= 3).  The upper arm stays; the forearm turns about
 * the z axis through the elbow by theta(t) = theta0 + amp sin(2 pi t /
 * period) (radians).  rest: the closed capsule mesh (rest pose); bw:
 * 2 weights per vertex (caller frees both through prim_mesh_free / free).
 * 0 or -1 with err. */
int prim_arm(prim_mesh *rest, float **bw, prim_pose *pose, const double c[3],
	     double L1, double L2, double r, int res, double theta0, double amp,
	     double period, double t, slc_err *err);

/* The pose of one bone moving rigidly at time t: along a line from 0 at
 * velocity v (path LINE), or turning about the vertical axis through o
 * at omega rad/s (CIRCLE). */
void prim_path_pose(prim_pose *pose, int path, const double v[3],
		    const double o[3], double omega, double t);

/* Apply the skeleton to point X with weights w (pose->nbones of them):
 * x = sum w_b M_b X, v = sum w_b Mdot_b X. */
void prim_pose_apply(const prim_pose *pose, const float *w, const double X[3],
		     double x[3], double v[3]);

/* The frame's records: mesh `name` (P f64 posed, tri, rest f64, v f64,
 * bw f32x2) and meta `skeleton` (bones, frame, time, bone.K, bone.K.dot:
 * 12 comma-separated numbers each).  Both records passed to emit. */
int prim_char_emit(const prim_mesh *rest, const float *bw, const prim_pose *pose,
		   const char *name, long frame, double t, prim_emit emit,
		   void *arg, slc_err *err);

/* mkprim's character shapes: "arm", "head" (prim_head.h), and "ball" with
 * --path. */
typedef struct prim_char_shape {
	prim_shape sh;          /* name, defaults, optional (check, make unused) */
	int (*check)(prim_spec *s, prim_char_spec *c, slc_err *err);
	int (*make)(const prim_spec *s, const prim_char_spec *c, prim_emit emit,
		    void *arg, slc_err *err);
} prim_char_shape;

/* The character shape called name (with_path: --path was given, which
 * makes "ball" the ball on a path), or NULL. */
const prim_char_shape *prim_char_find(const char *name, int with_path);

#endif
