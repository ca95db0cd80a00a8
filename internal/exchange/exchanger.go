package exchange

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrStopped ends the exchanges after the one at which some node said it
// stops (its learners closed early): the exchange cannot go on without it.
var ErrStopped = errors.New("the node readers stopped: the learners of a node closed before the end, and the exchange between nodes ends with them")

// ErrNodeFailed marks the failure of another node's reader, told by it
// (see Exchanger.Notify).
var ErrNodeFailed = errors.New("the node reader of another node failed")

// Exchanger runs the node readers' exchanges (see the package
// documentation). Run performs the exchanges queued on Queue; Notify and
// Close are for after Run returned, the other methods for any goroutine at
// any time.
type Exchanger struct {
	tr       Transport
	ops      chan *Op
	stopping atomic.Bool   // this node stops: say so at the next exchange
	stopped  chan struct{} // closed once the node readers agreed to stop
	ring     sendRing      // buffers of packed messages
	direct   []Request     // sends of messages from where their values lie
	in       inbox
	free     func() // frees the ring's and the inbox's buffers
	// failed receives another node reader's word that it failed (see
	// Notify), into failBuf; told is that failure, once it came.
	failed   Request
	failBuf  []byte
	told     error
	dropped  atomic.Bool // sends of an exchange were let go of (see drop)
	notified atomic.Bool // this node told the others it failed (see Notify)
}

// Buffers returns n bytes of memory for the buffers an exchanger keeps for
// its whole life, and the function that frees them.
type Buffers func(n int) ([]byte, func())

// New returns the exchanger of the node readers that tr connects, with
// room for depth exchanges queued. Its buffers, one mapping for all, come
// from alloc (nil: the Go heap). It starts listening for the other node
// readers' failures at once.
func New(tr Transport, depth int, alloc Buffers) (*Exchanger, error) {
	piece := pieceSize(tr.Size())
	x := &Exchanger{tr: tr, ops: make(chan *Op, depth), stopped: make(chan struct{}),
		in: newInbox(tr, piece), failBuf: make([]byte, failBytes)}
	var err error
	if x.failed, err = tr.Irecv(x.failBuf, AnySource, failTag); err != nil {
		return nil, err
	}
	if alloc == nil {
		alloc = func(n int) ([]byte, func()) { return make([]byte, n), func() {} }
	}
	slots := x.in.perPeer * max(1, tr.Size()-1)
	mem, free := alloc((sendPieces + slots) * piece)
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

// Queue is where the node reader puts the exchanges, in the same order on
// every node; closing it ends Run.
func (x *Exchanger) Queue() chan<- *Op { return x.ops }

// failTag marks a node reader's word to the others that it failed, and
// failBytes bounds the reason it gives.
const (
	failTag   = 0x5846 // "XF"
	failBytes = 1024
)

// exchangeTag marks the exchange's messages.
const exchangeTag = 0x5845 // "XE"

// Notify tells every other node reader that this one failed, and why, so
// that none waits for it in an exchange it will not take part in: they stop
// at their next wait on a peer with ErrNodeFailed. The sends are let go of
// (see SendsLetGo).
func (x *Exchanger) Notify(err error) {
	msg := []byte(err.Error())
	msg = msg[:min(len(msg), failBytes)]
	for peer := range x.tr.Size() {
		if peer == x.tr.Rank() {
			continue
		}
		if r, err := x.tr.Isend(msg, peer, failTag); err == nil {
			r.Free()
		}
	}
	x.notified.Store(true)
}

// peerFailed returns the failure another node reader told of, once its
// word came.
func (x *Exchanger) peerFailed() error {
	if x.told != nil {
		return x.told
	}
	if done, err := x.failed.Test(); !done || err != nil {
		return nil
	}
	st, _ := x.failed.Wait()
	x.told = fmt.Errorf("%w: node %d: %s", ErrNodeFailed, st.Source, x.failBuf[:st.Count])
	return x.told
}

// drop gives up on an exchange that failed: its receives are cancelled and
// its sends let go of without waiting, since a peer that failed, or
// stopped after another's failure, never receives them. What they were
// sent from then stays mapped until the process ends (see Dropped), as the
// transport may still read it.
func (x *Exchanger) drop(sends []Request) {
	for _, r := range sends {
		if r != nil {
			r.Free()
		}
	}
	x.in.cancel()
	x.free = func() {}
	x.dropped.Store(true)
}

// Dropped reports whether the sends of an exchange that failed were let go
// of: the transport may still read what they were sent from, which must
// then stay mapped until the process ends.
func (x *Exchanger) Dropped() bool { return x.dropped.Load() }

// SendsLetGo reports whether sends were let go of (see Dropped and
// Notify): the transport may still use its communicator, which must then
// not be freed.
func (x *Exchanger) SendsLetGo() bool { return x.dropped.Load() || x.notified.Load() }

// AnnounceStop makes this node say, in its next exchange, that it stops:
// every node reader stops after that exchange (see Stopped).
func (x *Exchanger) AnnounceStop() { x.stopping.Store(true) }

// Stopped is closed once an exchange carried some node's word that it
// stops: the node readers agreed to stop.
func (x *Exchanger) Stopped() <-chan struct{} { return x.stopped }

// Close withdraws the receive of other node readers' failures and frees
// the buffers, unless an exchange dropped its sends. Call it once Run has
// returned; calling it again does nothing.
func (x *Exchanger) Close() {
	x.failed.Cancel()
	_, _ = x.failed.Wait()
	x.free()
	x.free = func() {}
}

// Run performs the exchanges queued on Queue until it is closed, finishing
// each Op with its outcome. After a stop every later exchange fails with
// ErrStopped, and Run returns nil; after a failure every later exchange
// fails with it, and Run returns it.
func (x *Exchanger) Run(ctx context.Context) error {
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
			failed = ErrStopped
		default:
		}
	}
	if failed == ErrStopped {
		return nil
	}
	return failed
}

