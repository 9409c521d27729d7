/* sluice.h: the whole public API of libsluice in one include, for stages
 * built outside the tree (man/libsluice.3): `#include <sluice/sluice.h>`
 * with the flags of `pkg-config --cflags --libs sluice`.
 *
 * `make install` puts this file next to the public headers it names, in
 * include/sluice/; in the tree the same headers live in lib/core/ and
 * lib/grid/, and the programs include them from there.  Every function
 * declared in these headers is public; nothing else in libsluice is.
 */
#ifndef SLUICE_SLUICE_H
#define SLUICE_SLUICE_H

#include "err.h"        /* slc_err, slc_fail, checked sizes, slc_malloc */
#include "slc.h"        /* records, channels, reading and writing streams */
#include "meta.h"       /* key=value metadata records */
#include "name.h"       /* names from input made safe to print */
#include "frame.h"      /* a frame: records by name and kind, the scene */
#include "gridplace.h"  /* whether two grids lie on the same cells */
#include "field.h"      /* a grid record's channel as a field, sampled */

#endif
