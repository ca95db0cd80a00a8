//go:build cgo

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/lmdbio/lmdbio/internal/agreement"
	"github.com/lmdbio/lmdbio/internal/startup"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
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
	limit, perNode, err := launchSettings()
	if err != nil {
		return nil, false, err
	}
	// What lmdbio calls in MPI from here on (MPI_Init unless the program
	// did, the duplicate of its world, the topology's collectives) may wait
	// forever for ranks that cannot reach each other.
	defer startup.Watch(limit)()
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
	topo, err := topology.Virtual(world, perNode) // fails only in MPI
	if err != nil {
		return fail(err)
	}
	return &mpiJob{topo: topo}, owns, nil
}

// launchSettings reads the variables that say how lmdbio starts in MPI,
// before MPI is touched: the start-up's limit and the ranks per virtual
// node. A bad value is a launch setting, not an argument of the call.
func launchSettings() (limit time.Duration, perNode int, err error) {
	if limit, err = startup.Limit(os.Getenv); err == nil {
		perNode, err = topology.RanksPerNode(os.Getenv)
	}
	if err != nil {
		return 0, 0, failure.Mark(err, failure.Launch)
	}
	return limit, perNode, nil
}

func (j *mpiJob) where() position {
	t := j.topo
	return position{rank: t.Rank, size: t.Size, node: t.Node, nodes: t.Nodes, local: t.LocalRank, localSize: t.LocalSize}
}

// open opens a loader on every rank. The call's arguments are agreed on
// first, so that no rank enters the collective loader.Open while another
// has refused them. (loader.Open fails on every rank when one fails, each
// with the failure's class.)
func (j *mpiJob) open(path, options, state string) (source, loader.Options, error) {
	opt, err := parseOpen(path, options, state)
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

// agree gives every rank that failed a step its own error with the kind
// the ranks agree on (agreement.OnFailure), and the ranks that did not
// fail an error of that kind naming the rank whose failure it is.
// Collective over world.
func agree(world *mpi.Comm, err error) error {
	f, e := agreement.OnFailure(world, err)
	switch {
	case e != nil && err != nil:
		return err
	case e != nil:
		return e
	case !f.Failed:
		return nil
	case err != nil:
		return f.Own(err)
	}
	return failure.Mark(fmt.Errorf("rank %d refused its path or options", f.Rank), f.Kind)
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
