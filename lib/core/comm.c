/* comm.c: the communicator handle of the serial build (core/comm.h): there
 * is no struct slc_comm to point to, so a stage is given NULL or nothing
 * it can use. */
#include "core/comm.h"

int
slc_comm_serial(const slc_comm *comm, slc_err *err)
{
	if (comm)
		return slc_fail(err, "this build runs on one rank only");
	return 0;
}
