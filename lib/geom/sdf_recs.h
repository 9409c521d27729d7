/* sdf_recs.h: level sets from stream records: the mesh, particle and
 * strands records of a frame turned into the arguments of sdf.h and
 * occlusion.h (their points, radii, triangles and vertex velocities), and
 * the placement of the grid around them; the records are those of a frame
 * (core/frame.h).  What mklevelset does per record and to the
 * records of a frame together, kept out of the tool.
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
 * step (then *bad_dt, unless bad_dt is NULL, is set to 1; it is left
 * alone otherwise). */
int sdf_rec_velocity(const field *phi, const slc_rec *r, const slc_frame *prev,
		     double dt, const int32_t *closest, float *vel, int *bad_dt,
		     slc_err *err);

/* What the level set of several records is made of (sdf_recs_levelset). */
typedef struct sdf_recs_in {
	const int *use;         /* F->n flags: the records to use (sdf_recs_select) */
	const double *slip;     /* F->n slip coefficients, 0 full slip .. 1 no
				 * slip, read for the records used; NULL: 0 */
	double radius;          /* particle and strand radius (m) where a record
				 * has no "radius" channel */
	sdf_opts o;             /* band, unsigned, narrow (sdf.h) */
	int occl;               /* nonzero: also the object velocity and slip
				 * (meshes only: sdf_rec_velocity) */
	const slc_frame *prev;  /* previous frame of the meshes, or NULL */
	double dt;              /* seconds from prev to F; <= 0: from the times */
	/* Called, when non-NULL, with each mesh record's figures once its
	 * level set is made (before its velocity), in stream order. */
	void (*mesh_done)(void *ctx, const slc_rec *r, const sdf_stats *st);
	void *ctx;
} sdf_recs_in;

/* Where sdf_recs_levelset failed: the grids, or one record's level set
 * or velocity. */
enum sdf_recs_step { SDF_RECS_GRIDS, SDF_RECS_SHAPE, SDF_RECS_VELOCITY };

/* The level set of several records and, with occlusion, its fields. */
typedef struct sdf_recs_out {
	field phi;              /* the level set on grid g, +inf where no record */
	float *vel;             /* with in->occl: 3 floats per sample (m/s), else NULL */
	float *slip;            /* with in->occl: 1 float per sample, else NULL */
	/* on failure: */
	size_t bad;             /* the record that failed, F->n for the grids */
	int step;               /* enum sdf_recs_step */
	int thin_shell;         /* SHAPE of a mesh: no consistent inside */
	int bad_dt;             /* VELOCITY: the time step between the frames */
} sdf_recs_out;

/* The level set, object velocity and slip of the records of F marked in
 * in->use on the cell grid g (houston2003 §2: the union of the occlusions,
 * sample by sample): each record's level set (sdf_rec) and, with
 * in->occl, its mesh's velocity (sdf_rec_velocity) and slip, united in
 * stream order into out, which is overwritten.  0, or -1 with err as
 * sdf_rec or sdf_rec_velocity give it (or memory), and out->bad,
 * out->step, out->thin_shell and out->bad_dt saying where; either way
 * the caller frees out with sdf_recs_out_free. */
int sdf_recs_levelset(const slc_frame *F, const sdf_recs_in *in, const slc_grid *g,
		      sdf_recs_out *out, slc_err *err);

/* Free what sdf_recs_levelset allocated in out (out zeroed is fine). */
void sdf_recs_out_free(sdf_recs_out *out);

#endif
