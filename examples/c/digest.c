// digest reads a dataset through liblmdbio in an MPI program and prints the
// digest line of `lmdbio digest`: every rank hashes the records it receives
// and the sums are reduced with MPI_Reduce. It initialises MPI itself, as a
// trainer does, so lmdbio joins the program's MPI.
//
//   mpirun -np 4 c-digest-example PATH ["key=value ..."]
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <lmdbio.h>

#include "../common/sha256.h"

// exit_code is what the lmdbio command exits with for a status: 2 for bad
// input or usage, 1 for a runtime failure.
static int exit_code(int status) {
	int bad_input = status == LMDBIO_ERR_ARGUMENT || status == LMDBIO_ERR_INPUT ||
	                status == LMDBIO_ERR_LAUNCH || status == LMDBIO_ERR_VERSION;
	return bad_input ? 2 : 1;
}

// fail_all ends the job after a collective call failed on every rank alike
// (lmdbio_init, lmdbio_open): rank 0 says why, every rank exits.
static void fail_all(const char *what, int status, int rank) {
	if (rank == 0) fprintf(stderr, "c-digest-example: %s: %s\n", what, lmdbio_last_error());
	lmdbio_finalize();
	MPI_Finalize();
	exit(exit_code(status));
}

// fail ends every rank from one rank, whose call failed alone.
static void fail(const char *what, int status) {
	fprintf(stderr, "c-digest-example: %s: %s\n", what, lmdbio_last_error());
	MPI_Abort(MPI_COMM_WORLD, exit_code(status));
}

int main(int argc, char **argv) {
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2 || argc > 3) {
		if (rank == 0) fprintf(stderr, "usage: c-digest-example PATH [\"key=value ...\"]\n");
		MPI_Finalize();
		return 2;
	}
	int st = lmdbio_init(LMDBIO_ABI_VERSION);
	if (st != LMDBIO_OK) fail_all("lmdbio_init", st, rank);

	// Every record exactly once, whatever the number of ranks.
	char options[1024];
	snprintf(options, sizeof options, "remainder=keep %s", argc == 3 ? argv[2] : "");
	lmdbio_loader *ld;
	if ((st = lmdbio_open(argv[1], options, &ld)) != LMDBIO_OK) fail_all("lmdbio_open", st, rank);
	lmdbio_loader_info info;
	if ((st = lmdbio_info(ld, &info)) != LMDBIO_OK) fail("lmdbio_info", st);

	uint64_t sums[3] = {0, 0, 0}; // records, bytes, digest
	int64_t epoch = 0;
	lmdbio_batch b;
	while ((st = lmdbio_next(ld, &b)) != LMDBIO_DONE) {
		if (st < 0) fail("lmdbio_next", st);
		if (st == LMDBIO_END_OF_EPOCH) {
			uint64_t total[3];
			MPI_Reduce(sums, total, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
			if (rank == 0) {
				if (info.epochs > 1) printf("epoch=%" PRId64 " ", epoch);
				printf("records=%" PRIu64 " bytes=%" PRIu64 " digest=%016" PRIx64 "\n", total[0], total[1], total[2]);
			}
			sums[0] = sums[1] = sums[2] = 0;
			epoch++;
			continue;
		}
		for (size_t i = 0; i < b.count; i++) {
			sums[0]++;
			sums[1] += b.value_lens[i];
			sums[2] += record_digest(b.keys[i], b.key_lens[i], b.values[i], b.value_lens[i]);
		}
	}
	if ((st = lmdbio_close(ld)) != LMDBIO_OK) fail("lmdbio_close", st);
	if ((st = lmdbio_finalize()) != LMDBIO_OK) fail("lmdbio_finalize", st);
	MPI_Finalize();
	return 0;
}
