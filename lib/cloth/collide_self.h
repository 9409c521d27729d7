/* collide_self.h: cloth self-repulsions and robust self-collisions,
 * selle2008 thesis §6.3 (the outer collision loop) and §6.4 (history-based
 * repulsions), after Bridson et al. [15] for the geometric collisions.
 *
 * Step A (collide_self_pairs) finds point/triangle and edge/edge pairs
 * near the collision-free state and stores their orientation there.
 * Steps B.2 and B.8 (collide_self_repulse) apply inelastic and elastic
 * repulsions and friction to those pairs every time step; a pair that has
 * crossed since step A is pushed back to its recorded side (attraction).
 * Step C (collide_self_resolve) makes the linear trajectories from the
 * collision-free positions to the new ones collision free: swept
 * point/triangle and edge/edge tests with the cubic coplanarity equation,
 * inelastic impulses on the effective velocity in Gauss-Seidel order,
 * iteration, then rigid impact zones with a pseudo-inverse inertia tensor.
 */
#ifndef SLC_COLLIDE_SELF_H
#define SLC_COLLIDE_SELF_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct cloth;
typedef struct collide_self collide_self;

/* Set up for the cloth c (its mesh, masses, constraints and parameters
 * thickness, k_rep, mu_self, coll_iters are used).  NULL with err. */
collide_self *collide_self_new(struct cloth *c, slc_err *err);

void collide_self_free(collide_self *s);

/* Step A: repulsion pairs among elements whose boxes, swept from x along
 * span*v and grown by the thickness, overlap; orientation recorded at x
 * (collision free).  0 / -1 (out of memory). */
int collide_self_pairs(collide_self *s, const double *x, const double *v,
		       double span, slc_err *err);

/* Number of repulsion pairs found by the last step A. */
size_t collide_self_npairs(const collide_self *s);

/* Steps B.2 (elastic = 1: inelastic then elastic repulsion, on the
 * velocity that moves the positions) and B.8 (elastic = 0: inelastic
 * repulsion and friction, on the final velocity) for positions x. */
void collide_self_repulse(collide_self *s, const double *x, double *v,
			  double dt, int elastic);

/* Step C: change x1 so that the straight paths from x0 (collision free)
 * to x1 over T seconds are collision free.  moved[i] is set to 1 for every
 * particle whose x1 changed.  Counts collisions and impact zones into
 * *ncoll and *nzones.  0, or -1 with err if collisions remain after the
 * iteration limit. */
int collide_self_resolve(collide_self *s, const double *x0, double *x1,
			 double T, uint8_t *moved, long *ncoll, long *nzones,
			 slc_err *err);

/* Geometry shared with the tests. */

/* Times t in [0,1] (ascending, at most 3) when four points moving as
 * x_i + t d_i are coplanar: roots of the cubic (x1-x0)x(x2-x0).(x3-x0). */
int ccd_coplanar_times(const double *const x[4], const double *const d[4],
		       double t[3]);

/* Squared distance from p to triangle abc; w: barycentric weights of the
 * closest point. */
double tri_point_dist2(const double p[3], const double a[3], const double b[3],
		       const double c[3], double w[3]);

/* Squared distance between segments ab and cd; closest points
 * a + s(b-a), c + t(d-c). */
double seg_seg_dist2(const double a[3], const double b[3], const double c[3],
		     const double d[3], double *s, double *t);

#endif
