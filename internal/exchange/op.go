package exchange

import (
	"context"
	"io"
)

// ControlBytes is the length of the control word at the head of every
// node's contribution to an exchange: bit 0 says that the sender stops
// after this exchange. A receive region holds one from every node, its
// own included.
const ControlBytes = 8

const ctlStop = 1

// Op is one exchange, as the node reader lays it out: the records this node
// sends to every other node, where they lie and what must finish before
// they may be read, and the region the records from every node land in.
// For each source node n the region holds, from RecvDispls[n] on,
// RecvCounts[n] bytes: its control word, then its records one after the
// other, of the lengths RecvLens[n]. A node sends itself nothing.
//
// Every node lays out an exchange alike: what node a sends node b has the
// lengths b expects from a, in the same order.
type Op struct {
	No                     int      // the window's number, for errors
	Parts                  [][]Part // by destination node
	RecvLens               [][]int  // by source node: the length of every record it sends
	RecvCounts, RecvDispls []int    // by source node, control word included
	// Recv is the receive region as the node reader maps it. RecvFile,
	// when set, holds the same bytes from RecvAt on: messages are then
	// written into it with pwrite (see inbox) rather than received into
	// Recv.
	Recv     []byte
	RecvFile io.WriterAt
	RecvAt   int64

	done chan struct{}
	err  error
}

// NewOp returns an exchange among nodes, numbered no, with the per-node
// slices made and empty.
func NewOp(no, nodes int) *Op {
	return &Op{No: no, Parts: make([][]Part, nodes), RecvLens: make([][]int, nodes),
		RecvCounts: make([]int, nodes), RecvDispls: make([]int, nodes), done: make(chan struct{})}
}

// Wait waits until the exchange finished, and says how: once it returns
// nil, every byte of the receive region is in place.
func (op *Op) Wait(ctx context.Context) error {
	select {
	case <-op.done:
		return op.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish sets the outcome and wakes the waiters.
func (op *Op) finish(err error) {
	op.err = err
	close(op.done)
}

// Part is one record's value to send, as the node reader maps it, and what
// must finish before it may be read (nil for nothing).
type Part struct {
	Value []byte
	Need  Completion
}

// Completion is something a value waits for before it is sent: a read from
// storage, a decoding.
type Completion interface {
	Wait(ctx context.Context) error
}

// wait waits for the part to be loaded before its first byte is sent.
func (p Part) wait(ctx context.Context, offset int) error {
	if offset > 0 || p.Need == nil {
		return nil
	}
	return p.Need.Wait(ctx)
}
