/* unionfind.h: disjoint sets of the integers 0..n-1 in one parent array
 * (union-find), for the regions of the pressure solve and the impact
 * zones of cloth self-collision.
 *
 * Sets are always joined under the smaller of their two roots, so the
 * root of a set is its smallest element whatever the order of the joins
 * and of the finds: a numbering of the sets by their roots, or in the
 * order of their first element, depends on the sets only.  Finds halve
 * the paths they walk (Tarjan and van Leeuwen 1984), which changes the
 * parents but never a root.
 */
#ifndef SLC_UNIONFIND_H
#define SLC_UNIONFIND_H

#include <stddef.h>

/* Make each of parent[0..n) a set of its own (parent[x] = x). */
void slc_uf_init(size_t *parent, size_t n);

/* The root (smallest element) of the set holding x; halves the path from
 * x to it. */
size_t slc_uf_find(size_t *parent, size_t x);

/* Join the sets holding a and b under the smaller of their roots;
 * returns that root. */
size_t slc_uf_join(size_t *parent, size_t a, size_t b);

#endif
