package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/pkg/failure"
	"golang.org/x/sys/unix"
)

// helloTimeout bounds how long Accept waits for the Hello of one connection,
// so a stray connection that never speaks cannot hold up the others.
const helloTimeout = 5 * time.Second

// longAgo is a deadline in the past: setting it wakes a blocked call at once.
var longAgo = time.Unix(1, 0)

// Server is the node leader's end of the handoff: one connection per local
// learner, local ranks 0..learners-1.
//
// Send and Fail are safe for concurrent use. Accept and Close are called by
// the owner: Accept (again after a timeout, if wanted) until it succeeds,
// before any Send.
type Server struct {
	ln       *net.UnixListener
	name     string
	learners int
	peers    []*peer // by local rank; all set once Accept returns nil
	accepted bool    // Accept succeeded and started the readers

	releases chan Release
	byes     chan int
	errs     chan error
	done     chan struct{} // closed by Close
	stopping atomic.Bool   // set by Close and Fail: ends are expected from now on
	wg       sync.WaitGroup
	once     sync.Once
}

// peer is the server's view of one learner's connection.
type peer struct {
	local int
	pid   int
	conn  *net.UnixConn
	fr    *frameReader

	wmu  sync.Mutex // keeps each frame whole when Sends race
	wbuf []byte

	bye     atomic.Bool   // the learner said Bye: it reads no more
	failure error         // what the learner said failed it (Fail); set before ended closes
	ended   chan struct{} // closed when the connection's read loop has ended
}

// Listen starts listening on name (normally SocketName(...); a name starting
// with '@' is in the abstract namespace) for learners local ranks.
func Listen(name string, learners int) (*Server, error) {
	if learners < 1 {
		return nil, fmt.Errorf("ring: listen %s: %d learners, need at least 1", name, learners)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("ring: listen %s: another node reader already listens on this name: %w", name, err)
		}
		return nil, fmt.Errorf("ring: listen %s: %w", name, err)
	}
	return &Server{
		ln:       ln,
		name:     name,
		learners: learners,
		peers:    make([]*peer, learners),
		// Each connection ends with at most one error, so this never blocks.
		errs:     make(chan error, learners),
		releases: make(chan Release, 4*learners),
		byes:     make(chan int, learners),
		done:     make(chan struct{}),
	}, nil
}

// Name returns the socket name the server listens on.
func (s *Server) Name() string { return s.name }

// Accept waits until every local rank 0..learners-1 has connected and said
// Hello, or until timeout or ctx ends. Connections with a rank out of range,
// a rank already taken, another user's uid, or no Hello are refused (sent
// Fail, closed) and Accept goes on waiting. On timeout the error names the
// ranks still missing and any refusals; the learners that did connect stay
// connected, so the caller can tell them with Fail, or call Accept again to
// keep waiting. Once Accept succeeds, Releases and Errors start delivering.
func (s *Server) Accept(ctx context.Context, timeout time.Duration) error {
	if s.accepted {
		panic("ring: Server.Accept called after it succeeded")
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := s.ln.SetDeadline(deadline); err != nil {
		return fmt.Errorf("ring: accept on %s: %w", s.name, err)
	}
	// On cancellation, wake whatever Accept is blocked in: the listener or
	// the connection whose Hello it is reading. Registered after the
	// SetDeadline above so that it cannot be overwritten by it.
	var mu sync.Mutex
	var current *net.UnixConn
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		s.ln.SetDeadline(longAgo)
		if current != nil {
			current.SetReadDeadline(longAgo)
		}
	})
	defer stop()

	var refused []string
	for s.connected() < s.learners {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("ring: accept on %s: %w", s.name, ctx.Err())
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return s.missingError(timeout, refused)
			}
			return fmt.Errorf("ring: accept on %s: %w", s.name, err)
		}
		helloBy := time.Now().Add(helloTimeout)
		if deadline.Before(helloBy) {
			helloBy = deadline
		}
		mu.Lock()
		current = c
		c.SetReadDeadline(helloBy)
		if ctx.Err() != nil {
			c.SetReadDeadline(longAgo) // cancelled before current was set
		}
		mu.Unlock()
		p, why := s.greet(c)
		mu.Lock()
		current = nil
		mu.Unlock()
		if why != "" {
			refused = append(refused, why)
			s.refuse(c, why)
			continue
		}
		c.SetReadDeadline(time.Time{})
		s.peers[p.local] = p
	}
	s.accepted = true
	for _, p := range s.peers {
		s.wg.Add(1)
		go s.readLoop(p)
	}
	return nil
}

// connected counts the learners that said Hello.
func (s *Server) connected() int {
	n := 0
	for _, p := range s.peers {
		if p != nil {
			n++
		}
	}
	return n
}

