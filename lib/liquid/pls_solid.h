/* pls_solid.h: liquid particles against solids.
 *
 * guendelman2005 §4.4.2: negative marker particles collide with solid
 * objects so that water does not leak through them: a particle closer to
 * the object than its collision distance is moved along the object's
 * normal (the gradient of the solid level set, negative inside) until it
 * is that far, and deleted if it is still inside; positive particles that
 * intersect the object are deleted.  Spray particles (spray.h) are pushed
 * out the same way and lose the part of their velocity that goes into
 * the object (the clamp of the normal velocity of §4.4.2).  Solids are
 * taken at rest here: the 'solid' record of a frame, or the rigid bodies'
 * level set as advect sees it in a substep.
 */
#ifndef SLC_PLS_SOLID_H
#define SLC_PLS_SOLID_H

#include <stddef.h>

#include "grid/field.h"
#include "liquid/pls.h"

/* Move x out of the solid along the solid's normal until the solid level
 * set there is at least dist (metres).  Returns 0 if x was already that
 * far (x unchanged), 1 if it was moved (n: the unit normal used, pointing
 * out of the solid), -1 if it could not be brought out of the solid (x
 * unchanged; a vanishing gradient or a thin wall). */
int pls_solid_push(const field *solid, double x[3], double dist, double n[3]);

/* Collide a marker set with the solid: positive particles inside it
 * (solid < 0) are removed; negative particles closer than their radius
 * (their collision distance: guendelman2005 draws it from [0.1, 1] dx,
 * the radius lies in [0.1, 0.5] dx and needs no new channel) are pushed
 * out, and removed when that fails.  Returns the number removed. */
size_t pls_collide(pls_set *s, const field *solid);

/* What pls_collide does to particle q of s, from that particle alone:
 * 1 removes it; 0 keeps it, pushed out of the solid when it was too
 * close (its position changed in s). */
int pls_collide_one(pls_set *s, size_t q, const field *solid);

/* Remove the marker particles of a fresh seeding whose centres lie inside
 * the solid (solid < 0), of either sign.  guendelman2005 §4.4.2 seeds
 * "disregarding the object altogether", then deletes the particles that
 * a collision-aware evaluation of phi finds on the wrong side: inside an
 * object there is no liquid and no air to stand for, and a negative
 * particle seeded there and pushed out along the wall's normal would
 * land wherever the normal points, above the surface beside an
 * overhanging wall, and be taken for escaped liquid.  Returns the number
 * removed. */
size_t pls_drop_inside(pls_set *s, const field *solid);

#endif
