package assign

import "math"

// Owners says which node holds each position: the node that reads it from
// storage and keeps it in its cache.
type Owners func(pos int32) int

// Ordered cuts order (a world-independent epoch order) into global batches
// of Batch x learners positions, round by round. Without owners, learner j
// takes the j-th Batch positions of the global batch. With owners, the
// global batch is shared out with locality: every node first keeps the
// positions it owns, up to what its learners need, and the nodes short of
// positions take the others' surplus; a node's positions then go to its
// learners the same way, each learner first taking those of its home range
// (see homes). Either way every learner's batch has the same size and
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
		share = newSharer(l, owners, order)
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
// Batch each; a short last round of Keep is spread evenly (see even).
func (l Layout) quotas(n int) []int {
	learners := l.Learners()
	if n < l.Batch*learners {
		return even(n, learners)
	}
	q := make([]int, learners)
	for j := range q {
		q[j] = l.Batch
	}
	return q
}

// even spreads n positions over k learners as PyTorch's DistributedSampler
// spreads the records it does not pad: every learner gets n/k, and the
// first n%k one more. Filling learners in order instead would leave the
// last ones empty batches (16/12/0/0 where DistributedSampler gives
// 7/7/7/7), which trainers average into a NaN loss.
func even(n, k int) []int {
	q := make([]int, k)
	for j := range q {
		q[j] = n / k
		if j < n%k {
			q[j]++
		}
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
	homes   homes
	mine    [][]int32 // per learner of the node being shared out: its batch
	rest    []int32   // that node's positions no learner took as its own
}

func newSharer(l Layout, owners Owners, order []int32) sharer {
	s := sharer{l: l, owners: owners, first: make([]int, len(l.NodeSizes)+1),
		kept: make([][]int32, len(l.NodeSizes)), surplus: make([][]int32, len(l.NodeSizes)),
		mine: make([][]int32, l.Learners())}
	for n, size := range l.NodeSizes {
		s.first[n+1] = s.first[n] + size
	}
	s.homes = newHomes(order, owners, s.first)
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
// greedy exchange. Last, each node's positions go to its learners (split).
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
		s.split(b, n, quotas)
	}
}

// split gives node n's positions to its learners: each first takes those
// in its home range, in g's order, up to its quota; the learners then
// short of their quota take the others' in order.
func (s *sharer) split(b builder, n int, quotas []int) {
	lo, hi := s.first[n], s.first[n+1]
	for j := lo; j < hi; j++ {
		s.mine[j] = s.mine[j][:0]
	}
	s.rest = s.rest[:0]
	for _, p := range s.kept[n] {
		if j := s.homes.learner(p, s.owners(p)); j >= lo && j < hi && len(s.mine[j]) < quotas[j] {
			s.mine[j] = append(s.mine[j], p)
		} else {
			s.rest = append(s.rest, p)
		}
	}
	at := 0
	for j := lo; j < hi; j++ {
		k := quotas[j] - len(s.mine[j])
		s.mine[j] = append(s.mine[j], s.rest[at:at+k]...)
		at += k
		b.add(s.mine[j]...)
	}
}

// homes cuts the positions every node owns into one range per learner of
// the node, in file order: a learner's home range. A node owns a
// contiguous range of the file and keeps it in its cache; a learner that
// gets the records of its home range in every epoch meets the same pages of
// that cache every epoch, as in the file's order, and not new ones after a
// shuffle. Where a process's first touch of a page is dear, a learner
// meeting new pages every epoch pays that for most of what it reads
// (docs/decisions/0003-first-touch.md). Which learner of a node gets which
// position is free: the set of every global batch, and so every node's
// share of it, does not change.
type homes struct {
	first  []int // first learner of each node
	lo, hi []int // per node: the lowest and one past the highest position it owns
}

func newHomes(order []int32, owners Owners, first []int) homes {
	nodes := len(first) - 1
	h := homes{first: first, lo: make([]int, nodes), hi: make([]int, nodes)}
	for n := range h.lo {
		h.lo[n] = math.MaxInt
	}
	for _, p := range order {
		n := owners(p)
		h.lo[n], h.hi[n] = min(h.lo[n], int(p)), max(h.hi[n], int(p)+1)
	}
	return h
}

// learner is the learner whose home range holds position p, owned by node
// owner.
func (h homes) learner(p int32, owner int) int {
	size := h.first[owner+1] - h.first[owner]
	span := h.hi[owner] - h.lo[owner]
	return h.first[owner] + (int(p)-h.lo[owner])*size/span
}
