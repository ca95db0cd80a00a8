//go:build cgo

package main

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// mpiJob is a process that is an MPI rank: every rank is a learner, and
// collective calls are MPI's.
type mpiJob struct {
	topo *topology.Topology
}

// startMPI does what lmdbio's commands do before they read (see
// cmd/lmdbio's startJob), for a host process: on failure MPI is left as it
// was found. It reports whether lmdbio initialised MPI itself.
func startMPI() (*mpiJob, bool, error) {
	flavor := topology.FlavorOf(mpi.LibraryVersion())
	if err := topology.CheckBeforeInit(os.Getenv, flavor); err != nil {
		return nil, false, err
	}
	level, err := mpi.Init(mpi.ThreadMultiple)
	if err != nil {
		return nil, false, fmt.Errorf("cannot start MPI: %w", err)
	}
	owns := !mpi.InitializedByHost()
	fail := func(err error) (*mpiJob, bool, error) {
		_ = mpi.Finalize() // a no-op for a host's MPI
		return nil, false, err
	}
	if level < mpi.ThreadMultiple {
		who := "MPI provides"
		if !owns {
			who = "the program initialised MPI with"
		}
		return fail(fmt.Errorf("%w: %s %v, but lmdbio calls MPI from its own threads and needs MPI_THREAD_MULTIPLE: initialise MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided)",
			topology.ErrLaunch, who, level))
	}
	world := mpi.World()
	if err := topology.CheckAfterInit(os.Getenv, flavor, world.Size()); err != nil {
		return fail(err)
	}
	topo, err := topology.Discover(world)
	if err != nil {
		return fail(failf(errArgument, "%v", err))
	}
	return &mpiJob{topo: topo}, owns, nil
}

func (j *mpiJob) where() position {
	t := j.topo
	return position{rank: t.Rank, size: t.Size, node: t.Node, nodes: t.Nodes, local: t.LocalRank, localSize: t.LocalSize}
}

// open opens a loader on every rank. Bad options are agreed on first, so
// that no rank enters the collective loader.Open while another has refused
// its options.
func (j *mpiJob) open(path, options string) (source, loader.Options, error) {
	opt, err := loaderopts.Parse(options)
	if err = agree(j.topo.World, err); err != nil {
		return nil, opt, err
	}
	opt.Topology = j.topo
	ld, err := loader.Open(path, opt)
	if err != nil {
		return nil, opt, err
	}
	return ld, opt, nil
}

// agree returns err on the ranks that had one and, on the others, an error
// naming the first rank that failed. Collective over world.
func agree(world *mpi.Comm, err error) error {
	first := int64(world.Size())
	if err != nil {
		first = int64(world.Rank())
	}
	out := make([]int64, 1)
	if e := world.AllreduceInt64([]int64{first}, out, mpi.Min); e != nil {
		return e
	}
	switch {
	case err != nil:
		return err
	case out[0] < int64(world.Size()):
		return failf(errArgument, "rank %d refused its options", out[0])
	}
	return nil
}

// allreduceSum replaces values by their sums over all ranks, modulo 2^64.
func (j *mpiJob) allreduceSum(values []uint64) error {
	t := j.topo
	mine := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(mine[8*i:], v)
	}
	all := make([]byte, len(mine)*t.Size)
	if err := t.World.Allgather(mine, all); err != nil {
		return err
	}
	for i := range values {
		values[i] = 0
		for r := range t.Size {
			values[i] += binary.LittleEndian.Uint64(all[len(mine)*r+8*i:])
		}
	}
	return nil
}

// finalise frees the topology and, if lmdbio initialised MPI, finalises it.
func (j *mpiJob) finalise() error {
	j.topo.Free()
	return mpi.Finalize()
}
