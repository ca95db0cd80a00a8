package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// StaggerTag is the first MPI tag of stagger tokens: a stagger of
// generation g sends its tokens with tag StaggerTag + g%staggerTags, so the
// staggers of loaders open at once on one communicator never take each
// other's tokens. Nothing else may use these tags on the communicator given
// to NewStagger.
const StaggerTag = 0x5354 // "ST"

// staggerTags is how many tags the staggers take turns on; the last,
// 0x6353, is below 32767, the least tag bound MPI allows.
const staggerTags = 4096

// tokenSize is the size of a token: the window number and the stagger's
// generation, uint64 little endian each.
const tokenSize = 16

// generations numbers the Staggers a process creates. Node readers create
// theirs in the same order (one per loader, collectively), so equal numbers
// mean the same loader; a token of another generation is one that a reader
// which stopped early left in flight, possibly on a communicator whose
// context the MPI library has since reused, and is dropped.
var generations atomic.Uint64

// Stagger makes node readers take turns at storage (LMDBIO's STAG).
//
// The readers (ranks of the node-leader communicator) form G columns: column
// c holds readers c, c+G, c+2G, ..., and reader r is in wave r/G. For each
// window w:
//
//   - reader r >= G waits in Acquire(w) for the token of window w from r-G;
//   - in Release(w), reader r passes the token to r+G; the last reader of a
//     column passes it back to the first, which waits for it in its
//     Release(w) before it may start window w+1.
//
// So within a column one reader reads at a time, across windows too, and at
// most G readers read at once: wave 0 reads window w, then wave 1, and so on,
// and wave 0 reads window w+1 only after the last wave finished window w.
// Every token sent is received within the same window, so nothing is left in
// flight when the readers stop. G <= 0 or G >= size disables staggering:
// Acquire and Release send nothing.
//
// Every reader must call Acquire(w) and Release(w) for the same windows
// 0, 1, 2, ... in that order; a reader with nothing to read in a window still
// calls both (an empty window), or its column waits for it forever. A reader
// that fails leaves the others blocked in MPI: failures end the job with
// mpi.Abort.
//
// A Stagger belongs to one goroutine. Its zero value is not usable: use
// NewStagger.
type Stagger struct {
	link    tokenLink
	rank    int
	size    int
	group   int // 0 when disabled
	next    int // the window Acquire expects
	held    bool
	gen     uint64 // this stagger's generation, in every token
	tag     int    // the tag of its tokens
	stopped bool   // Abandon passed turns on: tokens may still be in flight
	// buf holds a token, with room for a longer message so that one is
	// reported rather than truncated by MPI. It is its own allocation: cgo
	// refuses a pointer into an object that also holds Go pointers.
	buf []byte
}

// tokenLink is the part of *mpi.Comm that Stagger uses; tests replace it.
type tokenLink interface {
	Rank() int
	Size() int
	Send(buf []byte, dest, tag int) error
	Recv(buf []byte, source, tag int) (mpi.Status, error)
}

// NewStagger returns the stagger of this reader. comm is the communicator of
// the node readers (one rank per node); the call is collective over it.
// group is G, the number of readers allowed to read at once. Closing stop
// (nil: never) makes a pending Acquire or Release return ErrStopped, for a
// reader that stops early: the tokens it waits for may then never come.
func NewStagger(comm *mpi.Comm, group int, stop <-chan struct{}) (*Stagger, error) {
	mine, agreed := []int64{int64(NextGeneration())}, make([]int64, 1)
	if err := comm.AllreduceInt64(mine, agreed, mpi.Max); err != nil {
		return nil, fmt.Errorf("reader: stagger: agreeing on the generation: %w", err)
	}
	return NewStaggerAt(comm, group, uint64(agreed[0]), stop), nil
}

// NextGeneration numbers a new stagger of this process. The readers agree
// on the highest number any of them drew, so that a reader that made fewer
// staggers before cannot disagree.
func NextGeneration() uint64 { return generations.Add(1) }

// NewStaggerAt is NewStagger for readers that agreed on gen, the highest
// NextGeneration of any of them, in a collective of their own (one round
// fewer at the start of every loader). It is not collective.
func NewStaggerAt(comm *mpi.Comm, group int, gen uint64, stop <-chan struct{}) *Stagger {
	generations.Store(gen)
	s := newStagger(politeComm{comm, stop}, group)
	s.gen, s.tag = gen, StaggerTag+int(gen%staggerTags)
	return s
}

// ErrStopped is returned by a token wait cut short by the stop channel.
var ErrStopped = errors.New("reader: stagger stopped")

// politeComm receives by polling with growing pauses, so that a reader
// waiting for its turn sleeps instead of spinning a core in the MPI
// library's progress loop: the learners of its node need the cores.
type politeComm struct {
	*mpi.Comm
	stop <-chan struct{}
}

// maxPause bounds the delay polling adds to a token's arrival.
const maxPause = time.Millisecond

func (c politeComm) Recv(buf []byte, source, tag int) (mpi.Status, error) {
	req, err := c.Irecv(buf, source, tag)
	if err != nil {
		return mpi.Status{}, err
	}
	for pause := 10 * time.Microsecond; ; pause = min(2*pause, maxPause) {
		done, err := req.Test()
		if err != nil {
			return mpi.Status{}, err
		}
		if done {
			return req.Wait()
		}
		select {
		case <-c.stop:
			// A cancelled receive must still be completed; if the token
			// came first, it is taken and dropped.
			req.Cancel()
			_, _ = req.Wait()
			return mpi.Status{}, ErrStopped
		case <-time.After(pause):
		}
	}
}

