/* rng.h: a seeded pseudo-random sequence that is the same on every
 * platform, so that `--seed` fixes a tool's output bytes.
 *
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): the state advances by a fixed odd constant and
 * each output is a bijective mix of the state.
 */
#ifndef SLC_RNG_H
#define SLC_RNG_H

#include <stdint.h>

typedef struct rng {
	uint64_t s;
} rng;

/* Start a sequence from seed. */
static inline void
rng_init(rng *g, uint64_t seed)
{
	g->s = seed;
}

/* Next 64 random bits. */
static inline uint64_t
rng_next(rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1), from the top 53 bits. */
static inline double
rng_uniform(rng *g)
{
	return (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform double in [a, b). */
static inline double
rng_range(rng *g, double a, double b)
{
	return a + (b - a) * rng_uniform(g);
}

#endif
