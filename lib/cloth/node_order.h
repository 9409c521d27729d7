/* node_order.h: an order of a mesh's nodes that keeps its matrix's band
 * narrow, for exact banded factors (band_chol.h) of a cloth's implicit
 * system.
 *
 * Reverse Cuthill-McKee (Cuthill and McKee 1969; reversed after George
 * 1971): a breadth-first sweep from a node of least degree, each level's
 * neighbours taken by increasing degree, the whole order reversed.  A
 * structured sheet's own row order is often as narrow (mkprim's cloth),
 * so the caller can weigh both with node_order_bandwidth and keep the
 * narrower.  Everything is sequential and ties go to the lower node
 * number: the order depends on the graph alone.
 */
#ifndef SLC_NODE_ORDER_H
#define SLC_NODE_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The graph: node i's neighbours are col[rp[i]..rp[i+1]) (i itself may be
 * among them; symmetric).  Nodes with skip[i] set (skip may be NULL) are
 * left out, and their edges with them. */

/* order (n entries, n the nodes not skipped, written to *n) := the
 * reverse Cuthill-McKee order of the nodes, every connected part in turn
 * (the part of the least node first).  0, or -1 with err (memory). */
int node_order_rcm(size_t np, const size_t *rp, const uint32_t *col,
		   const uint8_t *skip, uint32_t *order, size_t *n, slc_err *err);

/* The bandwidth of the graph in the order (n nodes, none skipped): the
 * largest |pos(i) - pos(k)| over the edges between nodes of the order;
 * edges to nodes outside it are ignored.  pos: np entries of work.
 * Returns the bandwidth (0: no edges). */
size_t node_order_bandwidth(size_t np, const size_t *rp, const uint32_t *col,
			    const uint32_t *order, size_t n, uint32_t *pos);

#endif
