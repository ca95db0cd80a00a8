package loader

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// errStopped ends the windows after the exchange at which some node said it
// stops (its learners closed early): the exchange cannot go on without it.
var errStopped = errors.New("the node readers stopped: the learners of a node closed before the end, and the exchange between nodes ends with them")

// ctlBytes is the control word at the head of every node's contribution to
// an exchange: bit 0 says that the sender stops after this exchange.
const ctlBytes = 8

const ctlStop = 1

// exchanger runs the node readers' exchanges, one per window in which any
// record crosses between nodes, in window order on every node: a window's
// owners send each record to the node whose learner gets it. An exchange
// is an all-to-all of variable sizes made of non-blocking point-to-point
// messages (MPI_Isend, MPI_Irecv) on a communicator of the node readers'
// own, in order on each pair of nodes, which MPI keeps from overtaking each
// other. Point-to-point rather than MPI_Ialltoallv: several goroutines use
// MPI at once here, and the collective engines of MPI libraries are the
// least tested under MPI_THREAD_MULTIPLE. It runs on one goroutine and
// polls (see poll), so a node waiting long for slower peers sleeps.
type exchanger struct {
	comm    *mpi.Comm
	ops     chan *exchangeOp
	closing atomic.Bool    // this node stops: say so at the next exchange
	stopped chan struct{}  // closed once the node readers agreed to stop
	ring    sendRing       // buffers of packed messages
	direct  []*mpi.Request // sends of messages from where their values lie
	in      inbox
	free    func() // unmaps the ring's and the inbox's buffers
	// failed receives another node reader's word that it failed (see
	// notify), into failBuf; told is that failure, once it came.
	failed   *mpi.Request
	failBuf  []byte
	told     error
	dropped  bool // sends of an exchange were let go of (see drop)
	notified bool // this node told the others it failed (see notify)
}

// exchangeOp is one window's exchange. The counts include every node's
// control word; recv is the window's receive region in the arena (or, for
// an early exchange, in the cache segment) as the node reader maps it, and
// recvFile, when set, holds the same bytes from recvAt on, for pwrite.
type exchangeOp struct {
	signal
	no                     int   // the window's number
	sendCounts             []int // by destination: control word and records
	recvCounts, recvDispls []int
	parts                  [][]sendPart // by destination node
	recvLens               [][]int      // by source node: the length of every record it sends
	recv                   []byte
	recvFile               io.WriterAt
	recvAt                 int64
}

// sendPart is one record's value to send, as the node reader maps it, and
// what must finish before it may be read.
type sendPart struct {
	value []byte
	need  completion
}

func newExchanger(comm *mpi.Comm, depth int) (*exchanger, error) {
	piece := pieceSize(comm.Size())
	x := &exchanger{comm: comm, ops: make(chan *exchangeOp, depth), stopped: make(chan struct{}),
		in: newInbox(comm, piece), failBuf: make([]byte, failBytes)}
	var err error
	if x.failed, err = comm.Irecv(x.failBuf, mpi.AnySource, failTag); err != nil {
		return nil, err
	}
	// One mapping for every buffer, met in huge pages (see mapBuffers).
	slots := x.in.perPeer * max(1, comm.Size()-1)
	mem, free := mapBuffers((sendPieces + slots) * piece)
	buf := func(i int) []byte { return mem[i*piece : (i+1)*piece : (i+1)*piece] }
	for i := range x.ring.bufs {
		x.ring.bufs[i] = buf(i)
	}
	for i := range slots {
		x.in.bufs = append(x.in.bufs, buf(sendPieces+i))
	}
	x.free = free
	return x, nil
}

// errNodeFailed marks the failure of another node's reader, told by it.
var errNodeFailed = errors.New("the node reader of another node failed")

// failTag marks a node reader's word to the others that it failed, and
// failBytes bounds the reason it gives.
const (
	failTag   = 0x5846 // "XF"
	failBytes = 1024
)