func newStagger(link tokenLink, group int) *Stagger {
	s := &Stagger{link: link, rank: link.Rank(), size: link.Size(), group: group, tag: StaggerTag, buf: make([]byte, 2*tokenSize)}
	if group <= 0 || group >= s.size {
		s.group = 0
	}
	return s
}

// Enabled reports whether readers take turns (1 <= G < size).
func (s *Stagger) Enabled() bool { return s.group > 0 }

// Acquire waits until this reader may read window. It panics if windows are
// not acquired in order 0, 1, 2, ... each after the previous Release.
func (s *Stagger) Acquire(window int) error {
	if s.held || window != s.next {
		panic(fmt.Sprintf("reader: Stagger.Acquire(%d), want Acquire(%d) (held=%v)", window, s.next, s.held))
	}
	s.held = true
	if s.group == 0 || s.rank < s.group {
		// The first reader of a column got its turn in the previous Release.
		return nil
	}
	return s.recv(s.rank-s.group, window)
}

// Release ends this reader's turn at window: the next reader of the column
// may start. The first reader of a column then waits until the whole column
// has read window, which keeps it from starting the next window early. It
// panics if window is not the one last acquired.
func (s *Stagger) Release(window int) error {
	if !s.held || window != s.next {
		panic(fmt.Sprintf("reader: Stagger.Release(%d) without Acquire(%d)", window, window))
	}
	s.held = false
	s.next++
	next, ok := s.successor()
	if !ok {
		return nil // staggering off, or a column of one: nobody to wait for or to wake
	}
	if err := s.send(next, window); err != nil {
		return fmt.Errorf("reader: stagger: pass window %d token to reader %d: %w", window, next, err)
	}
	if first, last := s.column(); s.rank == first {
		return s.recv(last, window)
	}
	return nil
}

// Finished reports whether no token of this stagger can be in flight to or
// from this reader: it went through every window without being stopped,
// and no wait for a token was cut short (the last window's wrap-around
// token too). Only then may the communicator be freed: a token arriving
// for a freed communicator stays in the MPI library, which may later give
// its context to a new communicator.
func (s *Stagger) Finished() bool { return !s.stopped }

// Abandon is for a reader that stops before the end: it passes its turn on
// for every window from the next one up to total-1 without reading, so the
// readers after it in its column (and, for the last reader, the first one
// waiting for its wrap-around token) never wait for it. Call it once the
// reader has stopped calling Acquire and Release; the Stagger is finished
// afterwards.
func (s *Stagger) Abandon(total int) error {
	next, ok := s.successor()
	for w := s.next; ok && w < total; w++ {
		if err := s.send(next, w); err != nil {
			return fmt.Errorf("reader: stagger: pass window %d token to reader %d on stopping: %w", w, next, err)
		}
	}
	if s.next < total || s.held {
		s.stopped = true
	}
	s.next, s.held = max(s.next, total), false
	return nil
}

// successor is the reader this one passes its token to; false when there is
// nobody (staggering off, or a column of one).
func (s *Stagger) successor() (int, bool) {
	if s.group == 0 {
		return 0, false
	}
	first, last := s.column()
	if first == last {
		return 0, false
	}
	if s.rank == last {
		return first, true
	}
	return s.rank + s.group, true
}

// column returns the first and last reader of this reader's column.
func (s *Stagger) column() (first, last int) {
	first = s.rank % s.group
	return first, first + (s.size-1-first)/s.group*s.group
}

// send passes the token of window to reader to.
func (s *Stagger) send(to, window int) error {
	binary.LittleEndian.PutUint64(s.buf, uint64(window))
	binary.LittleEndian.PutUint64(s.buf[8:], s.gen)
	return s.link.Send(s.buf[:tokenSize], to, s.tag)
}

// recv waits for from's token and checks that it is for window. Tokens of
// other generations (see generations) are dropped.
func (s *Stagger) recv(from, window int) error {
	st, err := s.link.Recv(s.buf, from, s.tag)
	for err == nil && st.Count == tokenSize && binary.LittleEndian.Uint64(s.buf[8:]) != s.gen {
		st, err = s.link.Recv(s.buf, from, s.tag)
	}
	if err != nil {
		if errors.Is(err, ErrStopped) {
			// The token may still come, after this reader has gone.
			s.stopped = true
		}
		return fmt.Errorf("reader: stagger: wait for window %d token from reader %d: %w", window, from, err)
	}
	if st.Count != tokenSize {
		return fmt.Errorf("%w: reader %d waiting for window %d got a %d-byte token from reader %d, want %d bytes",
			ErrProtocol, s.rank, window, st.Count, from, tokenSize)
	}
	if got := binary.LittleEndian.Uint64(s.buf); got != uint64(window) {
		return fmt.Errorf("%w: reader %d waiting for window %d got the token of window %d from reader %d (readers disagree on the windows)",
			ErrProtocol, s.rank, window, got, from)
	}
	return nil
}
