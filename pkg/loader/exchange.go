package loader

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
// polls with pauses, so a node waiting for slower peers sleeps.
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

// alltoallv sends every node its part of send and receives every node's
// part into op.recv, as op's counts and displacements say; this node's own
// part is copied.
func (x *exchanger) alltoallv(send []byte, op *exchangeOp) error {
	me := x.comm.Rank()
	copy(op.recv[op.recvDispls[me]:op.recvDispls[me]+op.recvCounts[me]], send[op.sendDispls[me]:op.sendDispls[me]+op.sendCounts[me]])
	var reqs []*mpi.Request
	fail := func(err error) error {
		for _, r := range reqs {
			r.Cancel()
			_, _ = r.Wait()
		}
		return err
	}
	for n := range op.recvCounts {
		if n == me {
			continue
		}
		r, err := x.comm.Irecv(op.recv[op.recvDispls[n]:op.recvDispls[n]+op.recvCounts[n]], n, exchangeTag)
		if err != nil {
			return fail(err)
		}
		reqs = append(reqs, r)
	}
	for n := range op.sendCounts {
		if n == me {
			continue
		}
		r, err := x.comm.Isend(send[op.sendDispls[n]:op.sendDispls[n]+op.sendCounts[n]], n, exchangeTag)
		if err != nil {
			return fail(err)
		}
		reqs = append(reqs, r)
	}
	return poll(reqs)
}

// poll waits for requests, sleeping between tests. It does not give up: a
// peer that died ends the whole job through the launcher.
func poll(reqs []*mpi.Request) error {
	for _, r := range reqs {
		if err := r.WaitPolling(time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}
