package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// fakeNet is an in-process stand-in for a communicator: one mailbox per
// (source, destination) pair, delivered in order like MPI messages.
type fakeNet struct {
	size  int
	boxes map[[2]int]chan []byte
	sent  atomic.Int64
}

func newFakeNet(size int) *fakeNet {
	n := &fakeNet{size: size, boxes: map[[2]int]chan []byte{}}
	for s := range size {
		for d := range size {
			n.boxes[[2]int{s, d}] = make(chan []byte, 64)
		}
	}
	return n
}

// fakeLink is one rank's view of a fakeNet.
type fakeLink struct {
	net  *fakeNet
	rank int
}

func (l fakeLink) Rank() int { return l.rank }
func (l fakeLink) Size() int { return l.net.size }

func (l fakeLink) Send(buf []byte, dest, tag int) error {
	if tag != StaggerTag {
		return fmt.Errorf("tag %d", tag)
	}
	l.net.sent.Add(1)
	l.net.boxes[[2]int{l.rank, dest}] <- append([]byte(nil), buf...)
	return nil
}

func (l fakeLink) Recv(buf []byte, source, tag int) (mpi.Status, error) {
	m := <-l.net.boxes[[2]int{source, l.rank}]
	if len(m) > len(buf) {
		return mpi.Status{}, errors.New("truncated")
	}
	return mpi.Status{Source: source, Tag: tag, Count: copy(buf, m)}, nil
}

// interval is one reader's turn at one window, in a global event order.
type interval struct{ start, end int64 }

