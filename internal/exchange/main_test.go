package exchange_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
)

// The TestMPI tests run in one process (`go test`: a world of one rank, by
// MPI's singleton start-up) and under mpirun with any number of ranks
// (scripts/mpi-tests.sh); every rank runs the same tests in the same order.
// The other tests run several nodes in one process over
// exchangetest.Network.
func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	// Every rank exits non-zero if a test failed on any rank.
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
