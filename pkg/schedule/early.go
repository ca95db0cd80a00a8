package schedule

import "github.com/lmdbio/lmdbio/pkg/assign"

// Early splits off the records that cross between nodes in the epoch after
// the one that fills the caches, to be sent during the filling epoch
// instead. That next epoch's global batches take records from every part of
// the file, so its exchange could otherwise only start once the fill's last
// reads are done, with nothing left to hide it behind; sent early, each
// record travels in a small exchange after the fill window that loads its
// block, while storage is still being read.
//
// The split is a pure function of the layout, the two epochs and every
// node's room, so every node computes the same one.
type Early struct {
	// Send[k][d] lists the positions this node sends to node d, Recv[k][s]
	// those it receives from node s, in the early exchange that follows
	// fill window k; both in the next epoch's order, so that the two ends
	// agree.
	Send, Recv [][][]int32
	// Busy[k] says whether any record at all crosses in early exchange k:
	// the others are skipped by every node.
	Busy []bool
	// early marks the positions that go early, on every node's behalf.
	early []bool
}

// Early plans the early exchanges of node's records: next is the epoch
// after fill, whose windows from its starting round on are wins; room[d]
// bounds the value bytes node d may receive early. A record goes early when
// it crosses to another node in next, its owner caches its block, some
// fill window loads that block, it occurs once in next (padding repeats a
// few records) and its receiver has room left, in next's order. It follows
// the window after the one that first needs its block, so that the early
// exchange does not wait for reads the window's own batches do not (the
// last window's records follow it).
func (l *Layout) Early(fill *assign.Epoch, wins []Window, next *assign.Epoch, room []int64, node int) *Early {
	k := len(wins)
	x := &Early{Send: make([][][]int32, k), Recv: make([][][]int32, k), Busy: make([]bool, k), early: make([]bool, len(l.PosBlock))}
	if k == 0 {
		return x
	}
	for i := range k {
		x.Send[i], x.Recv[i] = make([][]int32, l.Nodes), make([][]int32, l.Nodes)
	}
	loaded := l.firstWindows(fill, wins)
	repeated := repeats(next, len(l.PosBlock))
	left := append([]int64(nil), room...)
	for r := range next.Rounds() {
		for d := range next.Nodes() {
			for local := range next.NodeSize(d) {
				for _, p := range next.Batch(d, local, r) {
					s, b := l.producer(p, d), l.PosBlock[p]
					if s == d || !l.BlockCached[b] || loaded[b] < 0 || repeated[p] || left[d] < l.PosBytes[p] {
						continue
					}
					left[d] -= l.PosBytes[p]
					x.early[p] = true
					w := min(loaded[b]+1, k-1)
					x.Busy[w] = true
					switch node {
					case s:
						x.Send[w][d] = append(x.Send[w][d], p)
					case d:
						x.Recv[w][s] = append(x.Recv[w][s], p)
					}
				}
			}
		}
	}
	return x
}

// Went reports whether position p crosses early.
func (x *Early) Went(p int32) bool { return x.early[p] }

// Trim drops from a window of the next epoch the records that went early.
func (x *Early) Trim(w Work) Work {
	keep := func(lists [][]int32) [][]int32 {
		out := make([][]int32, len(lists))
		for n, list := range lists {
			for _, p := range list {
				if !x.early[p] {
					out[n] = append(out[n], p)
				}
			}
		}
		return out
	}
	return Work{Blocks: w.Blocks, Send: keep(w.Send), Recv: keep(w.Recv)}
}

// firstWindows returns, for every block, the first of wins in which some
// record of it is delivered, -1 for none.
func (l *Layout) firstWindows(e *assign.Epoch, wins []Window) []int {
	first := make([]int, len(l.BlockOwner))
	for b := range first {
		first[b] = -1
	}
	for k, w := range wins {
		for r := w.First; r < w.End; r++ {
			for _, p := range e.Global(r) {
				if b := l.PosBlock[p]; first[b] < 0 {
					first[b] = k
				}
			}
		}
	}
	return first
}

// repeats marks the positions that occur more than once in e.
func repeats(e *assign.Epoch, n int) []bool {
	seen, again := make([]bool, n), make([]bool, n)
	for r := range e.Rounds() {
		for _, p := range e.Global(r) {
			again[p] = again[p] || seen[p]
			seen[p] = true
		}
	}
	return again
}
