/* sdf_recs.h: level sets from stream records: the mesh, particle and
 * strands records of a frame turned into the arguments of sdf.h and
 * occlusion.h (their points, radii, triangles and vertex velocities), and
 * the placement of the grid around them; the records are those of a frame
 * (core/frame.h).  What mklevelset does per record,
 * kept out of the tool.
 */
#ifndef SLC_SDF_RECS_H
#define SLC_SDF_RECS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/frame.h"
#include "grid/field.h"
#include "geom/sdf.h"
#include "core/slc.h"

/* Mark in use[q] the records F->r[q] a level set is made from: meshes,
 * particles and strands, only those named in the comma-separated list
 * from unless it is NULL; count them by kind into nmesh, npart, nhair
 * and give the time of the first in *t0 (left alone when there is
 * none).  use holds F->n entries. */
void sdf_recs_select(const slc_frame *F, const char *from, int *use,
		     int *nmesh, int *npart, int *nhair, double *t0);

/* The box [lo, hi] (metres) of the points "P" of the records F->r[q] with
 * use[q] nonzero, mesh points as they are, particle and strand points
 * grown by grow metres on every side.  0, or -1 with err naming the
 * record whose "P" is missing or malformed, or saying there are no
 * points. */
int sdf_recs_bounds(const slc_frame *F, const int *use, double grow,
		    double lo[3], double hi[3], slc_err *err);

/* The cell-centred placement of the first grid record of F: its origin
 * and dx, and its cells (node and face grids have one sample more than
 * cells along their staggered axes).  0, or -1 with err when there is no
 * grid record. */
int sdf_recs_like(const slc_frame *F, slc_grid *g, slc_err *err);

/* The grid of a level set of the records of F marked in use: placed like
 * the first grid of like when like is non-NULL (sdf_recs_like); else
 * around box (x0,y0,z0,x1,y1,z1, metres) when box is non-NULL, or around
 * the records' bounds (sdf_recs_bounds, particles grown by grow) with pad
 * cells of margin; cells of size dx or res along the longest side
 * (sdf_place).  0, or -1 with err. */
int sdf_recs_place(const slc_frame *F, const int *use, const slc_frame *like,
		   const double *box, double pad, double dx, long res, double grow,
		   slc_grid *g, slc_err *err);

/* Is a grid record of this name one that the level set out replaces in
 * the frame: out itself, or, with occl, out_vel and out_slip? */
int sdf_recs_replaces(const char *name, const char *out, int occl);

/* Level set of one record into phi (allocated and placed by the caller):
 * a mesh ("P", "tri": sdf_mesh, with closest and st as there, either may
 * be NULL), particles or strands ("P", optional "radius" per point, else
 * radius for all; strands also "offset": sdf_particles, sdf_strands).
 * 0, or -1 with err prefixed "KIND 'NAME': "; for a mesh with no
 * consistent inside st->thin_shell is set (st must then be non-NULL to
 * tell). */
int sdf_rec(field *phi, const slc_rec *r, double radius, const sdf_opts *o,
	    int32_t *closest, sdf_stats *st, slc_err *err);

/* The occlusion velocity (houston2003 §3.2) of the mesh r at every sample
 * of phi, 3 floats per sample into vel, from the closest triangles that
 * sdf_rec returned for it.  Vertex velocities: r's "v" channel; else,
 * with prev non-NULL, (P - Pprev) / dt from the first mesh of the same
 * name in the previous frame prev, dt <= 0 taking the difference of the
 * two records' times; else zero (a still mesh).  0, or -1 with err: no
 * mesh of that name in prev, a different vertex count, or a bad time
 * step. */
int sdf_rec_velocity(const field *phi, const slc_rec *r, const slc_frame *prev,
		     double dt, const int32_t *closest, float *vel, slc_err *err);

#endif
