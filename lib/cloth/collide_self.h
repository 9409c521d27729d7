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
 *
 * The elements are given as lists (particles, edges, triangles), so that
 * bodies without a cloth mesh use it too: hair (thesis §7.5.3) passes its
 * strand segments as edges and no triangles, which leaves the edge/edge
 * repulsions and collisions; it turns the impact zones off ("any hair state
 * is collision-free": what the passes leave is counted, not an error) and
 * gives the pairs joined by stiction, whose collisions are detected but
 * not answered.
 */
#ifndef SLC_COLLIDE_SELF_H
#define SLC_COLLIDE_SELF_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/cloth_split.h"
#include "core/err.h"
#include "geom/ccd.h"

struct cloth;
typedef struct collide_self collide_self;

typedef struct collide_self_params {
	double thickness;       /* repulsion thickness h, m */
	double k_rep;           /* repulsion stiffness k of eq. 6.1, N/m */
	double mu_self;         /* friction coefficient between elements */
	int coll_iters;         /* step C: collision passes before impact
				   zones (zones 1) or before stopping */
	int zones;              /* 1: rigid impact zones after coll_iters
				   passes, -1 from step C if collisions remain
				   after all passes (cloth); 0: stop after
				   coll_iters passes and count the pairs
				   still colliding (hair, §7.5.3) */
	int strands;            /* 1: the edges are strand segments, each
				   given root side first: closest points of
				   parallel segments at the middle of their
				   overlap (not at an end), and a segment's
				   ends take part in repulsions (its rootward
				   end always, its tipward end where the
				   strand ends there), since no triangles
				   cover them; a contact that only a lever
				   on constrained particles could answer
				   (near a pinned root) is left alone; step
				   C's passes after the first test only
				   the pairs whose velocities changed
				   (collide_self.c); 0: cloth's edges */
} collide_self_params;

/* Set up for np particles with masses m (np, kg) and velocity constraints
 * fixed (np, 1 = prescribed: never moved by an impulse), both borrowed
 * (read at every call, so they must outlive s), ne edges edge (2 ne
 * particle indices) and nt triangles tri (3 nt; nt may be 0: edge/edge
 * pairs only), copied, and the parameters p.  NULL with err (an index
 * out of range, out of memory). */
collide_self *collide_self_new_lists(size_t np, const double *m,
				     const uint8_t *fixed, size_t ne,
				     const uint32_t *edge, size_t nt,
				     const uint32_t *tri,
				     const collide_self_params *p,
				     slc_err *err);

/* Set up for the cloth c: collide_self_new_lists on its mesh, masses,
 * constraints and parameters thickness, k_rep, mu_self, coll_iters, with
 * impact zones.  NULL with err. */
collide_self *collide_self_new(struct cloth *c, slc_err *err);

/* Share the candidate searches among the ranks of an MPI build
 * (cloth_split.h; NULL: all here): each rank queries its own
 * QUERY_BLOCKS, and every block's pairs are gathered to every rank in
 * block order, the serial list; the responses then run on every rank
 * alike.  sp is borrowed. */
void collide_self_set_split(collide_self *s, cloth_split *sp);

/* The skip set of step C: the n edge pairs pairs[2j], pairs[2j + 1]
 * (indices into the edge list, either order) whose collisions are
 * detected and counted but not answered (thesis §7.5.3: pairs held by a
 * stiction spring).  Replaces the previous set; n = 0 empties it.
 * 0 / -1 with err (an index out of range, out of memory). */
int collide_self_skip(collide_self *s, size_t n, const uint32_t *pairs,
		      slc_err *err);

/* Counters of step C since collide_self_new: pairs still colliding when
 * a zones-0 step C stopped (*unresolved), and collisions of skipped
 * pairs (*skipped); either pointer may be NULL. */
void collide_self_counts(const collide_self *s, long *unresolved,
			 long *skipped);

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
 * particle whose x1 a response changed.  Counts collisions answered and impact zones
 * into *ncoll and *nzones.  With impact zones: 0, or -1 with err if
 * collisions remain after the iteration limit.  Without (zones 0):
 * coll_iters passes of responses, then one pass that counts the pairs
 * still colliding into the unresolved counter (collide_self_counts); 0,
 * or -1 with err only when out of memory. */
int collide_self_resolve(collide_self *s, const double *x0, double *x1,
			 double T, uint8_t *moved, long *ncoll, long *nzones,
			 slc_err *err);

/* Geometry shared with the tests. */

/* Squared distance from p to triangle abc; w: barycentric weights of the
 * closest point. */
double tri_point_dist2(const double p[3], const double a[3], const double b[3],
		       const double c[3], double w[3]);

/* Squared distance between segments ab and cd; closest points
 * a + s(b-a), c + t(d-c). */
double seg_seg_dist2(const double a[3], const double b[3], const double c[3],
		     const double d[3], double *s, double *t);

/* seg_seg_dist2, except that of two parallel segments the closest points
 * are at the middle of their overlap rather than at an end of one (the
 * strand mode's geometry, also where stiction embeds its points). */
double strand_seg_dist2(const double a[3], const double b[3], const double c[3],
			const double d[3], double *s, double *t);

#endif
