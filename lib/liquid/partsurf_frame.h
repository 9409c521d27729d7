/* partsurf_frame.h: the particles a particle surface (partsurf.h) is made
 * from, gathered from the particle records of one name in a frame
 * (core/frame.h): several records of that name, as a liquid's markers
 * split in blocks, make one set of particles in stream order.
 */
#ifndef SLC_PARTSURF_FRAME_H
#define SLC_PARTSURF_FRAME_H

#include <stddef.h>

#include "core/err.h"
#include "core/frame.h"

/* Particles gathered from a frame. */
typedef struct ps_particles {
	double *P;              /* np positions x3, m (owned) */
	double *rad;            /* np radii, m, or NULL when no record has a
				 * "radius" channel (owned) */
	size_t np;              /* particles */
	size_t nrec;            /* records they came from */
	double time;            /* the time of the first record, s */
} ps_particles;

/* The positions ("P") and radii ("radius", optional) of every particle
 * record of F named name, appended in stream order into ps (overwritten;
 * free with ps_particles_free, also after a failure).  Checked: every
 * float channel of those records finite (slc_rec_check_finite's message),
 * every radius > 0 ("particles 'NAME': particle I has radius R", I
 * counted within its record), radii in all records or none.  0, or -1
 * with err: also when there is no such record ("no particle record 'NAME'
 * in the input"). */
int ps_gather(const slc_frame *F, const char *name, ps_particles *ps, slc_err *err);

/* The mean of ps's radii (summed in order, each divided by np), or 0
 * when ps has no radii or no particles. */
double ps_mean_radius(const ps_particles *ps);

/* Free ps's arrays; ps is left empty (a zeroed ps is fine). */
void ps_particles_free(ps_particles *ps);

#endif