// greet reads a new connection's Hello and checks it. why is empty when the
// connection is accepted, else it says why not.
func (s *Server) greet(c *net.UnixConn) (p *peer, why string) {
	credPid, uid, haveCred := peerCred(c)
	if haveCred && uid != os.Getuid() && uid != 0 {
		return nil, fmt.Sprintf("pid %d of uid %d (not ours)", credPid, uid)
	}
	fr := newFrameReader(c)
	m, err := fr.next()
	if err != nil {
		return nil, fmt.Sprintf("pid %d sent no Hello (%v)", credPid, err)
	}
	h, ok := m.(Hello)
	if !ok {
		return nil, fmt.Sprintf("pid %d sent %v before Hello", credPid, m.Type())
	}
	switch {
	case int64(h.LocalRank) >= int64(s.learners):
		return nil, fmt.Sprintf("pid %d says local rank %d, but this node has %d learners (ranks 0..%d)",
			h.Pid, h.LocalRank, s.learners, s.learners-1)
	case s.peers[h.LocalRank] != nil:
		return nil, fmt.Sprintf("pid %d says local rank %d, already taken by pid %d",
			h.Pid, h.LocalRank, s.peers[h.LocalRank].pid)
	}
	return &peer{local: int(h.LocalRank), pid: int(h.Pid), conn: c, fr: fr, ended: make(chan struct{})}, ""
}

// refuse tells the peer why it is turned away, best effort, and hangs up.
func (s *Server) refuse(c *net.UnixConn, why string) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	if b, err := Encode(nil, Fail{Msg: truncate("node reader refused the connection: " + why)}); err == nil {
		c.Write(b)
	}
	c.Close()
}

func (s *Server) missingError(timeout time.Duration, refused []string) error {
	var missing []string
	for r, p := range s.peers {
		if p == nil {
			missing = append(missing, fmt.Sprint(r))
		}
	}
	msg := fmt.Sprintf("ring: accept on %s: after %v, local ranks %s of %d never connected",
		s.name, timeout, strings.Join(missing, ","), s.learners)
	if len(refused) > 0 {
		msg += "; refused: " + strings.Join(refused, "; ")
	}
	return errors.New(msg)
}

// readLoop delivers one learner's Releases and reports how its connection
// ended.
func (s *Server) readLoop(p *peer) {
	defer s.wg.Done()
	defer close(p.ended)
	for {
		m, err := p.fr.next()
		if err != nil {
			s.report(p, err)
			return
		}
		switch m := m.(type) {
		case Release:
			m.Learner = p.local
			select {
			case s.releases <- m:
			case <-s.done:
				return
			}
		case Bye:
			// A clean close. Anything after Bye, even an abrupt end, is no
			// longer the learner's failure.
			p.bye.Store(true)
			s.byes <- p.local
			return
		case Fail:
			p.failure = classErrorf(ErrPeerFailed, "ring: learner %d (pid %d) failed: %s", p.local, p.pid, m.Msg)
			s.errs <- p.failure
			return
		default:
			s.errs <- classErrorf(ErrProtocol, "ring: learner %d (pid %d) sent %v", p.local, p.pid, m.Type())
			return
		}
	}
}

// report turns the end of a learner's connection into an error on Errors,
// unless the server itself is shutting down.
func (s *Server) report(p *peer, err error) {
	if s.stopping.Load() {
		return
	}
	if isGone(err) {
		s.errs <- classErrorf(ErrPeerGone, "ring: learner %d (pid %d) went away without Bye (crashed or killed?)", p.local, p.pid)
		return
	}
	s.errs <- fmt.Errorf("ring: learner %d (pid %d): %w", p.local, p.pid, err)
}

// Send sends m to the learner with local rank local. It blocks while the
// socket buffer is full (the learner is not reading); a dead learner makes it
// fail at once with ErrPeerGone. local out of range is a programming error
// and panics.
func (s *Server) Send(local int, m Message) error {
	if local < 0 || local >= s.learners {
		panic(fmt.Sprintf("ring: Send to local rank %d of %d", local, s.learners))
	}
	p := s.peers[local]
	if p == nil {
		return fmt.Errorf("ring: send %v to learner %d: not connected (Accept has not succeeded)", m.Type(), local)
	}
	return p.send(m)
}

