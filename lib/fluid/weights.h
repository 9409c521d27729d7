/* weights.h: face weights of the variational pressure solve from a level set.
 *
 * batty2007 §2.1: the weight of a MAC face is the fraction of the dx^3
 * control volume centred on the face (spanning the two cell centres on
 * either side along the face's axis) that holds fluid.  The level set is
 * cell-centred, indexed ls[i + ni*(j + nj*k)], positive outside the solid.
 * Face arrays are laid out as the u, v, w grids of the stream: wx has
 * (ni+1) x nj x nk samples, wy ni x (nj+1) x nk, wz ni x nj x (nk+1).
 */
#ifndef SLC_WEIGHTS_H
#define SLC_WEIGHTS_H

#include <stddef.h>

/* Fraction in [0,1] of each face's control volume where ls > 0, estimated
 * from the trilinear interpolant of ls (8 sub-cubes, each with a linear
 * estimate that is exact for a plane parallel to an axis).  ls NULL: all
 * ones.  Used both for the fluid weights (ls = the solid level set) and,
 * as 1 - fraction, for the volume weights of a rigid body (batty2007 §3.1).
 * wa receives axis a's faces; none may be NULL. */
void weights_variational(const float *ls, int ni, int nj, int nk,
			 float *wx, float *wy, float *wz);

/* The voxelized weights (batty2007 §1.1, houston2003 §4.1): 1 where the
 * face centre lies outside the solid (interpolated ls > 0), else 0. */
void weights_binary(const float *ls, int ni, int nj, int nk,
		    float *wx, float *wy, float *wz);

/* Value of the trilinear interpolant of a cell-centred grid at the point
 * with half-cell lattice coordinates (hx, hy, hz): position = origin +
 * dx*(hx, hy, hz)/2, so cell centre c has h = 2c+1 and face/node plane n
 * has h = 2n.  Indices beyond the grid are clamped (constant extension). */
double weights_half(const float *ls, int ni, int nj, int nk,
		    int hx, int hy, int hz);

#endif
