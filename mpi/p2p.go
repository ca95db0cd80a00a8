//go:build cgo && !nompi

package mpi

// #include "shim.h"
import "C"

import (
	"runtime"
	"sync"
)

// Messages of maxCount bytes or more travel as full chunks of maxCount bytes
// followed by one shorter chunk (possibly empty), in order on the same
// source, tag and communicator, where MPI guarantees they do not overtake
// each other. The short last chunk tells a receiver with a larger buffer
// where the message ends.

// chunks splits b as a sender of len(b) bytes sends it.
func chunks(b []byte) [][]byte {
	if !chunked(len(b)) {
		return [][]byte{b}
	}
	var out [][]byte
	for len(b) >= maxCount {
		out = append(out, b[:maxCount])
		b = b[maxCount:]
	}
	return append(out, b)
}

// Send sends buf to rank dest of c with tag (MPI_Send), in chunks if buf is
// 2^31-1 bytes or longer. It may block until the receiver posts its Recv.
func (c *Comm) Send(buf []byte, dest, tag int) error {
	const op = "MPI_Send"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkPeer(op, "destination", dest, c.size, false); err != nil {
		return err
	}
	for _, part := range chunks(buf) {
		rc := C.MPI_Send(sendPtr(part), C.int(len(part)), cByte, C.int(dest), cTag(tag), c.h)
		if rc != cSuccess {
			return mpiError(op, rc)
		}
	}
	return nil
}

// Recv receives a message of at most len(buf) bytes from source (or
// AnySource) with tag (or AnyTag) into buf (MPI_Recv). A longer message is
// an error (MPI_ERR_TRUNCATE). The Status tells who sent it and its length.
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	const op = "MPI_Recv"
	if err := c.live(op); err != nil {
		return Status{}, err
	}
	if err := checkPeer(op, "source", source, c.size, true); err != nil {
		return Status{}, err
	}
	var got Status
	src, tg := cRank(source), cTag(tag)
	for off := 0; ; {
		part := buf[off : off+min(maxCount, len(buf)-off)]
		var st C.MPI_Status
		if rc := C.MPI_Recv(recvPtr(part), C.int(len(part)), cByte, src, tg, c.h, &st); rc != cSuccess {
			return got, mpiError(op, rc)
		}
		s, err := goStatus(&st)
		if err != nil {
			return got, err
		}
		if off == 0 {
			// Later chunks must come from the sender of the first.
			got.Source, got.Tag = s.Source, s.Tag
			src, tg = C.int(s.Source), C.int(s.Tag)
		}
		off += s.Count
		got.Count = off
		if !chunked(len(buf)) || s.Count < maxCount {
			return got, nil
		}
	}
}

// Request is a pending Isend or Irecv. Its buffer belongs to MPI until Wait
// returns.
type Request struct {
	op   string
	recv bool
	reqs []C.MPI_Request
	pin  runtime.Pinner // keeps the Go buffer in place while MPI holds it
	// release frees what MPI used until completion (datatypes, C arrays of
	// a non-blocking collective); nil for point-to-point requests.
	release    func()
	collective bool // cannot be cancelled
	done       bool
	st         Status
	err        error
}

// Isend starts sending buf to dest with tag (MPI_Isend), in chunks if buf
// is 2^31-1 bytes or longer. buf is pinned and must not be modified until
// Wait returns; Wait must be called.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	const op = "MPI_Isend"
	if err := c.live(op); err != nil {
		return nil, err
	}
	if err := checkPeer(op, "destination", dest, c.size, false); err != nil {
		return nil, err
	}
	r := &Request{op: op}
	r.pinBuf(buf)
	for _, part := range chunks(buf) {
		var q C.MPI_Request
		rc := C.MPI_Isend(sendPtr(part), C.int(len(part)), cByte, C.int(dest), cTag(tag), c.h, &q)
		if rc != cSuccess {
			r.abandon()
			return nil, mpiError(op, rc)
		}
		r.reqs = append(r.reqs, q)
	}
	return r, nil
}

// Irecv starts receiving a message of at most len(buf) bytes from source
// with tag into buf (MPI_Irecv). buf is pinned and must not be read or
// modified until Wait returns; Wait must be called. A buffer of 2^31-1
// bytes or more is received in chunks posted at once: then the message must
// be exactly len(buf) bytes from a named source with a named tag.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	const op = "MPI_Irecv"
	if err := c.live(op); err != nil {
		return nil, err
	}
	if err := checkPeer(op, "source", source, c.size, true); err != nil {
		return nil, err
	}
	if err := checkChunkedIrecv(op, len(buf), source, tag); err != nil {
		return nil, err
	}
	r := &Request{op: op, recv: true}
	r.pinBuf(buf)
	for _, part := range chunks(buf) {
		var q C.MPI_Request
		rc := C.MPI_Irecv(recvPtr(part), C.int(len(part)), cByte, cRank(source), cTag(tag), c.h, &q)
		if rc != cSuccess {
			r.abandon()
			return nil, mpiError(op, rc)
		}
		r.reqs = append(r.reqs, q)
	}
	return r, nil
}

