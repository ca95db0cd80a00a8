package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

var nameSeq atomic.Int64

// testName returns a socket name no other test (or test process) uses.
func testName(t testing.TB) string {
	return SocketName("test-"+t.Name(), int(nameSeq.Add(1)), os.Getpid())
}

// testCtx bounds every blocking call in a test, so a bug shows up as a
// failure instead of a hung test binary.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startNode starts a server for n learners and n clients (one per local
// rank, dialled concurrently), and waits until Accept succeeds.
func startNode(t testing.TB, n int) (*Server, []*Client) {
	t.Helper()
	ctx := testCtx(t)
	name := testName(t)
	s, err := Listen(name, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	clients := make([]*Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { clients[r], errs[r] = Dial(ctx, name, r) })
	}
	if err := s.Accept(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("dial rank %d: %v", r, err)
		}
		t.Cleanup(func() { clients[r].Close() })
	}
	return s, clients
}

func TestSocketName(t *testing.T) {
	if got, want := SocketName("123.4", 2, 99), "@lmdbio.123.4.2.99"; got != want {
		t.Fatalf("SocketName = %q, want %q", got, want)
	}
	if got := SocketName("a/b c", 0, 1); got != "@lmdbio.a_b_c.0.1" {
		t.Fatalf("SocketName did not clean the job id: %q", got)
	}
}

