/* comm_costs.c: the measured costs bench/mpi.sh projects from, between
 * the ranks it runs on (2 on one machine): MPI ping-pong latency and
 * bandwidth, one halo exchange of lib/comm (slc_halo_cells: ghost planes
 * of a k slab of an n x n grid of floats), one ordered plane sum
 * (slc_comm_plane_sums over n planes) and one MPI maximum (slc_comm_max).
 * Bench only: built by bench/mpi.sh with mpicc against build-mpi's
 * library, never by make.
 *
 * Usage: mpirun -np 2 comm_costs N GHOST
 * Prints lines "name value unit" on rank 0:
 *   latency_us, bandwidth_MBps (of 4 MiB messages), halo_bytes (sent
 *   and received by one rank with one neighbour), halo_us, sum_us,
 *   max_us; each the median of its repetitions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/halo.h"
#include "comm/mpicomm.h"

#define REPS 41                 /* odd: a median */
#define BIG ((size_t)4 << 20)   /* bandwidth message, bytes */

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_d);
	return t[n / 2];
}

/* Seconds of one round trip of n bytes between ranks 0 and 1 (the
 * others idle), half of it: one way. */
static double
pingpong(slc_comm *c, char *buf, size_t n)
{
	double t[REPS];
	int r, rc = 0;

	for (r = 0; r < REPS; r++) {
		double t0;

		MPI_Barrier(c->c);
		t0 = MPI_Wtime();
		if (c->rank == 0) {
			rc = MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, c->c);
			if (rc == MPI_SUCCESS)
				rc = MPI_Recv(buf, (int)n, MPI_BYTE, 1, 1, c->c, MPI_STATUS_IGNORE);
		} else if (c->rank == 1) {
			rc = MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, c->c, MPI_STATUS_IGNORE);
			if (rc == MPI_SUCCESS)
				rc = MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, c->c);
		}
		if (rc != MPI_SUCCESS) {
			char s[MPI_MAX_ERROR_STRING];
			int len = 0;

			MPI_Error_string(rc, s, &len);
			s[len] = 0;
			fprintf(stderr, "comm_costs: rank %d: ping-pong of %zu bytes: %s\n",
				c->rank, n, s);
			MPI_Abort(c->c, 1);
		}
		t[r] = (MPI_Wtime() - t0) / 2;
	}
	return median(t, REPS);
}

int
main(int argc, char **argv)
{
	slc_comm *c;
	slc_err err;
	int n, ghost, r, lo, hi, k0, k1;
	double t[REPS], *part, sum, mx;
	float *a;
	char *buf;
	size_t pb;
	slc_comm_time before, after;

	if (!(c = slc_comm_open(&argc, &argv, &err))) {
		fprintf(stderr, "comm_costs: %s\n", err.msg);
		return 1;
	}
	if (argc != 3 || c->size < 2) {
		if (c->rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 comm_costs N GHOST\n");
		slc_comm_close(c);
		return 2;
	}
	n = atoi(argv[1]);
	ghost = atoi(argv[2]);
	if (n < 2 * (ghost + 1) || slc_comm_slabs(c, n, ghost, &err)) {
		if (c->rank == 0)
			fprintf(stderr, "comm_costs: bad N %d or GHOST %d\n", n, ghost);
		slc_comm_close(c);
		return 2;
	}
	buf = calloc(BIG, 1);
	slc_comm_held(c, c->rank, &lo, &hi);
	slc_comm_owned(c, &k0, &k1);
	pb = (size_t)n * (size_t)n * sizeof *a;
	a = calloc((size_t)(hi - lo) * pb, 1);
	part = calloc((size_t)(k1 - k0), sizeof *part);
	if (!buf || !a || !part) {
		fprintf(stderr, "comm_costs: out of memory\n");
		return 1;
	}
	for (r = 0; r < k1 - k0; r++)
		part[r] = 1.0 / (k0 + r + 1);
	mx = pingpong(c, buf, 8);
	if (c->rank == 0)
		printf("latency_us %.2f\n", 1e6 * mx);
	mx = pingpong(c, buf, BIG);
	if (c->rank == 0)
		printf("bandwidth_MBps %.0f\n", BIG / mx / 1e6);
	slc_comm_time_get(&before);
	for (r = 0; r < REPS; r++) {
		double t0;

		MPI_Barrier(c->c);
		t0 = MPI_Wtime();
		slc_halo_cells(c, a, pb, &err);
		t[r] = MPI_Wtime() - t0;
	}
	slc_comm_time_get(&after);
	if (c->rank == 0) {
		printf("halo_bytes %llu\n", (unsigned long long)((after.bytes[SLC_COMM_HALO] -
								  before.bytes[SLC_COMM_HALO]) / REPS));
		printf("halo_us %.1f\n", 1e6 * median(t, REPS));
	}
	for (r = 0; r < REPS; r++) {
		double t0;

		MPI_Barrier(c->c);
		t0 = MPI_Wtime();
		slc_comm_plane_sums(c, part, 1, &sum, &err);
		t[r] = MPI_Wtime() - t0;
	}
	if (c->rank == 0)
		printf("sum_us %.2f\n", 1e6 * median(t, REPS));
	for (r = 0; r < REPS; r++) {
		double t0;

		mx = c->rank;
		MPI_Barrier(c->c);
		t0 = MPI_Wtime();
		slc_comm_max(c, &mx, 1, &err);
		t[r] = MPI_Wtime() - t0;
	}
	if (c->rank == 0)
		printf("max_us %.2f\n", 1e6 * median(t, REPS));
	free(buf);
	free(a);
	free(part);
	slc_comm_close(c);
	return 0;
}
