package handoff

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Client is a learner's end of the handoff. It belongs to one goroutine: Recv,
// Release, Fail and Close must not be called concurrently.
type Client struct {
	conn      *net.UnixConn
	name      string
	local     int
	serverPid int
	fr        *frameReader
	wbuf      []byte
	err       error // sticky: once the stream is broken or the peer failed, every Recv returns it
	closed    bool
}

// Dial connects local rank localRank to the node reader listening on name and
// sends Hello. The node reader may not be listening yet, so a refused or
// missing socket is retried with short sleeps until ctx ends; give ctx a
// deadline, or Dial waits as long as it is not cancelled.
func Dial(ctx context.Context, name string, localRank int) (*Client, error) {
	if localRank < 0 {
		panic(fmt.Sprintf("ring: Dial with local rank %d", localRank))
	}
	addr := &net.UnixAddr{Name: name, Net: "unix"}
	start := time.Now()
	backoff := time.Millisecond
	var conn *net.UnixConn
	for {
		var err error
		conn, err = net.DialUnix("unix", nil, addr)
		if err == nil {
			break
		}
		// ECONNREFUSED/ENOENT: nobody listens yet. EAGAIN: the listen
		// backlog is full while many learners connect at once.
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.EAGAIN) {
			return nil, fmt.Errorf("ring: dial %s: %w", name, err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("ring: dial %s: no node reader listening after %v (%v): %w",
				name, time.Since(start).Round(time.Millisecond), err, ctx.Err())
		case <-t.C:
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
	c := &Client{conn: conn, name: name, local: localRank, fr: newFrameReader(conn)}
	c.serverPid, _, _ = peerCred(conn)
	if err := c.write(Hello{LocalRank: uint32(localRank), Pid: uint32(os.Getpid())}); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// ServerPid returns the node reader's process id, or 0 if unknown.
func (c *Client) ServerPid() int { return c.serverPid }

// Recv waits for the next Batch or EndOfEpoch. It sleeps in read(2) and
// returns early, with ctx's error, when ctx ends; a message cut short by that
// is kept and completed by the next Recv. If the node reader sent Fail, the
// error wraps ErrPeerFailed and carries its message; if it went away without
// Fail, ErrPeerGone. Those two errors, and ErrCorrupt/ErrProtocol, are final:
// every later Recv returns them again.
func (c *Client) Recv(ctx context.Context) (Message, error) {
	m, err := c.read(ctx, c.fr.next)
	if err != nil {
		return nil, err
	}
	switch m := m.(type) {
	case Batch, EndOfEpoch:
		return m, nil
	}
	return nil, c.unexpected(m)
}

// Welcome waits for the node reader's Welcome, the first message after
// Dial, and returns it with the files that came with it (the node's shared
// memory, in segment order). The caller owns the files.
func (c *Client) Welcome(ctx context.Context) (Welcome, []*os.File, error) {
	var files []*os.File
	m, err := c.read(ctx, func() (Message, error) {
		var err error
		files, err = c.fr.fill(c.conn)
		if err != nil {
			return nil, err
		}
		return c.fr.next()
	})
	if err == nil {
		if w, ok := m.(Welcome); ok {
			return w, files, nil
		}
		err = c.unexpected(m)
	}
	for _, f := range files {
		f.Close()
	}
	return Welcome{}, nil, err
}

// read runs next, which reads from the connection, until ctx ends: it sleeps
// in read(2) and returns early, with ctx's error, when ctx ends; a message
// cut short by that is kept and completed by the next call.
func (c *Client) read(ctx context.Context, next func() (Message, error)) (Message, error) {
	if c.err != nil {
		return nil, c.err
	}
	if c.closed {
		return nil, fmt.Errorf("ring: recv: %w", ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ring: recv: %w", err)
	}
	dl, _ := ctx.Deadline() // the zero time clears an earlier deadline
	if err := c.conn.SetReadDeadline(dl); err != nil {
		return nil, fmt.Errorf("ring: recv: %w", err)
	}
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			c.conn.SetReadDeadline(longAgo)
			close(fired)
		})
		defer func() {
			if !stop() {
				// The wake-up has started: let it finish, so it cannot hit
				// the next Recv's deadline.
				<-fired
			}
		}()
	}
	m, err := next()
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Only ctx sets deadlines here; if it was ctx's own deadline,
			// ctx.Done closes in a moment.
			<-ctx.Done()
			return nil, fmt.Errorf("ring: recv: %w", ctx.Err())
		}
		return nil, c.fail(err)
	}
	return m, nil
}

// unexpected records a message a learner must not get where it came as the
// sticky error: Fail carries the node reader's reason.
func (c *Client) unexpected(m Message) error {
	if f, ok := m.(Fail); ok {
		c.err = &PeerFailure{Msg: f.Msg, Kind: f.Kind}
	} else {
		c.err = classErrorf(ErrProtocol, "ring: node reader (pid %d) sent %v to a learner", c.serverPid, m.Type())
	}
	return c.err
}

// fail records a broken stream as the sticky error.
func (c *Client) fail(err error) error {
	if isGone(err) {
		c.err = classErrorf(ErrPeerGone, "ring: node reader (pid %d) went away (%v)", c.serverPid, err)
	} else {
		c.err = fmt.Errorf("ring: recv from node reader (pid %d): %w", c.serverPid, err)
	}
	return c.err
}

// Release tells the node reader that batch id is no longer used: its arena
// bytes may be overwritten, so the learner must not touch them afterwards.
func (c *Client) Release(id uint64) error { return c.write(Release{ID: id}) }

// Fail tells the node reader that this learner failed, and why (cut to
// MaxFailMsg bytes). The node reader reports it on Server.Errors.
func (c *Client) Fail(msg string) error { return c.write(Fail{Msg: truncate(msg)}) }

func (c *Client) write(m Message) error {
	if c.closed {
		return fmt.Errorf("ring: send %v: %w", m.Type(), ErrClosed)
	}
	b, err := Encode(c.wbuf[:0], m)
	if err != nil {
		return err
	}
	c.wbuf = b
	if _, err := c.conn.Write(b); err != nil {
		if isGone(err) {
			return classErrorf(ErrPeerGone, "ring: send %v: node reader (pid %d) went away (%v)", m.Type(), c.serverPid, err)
		}
		return fmt.Errorf("ring: send %v to node reader (pid %d): %w", m.Type(), c.serverPid, err)
	}
	return nil
}

// Close says Bye, so the node reader knows this end is deliberate, and closes
// the connection. A node reader that is already gone is not an error here.
// Close may be called more than once.
func (c *Client) Close() error {
	if c.closed {
		return nil
	}
	// A node reader that stopped reading must not hold up the exit.
	c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	err := c.write(Bye{})
	c.closed = true
	// Shut down both ways, not only closed: a child forked after Dial holds
	// a copy of the socket, which close alone leaves open, and a node reader
	// blocked on writing to it would wait for that child to end.
	_ = c.conn.CloseRead()
	_ = c.conn.CloseWrite()
	cerr := c.conn.Close()
	if err != nil && !errors.Is(err, ErrPeerGone) {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("ring: close: %w", cerr)
	}
	return nil
}
