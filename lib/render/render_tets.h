/* render_tets.h: pictures of a tetrahedral mesh (a `tets` record, e.g.
 * kdsmbake's `kdsm`): its outer surface shaded like a triangle mesh, and
 * optionally cut open by an axis-aligned plane, the faces the cut exposes
 * coloured by one per-tet channel through a colour map (colormap.h).
 *
 * Only live tets are drawn (the `alive` channel nonzero, or every tet
 * when there is none): a face is on the surface when the tet across it
 * is absent, disabled or removed by the cut.  Drawing goes through
 * raster_mesh, so it composites with everything else by depth and does
 * not depend on the number of threads.
 */
#ifndef SLC_RENDER_TETS_H
#define SLC_RENDER_TETS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/frame.h"
#include "core/slc.h"
#include "render/camera.h"
#include "render/raster.h"

/* Number of colours a continuous channel is quantized to on the cut: the
 * cut is drawn as one mesh per colour. */
#define TETS_CMAP_LEVELS 64

/* Surface colour (linear grey, as scene_draw's bodies) and ambient
 * fraction (as scene_draw's meshes) for callers without their own. */
#define TETS_GREY 0.55
#define TETS_AMBIENT 0.25

typedef struct tets_style {
	double albedo[3];       /* linear RGB of the outer surface */
	double light[3];        /* unit direction towards the light */
	double ambient;         /* fraction of albedo seen without light */
	int smooth;             /* smooth-shade the outer surface */
	int cut;                /* cut open */
	int axis;               /* the cut's plane: x[axis] = pos ... */
	double pos;             /* metres, or percent of the mesh's box */
	int percent;            /* pos is a percentage of the live tets' box */
	int keep_above;         /* keep x[axis] > pos (else x[axis] < pos) */
	const char *field;      /* prim channel on the cut (NULL: "rank") */
	int have_range;         /* lo, hi given, else the cut tets' range */
	double lo, hi;          /* value range of the colour map */
} tets_style;

/* The neighbour of each tet across the face opposite each corner, from
 * the tets alone (faces matched by their sorted node triples), -1 on
 * the boundary: nbr[4t + k], allocated here.  0, or -1 with err (a face
 * shared by more than two tets, out of memory). */
int tets_neighbours(const uint32_t *tet, size_t nt, int32_t **nbr, slc_err *err);

/* The box of the live tets' nodes of the tets record r: lo, hi.  Returns
 * 1, or 0 when no tet is live, or -1 with err on a malformed record. */
int tets_bounds(const slc_rec *r, double lo[3], double hi[3], slc_err *err);

/* Draw the tets record r: its outer surface in st->albedo and, with
 * st->cut, only the tets whose centroid lies on the kept side of the
 * plane, the faces the plane exposes in the colour of their tet's
 * st->field value (an int or float prim channel, first component) on
 * the viridis map over [lo, hi] (the exposed tets' range unless given).
 * Uses the record's `nbr` (i32x4 prim) when it has one, else
 * tets_neighbours.  The range used goes to *lo, *hi when not NULL.  0,
 * or -1 with err naming the channel. */
int render_tets(rimage *im, const camera *cam, const slc_rec *r,
		const tets_style *st, double *lo, double *hi, slc_err *err);

/* Grow lo, hi by the live tets of the tets records of F named in the
 * comma list names (NULL: all): the number of such records with a live
 * tet, or -1 with err naming the record. */
int tets_frame_bounds(const slc_frame *F, const char *names, double lo[3], double hi[3],
		      slc_err *err);

/* Draw the tets records of F named in names (NULL: all) with style s
 * (render_tets).  0, or -1 with err naming the record. */
int tets_frame_draw(rimage *im, const camera *cam, const slc_frame *F, const char *names,
		    const tets_style *s, slc_err *err);

#endif
