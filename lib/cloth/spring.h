/* spring.h: the mass-spring constitutive model of cloth.
 *
 * selle2008 thesis §5.3.2 (linear springs, damping along the spring only),
 * §5.3.3 (bending springs across shared edges, biphasic option), §5.3.4
 * (the generalized altitude spring on the tetrahedron formed by two
 * triangles sharing an edge) and §5.5 (implicit linear springs).
 *
 * Every element is a "4-point spring": up to four particles i with weights
 * alpha_i (summing to zero) and a unit direction n, so that its signed
 * length is l = n . sum_i alpha_i x_i.  Its elastic energy is
 * (K/2)(l - l0)^2 with K = k/L (k the stiffness of table 6.1, N; L a rest
 * length, m), the elastic force on particle i is -alpha_i K (l - l0) n and
 * the damping force is -alpha_i c (n . sum_j alpha_j v_j) n.  An edge
 * spring has alpha = (-1, 1), n = (x2 - x1)/|x2 - x1|.  Fixing n and alpha
 * over a step makes the force linear in position (§5.5), so springs are
 * linearized once per solve (spring_linearize) and then applied.
 *
 * A fourth kind has fixed weights: the spring between two points embedded
 * in two segments at fractions s and t, alpha = (-(1-s), -s, 1-t, t), n
 * along the vector between the embedded points (hair stiction, thesis
 * §7.5.2).  Its set changes during a run (spring_set_four), unlike the
 * others.
 *
 * Forces are gathered per particle through a fixed incidence list, so the
 * result does not depend on the number of threads.
 */
#ifndef SLC_SPRING_H
#define SLC_SPRING_H

#include <stddef.h>
#include <stdint.h>

#include "cloth/cloth_mesh.h"
#include "core/err.h"

enum spring_kind { SPRING_EDGE = 0, SPRING_BEND = 1, SPRING_ALT = 2,
		   SPRING_FOUR = 3 };

typedef struct spring_params {
	double E_e;             /* edge stiffness k, N (table 6.1: 4.14) */
	double xi_e;            /* edge overdamping fraction (15) */
	double E_b;             /* bending stiffness (0.41) */
	double xi_b;            /* bending overdamping fraction (8) */
	double compress_scale;  /* biphasic: edge stiffness factor when
				   compressed (§5.3.2); 1 = linear */
	int altitude;           /* add the altitude bending springs (§5.3.4) */
} spring_params;

/* Table 6.1 defaults. */
void spring_params_default(spring_params *p);

typedef struct spring_set {
	size_t ns, np;
	size_t nedge, nbend, nalt;  /* springs are stored edges, two-point
				       pairs (bends), alts, then nfour
				       fixed-weight four-point springs */
	size_t nfour;
	double *w4;             /* 4*nfour fixed weights (sum zero) */
	uint32_t *idx;          /* 4*ns particles (unused slots repeat idx[0]) */
	uint8_t *npart;         /* 2 or 4 */
	double *k;              /* stiffness, N */
	double *L;              /* normalising rest length, m */
	double *l0;             /* rest length (edge, bend) */
	double *xi;             /* overdamping fraction */
	double compress_scale;
	double *l0alt;          /* 7*nalt rest altitudes of the candidates */
	/* linearization (spring_linearize) */
	double *alpha;          /* 4*ns */
	double *n;              /* 3*ns */
	double *l;              /* signed length now */
	double *K;              /* k/L (times compress_scale if compressed) */
	double *fe;             /* elastic scalar -K (l - l0) */
	double *c;              /* damping coefficient incl. implicit part */
	double *g;              /* scratch, ns */
	/* incidence: particle i touches entries inc[inc_off[i]..inc_off[i+1]),
	 * each 4*s + slot */
	size_t *inc_off;
	uint32_t *inc;
} spring_set;

/* The springs of a mass-spring body without its mesh: edge springs,
 * other two-point springs (cloth bending, hair bending and torsion) and
 * tetrahedra carrying one altitude spring each (§5.3.4).  A per-spring
 * array left NULL takes the uniform value after it. */
