package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// helloTimeout bounds how long a new connection may take to say Hello, so
// a stray connection cannot hold a local rank.
const helloTimeout = 10 * time.Second

// SocketName is the agent socket of node node of job, in the abstract
// namespace: nothing on disk, nothing left after a crash.
func SocketName(job string, node, pid int) string { return handoff.SocketName("agent."+job, node, pid) }

// Listener accepts the learners of one node on the agent's socket and
// passes their calls on (to a Node). A local rank has one connection at a
// time; it may connect again once it has closed the last.
type Listener struct {
	ln     *net.UnixListener
	name   string
	node   Topology // this node: Node, Nodes, LocalSize, AgentPid, Host
	events chan event
	mu     sync.Mutex
	conns  map[*learnerConn]bool
	taken  []bool              // local ranks connected now
	now    []*learnerConn      // by local rank: its connection, nil between
	open   []map[uint64]string // by local rank: the sessions it has a loader of, by number
	closed bool
	done   chan struct{}                      // closed by Close: no one takes events any more
	owner  func(pid int) (local int, ok bool) // which learner a process is, if known (SetOwner)

	wg sync.WaitGroup
}

// event is a learner's call, or the end of its connection (req nil).
type event struct {
	conn *learnerConn
	req  Request
	end  bool
	err  error // why the connection ended: nil when the learner closed it
}

// learnerConn is the agent's end of one learner's connection.
type learnerConn struct {
	c     *net.UnixConn
	in    *bufio.Reader
	local int
	pid   int
	mu    sync.Mutex
	ended chan struct{} // closed once every frame it sent has been read
}

// Listen starts accepting the learners of node of nodes, learners of them
// per node, on the socket name.
func Listen(name string, node, nodes, learners int) (*Listener, error) {
	if nodes < 1 || node < 0 || node >= nodes || learners < 1 || learners >= 1<<16 {
		return nil, fmt.Errorf("agent: node %d of %d with %d learners", node, nodes, learners)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("agent: listen on %s: %w", name, err)
	}
	host, _ := os.Hostname()
	l := &Listener{ln: ln, name: name, events: make(chan event, 4*learners), conns: map[*learnerConn]bool{},
		taken: make([]bool, learners), now: make([]*learnerConn, learners), open: make([]map[uint64]string, learners),
		done: make(chan struct{}),
		node: Topology{Node: node, Nodes: nodes, LocalSize: learners, Size: nodes * learners, AgentPid: os.Getpid(), Host: host}}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// SetOwner tells the listener which learner a process belongs to: owner
// gives the local rank whose process pid is (or descends from), ok false
// for a process that is none of them. A connection is then refused when
// the process claims another local rank than its own: two learners that
// claim one LOCAL_RANK, the impostor is refused, whichever connects first,
// never the learner that holds the rank.
func (l *Listener) SetOwner(owner func(pid int) (local int, ok bool)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.owner = owner
}

// Name is the socket's name, for AgentSocketEnv.
func (l *Listener) Name() string { return l.name }

// Close stops accepting and closes every learner's connection.
func (l *Listener) Close() error {
	l.mu.Lock()
	if !l.closed {
		close(l.done)
	}
	l.closed = true
	for c := range l.conns {
		c.c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close()
	l.wg.Wait()
	return err
}

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		l.wg.Add(1)
		go l.serve(c)
	}
}

// serve greets one connection and passes its calls on until it ends.
func (l *Listener) serve(c *net.UnixConn) {
	defer l.wg.Done()
	lc, err := l.greet(c)
	if err != nil {
		if b, e := AppendFrame(nil, Reply{Error: newError(failure.Argument, "agent refused the learner: "+err.Error())}); e == nil {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			c.Write(b)
		}
		c.Close()
		return
	}
	defer l.forget(lc)
	for {
		b, err := ReadFrame(lc.in)
		var req Request
		if err == nil {
			req, err = DecodeRequest(b)
		}
		if err == nil && req.Op == OpHello {
			err = fmt.Errorf("%w: a second hello", ErrProtocol)
		}
		if err == nil && req.Op == OpClosed {
			l.mu.Lock()
			delete(l.open[lc.local], req.Session)
			l.mu.Unlock()
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = nil
			}
			l.send(event{conn: lc, end: true, err: err})
			return
		}
		if !l.send(event{conn: lc, req: req}) {
			return
		}
	}
}

