// badinput checks that liblmdbio answers misuse with a status and a message,
// never a crash: calls before lmdbio_init, a header of another ABI version,
// bad launch settings, a start-up that outlasts its limit, NULL, closed and
// made-up handles, NULL and wild pointers, bad options, an empty path,
// missing and corrupt datasets, two threads in one handle, calls after
// lmdbio_finalize. It lets lmdbio initialise MPI (a singleton).
//
//   badinput DATASET NOT_LMDB_FILE RECORDS
//   badinput --init    (lmdbio_init alone: see init_child)
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lmdbio.h>

extern char **environ;

static int failures;

// expect checks a status and, when want_msg is not NULL, that the thread's
// last error contains it.
#define expect(call, want, want_msg) check(#call, (call), (want), (want_msg), __LINE__)

static void check(const char *what, int got, int want, const char *want_msg, int line) {
	if (got != want) {
		fprintf(stderr, "line %d: %s = %s, want %s (%s)\n", line, what, lmdbio_status_string(got),
		        lmdbio_status_string(want), lmdbio_last_error());
		failures++;
		return;
	}
	if (want_msg && !strstr(lmdbio_last_error(), want_msg)) {
		fprintf(stderr, "line %d: %s: message \"%s\" lacks \"%s\"\n", line, what, lmdbio_last_error(), want_msg);
		failures++;
	}
}

// Two threads share one handle and call lmdbio_next as fast as they can.
struct shared {
	lmdbio_loader *ld;
	long records, busy, ends;
	pthread_mutex_t mu;
};

static void *reader(void *arg) {
	struct shared *s = arg;
	lmdbio_batch b;
	for (;;) {
		int st = lmdbio_next(s->ld, &b);
		pthread_mutex_lock(&s->mu);
		if (st == LMDBIO_OK) s->records += (long)b.count;
		else if (st == LMDBIO_ERR_BUSY) s->busy++;
		else if (st == LMDBIO_END_OF_EPOCH) s->ends++;
		else if (st != LMDBIO_DONE) {
			fprintf(stderr, "concurrent next: %s (%s)\n", lmdbio_status_string(st), lmdbio_last_error());
			failures++;
		}
		pthread_mutex_unlock(&s->mu);
		if (st == LMDBIO_DONE || (st < 0 && st != LMDBIO_ERR_BUSY)) return NULL;
	}
}

// A failing call on another thread leaves this thread's message alone.
static void *fail_elsewhere(void *arg) {
	(void)arg;
	expect(lmdbio_close(NULL), LMDBIO_ERR_HANDLE, "NULL loader handle");
	return NULL;
}

// init_only is the --init mode: lmdbio_init, its outcome on stdout, and
// an exit handler that says when it runs.
static void say_exit(void) { printf("exit handler ran\n"); }

static int init_only(void) {
	atexit(say_exit);
	int st = lmdbio_init(LMDBIO_ABI_VERSION);
	printf("init: %s: %s\n", lmdbio_status_string(st), lmdbio_last_error());
	return 0;
}

