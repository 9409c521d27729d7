/* cloth_sys.h: the damping matrix D of a cloth (linearized springs and
 * wind drag) assembled in 3x3 blocks, one block row per particle, for the
 * conjugate gradient solves of the Newmark steps (selle2008 thesis §5.4,
 * §5.5: (M - h D) v = b, where D holds the spring damping plus the
 * implicit-spring term tau K of every spring along its fixed direction).
 *
 * Assembling D once per linearization turns each CG product into one pass
 * over contiguous blocks instead of a scatter over the springs and a
 * gather over each particle's springs.  Rows are independent and summed in
 * a fixed order, so the result does not depend on the number of threads
 * (thesis §8.2: the work is split by particles).
 */
#ifndef SLC_CLOTH_SYS_H
#define SLC_CLOTH_SYS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "cloth/spring.h"

typedef struct cloth_sys {
	size_t np, nnz;         /* block rows, blocks */
	size_t *rp;             /* np + 1 row starts */
	uint32_t *col;          /* nnz block columns, ascending in a row */
	size_t *dpos;           /* np: block index of (i, i) */
	size_t *pos;            /* 4 per incidence entry e of the spring set:
				   block of (i, idx[4q + c']) for entry e =
				   (i, q, c) */
	double *D;              /* SYS_BLK nnz: every block is symmetric (a
				   sum of c n n^T), stored as its upper
				   triangle xx, xy, xz, yy, yz, zz */
} cloth_sys;

#define SYS_BLK 6               /* stored entries of a 3x3 block */

/* The block sparsity of the springs s (every pair of particles that share
 * a spring).  0 / -1 with err. */
int cloth_sys_build(cloth_sys *S, const spring_set *s, slc_err *err);

void cloth_sys_free(cloth_sys *S);

/* D = -(sum over springs of c alpha alpha^T (x) n n^T) - diag(w_i n_i n_i^T)
 * at the current linearization of s, with the wind drag coefficient
 * w_i = drag area_i (drag kg/(m^2 s); area np, m^2; nrm 3np unit normals;
 * drag 0: none, area and nrm unused). */
void cloth_sys_assemble(cloth_sys *S, const spring_set *s, double drag,
			const double *area, const double *nrm);

/* The same for the block rows [i0, i1) only (the rows a rank of an MPI
 * build owns, cloth_split.h); the others are left as they are. */
void cloth_sys_assemble_rows(cloth_sys *S, const spring_set *s, double drag,
			     const double *area, const double *nrm, size_t i0, size_t i1);

/* y = m v - h D v (3np each; m: np masses). */
void cloth_sys_apply(const cloth_sys *S, const double *m, double h,
		     const double *v, double *y);

/* The same for the rows [i0, i1) of y only (v whole). */
void cloth_sys_apply_rows(const cloth_sys *S, const double *m, double h,
			  const double *v, double *y, size_t i0, size_t i1);

#endif
