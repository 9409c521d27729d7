/* prim_rigid.h: rigid bodies as frame records (rigid_move.h): a ball, the
 * `rigid` particles record of one body, its body-frame level set
 * `rigid_phi0` and its level set `rigid_phi` on a frame's cells; and a
 * thin shell (a hull), the `rigid` record of its mass and the mesh that
 * moves with it (formats/slc.md, "Thin shells"). */
#ifndef SLC_PRIM_RIGID_H
#define SLC_PRIM_RIGID_H

#include "core/err.h"
#include "grid/field.h"
#include "core/slc.h"
#include "prim/prim.h"

/* Cells of margin around the ball in rigid_phi0's box: the trilinear
 * level set is exact distance there, and reaches the narrow band that the
 * pressure weights and the solid extrapolation read. */
#define PRIM_BALL_MARGIN 3

typedef struct prim_ball {
	double radius;          /* m */
	double center[3];       /* m */
	double v[3], omega[3];  /* m/s, rad/s */
	double density;         /* kg/m^3: mass 4/3 pi r^3 density, I = 2/5 m r^2 */
	int scripted;           /* 1: scripted (kinematic) */
	double accel[3];        /* scripted: prescribed acceleration */
	double stop;            /* scripted: time of rest, s (INFINITY: never) */
} prim_ball;

/* Build rec[0] `rigid` (P, orient, v, omega f64; mass, inertia f64;
 * scripted u8; when scripted accel f64, and stop f64 if finite), rec[1]
 * `rigid_phi0` (exact sphere distance on a cube of cell size cells->dx
 * centred on the centre of mass, PRIM_BALL_MARGIN cells of margin) and
 * rec[2] `rigid_phi` (on the cells of `cells`), all at `time`.  rec[] must
 * be empty.  0 or -1 with err (bad values, memory); nothing is left
 * allocated on failure. */
int prim_ball_recs(const prim_ball *b, const field *cells, double time,
		   slc_rec rec[3], slc_err *err);

/* A rigid body made of a zero-thickness surface of uniform areal
 * density (a hull): no inside, so no level set. */
typedef struct prim_shell_body {
	double density;         /* kg/m^2 of surface */
	double v[3], omega[3];  /* m/s, rad/s */
	int scripted;           /* 1: scripted (kinematic) */
	double accel[3];        /* scripted: prescribed acceleration */
	double stop;            /* scripted: time of rest, s (INFINITY: never) */
} prim_shell_body;

/* Build rec[0] `rigid` (one body, the channels of prim_ball_recs: P the
 * centre of mass of the surface of m, mass = density x area, inertia the
 * thin shell's about P, identity orient) and rec[1] the mesh record
 * `name`: P f32 x3 (world), tri, v f32 x3 (the rigid velocity v + omega
 * x (P - centre) at each point), body_P f64 x3 (the points in the body's
 * frame: P minus the centre of mass, the orientation being the identity)
 * and detail `body` u32 x1 = 0 (the point of `rigid` the mesh moves
 * with); both at `time`.  rec[] must be empty.  0 or -1 with err (a
 * density not positive, an empty mesh, memory); nothing is left
 * allocated on failure. */
int prim_shell_body_recs(const prim_mesh *m, const char *name,
			 const prim_shell_body *b, double time, slc_rec rec[2],
			 slc_err *err);

#endif
