package schedule

import "github.com/lmdbio/lmdbio/pkg/assign"

// ReadyCut returns the cut (see Windows) for an epoch that is delivered
// while it is read from storage: the one that fills the caches. A window's
// batches wait for its whole exchange, which waits for every node's reads
// of the window's records, so a window should hold only rounds that the
// reads make ready at about the same time; more windows would add
// exchanges, each a round trip between all node readers, and deliver
// nothing sooner. Round r is ready once every node has done the reads that
// the rounds from first to r need. The cut starts a new window at the
// first round that is ready more than 1/steps of the reads after the
// window's first round.
//
// With atOnce every node reads its whole cache at the first window, in
// fill order; otherwise each read is made when a round first needs it.
//
// So a global shuffle, whose first round needs reads from the whole file,
// is one window (as the slot allows); a chunk shuffle's windows follow its
// chunk windows; an epoch whose rounds become ready evenly is cut into
// about steps windows.
func (l *Layout) ReadyCut(e *assign.Epoch, first int, atOnce bool, steps int) func(start, r int) bool {
	ready := l.ready(e, first, atOnce)
	step := 1 / float64(max(steps, 1))
	return func(start, r int) bool { return ready[r-first]-ready[start-first] > step }
}

// ready returns, for every round from first on, the largest fraction of its
// reads that any node has done once the rounds up to it have all their
// blocks.
func (l *Layout) ready(e *assign.Epoch, first int, atOnce bool) []float64 {
	read, reads := l.readOf()
	cost, owner := make([]int64, reads), make([]int32, reads)
	for b, k := range read {
		cost[k] += l.BlockCost[b]
		owner[k] = l.BlockOwner[b]
	}
	var order []int32
	if atOnce {
		for k := range reads {
			order = append(order, int32(k))
		}
	} else {
		order = l.needOrder(e, first, read, reads)
	}
	total := make([]int64, l.Nodes)
	for _, k := range order {
		total[owner[k]] += cost[k]
	}
	done := make([]float64, reads) // where each read ends, of its node's reads
	sum := make([]int64, l.Nodes)
	for _, k := range order {
		sum[owner[k]] += cost[k]
		done[k] = float64(sum[owner[k]]) / float64(max(total[owner[k]], 1))
	}
	out := make([]float64, max(0, e.Rounds()-first))
	most := 0.0
	for i := range out {
		for _, p := range e.Global(first + i) {
			most = max(most, done[read[l.PosBlock[p]]])
		}
		out[i] = most
	}
	return out
}

// readOf numbers the reads that load every block: BlockRead's, then one
// for every block without.
func (l *Layout) readOf() (read []int32, reads int) {
	read = make([]int32, len(l.BlockOwner))
	for b := range read {
		read[b] = -1
		if l.BlockRead != nil {
			read[b] = l.BlockRead[b]
		}
		reads = max(reads, int(read[b])+1)
	}
	for b, k := range read {
		if k < 0 {
			read[b] = int32(reads)
			reads++
		}
	}
	return read, reads
}

// needOrder lists the reads in the order the rounds from first on first
// need them.
func (l *Layout) needOrder(e *assign.Epoch, first int, read []int32, reads int) []int32 {
	seen := make([]bool, reads)
	var order []int32
	for r := first; r < e.Rounds(); r++ {
		for _, p := range e.Global(r) {
			if k := read[l.PosBlock[p]]; !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	return order
}
