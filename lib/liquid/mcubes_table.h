/* mcubes_table.h: the case table of lib/liquid/mcubes.c (internal to mcubes*.c).
 *
 * For each of the 256 sign cases of a cube: the crossed edges and the
 * triangles, as triples of edge numbers, counter-clockwise seen from
 * outside.  Built at first use: on each cube face the crossing points are
 * joined by segments (on an ambiguous face the two segments cut off the
 * outside corners), oriented with the outside to their left seen from
 * outside the cube, chained into loops, and each loop triangulated by
 * dynamic programming without a diagonal between two points of one cube
 * face (which could be shared with the neighbouring cube), maximizing the
 * smallest triangle quality at the edge midpoints.
 *
 * Numbering: corner c = x | y<<1 | z<<2; edge e = 4*d + (a | b<<1) along
 * axis d, at coordinate a on the lower and b on the higher of the other
 * two axes.
 */
#ifndef SLC_MCUBES_TABLE_H
#define SLC_MCUBES_TABLE_H

#include <stdint.h>

#include "core/err.h"

#define MC_MAXTRI 12                /* triangles of one case, at most */

typedef struct mc_table {
	uint16_t edges[256];                /* crossed edges, bit e */
	uint8_t ntri[256];
	uint8_t tri[256][3 * MC_MAXTRI];    /* edge triples */
} mc_table;

/* The table (built on first call, thread safe), or NULL if a case could
 * not be built (mc_table_check says which). */
const mc_table *mc_table_get(void);

/* The corner at the low end of edge e. */
int mc_edge_lo(int e);

#endif
