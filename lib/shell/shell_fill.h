/* shell_fill.h: values for samples that a thin shell hides or has swept
 * over: what a blocked stencil sample is replaced by (guendelman2005
 * §4.1, selle2008 thesis §4.4.1), the level set's ring rule (§4.4.1 of
 * both), and the Gauss-Jacobi revalidation of invalid samples from their
 * visible valid neighbours (guendelman2005 §3, thesis §4.3).
 */
#ifndef SLC_SHELL_FILL_H
#define SLC_SHELL_FILL_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
#include "shell/shell_track.h"
#include "shell/shell_vis.h"

/* What a field takes where a shell hides a sample (guendelman2005 §4.1:
 * "the object velocity ... zero density ... ambient temperature"; §4.4.1
 * for the level set). */
enum shell_fill_kind {
	SHELL_FILL_VALUE = 0,   /* a constant: density 0, ambient temperature */
	SHELL_FILL_VEL = 1,     /* component comp of the shell's velocity at
				   the ray's hit */
	SHELL_FILL_PHI = 2,     /* the ring rule; from inside a wedge the
				   samples on the point's side of the bare
				   triangles, and on a triangle's plane the
				   plain value (no side to prefer) */
	SHELL_FILL_RING = 3     /* the ring rule, inside a wedge as for phi;
				   with no visible sample the constant value */
};

typedef struct shell_fallback {
	int kind;               /* enum shell_fill_kind */
	double value;           /* SHELL_FILL_VALUE, SHELL_FILL_RING */
	int comp;               /* SHELL_FILL_VEL: 0, 1, 2 */
	const shell_track *trk; /* SHELL_FILL_VEL: the shells' motion */
} shell_fallback;

/* The value a sample at q takes for a point x that cannot see it (the
 * segment x->q is blocked in s): the constant, the shell velocity's
 * component at the hit nearest x (0 if no wedge is found, which a
 * blocked segment does not allow), or for a level set |q - x| (the ring
 * rule's last resort, a positive distance). */
double shell_fallback_value(const shell_fallback *fb, const shell_set *s,
			    const double x[3], const double q[3]);

/* The one-sided trilinear value of q at x (guendelman2005 §4.1, §4.4.1):
 * the eight samples around x (clamped as field_sample clamps) that x
 * cannot see in s are replaced: by the ring rule for SHELL_FILL_PHI and
 * SHELL_FILL_RING, else each by the fallback.  With no sample visible, x
 * lies inside a wedge (§3's "inside" points, which see nothing): for the
 * ring rule's kinds the samples on x's side of the bare triangles count
 * as visible (wedges 0.01 eps thick, which is the side the pressure
 * solve's cut faces give it); with none on its side either, x lies on a
 * triangle: a level set takes the plain trilinear value (still water on
 * a still wall stays water, not air), SHELL_FILL_RING the constant.
 * *blocked (may be NULL) is set to 1 when a sample was hidden.
 * Read-only: safe from many threads. */
double shell_sample(const field *q, const shell_set *s, const shell_fallback *fb,
		    const double x[3], int *blocked);

/* guendelman2005 §4.4.1 (thesis §4.4.3): the corners of a cell (bit 0 of
 * the index along x, bit 1 along y, bit 2 along z) that are not visible
 * (vis 0) take the mean of the visible corners one index bit away, else
 * two bits, else three.  Returns the number of visible corners; with none
 * v is left as it was. */
int shell_ring_rule(double v[8], const int vis[8]);

/* Gauss-Jacobi revalidation (guendelman2005 §3, M3 of the reading notes):
 * every sample of f marked in bad (one byte a sample) takes the mean of
 * its valid axis neighbours visible from it in s, and becomes valid; the
 * sweep is repeated until none is left or none changes.  A sample inside
 * a wedge (every neighbour hidden) of a level set or a SHELL_FILL_RING
 * field sees the neighbours on its side of the bare triangles, as in
 * shell_sample.  Samples left (no valid visible neighbour on any side)
 * get one last Jacobi sweep in which a blocked neighbour contributes the
 * fallback value (fb) and invalid visible ones nothing; a sample with no
 * contribution at all takes the fallback at its own place (the constant,
 * the velocity of the nearest shell hit, or dx for a level set); a level
 * set's sample on a triangle's plane (no side) keeps its value.  bad is
 * all 0 after.  The number of samples that needed the fallback goes to
 * *nfall (may be NULL).  0, or -1 with err (memory). */
int shell_fill(field *f, unsigned char *bad, const shell_set *s,
	       const shell_fallback *fb, size_t *nfall, slc_err *err);

#endif
