/* vdb.h: grid records to an OpenVDB file (.vdb) for Houdini, Blender and
 * other effects tools, through Debian's libopenvdb (lib/io/vdb.cpp, the
 * only C++ in sluice, behind this C interface).
 *
 * Each record becomes one FloatGrid named like the record, its values the
 * record's samples (f64 rounded to float).  The transform is linear, voxel
 * size dx, translated so that voxel (0,0,0) sits where the record's sample
 * (0,0,0) sits (formats/slc.md: origin + dx (ox, oy, oz), the offset 1/2 on
 * cell-centred axes): voxel (i,j,k) is sample (i,j,k) for every staggering.
 *
 *   - Level sets (slc_vdb_is_level_set: cell grids named phi, solid,
 *     solid_next, source or sdf; negative inside, as in OpenVDB) become
 *     narrow-band level sets (class GRID_LEVEL_SET): background = band *
 *     dx (band = half-width in voxels); a sample with |phi| < background is
 *     an active voxel holding phi, any other an inactive voxel holding
 *     +background or -background by its sign, so that OpenVDB's level-set
 *     tools (which clamp to the band and read the sign of inactive values)
 *     see the same surface.
 *   - Other cell grids (density, temperature, ...) become fog volumes
 *     (GRID_FOG_VOLUME): background 0, every non-zero sample an active
 *     voxel, zero samples inactive.
 *   - Node and face grids become grids of class GRID_UNKNOWN, stored like
 *     fog volumes (non-zero samples active, background 0).
 * Uniform inactive leaves are pruned to tiles.  The record's time is kept
 * as the grid's double metadata "time" (seconds).
 */
#ifndef SLC_VDB_H
#define SLC_VDB_H

#include <stddef.h>
#include <stdio.h>

/* the core headers are C: their declarations have C linkage in C++ too */
#ifdef __cplusplus
extern "C" {
#endif

#include "core/err.h"
#include "core/slc.h"

/* OpenVDB's default narrow-band half-width, in voxels
 * (openvdb::LEVEL_SET_HALF_WIDTH, openvdb/Types.h). */
#define SLC_VDB_BAND 3.0

/* Is r a grid record OpenVDB can take: one channel of one f32 or f64
 * component?  1 or 0. */
int slc_vdb_fits(const slc_rec *r);

/* Is a cell grid of this name one of the frame's level sets (phi, solid,
 * solid_next, source, sdf: formats/slc.md's record table)?  1 or 0. */
int slc_vdb_is_level_set(const char *name);

/* Write n grid records (each slc_vdb_fits, decoded, finite, names unique)
 * to f as one OpenVDB file, level sets with a half-width of band voxels
 * (band > 0; SLC_VDB_BAND is OpenVDB's default).  f may be a pipe: the
 * file is built in memory and written in one go.  0, or -1 with err on a
 * bad record, an OpenVDB error or a write error. */
int slc_vdb_write(FILE *f, const slc_rec *const *grids, size_t n, double band,
		  slc_err *err);

#ifdef __cplusplus
}
#endif

#endif
