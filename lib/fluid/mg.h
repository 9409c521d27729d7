/* mg.h: geometric multigrid V-cycle preconditioner for the fluid part of
 * the pressure system, after McAdams, Sifakis and Teran 2010 ("A parallel
 * multigrid Poisson solver for fluids simulation on large grids"):
 * matrix-free, cell-centred, the coarse operators rediscretized on each
 * level rather than formed by Galerkin products, damped Jacobi smoothing,
 * trilinear prolongation with restriction its scaled transpose so that the
 * V-cycle is a symmetric preconditioner for conjugate gradient.  Coarse
 * cells follow McAdams et al.'s rule: Dirichlet (air) if any child is,
 * else fluid if any child is.  A coarse face weight is the fluid fraction
 * of the coarse face's control volume (batty2007's weight one level up),
 * from the fine face weights that tile it.  The loops of the larger
 * levels run over k-slabs with OpenMP (coarse levels of at most 64^3
 * cells on one thread), and the result is the same on any number of
 * threads.  Over MPI ranks (psys's k slabs) each level keeps the slabs
 * under the ranks' fine planes while they are thick enough, with halo
 * exchanges around every sweep, restriction and prolongation, and the
 * coarser levels are gathered and solved on every rank: the same bits as
 * one process (mg.c). */
#ifndef SLC_MG_H
#define SLC_MG_H

#include "fluid/pressure.h"

typedef struct mg mg;

/* Build the hierarchy for ps (which must outlive the result). */
mg *mg_new(const psys *ps, slc_err *err);
/* z = one V-cycle applied to r from a zero guess (fluid cells; 0
 * elsewhere).  Returns r.z (summed in an order that does not depend on
 * the number of threads). */
double mg_apply(mg *m, const double *r, double *z);
/* Number of levels (1 = no coarsening). */
int mg_levels(const mg *m);
/* Over MPI ranks, the levels cut in k slabs (the finest and the next
 * ones while every rank's slab has at least MG_MIN_SLAB planes, mg.c);
 * the coarser ones are gathered whole on every rank.  0 for one
 * process. */
int mg_levels_cut(const mg *m);
void mg_free(mg *m);

#endif
