/* field.h: one grid of float samples in memory, and trilinear sampling.
 *
 * A field is the in-memory twin of a one-channel grid record: the slc_grid
 * placement (sample dims, staggering, origin of the cell grid, dx) plus the
 * samples, indexed a[i + ni*(j + nj*k)].  A MAC velocity is three fields
 * u, v, w staggered on x, y and z faces.  Positions are in metres.
 */
#ifndef SLC_FIELD_H
#define SLC_FIELD_H

#include <stddef.h>

#include "core/err.h"
#include "core/gridplace.h"
#include "core/slc.h"

typedef struct field {
	int ni, nj, nk;     /* sample dims */
	int stagger;        /* enum slc_stagger */
	double origin[3];   /* minimum corner of the cell grid */
	double dx;
	float *a;           /* ni*nj*nk samples */
	int owned;          /* a is this field's allocation */
	int k0, nk_all;     /* a holds sample planes k0 .. k0+nk-1 of a grid
			       of nk_all along k (an MPI rank's slab,
			       slc_rec.k0); 0, 0: the whole grid.  Positions
			       and sampling use the whole grid's indices */
} field;

#define FIELD_IDX(f, i, j, k) \
	((size_t)(i) + (size_t)(f)->ni * ((size_t)(j) + (size_t)(f)->nj * (size_t)(k)))

/* Allocate a zeroed field of cell dims (nci, ncj, nck) with the given
 * staggering: sample dims are the cell dims plus one on staggered axes.
 * 0 or -1 with err (bad dims, overflow, out of memory). */
int field_alloc(field *f, int nci, int ncj, int nck, int stagger,
		const double origin[3], double dx, slc_err *err);

/* Allocate a zeroed field with the same placement as g. */
int field_alloc_like(field *f, const field *g, slc_err *err);

/* Free the samples if owned; leave the field zeroed. */
void field_free(field *f);

/* Number of samples. */
size_t field_count(const field *f);

/* Cell dims of the grid the field lives on. */
void field_cell_dims(const field *f, int *nci, int *ncj, int *nck);

/* Offset of sample (0,0,0) from the origin in cells: 0.5 on cell-centred
 * axes, 0 on staggered ones. */
void field_offset(const field *f, double off[3]);

/* World position of sample (i,j,k). */
void field_pos(const field *f, int i, int j, int k, double x[3]);

/* Trilinear interpolation at world position x, clamped to the box of the
 * samples (values beyond the edge are those of the nearest edge sample). */
double field_sample(const field *f, const double x[3]);

/* Gradient of the trilinear interpolant at x (one-sided at the edge). */
void field_gradient(const field *f, const double x[3], double g[3]);

/* The placement of f as a grid record's (dims, staggering, origin, dx). */
void field_grid(const field *f, slc_grid *g);

/* Do a and b cover the same cells (cell dims, and dx and origin within
 * tol of b's: core/gridplace.h)?  Staggering is not compared.  1 or 0. */
int field_same_cells(const field *a, const field *b, const slc_place_tol *tol);

/* The same samples: equal staggering and field_same_cells.  1 or 0. */
int field_same_place(const field *a, const field *b, const slc_place_tol *tol);

/* Set f to the placement of grid record r (dims, staggering, origin, dx)
 * with no samples (f->a NULL, not owned).  Does not check the values. */
void field_place_rec(field *f, const slc_rec *r);

/* Borrow a field from one channel of a grid record (no copy: f->a points
 * into the record, which must outlive f).  The channel must be float with
 * one component; name NULL takes the channel named like the record, or
 * the only channel. */
int field_from_rec(field *f, const slc_rec *r, const char *chan, slc_err *err);

/* Build a grid record named `name` holding a copy of f.  r must be empty. */
int field_to_rec(const field *f, slc_rec *r, const char *name, double time,
		 slc_err *err);

#endif
