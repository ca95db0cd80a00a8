//go:build cgo

// Command liblmdbio is lmdbio's C library: built with
//
//	go build -buildmode=c-shared -o lib/liblmdbio.so ./cmd/liblmdbio
//
// (make lib), it implements the interface declared in include/lmdbio.h, the
// only header C and C++ programs include; the header cgo generates beside
// the library is an implementation detail.
//
// # Overview
//
// abi.c holds the public C functions. Each passes its arguments to a Go
// function of export.go and stores the message of a failing call in a
// thread-local variable (lmdbio_last_error). On the Go side, session.go
// joins the job: mpijob.go for an MPI rank (joining or initialising MPI),
// agentjob.go for a learner that lmdbio run --agent started (through its
// agent, without MPI). handle.go keeps the open loaders behind integer
// handles, internal/loaderopts reads the option string of lmdbio_open, and
// status.go turns errors, and panics, into the header's status codes.
// abort.go ends the job for a process that fails while the others run
// (lmdbio_abort, and the exit handler of a process that exits non-zero),
// instead of finalising, which would wait for them forever.
//
// # Invariants
//
//   - No Go panic crosses into C: every exported function recovers and
//     returns LMDBIO_ERR_INTERNAL.
//   - A handle is an id looked up in a table, never dereferenced; ids are not
//     reused, so a closed handle is always recognised as closed.
//   - A call on a handle that another thread is inside returns
//     LMDBIO_ERR_BUSY without waiting.
//   - A process that exits with a status other than 0 never finalises MPI
//     (the others may wait for it in a collective call): it aborts the job,
//     unless every rank got the failure it exits of (a failed open).
//   - No thread enters Go without an alternate signal stack (abi.c).
//   - The views handed to C point into the node's shared memory (or liblmdb's
//     map); any that point into Go memory are pinned until the next call.
package main

func main() {}
