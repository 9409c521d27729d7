/* extrapolate.h: the constrained velocity extrapolation of houston2003
 * §4.2: the fluid velocity continued into solids (occlusions) so that
 * semi-Lagrangian rays that end inside a solid see a velocity with the
 * solid's boundary condition: the normal part never lets fluid into the
 * solid faster than the solid moves, the tangential part goes from full
 * slip (alpha = 0) to no slip (alpha = 1).
 */
#ifndef SLC_EXTRAPOLATE_H
#define SLC_EXTRAPOLATE_H

#include "core/err.h"
#include "grid/field.h"
#include "grid/macgrid.h"

/* The constrained velocity of houston2003 §4.2 from the extrapolated fluid
 * velocity uf, the object velocity uo, the slip alpha and the unit normal
 * n of the solid (pointing out of it):
 *   normal:     proj_n uf if n.uf >= n.uo, else proj_n uo
 *   tangential: ortho_n (uf (1 - 2 alpha) + 2 alpha uo)
 * (the extracted text prints the last coefficient as alpha; with 2 alpha
 * the surface average of fluid and ghost tangential velocity is uo at no
 * slip, as 1 - 2 alpha implies for a still object). */
void extrapolate_constrain(const double uf[3], const double uo[3],
			   double alpha, const double n[3], double out[3]);

/* Replace the face velocities inside the solid (solid level set < 0 at
 * the face) within `band` metres of its surface: first the fluid velocity
 * is extrapolated layer by layer (each new face the average of its
 * already known face neighbours, houston2003 after Enright 2002), then
 * each such face takes its component of extrapolate_constrain at the face,
 * with n the normalised gradient of `solid`, uo the object velocity
 * (uo[3] fields, or NULL for a still object) and alpha the slip field (or
 * NULL for full slip).  Faces deeper than band take the object velocity
 * (uo, or 0): the velocity inside a solid is the object's or its
 * constrained extension, never a value left from earlier steps.
 * Deterministic.  0, or -1 with err (memory). */
int extrapolate_solid(macgrid *vel, const field *solid, const field *uo,
		      const field *slip, double band, slc_err *err);

#endif
