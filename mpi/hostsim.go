//go:build cgo && !nompi

package mpi

// #include "shim.h"
import "C"

// hostInit and hostFinalize act as a host program that owns MPI (as
// Caffe-MPI does around lmdbio's C library): they call MPI_Init_thread and
// MPI_Finalize behind the package's back. Only the tests use them, to check
// that Init and Finalize leave such a host's MPI alone.

// haveMPI tells tests whether this build links MPI.
const haveMPI = true

func hostInit() error {
	var got C.int
	return mpiError("MPI_Init_thread", C.MPI_Init_thread(nil, nil, C.lmdbio_thread_multiple(), &got))
}

// hostFinalize finalises MPI and reports whether it was still initialised
// and not yet finalised just before, as the host expects.
func hostFinalize() (wasLive bool, err error) {
	var flag, done C.int
	C.MPI_Initialized(&flag)
	C.MPI_Finalized(&done)
	return flag != 0 && done == 0, mpiError("MPI_Finalize", C.MPI_Finalize())
}
