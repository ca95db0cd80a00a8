// Package mpi is lmdbio's own thin binding to the system MPI library.
//
// # Overview
//
// The package wraps the few MPI calls the project uses: initialisation, the
// world communicator and communicators split from it, the byte collectives
// (Bcast, Gather, Gatherv, Allgather, Allgatherv, Alltoallv), Allreduce of
// int64 and float64 vectors, and blocking and non-blocking point-to-point
// messages. Buffers are Go byte slices; counts and displacements are in bytes.
//
// Four builds share one API:
//
//   - default: cgo against OpenMPI (`#cgo pkg-config: mpi`, Debian's name);
//   - build tag mpich: cgo against MPICH (`#cgo pkg-config: mpich`);
//   - build tag mpiflags: any MPI, with no `#cgo pkg-config` line: the
//     compile and link flags come from CGO_CFLAGS and CGO_LDFLAGS, as
//     scripts/mpi-flags.sh prints them for a cluster's module, Spack or
//     vendor MPI (pkg-config ompi-c, ompi, mpich, or the mpicc wrapper);
//   - build tag nompi, or CGO_ENABLED=0: no MPI at all. World is a single
//     rank; collectives copy send to recv, Send and Recv to self go through an
//     in-process mailbox, Split returns a communicator of size one and Abort
//     exits the process.
//
// A program calls Init once, uses World and the communicators made from it,
// and calls Finalize before it exits:
//
//	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil { ... }
//	defer mpi.Finalize()
//	w := mpi.World()
//
// Go code should ask for ThreadMultiple: goroutines move between OS threads,
// so any lower level is only honoured if the program keeps every MPI call,
// Init and Finalize included, on one goroutine locked with
// runtime.LockOSThread.
//
// When the host program has already called MPI_Init (lmdbio's C library runs
// inside MPI programs such as Caffe-MPI), Init does not initialise again,
// InitializedByHost reports true and Finalize leaves MPI to the host.
//
// # Errors
//
// Every failure is returned as an *Error carrying the name of the MPI call,
// the MPI error code and MPI's own message (MPI_Error_string). The binding
// installs MPI_ERRORS_RETURN on its communicators so MPI reports errors
// instead of aborting. Argument mistakes that Go can see before calling MPI
// (a root out of range, counts slices of the wrong length, a buffer too small
// for its counts) are also returned as *Error, with Code CodeInvalid; they
// never panic. A rank that returns an error from a collective may leave the
// other ranks blocked in it, so callers should treat collective errors as
// fatal for the job (Abort).
//
// # Large messages
//
// C MPI counts are 32-bit ints. Bcast, Send, Recv, Isend and Irecv split
// buffers longer than 2^31-1 bytes into chunks internally. A chunked message
// always ends with a chunk shorter than the chunk size (possibly empty), so a
// receiver with a larger buffer knows where it ends. A chunked Irecv posts all
// its chunks at once and therefore needs a message of exactly len(buf) bytes
// from a named source with a named tag. AllreduceInt64 and AllreduceFloat64
// split by element count the same way. The v-collectives and Gather and
// Allgather cannot be chunked; when a count or displacement exceeds 2^31-1
// they describe the data in blocks of a contiguous derived datatype whose size
// divides every count and displacement (their greatest common divisor, or a
// divisor of it), and return an *Error when no such block keeps every value
// below 2^31. Layouts built from fixed-size records or aligned regions always
// qualify.
//
// # Invariants
//
//   - MPI is initialised at most once per process and finalised at most once;
//     Init after Finalize fails.
//   - World is a duplicate of MPI_COMM_WORLD, so the project's messages never
//     match messages of a host program on MPI_COMM_WORLD, and changing its
//     error handler leaves the host's handlers alone.
//   - Every communicator returned by this package has MPI_ERRORS_RETURN.
//   - Buffers passed to blocking calls are read or written only during the
//     call. Buffers passed to Isend and Irecv are pinned and belong to MPI
//     until Request.Wait returns: do not read or write them before that, and
//     always Wait (a request never waited for keeps its buffer pinned, and
//     the Go runtime panics when it finds the forgotten pin).
//   - An empty buffer or zero count is always allowed: the binding never
//     hands MPI a Go pointer to a zero-length slice.
package mpi