// init_child runs this program's --init mode with var (NAME=value) added to
// its environment, since a failed lmdbio_init fails for good in its
// process, and returns its exit status (-1 if it did not exit) and what it
// wrote to stdout and stderr, in out.
static int init_child(const char *self, const char *var, char *out, size_t cap) {
	size_t n = 0, name = strcspn(var, "=") + 1;
	while (environ[n]) n++;
	char **env = calloc(n + 2, sizeof *env);
	size_t k = 0;
	env[k++] = (char *)var;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], var, name) != 0) env[k++] = environ[i];
	int fd[2];
	posix_spawn_file_actions_t fa;
	if (pipe(fd) != 0 || posix_spawn_file_actions_init(&fa) != 0) return -1;
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	char *args[] = {(char *)self, "--init", NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, self, &fa, NULL, args, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fd[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < cap && (r = read(fd[0], out + got, cap - 1 - got)) > 0) got += (size_t)r;
	out[got] = 0;
	close(fd[0]);
	int status;
	if (rc != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
	return WEXITSTATUS(status);
}

// mpi_runtime_line reports whether the line at s (up to end) is a log line
// of Open MPI's runtime ("[host:pid] ..."), not lmdbio's: a process that MPI
// started as a singleton has a daemon of its own, which shares its output
// and, on a loaded machine, logged errors when a start-up past its limit
// ended the process.
static int mpi_runtime_line(const char *s, const char *end) {
	const char *close = strstr(s, "] ");
	if (s[0] != '[' || !close || close > end) return 0;
	const char *colon = memchr(s, ':', (size_t)(close - s));
	if (!colon || colon + 1 == close) return 0;
	for (const char *d = colon + 1; d < close; d++)
		if (*d < '0' || *d > '9') return 0;
	return 1;
}

// lmdbio_lines counts the lines of s that are not the MPI runtime's and
// sets *first to the first of them (NULL if none).
static int lmdbio_lines(const char *s, const char **first) {
	int n = 0;
	*first = NULL;
	while (*s) {
		const char *end = strchr(s, '\n');
		if (!end) end = s + strlen(s);
		if (!mpi_runtime_line(s, end)) {
			if (n++ == 0) *first = s;
		}
		s = *end ? end + 1 : end;
	}
	return n;
}

// launch_settings: a bad value of a variable that says how lmdbio starts
// in MPI is a launch error, and a start-up that outlasts its limit ends
// the process with one line and exit status 1, without the exit handlers
// (lmdbio_init cannot return from a blocked MPI_Init).
static void launch_settings(const char *self) {
	static const struct {
		const char *var, *want;
	} bad[] = {
	    {"LMDBIO_STARTUP_TIMEOUT=soon", "init: LMDBIO_ERR_LAUNCH: LMDBIO_STARTUP_TIMEOUT=\"soon\""},
	    {"LMDBIO_STARTUP_TIMEOUT=0s", "init: LMDBIO_ERR_LAUNCH: LMDBIO_STARTUP_TIMEOUT=\"0s\""},
	    {"LMDBIO_RANKS_PER_NODE=0", "init: LMDBIO_ERR_LAUNCH: LMDBIO_RANKS_PER_NODE=\"0\""},
	};
	char out[4096];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int code = init_child(self, bad[i].var, out, sizeof out);
		if (code != 0 || strncmp(out, bad[i].want, strlen(bad[i].want)) != 0) {
			fprintf(stderr, "%s: exit %d, output \"%s\", want \"%s...\"\n", bad[i].var, code, out, bad[i].want);
			failures++;
		}
	}
	const char *want = "lmdbio: MPI did not finish starting in 1ns: ";
	int code = init_child(self, "LMDBIO_STARTUP_TIMEOUT=1ns", out, sizeof out);
	const char *line;
	if (code != 1 || lmdbio_lines(out, &line) != 1 || strncmp(line, want, strlen(want)) != 0 ||
	    !strstr(line, "LMDBIO_STARTUP_TIMEOUT sets the limit")) {
		fprintf(stderr, "a start-up past its limit: exit %d, output \"%s\", want 1 and one line \"%s...\"\n", code, out,
		        want);
		failures++;
	}
}

