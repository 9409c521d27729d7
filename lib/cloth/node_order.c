/* node_order.c: reverse Cuthill-McKee node orders (see node_order.h). */
#include "cloth/node_order.h"

#include <stdlib.h>
#include <string.h>

/* Marks pos[] entries of nodes outside the order. */
#define NO_POS UINT32_MAX

static size_t
degree(size_t i, const size_t *rp, const uint32_t *col, const uint8_t *skip)
{
	size_t d = 0;

	for (size_t e = rp[i]; e < rp[i + 1]; e++)
		d += col[e] != i && !(skip && skip[col[e]]);
	return d;
}

int
node_order_rcm(size_t np, const size_t *rp, const uint32_t *col,
	       const uint8_t *skip, uint32_t *order, size_t *n, slc_err *err)
{
	size_t *deg = slc_calloc(np + 1, sizeof *deg, err);
	uint8_t *seen = deg ? slc_calloc(np + 1, 1, err) : NULL;
	size_t m = 0;

	if (!seen) {
		free(deg);
		return -1;
	}
	for (size_t i = 0; i < np; i++) {
		deg[i] = degree(i, rp, col, skip);
		seen[i] = skip && skip[i];
	}
	for (size_t s = 0; s < np; s++) {
		if (seen[s])
			continue;
		/* the part of s: start from its node of least degree, found
		 * by a first sweep (its nodes then unmarked again) */
		size_t head = m, start = s;
		order[m++] = (uint32_t)s;
		seen[s] = 1;
		for (size_t h = head; h < m; h++)
			for (size_t e = rp[order[h]]; e < rp[order[h] + 1]; e++)
				if (!seen[col[e]]) {
					seen[col[e]] = 1;
					order[m++] = col[e];
				}
		for (size_t h = head; h < m; h++) {
			if (deg[order[h]] < deg[start] ||
			    (deg[order[h]] == deg[start] && order[h] < start))
				start = order[h];
			seen[order[h]] = 0;
		}
		m = head;
		order[m++] = (uint32_t)start;
		seen[start] = 1;
		for (size_t h = head; h < m; h++) {
			size_t lo = m;
			for (size_t e = rp[order[h]]; e < rp[order[h] + 1]; e++)
				if (!seen[col[e]]) {
					seen[col[e]] = 1;
					order[m++] = col[e];
				}
			/* this node's new neighbours by increasing degree, then
			 * number (insertion sort: a handful each) */
			for (size_t a = lo + 1; a < m; a++) {
				uint32_t v = order[a];
				size_t b = a;
				while (b > lo && (deg[order[b - 1]] > deg[v] ||
						  (deg[order[b - 1]] == deg[v] && order[b - 1] > v))) {
					order[b] = order[b - 1];
					b--;
				}
				order[b] = v;
			}
		}
	}
	for (size_t a = 0, b = m; a + 1 < b; a++, b--) {
		uint32_t t = order[a];
		order[a] = order[b - 1];
		order[b - 1] = t;
	}
	*n = m;
	free(deg);
	free(seen);
	return 0;
}

size_t
node_order_bandwidth(size_t np, const size_t *rp, const uint32_t *col,
		     const uint32_t *order, size_t n, uint32_t *pos)
{
	size_t bw = 0;

	for (size_t i = 0; i < np; i++)
		pos[i] = NO_POS;
	for (size_t p = 0; p < n; p++)
		pos[order[p]] = (uint32_t)p;
	for (size_t p = 0; p < n; p++)
		for (size_t e = rp[order[p]]; e < rp[order[p] + 1]; e++) {
			uint32_t k = pos[col[e]];
			if (k != NO_POS && k < p && p - k > bw)
				bw = p - k;
		}
	return bw;
}