// send passes ev on, unless the Listener is closing.
func (l *Listener) send(ev event) bool {
	select {
	case l.events <- ev:
		return true
	case <-l.done:
		return false
	}
}

// greet reads the connection's Hello, checks it and answers it.
func (l *Listener) greet(c *net.UnixConn) (*learnerConn, error) {
	uid, pid, credOK := peerCred(c)
	if credOK && uid != os.Getuid() && uid != 0 {
		return nil, fmt.Errorf("a process of user %d, not ours", uid)
	}
	c.SetDeadline(time.Now().Add(helloTimeout))
	lc := &learnerConn{c: c, in: bufio.NewReader(c), ended: make(chan struct{})}
	b, err := ReadFrame(lc.in)
	if err != nil {
		return nil, fmt.Errorf("no hello: %w", err)
	}
	req, err := DecodeRequest(b)
	switch {
	case err != nil:
		return nil, err
	case req.Op != OpHello:
		return nil, fmt.Errorf("%s before hello", req.Op)
	case req.Version != ProtocolVersion:
		return nil, fmt.Errorf("the learner's lmdbio speaks agent protocol %d, the agent %d: use one lmdbio build for both", req.Version, ProtocolVersion)
	case req.Local >= l.node.LocalSize:
		return nil, fmt.Errorf("local rank %d (pid %d), but this node has %d learners (LOCAL_RANK 0 to %d)",
			req.Local, req.Pid, l.node.LocalSize, l.node.LocalSize-1)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkOwner(req, pid, credOK); err != nil {
		return nil, err
	}
	switch {
	case l.closed:
		return nil, errors.New("the agent is closing")
	case l.taken[req.Local]:
		return nil, fmt.Errorf("local rank %d (pid %d) is connected already: a learner's processes connect one at a time (LOCAL_RANK changed?)", req.Local, req.Pid)
	}
	t := l.node
	t.Local, t.Rank = req.Local, t.Node*t.LocalSize+req.Local
	lc.local, lc.pid = req.Local, req.Pid
	if err := lc.reply(Reply{Topology: &t}); err != nil {
		return nil, err
	}
	c.SetDeadline(time.Time{})
	l.taken[req.Local] = true
	l.now[req.Local] = lc
	l.conns[lc] = true
	return lc, nil
}

// checkOwner refuses a process that belongs to another learner than the
// local rank it claims (see SetOwner). pid is the peer's, as the kernel
// gave it; without it, or without an owner, the claim stands.
func (l *Listener) checkOwner(req Request, pid int, known bool) error {
	if l.owner == nil || !known {
		return nil
	}
	if local, ok := l.owner(pid); ok && local != req.Local {
		return fmt.Errorf("pid %d, a process of the learner of local rank %d, says it is local rank %d (LOCAL_RANK changed?): the learner of local rank %d keeps it",
			pid, local, req.Local, req.Local)
	}
	return nil
}

func (l *Listener) forget(lc *learnerConn) {
	l.mu.Lock()
	delete(l.conns, lc)
	l.taken[lc.local] = false
	l.now[lc.local] = nil
	l.mu.Unlock()
	lc.c.Close()
	close(lc.ended)
}

// opened records that learner local was given session, of path.
func (l *Listener) opened(local int, session uint64, path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[local] == nil {
		l.open[local] = map[uint64]string{}
	}
	l.open[local][session] = path
}

// OpenLoaders lists the datasets learner local has loaders of: sessions it
// was given and has not said it closed. For a learner that exited, it
// first waits up to wait for its connection to end, so that the notices
// it sent before it exited are read.
func (l *Listener) OpenLoaders(local int, wait time.Duration) []string {
	l.mu.Lock()
	lc := l.now[local]
	l.mu.Unlock()
	if lc != nil {
		select {
		case <-lc.ended:
		case <-time.After(wait):
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var paths []string
	for _, p := range l.open[local] {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// reply sends r on the connection; it fails only if the learner is gone.
func (lc *learnerConn) reply(r Reply) error {
	b, err := AppendFrame(nil, r)
	if err != nil {
		return err
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	_, err = lc.c.Write(b)
	return err
}
