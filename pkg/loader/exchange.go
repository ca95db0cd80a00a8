package loader

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
	sendBuf []byte
}

// exchangeOp is one window's exchange. The counts include every node's
// control word; recv is the window's receive region in the arena.
type exchangeOp struct {
	signal
	no                     int // the window's number
	sendCounts, sendDispls []int
	recvCounts, recvDispls []int
	parts                  [][]sendPart // by destination node
	recv                   []byte
	sent                   *atomic.Int64 // the epoch's exchange bytes
}

// sendPart is one record's value to send, and what must finish before it
// may be read.
type sendPart struct {
	value []byte
	need  completion
}

func newExchanger(comm *mpi.Comm, depth int) *exchanger {
	return &exchanger{comm: comm, ops: make(chan *exchangeOp, depth), stopped: make(chan struct{})}
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

// exchange packs the window's records, waits for the collective and reads
// the peers' control words.
func (x *exchanger) exchange(ctx context.Context, op *exchangeOp) error {
	total := 0
	for d := range op.sendCounts {
		total = max(total, op.sendDispls[d]+op.sendCounts[d])
	}
	if cap(x.sendBuf) < total {
		x.sendBuf = make([]byte, total)
	}
	send := x.sendBuf[:total]
	ctl := uint64(0)
	if x.closing.Load() {
		ctl = ctlStop
	}
	for d, parts := range op.parts {
		at := op.sendDispls[d]
		binary.LittleEndian.PutUint64(send[at:], ctl)
		at += ctlBytes
		for _, p := range parts {
			if err := p.need.wait(ctx); err != nil {
				return err
			}
			at += copy(send[at:], p.value)
			if op.sent != nil {
				op.sent.Add(int64(len(p.value)))
			}
		}
	}
	if err := x.alltoallv(send, op); err != nil {
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

// exchangeTag marks the exchange's messages on its communicator.
const exchangeTag = 0x5845 // "XE"

// exchangePiece is the largest message of an exchange: a node's part for a
// peer goes in pieces, and each piece that arrives tells poll that the
// exchange is moving.
const exchangePiece = 1 << 20

// alltoallv sends every node its part of send and receives every node's
// part into op.recv, as op's counts and displacements say; this node's own
// part is copied. Parts go in pieces of at most exchangePiece bytes, cut
// alike on both ends.
func (x *exchanger) alltoallv(send []byte, op *exchangeOp) error {
	me := x.comm.Rank()
	copy(op.recv[op.recvDispls[me]:op.recvDispls[me]+op.recvCounts[me]], send[op.sendDispls[me]:op.sendDispls[me]+op.sendCounts[me]])
	var reqs []*mpi.Request
	post := func(buf []byte, peer int, start func([]byte, int, int) (*mpi.Request, error)) error {
		for len(buf) > 0 { // never empty: every part starts with a control word
			piece := buf[:min(len(buf), exchangePiece)]
			r, err := start(piece, peer, exchangeTag)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
			buf = buf[len(piece):]
		}
		return nil
	}
	var err error
	for n := range op.recvCounts {
		if n != me && err == nil {
			err = post(op.recv[op.recvDispls[n]:op.recvDispls[n]+op.recvCounts[n]], n, x.comm.Irecv)
		}
	}
	for n := range op.sendCounts {
		if n != me && err == nil {
			err = post(send[op.sendDispls[n]:op.sendDispls[n]+op.sendCounts[n]], n, x.comm.Isend)
		}
	}
	if err != nil {
		for _, r := range reqs {
			r.Cancel()
			_, _ = r.Wait()
		}
		return err
	}
	return poll(reqs)
}

// poll waits for requests. A large message moves only while both ends call
// into MPI (a shared-memory or TCP transport copies it fragment by fragment
// as the ranks poll), so the exchanger tests the requests back to back,
// yielding to other goroutines in between: pauses would slow every exchange
// to their pace (measured: sleeps of at most 1 ms or 20 µs between tests
// made an epoch's exchanges 3-5 times slower). While none of the requests
// completes for spinFor, a peer is still reading its share, and the
// exchanger sleeps between tests, up to maxPause, leaving the cores to the
// ranks that work. It does not give up: a peer that died ends the whole job
// through the launcher.
func poll(reqs []*mpi.Request) error {
	pending := slices.Clone(reqs)
	last, pause := time.Now(), time.Duration(0)
	for len(pending) > 0 {
		n := len(pending)
		for i := 0; i < len(pending); {
			done, err := pending[i].Test()
			switch {
			case err != nil:
				return err
			case done:
				pending = slices.Delete(pending, i, i+1)
			default:
				i++
			}
		}
		switch {
		case len(pending) < n:
			last, pause = time.Now(), 0
		case time.Since(last) < spinFor:
			runtime.Gosched()
		default:
			pause = min(max(2*pause, 10*time.Microsecond), maxPause)
			time.Sleep(pause)
		}
	}
	return nil
}

// spinFor and maxPause bound the exchanger's busy polling (see poll).
const (
	spinFor  = 20 * time.Millisecond
	maxPause = time.Millisecond
)