// pinBuf pins buf's array for MPI, which keeps its address after the call
// returns. Pinning memory not allocated by Go (shared memory) does nothing.
func (r *Request) pinBuf(buf []byte) {
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
}

// abandon cancels the chunks already posted when a later one fails, so the
// buffer can be released.
func (r *Request) abandon() {
	for i := range r.reqs {
		C.MPI_Cancel(&r.reqs[i])
		var st C.MPI_Status
		C.MPI_Wait(&r.reqs[i], &st)
	}
	r.reqs = nil
	r.finished()
}

// finished releases the buffers and resources of a completed request.
func (r *Request) finished() {
	r.done = true
	r.pin.Unpin()
	if r.release != nil {
		r.release()
		r.release = nil
	}
}

// Cancel withdraws a request that has not completed (MPI_Cancel, then
// MPI_Wait) and releases its buffer; Wait then returns an error. It is for
// a receive whose message will never come, e.g. when the program stops
// early. A completed request is left as it is.
func (r *Request) Cancel() {
	if r.done || r.collective {
		return // a collective cannot be withdrawn: every rank must take part
	}
	r.abandon()
	r.err = invalid(r.op, "cancelled")
}

// Free lets go of a send that may never complete because its receiver
// stopped listening (MPI_Request_free): MPI finishes or drops it on its own,
// and nothing waits for it. Its buffer stays pinned and must stay intact
// for as long as the program runs, since MPI may still read it; Wait then
// returns an error. A completed request is left as it is.
func (r *Request) Free() {
	if r.done || r.collective {
		return
	}
	for i := range r.reqs {
		C.MPI_Request_free(&r.reqs[i])
	}
	r.reqs = nil
	r.done = true
	r.err = invalid(r.op, "freed")
	freed.Lock()
	freed.reqs = append(freed.reqs, r) // keeps the pin, and so the buffer, alive
	freed.Unlock()
}

// freed holds the requests Free let go of.
var freed struct {
	sync.Mutex
	reqs []*Request
}

// Wait blocks until the request completes (MPI_Waitall over its chunks),
// releases the buffer and returns the Status of a receive (zero for a
// send). Calling Wait again returns the same result.
func (r *Request) Wait() (Status, error) {
	if r.done {
		return r.st, r.err
	}
	defer r.finished()
	sts := make([]C.MPI_Status, len(r.reqs))
	rc := C.MPI_Waitall(C.int(len(r.reqs)), &r.reqs[0], &sts[0])
	return r.finish(rc, sts)
}

// Test reports whether the request has completed (MPI_Testall over its
// chunks) without blocking. Once it reports true the buffer is released and
// Wait returns the result at once. Polling Test with a pause lets a waiting
// rank sleep, where Wait keeps a core busy in most MPI libraries.
func (r *Request) Test() (bool, error) {
	if r.done {
		return true, r.err
	}
	var flag C.int
	sts := make([]C.MPI_Status, len(r.reqs))
	rc := C.MPI_Testall(C.int(len(r.reqs)), &r.reqs[0], &flag, &sts[0])
	if rc == cSuccess && flag == 0 {
		return false, nil
	}
	defer r.finished()
	_, err := r.finish(rc, sts)
	return true, err
}

// finish records the outcome of a completed request from its chunks'
// statuses.
func (r *Request) finish(rc C.int, sts []C.MPI_Status) (Status, error) {
	if rc == cErrInStatus {
		// The status of the failed chunk holds the real error.
		for i := range sts {
			if e := C.lmdbio_status_error(&sts[i]); e != cSuccess && e != cErrPending {
				rc = e
				break
			}
		}
	}
	if rc != cSuccess {
		r.err = mpiError(r.op, rc)
		return r.st, r.err
	}
	if !r.recv {
		return r.st, nil
	}
	for i := range sts {
		s, err := goStatus(&sts[i])
		if err != nil {
			r.err = err
			return r.st, err
		}
		if i == 0 {
			r.st.Source, r.st.Tag = s.Source, s.Tag
		}
		r.st.Count += s.Count
	}
	return r.st, nil
}
