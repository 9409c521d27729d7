/* pls.h: the particle level set method for liquids.
 *
 * Enright, Fedkiw, Ferziger and Mitchell 2002, "A hybrid particle level set
 * method for improved interface capturing", as guendelman2005 §4.4.2 uses
 * it: a level set phi (negative in the liquid) carried by semi-Lagrangian
 * advection, plus marker particles of both signs near the interface that
 * carry the accuracy.  Particles that cross the interface by more than
 * their radius ("escaped") correct phi; particles are advected to second
 * order, their radii follow phi, and they are reseeded every few frames.
 *
 * Lengths are metres; particle parameters are given in cells (units of dx)
 * as in Enright et al.
 */
#ifndef SLC_PLS_H
#define SLC_PLS_H

#include <stddef.h>

#include "core/err.h"
#include "grid/field.h"
#include "shell/shell_vis.h"
#include "grid/macgrid.h"
#include "core/rng.h"
#include "core/slc.h"

/* One sign of marker particles, structure of arrays. */
typedef struct pls_set {
	size_t n, cap;
	float *x;       /* 3n positions, m */
	float *r;       /* n radii, m */
	int sign;       /* +1 (air side) or -1 (liquid side) */
} pls_set;

typedef struct pls_params {
	double band;            /* seeding band half-width, cells */
	int per_cell;           /* particles of each sign per band cell */
	double rmin, rmax;      /* radius bounds, cells */
	int attract_iter;       /* attraction steps when seeding */
	double escape_remove;   /* escaped by more than this x radius: removed */
} pls_params;

/* The defaults of Enright et al. 2002: band 3, radii 0.1..0.5 dx, 15
 * attraction steps; 16 particles of each sign per band cell; particles
 * escaped by more than 1.5 radii are removed. */
void pls_default(pls_params *p);

void pls_set_init(pls_set *s, int sign);
void pls_set_free(pls_set *s);
/* Append one particle; 0 or -1 (out of memory). */
int pls_set_push(pls_set *s, const double x[3], double r, slc_err *err);
/* Remove particle q by moving the last one into its place. */
void pls_set_swap_remove(pls_set *s, size_t q);

/* Seed both sets in every cell whose centre lies within band cells of the
 * interface: per_cell particles of each sign at random places in the
 * cell, each attracted along the normal to a random level phi_goal with
 * s*phi_goal in [rmin, band]*dx; particles that do not reach it are
 * dropped.  Radii are then set by pls_adjust_radii.  The sets are emptied
 * first.  Deterministic for a given rng state, which keys each sample
 * box's own stream (with the box's index in the whole grid and the sign):
 * a box's particles do not depend on the other boxes seeded; g is not
 * advanced. */
int pls_seed(pls_set *pos, pls_set *neg, const field *phi,
	     const pls_params *p, rng *g, slc_err *err);

/* The seeding of pls_seed and pls_reseed in the sample boxes of planes
 * klo .. khi-1 of phi only, appended to the sets (in grid order, as
 * those two append them): count_pos, count_neg (NULL: none) the
 * particles each box holds, indexed like phi's samples.  Each box draws
 * from its own stream, so that a rank of an MPI build seeds its planes
 * as one process seeds them.  0, or -1 with err. */
int pls_fill_planes(pls_set *pos, pls_set *neg, const field *phi, const pls_params *p,
		    const uint16_t *count_pos, const uint16_t *count_neg, const rng *g, int klo,
		    int khi, slc_err *err);

/* The flat index of phi's sample whose box holds x, or -1 outside the
 * samples (the boxes pls_reseed counts particles in). */
long long pls_box_of(const field *phi, const double x[3]);

/* The most particles of one sign a box keeps when pls_reseed trims:
 * those met past it in the set's order are removed. */
int pls_trim_limit(const pls_params *p);

/* Move every particle through the MAC velocity for dt seconds with the
 * second-order scheme of guendelman2005 §4.4.2 (evolve, interpolate the
 * new velocity, average with the old one, move from the start again). */
