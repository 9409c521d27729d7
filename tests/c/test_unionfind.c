/* test_unionfind: disjoint sets with smallest-element roots
 * (lib/core/unionfind.h): the roots, and so any numbering of the sets,
 * do not depend on the order of the joins. */
#include <stdlib.h>

#include "ctest.h"
#include "core/unionfind.h"

#define N 64

/* Sets of 0..N-1 by x mod 5, joined in an order given by the seed. */
static void
build(size_t *par, unsigned seed)
{
	size_t pairs[N][2];
	int np = 0;

	slc_uf_init(par, N);
	for (size_t x = 5; x < N; x++) {
		pairs[np][0] = x;
		pairs[np][1] = x - 5 * (1 + (x * seed) % (x / 5));
		np++;
	}
	for (int q = np - 1; q > 0; q--) {  /* a seeded shuffle */
		int r = (int)((seed * 2654435761u + (unsigned)q * 40503u) % (unsigned)(q + 1));
		size_t t0 = pairs[q][0], t1 = pairs[q][1];
		pairs[q][0] = pairs[r][0], pairs[q][1] = pairs[r][1];
		pairs[r][0] = t0, pairs[r][1] = t1;
	}
	for (int q = 0; q < np; q++)
		if (seed & 1)
			slc_uf_join(par, pairs[q][0], pairs[q][1]);
		else
			slc_uf_join(par, pairs[q][1], pairs[q][0]);
}

int
main(void)
{
	size_t par[N], ref[N];
	int ok = 1;

	slc_uf_init(par, N);
	for (size_t x = 0; x < N; x++)
		ok &= slc_uf_find(par, x) == x;
	CHECK(ok, "after init every element is its own root");
	CHECK(slc_uf_join(par, 7, 3) == 3 && slc_uf_join(par, 9, 7) == 3 &&
	      slc_uf_find(par, 9) == 3, "a join returns the smaller root; 9-7-3 has root 3");
	CHECK(slc_uf_join(par, 3, 9) == 3, "joining one set with itself changes nothing");

	build(ref, 1);
	ok = 1;
	for (size_t x = 0; x < N; x++)
		ok &= slc_uf_find(ref, x) == x % 5;
	CHECK(ok, "the root of each set is its smallest element");
	for (unsigned seed = 2; seed < 12; seed++) {
		build(par, seed);
		ok = 1;
		for (size_t x = 0; x < N; x++)
			ok &= slc_uf_find(par, x) == slc_uf_find(ref, x);
		CHECK(ok, "join order %u: the same roots", seed);
	}
	return ctest_done();
}
