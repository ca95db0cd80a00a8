// The public C functions of include/lmdbio.h. They are thin: each passes its
// arguments to the Go side (export.go) and keeps the message of a failing
// call in the calling thread's last_error. Compiling this file against the
// header makes the compiler check that the library implements the header's
// prototypes exactly.

#define _GNU_SOURCE // on_exit
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "lmdbio.h"
#include "_cgo_export.h"

// last_error is the message of the calling thread's last failing call.
static __thread char *last_error;

// finish records msg (malloc'ed by the Go side, or NULL) as the thread's
// last error when status is an error, and frees it otherwise. Callers read
// msg in a statement after the Go call: as a sibling argument of the call
// it could be read before the call sets it.
static int finish(int status, char *msg) {
	if (status >= 0) {
		free(msg);
		return status;
	}
	free(last_error);
	last_error = msg;
	return status;
}

// ensure_signal_stack gives the calling thread an alternate signal stack
// if it has none, before it enters Go. The Go runtime handles its signals
// (SIGURG, which preempts Go code, arrives at any time) on the stack the
// thread had when it first entered Go; a host that removed that stack since
// makes the next signal a fatal "non-Go code disabled sigaltstack". CPython's
// faulthandler does so at shutdown (pytest, PYTHONFAULTHANDLER), before the
// exit handlers that close lmdbio run. The runtime accepts any alternate
// stack the signal arrives on. The stack is the thread's for good: freeing
// it would bring the fault back. Every call into Go checks, at the cost of
// one system call: a host may remove the stack at any time (faulthandler's
// disable), and its exit handlers may call any function.
static __thread void *own_signal_stack;

static void ensure_signal_stack(void) {
	stack_t st;
	size_t size = 64 * 1024; // more than the runtime's 32 KiB and MINSIGSTKSZ
	if (sigaltstack(NULL, &st) != 0 || !(st.ss_flags & SS_DISABLE))
		return;
	if (!own_signal_stack)
		own_signal_stack = malloc(size);
	if (!own_signal_stack)
		return;
	st.ss_sp = own_signal_stack;
	st.ss_size = size;
	st.ss_flags = 0;
	sigaltstack(&st, NULL);
}

const char *lmdbio_version(void) { return LMDBIO_VERSION; }

int lmdbio_abi_version(void) { return LMDBIO_ABI_VERSION; }

const char *lmdbio_last_error(void) { return last_error ? last_error : ""; }

const char *lmdbio_status_string(int status) {
	switch (status) {
	case LMDBIO_OK: return "LMDBIO_OK";
	case LMDBIO_END_OF_EPOCH: return "LMDBIO_END_OF_EPOCH";
	case LMDBIO_DONE: return "LMDBIO_DONE";
	case LMDBIO_ERR_HANDLE: return "LMDBIO_ERR_HANDLE";
	case LMDBIO_ERR_ARGUMENT: return "LMDBIO_ERR_ARGUMENT";
	case LMDBIO_ERR_BUSY: return "LMDBIO_ERR_BUSY";
	case LMDBIO_ERR_VERSION: return "LMDBIO_ERR_VERSION";
	case LMDBIO_ERR_STATE: return "LMDBIO_ERR_STATE";
	case LMDBIO_ERR_LAUNCH: return "LMDBIO_ERR_LAUNCH";
	case LMDBIO_ERR_INPUT: return "LMDBIO_ERR_INPUT";
	case LMDBIO_ERR_RUNTIME: return "LMDBIO_ERR_RUNTIME";
	case LMDBIO_ERR_INTERNAL: return "LMDBIO_ERR_INTERNAL";
	}
	return "LMDBIO_UNKNOWN_STATUS";
}

