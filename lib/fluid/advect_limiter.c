/* advect_limiter.c: the extrema limiter of selle2008 thesis §2.7.
 *
 * The corrected MacCormack / BFECC value at a sample is bounded by the data
 * the first semi-Lagrangian step interpolated from: the samples at the
 * corners of the cell that contains the foot of its characteristic
 * (gathered by advect_sl).  Out of bounds values are either clamped or
 * replaced by the first order value ("reversion", the thesis' preferred
 * variant).
 */
#include "fluid/advect.h"

double
advect_limit(int limiter, double c, double sl, double lo, double hi, int *hit)
{
	*hit = 0;
	if (limiter == ADVECT_LIMIT_NONE || (c >= lo && c <= hi))
		return c;
	*hit = 1;
	if (limiter == ADVECT_LIMIT_CLAMP)
		return c < lo ? lo : c > hi ? hi : c;   /* a NaN stays NaN */
	return sl;
}
