/* prim_rigid.h: a rigid ball as frame records (rigid_move.h): the
 * `rigid` particles record of one body, its body-frame level set
 * `rigid_phi0` and its level set `rigid_phi` on a frame's cells. */
#ifndef SLC_PRIM_RIGID_H
#define SLC_PRIM_RIGID_H

#include "core/err.h"
#include "grid/field.h"
#include "core/slc.h"

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

#endif