// runStagger runs size readers through windows windows with group G and
// returns each turn's interval, on a clock that ticks once per event.
func runStagger(t *testing.T, size, group, windows int) ([][]interval, *fakeNet) {
	t.Helper()
	net := newFakeNet(size)
	var clock atomic.Int64
	turns := make([][]interval, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			s := newStagger(fakeLink{net, r}, group)
			for w := range windows {
				if err := s.Acquire(w); err != nil {
					t.Error(err)
					return
				}
				start := clock.Add(1)
				end := clock.Add(1)
				turns[r] = append(turns[r], interval{start, end})
				if err := s.Release(w); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return turns, net
}

// checkWaves verifies the stagger's promises on measured turns: reader r's
// window w starts after reader r-G's ended; the first reader of a column
// starts window w+1 after the column's last reader ended window w; and at
// no moment do more than G readers read. It is shared with the MPI test.
func checkWaves(turns [][]interval, group int) error {
	size := len(turns)
	if group <= 0 || group >= size {
		return nil
	}
	var errs []error
	for r := range size {
		for w, cur := range turns[r] {
			if r >= group {
				if prev := turns[r-group][w]; cur.start < prev.end {
					errs = append(errs, fmt.Errorf("reader %d window %d started at %d, before reader %d ended it at %d", r, w, cur.start, r-group, prev.end))
				}
			} else if w > 0 {
				last := r + (size-1-r)/group*group
				if prev := turns[last][w-1]; cur.start < prev.end {
					errs = append(errs, fmt.Errorf("reader %d started window %d at %d, before reader %d ended window %d at %d", r, w, cur.start, last, w-1, prev.end))
				}
			}
		}
	}
	for r := range size {
		for _, cur := range turns[r] {
			// Readers reading at cur.start (intervals are half-open).
			active := 0
			for q := range size {
				for _, o := range turns[q] {
					if o.start <= cur.start && cur.start < o.end {
						active++
					}
				}
			}
			if active > group {
				errs = append(errs, fmt.Errorf("%d readers read at once at %d, group is %d", active, cur.start, group))
			}
		}
	}
	return errors.Join(errs...)
}

func TestStaggerWaves(t *testing.T) {
	const windows = 4
	for size := 1; size <= 8; size++ {
		for group := -1; group <= size+1; group++ {
			t.Run(fmt.Sprintf("size=%d/group=%d", size, group), func(t *testing.T) {
				turns, net := runStagger(t, size, group, windows)
				if err := checkWaves(turns, group); err != nil {
					t.Fatal(err)
				}
				enabled := group > 0 && group < size
				if !enabled && net.sent.Load() != 0 {
					t.Fatalf("disabled stagger sent %d messages", net.sent.Load())
				}
				// Every token was received within its window.
				for k, box := range net.boxes {
					if len(box) != 0 {
						t.Fatalf("%d tokens left in flight from %d to %d", len(box), k[0], k[1])
					}
				}
			})
		}
	}
}

// TestCheckWavesCanFail: the checker rejects turns that break the rules.
func TestCheckWavesCanFail(t *testing.T) {
	together := [][]interval{{{1, 10}}, {{2, 11}}, {{3, 12}}}
	if checkWaves(together, 1) == nil {
		t.Fatal("overlapping turns accepted")
	}
	early := [][]interval{{{1, 2}, {3, 4}}, {{3, 5}, {6, 7}}} // reader 0 starts window 1 before reader 1 ends window 0
	if checkWaves(early, 1) == nil {
		t.Fatal("a column running ahead was accepted")
	}
}

func TestStaggerProtocolErrors(t *testing.T) {
	tests := []struct {
		name  string
		token []byte
	}{
		{"wrong-window", binary.LittleEndian.AppendUint64(nil, 5)},
		{"short", []byte{0, 0, 0, 0}},
		{"long", make([]byte, 12)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net := newFakeNet(2)
			net.boxes[[2]int{0, 1}] <- tc.token
			s := newStagger(fakeLink{net, 1}, 1)
			if err := s.Acquire(0); !errors.Is(err, ErrProtocol) {
				t.Fatalf("Acquire = %v, want ErrProtocol", err)
			}
		})
	}
}

func TestStaggerMisuse(t *testing.T) {
	tests := []struct {
		name string
		use  func(s *Stagger)
	}{
		{"acquire-out-of-order", func(s *Stagger) { s.Acquire(1) }},
		{"acquire-twice", func(s *Stagger) { s.Acquire(0); s.Acquire(1) }},
		{"release-without-acquire", func(s *Stagger) { s.Release(0) }},
		{"release-other-window", func(s *Stagger) { s.Acquire(0); s.Release(1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.use(newStagger(fakeLink{newFakeNet(1), 0}, 1))
		})
	}
}

// TestStaggerAbandon: reader 1 of 3 (one column) stops after window 0; the
// others still get through every window instead of waiting for its tokens.
func TestStaggerAbandon(t *testing.T) {
	const windows = 5
	for _, stopper := range []int{0, 1, 2} {
		net := newFakeNet(3)
		errs := make(chan error, 3)
		var wg sync.WaitGroup
		for r := range 3 {
			wg.Go(func() {
				s := newStagger(fakeLink{net, r}, 1)
				for w := range windows {
					if r == stopper && w == 1 {
						errs <- s.Abandon(windows)
						return
					}
					if err := s.Acquire(w); err != nil {
						errs <- err
						return
					}
					if err := s.Release(w); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("reader %d stopping early left the others waiting", stopper)
		}
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("reader %d stopped: %v", stopper, err)
			}
		}
	}
}

// stoppedLink sends nowhere and receives nothing: every wait is cut short.
type stoppedLink struct{ rank, size int }

func (l stoppedLink) Rank() int                   { return l.rank }
func (l stoppedLink) Size() int                   { return l.size }
func (l stoppedLink) Send([]byte, int, int) error { return nil }
func (l stoppedLink) Recv([]byte, int, int) (mpi.Status, error) {
	return mpi.Status{}, ErrStopped
}

// TestStaggerStoppedWaitIsNotFinished: the first reader of a column stopped
// while it waits for the last window's wrap-around token has been through
// every window, but that token is still to come: the stagger must not count
// as finished, or its communicator would be freed under the token.
func TestStaggerStoppedWaitIsNotFinished(t *testing.T) {
	s := newStagger(stoppedLink{0, 2}, 1)
	if err := s.Acquire(0); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(0); !errors.Is(err, ErrStopped) {
		t.Fatalf("Release: %v, want ErrStopped", err)
	}
	if err := s.Abandon(1); err != nil {
		t.Fatal(err)
	}
	if s.Finished() {
		t.Error("Finished after a cut-short wait for a token")
	}
	done := newStagger(fakeLink{newFakeNet(1), 0}, 1)
	_ = done.Acquire(0)
	_ = done.Release(0)
	if !done.Finished() {
		t.Error("a stagger through every window is not Finished")
	}
}

// TestStaggerDropsStaleTokens: a token left in flight by an earlier stagger
// (another generation) must not be taken for the current one's.
func TestStaggerDropsStaleTokens(t *testing.T) {
	net := newFakeNet(2)
	old := newStagger(fakeLink{net, 0}, 1)
	old.gen = 4
	if err := old.Abandon(3); err != nil { // tokens of windows 0..2, generation 4
		t.Fatal(err)
	}
	s0, s1 := newStagger(fakeLink{net, 0}, 1), newStagger(fakeLink{net, 1}, 1)
	s0.gen, s1.gen = 5, 5
	done := make(chan error, 1)
	go func() {
		if err := s1.Acquire(0); err != nil {
			done <- err
			return
		}
		done <- s1.Release(0)
	}()
	if err := s0.Acquire(0); err != nil {
		t.Fatal(err)
	}
	if err := s0.Release(0); err != nil {
		t.Fatalf("first reader: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("second reader took a stale token: %v", err)
	}
}
