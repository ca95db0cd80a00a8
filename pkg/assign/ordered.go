package assign

// Owners says which node holds each position: the node that reads it from
// storage and keeps it in its cache.
type Owners func(pos int32) int

// Ordered cuts order (a world-independent epoch order) into global batches
// of Batch x learners positions, round by round. Without owners, learner j
// takes the j-th Batch positions of the global batch. With owners, the
// global batch is shared out with locality: every node first keeps the
// positions it owns, up to what its learners need, and the nodes short of
// positions take the others' surplus; a node's positions then go to its
// learners in order. Either way every learner's batch has the same size and
// every global batch the same set of positions.
func Ordered(order []int32, l Layout, owners Owners) (*Epoch, error) {
	rounds, err := l.check(len(order))
	if err != nil {
		return nil, err
	}
	global := l.GlobalBatch()
	b := newBuilder(l, rounds, rounds*global)
	var share sharer
	if owners != nil {
		share = newSharer(l, owners)
	}
	for round := range rounds {
		g := globalBatch(order, round, global, l.Remainder)
		quotas := l.quotas(len(g))
		if owners == nil {
			at := 0
			for _, q := range quotas {
				b.add(g[at : at+q]...)
				at += q
			}
			continue
		}
		share.assign(b, g, quotas)
	}
	return b.e, nil
}

// globalBatch returns round's positions of order; with Pad the last one is
// filled up from the start of order.
func globalBatch(order []int32, round, global int, r Remainder) []int32 {
	first := round * global
	if first+global <= len(order) {
		return order[first : first+global]
	}
	g := append([]int32(nil), order[first:]...)
	if r == Pad {
		g = append(g, order[:global-len(g)]...)
	}
	return g
}

// quotas says how many of a global batch's n positions each learner gets:
// Batch each, the short last batch of Keep filling learners in order.
func (l Layout) quotas(n int) []int {
	q := make([]int, l.Learners())
	for j := range q {
		q[j] = max(0, min(l.Batch, n-j*l.Batch))
	}
	return q
}

// sharer hands out global batches with locality. Its buffers are reused
// from round to round.
type sharer struct {
	l       Layout
	owners  Owners
	first   []int     // first learner of each node
	kept    [][]int32 // per node: the positions it keeps or receives
	surplus [][]int32 // per node: owned positions beyond its need
}

func newSharer(l Layout, owners Owners) sharer {
	s := sharer{l: l, owners: owners, first: make([]int, len(l.NodeSizes)+1),
		kept: make([][]int32, len(l.NodeSizes)), surplus: make([][]int32, len(l.NodeSizes))}
	for n, size := range l.NodeSizes {
		s.first[n+1] = s.first[n] + size
	}
	return s
}

// assign shares global batch g out by quotas and appends every learner's
// batch to b.
//
// Each node keeps the positions it owns, in g's order, up to its need; the
// rest is surplus. Then the nodes short of positions are filled, in node
// order, from the surpluses, also in node order: this moves exactly the
// total shortfall (no assignment moves less) and pairs up at most
// surplus-nodes + short-nodes - 1 node pairs, the bound of Yang and Cong's
// greedy exchange.
func (s *sharer) assign(b builder, g []int32, quotas []int) {
	need := make([]int, len(s.l.NodeSizes))
	for n := range need {
		for j := s.first[n]; j < s.first[n+1]; j++ {
			need[n] += quotas[j]
		}
		s.kept[n], s.surplus[n] = s.kept[n][:0], s.surplus[n][:0]
	}
	for _, p := range g {
		o := s.owners(p)
		if len(s.kept[o]) < need[o] {
			s.kept[o] = append(s.kept[o], p)
		} else {
			s.surplus[o] = append(s.surplus[o], p)
		}
	}
	from := 0
	for n := range need {
		for len(s.kept[n]) < need[n] {
			for len(s.surplus[from]) == 0 {
				from++
			}
			k := min(need[n]-len(s.kept[n]), len(s.surplus[from]))
			s.kept[n] = append(s.kept[n], s.surplus[from][:k]...)
			s.surplus[from] = s.surplus[from][k:]
		}
	}
	for n := range need {
		at := 0
		for j := s.first[n]; j < s.first[n+1]; j++ {
			b.add(s.kept[n][at : at+quotas[j]]...)
			at += quotas[j]
		}
	}
}