// exchange posts the window's receives, then sends what this node sends,
// message by message (see cutter), round robin over the peers, each as
// soon as its records are loaded; it waits for all and reads the peers'
// control words. This node's own part is its control word alone: a node
// sends itself no record.
func (x *Exchanger) exchange(ctx context.Context, op *Op) error {
	me := x.tr.Rank()
	err := x.in.start(op)
	ctl := make([]byte, ControlBytes)
	if x.stopping.Load() {
		binary.LittleEndian.PutUint64(ctl, ctlStop)
	}
	copy(op.Recv[op.RecvDispls[me]:op.RecvDispls[me]+ControlBytes], ctl)
	senders := make([]sender, len(op.Parts))
	for d := range senders {
		if d != me {
			senders[d] = newSender(ctl, op.Parts[d], x.in.piece)
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
		return fmt.Errorf("exchange of window %d: %w", op.No, err)
	}
	for s := range op.RecvCounts {
		if binary.LittleEndian.Uint64(op.Recv[op.RecvDispls[s]:])&ctlStop != 0 {
			select {
			case <-x.stopped:
			default:
				close(x.stopped)
			}
		}
	}
	return nil
}

// maxDirect bounds the messages sent from where their values lie that a
// node reader has in flight at once.
const maxDirect = 64

// sendNext sends s's next message to peer: a piece of a large value from
// where it lies, or small values packed into a buffer of the ring.
func (x *Exchanger) sendNext(ctx context.Context, s *sender, peer int) error {
	m, _ := s.cut.next()
	var buf []byte
	if m.direct {
		part := s.parts[m.first]
		if err := part.wait(ctx, m.offset); err != nil {
			return err
		}
		buf = part.Value[m.offset : m.offset+m.n]
		if len(x.direct) == maxDirect {
			if err := x.wait(x.direct[:1], false); err != nil {
				return err
			}
			x.direct = x.direct[1:]
		}
	} else {
		var err error
		if buf, err = x.ring.take(func(r Request) error { return x.wait([]Request{r}, false) }); err != nil {
			return err
		}
		at := 0
		for _, part := range s.parts[m.first:m.last] {
			if err := part.wait(ctx, 0); err != nil {
				return err
			}
			at += copy(buf[at:], part.Value)
		}
		buf = buf[:at]
	}
	r, err := x.tr.Isend(buf, peer, exchangeTag)
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

// wait polls until sends complete, and the inbox's receives too with all,
// landing the messages that arrive meanwhile: the peer a send goes to may
// itself be waiting for one of this node's receives.
func (x *Exchanger) wait(sends []Request, all bool) error {
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