void pls_advect(pls_set *s, const macgrid *vel, double dt);

/* Error correction (Enright et al. 2002 §3.3): every particle that has
 * crossed the interface by more than its radius contributes its sphere
 * phi_p(x) = s_p (r_p - |x - x_p|) at the 8 samples around it; phi+ is the
 * max of phi and the positive spheres, phi- the min of phi and the
 * negative spheres, and phi takes whichever of the two is smaller in
 * magnitude.  *used (may be NULL) gets the number of escaped particles
 * applied.  0, or -1 with err (memory; phi unchanged). */
int pls_correct(field *phi, const pls_set *pos, const pls_set *neg,
		size_t *used, slc_err *err);

/* pls_correct next to thin shells sh (may be NULL): a particle is judged
 * escaped by phi one-sided at it (shell_sample) and corrects only the
 * samples it can see (shell_visible; guendelman2005 §4.4.2). */
int pls_correct_shell(field *phi, const pls_set *pos, const pls_set *neg,
		      const shell_set *sh, size_t *used, slc_err *err);

/* The two halves of pls_correct_shell, for a caller that combines the
 * spheres of particles held in several places (the ranks of an MPI
 * build: maxima and minima are exact in any order): the spheres of the
 * escaped particles of pos into plus (max) and of neg into minus (min),
 * both arrays of phi's samples starting as copies of phi; returns the
 * number of escaped particles applied.  Then pls_correct_pick sets each
 * sample of phi to whichever of plus and minus is smaller in magnitude. */
size_t pls_correct_spheres(const field *phi, const pls_set *pos, const pls_set *neg,
			   const shell_set *sh, float *plus, float *minus);
void pls_correct_pick(field *phi, const float *plus, const float *minus);

/* Set each radius to s*phi(x) clamped to [rmin, rmax]*dx (Enright et al.
 * 2002 §3.2). */
void pls_adjust_radii(pls_set *s, const field *phi, const pls_params *p);

/* pls_adjust_radii next to thin shells sh (may be NULL): phi at each
 * particle one-sided (shell_sample), guendelman2005 §4.4.2. */
void pls_adjust_radii_shell(pls_set *s, const field *phi, const pls_params *p,
			    const shell_set *sh);

/* Remove particles that escaped by more than escape_remove radii, and
 * those farther than band cells inside their own side.  Escaped ones are
 * appended to `escaped` when it is not NULL (the liquid's become spray).
 * Returns the number removed. */
size_t pls_prune(pls_set *s, const field *phi, const pls_params *p,
		 pls_set *escaped, slc_err *err);

/* pls_prune next to thin shells sh (may be NULL): phi at each particle
 * one-sided (shell_sample), so that a marker beside a shell is not
 * judged escaped by the other side's phi (guendelman2005 §4.4.2). */
size_t pls_prune_shell(pls_set *s, const field *phi, const pls_params *p, pls_set *esc,
		       const shell_set *sh, slc_err *err);

/* What pls_prune does with particle q of s, from that particle alone: 0
 * keeps it, 1 removes it, 2 removes it as escaped (it goes to
 * `escaped`). */
int pls_prune_test(const pls_set *s, size_t q, const field *phi, const pls_params *p);

/* Reseed: in every band cell, top each sign up to per_cell particles
 * (seeded as pls_seed does) and trim cells holding more than twice that;
 * particles outside the band are removed by pls_prune first. */
int pls_reseed(pls_set *pos, pls_set *neg, const field *phi,
	       const pls_params *p, rng *g, slc_err *err);

/* Volume of the liquid, sum over cells of the smeared Heaviside of -phi
 * (one-cell smearing), m^3.  For conservation checks. */
double pls_liquid_volume(const field *phi);

/* A particles record `name` with channels P (f32 x3) and radius (f32),
 * and back.  from_rec checks the channels; the sign is given. */
int pls_to_rec(const pls_set *s, slc_rec *r, const char *name, double time,
	       slc_err *err);
int pls_from_rec(pls_set *s, const slc_rec *r, int sign, slc_err *err);

#endif
