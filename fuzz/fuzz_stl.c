/* fuzz_stl.c: libFuzzer target for the STL reader (lib/io/stl.c); the checks are in
 * fuzz_mesh.h. */
#define _GNU_SOURCE
#define FUZZ_MESH_READ slc_stl_read
#define FUZZ_MESH_OBJ_ROUND_TRIP 1
#include "fuzz_mesh.h"
