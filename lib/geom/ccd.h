/* ccd.h: continuous collision times of moving points (Bridson, Fedkiw and
 * Anderson 2002 §4: four points moving linearly are coplanar at the roots
 * of a cubic).  Shared by cloth's self-collisions (lib/cloth/collide_self.c)
 * and the swept invalidation of thin shells (lib/shell/shell_sweep.c,
 * guendelman2005 §3).
 */
#ifndef SLC_CCD_H
#define SLC_CCD_H

/* Times t in [0,1] (ascending, at most 3) when four points moving as
 * x_i + t d_i are coplanar: roots of the cubic (x1-x0)x(x2-x0).(x3-x0). */
int ccd_coplanar_times(const double *const x[4], const double *const d[4],
		       double t[3]);

/* The coefficients c (ascending powers of t) of that cubic. */
void ccd_coplanar_cubic(const double *const x[4], const double *const d[4],
			double c[4]);

#endif
