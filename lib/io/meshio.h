/* meshio.h: triangle meshes and point sets from and to other tools' formats.
 *
 * Readers turn OBJ, PLY (ascii, binary little and big endian) and STL
 * (ascii and binary) into sluice records; writers turn mesh and particle
 * records into OBJ and PLY, and grid records into VTK ImageData (.vti) for
 * ParaView.  Format notes (what is kept, what is dropped) are in
 * man/slcconv.1, section FORMATS.
 *
 * What a reader returns (on success, r holds a record the caller frees with
 * slc_rec_free; it passes slc_rec_validate):
 *   - faces present: kind SLC_MESH with point channel "P" and prim channel
 *     "tri" u32 x3 (polygons fan-triangulated: v0 v1 v2, v0 v2 v3, ...);
 *   - vertices but no faces: kind SLC_PARTICLES with point channel "P".
 *   "P" is f32 x3, except for a PLY whose x, y or z property is a double
 *   (then f64 x3).  Optional point channels:
 *     OBJ: "uv" f32 x2 and "N" f32 x3 when every face corner names a
 *          texture (normal) index and each vertex gets one value; "Cd" f32
 *          x3 when every `v` line carries a colour (x y z r g b).
 *     PLY: every other vertex property: nx ny nz -> "N" x3, red green blue
 *          [alpha] -> "Cd" x3 (x4), u v (s t, texture_u texture_v) -> "uv"
 *          x2, NAME_0 .. NAME_k-1 -> "NAME" xk, any other -> "NAME" x1;
 *          types: uchar u8, char short int i32, ushort uint u32, float f32,
 *          double f64.
 *     STL: none; vertices are welded by exact position (bitwise equal
 *          coordinates, -0 equal to +0), in order of first appearance.
 * On failure r is left empty (nothing to free) and err says where: text
 * formats "line N: what", binary data "byte B: what", naming the bad
 * value, e.g. "line 12: face index 9 out of range (8 vertices)".  Empty
 * input, no vertices, non-finite coordinates, out-of-range indices, faces
 * with fewer than 3 vertices and anything unparsable are refused.  Every
 * count a file declares is checked against the bytes present before any
 * allocation.  Readers never print and never exit; they are safe on
 * arbitrary bytes (fuzzed: fuzz/fuzz_{obj,ply,stl}.c).
 *
 * `name` is the record name (NULL: "mesh" or "particles"); time is 0.
 *
 * A PLY header line whose keyword is none of ply, format, element,
 * property, comment, obj_info and end_header (e.g. the "Created by ..."
 * line some exporters write) is skipped, as other PLY readers do; the
 * reader reports it in its notes (below) for the tool to warn about.
 */
#ifndef SLC_MESHIO_H
#define SLC_MESHIO_H

#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "core/name.h"
#include "core/slc.h"

/* File formats known to slcconv. */
enum slc_mfmt {
	SLC_MF_NONE = 0, SLC_MF_OBJ, SLC_MF_PLY, SLC_MF_STL, SLC_MF_SLC,
	SLC_MF_VTI, SLC_MF_VDB, SLC_MF_COUNT
};

/* "obj", "ply", "stl", "slc", "vti", "vdb" (any case) -> enum; SLC_MF_NONE else. */
int slc_mfmt_from_name(const char *s);
/* The format named by a path's extension (".OBJ" too); SLC_MF_NONE if
 * none or unknown. */
int slc_mfmt_from_path(const char *path);
/* Lowercase name of a format ("obj"), "?" for none. */
const char *slc_mfmt_name(int fmt);

/* --- readers ------------------------------------------------------------ */

/* Input bytes of a skipped line kept in slc_mesh_notes.first. */
#define SLC_MESH_NOTE_MAX 80

/* What a reader passed over without refusing the file.  Lib/ never
 * prints: the tool warns with these, e.g.
 * "slcconv: a.ply: line 3: unknown PLY header line skipped: Created by x". */