// end_at_exit ends lmdbio's part for programs that let lmdbio initialise
// MPI and exit without lmdbio_finalize: an MPI process that exits without
// MPI_Finalize makes the launcher fail the whole job. A learner of an agent
// closes its loaders and its connection, so that the agent sees it leave
// on purpose.
// A process that exits with a status other than 0 failed: the other ranks
// may be waiting for it in a collective call, and finalising would wait
// for them in turn, forever. It aborts the job instead (lmdbioGoAbort),
// unless it exits of a failed lmdbio_open, which every rank got.
// glibc's on_exit gives the handler the exit status; atexit would not.
// A child forked after lmdbio_init (a PyTorch DataLoader worker) inherits
// the handler but not the Go runtime's threads: calling into Go there
// would wait for them forever, so the handler does nothing outside the
// process that registered it.
static pid_t registered_by;

// finalised is set once lmdbio_finalize succeeded: the exit handler then
// has nothing to do, and does not enter Go.
static volatile int finalised;

static void end_at_exit(int status, void *arg) {
	char *msg = NULL;
	char what[64];
	(void)arg;
	if (getpid() != registered_by || finalised)
		return;
	ensure_signal_stack();
	if (status != 0) {
		snprintf(what, sizeof what, "exited with status %d", status);
		lmdbioGoAbort(status, what, 1, &msg); // returns only when there is no job to end
		free(msg);
		msg = NULL;
	}
	lmdbioGoFinalize(&msg);
	free(msg);
}

int lmdbio_init(int abi_version) {
	char *msg = NULL;
	ensure_signal_stack();
	int at_exit = 0;
	int st = lmdbioGoInit(abi_version, LMDBIO_ABI_VERSION, (char *)LMDBIO_VERSION, &at_exit, &msg);
	if (st == LMDBIO_OK && at_exit && registered_by == 0) {
		registered_by = getpid();
		on_exit(end_at_exit, NULL);
	}
	return finish(st, msg);
}

int lmdbio_abort(int status, const char *what) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoAbort(status, (char *)what, 0, &msg);
	return finish(st, msg);
}

int lmdbio_finalize(void) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoFinalize(&msg);
	if (st == LMDBIO_OK)
		finalised = 1;
	return finish(st, msg);
}

int lmdbio_get_topology(lmdbio_topology *out) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoTopology(out, &msg);
	return finish(st, msg);
}

// A handle is the id of a Go-side loader, never a pointer lmdbio follows:
// a stale or made-up handle is looked up, not dereferenced.
static uintptr_t handle_id(lmdbio_loader *h) { return (uintptr_t)h; }

int lmdbio_open(const char *path, const char *options, lmdbio_loader **out) {
	return lmdbio_open_resume(path, options, NULL, out);
}

int lmdbio_open_resume(const char *path, const char *options, const char *state, lmdbio_loader **out) {
	char *msg = NULL;
	ensure_signal_stack();
	uintptr_t id = 0;
	int st = lmdbioGoOpen((char *)path, (char *)options, (char *)state, out != NULL, &id, &msg);
	if (st == LMDBIO_OK) {
		*out = (lmdbio_loader *)id;
	}
	return finish(st, msg);
}

int lmdbio_next(lmdbio_loader *loader, lmdbio_batch *batch) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoNext(handle_id(loader), batch, &msg);
	return finish(st, msg);
}

int lmdbio_batch_images(lmdbio_loader *loader, lmdbio_images *out) {
	char *msg = NULL;
	int st = lmdbioGoBatchImages(handle_id(loader), out, &msg);
	return finish(st, msg);
}

int lmdbio_info(lmdbio_loader *loader, lmdbio_loader_info *out) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoInfo(handle_id(loader), out, &msg);
	return finish(st, msg);
}

int lmdbio_state(lmdbio_loader *loader, char *buf, size_t cap, size_t *len) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoState(handle_id(loader), buf, cap, len, &msg);
	return finish(st, msg);
}

int lmdbio_close(lmdbio_loader *loader) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoClose(handle_id(loader), &msg);
	return finish(st, msg);
}

int lmdbio_allreduce_sum_u64(uint64_t *values, size_t n) {
	char *msg = NULL;
	ensure_signal_stack();
	int st = lmdbioGoAllreduceSum(values, n, &msg);
	return finish(st, msg);
}