func TestMessagesReachEveryLearner(t *testing.T) {
	const learners = 4
	s, clients := startNode(t, learners)
	ctx := testCtx(t)

	var wg sync.WaitGroup
	got := make([][]Message, learners)
	recvErr := make([]error, learners)
	for r, c := range clients {
		wg.Go(func() {
			for {
				m, err := c.Recv(ctx)
				if err != nil {
					recvErr[r] = err
					return
				}
				got[r] = append(got[r], m)
				switch m := m.(type) {
				case Batch:
					if err := c.Release(m.ID); err != nil {
						recvErr[r] = err
						return
					}
				case EndOfEpoch:
					return
				}
			}
		})
	}
	want := make([][]Message, learners)
	for r := range learners {
		for i := range 3 {
			b := Batch{ID: uint64(10*r + i), Epoch: 1, Items: []Item{{Record: int64(r), Offset: int64(4096 * i), Length: 100}}}
			want[r] = append(want[r], b)
		}
		want[r] = append(want[r], EndOfEpoch{Epoch: 1})
	}
	// One goroutine per learner: Send is safe for concurrent use.
	var sendWG sync.WaitGroup
	for r := range learners {
		sendWG.Go(func() {
			for _, m := range want[r] {
				if err := s.Send(r, m); err != nil {
					t.Error(err)
				}
			}
		})
	}
	sendWG.Wait()

	released := map[Release]bool{}
	for range 3 * learners {
		select {
		case rel := <-s.Releases():
			released[rel] = true
		case err := <-s.Errors():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("releases did not arrive")
		}
	}
	wg.Wait()
	for r := range learners {
		if recvErr[r] != nil {
			t.Fatalf("learner %d: %v", r, recvErr[r])
		}
		if !reflect.DeepEqual(got[r], want[r]) {
			t.Fatalf("learner %d got %v, want %v", r, got[r], want[r])
		}
		for i := range 3 {
			if rel := (Release{ID: uint64(10*r + i), Learner: r}); !released[rel] {
				t.Errorf("missing %+v", rel)
			}
		}
	}
	// Clean closes report nothing.
	for _, c := range clients {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for err := range s.Errors() {
		t.Errorf("error after clean close: %v", err)
	}
}

// TestBackpressure: the server keeps at most depth batches outstanding per
// learner and sends the next only when a Release frees a slot; a slow learner
// therefore holds the server back, and nothing is lost or reordered.
func TestBackpressure(t *testing.T) {
	const (
		learners = 2
		depth    = 2
		batches  = 20
	)
	s, clients := startNode(t, learners)
	ctx := testCtx(t)

	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Go(func() {
			var held []uint64
			for next := uint64(0); ; next++ {
				m, err := c.Recv(ctx)
				if err != nil {
					t.Errorf("learner %d: %v", r, err)
					return
				}
				if _, ok := m.(EndOfEpoch); ok {
					break
				}
				b := m.(Batch)
				if b.ID != next {
					t.Errorf("learner %d: batch %d, want %d", r, b.ID, next)
				}
				// Learner 1 holds its batches a while: the slow consumer.
				held = append(held, b.ID)
				if r == 1 {
					time.Sleep(time.Millisecond)
				}
				if len(held) == depth || r == 0 {
					for _, id := range held {
						if err := c.Release(id); err != nil {
							t.Error(err)
						}
					}
					held = held[:0]
				}
			}
			for _, id := range held {
				c.Release(id)
			}
		})
	}

	outstanding := make([]int, learners)
	sent := make([]int, learners)
	maxOut := 0
	for done := 0; done < learners; {
		for r := range learners {
			for sent[r] < batches && outstanding[r] < depth {
				if err := s.Send(r, Batch{ID: uint64(sent[r])}); err != nil {
					t.Fatal(err)
				}
				sent[r]++
				outstanding[r]++
				maxOut = max(maxOut, outstanding[r])
				if sent[r] == batches {
					if err := s.Send(r, EndOfEpoch{}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		select {
		case rel := <-s.Releases():
			outstanding[rel.Learner]--
			if outstanding[rel.Learner] < 0 {
				t.Fatalf("learner %d released more than it got", rel.Learner)
			}
			if sent[rel.Learner] == batches && outstanding[rel.Learner] == 0 {
				done++
			}
		case err := <-s.Errors():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("stuck: sent %v outstanding %v", sent, outstanding)
		}
	}
	wg.Wait()
	if maxOut != depth {
		t.Fatalf("at most %d outstanding, want exactly depth %d", maxOut, depth)
	}
}

func TestLearnerGoneWithoutBye(t *testing.T) {
	s, clients := startNode(t, 3)
	// Learner 2 dies: its socket closes without Bye.
	clients[2].conn.Close()
	select {
	case err := <-s.Errors():
		if !errors.Is(err, ErrPeerGone) {
			t.Fatalf("error %v does not wrap ErrPeerGone", err)
		}
		want := fmt.Sprintf("learner 2 (pid %d)", os.Getpid())
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not name %q", err, want)
		}
	case <-testCtx(t).Done():
		t.Fatal("no error for a learner that went away")
	}
	// Sending to it fails rather than blocks.
	var err error
	for i := 0; err == nil && i < 100; i++ {
		err = s.Send(2, Batch{ID: 1})
	}
	if !errors.Is(err, ErrPeerGone) {
		t.Fatalf("Send to the dead learner: %v, want ErrPeerGone", err)
	}
}

func TestLearnerFail(t *testing.T) {
	s, clients := startNode(t, 2)
	if err := clients[1].Fail("decoder crashed"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.Errors():
		if !errors.Is(err, ErrPeerFailed) || !strings.Contains(err.Error(), "decoder crashed") {
			t.Fatalf("got %v, want ErrPeerFailed with the message", err)
		}
	case <-testCtx(t).Done():
		t.Fatal("no error for a failed learner")
	}
	// It then goes away, as a learner that stops on its failure does:
	// sending to it fails with what it said, not that it went away.
	if err := clients[1].Close(); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; err == nil && i < 100; i++ {
		err = s.Send(1, Batch{ID: 1})
	}
	if !errors.Is(err, ErrPeerFailed) || !strings.Contains(err.Error(), "decoder crashed") {
		t.Fatalf("Send to the learner that failed: %v, want ErrPeerFailed with its message", err)
	}
}

func TestServerGone(t *testing.T) {
	tests := []struct {
		name string
		end  func(s *Server) error
		want error
		text string
	}{
		{"close", func(s *Server) error { return s.Close() }, ErrPeerGone, "went away"},
		{"fail", func(s *Server) error { return s.Fail("out of shared memory", failure.Input) }, ErrPeerFailed, "out of shared memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, clients := startNode(t, 2)
			ctx := testCtx(t)
			errs := make(chan error, len(clients))
			for _, c := range clients {
				go func() {
					_, err := c.Recv(ctx)
					errs <- err
				}()
			}
			if err := tc.end(s); err != nil {
				t.Fatal(err)
			}
			for range clients {
				err := <-errs
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
					t.Fatalf("Recv = %v, want %v containing %q", err, tc.want, tc.text)
				}
				var pf *PeerFailure
				if tc.name == "fail" && (!errors.As(err, &pf) || pf.Kind != failure.Input || failure.KindOf(err) != failure.Input) {
					t.Fatalf("Recv = %v, want a PeerFailure of kind input", err)
				}
				if ctx.Err() != nil {
					t.Fatal("Recv only returned because the test timed out")
				}
			}
			// The error is final.
			if _, err := clients[0].Recv(ctx); !errors.Is(err, tc.want) {
				t.Fatalf("second Recv = %v", err)
			}
		})
	}
}

func TestRecvHonoursContext(t *testing.T) {
	s, clients := startNode(t, 1)
	c := clients[0]

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := c.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Recv with deadline = %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	if _, err := c.Recv(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv cancelled = %v", err)
	}

	// Half a frame arrives, then the deadline: the next Recv completes it.
	b, _ := Encode(nil, Batch{ID: 77, Items: []Item{{Record: 1, Offset: 2, Length: 3}}})
	p := s.peers[0]
	if _, err := p.conn.Write(b[:7]); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := c.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Recv of half a frame = %v", err)
	}
	if _, err := p.conn.Write(b[7:]); err != nil {
		t.Fatal(err)
	}
	m, err := c.Recv(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := m.(Batch); !ok || b.ID != 77 {
		t.Fatalf("got %#v", m)
	}
}

func TestDialWaitsForListener(t *testing.T) {
	ctx := testCtx(t)
	name := testName(t)
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Dial(ctx, name, 0)
		done <- result{c, err}
	}()
	time.Sleep(50 * time.Millisecond) // the learner starts first
	s, err := Listen(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Accept(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.c.Close()
	if r.c.ServerPid() != os.Getpid() {
		t.Errorf("ServerPid = %d, want %d", r.c.ServerPid(), os.Getpid())
	}
}

func TestDialGivesUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Dial(ctx, testName(t), 0)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no node reader listening") {
		t.Fatalf("Dial = %v", err)
	}
}

