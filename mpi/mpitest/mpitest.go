// Package mpitest runs a package's tests as an MPI job: in one process
// (`go test`, a world of one rank by MPI's singleton start-up) and under
// mpirun with any number of ranks, every rank running the same tests in the
// same order.
package mpitest

import (
	"fmt"
	"os"

	"github.com/lmdbio/lmdbio/mpi"
)

// Main initialises MPI, calls run (a TestMain's m.Run, or what wraps it),
// and exits with the largest status of any rank, so that every rank exits
// non-zero when a test failed on any of them. It never returns.
func Main(run func() int) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run()
	out := make([]int64, 1)
	if err := mpi.World().AllreduceInt64([]int64{int64(code)}, out, mpi.Max); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	} else {
		code = int(out[0])
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
