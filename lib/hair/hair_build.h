/* hair_build.h: the particles and springs of hair strands (selle2008
 * thesis §7.3).
 *
 * A strand is its axis points x_1..x_m, root first (the input points,
 * never resampled, so that points keep their identity across frames).
 * §7.3.1 (fig. 7.1d): a segment colinear with a neighbour is subdivided by
 * one virtual particle pushed off the axis so that the segment and its
 * virtual form an equilateral triangle; the virtuals of a straight run
 * turn about the axis, so that consecutive tetrahedra have volume and the
 * strand has a torsion path.  Springs (fig. 7.2) join the interleaved
 * sequence p_0..p_{n-1} of a strand (axis points and virtuals in strand
 * order): (j, j+1) edge; (j, j+2) bend, except across a virtual, where it
 * is the parent segment, an edge; (j, j+3) torsion; and one altitude
 * spring (§5.3.4) on every tetrahedron (j..j+3), with signed rest
 * altitudes, so that a curl keeps its handedness.
 *
 * Particle numbering, shared by the time step, the strain limiter and the
 * collision code: axis point i is particle i (the record's point i);
 * virtual k is particle naxis + k; the virtuals of strand s are numbered
 * in strand order, voff[s]..voff[s+1]-1.  The collision segments of a
 * strand are its axis segments (offset[s]+q, offset[s]+q+1).
 */
#ifndef SLC_HAIR_BUILD_H
#define SLC_HAIR_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/spring.h"
#include "core/err.h"

enum hair_subdivide { HAIR_SUB_AUTO, HAIR_SUB_ALL, HAIR_SUB_NONE };

#define HAIR_NONE UINT32_MAX    /* no virtual on this segment */

/* Stiffnesses k (N) and overdamping fractions of the four spring classes. */
typedef struct hair_springs {
	double k_edge, xi_edge;
	double k_bend, xi_bend;
	double k_tors, xi_tors;
	double k_alt, xi_alt;   /* k_alt: tetrahedra without a virtual (a
				   virtual's take k_tors, hair_build.c) */
} hair_springs;

typedef struct hair_topo {
	size_t nstrands;
	size_t naxis, nvirt, np;    /* np = naxis + nvirt particles */
	uint32_t *offset;       /* nstrands + 1: axis points of strand s */
	uint32_t *voff;         /* nstrands + 1: virtuals of strand s */
	uint32_t *virt_seg;     /* nvirt: the rootward axis point of the
				   segment the virtual subdivides */
	uint32_t *seg_virt;     /* naxis: the particle of the virtual on the
				   segment from axis point i, or HAIR_NONE */
	uint32_t *seq;          /* np: every strand's interleaved sequence,
				   strand s from offset[s] + voff[s] */
	spring_lists sl;        /* the springs, over arrays owned here */
	uint32_t *edge, *pair, *tet, *tet_norm;
	double *pair_k, *pair_xi, *tet_k;
} hair_topo;

/* Which segments get a virtual (§7.3.1): with HAIR_SUB_AUTO, a segment
 * whose rest direction turns by less than HAIR_COLINEAR_DEG from the
 * segment before or after it.  nstrands strands over offset (validated:
 * rising from 0 to naxis, >= 2 points each), rest axis positions (3 naxis).
 * Allocates *virt_seg (the rootward axis point of each, ascending) and
 * sets *nvirt.  0 / -1 with err. */
int hair_choose(size_t nstrands, const uint32_t *offset, size_t naxis,
		const double *rest, int mode, uint32_t **virt_seg,
		size_t *nvirt, slc_err *err);

/* The topology and springs of the strands with the virtuals virt_seg
 * (nvirt, ascending, each a segment's rootward point, not a strand's last
 * point; copied).  kscale (nstrands, or NULL: 1) scales the bend, torsion
 * and altitude stiffness of each strand (thesis fig. 7.5).  0 / -1. */
int hair_topo_build(hair_topo *t, size_t nstrands, const uint32_t *offset,
		    size_t naxis, const uint32_t *virt_seg, size_t nvirt,
		    const hair_springs *k, const double *kscale, slc_err *err);

void hair_topo_free(hair_topo *t);

/* Rest positions of the virtuals (3 nvirt) from the axis rest positions
 * (3 naxis): at the segment's midpoint, (sqrt 3 / 2) L off the axis along
 * a direction carried from segment to segment along the strand and turned
 * by HAIR_VIRT_TURN_DEG about the axis after each virtual. */
void hair_virt_rest(const hair_topo *t, const double *rest, double *vrest);

/* Positions of the virtuals (3 nvirt) on the axis positions P (3 naxis):
 * each strand's rest shape (rest 3 naxis, vrest 3 nvirt) moved by the
 * rotation that best fits its rest axis to P (Kabsch, by Horn's
 * quaternion); for a straight strand, the smallest rotation taking its
 * rest direction to the root-to-tip direction of P. */
void hair_virt_place(const hair_topo *t, const double *rest,
		     const double *vrest, const double *P, double *vP);

#endif
