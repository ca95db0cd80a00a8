// statuses checks that a collective lmdbio_open that fails, fails on every
// rank with the same status, whichever rank found the fault and however it
// reached the others: arguments that only some ranks refuse, a fault that
// rank 0 finds for all, options that differ between ranks. Each rank keeps
// its own message. It uses no MPI of its own, so it runs as MPI ranks and
// as learners of an agent alike (2 or more); rank 0 prints "statuses: ok".
//
//   statuses DATASET
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lmdbio.h>

// An open: rank 0's path and options, the other ranks', the status every
// rank must get, and what every rank's message must hold (or NULL).
struct open_case {
	const char *what, *path0, *options0, *path, *options;
	int want;
	const char *want_msg;
};

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: statuses DATASET\n");
		return 2;
	}
	const char *ds = argv[1];
	const struct open_case cases[] = {
	    {"a resume file missing on the other ranks", ds, "batch=3", ds, "batch=3 resume=/nonexistent/state.json",
	     LMDBIO_ERR_INPUT, NULL},
	    {"an unknown key on the other ranks", ds, "batch=3", ds, "batch=3 colour=blue", LMDBIO_ERR_ARGUMENT, NULL},
	    {"an unknown key on rank 0, a resume file missing on the others", ds, "colour=blue", ds,
	     "resume=/nonexistent/state.json", LMDBIO_ERR_ARGUMENT, NULL},
	    {"an HDF5 option for an LMDB, which rank 0 finds", ds, "dataset=images", ds, "dataset=images",
	     LMDBIO_ERR_ARGUMENT, "HDF5"},
	    {"options that differ between ranks", ds, "batch=3", ds, "batch=4", LMDBIO_ERR_ARGUMENT, NULL},
	    {"an empty path", "", "batch=3", "", "batch=3", LMDBIO_ERR_ARGUMENT, NULL},
	    {"an empty path on the other ranks", ds, "batch=3", "", "batch=3", LMDBIO_ERR_ARGUMENT, NULL},
	    {"a missing dataset", "/nonexistent/dataset", NULL, "/nonexistent/dataset", NULL, LMDBIO_ERR_INPUT,
	     "/nonexistent/dataset"},
	    {"a good open", ds, "batch=3", ds, "batch=3", LMDBIO_OK, NULL},
	};
	lmdbio_topology t;
	if (lmdbio_init(LMDBIO_ABI_VERSION) != LMDBIO_OK || lmdbio_get_topology(&t) != LMDBIO_OK) {
		fprintf(stderr, "statuses: lmdbio_init: %s\n", lmdbio_last_error());
		return 1;
	}
	if (t.size < 2) {
		fprintf(stderr, "statuses: run it on 2 or more ranks\n");
		return 2;
	}
	uint64_t failures = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct open_case *c = &cases[i];
		lmdbio_loader *ld = NULL;
		int st = t.rank == 0 ? lmdbio_open(c->path0, c->options0, &ld) : lmdbio_open(c->path, c->options, &ld);
		if (st != c->want || (c->want_msg && !strstr(lmdbio_last_error(), c->want_msg))) {
			fprintf(stderr, "statuses: rank %d: %s: %s (%s), want %s%s%s\n", t.rank, c->what, lmdbio_status_string(st),
			        st < 0 ? lmdbio_last_error() : "", lmdbio_status_string(c->want), c->want_msg ? " with " : "",
			        c->want_msg ? c->want_msg : "");
			failures++;
		}
		if (st == LMDBIO_OK && lmdbio_close(ld) != LMDBIO_OK) {
			fprintf(stderr, "statuses: rank %d: close: %s\n", t.rank, lmdbio_last_error());
			failures++;
		}
	}
	if (lmdbio_allreduce_sum_u64(&failures, 1) != LMDBIO_OK || lmdbio_finalize() != LMDBIO_OK) {
		fprintf(stderr, "statuses: rank %d: %s\n", t.rank, lmdbio_last_error());
		return 1;
	}
	if (t.rank == 0) {
		if (failures) printf("statuses: %llu failures\n", (unsigned long long)failures);
		else printf("statuses: ok\n");
	}
	return failures != 0;
}
