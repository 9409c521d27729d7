/* mic0.h: modified incomplete Cholesky MIC(0) preconditioner of the fluid
 * part of the pressure system (Bridson & Fedkiw's course notes, as
 * batty2007 §2.1 recommends: the variational system is still a symmetric
 * M-matrix with the 7-point structure).  Matrix-free: the factor is one
 * diagonal array; the triangular solves are sequential (ordering k, j, i),
 * so the result does not depend on the thread count. */
#ifndef SLC_MIC0_H
#define SLC_MIC0_H

#include "fluid/pressure.h"

typedef struct mic0 mic0;

/* Factor the fluid operator of ps (which must outlive the result).
 * NULL with err when out of memory, or for a system cut over MPI ranks
 * (ps->comm: refused, the solves being sequential over the grid). */
mic0 *mic0_new(const psys *ps, slc_err *err);
/* z = (L L^T)^-1 r on the fluid cells, 0 elsewhere. */
void mic0_apply(const mic0 *m, const double *r, double *z);
void mic0_free(mic0 *m);

#endif
