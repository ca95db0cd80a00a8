//go:build nompi || !cgo

package mpi

import (
	"slices"
	"sync"
)

// mailbox holds the messages a single rank sends itself. Matching follows
// MPI: a message goes to the oldest posted receive whose tag matches, else it
// waits in send order for a later receive.
type mailbox struct {
	mu     sync.Mutex
	queued []message  // sent, not yet received, oldest first
	posted []*Request // receives waiting for a message, oldest first
}

type message struct {
	tag  int
	data []byte
}

// Request is a pending Isend or Irecv. Sends complete at once (the mailbox
// copies the data); a receive completes when a matching message arrives.
type Request struct {
	op   string
	box  *mailbox // where a receive is posted; nil for a send
	buf  []byte
	tag  int
	done chan struct{}
	st   Status
	err  error
}

func matches(want, tag int) bool { return want == AnyTag || want == tag }

// complete copies m into r's buffer and releases Wait.
func (r *Request) complete(m message) {
	n := copy(r.buf, m.data)
	r.st = Status{Source: 0, Tag: m.tag, Count: n}
	if len(m.data) > len(r.buf) {
		r.err = invalid(r.op, "message truncated: %d bytes into a buffer of %d", len(m.data), len(r.buf))
	}
	close(r.done)
}

// deliver hands a copy of data to the oldest matching receive or queues it.
func (b *mailbox) deliver(data []byte, tag int) {
	m := message{tag: tag, data: slices.Clone(data)}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, r := range b.posted {
		if matches(r.tag, tag) {
			b.posted = slices.Delete(b.posted, i, i+1)
			r.complete(m)
			return
		}
	}
	b.queued = append(b.queued, m)
}

// post registers a receive, completing it at once from the queue if a
// matching message is waiting.
func (b *mailbox) post(r *Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, m := range b.queued {
		if matches(r.tag, m.tag) {
			b.queued = slices.Delete(b.queued, i, i+1)
			r.complete(m)
			return
		}
	}
	b.posted = append(b.posted, r)
}

func checkSendTag(op string, tag int) error {
	if tag < 0 {
		return invalid(op, "invalid tag %d", tag)
	}
	return nil
}

func checkRecvTag(op string, tag int) error {
	if tag < 0 && tag != AnyTag {
		return invalid(op, "invalid tag %d", tag)
	}
	return nil
}

// Send puts a copy of buf in the mailbox; dest must be 0.
func (c *Comm) Send(buf []byte, dest, tag int) error {
	return c.send("MPI_Send", buf, dest, tag)
}

func (c *Comm) send(op string, buf []byte, dest, tag int) error {
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkPeer(op, "destination", dest, 1, false); err != nil {
		return err
	}
	if err := checkSendTag(op, tag); err != nil {
		return err
	}
	c.box.deliver(buf, tag)
	return nil
}

// Recv takes the oldest matching message from the mailbox, blocking until
// one is sent (from another goroutine).
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	r, err := c.irecv("MPI_Recv", buf, source, tag)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}

// Isend is Send returning a completed request.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	if err := c.send("MPI_Isend", buf, dest, tag); err != nil {
		return nil, err
	}
	r := &Request{op: "MPI_Isend", done: make(chan struct{})}
	close(r.done)
	return r, nil
}

// Irecv posts a receive that a later Send or Isend completes.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	const op = "MPI_Irecv"
	if err := checkChunkedIrecv(op, len(buf), source, tag); err != nil {
		return nil, err
	}
	return c.irecv(op, buf, source, tag)
}

func (c *Comm) irecv(op string, buf []byte, source, tag int) (*Request, error) {
	if err := c.live(op); err != nil {
		return nil, err
	}
	if err := checkPeer(op, "source", source, 1, true); err != nil {
		return nil, err
	}
	if err := checkRecvTag(op, tag); err != nil {
		return nil, err
	}
	r := &Request{op: op, box: c.box, buf: buf, tag: tag, done: make(chan struct{})}
	c.box.post(r)
	return r, nil
}

// Wait blocks until the request completes and returns the Status of a
// receive (zero for a send). Calling Wait again returns the same result.
func (r *Request) Wait() (Status, error) {
	<-r.done
	return r.st, r.err
}

// Test reports whether the request has completed, without blocking.
func (r *Request) Test() (bool, error) {
	select {
	case <-r.done:
		return true, r.err
	default:
		return false, nil
	}
}

// Free lets go of a request: sends complete at once here, and a receive is
// withdrawn as by Cancel.
func (r *Request) Free() { r.Cancel() }

// Cancel withdraws a receive that has not completed; Wait then returns an
// error. A completed request is left as it is.
func (r *Request) Cancel() {
	if r.box == nil {
		return
	}
	r.box.mu.Lock()
	defer r.box.mu.Unlock()
	for i, p := range r.box.posted {
		if p == r {
			r.box.posted = slices.Delete(r.box.posted, i, i+1)
			r.err = invalid(r.op, "cancelled")
			close(r.done)
			return
		}
	}
}
