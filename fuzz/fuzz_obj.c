/* fuzz_obj.c: libFuzzer target for the OBJ reader (lib/io/obj.c); the checks are in
 * fuzz_mesh.h. */
#define _GNU_SOURCE
#define FUZZ_MESH_READ slc_obj_read
#define FUZZ_MESH_OBJ_ROUND_TRIP 1
#include "fuzz_mesh.h"