typedef struct spring_lists {
	size_t np;              /* particles */
	size_t nedge;
	const uint32_t *edge;   /* 2*nedge particle pairs */
	const double *edge_k, *edge_xi;
	double k_e, xi_e;
	size_t npair;
	const uint32_t *pair;   /* npair particle pairs, pair_stride apart */
	size_t pair_stride;     /* 0: 2 (cloth's bends: 4, in its bend list) */
	const double *pair_k, *pair_xi;
	double k_p, xi_p;
	size_t ntet;
	const uint32_t *tet;    /* 4*ntet particles of each tetrahedron */
	const uint32_t *tet_norm; /* ntet (NULL: tet j, pair j): the pair whose rest length
				     normalises the altitude (cloth: the bend
				     across the same edge; hair: the torsion
				     spring of the same four particles) */
	const double *tet_k, *tet_xi;
	double k_t, xi_t;
	double compress_scale;  /* biphasic edge factor (§5.3.2); 1: linear */
} spring_lists;

/* Build the springs of the lists l with rest state from xrest (3*np):
 * rest lengths of the two-point springs, signed rest altitudes of the
 * seven candidates of every tetrahedron.  Stored edges first, then
 * pairs, then altitude springs, in list order.  Fails on an index out of
 * range or a zero rest length.  0 / -1. */
int spring_build_lists(spring_set *s, const spring_lists *l,
		       const double *xrest, slc_err *err);

/* Build edge springs on every mesh edge, bending springs between the
 * opposite vertices of every pair of triangles sharing an edge and (if
 * p->altitude) an altitude spring on each such pair, with rest state from
 * xrest (3*np): spring_build_lists on the mesh's lists.  0 / -1. */
int spring_build(spring_set *s, const cloth_mesh *m, const double *xrest,
		 const spring_params *p, slc_err *err);

void spring_free(spring_set *s);

/* Fixed-weight four-point springs between embedded points: spring j acts
 * on particles idx[4j..4j+3] with weights w[4j..4j+3] (summing to zero,
 * e.g. (-(1-s), -s, 1-t, t) for fractions s, t along two segments), its
 * direction along sum_i w_i x_i, rest length l0, stiffness k (N) over the
 * normalising length L (m), overdamping fraction xi. */
typedef struct spring_four_list {
	size_t n;
	const uint32_t *idx;    /* 4n particles */
	const double *w;        /* 4n weights */
	double l0, k, L, xi;
} spring_four_list;

/* Replace the four-point springs of s by those of f (f->n = 0: none) and
 * rebuild the incidence lists; the other springs are kept as they are.
 * The block sparsity of a system built on s (cloth_sys_build) must be
 * rebuilt after.  On failure s is unchanged.  0 / -1 with err (an index
 * out of range, L not positive, out of memory). */
int spring_set_four(spring_set *s, const spring_four_list *f, slc_err *err);

/* Fix directions and weights at positions x (3*np) and compute the elastic
 * forces and damping coefficients.  m: particle masses (np, kg), used for
 * the critical damping 2 sqrt(K m_eff) that the overdamping fraction
 * scales.  tau (s): implicit-spring time; the damping coefficient becomes
 * c = b + tau K (§5.5: a fixed-direction spring at x + tau v), 0 for the
 * plain semi-implicit spring. */
void spring_linearize(spring_set *s, const double *x, const double *m,
		      double tau);

/* F (3*np) += elastic forces of the current linearization. */
void spring_force(spring_set *s, double *F);

/* The same for the particles [i0, i1) only (a rank's own, cloth_split.h). */
void spring_force_rows(spring_set *s, double *F, size_t i0, size_t i1);

/* F (3*np) += damping forces -C v of the current linearization. */
void spring_damp_force(spring_set *s, const double *v, double *F);

/* d (3*np) += diagonal of C (for a Jacobi preconditioner). */
void spring_damp_diag(const spring_set *s, double *d);

/* Elastic energy sum (K/2)(l - l0)^2 of the current linearization, J. */
double spring_energy(const spring_set *s);

#endif