func TestListenTwice(t *testing.T) {
	name := testName(t)
	s, err := Listen(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Listen(name, 1); err == nil || !strings.Contains(err.Error(), "already listens") {
		t.Fatalf("second Listen = %v", err)
	}
}

func TestAcceptTimeoutNamesMissingRanks(t *testing.T) {
	ctx := testCtx(t)
	name := testName(t)
	s, err := Listen(name, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range []int{0, 2, 4} {
		c, err := Dial(ctx, name, r)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	err = s.Accept(ctx, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "local ranks 1,3 of 5 never connected") {
		t.Fatalf("Accept = %v", err)
	}
	// The connected learners stay; Accept can keep waiting for the rest.
	for _, r := range []int{1, 3} {
		c, err := Dial(ctx, name, r)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if err := s.Accept(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestAcceptRefuses(t *testing.T) {
	tests := []struct {
		name    string
		ranks   []int // dialled in this order; the last is refused
		refusal string
	}{
		{"out-of-range", []int{7}, "local rank 7, but this node has 2 learners"},
		{"duplicate", []int{1, 1}, "local rank 1, already taken"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			name := testName(t)
			s, err := Listen(name, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var clients []*Client
			for _, r := range tc.ranks {
				c, err := Dial(ctx, name, r)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				clients = append(clients, c)
			}
			err = s.Accept(ctx, 300*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("Accept = %v, want a refusal %q", err, tc.refusal)
			}
			// The refused learner is told why.
			_, err = clients[len(clients)-1].Recv(ctx)
			if !errors.Is(err, ErrPeerFailed) || !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("refused learner's Recv = %v", err)
			}
		})
	}
}

func TestAcceptCancelled(t *testing.T) {
	s, err := Listen(testName(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	if err := s.Accept(ctx, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Accept = %v", err)
	}
}

// TestCloseWithSocketCopy: a learner that closes while another process
// holds a copy of its socket (a child forked after Dial, such as a
// DataLoader worker) still ends the connection: a send blocked on the full
// socket, and every later one, fails as to a learner that closed.
func TestCloseWithSocketCopy(t *testing.T) {
	s, clients := startNode(t, 1)
	copyOf, err := clients[0].conn.File() // a duplicate descriptor, as fork leaves one
	if err != nil {
		t.Fatal(err)
	}
	defer copyOf.Close()
	sent := make(chan int, 1)
	done := make(chan error, 1)
	go func() { // the learner reads nothing: the socket fills, and a send blocks
		var err error
		i := 0
		for ; err == nil && i < 1000000; i++ {
			if i == 1 {
				sent <- i
			}
			err = s.Send(0, Batch{ID: uint64(i), Items: make([]Item, 64)})
		}
		done <- err
	}()
	<-sent
	time.Sleep(300 * time.Millisecond) // the socket buffer fills within that
	if err := clients[0].Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrPeerClosed) && !errors.Is(err, ErrPeerGone) {
			t.Fatalf("Send after the learner closed: %v, want ErrPeerClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Send blocked on a learner that closed while its socket had a copy")
	}
}

// TestWaitLearnersNamesThem: a wait for learners that do not close ends
// with an error naming each of them by local rank and pid, and not those
// that closed.
func TestWaitLearnersNamesThem(t *testing.T) {
	s, clients := startNode(t, 3)
	if err := clients[1].Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := s.WaitLearners(ctx)
	pid := os.Getpid()
	want := fmt.Sprintf("still connected: local rank 0 (pid %d), local rank 2 (pid %d): ", pid, pid)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) {
		t.Errorf("WaitLearners: %v, want a deadline error saying %q", err, want)
	}
}
