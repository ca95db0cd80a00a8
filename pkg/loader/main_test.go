package loader_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/mpi/mpitest"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// The TestMPI tests run in one process (`go test`: a world of one rank, by
// MPI's singleton start-up) and under mpirun with any number of ranks and
// LMDBIO_RANKS_PER_NODE (scripts/mpi-tests.sh). Every rank runs the same
// tests and subtests in the same order and takes every collective step, so
// no test may call t.Parallel or stop early on one rank only: checks record
// a local verdict, and the ranks agree on it before they go on.

// job is the topology every test shares: Discover is collective and its
// communicators live for the whole test binary.
var job *topology.Topology

// scratch is rank 0's directory for fixtures ("" on the other ranks).
var scratch string

func TestMain(m *testing.M) {
	mpitest.Main(func() int { return run(m) })
}

// run sets up what the tests share, runs them and tears it down again.
func run(m *testing.M) int {
	var err error
	if job, err = topology.Discover(mpi.World()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer job.Free()
	defer func() {
		for _, topo := range virtuals {
			topo.Free()
		}
	}()
	if job.Rank == 0 {
		if scratch, err = os.MkdirTemp("", "lmdbio-loader-test-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			mpi.Abort(1)
		}
	}
	code := m.Run()
	// The fixtures stay until no rank reads them any more.
	if err := job.World.Barrier(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if scratch != "" {
		_ = os.RemoveAll(scratch)
	}
	return code
}
