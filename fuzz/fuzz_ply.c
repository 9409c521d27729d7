/* fuzz_ply.c: libFuzzer target for the PLY reader (lib/io/ply.c); the checks are in
 * fuzz_mesh.h. */
#define _GNU_SOURCE
#define FUZZ_MESH_READ slc_ply_read
#define FUZZ_MESH_OBJ_ROUND_TRIP 0
#include "fuzz_mesh.h"
