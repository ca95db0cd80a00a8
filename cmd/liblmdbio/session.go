//go:build cgo

package main

import (
	"fmt"
	"os"
	"sync"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// session is the process's lmdbio state between lmdbio_init and
// lmdbio_finalize. MPI lives once per process, and so does it.
var session struct {
	sync.Mutex
	topo      *topology.Topology // nil before init and after finalize
	ownsMPI   bool               // lmdbio_init initialised MPI, so finalize ends it
	finalised bool
	failed    error // a failed init, returned again by every later init
}

// initialise checks the caller's header against the library, joins or
// initialises MPI, checks how the job was launched and discovers its
// topology. It reports whether it initialised MPI itself.
func initialise(headerABI, libraryABI int, version string) (ownsMPI bool, err error) {
	if headerABI != libraryABI {
		return false, failf(errVersion, "lmdbio.h is ABI version %d but liblmdbio %s is ABI version %d: build against the include/lmdbio.h that comes with the library",
			headerABI, version, libraryABI)
	}
	session.Lock()
	defer session.Unlock()
	switch {
	case session.failed != nil:
		return false, session.failed
	case session.finalised:
		return false, failf(errState, "lmdbio_init after lmdbio_finalize: MPI cannot be initialised twice in a process")
	case session.topo != nil:
		return session.ownsMPI, nil
	}
	topo, owns, err := startMPI()
	if err != nil {
		session.failed = err
		return false, err
	}
	session.topo, session.ownsMPI = topo, owns
	return owns, nil
}

// startMPI does what lmdbio's commands do before they read (see
// cmd/lmdbio's startJob), for a host process: on failure MPI is left as it
// was found.
func startMPI() (*topology.Topology, bool, error) {
	flavor := topology.FlavorOf(mpi.LibraryVersion())
	if err := topology.CheckBeforeInit(os.Getenv, flavor); err != nil {
		return nil, false, err
	}
	level, err := mpi.Init(mpi.ThreadMultiple)
	if err != nil {
		return nil, false, fmt.Errorf("cannot start MPI: %w", err)
	}
	owns := !mpi.InitializedByHost()
	fail := func(err error) (*topology.Topology, bool, error) {
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
	return topo, owns, nil
}

// finalise closes every open loader, frees the topology and, if lmdbio
// initialised MPI, finalises it. A second call does nothing.
func finalise() error {
	session.Lock()
	defer session.Unlock()
	if session.topo == nil {
		return nil // never initialised, or already finalised
	}
	if err := closeAll(); err != nil {
		return err
	}
	session.topo.Free()
	session.topo = nil
	session.finalised = true
	return mpi.Finalize()
}

// job returns the topology, or an error before lmdbio_init.
func job() (*topology.Topology, error) {
	session.Lock()
	defer session.Unlock()
	if session.topo == nil {
		if session.finalised {
			return nil, failf(errState, "lmdbio_finalize was called")
		}
		return nil, failf(errState, "call lmdbio_init(LMDBIO_ABI_VERSION) first")
	}
	return session.topo, nil
}