func (p *peer) send(m Message) error {
	if p.bye.Load() {
		return classErrorf(ErrPeerClosed, "ring: send %v to learner %d: it closed", m.Type(), p.local)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	b, err := Encode(p.wbuf[:0], m)
	if err != nil {
		return fmt.Errorf("ring: send to learner %d: %w", p.local, err)
	}
	p.wbuf = b
	if _, err := p.conn.Write(b); err != nil {
		if p.saidBye() {
			return classErrorf(ErrPeerClosed, "ring: send %v to learner %d: it closed", m.Type(), p.local)
		}
		if isEnded(p.ended) && p.failure != nil {
			return p.failure // why it went away, said before it did
		}
		if isGone(err) {
			return classErrorf(ErrPeerGone, "ring: send %v to learner %d (pid %d): the learner went away (%v)", m.Type(), p.local, p.pid, err)
		}
		return fmt.Errorf("ring: send %v to learner %d (pid %d): %w", m.Type(), p.local, p.pid, err)
	}
	return nil
}

// Welcome sends learner local its Welcome with files attached (SCM_RIGHTS),
// the first message after Accept. The learner gets duplicates of the
// descriptors; the caller keeps its own.
func (s *Server) Welcome(local int, m Welcome, files []*os.File) error {
	if local < 0 || local >= s.learners {
		panic(fmt.Sprintf("ring: Welcome to local rank %d of %d", local, s.learners))
	}
	if len(files) > maxFiles {
		return fmt.Errorf("ring: welcome with %d files, at most %d", len(files), maxFiles)
	}
	p := s.peers[local]
	if p == nil {
		return fmt.Errorf("ring: welcome learner %d: not connected (Accept has not succeeded)", local)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	b, err := Encode(p.wbuf[:0], m)
	if err != nil {
		return fmt.Errorf("ring: welcome learner %d: %w", local, err)
	}
	p.wbuf = b
	n, _, err := p.conn.WriteMsgUnix(b, unix.UnixRights(fds...), nil)
	if err == nil && n < len(b) {
		_, err = p.conn.Write(b[n:])
	}
	runtime.KeepAlive(files)
	if err != nil {
		return fmt.Errorf("ring: welcome learner %d (pid %d): %w", local, p.pid, err)
	}
	return nil
}

// WaitLearners waits until every learner's connection has ended, with Bye or
// otherwise, so the node leader knows nobody reads the arena any more. Ends
// without Bye are reported on Errors as usual; whoever waits here must keep
// draining Releases and Errors. It returns ctx's error if learners are still
// connected when ctx ends.
func (s *Server) WaitLearners(ctx context.Context) error {
	ended := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("ring: learners of %s still connected: %s: %w", s.name, strings.Join(s.stillConnected(), ", "), ctx.Err())
	}
}

// stillConnected names the learners whose connection has not ended, by
// local rank and pid: who a Close that times out waited for.
func (s *Server) stillConnected() []string {
	var names []string
	for _, p := range s.peers {
		if p != nil && !isEnded(p.ended) {
			names = append(names, fmt.Sprintf("local rank %d (pid %d)", p.local, p.pid))
		}
	}
	return names
}

// saidBye reports whether the learner closed cleanly, after a failed write:
// its Bye may still be on the way to the read loop, so give that a moment.
func (p *peer) saidBye() bool {
	select {
	case <-p.ended:
	case <-time.After(time.Second):
	}
	return p.bye.Load()
}

// isEnded reports whether ch is closed.
func isEnded(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Byes delivers the local rank of every learner that closes cleanly, once
// each. It is closed by Close.
func (s *Server) Byes() <-chan int { return s.byes }

// Releases delivers the learners' Release messages, with Learner set to the
// sender's local rank. It is closed by Close.
func (s *Server) Releases() <-chan Release { return s.releases }

// Errors delivers one error per learner connection that ended badly: without
// Bye (the learner crashed or was killed), with Fail, or with a protocol
// violation. It is closed by Close.
func (s *Server) Errors() <-chan error { return s.errs }

// Fail sends Fail{msg, kind} to every connected learner, so that each
// of them stops with msg instead of waiting, and from then on treats
// connections that end as expected. msg is cut to MaxFailMsg bytes. It
// returns the learners it could not tell.
func (s *Server) Fail(msg string, kind failure.Kind) error {
	s.stopping.Store(true)
	var errs []error
	for _, p := range s.peers {
		if p != nil {
			if err := p.send(Fail{Msg: truncate(msg), Kind: kind}); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Close stops listening, closes every connection (learners see the node
// reader go away unless Fail came first), waits for the reading goroutines
// and closes Releases and Errors. It may be called more than once.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		s.stopping.Store(true)
		close(s.done)
		err = s.ln.Close()
		s.closePeers()
		s.wg.Wait()
		close(s.releases)
		close(s.byes)
		close(s.errs)
	})
	if err != nil {
		return fmt.Errorf("ring: close %s: %w", s.name, err)
	}
	return nil
}

func (s *Server) closePeers() {
	for _, p := range s.peers {
		if p != nil {
			p.conn.Close()
		}
	}
}

// isGone reports whether err means the other end of the connection is gone.
func isGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// truncate cuts msg to MaxFailMsg bytes so that Encode accepts it.
func truncate(msg string) string {
	if len(msg) <= MaxFailMsg {
		return msg
	}
	return msg[:MaxFailMsg-3] + "..."
}
