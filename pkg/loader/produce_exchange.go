package loader

import (
	"fmt"
	"io"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/internal/schedule"
)

// segBytes returns the bytes of a segment as the node reader maps it and,
// for the arena and the cache, the segment to pwrite into (see inbox).
func (ix *indexProducer) segBytes(seg uint32) ([]byte, io.WriterAt) {
	switch {
	case seg == segArena:
		return ix.buf, ix.seg
	case ix.view != nil && seg == ix.viewSegment():
		return ix.view.mem, nil
	case ix.cache.seg == nil:
		return ix.cache.buf, nil
	}
	return ix.cache.buf, ix.cache.seg
}

// exchangeOp lays out an exchange: what this node sends from where, and
// the region it receives into, size bytes at at of segment seg. Its bytes
// count to st's exchange bytes now, as it is laid out, not as they are
// sent: an epoch's exchanges are all laid out before its end reaches the
// learners, and its figures are then complete, while the last sends (to
// other nodes, or early for the next epoch) may still be under way.
func (ix *indexProducer) exchangeOp(work schedule.Work, loc map[int32]where, seg uint32, at, size int64, no int, st *epochCounters) *exchangeOp {
	p, s := ix.plan, ix.plan.layout
	nodes := s.Nodes
	mem, file := ix.segBytes(seg)
	recv := mem[at : at+size]
	op := exchange.NewOp(no, nodes)
	op.Recv = recv
	if file != nil {
		op.RecvFile, op.RecvAt = file, at
	}
	recvOff := 0
	for n := range nodes {
		op.RecvDispls[n] = recvOff
		op.RecvCounts[n] = ctlBytes
		var sent int64
		for _, pos := range work.Send[n] {
			rec := int(p.posRecord[pos])
			l := loc[s.PosBlock[pos]]
			seg, _ := ix.segBytes(l.seg)
			at := l.off + p.blockOff[rec]
			op.Parts[n] = append(op.Parts[n], exchange.Part{Value: seg[at : at+s.PosBytes[pos]], Need: readyOf(l.done)})
			sent += s.PosBytes[pos]
		}
		st.exchangeBytes.Add(sent) // a node sends itself nothing
		for _, pos := range work.Recv[n] {
			op.RecvLens[n] = append(op.RecvLens[n], int(s.PosBytes[pos]))
			op.RecvCounts[n] += int(s.PosBytes[pos])
		}
		recvOff += op.RecvCounts[n]
	}
	if recvOff != len(recv) {
		panic(fmt.Sprintf("loader: exchange receives %d bytes in a region of %d", recvOff, len(recv)))
	}
	return op
}
