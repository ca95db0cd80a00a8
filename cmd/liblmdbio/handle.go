//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/lmdbio/lmdbio/pkg/loader"
)

// source is what a handle reads batches from: a *loader.Loader, or a fake
// in tests.
type source interface {
	Next(ctx context.Context) (loader.Batch, error)
	Records() int
	Rounds() int // batches of the epoch Next is in
	Epoch() int  // the epoch Next is in
	State() loader.State
	Close() error
}

// handle is one open loader as the C side sees it.
type handle struct {
	busy   sync.Mutex // held for the length of a call on the handle
	closed bool       // guarded by busy
	src    source
	path   string
	batch  int // records per full batch
	epochs int // epochs of the run
	ended  int // epochs that have ended: a resumed run starts in a later one
	failed error
	views  views // the C arrays of the last batch
	prep   bool  // opened with prep=: batches carry a tensor (images.go)
}

// handles maps the ids C holds to open handles. Ids grow and are never
// reused, so closed remembers every id that was closed.
var handles = struct {
	sync.Mutex
	last   uintptr
	open   map[uintptr]*handle
	closed map[uintptr]bool
}{open: map[uintptr]*handle{}, closed: map[uintptr]bool{}}

// register gives h an id.
func register(h *handle) uintptr {
	handles.Lock()
	defer handles.Unlock()
	handles.last++
	handles.open[handles.last] = h
	return handles.last
}

// acquire finds the handle of id and takes it for one call; the caller
// must call h.busy.Unlock when the call is done. It does not wait for a
// call another thread is in.
func acquire(id uintptr) (*handle, error) {
	if id == 0 {
		return nil, failf(errHandle, "NULL loader handle")
	}
	handles.Lock()
	h, wasClosed := handles.open[id], handles.closed[id]
	handles.Unlock()
	switch {
	case wasClosed:
		return nil, failf(errHandle, "loader handle %#x was closed", id)
	case h == nil:
		return nil, failf(errHandle, "%#x is not a loader handle (never opened, or from another process)", id)
	case !h.busy.TryLock():
		return nil, failf(errBusy, "another thread is inside a call on this loader: use a handle from one thread at a time")
	case h.closed: // closed while we looked it up
		h.busy.Unlock()
		return nil, failf(errHandle, "loader handle %#x was closed", id)
	}
	return h, nil
}

// next reads the learner's next batch into the handle's views. At the end
// of each epoch it returns statusEndOfEpoch, after the last statusDone. A
// failure sticks: later calls return it again.
func (h *handle) next() (int, error) {
	h.views.release()
	switch {
	case h.failed != nil:
		return 0, h.failed
	case h.ended >= h.epochs:
		return statusDone, nil
	}
	b, err := h.src.Next(context.Background())
	if errors.Is(err, io.EOF) {
		h.ended++
		return statusEndOfEpoch, nil
	}
	if err == nil {
		err = h.views.fill(b)
	}
	if err != nil {
		h.failed = withPath(h.path, err)
		return 0, h.failed
	}
	return statusOK, nil
}

// close closes the source and forgets the handle; h is acquired.
func (h *handle) close(id uintptr) error {
	h.closed = true
	handles.Lock()
	delete(handles.open, id)
	handles.closed[id] = true
	handles.Unlock()
	h.views.free()
	return withPath(h.path, h.src.Close())
}

// closeHandle closes the handle of id.
func closeHandle(id uintptr) error {
	h, err := acquire(id)
	if err != nil {
		return err
	}
	defer h.busy.Unlock()
	return h.close(id)
}

// closeAll closes every open handle, for lmdbio_finalize. It fails, closing
// nothing more, at a handle another thread is using.
func closeAll() error {
	handles.Lock()
	ids := make([]uintptr, 0, len(handles.open))
	for id := range handles.open {
		ids = append(ids, id)
	}
	handles.Unlock()
	slices.Sort(ids) // the same order on every rank: closing is collective
	var first error
	for _, id := range ids {
		err := closeHandle(id)
		if statusOf(err) == errBusy {
			return failf(errBusy, "lmdbio_finalize while another thread is inside a call on a loader")
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// withPath puts the dataset's path in front of an error: "PATH: what is
// wrong", as lmdbio's commands say it (an empty path, which the error
// names, is left out).
func withPath(path string, err error) error {
	if err == nil || path == "" {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
