package schedule

import (
	"slices"

	"github.com/lmdbio/lmdbio/pkg/assign"
)

// Early splits off the records that cross between nodes in the epochs after
// the one that fills the caches, to be sent during the filling epoch
// instead. Those epochs' global batches take records from every part of
// the file, so their exchanges could otherwise only start once the fill's
// last reads are done, and a cached epoch is over in the time its exchange
// takes; sent early, each record travels in an exchange after the fill
// window that loads its block, in the order the owner reads them, while
// storage is still being read. The order of every epoch is known from the
// seed, so epochs further on can go early too, as long as the receivers
// have room.
//
// The split is a pure function of the layout, the epochs and every node's
// room, so every node computes the same one.
type Early struct {
	// Send[k][d] lists the positions this node sends to node d, Recv[k][s]
	// those it receives from node s, in the early exchange that follows
	// fill window k; both in file order (the order the owner reads them)
	// and each position once, so that the two ends agree.
	Send, Recv [][][]int32
	// Busy[k] says whether any record at all crosses in early exchange k:
	// the others are skipped by every node.
	Busy []bool
	// early[i] marks the positions that go early for the i-th next epoch,
	// on every node's behalf.
	early [][]bool
}

// Early plans the early exchanges of node's records: nexts are the epochs
// after fill, in order, and wins fill's windows; room[d] bounds the value
// bytes node d may receive early, for all of them together. A record goes
// early for an epoch when it crosses to another node in it, its owner
// caches its block, some fill window loads that block, it occurs once in
// that epoch (padding repeats a few records) and its receiver already gets
// it early for an earlier epoch or has room left; epochs take room in
// order, and each its records in its own order. A record follows the
// window after the one that first needs its block, so that the early
// exchange does not wait for reads the window's own batches do not (the
// last window's records follow it).
func (l *Layout) Early(fill *assign.Epoch, wins []Window, nexts []*assign.Epoch, room []int64, node int) *Early {
	k := len(wins)
	x := &Early{Send: make([][][]int32, k), Recv: make([][][]int32, k), Busy: make([]bool, k), early: make([][]bool, len(nexts))}
	for i := range nexts {
		x.early[i] = make([]bool, len(l.PosBlock))
	}
	if k == 0 {
		return x
	}
	for i := range k {
		x.Send[i], x.Recv[i] = make([][]int32, l.Nodes), make([][]int32, l.Nodes)
	}
	loaded := l.firstWindows(fill, wins)
	left := append([]int64(nil), room...)
	gets := map[[2]int32]bool{} // (receiver, position) pairs already going early
	// goes says whether position p, for node d, crosses early, and adds it
	// to an early exchange the first time d gets it.
	goes := func(p int32, d int, repeated []bool) bool {
		s, b := l.producer(p, d), l.PosBlock[p]
		if s == d || !l.BlockCached[b] || loaded[b] < 0 || repeated[p] {
			return false
		}
		key := [2]int32{int32(d), p}
		if gets[key] {
			return true
		}
		if left[d] < l.PosBytes[p] {
			return false
		}
		left[d] -= l.PosBytes[p]
		gets[key] = true
		w := min(loaded[b]+1, k-1)
		x.Busy[w] = true
		switch node {
		case s:
			x.Send[w][d] = append(x.Send[w][d], p)
		case d:
			x.Recv[w][s] = append(x.Recv[w][s], p)
		}
		return true
	}
	for i, next := range nexts {
		repeated := repeats(next, len(l.PosBlock))
		deliveries(next, 0, next.Rounds(), func(p int32, d int) {
			if goes(p, d, repeated) {
				x.early[i][p] = true
			}
		})
	}
	for w := range k {
		for n := range l.Nodes {
			slices.Sort(x.Send[w][n])
			slices.Sort(x.Recv[w][n])
		}
	}
	return x
}

// Epochs is the number of epochs after the fill that records go early for.
func (x *Early) Epochs() int { return len(x.early) }

// Went reports whether position p crosses early for the i-th next epoch.
func (x *Early) Went(i int, p int32) bool { return x.early[i][p] }

// Trim drops from a window of the i-th next epoch the records that went
// early.
func (x *Early) Trim(i int, w Work) Work {
	keep := func(lists [][]int32) [][]int32 {
		out := make([][]int32, len(lists))
		for n, list := range lists {
			for _, p := range list {
				if !x.early[i][p] {
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
