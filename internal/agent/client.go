package agent

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// dialTimeout bounds the connection and the Hello: the agent answers it at
// once, whatever the other learners do.
const dialTimeout = 30 * time.Second

// Client is a learner's connection to its agent. Its calls may come from
// several goroutines; they take turns, as the agent answers one call of a
// learner at a time.
type Client struct {
	mu     sync.Mutex // one call at a time: its request, then its reply
	wmu    sync.Mutex // one frame at a time: a call's, or a notice
	conn   *net.UnixConn
	in     *bufio.Reader
	topo   Topology
	socket string
	closed bool
	err    error // the connection's failure: every later call returns it
}

// Dial connects learner local of its node to the agent listening on socket
// and says Hello.
func Dial(socket string, local int) (*Client, error) {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.Dial("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the lmdbio agent of this node at %s (%s): %w", socket, AgentSocketEnv, err)
	}
	c := &Client{conn: conn.(*net.UnixConn), in: bufio.NewReader(conn), socket: socket}
	c.conn.SetDeadline(time.Now().Add(dialTimeout))
	r, err := c.call(Request{Op: OpHello, Version: ProtocolVersion, Local: local, Pid: os.Getpid()})
	if err != nil {
		c.conn.Close()
		return nil, err
	}
	c.conn.SetDeadline(time.Time{})
	c.topo = *r.Topology
	return c, nil
}

// Topology is where the learner stands in the job.
func (c *Client) Topology() Topology { return c.topo }

// Open asks the agents to serve path to every learner: it returns the
// node reader's socket once every learner of the job asked the same, and
// the session's number, which Closed takes. options is in loaderopts'
// canonical form; refused, when not nil, is the learner's own objection to
// them, which every learner then gets.
func (c *Client) Open(path, options string, refused *Error) (socket string, session uint64, err error) {
	r, err := c.call(Request{Op: OpOpen, Path: path, Options: options, Refused: refused})
	if err != nil {
		return "", 0, err
	}
	return r.Socket, r.Session, nil
}

// Closed tells the agent that the learner closed its loader of session (or
// never attached to it): a learner that exits with a loader open left in
// the middle of the run. It does not wait for an answer.
func (c *Client) Closed(session uint64) error {
	b, err := AppendFrame(nil, Request{Op: OpClosed, Session: session})
	if err != nil {
		return err
	}
	return c.write(b)
}

// AllreduceSum replaces values by their sums over every learner of the
// job, modulo 2^64. Every learner passes as many values.
func (c *Client) AllreduceSum(values []uint64) error {
	// Every learner cuts its values alike: one call per MaxValues, and one
	// call for none at all.
	for first := true; first || len(values) > 0; first = false {
		n := min(len(values), MaxValues)
		r, err := c.call(Request{Op: OpAllreduce, Values: values[:n]})
		if err != nil {
			return err
		}
		if len(r.Values) != n {
			return fmt.Errorf("%w: %d sums for %d values", ErrProtocol, len(r.Values), n)
		}
		copy(values, r.Values)
		values = values[n:]
	}
	return nil
}

// Close ends the connection: the learner makes no more calls.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.conn.Close()
}

// call sends one request and waits for its reply, however long the other
// learners take to make the same call.
func (c *Client) call(req Request) (Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return Reply{}, errors.New("agent: the connection to the agent was closed")
	case c.err != nil:
		return Reply{}, c.err
	}
	b, err := AppendFrame(nil, req)
	if err != nil {
		return Reply{}, err
	}
	if err = c.write(b); err == nil {
		if b, err = ReadFrame(c.in); err == nil {
			var r Reply
			if r, err = DecodeReply(b, req.Op); err == nil {
				if r.Error != nil {
					return Reply{}, r.Error
				}
				return r, nil
			}
		}
	}
	c.err = c.gone(err)
	return Reply{}, c.err
}

func (c *Client) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.conn.Write(b)
	return err
}

// gone says that the agent went away, or what else broke the connection.
func (c *Client) gone(err error) error {
	if errors.Is(err, ErrProtocol) {
		return err
	}
	who := "the lmdbio agent of this node"
	if c.topo.AgentPid != 0 {
		who = fmt.Sprintf("the lmdbio agent of node %d (pid %d)", c.topo.Node, c.topo.AgentPid)
	}
	return fmt.Errorf("%s has gone (it died, or the job is ending): %w", who, err)
}