// notify tells every other node reader that this one failed, and why, so
// that none waits for it in an exchange it will not take part in: they stop
// at their next wait on a peer. The sends are let go of (see drop).
func (x *exchanger) notify(err error) {
	msg := []byte(err.Error())
	msg = msg[:min(len(msg), failBytes)]
	for peer := range x.comm.Size() {
		if peer == x.comm.Rank() {
			continue
		}
		if r, err := x.comm.Isend(msg, peer, failTag); err == nil {
			r.Free()
		}
	}
	x.notified = true
}

// peerFailed returns the failure another node reader told of, once its
// word came.
func (x *exchanger) peerFailed() error {
	if x.told != nil {
		return x.told
	}
	if done, err := x.failed.Test(); !done || err != nil {
		return nil
	}
	st, _ := x.failed.Wait()
	x.told = fmt.Errorf("%w: node %d: %s", errNodeFailed, st.Source, x.failBuf[:st.Count])
	return x.told
}

// drop gives up on an exchange that failed: its receives are cancelled and
// its sends let go of without waiting, since a peer that failed, or
// stopped after another's failure, never receives them. What they were
// sent from then stays mapped until the process ends (see
// leader.sendsDropped), as MPI may still read it.
func (x *exchanger) drop(sends []*mpi.Request) {
	for _, r := range sends {
		if r != nil {
			r.Free()
		}
	}
	x.in.cancel()
	x.free = func() {}
	x.dropped = true
}

// stopListening withdraws the receive of other node readers' failures.
func (x *exchanger) stopListening() {
	x.failed.Cancel()
	_, _ = x.failed.Wait()
}

// sendsLetGo reports whether sends on the exchange's communicator were let
// go of (see drop and notify): MPI may still use the communicator.
func (x *exchanger) sendsLetGo() bool { return x.dropped || x.notified }

// run performs the exchanges queued on ops until it is closed. After a stop
// every later exchange fails with errStopped.
func (x *exchanger) run(ctx context.Context) error {
	var failed error
	for op := range x.ops {
		if failed != nil {
			op.finish(failed)
			continue
		}
		if err := x.exchange(ctx, op); err != nil {
			failed = err
			op.finish(err)
			continue
		}
		op.finish(nil)
		select {
		case <-x.stopped:
			failed = errStopped
		default:
		}
	}
	if failed == errStopped {
		return nil
	}
	return failed
}

// exchange posts the window's receives, then sends what this node sends,
// message by message (see cutter), round robin over the peers, each as
// soon as its records are loaded; it waits for all and reads the peers'
// control words. This node's own part is its control word alone: a node
// sends itself no record.
func (x *exchanger) exchange(ctx context.Context, op *exchangeOp) error {
	me := x.comm.Rank()
	err := x.in.start(op)
	ctl := make([]byte, ctlBytes)
	if x.closing.Load() {
		binary.LittleEndian.PutUint64(ctl, ctlStop)
	}
	copy(op.recv[op.recvDispls[me]:op.recvDispls[me]+ctlBytes], ctl)
	senders := make([]sender, len(op.parts))
	for d := range senders {
		if d != me {
			senders[d] = newSender(ctl, op.parts[d], x.in.piece)
		}
	}
	for more := true; more && err == nil; {
		more = false
		for d := range senders {
			if senders[d].done() {
				continue
			}
			more = true
			if err = x.sendNext(ctx, &senders[d], d); err != nil {
				break
			}
		}
	}
	sends := append(x.ring.outstanding(), x.direct...)
	x.direct = x.direct[:0]
	if err == nil {
		err = x.wait(sends, true)
	}
	if err != nil {
		x.drop(sends)
		return fmt.Errorf("exchange of window %d: %w", op.no, err)
	}
	for s := range op.recvCounts {
		if binary.LittleEndian.Uint64(op.recv[op.recvDispls[s]:])&ctlStop != 0 {
			select {
			case <-x.stopped:
			default:
				close(x.stopped)
			}
		}
	}
	return nil
}

