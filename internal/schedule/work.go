package schedule

import "github.com/lmdbio/lmdbio/pkg/assign"

// Work is one node's part of a window.
type Work struct {
	// Blocks are the blocks the node produces in the window, each once, in
	// the order they are first needed: its own blocks some learner needs,
	// and in Local layouts any other its learners need.
	Blocks []int32
	// Send[d] lists the positions this node sends to node d, Recv[s] the
	// positions it receives from node s, both in exchange order: round by
	// round, learner by learner, as in the learners' batches.
	Send, Recv [][]int32
}

// Work returns node's part of window w.
func (l *Layout) Work(e *assign.Epoch, w Window, node int) Work {
	wk := Work{Send: make([][]int32, l.Nodes), Recv: make([][]int32, l.Nodes)}
	seen := map[int32]bool{}
	deliveries(e, w.First, w.End, func(p int32, d int) {
		b := l.PosBlock[p]
		s := l.producer(p, d)
		if s == node && !seen[b] {
			seen[b] = true
			wk.Blocks = append(wk.Blocks, b)
		}
		switch {
		case s == d:
		case s == node:
			wk.Send[d] = append(wk.Send[d], p)
		case d == node:
			wk.Recv[s] = append(wk.Recv[s], p)
		}
	})
	return wk
}

// Crosses reports whether any record crosses between nodes in window w:
// when none does, the exchange of the window is skipped by every node.
func (l *Layout) Crosses(e *assign.Epoch, w Window) bool {
	for r := w.First; r < w.End; r++ {
		for d := range e.Nodes() {
			for local := range e.NodeSize(d) {
				for _, p := range e.Batch(d, local, r) {
					if l.producer(p, d) != d {
						return true
					}
				}
			}
		}
	}
	return false
}

// deliveries calls f for every position of rounds [first, end) of e and the
// node whose learner gets it, round by round, node by node, learner by
// learner.
func deliveries(e *assign.Epoch, first, end int, f func(p int32, d int)) {
	for r := first; r < end; r++ {
		for d := range e.Nodes() {
			for local := range e.NodeSize(d) {
				for _, p := range e.Batch(d, local, r) {
					f(p, d)
				}
			}
		}
	}
}