int main(int argc, char **argv) {
	if (argc == 2 && strcmp(argv[1], "--init") == 0) return init_only();
	if (argc != 4) {
		fprintf(stderr, "usage: badinput DATASET NOT_LMDB_FILE RECORDS\n");
		return 2;
	}
	const char *path = argv[1], *not_lmdb = argv[2];
	long records = atol(argv[3]);
	lmdbio_loader *ld = NULL;
	lmdbio_batch b;
	lmdbio_topology topo;

	if (strcmp(lmdbio_version(), LMDBIO_VERSION) != 0 || lmdbio_abi_version() != LMDBIO_ABI_VERSION) {
		fprintf(stderr, "library %s (ABI %d), header %s (ABI %d)\n", lmdbio_version(), lmdbio_abi_version(),
		        LMDBIO_VERSION, LMDBIO_ABI_VERSION);
		failures++;
	}
	if (strcmp(lmdbio_status_string(LMDBIO_ERR_BUSY), "LMDBIO_ERR_BUSY") != 0 ||
	    strcmp(lmdbio_status_string(12345), "LMDBIO_UNKNOWN_STATUS") != 0) {
		fprintf(stderr, "lmdbio_status_string names statuses wrongly\n");
		failures++;
	}
	if (strcmp(lmdbio_last_error(), "") != 0) {
		fprintf(stderr, "last error before any call: \"%s\"\n", lmdbio_last_error());
		failures++;
	}

	launch_settings(argv[0]);

	// Before lmdbio_init.
	expect(lmdbio_open(path, NULL, &ld), LMDBIO_ERR_STATE, "lmdbio_init");
	expect(lmdbio_get_topology(&topo), LMDBIO_ERR_STATE, "lmdbio_init");
	expect(lmdbio_init(LMDBIO_ABI_VERSION + 1), LMDBIO_ERR_VERSION, "ABI version");
	expect(lmdbio_init(LMDBIO_ABI_VERSION), LMDBIO_OK, NULL);
	expect(lmdbio_init(LMDBIO_ABI_VERSION), LMDBIO_OK, NULL);
	expect(lmdbio_get_topology(&topo), LMDBIO_OK, NULL);
	expect(lmdbio_get_topology(NULL), LMDBIO_ERR_ARGUMENT, "NULL");

	// Handles that are not open loaders.
	expect(lmdbio_next(NULL, &b), LMDBIO_ERR_HANDLE, "NULL loader handle");
	expect(lmdbio_next((lmdbio_loader *)0x5eed, &b), LMDBIO_ERR_HANDLE, "not a loader handle");
	expect(lmdbio_info(NULL, NULL), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_close(NULL), LMDBIO_ERR_HANDLE, "NULL loader handle");

	// Bad arguments and options.
	expect(lmdbio_open(NULL, NULL, &ld), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_open(path, NULL, NULL), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_open(path, "batch=8 colour=blue", &ld), LMDBIO_ERR_ARGUMENT, "\"colour\"");
	expect(lmdbio_open(path, "batch=0", &ld), LMDBIO_ERR_ARGUMENT, "batch=0");
	expect(lmdbio_open(path, "batch=eight", &ld), LMDBIO_ERR_ARGUMENT, "batch=eight");
	expect(lmdbio_open(path, "batch=8 batch=9", &ld), LMDBIO_ERR_ARGUMENT, "twice");
	expect(lmdbio_open(path, "batch", &ld), LMDBIO_ERR_ARGUMENT, "key=value");
	expect(lmdbio_open(path, "mode=fast", &ld), LMDBIO_ERR_ARGUMENT, "mode=fast");
	expect(lmdbio_open(path, "window=lots", &ld), LMDBIO_ERR_ARGUMENT, "window=lots");
	expect(lmdbio_open(path, "direct=maybe", &ld), LMDBIO_ERR_ARGUMENT, "direct=maybe");
	expect(lmdbio_open(path, "shuffle=random", &ld), LMDBIO_ERR_ARGUMENT, "shuffle=random");
	expect(lmdbio_open(path, "resume={\"version\":1", &ld), LMDBIO_ERR_ARGUMENT, "JSON object");
	expect(lmdbio_open(path, "resume=/nonexistent/state.json", &ld), LMDBIO_ERR_INPUT, "/nonexistent/state.json");
	expect(lmdbio_open(path, "resume={\"version\":1}", &ld), LMDBIO_ERR_INPUT, "damaged");
	expect(lmdbio_open(path, "views=sometimes", &ld), LMDBIO_ERR_ARGUMENT, "views=sometimes");
	// A resume state as its own argument.
	expect(lmdbio_open_resume(NULL, NULL, NULL, &ld), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_open_resume(path, NULL, "/nonexistent/state.json", &ld), LMDBIO_ERR_INPUT, "/nonexistent/state.json");
	expect(lmdbio_open_resume(path, "batch=8", "{\"version\":1}", &ld), LMDBIO_ERR_INPUT, "damaged");
	expect(lmdbio_open_resume(path, "batch=0", "/nonexistent/state.json", &ld), LMDBIO_ERR_ARGUMENT, "batch=0");
	expect(lmdbio_allreduce_sum_u64(NULL, 3), LMDBIO_ERR_ARGUMENT, "NULL");

	// No path, or datasets that are missing or not LMDB.
	expect(lmdbio_open("", NULL, &ld), LMDBIO_ERR_ARGUMENT, "the path is empty");
	expect(lmdbio_open("/nonexistent/dataset", NULL, &ld), LMDBIO_ERR_INPUT, "/nonexistent/dataset");
	expect(lmdbio_open(not_lmdb, NULL, &ld), LMDBIO_ERR_INPUT, not_lmdb);

	// Wild pointers reach Go code as faults and come back as a status.
	expect(lmdbio_open((const char *)16, NULL, &ld), LMDBIO_ERR_INTERNAL, "internal error");
	expect(lmdbio_open_resume(path, NULL, (const char *)16, &ld), LMDBIO_ERR_INTERNAL, "internal error");

	// A good loader, misused.
	expect(lmdbio_open(path, "batch=7 epochs=2 remainder=keep", &ld), LMDBIO_OK, NULL);
	expect(lmdbio_next(ld, NULL), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_next(ld, (lmdbio_batch *)16), LMDBIO_ERR_INTERNAL, "internal error");
	lmdbio_loader_info info;
	expect(lmdbio_info(ld, &info), LMDBIO_OK, NULL);
	if (info.records != records || info.epochs != 2 || info.batch != 7 || info.batches != (records + 6) / 7 ||
	    info.epoch != 0) {
		fprintf(stderr, "info: records %lld epochs %lld batch %lld batches %lld epoch %lld\n", (long long)info.records,
		        (long long)info.epochs, (long long)info.batch, (long long)info.batches, (long long)info.epoch);
		failures++;
	}

	// The state: its length alone, a buffer too small, the document.
	size_t len = 0;
	char small[8], doc[4096];
	expect(lmdbio_state(ld, NULL, 0, NULL), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_state(ld, NULL, sizeof doc, &len), LMDBIO_ERR_ARGUMENT, "NULL");
	expect(lmdbio_state(NULL, doc, sizeof doc, &len), LMDBIO_ERR_HANDLE, "NULL loader handle");
	expect(lmdbio_state(ld, NULL, 0, &len), LMDBIO_OK, NULL);
	size_t want_len = len;
	expect(lmdbio_state(ld, small, sizeof small, &len), LMDBIO_ERR_ARGUMENT, "needs");
	expect(lmdbio_state(ld, doc, sizeof doc, &len), LMDBIO_OK, NULL);
	if (len != want_len || len == 0 || strlen(doc) != len || strncmp(doc, "{\"version\":", 11) != 0) {
		fprintf(stderr, "state: %zu bytes (asked: %zu): %s\n", len, want_len, doc);
		failures++;
	}

	// The message is per thread.
	expect(lmdbio_open(path, "bogus=1", &ld), LMDBIO_ERR_ARGUMENT, "bogus");
	pthread_t t;
	pthread_create(&t, NULL, fail_elsewhere, NULL);
	pthread_join(t, NULL);
	if (!strstr(lmdbio_last_error(), "bogus")) {
		fprintf(stderr, "another thread's failure replaced this thread's message: \"%s\"\n", lmdbio_last_error());
		failures++;
	}

	// Two threads in one handle: calls that find the handle busy do nothing,
	// so every record still arrives exactly once per epoch.
	struct shared s = {.ld = ld, .mu = PTHREAD_MUTEX_INITIALIZER};
	pthread_t t1, t2;
	pthread_create(&t1, NULL, reader, &s);
	pthread_create(&t2, NULL, reader, &s);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (s.records != 2 * records || s.ends != 2) {
		fprintf(stderr, "two threads got %ld records and %ld epoch ends, want %ld and 2\n", s.records, s.ends,
		        2 * records);
		failures++;
	}
	fprintf(stderr, "badinput: two threads on one handle: %ld calls found it busy\n", s.busy);
	expect(lmdbio_next(ld, &b), LMDBIO_DONE, NULL);
	if (b.count != 0 || b.values != NULL) {
		fprintf(stderr, "a batch at LMDBIO_DONE\n");
		failures++;
	}

	// Use after close.
	expect(lmdbio_close(ld), LMDBIO_OK, NULL);
	expect(lmdbio_next(ld, &b), LMDBIO_ERR_HANDLE, "closed");
	expect(lmdbio_info(ld, &info), LMDBIO_ERR_HANDLE, "closed");
	expect(lmdbio_close(ld), LMDBIO_ERR_HANDLE, "closed");

	// lmdbio_finalize closes what is still open; afterwards nothing works.
	expect(lmdbio_open(path, NULL, &ld), LMDBIO_OK, NULL);
	expect(lmdbio_finalize(), LMDBIO_OK, NULL);
	expect(lmdbio_next(ld, &b), LMDBIO_ERR_HANDLE, "closed");
	expect(lmdbio_finalize(), LMDBIO_OK, NULL);
	expect(lmdbio_init(LMDBIO_ABI_VERSION), LMDBIO_ERR_STATE, "lmdbio_finalize");
	expect(lmdbio_open(path, NULL, &ld), LMDBIO_ERR_STATE, "lmdbio_finalize");

	if (failures) {
		fprintf(stderr, "badinput: %d failures\n", failures);
		return 1;
	}
	printf("badinput: ok\n");
	return 0;
}