// sendNext sends s's next message to peer: a piece of a large value from
// where it lies, or small values packed into a buffer of the ring.
func (x *exchanger) sendNext(ctx context.Context, s *sender, peer int) error {
	m, _ := s.cut.next()
	var buf []byte
	if m.direct {
		part := s.parts[m.first]
		if err := part.wait(ctx, m.offset); err != nil {
			return err
		}
		buf = part.value[m.offset : m.offset+m.n]
		if len(x.direct) == maxDirect {
			if err := x.wait(x.direct[:1], false); err != nil {
				return err
			}
			x.direct = x.direct[1:]
		}
	} else {
		var err error
		if buf, err = x.ring.take(func(r *mpi.Request) error { return x.wait([]*mpi.Request{r}, false) }); err != nil {
			return err
		}
		at := 0
		for _, part := range s.parts[m.first:m.last] {
			if err := part.wait(ctx, 0); err != nil {
				return err
			}
			at += copy(buf[at:], part.value)
		}
		buf = buf[:at]
	}
	r, err := x.comm.Isend(buf, peer, exchangeTag)
	if err != nil {
		return err
	}
	if m.direct {
		x.direct = append(x.direct, r)
	} else {
		x.ring.hold(r)
	}
	return nil
}

// wait waits for the part to be loaded before its first byte is sent.
func (p sendPart) wait(ctx context.Context, offset int) error {
	if offset > 0 || p.need == nil {
		return nil
	}
	return p.need.wait(ctx)
}

// wait polls until sends complete, and the inbox's receives too with all,
// landing the messages that arrive meanwhile: the peer a send goes to may
// itself be waiting for one of this node's receives.
func (x *exchanger) wait(sends []*mpi.Request, all bool) error {
	return poll(func() (bool, bool, error) {
		if err := x.peerFailed(); err != nil {
			return false, true, err
		}
		moved, more, err := x.in.test()
		if err != nil {
			return moved, more, err
		}
		var sent bool
		sends, sent, err = testAll(sends)
		return moved || sent, len(sends) > 0 || all && more, err
	})
}

// exchangeTag marks the exchange's messages on its communicator.
const exchangeTag = 0x5845 // "XE"

// pieceSize is the largest message of an exchange among nodes node
// readers: a node's part for a peer goes in messages of at most a piece,
// cut alike on both ends (see cutter), and each message that arrives tells
// poll that the exchange is moving. 1 MiB, or less where the inbox's
// buffers, one or more for every peer, would take more than inboxBytes;
// never below minPiece.
func pieceSize(nodes int) int {
	return max(minPiece, min(maxPiece, inboxBytes/max(1, nodes-1))&^(minPiece-1))
}

const (
	maxPiece   = 1 << 20
	minPiece   = 64 << 10
	inboxBytes = 8 << 20
)

// sendRing holds the buffers small values are packed into, used in turn:
// a buffer is reused once the send of its last message completed. The memory
// is bounded and stays mapped (one buffer for a whole window's sends was
// faulted in anew each time it grew, on the first epochs' critical path).
type sendRing struct {
	bufs [sendPieces][]byte       // of a piece each (newExchanger)
	reqs [sendPieces]*mpi.Request // the send of each buffer's message, nil when done
	next int
}

// sendPieces is the number of packed messages a node reader may have in
// flight.
const sendPieces = 16

// take returns the next buffer, once wait says its last send completed.
func (r *sendRing) take(wait func(*mpi.Request) error) ([]byte, error) {
	i := r.next
	if r.reqs[i] != nil {
		if err := wait(r.reqs[i]); err != nil {
			return nil, err
		}
		r.reqs[i] = nil
	}
	return r.bufs[i], nil
}

// hold records the send of the buffer take returned last.
func (r *sendRing) hold(req *mpi.Request) {
	r.reqs[r.next] = req
	r.next = (r.next + 1) % sendPieces
}

// outstanding hands over the sends not known to be complete.
func (r *sendRing) outstanding() []*mpi.Request {
	var out []*mpi.Request
	for i, req := range r.reqs {
		if req != nil {
			out = append(out, req)
			r.reqs[i] = nil
		}
	}
	return out
}

// sender is one peer's part of an exchange: its control word, then its
// records' values, as the messages cutter makes of them.
type sender struct {
	parts []sendPart // the control word first
	cut   cutter
}