typedef struct slc_mesh_notes {
	uint64_t nskipped;      /* PLY header lines skipped */
	uint64_t line;          /* line number of the first of them, 0 if none */
	/* the first skipped line, from its first word to its end without
	 * trailing blanks: its first SLC_MESH_NOTE_MAX bytes (cut between
	 * UTF-8 sequences) escaped as by slc_escape (core/name.h), then
	 * "..." if it was cut; safe to print as it is */
	char first[SLC_ESC_BUF(SLC_MESH_NOTE_MAX) + 3];
} slc_mesh_notes;

/* Read a whole buffer of len bytes (need not be NUL-terminated) as OBJ,
 * PLY or STL.  See the contract at the top of this file.  slc_ply_read
 * skips unknown header lines without a note. */
int slc_obj_read(const void *buf, size_t len, const char *name, slc_rec *r,
		 slc_err *err);
int slc_ply_read(const void *buf, size_t len, const char *name, slc_rec *r,
		 slc_err *err);
int slc_stl_read(const void *buf, size_t len, const char *name, slc_rec *r,
		 slc_err *err);
/* slc_ply_read that also fills notes (non-NULL; set whether the read
 * succeeds or not). */
int slc_ply_read_notes(const void *buf, size_t len, const char *name,
		       slc_rec *r, slc_mesh_notes *notes, slc_err *err);

/* Dispatch on fmt (SLC_MF_OBJ, SLC_MF_PLY or SLC_MF_STL).  notes, when
 * not NULL, is filled (all zero for OBJ and STL, which skip nothing). */
int slc_mesh_read(int fmt, const void *buf, size_t len, const char *name,
		  slc_rec *r, slc_mesh_notes *notes, slc_err *err);

/* Read all of f into a new buffer *buf of *len bytes (caller frees; a
 * NUL is stored after the last byte).  -1 with err on a read error. */
int slc_slurp(FILE *f, void **buf, size_t *len, slc_err *err);

/* Open path, read it whole and parse it as fmt (SLC_MF_NONE: by the
 * extension).  Errors are prefixed with the path:
 * "body.obj: line 12: face index 9 out of range (8 vertices)".  Unknown
 * PLY header lines are skipped and counted in
 * notes (which may be NULL), for the tool to warn about.
 * The usual entry point for tools that take a mesh file. */
int slc_mesh_load(const char *path, int fmt, const char *name, slc_rec *r,
		  slc_mesh_notes *notes, slc_err *err);

/* --- writers ------------------------------------------------------------ */

/* Write a mesh (v, vt/vn when "uv"/"N" point channels exist, "Cd" f32 x3
 * as v x y z r g b, f) or a particle record (v lines only) as OBJ text.
 * Coordinates print with 9 (f32) or 17 (f64) significant digits, so they
 * read back exactly.  0, or -1 with err on a bad record or write error. */
int slc_obj_write(FILE *f, const slc_rec *r, slc_err *err);

/* Write a mesh or particle record as PLY, binary little-endian (ascii = 0)
 * or ascii.  Every point channel becomes vertex properties, named as the
 * reader groups them back ("P" x y z, "N" nx ny nz, "Cd" red green blue
 * [alpha], "uv" u v, "NAME" xk NAME_0..); i64/u64 channels are written as
 * double.  Meshes get a face element `list uchar int vertex_indices` (uint
 * beyond 2^31-1 points).  Prim channels other than "tri" are not written. */
int slc_ply_write(FILE *f, const slc_rec *r, int ascii, slc_err *err);

/* Write n grid records that share one placement (dims, staggering, origin,
 * dx) as one VTK ImageData XML file; every channel of every record becomes
 * a DataArray named "RECORD" (one channel named like the record) or
 * "RECORD.CHANNEL".  Cell-centred grids: CellData on the lattice of cell
 * corners, WholeExtent 0..ni 0..nj 0..nk, Origin the grid origin.  Node
 * and face grids: PointData on the sample lattice, WholeExtent 0..ni-1
 * .., Origin the position of sample (0,0,0) (the grid origin shifted by
 * dx/2 on the axes that are cell-centred).  Spacing dx on all axes.
 * ascii = 0: appended raw binary (UInt64 headers, host byte order);
 * ascii = 1: ascii DataArrays. */
int slc_vti_write(FILE *f, const slc_rec *const *grids, size_t n, int ascii,
		  slc_err *err);

#endif
