// hosted_single is a program that initialised MPI without threads
// (MPI_Init): lmdbio_init must refuse with a message that says what to
// call instead, and leave the program's MPI working.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <lmdbio.h>

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int provided;
	MPI_Query_thread(&provided);
	int st = lmdbio_init(LMDBIO_ABI_VERSION);
	int ok = provided == MPI_THREAD_MULTIPLE
	             ? st == LMDBIO_OK
	             : st == LMDBIO_ERR_LAUNCH && strstr(lmdbio_last_error(), "MPI_THREAD_MULTIPLE") != NULL;
	int one = 1, sum = 0;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); // the host's MPI still works
	if (!ok || sum < 1) {
		fprintf(stderr, "hosted_single: thread level %d: lmdbio_init = %s (%s)\n", provided,
		        lmdbio_status_string(st), lmdbio_last_error());
		return 1;
	}
	lmdbio_finalize();
	MPI_Finalize();
	printf("hosted_single: ok\n");
	return 0;
}