func newSender(ctl []byte, parts []sendPart, piece int) sender {
	s := sender{parts: append([]sendPart{{value: ctl}}, parts...)}
	lens := make([]int, len(s.parts))
	for i, p := range s.parts {
		lens[i] = len(p.value)
	}
	s.cut = cutter{lens: lens, piece: piece}
	return s
}

func (s *sender) done() bool { return s.cut.part == len(s.cut.lens) }

// directFrom is the size from which a value travels in messages of its
// own, sent from where it lies in shared memory: MPI copies it once, into
// the receiver's buffer (with cross-memory attach the receiver reads the
// node reader's pages through the kernel, never through the node reader's
// mapping, which on a virtual machine that shadows page tables would pay
// 16 µs for every page it had not met). Smaller values are packed
// together: they share pages, and a message each would cost more than the
// copy.
const directFrom = 16 << 10

// maxDirect bounds the messages sent from where their values lie that a
// node reader has in flight at once.
const maxDirect = 64

// message is one message of a peer's stream (see cutter): n bytes of the
// stream, from byte offset of part first on. A direct message is a piece
// of one value; otherwise parts first to last, whole, packed together.
type message struct {
	first, last int
	offset, n   int
	direct      bool
}

// cutter cuts a peer's stream — its parts' bytes one after the other, the
// control word first — into the messages it travels in. Both ends of an
// exchange cut the same lengths the same way, so every receive is posted
// for exactly the message it gets: a value of at least directFrom bytes in
// pieces of at most piece bytes, smaller ones packed, at most piece bytes
// a message (piece is never below minPiece > directFrom, so a small value
// always fits one).
type cutter struct {
	lens         []int
	piece        int
	part, offset int // where the next message starts
}

// next returns the next message, or false once the stream is cut.
func (c *cutter) next() (message, bool) {
	if c.part == len(c.lens) {
		return message{}, false
	}
	m := message{first: c.part, offset: c.offset}
	if c.lens[c.part] >= directFrom {
		m.n, m.direct = min(c.piece, c.lens[c.part]-c.offset), true
		if c.offset += m.n; c.offset == c.lens[c.part] {
			c.part, c.offset = c.part+1, 0
		}
		m.last = c.part
		return m, true
	}
	for c.part < len(c.lens) && c.lens[c.part] < directFrom && m.n+c.lens[c.part] <= c.piece {
		m.n += c.lens[c.part]
		c.part++
	}
	m.last = c.part
	return m, true
}

// poll calls step until it says nothing is pending; step tests requests
// and says whether any completed. A large message moves only while both
// ends call into MPI (a shared-memory or TCP transport copies it fragment
// by fragment as the ranks poll), so the exchanger tests the requests back to back,
// yielding to other goroutines in between: pauses would slow every exchange
// to their pace (measured: sleeps of at most 1 ms or 20 µs between tests
// made an epoch's exchanges 3-5 times slower). While none of the requests
// completes for spinFor, a peer is still reading its share, and the
// exchanger sleeps between tests, up to maxPause, leaving the cores to the
// ranks that work. It does not give up: a peer that died ends the whole job
// through the launcher.
func poll(step func() (moved, more bool, err error)) error {
	last, pause := time.Now(), time.Duration(0)
	for {
		moved, more, err := step()
		switch {
		case err != nil:
			return err
		case !more:
			return nil
		case moved:
			last, pause = time.Now(), 0
		case time.Since(last) < spinFor:
			runtime.Gosched()
		default:
			pause = min(max(2*pause, 10*time.Microsecond), maxPause)
			time.Sleep(pause)
		}
	}
}

// testAll tests reqs once each and returns those still pending, and
// whether any completed.
func testAll(reqs []*mpi.Request) (pending []*mpi.Request, moved bool, err error) {
	for i := 0; i < len(reqs); {
		done, err := reqs[i].Test()
		switch {
		case err != nil:
			return reqs, moved, err
		case done:
			reqs, moved = slices.Delete(reqs, i, i+1), true
		default:
			i++
		}
	}
	return reqs, moved, nil
}

// spinFor and maxPause bound the exchanger's busy polling (see poll).
const (
	spinFor  = 20 * time.Millisecond
	maxPause = time.Millisecond
)
