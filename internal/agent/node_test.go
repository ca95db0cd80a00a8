package agent

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// exchanges returns the Exchange of each of n in-process agents: an
// allgather through a goroutine that collects a round's n proposals before
// it hands any out.
func exchanges(n int) []func([]byte) ([][]byte, error) {
	type msg struct {
		node  int
		b     []byte
		reply chan [][]byte
	}
	in := make(chan msg)
	go func() {
		for {
			all := make([][]byte, n)
			replies := make([]chan [][]byte, n)
			for range n {
				m := <-in
				all[m.node], replies[m.node] = m.b, m.reply
			}
			for _, r := range replies {
				r <- all
			}
		}
	}()
	out := make([]func([]byte) ([][]byte, error), n)
	for node := range n {
		out[node] = func(b []byte) ([][]byte, error) {
			reply := make(chan [][]byte, 1)
			in <- msg{node, b, reply}
			return <-reply, nil
		}
	}
	return out
}

// fakeSession records what the Node does with it.
type fakeSession struct {
	mu               sync.Mutex
	path             string
	opt              loader.Options
	started, closed  bool
	startErr, endErr error
}

func (s *fakeSession) Socket() string { return "@fake." + s.path }
func (s *fakeSession) Start(time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	return s.startErr
}
func (s *fakeSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.endErr
}

// cluster is nodes in-process agents of learners learners each.
type cluster struct {
	t         *testing.T
	learners  int
	listeners []*Listener
	nodes     []*Node
	runErrs   chan error
	mu        sync.Mutex
	sessions  []*fakeSession
	serveErr  error
	endErr    error
	failures  []string
}

func newCluster(t *testing.T, nodes, learners int) *cluster {
	c := &cluster{t: t, learners: learners, runErrs: make(chan error, nodes)}
	ex := exchanges(nodes)
	job := fmt.Sprintf("test%d.%d", os.Getpid(), time.Now().UnixNano())
	for node := range nodes {
		l, err := Listen(SocketName(job, node, os.Getpid()), node, nodes, learners)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		n := NewNode(Config{Node: node, Nodes: nodes, Learners: learners, Exchange: ex[node], Serve: c.serve,
			AttachTimeout: time.Second, SessionFailed: c.sessionFailed}, l)
		c.listeners, c.nodes = append(c.listeners, l), append(c.nodes, n)
		go func() { c.runErrs <- n.Run() }()
	}
	return c
}

func (c *cluster) serve(path string, opt loader.Options, learners int) (Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.serveErr != nil {
		return nil, c.serveErr
	}
	s := &fakeSession{path: path, opt: opt, endErr: c.endErr}
	c.sessions = append(c.sessions, s)
	return s, nil
}

func (c *cluster) sessionFailed(path string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, path+": "+err.Error())
}

// dial connects every learner; clients are by rank.
func (c *cluster) dial() []*Client {
	var out []*Client
	for node, l := range c.listeners {
		for local := range c.learners {
			cl, err := Dial(l.Name(), local)
			if err != nil {
				c.t.Fatal(err)
			}
			if tp := cl.Topology(); tp.Rank != node*c.learners+local || tp.Size != len(c.listeners)*c.learners || tp.Node != node {
				c.t.Errorf("learner %d of node %d: topology %+v", local, node, tp)
			}
			out = append(out, cl)
		}
	}
	return out
}

// each runs f for every client at once and returns their errors by rank.
func each(clients []*Client, f func(rank int, c *Client) error) []error {
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for r, cl := range clients {
		wg.Go(func() { errs[r] = f(r, cl) })
	}
	wg.Wait()
	return errs
}

