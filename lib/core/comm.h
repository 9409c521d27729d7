/* comm.h: the handle through which a stage's frame physics talks to the
 * other ranks of an MPI build.
 *
 * Every stage of lib/stage/ takes one, NULL when the stage runs alone (the
 * only case of the serial build, which has no struct slc_comm).  The MPI
 * builds define the struct in comm/ (halo exchange, ordered sums,
 * scatter and gather), and the stage functions are the places where they
 * are called: the reductions a frame needs (the CFL speed of a substep,
 * residual norms, energies) are each made in one named function of the
 * stage, so that the serial result and that of every rank count agree.
 */
#ifndef SLC_COMM_H
#define SLC_COMM_H

#include "core/err.h"

typedef struct slc_comm slc_comm;

/* A stage of the serial build runs alone: 0 when comm is NULL, else -1
 * with err ("this build runs on one rank only").  The stages call it
 * first in every entry point that takes a communicator. */
int slc_comm_serial(const slc_comm *comm, slc_err *err);

#endif
