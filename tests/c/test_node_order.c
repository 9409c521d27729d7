/* test_node_order: reverse Cuthill-McKee (cloth/node_order.h) on a grid
 * of nodes numbered at random: the order holds every node not skipped
 * once, its band is the grid's width, not the random numbering's; two
 * parts and skipped nodes. */
#include <stdlib.h>
#include <string.h>

#include "cloth/node_order.h"
#include "ctest.h"

/* An n x n grid with its 8 neighbours and itself, node (i, j) numbered
 * lab[i + n j]; two copies side by side (unconnected) when two. */
typedef struct graph {
	size_t np, *rp;
	uint32_t *col;
} graph;

static void
make_grid(graph *g, int n, int two, const uint32_t *lab)
{
	size_t half = (size_t)n * (size_t)n, e = 0;

	g->np = two ? 2 * half : half;
	g->rp = calloc(g->np + 1, sizeof *g->rp);
	g->col = malloc(9 * g->np * sizeof *g->col);
	/* rows by label: gather each label's neighbours */
	uint32_t *at = malloc(g->np * sizeof *at);
	for (size_t c = 0; c < g->np; c++)
		at[lab[c]] = (uint32_t)c;
	for (size_t v = 0; v < g->np; v++) {
		size_t c = at[v], part = c / half, ij = c % half;
		int i = (int)(ij % (size_t)n), j = (int)(ij / (size_t)n);
		uint32_t nb[9];
		int k = 0;
		for (int dj = -1; dj <= 1; dj++)
			for (int di = -1; di <= 1; di++)
				if (i + di >= 0 && i + di < n && j + dj >= 0 && j + dj < n)
					nb[k++] = lab[part * half + (size_t)(i + di + n * (j + dj))];
		for (int a = 1; a < k; a++)
			for (int b = a; b > 0 && nb[b - 1] > nb[b]; b--) {
				uint32_t t = nb[b];
				nb[b] = nb[b - 1];
				nb[b - 1] = t;
			}
		memcpy(g->col + e, nb, (size_t)k * sizeof *nb);
		e += (size_t)k;
		g->rp[v + 1] = e;
	}
	free(at);
}

static int
is_perm(const uint32_t *o, size_t n, size_t np, const uint8_t *skip)
{
	uint8_t *hit = calloc(np, 1);
	int ok = 1;

	for (size_t p = 0; p < n; p++) {
		if (o[p] >= np || hit[o[p]] || (skip && skip[o[p]]))
			ok = 0;
		else
			hit[o[p]] = 1;
	}
	for (size_t i = 0; i < np; i++)
		if (!hit[i] && !(skip && skip[i]))
			ok = 0;
	free(hit);
	return ok;
}

int
main(void)
{
	const int n = 40;
	const size_t half = (size_t)n * n;
	uint32_t *lab = malloc(2 * half * sizeof *lab), *o = malloc(2 * half * sizeof *o);
	uint32_t *pos = malloc(2 * half * sizeof *pos), *id = malloc(2 * half * sizeof *id);
	uint8_t *skip = calloc(2 * half, 1);
	graph g;
	size_t m;
	slc_err err;

	/* random labels (a fixed shuffle) */
	srand(3);
	for (size_t c = 0; c < 2 * half; c++)
		lab[c] = (uint32_t)c;
	for (size_t c = half; c-- > 1;) {
		size_t r = (size_t)rand() % (c + 1);
		uint32_t t = lab[c];
		lab[c] = lab[r];
		lab[r] = t;
	}
	make_grid(&g, n, 0, lab);
	for (size_t c = 0; c < half; c++)
		id[c] = (uint32_t)c;
	size_t braw = node_order_bandwidth(g.np, g.rp, g.col, id, half, pos);
	CHECK(node_order_rcm(g.np, g.rp, g.col, NULL, o, &m, &err) == 0, "rcm of a %d x %d grid", n, n);
	CHECK(m == half && is_perm(o, m, g.np, NULL), "every node once (%zu of %zu)", m, half);
	size_t brcm = node_order_bandwidth(g.np, g.rp, g.col, o, m, pos);
	CHECK(brcm <= 2 * (size_t)n + 2 && braw > 10 * (size_t)n,
	      "band %zu in rcm's order (grid width %d), %zu numbered at random", brcm, n, braw);
	/* a node the bandwidth check must see: moved to the far end */
	uint32_t first = o[0];
	memmove(o, o + 1, (m - 1) * sizeof *o);
	o[m - 1] = first;
	CHECK(node_order_bandwidth(g.np, g.rp, g.col, o, m, pos) > brcm,
	      "a node moved to the far end widens the band");
	free(g.rp);
	free(g.col);

	/* two unconnected grids, the second's nodes numbered in order, a
	 * row of the first skipped */
	for (size_t c = half; c < 2 * half; c++)
		lab[c] = (uint32_t)c;
	make_grid(&g, n, 1, lab);
	for (int i = 0; i < n; i++)
		skip[lab[(size_t)i + (size_t)n * 7]] = 1;
	CHECK(node_order_rcm(g.np, g.rp, g.col, skip, o, &m, &err) == 0, "rcm of two grids");
	CHECK(m == 2 * half - (size_t)n && is_perm(o, m, g.np, skip),
	      "every node not skipped once (%zu of %zu)", m, 2 * half);
	brcm = node_order_bandwidth(g.np, g.rp, g.col, o, m, pos);
	CHECK(brcm <= 2 * (size_t)n + 2, "two parts: band %zu", brcm);
	free(g.rp);
	free(g.col);
	free(lab);
	free(o);
	free(pos);
	free(id);
	free(skip);
	return ctest_done();
}