// end closes every client, says that every learner exited, and waits for
// every Node to return.
func (c *cluster) end(clients []*Client) {
	for _, cl := range clients {
		cl.Close()
	}
	for _, n := range c.nodes {
		for local := range c.learners {
			n.Exited(local)
		}
	}
	for range c.nodes {
		select {
		case err := <-c.runErrs:
			if err != nil {
				c.t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			c.t.Fatal("a Node did not return after every learner closed")
		}
	}
}

func TestNodeAllreduceAndOpen(t *testing.T) {
	c := newCluster(t, 2, 3)
	clients := c.dial()
	errs := each(clients, func(r int, cl *Client) error {
		v := []uint64{uint64(r), 1, 1 << 63}
		if err := cl.AllreduceSum(v); err != nil {
			return err
		}
		if v[0] != 15 || v[1] != 6 || v[2] != 0 {
			return fmt.Errorf("sums %v", v)
		}
		big := make([]uint64, MaxValues+5) // two calls
		big[len(big)-1] = 2
		if err := cl.AllreduceSum(big); err != nil || big[len(big)-1] != 12 {
			return fmt.Errorf("a long allreduce: %v (last sum %d)", err, big[len(big)-1])
		}
		if err := cl.AllreduceSum(nil); err != nil {
			return err
		}
		for _, path := range []string{"/train", "/val"} {
			s, id, err := cl.Open(path, "batch=8 shuffle=global", nil)
			if err != nil || s != "@fake."+path || id == 0 {
				return fmt.Errorf("open %s: %q (session %d), %v", path, s, id, err)
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	c.end(clients)
	if len(c.sessions) != 4 {
		t.Fatalf("%d sessions served, want 2 per node", len(c.sessions))
	}
	for _, s := range c.sessions {
		if !s.started || !s.closed || s.opt.Batch != 8 {
			t.Errorf("session %s: started %v, closed %v, options %+v", s.path, s.started, s.closed, s.opt)
		}
	}
}

func TestNodeMismatch(t *testing.T) {
	c := newCluster(t, 2, 2)
	clients := c.dial()
	errs := each(clients, func(r int, cl *Client) error {
		if r == 3 {
			_, _, err := cl.Open("/d", "", nil)
			return err
		}
		return cl.AllreduceSum([]uint64{1})
	})
	for r, err := range errs {
		var e *Error
		if !errors.As(err, &e) || e.Kind != failure.Argument || !strings.Contains(e.Message, "node 1: rank 2 calls allreduce, rank 3 calls open") {
			t.Errorf("rank %d: %v, want the mismatch on node 1", r, err)
		}
	}
	// The learners go on to agree on the next call.
	errs = each(clients, func(r int, cl *Client) error { return cl.AllreduceSum([]uint64{1}) })
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d, after the mismatch: %v", r, err)
		}
	}
	c.end(clients)
}

// TestNodeExited: a learner that exits without the call the others make
// fails their calls instead of leaving them waiting.
func TestNodeExited(t *testing.T) {
	c := newCluster(t, 2, 2)
	clients := c.dial()
	clients[1].Close()
	c.nodes[0].Exited(1)
	c.nodes[1].Exited(1) // rank 3 never called anything
	errs := each(clients, func(r int, cl *Client) error {
		if r == 1 || r == 3 {
			return nil
		}
		return cl.AllreduceSum([]uint64{1})
	})
	for r, err := range errs {
		want := "node 0: rank 1 has exited while rank 0 calls allreduce"
		if r == 1 || r == 3 {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("rank %d: %v, want %q", r, err, want)
		}
	}
	c.end(clients)
}

func TestNodeOpenErrors(t *testing.T) {
	c := newCluster(t, 1, 2)
	clients := c.dial()
	c.serveErr = fmt.Errorf("%w: not an LMDB", loader.ErrBadInput)
	errs := each(clients, func(r int, cl *Client) error {
		var refused *Error
		if r == 1 {
			refused = &Error{Kind: failure.Input, Message: "option resume: open s.json: no such file or directory"}
		}
		_, _, err := cl.Open("/d", "", refused)
		return err
	})
	for r, err := range errs {
		var e *Error
		if !errors.As(err, &e) || e.Kind != failure.Input || e.Message != "option resume: open s.json: no such file or directory" {
			t.Errorf("rank %d: %v, want rank 1's objection", r, err)
		}
	}
	errs = each(clients, func(r int, cl *Client) error { _, _, err := cl.Open("/d", "", nil); return err })
	for r, err := range errs {
		var e *Error
		if !errors.As(err, &e) || e.Kind != failure.Input || e.Message != "bad input: not an LMDB" {
			t.Errorf("rank %d: %v, want Serve's error", r, err)
		}
	}
	c.serveErr, c.endErr = nil, errors.New("learner 1 left without closing its loader")
	each(clients, func(r int, cl *Client) error { _, _, err := cl.Open("/e", "", nil); return err })
	c.end(clients)
	if len(c.failures) != 1 || c.failures[0] != "/e: learner 1 left without closing its loader" {
		t.Errorf("failures %q, want the session's", c.failures)
	}
}

func TestListenerRefuses(t *testing.T) {
	c := newCluster(t, 1, 2)
	name := c.listeners[0].Name()
	first, err := Dial(name, 0)
	if err != nil {
		t.Fatal(err)
	}
	for local, want := range map[int]string{2: "local rank 2 (pid", 0: "local rank 0 (pid"} {
		if _, err := Dial(name, local); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("local %d: %v, want %q", local, err, want)
		}
	}
	second, err := Dial(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A learner's next process may connect once the last has closed.
	first.Close()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if first, err = Dial(name, 0); err == nil {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("local rank 0 cannot connect again: %v", err)
		}
	}
	errs := each([]*Client{first, second}, func(_ int, cl *Client) error {
		v := []uint64{1}
		if err := cl.AllreduceSum(v); err != nil || v[0] != 2 {
			return fmt.Errorf("sum %d, %v", v[0], err)
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d after a reconnection: %v", r, err)
		}
	}
	c.end([]*Client{first, second})
	if _, err := Dial(SocketName("none", 0, 1), 0); err == nil || !strings.Contains(err.Error(), "cannot reach the lmdbio agent") {
		t.Errorf("no agent: %v", err)
	}
}

// TestNodeOpenLoaders: the agent knows which learners still have a loader
// of a session: given at open, gone once the learner says it closed it.
func TestNodeOpenLoaders(t *testing.T) {
	c := newCluster(t, 1, 2)
	clients := c.dial()
	ids := make([]uint64, 2)
	each(clients, func(r int, cl *Client) (err error) { _, ids[r], err = cl.Open("/train", "", nil); return err })
	each(clients, func(r int, cl *Client) (err error) { _, _, err = cl.Open("/val", "", nil); return err })
	if err := clients[0].Closed(ids[0]); err != nil {
		t.Fatal(err)
	}
	clients[0].Close() // what it sent before is read before its end
	l := c.listeners[0]
	if got := l.OpenLoaders(0, 5*time.Second); len(got) != 1 || got[0] != "/val" {
		t.Errorf("learner 0 has loaders of %q, want /val", got)
	}
	if got := l.OpenLoaders(1, time.Millisecond); len(got) != 2 {
		t.Errorf("learner 1 has loaders of %q, want /train and /val", got)
	}
	c.end(clients)
}

// TestClientAgentGone: a learner whose agent died gets an error that says
// so from its next call.
func TestClientAgentGone(t *testing.T) {
	c := newCluster(t, 1, 1)
	cl := c.dial()[0]
	c.listeners[0].Close()
	err := cl.AllreduceSum([]uint64{1})
	if err == nil || !strings.Contains(err.Error(), "the lmdbio agent of node 0 (pid") || !strings.Contains(err.Error(), "has gone") {
		t.Errorf("%v, want that the agent has gone", err)
	}
	if err2 := cl.AllreduceSum([]uint64{1}); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("the next call: %v, want the same error", err2)
	}
}
