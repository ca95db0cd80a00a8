package loader

import (
	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/pkg/assign"
)

// The pure part of an index-mode window: which batches it holds, how much
// arena room it takes and how that room is split, and where every record
// of every batch lies. Nothing here touches storage, MPI or shared memory,
// so it is tested with tables (layout_test.go); the index producer
// (produce.go) does the rest.

// windowBatches lists node's batches of window sw, round by round, learner
// by learner: the order the learners consume them.
func windowBatches(ep *assign.Epoch, sw schedule.Window, node int) []batchRef {
	var refs []batchRef
	for r := sw.First; r < sw.End; r++ {
		for local := range ep.NodeSize(node) {
			refs = append(refs, batchRef{local: local, round: r, pos: ep.Batch(node, local, r)})
		}
	}
	return refs
}

// rooms are the parts of a window's arena room, in the order they lie
// from its base: the blocks read from storage, the records received from
// other nodes, then the keys and labels of every batch.
type rooms struct {
	read, recv, meta int64
	// loaded is the part of read that loads reserve page by page as they
	// read; the rest the arena reserves at once.
	loaded int64
}

func (r rooms) total() int64            { return r.read + r.recv + r.meta }
func (r rooms) recvAt(base int64) int64 { return base + r.read }
func (r rooms) metaAt(base int64) int64 { return base + r.read + r.recv }

// windowRooms splits a window's arena room: read bytes for its reads, of
// which the reads reserve loaded bytes themselves (see blockLoader.room),
// a receive region when records cross between nodes in it, and the keys
// and labels of refs.
func windowRooms(s *schedule.Layout, refs []batchRef, recv [][]int32, crosses bool, read, loaded int64) rooms {
	r := rooms{read: read, loaded: loaded}
	if crosses {
		_, r.recv = recvDispls(s, recv)
	}
	for _, ref := range refs {
		for _, pos := range ref.pos {
			r.meta += s.PosMeta[pos]
		}
	}
	return r
}

// recvDispls lays out an exchange's receive region: per source node, in
// node order, a control word and then the values of the positions recv
// lists for it. It returns where each node's part starts and the region's
// size.
func recvDispls(s *schedule.Layout, recv [][]int32) ([]int, int64) {
	displs := make([]int, s.Nodes)
	off := int64(0)
	for n := range s.Nodes {
		displs[n] = int(off)
		off += ctlBytes
		if n < len(recv) {
			for _, pos := range recv[n] {
				off += s.PosBytes[pos]
			}
		}
	}
	return displs, off
}

// recordLayout is what placing a window's records needs to know of the
// run: where each position's record lies in its block, and its key and
// label.
type recordLayout struct {
	layout    *schedule.Layout
	node      int
	posRecord []int32 // record at each position
	blockOff  []int64 // each record's offset in its (decoded) block
	key       func(rec int) []byte
	label     func(rec int) []byte
}

// windowSources say where a window's records come from.
type windowSources struct {
	// loc is where each block this node produces lies (arena, cache or
	// the data file) and what brings it there.
	loc map[int32]where
	// early says where a record received in an early exchange lies in the
	// cache segment, and that exchange; nil when none went early.
	early func(pos int32) (off int64, came completion, ok bool)
	// recv lists, per source node, the positions the window's exchange
	// brings; recvAt is its receive region in the arena, xchg the
	// exchange.
	recv   [][]int32
	recvAt int64
	xchg   completion
	// metaAt is where the keys and labels start in the arena.
	metaAt int64
	// cachedBefore says which blocks the cache held before this window:
	// records from them count as cache hits.
	cachedBefore map[int32]bool
}

// placeItems fills in the descriptor items of w's batches and what each
// batch waits for. A record this node produces lies in its block where
// loc says; one that came early lies in the cache segment; any other
// arrives in the window's receive region, each source node's in the order
// it sends them. Keys and labels are laid out one after another from
// metaAt (copyMeta copies them). It returns the records handed out from
// blocks the cache held before the window.
func placeItems(rl recordLayout, w *window, ws windowSources) (hits int64) {
	s := rl.layout
	displs, _ := recvDispls(s, ws.recv)
	recvNext := make([]int64, s.Nodes) // next value of each source in the receive region
	for src := range recvNext {
		recvNext[src] = ws.recvAt + int64(displs[src]) + ctlBytes
	}
	metaAt := ws.metaAt
	for i, ref := range w.batches {
		for _, pos := range ref.pos {
			rec := int(rl.posRecord[pos])
			it := handoff.Item{Record: int64(rec), Length: s.PosBytes[pos]}
			b := s.PosBlock[pos]
			if src := s.Owner(pos); s.Local || src == rl.node {
				l := ws.loc[b]
				it.Segment, it.Offset = l.seg, l.off+rl.blockOff[rec]
				w.need(i, l.done)
				if ws.cachedBefore[b] {
					hits++
				}
			} else if off, came, ok := earlyPlace(ws, pos); ok {
				it.Segment, it.Offset = segCache, off
				w.need(i, came)
			} else {
				it.Segment, it.Offset = segArena, recvNext[src]
				recvNext[src] += it.Length
				w.need(i, ws.xchg)
			}
			it.KeyOffset, it.KeyLength = metaAt, int64(len(rl.key(rec)))
			metaAt += it.KeyLength
			it.LabelOffset, it.LabelLength = metaAt, int64(len(rl.label(rec)))
			metaAt += it.LabelLength
			w.items[i] = append(w.items[i], it)
		}
	}
	return hits
}

func earlyPlace(ws windowSources, pos int32) (int64, completion, bool) {
	if ws.early == nil {
		return 0, nil, false
	}
	return ws.early(pos)
}

// copyMeta copies the keys and labels of w's items into buf where
// placeItems laid them out.
func copyMeta(rl recordLayout, w *window, buf []byte) {
	for _, items := range w.items {
		for _, it := range items {
			copy(buf[it.KeyOffset:it.KeyOffset+it.KeyLength], rl.key(int(it.Record)))
			copy(buf[it.LabelOffset:it.LabelOffset+it.LabelLength], rl.label(int(it.Record)))
		}
	}
}

// sentHits counts the records this node sends in work whose blocks the
// cache held before the window.
func sentHits(s *schedule.Layout, send [][]int32, cachedBefore map[int32]bool) int64 {
	var n int64
	for _, list := range send {
		for _, pos := range list {
			if cachedBefore[s.PosBlock[pos]] {
				n++
			}
		}
	}
	return n
}
