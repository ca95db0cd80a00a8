package loader

import (
	"context"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/mpi"
)

// The exchange of records between node readers is package exchange's. What
// follows is how the node reader uses it: over its communicator of node
// readers, in buffers met in huge pages, with the node reader's
// completions.

// exchangeOp is one window's exchange (or an early exchange), as the node
// reader lays it out and queues it.
type exchangeOp = exchange.Op

// ctlBytes is the control word at the head of every node's contribution to
// an exchange, which the receive regions make room for.
const ctlBytes = exchange.ControlBytes

// errStopped and errNodeFailed are how an exchange ends when the node
// readers agreed to stop, and when another node's reader failed.
var (
	errStopped    = exchange.ErrStopped
	errNodeFailed = exchange.ErrNodeFailed
)

// newExchanger returns the exchanger of the node readers' communicator,
// with room for depth exchanges queued. Its buffers are one mapping, met
// in huge pages (see mapBuffers).
func newExchanger(comm *mpi.Comm, depth int) (*exchange.Exchanger, error) {
	return exchange.New(exchange.OverMPI(comm), depth, mapBuffers)
}

// exchanged is an exchange as a completion the batches that take records
// from it wait for.
type exchanged struct{ op *exchangeOp }

func (e exchanged) wait(ctx context.Context) error { return e.op.Wait(ctx) }

// ready is a completion (a load, a decoding) as what the exchange waits for
// before it sends a value.
type ready struct{ c completion }

func (r ready) Wait(ctx context.Context) error { return r.c.wait(ctx) }

// readyOf returns what the exchange waits for before it sends a value that
// c brings; nil for nothing.
func readyOf(c completion) exchange.Completion {
	if c == nil {
		return nil
	}
	return ready{c}
}
