package loader_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
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
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(m)
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
