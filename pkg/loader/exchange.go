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
	closing atomic.Bool   // this node stops: say so at the next exchange
	stopped chan struct{} // closed once the node readers agreed to stop
	ring    sendRing
	in      inbox
	free    func() // unmaps the ring's and the inbox's buffers
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
	recv                   []byte
	recvFile               io.WriterAt
	recvAt                 int64
}

// sendPart is one record's value to send, and what must finish before it
// may be read. value is the node reader's view of it; file, when set,
// holds the same bytes at at, for pread.
type sendPart struct {
	value []byte
	file  io.ReaderAt
	at    int64
	need  completion
}

// preadFrom is the size from which a value is packed with pread from its
// segment's file rather than copied from the node reader's mapping. A
// process pays for its first touch of every page of its mapping (16 µs a
// page measured on a virtual machine that shadows page tables; 0.04 µs
// once touched), and the node reader has not touched what it read with
// O_DIRECT or what its cache took in an earlier epoch: the kernel's copy
// through its own mapping skips that (measured there, packing a cached
// epoch's 18 MB per node: the copies took 0.28 s of CPU of the exchange's
// 0.6 s). Smaller values share their pages with others and cost a system
// call each.
const preadFrom = 16 << 10

// copyTo copies the part's bytes from offset on into dst, as many as fit.
func (s sendPart) copyTo(dst []byte, offset int) (int, error) {
	n := min(len(dst), len(s.value)-offset)
	if s.file == nil || len(s.value) < preadFrom {
		return copy(dst, s.value[offset:offset+n]), nil
	}
	return s.file.ReadAt(dst[:n], s.at+int64(offset))
}

func newExchanger(comm *mpi.Comm, depth int) *exchanger {
	piece := pieceSize(comm.Size())
	x := &exchanger{comm: comm, ops: make(chan *exchangeOp, depth), stopped: make(chan struct{}),
		in: newInbox(comm, piece)}
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
	return x
}

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

// exchange posts the window's receives, then packs what this node sends
// piece by piece, round robin over the peers, sending each piece as soon as
// it is packed so that packing the next overlaps moving the last; it waits
// for all and reads the peers' control words. This node's own part is
// packed straight into its place.
func (x *exchanger) exchange(ctx context.Context, op *exchangeOp) error {
	me := x.comm.Rank()
	err := x.in.start(op)
	ctl := make([]byte, ctlBytes)
	if x.closing.Load() {
		binary.LittleEndian.PutUint64(ctl, ctlStop)
	}
	packers := make([]packer, len(op.parts))
	for d := range packers {
		packers[d] = newPacker(ctl, op.parts[d], op.sendCounts[d])
	}
	own := op.recv[op.recvDispls[me] : op.recvDispls[me]+op.recvCounts[me]]
	if err == nil {
		_, err = packers[me].next(ctx, own)
	}
	for more := true; more && err == nil; {
		more = false
		for d := range packers {
			if packers[d].left == 0 {
				continue
			}
			more = true
			if err = x.sendPiece(ctx, &packers[d], d); err != nil {
				break
			}
		}
	}
	sends := x.ring.outstanding()
	if err != nil {
		for _, r := range sends {
			r.Cancel()
			_, _ = r.Wait()
		}
		x.in.cancel()
		return fmt.Errorf("exchange of window %d: %w", op.no, err)
	}
	if err := x.wait(sends, true); err != nil {
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

// sendPiece packs p's next piece into a buffer of the ring and sends it to
// peer.
func (x *exchanger) sendPiece(ctx context.Context, p *packer, peer int) error {
	buf, err := x.ring.take(func(r *mpi.Request) error { return x.wait([]*mpi.Request{r}, false) })
	if err != nil {
		return err
	}
	piece, err := p.next(ctx, buf)
	if err != nil {
		return err
	}
	r, err := x.comm.Isend(piece, peer, exchangeTag)
	if err != nil {
		return err
	}
	x.ring.hold(r)
	return nil
}

// wait polls until sends complete, and the inbox's receives too with all,
// landing the pieces that arrive meanwhile: the peer a send goes to may
// itself be waiting for one of this node's receives.
func (x *exchanger) wait(sends []*mpi.Request, all bool) error {
	return poll(func() (bool, bool, error) {
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
// readers: a node's part for a peer goes in pieces, cut alike on both
// ends, and each piece that arrives tells poll that the exchange is
// moving. 1 MiB, or less where the inbox's buffers, one or more for every
// peer, would take more than inboxBytes; never below minPiece.
func pieceSize(nodes int) int {
	return max(minPiece, min(maxPiece, inboxBytes/max(1, nodes-1))&^(minPiece-1))
}

const (
	maxPiece   = 1 << 20
	minPiece   = 64 << 10
	inboxBytes = 8 << 20
)

// sendRing holds the buffers pieces are packed into, used in turn: a
// buffer is reused once the send of its last piece completed. The memory
// is bounded and stays mapped (one buffer for a whole window's sends was
// faulted in anew each time it grew, on the first epochs' critical path).
type sendRing struct {
	bufs [sendPieces][]byte       // of a piece each (newExchanger)
	reqs [sendPieces]*mpi.Request // the send of each buffer's piece, nil when done
	next int
}

// sendPieces is the number of pieces a node reader may have in flight.
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

// packer packs one peer's part of an exchange, its control word and then
// its records' values, as a stream cut into pieces.
type packer struct {
	parts        []sendPart // the control word first
	part, offset int        // the next part to copy, and how much of it is copied
	left         int        // bytes of the stream not yet packed
}

func newPacker(ctl []byte, parts []sendPart, total int) packer {
	return packer{parts: append([]sendPart{{value: ctl}}, parts...), left: total}
}

// next packs the next piece of the stream into the start of buf, as much as
// buf holds, waiting for the records it holds to be loaded, and returns
// the piece, nil once all is packed.
func (p *packer) next(ctx context.Context, buf []byte) ([]byte, error) {
	piece := buf[:min(len(buf), p.left)]
	for at := 0; at < len(piece); {
		part := p.parts[p.part]
		if p.offset == 0 && part.need != nil {
			if err := part.need.wait(ctx); err != nil {
				return nil, err
			}
		}
		n, err := part.copyTo(piece[at:], p.offset)
		if err != nil {
			return nil, fmt.Errorf("packing a record to send: %w", err)
		}
		at += n
		p.offset += n
		if p.offset == len(part.value) {
			p.part, p.offset = p.part+1, 0
		}
	}
	p.left -= len(piece)
	if len(piece) == 0 {
		return nil, nil
	}
	return piece, nil
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
