/* unionfind.c: disjoint sets with smallest-element roots; see
 * unionfind.h. */
#include "core/unionfind.h"

void
slc_uf_init(size_t *parent, size_t n)
{
	for (size_t x = 0; x < n; x++)
		parent[x] = x;
}

size_t
slc_uf_find(size_t *parent, size_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

size_t
slc_uf_join(size_t *parent, size_t a, size_t b)
{
	a = slc_uf_find(parent, a), b = slc_uf_find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
	return a < b ? a : b;
}
