package exchange_test

import (
	"testing"

	"github.com/lmdbio/lmdbio/mpi/mpitest"
)

// The TestMPI tests run in one process (`go test`: a world of one rank, by
// MPI's singleton start-up) and under mpirun with any number of ranks
// (scripts/mpi-tests.sh); every rank runs the same tests in the same order.
// The other tests run several nodes in one process over
// exchangetest.Network.
func TestMain(m *testing.M) {
	mpitest.Main(m.Run)
}
