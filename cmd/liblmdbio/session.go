//go:build cgo

package main

import (
	"cmp"
	"errors"
	"os"
	"sync"

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// session is the process's lmdbio state between lmdbio_init and
// lmdbio_finalize. MPI lives once per process, and so does it.
var session struct {
	sync.Mutex
	job       job  // nil before init and after finalize
	atExit    bool // lmdbio_init started what the process's exit must end
	finalised bool
	failed    error // a failed init, returned again by every later init
	// openFailed: the last lmdbio_open failed, on every rank alike (Open
	// agrees on a failure), so every rank exits of it and may finalise.
	openFailed bool
}

// job is where the collective calls of a process go: to the other ranks
// through MPI (mpijob.go), or to the node's agent for a learner that lmdbio
// run --agent started (agentjob.go).
type job interface {
	where() position
	open(path, options, state string) (source, loader.Options, error)
	allreduceSum(values []uint64) error
	finalise() error // after every loader is closed
}

// position is where a process stands in the job.
type position struct{ rank, size, node, nodes, local, localSize int }

// initialise checks the caller's header against the library and joins the
// job: its agent when the process has one, else MPI (which it joins or
// initialises). It reports whether the process's exit must finalise.
func initialise(headerABI, libraryABI int, version string) (atExit bool, err error) {
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
	case session.job != nil:
		return session.atExit, nil
	}
	var j job
	if socket := os.Getenv(agent.AgentSocketEnv); socket != "" {
		j, err = joinAgent(socket)
		atExit = err == nil
	} else {
		j, atExit, err = startMPI()
	}
	if err != nil {
		session.failed = err
		return false, err
	}
	session.job, session.atExit = j, atExit
	return atExit, nil
}

// finalise closes every open loader and leaves the job. A second call does
// nothing.
func finalise() error {
	session.Lock()
	defer session.Unlock()
	if session.job == nil {
		return nil // never initialised, or already finalised
	}
	if err := closeAll(); err != nil {
		return err
	}
	err := session.job.finalise()
	session.job = nil
	session.finalised = true
	return err
}

// current returns the job, or an error before lmdbio_init.
func current() (job, error) {
	session.Lock()
	defer session.Unlock()
	if session.job == nil {
		if session.finalised {
			return nil, failf(errState, "lmdbio_finalize was called")
		}
		return nil, failf(errState, "call lmdbio_init(LMDBIO_ABI_VERSION) first")
	}
	return session.job, nil
}

// open opens a loader and registers its handle; state is a resume state
// given on its own, or "".
func open(path, options, state string) (uintptr, error) {
	j, err := current()
	if err != nil {
		return 0, err
	}
	src, opt, err := j.open(path, options, state)
	session.Lock()
	session.openFailed = err != nil
	session.Unlock()
	if err != nil {
		return 0, withPath(path, err)
	}
	// The loader's defaults for what the caller left out.
	h := &handle{src: src, path: path, batch: cmp.Or(opt.Batch, loader.DefaultBatch),
		epochs: cmp.Or(opt.Epochs, loader.DefaultEpochs), ended: src.Epoch(), prep: opt.Prep != ""}
	return register(h), nil
}

// parseOpen reads what every learner checks of lmdbio_open's arguments on
// its own, before the collective part: the options, and the resume state
// of lmdbio_open_resume ("" for none). An empty path names no dataset (a
// learner of an agent would make it its working directory): it is refused
// as an argument, as NULL is, on both kinds of job.
func parseOpen(path, options, state string) (loader.Options, error) {
	if path == "" {
		return loader.Options{}, failure.Mark(errors.New("lmdbio_open: the path is empty"), failure.Argument)
	}
	opt, err := loaderopts.Parse(options)
	if err != nil {
		return opt, err
	}
	return opt, loaderopts.ParseResume(&opt, state)
}

// allreduceSum replaces values by their sums over the job, modulo 2^64.
func allreduceSum(values []uint64) error {
	j, err := current()
	if err != nil {
		return err
	}
	return j.allreduceSum(values)
}
