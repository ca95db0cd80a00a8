package loader

import (
	"bytes"
	"context"
	"testing"

	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/mpi"
)

// done is a completion that has finished.
type done struct{}

func (done) wait(context.Context) error { return nil }

// pattern is what node from sends node to: bytes that differ by pair and by
// place, so a piece out of order or in the wrong place shows.
func pattern(from, to, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + from*31 + to*131 + i/maxPiece)
	}
	return b
}

// TestMPIExchangePieces runs exchanges over the world whose parts are
// several pieces long, of sizes that are not multiples of a piece and
// differ by pair, one of them empty but for its control word; each part's
// records are small ones packed together, an empty one, and large ones
// sent from where they lie, one of them in several pieces. They are
// received in place and into a shared-memory segment with pwrite, and
// every byte received is checked.
func TestMPIExchangePieces(t *testing.T) {
	comm := mpi.World()
	me, nodes := comm.Rank(), comm.Size()
	size := func(from, to int) int {
		if from == to || (from+to)%3 == 1 { // a node keeps its own records
			return 0
		}
		return 2*pieceSize(nodes) + 1000*(from+1) + 7*to
	}
	// The records' lengths: small, empty, small, large, the rest, small.
	lens := func(from, to int) []int {
		if size(from, to) == 0 {
			return nil
		}
		small := []int{5000, 0, 3000, 40000}
		rest := size(from, to) - 48100
		return append(small, rest, 100)
	}
	x, err := newExchanger(comm, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer x.stopListening()
	for no := range 2 {
		op := &exchangeOp{signal: newSignal(), no: no,
			sendCounts: make([]int, nodes),
			recvCounts: make([]int, nodes), recvDispls: make([]int, nodes),
			parts: make([][]sendPart, nodes), recvLens: make([][]int, nodes)}
		recvAt := 0
		for n := range nodes {
			op.recvDispls[n] = recvAt
			op.sendCounts[n] = ctlBytes + size(me, n)
			op.recvCounts[n] = ctlBytes + size(n, me)
			op.recvLens[n] = lens(n, me)
			v := pattern(me, n, size(me, n))
			for _, l := range lens(me, n) {
				op.parts[n] = append(op.parts[n], sendPart{value: v[:l], need: done{}})
				v = v[l:]
			}
			recvAt += op.recvCounts[n]
		}
		op.recv = make([]byte, recvAt)
		if no == 1 { // the second lands in a segment, after a page of other bytes
			seg, err := shm.CreateUnnamed("xtest", int64(recvAt)+4096, false)
			if err != nil {
				t.Fatal(err)
			}
			defer seg.Close()
			op.recv, op.recvFile, op.recvAt = seg.Bytes()[4096:4096+recvAt], seg, 4096
		}
		if err := x.exchange(context.Background(), op); err != nil {
			t.Fatalf("exchange %d: %v", no, err)
		}
		for n := range nodes {
			got := op.recv[op.recvDispls[n]+ctlBytes : op.recvDispls[n]+op.recvCounts[n]]
			if !bytes.Equal(got, pattern(n, me, size(n, me))) {
				t.Errorf("exchange %d: node %d's %d bytes from node %d differ", no, me, len(got), n)
			}
		}
	}
}
