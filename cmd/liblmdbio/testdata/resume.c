// resume checks a shuffled run that stops and resumes through the C ABI:
// every learner reads a few batches of a globally shuffled epoch, takes the
// state (the same on every learner), closes, opens again with the state
// (lmdbio_open_resume; lmdbio_open's resume= word must resume alike) and
// reads the rest. Over the job every record arrives exactly once in the
// interrupted epoch and in the next, counted with lmdbio_allreduce_sum_u64.
// It uses no MPI of its own, so it runs as MPI ranks (lmdbio run -n N) and
// as learners of an agent (lmdbio run --agent) alike; rank 0 prints
// "resume: ok".
//
//   resume DATASET RECORDS
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdbio.h>

#define OPTIONS "shuffle=global seed=11 batch=5 epochs=2 remainder=keep"
#define BEFORE 3 // batches read before the state is taken

static int rank;

static void die(const char *what) {
	fprintf(stderr, "resume: rank %d: %s: %s\n", rank, what, lmdbio_last_error());
	exit(1);
}

// read_batches reads up to n batches (all of the epoch for n < 0), counting
// every record in seen; it returns the batches read.
static long read_batches(lmdbio_loader *ld, long n, uint64_t *seen, long records) {
	lmdbio_batch b;
	long got = 0;
	while (n < 0 || got < n) {
		int st = lmdbio_next(ld, &b);
		if (st == LMDBIO_END_OF_EPOCH) break;
		if (st != LMDBIO_OK) die("lmdbio_next");
		for (size_t i = 0; i < b.count; i++) {
			if (b.records[i] < 0 || b.records[i] >= records) die("a record number out of range");
			seen[b.records[i]]++;
		}
		got++;
	}
	return got;
}

// exactly_once sums seen over the job and checks every record came once.
static int exactly_once(uint64_t *seen, long records, const char *what) {
	if (lmdbio_allreduce_sum_u64(seen, (size_t)records) != LMDBIO_OK) die("lmdbio_allreduce_sum_u64");
	long bad = 0;
	for (long r = 0; r < records; r++) bad += seen[r] != 1;
	if (bad && rank == 0) fprintf(stderr, "resume: %s: %ld records not delivered exactly once\n", what, bad);
	memset(seen, 0, sizeof *seen * (size_t)records);
	return bad == 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: resume DATASET RECORDS\n");
		return 2;
	}
	long records = atol(argv[2]);
	uint64_t *seen = calloc((size_t)records, sizeof *seen);
	lmdbio_topology t;
	lmdbio_loader *ld;
	lmdbio_loader_info info;
	if (lmdbio_init(LMDBIO_ABI_VERSION) != LMDBIO_OK || lmdbio_get_topology(&t) != LMDBIO_OK) die("lmdbio_init");
	rank = t.rank;

	if (lmdbio_open(argv[1], OPTIONS, &ld) != LMDBIO_OK) die("lmdbio_open");
	if (read_batches(ld, BEFORE, seen, records) != BEFORE) die("an epoch shorter than the test");
	size_t len;
	if (lmdbio_state(ld, NULL, 0, &len) != LMDBIO_OK) die("lmdbio_state");
	char *state = malloc(len + 1);
	if (lmdbio_state(ld, state, len + 1, &len) != LMDBIO_OK) die("lmdbio_state");
	if (lmdbio_close(ld) != LMDBIO_OK) die("lmdbio_close");

	// A state that does not fit the run is refused, on every learner.
	char *options = malloc(len + 256);
	snprintf(options, len + 256, "shuffle=global seed=12 batch=5 epochs=2 remainder=keep resume=%s", state);
	if (lmdbio_open(argv[1], options, &ld) != LMDBIO_ERR_INPUT || !strstr(lmdbio_last_error(), "seed")) {
		fprintf(stderr, "resume: rank %d: another seed: %s\n", rank, lmdbio_last_error());
		return 1;
	}

	if (lmdbio_open_resume(argv[1], "shuffle=global seed=12 batch=5 epochs=2 remainder=keep", state, &ld) !=
	        LMDBIO_ERR_INPUT ||
	    !strstr(lmdbio_last_error(), "seed")) {
		fprintf(stderr, "resume: rank %d: another seed, the state apart: %s\n", rank, lmdbio_last_error());
		return 1;
	}
	// A state both in the options and apart is refused.
	if (lmdbio_open_resume(argv[1], options, state, &ld) != LMDBIO_ERR_ARGUMENT || !strstr(lmdbio_last_error(), "twice")) {
		fprintf(stderr, "resume: rank %d: a state given twice: %s\n", rank, lmdbio_last_error());
		return 1;
	}

	// The state in the option string resumes where the state apart does.
	long total = (records + 5 * t.size - 1) / (5 * t.size);
	snprintf(options, len + 256, OPTIONS " resume=%s", state);
	if (lmdbio_open(argv[1], options, &ld) != LMDBIO_OK) die("lmdbio_open with resume");
	if (lmdbio_info(ld, &info) != LMDBIO_OK) die("lmdbio_info");
	if (info.epoch != 0 || info.batches != total - BEFORE) {
		fprintf(stderr, "resume: rank %d: resumed in epoch %lld with %lld batches, want 0 and %ld\n", rank,
		        (long long)info.epoch, (long long)info.batches, total - BEFORE);
		return 1;
	}
	if (lmdbio_close(ld) != LMDBIO_OK) die("lmdbio_close");

	if (lmdbio_open_resume(argv[1], OPTIONS, state, &ld) != LMDBIO_OK) die("lmdbio_open_resume");
	if (lmdbio_info(ld, &info) != LMDBIO_OK) die("lmdbio_info");
	if (info.epoch != 0 || info.batches != total - BEFORE) {
		fprintf(stderr, "resume: rank %d: lmdbio_open_resume: in epoch %lld with %lld batches, want 0 and %ld\n", rank,
		        (long long)info.epoch, (long long)info.batches, total - BEFORE);
		return 1;
	}
	read_batches(ld, -1, seen, records);
	int ok = exactly_once(seen, records, "the interrupted epoch");
	read_batches(ld, -1, seen, records);
	ok &= exactly_once(seen, records, "the next epoch");
	lmdbio_batch b;
	if (lmdbio_next(ld, &b) != LMDBIO_DONE) die("no LMDBIO_DONE after the last epoch");
	if (lmdbio_close(ld) != LMDBIO_OK || lmdbio_finalize() != LMDBIO_OK) die("lmdbio_close");
	if (rank == 0 && ok) printf("resume: ok\n");
	return ok ? 0 : 1;
}
