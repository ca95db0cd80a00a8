package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/agreement"
	"github.com/lmdbio/lmdbio/internal/startup"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Job is the MPI side of a command that runs as a job: every rank calls
// StartJob, does its part, and ends with Finish, which makes all ranks agree
// on the outcome so only one of them reports a failure.
type Job struct {
	Topo    *topology.Topology
	Flavor  topology.Flavor
	cleanup func() // after MPI_Finalize
	// Startup is how long MPI_Init and the topology took: what a training
	// job pays for MPI whatever reads its data.
	Startup time.Duration
}

// StartJob checks how the job was launched, initialises MPI and discovers
// the node topology.
func StartJob() (*Job, error) {
	if os.Getenv(topology.AgentSocketEnv) != "" {
		// A world of one would read the whole dataset in every learner.
		return nil, InputError(fmt.Errorf("this lmdbio command runs as MPI ranks, but lmdbio run --agent started it as a learner (%s is set): run it with lmdbio run -n N; learners of an agent read through lmdbio's C or Python library",
			topology.AgentSocketEnv))
	}
	flavor := topology.FlavorOf(mpi.LibraryVersion())
	if err := topology.CheckBeforeInit(os.Getenv, flavor); err != nil {
		return nil, InputError(err)
	}
	limit, err := startup.Limit(os.Getenv)
	if err != nil {
		return nil, InputError(err)
	}
	cleanup := singletonSessionDir(flavor)
	defer startup.Watch(limit, cleanup)()
	started := time.Now()
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		cleanup()
		return nil, fmt.Errorf("cannot start MPI: %w", err)
	}
	world := mpi.World()
	if err := topology.CheckAfterInit(os.Getenv, flavor, world.Size()); err != nil {
		_ = mpi.Finalize()
		cleanup()
		return nil, InputError(err)
	}
	topo, err := topology.Discover(world)
	if err != nil {
		err = InputError(err)
	}
	// A bad setting (LMDBIO_RANKS_PER_NODE) fails on every rank alike: say
	// it once.
	if err = AgreeOn(world, err); err != nil {
		if topo != nil {
			topo.Free()
		}
		_ = mpi.Finalize()
		cleanup()
		return nil, err
	}
	return &Job{Topo: topo, Flavor: flavor, cleanup: cleanup, Startup: time.Since(started)}, nil
}

// singletonSessionDir gives lmdbio a session directory of its own when it
// runs as an Open MPI singleton (started without a launcher), and returns
// the function that removes it after MPI_Finalize. Open MPI keeps every
// process's session files under <tmp>/ompi.<host>.<uid>, which a singleton
// creates and, once empty, removes again: singletons that start and end at
// the same moment (lmdbio info and digest run side by side by a script)
// race there, and one of them fails MPI_Init with "mkdir ... File exists".
func singletonSessionDir(flavor topology.Flavor) func() {
	const base = "OMPI_MCA_orte_tmpdir_base"
	if flavor != topology.OpenMPI || os.Getenv(base) != "" {
		return func() {}
	}
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "OMPI_MCA_ess_base_jobid", "PMIX_RANK"} {
		if os.Getenv(v) != "" {
			return func() {} // a launcher made the directory before starting us
		}
	}
	sweepSessionDirs(os.TempDir())
	dir, err := os.MkdirTemp("", sessionDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return func() {} // Open MPI's usual place, then
	}
	os.Setenv(base, dir)
	return func() { os.RemoveAll(dir) }
}

// sessionDirPrefix starts the name of a singleton's session directory,
// followed by the process's pid and a dash.
const sessionDirPrefix = "lmdbio-mpi-"

// sweepSessionDirs removes the session directories in tmp of singletons
// that have ended. A singleton whose start-up outlasted its limit removes
// its own on the way out, but its MPI daemon, still starting, could make
// it again before it noticed the process gone (6 of 30 such ends on a
// loaded machine left one).
func sweepSessionDirs(tmp string) {
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), sessionDirPrefix)
		pidText, _, dashed := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !dashed || err != nil || pid <= 0 || !e.IsDir() {
			continue // not one of ours, or one named before the pid was in the name
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// Agree makes every rank learn whether any rank failed, of what kind
// (agreement.OnFailure). The rank whose failure it is reports its error;
// every failing rank returns a quiet error of the agreed kind, so the user
// sees one line and every rank exits with one status. It is collective.
func (j *Job) Agree(err error) error { return AgreeOn(j.Topo.World, err) }

// AgreeOn is Agree on any communicator that every rank of the job calls it on.
func AgreeOn(world *mpi.Comm, err error) error {
	f, e := agreement.OnFailure(world, err)
	if e != nil {
		return fmt.Errorf("agreeing on the outcome: %w", e)
	}
	if !f.Failed {
		return nil
	}
	if world.Rank() == f.Rank {
		Report("", err)
	}
	// The launcher ends the job when the first rank exits non-zero, so no
	// rank may exit before the reporting one has written its line.
	_ = world.Barrier()
	return quietAgreed(f.Kind)
}

// Fail ends the whole job at once from one rank, for failures that other
// ranks cannot be asked to agree on (they may be blocked in a collective).
func (j *Job) Fail(err error) {
	code := Report("", err)
	if j.Topo.Size > 1 {
		mpi.Abort(code)
	}
	j.cleanup()
	os.Exit(code)
}

// Finish agrees on the outcome, frees the job's resources and finalises MPI.
func (j *Job) Finish(err error) error {
	err = j.Agree(err)
	j.Topo.Free()
	if e := mpi.Finalize(); e != nil && err == nil {
		err = e
	}
	j.cleanup()
	return err
}

// Cleanup removes what StartJob made outside MPI (a singleton's session
// directory), for a process that ends without Finish: after MPI_Abort, or
// when a signal stops it.
func (j *Job) Cleanup() { j.cleanup() }
