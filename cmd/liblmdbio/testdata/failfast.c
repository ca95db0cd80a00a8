// failfast is a C learner that fails on rank 1 while the others read on:
// it returns 1 from main after a few batches (HOW "return"), or before it
// opens its loader ("early-return"), without lmdbio_close or
// lmdbio_finalize. The job must end within seconds, with one line that
// names rank 1 and its host, instead of waiting for it forever. The other
// ranks read many epochs, so that only the failure ends them. It uses no
// MPI of its own: it runs as MPI ranks and as learners of an agent alike.
//
//   failfast DATASET HOW
#include <stdio.h>
#include <string.h>

#include <lmdbio.h>

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: failfast DATASET return|early-return\n");
		return 2;
	}
	lmdbio_topology topo;
	if (lmdbio_init(LMDBIO_ABI_VERSION) != LMDBIO_OK || lmdbio_get_topology(&topo) != LMDBIO_OK) {
		fprintf(stderr, "failfast: %s\n", lmdbio_last_error());
		return 2;
	}
	int failing = topo.rank == 1;
	if (failing && strcmp(argv[2], "early-return") == 0)
		return 1;
	lmdbio_loader *ld;
	if (lmdbio_open(argv[1], "batch=1 epochs=1000", &ld) != LMDBIO_OK) {
		fprintf(stderr, "failfast: %s\n", lmdbio_last_error());
		return 2;
	}
	lmdbio_batch b;
	for (int n = 0;; n++) {
		int st = lmdbio_next(ld, &b);
		if (st == LMDBIO_DONE)
			break;
		if (st < 0) {
			fprintf(stderr, "failfast: rank %d: %s\n", topo.rank, lmdbio_last_error());
			return 1;
		}
		if (failing && n == 5)
			return 1;
	}
	lmdbio_close(ld);
	lmdbio_finalize();
	return 0;
}
