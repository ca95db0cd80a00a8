//go:build nompi || !cgo

package mpi

import (
	"os"
	"sync"
)

// This file and nompi_*.go are the build without MPI (tag nompi, or cgo
// disabled): a world of one rank with the same API and the same argument
// checks. Every error of this build has Code CodeInvalid.

// state is the process-wide state, as in the MPI build.
var state struct {
	sync.Mutex
	initialised bool
	finalised   bool
	provided    ThreadLevel
	world       *Comm
}

// Init starts the single-rank world and returns want (clamped to the known
// levels): one process supports every level. Calling Init again returns the
// same level; Init after Finalize fails, as with MPI.
func Init(want ThreadLevel) (provided ThreadLevel, err error) {
	state.Lock()
	defer state.Unlock()
	if state.initialised {
		return state.provided, nil
	}
	if state.finalised {
		return 0, invalid("MPI_Init_thread", "MPI was finalised and cannot be initialised again")
	}
	state.provided = min(max(want, ThreadSingle), ThreadMultiple)
	state.world = &Comm{box: new(mailbox), world: true}
	state.initialised = true
	return state.provided, nil
}

// Provided returns the thread level MPI provides (as Init returned it), or
// ThreadSingle before Init.
func Provided() ThreadLevel {
	state.Lock()
	defer state.Unlock()
	return state.provided
}

// InitializedByHost is always false: without MPI there is no host MPI.
func InitializedByHost() bool { return false }

// Finalize ends the single-rank world. It is idempotent and does nothing
// before Init.
func Finalize() error {
	state.Lock()
	defer state.Unlock()
	if state.initialised {
		state.initialised = false
		state.finalised = true
	}
	return nil
}

// World returns the communicator of the single rank. It panics before Init
// or after Finalize, as the MPI build does.
func World() *Comm {
	state.Lock()
	defer state.Unlock()
	if !state.initialised {
		panic("mpi: World called without a successful Init (or after Finalize)")
	}
	return state.world
}

// Abort exits the process with code.
func Abort(code int) { os.Exit(code) }

// LibraryVersion names this build.
func LibraryVersion() string { return "lmdbio single-rank build without MPI" }

// Comm is a communicator of one rank. Messages sent on it are held in its
// own mailbox, so communicators do not see each other's messages.
type Comm struct {
	box   *mailbox
	freed bool
	world bool
}

func (c *Comm) live(op string) error {
	if c.freed {
		return invalid(op, "communicator has been freed")
	}
	return nil
}

// Rank is always 0.
func (c *Comm) Rank() int { return 0 }

// Size is always 1.
func (c *Comm) Size() int { return 1 }

// Free releases c. Freeing World is refused, freeing twice returns an error.
func (c *Comm) Free() error {
	const op = "MPI_Comm_free"
	if c.world {
		return invalid(op, "the world communicator cannot be freed")
	}
	if err := c.live(op); err != nil {
		return err
	}
	c.freed = true
	return nil
}

// Barrier returns at once.
func (c *Comm) Barrier() error { return c.live("MPI_Barrier") }

// Ibarrier returns a completed request: one rank has always arrived.
func (c *Comm) Ibarrier() (*Request, error) {
	const op = "MPI_Ibarrier"
	if err := c.live(op); err != nil {
		return nil, err
	}
	r := &Request{op: op, done: make(chan struct{})}
	close(r.done)
	return r, nil
}

// Split returns a new communicator of one rank, or nil for color Undefined.
func (c *Comm) Split(color, key int) (*Comm, error) {
	const op = "MPI_Comm_split"
	if err := c.live(op); err != nil {
		return nil, err
	}
	if color == Undefined {
		return nil, nil
	}
	if color < 0 {
		return nil, invalid(op, "color %d is negative and not Undefined", color)
	}
	return &Comm{box: new(mailbox)}, nil
}

// SplitShared returns a new communicator of one rank.
func (c *Comm) SplitShared(key int) (*Comm, error) {
	if err := c.live("MPI_Comm_split_type"); err != nil {
		return nil, err
	}
	return &Comm{box: new(mailbox)}, nil
}
