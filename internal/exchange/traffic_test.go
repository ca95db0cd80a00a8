package exchange_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/internal/shm"
)

// traffic is what an exchange test sends: the lengths of the records node
// from sends node to, in order (nil for none).
type traffic func(from, to int) []int

// pieces is the traffic of the pieces tests among nodes: every pair of
// distinct nodes that some keeps sends records several pieces long in all,
// of a size that is not a multiple of a piece and differs by pair: small
// ones packed together, an empty one, and large ones sent from where they
// lie, one of them in several pieces.
func pieces(nodes int, some func(from, to int) bool) traffic {
	return func(from, to int) []int {
		if from == to || !some(from, to) { // a node keeps its own records
			return nil
		}
		size := 2*exchange.PieceSize(nodes) + 1000*(from+1) + 7*to
		return []int{5000, 0, 3000, 40000, size - 48100, 100}
	}
}

// someEmpty leaves some pairs empty among 3 nodes or more, and none among
// 2, so that at every number of nodes some pair sends pieces.
func someEmpty(nodes int) func(from, to int) bool {
	return func(from, to int) bool { return nodes <= 2 || (from+to)%nodes != 1 }
}

func allPairs(from, to int) bool { return true }

// pattern is what node from sends node to: bytes that differ by pair and by
// place, so a piece out of order or in the wrong place shows.
func pattern(from, to, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + from*31 + to*131 + i/exchange.MaxPiece)
	}
	return b
}

func total(lens []int) (n int) {
	for _, l := range lens {
		n += l
	}
	return n
}

// layOut returns node me's exchange number no among nodes with traffic tr:
// its values cut from pattern, and a receive region of its own.
func layOut(me, nodes, no int, tr traffic) *exchange.Op {
	op := exchange.NewOp(no, nodes)
	at := 0
	for n := range nodes {
		op.RecvDispls[n] = at
		op.RecvLens[n] = tr(n, me)
		op.RecvCounts[n] = exchange.ControlBytes + total(op.RecvLens[n])
		v := pattern(me, n, total(tr(me, n)))
		for _, l := range tr(me, n) {
			op.Parts[n] = append(op.Parts[n], exchange.Part{Value: v[:l]})
			v = v[l:]
		}
		at += op.RecvCounts[n]
	}
	op.Recv = make([]byte, at)
	return op
}

// intoSegment makes op land in a shared-memory segment with pwrite, after
// a page of other bytes; the returned function closes the segment.
func intoSegment(op *exchange.Op) (func() error, error) {
	n := len(op.Recv)
	seg, err := shm.CreateUnnamed("xtest", int64(n)+4096, false)
	if err != nil {
		return nil, err
	}
	op.Recv, op.RecvFile, op.RecvAt = seg.Bytes()[4096:4096+n], seg, 4096
	return seg.Close, nil
}

// check compares what node me received in op with what every node sent it.
func check(op *exchange.Op, me int, tr traffic) error {
	var errs []error
	for n := range op.RecvCounts {
		got := op.Recv[op.RecvDispls[n]+exchange.ControlBytes : op.RecvDispls[n]+op.RecvCounts[n]]
		if !bytes.Equal(got, pattern(n, me, total(tr(n, me)))) {
			errs = append(errs, fmt.Errorf("exchange %d: node %d's %d bytes from node %d differ", op.No, me, len(got), n))
		}
	}
	return errors.Join(errs...)
}

// exchangeAll performs ops, in order, on a new exchanger over tr, and
// returns it (to Notify or Close) and what Run returned; each op's outcome
// is its own Wait's. prepare, when set, sees the exchanger before the
// first op is queued.
func exchangeAll(tr exchange.Transport, ops []*exchange.Op, prepare func(*exchange.Exchanger)) (*exchange.Exchanger, error) {
	x, err := exchange.New(tr, len(ops), nil)
	if err != nil {
		return nil, err
	}
	if prepare != nil {
		prepare(x)
	}
	for _, op := range ops {
		x.Queue() <- op
	}
	close(x.Queue())
	return x, x.Run(context.Background())
}

// exchangePieces runs node tr.Rank()'s part of two exchanges of traffic
// tr: the first received in place, the second into a shared-memory segment
// with pwrite; it checks every byte received.
func exchangePieces(t exchange.Transport, tr traffic) error {
	me, nodes := t.Rank(), t.Size()
	ops := []*exchange.Op{layOut(me, nodes, 0, tr), layOut(me, nodes, 1, tr)}
	closeSeg, err := intoSegment(ops[1])
	if err != nil {
		return err
	}
	defer closeSeg()
	x, err := exchangeAll(t, ops, nil)
	if x != nil {
		defer x.Close()
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, op := range ops {
		if err := op.Wait(context.Background()); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, check(op, me, tr))
		}
	}
	return errors.Join(errs...)
}
