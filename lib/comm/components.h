/* components.h: connected components found piecewise on the ranks'
 * slabs and joined across them (comm/mpicomm.h), numbered as one process
 * numbering them over the whole grid would.
 *
 * Each rank labels the components of its own cells with the smallest
 * global index of a cell in each (a union-find joining under the smaller
 * root gives that, core/unionfind.h), flags each label (for the pressure
 * solve: "has a Dirichlet face"), and lists the pairs of labels that
 * meet across its slab's faces (or through anything else that joins
 * them).  Every rank then gets every label, joins the pairs, and numbers
 * the joined components in the order of their smallest label: the order
 * of their first cell in the grid, as the serial numbering.
 */
#ifndef SLC_COMPONENTS_H
#define SLC_COMPONENTS_H

#include <stddef.h>
#include <stdint.h>

#include "comm/mpicomm.h"
#include "core/err.h"

typedef struct slc_components {
	size_t n;               /* labels of every rank */
	int64_t *lab;           /* increasing */
	int32_t *num;           /* component number of each label */
	int32_t ncomp;
	uint8_t *flag;          /* per component: the OR of its labels' flags */
} slc_components;

/* Join the labels of every rank.  lab[0..nlab): this rank's labels,
 * increasing and above every label of a lower rank (labels of cells of
 * slabs in rank order); flag[q] of each; pair[0..2 npair): pairs of
 * labels of any rank's to join.  Collective; out filled on every rank
 * (free with slc_components_free).  0, or -1 with err (memory, MPI, a
 * label out of order, a pair naming no label). */
int slc_components_join(slc_comm *c, const int64_t *lab, const uint8_t *flag, size_t nlab,
			const int64_t *pair, size_t npair, slc_components *out, slc_err *err);

/* The component number of label l, or -1 when no rank gave it. */
int32_t slc_components_find(const slc_components *s, int64_t l);

void slc_components_free(slc_components *s);

#endif
