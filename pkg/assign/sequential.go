package assign

import "github.com/lmdbio/lmdbio/pkg/sampler"

// Sequential assigns pop (positions, in the order they are to be read) as
// LMDBIO does: node n takes the contiguous share Shares(len(pop), l)[n] of
// pop, and inside a node consecutive batches go round-robin to its learners.
// With Keep the short rest of a node's share, its last round, is spread
// evenly over its learners.
func Sequential(pop []int32, l Layout) (*Epoch, error) {
	return perNode(pop, l, func(_ int, share []int32) []int32 { return share })
}

// Local is Sequential with every node's share permuted for epoch (the
// shuffle local): each node still reads only its own share.
func Local(pop []int32, l Layout, seed uint64, epoch int) (*Epoch, error) {
	return perNode(pop, l, func(node int, share []int32) []int32 {
		return sampler.Permute(seed, epoch, node, share)
	})
}

// Shares returns where each node's Sequential share of n positions starts:
// len(NodeSizes)+1 values, node k's share being [s[k], s[k+1]), clamped to
// n. With Pad and DropLast every node but the last gets Rounds x Batch x its
// learners positions, so all take the same number of rounds and only the
// last pads or drops. With Keep the shares are proportional to the nodes'
// learners: a node's storage reads are as long as the others', and every
// node's last round is short, rather than the last node's alone being short
// or empty while the others read on.
func Shares(n int, l Layout) ([]int, error) {
	rounds, err := l.check(n)
	if err != nil {
		return nil, err
	}
	return shares(n, l, rounds), nil
}

func shares(n int, l Layout, rounds int) []int {
	if l.Remainder == Keep {
		return proportional(n, l.NodeSizes)
	}
	s := make([]int, len(l.NodeSizes)+1)
	for k, size := range l.NodeSizes {
		s[k+1] = min(s[k]+rounds*l.Batch*size, n)
	}
	s[len(s)-1] = n
	return s
}

// Cut returns where each node's share of n positions starts as the loader
// gives the file out to be read and cached, len(NodeSizes)+1 values: the
// Sequential Shares for an order cut per node (shuffle none or local),
// shares proportional to the nodes' learners for a world-independent one
// (chunk, global).
func Cut(n int, l Layout, s sampler.Shuffle) ([]int, error) {
	if s.WorldIndependent() {
		return proportional(n, l.NodeSizes), nil
	}
	return Shares(n, l)
}

// proportional cuts n positions into contiguous shares proportional to the
// nodes' learners: len(sizes)+1 values, node k's share being [s[k], s[k+1]).
// A share is at most ceil(n x size / learners) positions, which a node's
// learners take in as many rounds as the whole world needs.
func proportional(n int, sizes []int) []int {
	learners := int64(0)
	for _, size := range sizes {
		learners += int64(size)
	}
	s := make([]int, len(sizes)+1)
	acc := int64(0)
	for k, size := range sizes {
		acc += int64(size)
		s[k+1] = int(int64(n) * acc / max(learners, 1))
	}
	return s
}

// perNode builds an assignment in which every node serves its learners from
// its own share, put in order by arrange.
func perNode(pop []int32, l Layout, arrange func(node int, share []int32) []int32) (*Epoch, error) {
	rounds, err := l.check(len(pop))
	if err != nil {
		return nil, err
	}
	s := shares(len(pop), l, rounds)
	b := newBuilder(l, rounds, rounds*l.GlobalBatch())
	seqs := make([]nodeSeq, len(l.NodeSizes))
	next := 0 // unclamped start of the node's share
	for n, size := range l.NodeSizes {
		seqs[n] = nodeSeq{mine: arrange(n, pop[s[n]:s[n+1]]), pop: pop, start: next, pad: l.Remainder == Pad}
		next += rounds * l.Batch * size
	}
	for round := range rounds {
		for n, size := range l.NodeSizes {
			first, counts := (round*size)*l.Batch, nodeQuotas(l, size)
			if round == rounds-1 && l.Remainder == Keep {
				counts = even(max(len(seqs[n].mine)-first, 0), size)
			}
			for _, count := range counts {
				b.add(seqs[n].take(first, count)...)
				first += count
			}
		}
	}
	return b.e, nil
}

// nodeQuotas is Batch for each of a node's size learners: a full round.
func nodeQuotas(l Layout, size int) []int {
	q := make([]int, size)
	for j := range q {
		q[j] = l.Batch
	}
	return q
}

// nodeSeq is the sequence a node hands out: its arranged share, then, with
// Pad, positions from the start of pop, as if the share ran on past the end
// of the dataset and wrapped around.
type nodeSeq struct {
	mine  []int32
	pop   []int32
	start int // where the share would start without clamping
	pad   bool
}

func (q nodeSeq) take(first, count int) []int32 {
	if first+count <= len(q.mine) {
		return q.mine[first : first+count]
	}
	var out []int32
	if first < len(q.mine) {
		out = append(out, q.mine[first:]...)
	}
	if q.pad {
		for i := max(first, len(q.mine)); i < first+count; i++ {
			out = append(out, q.pop[(q.start+i)%len(q.pop)])
		}
	}
	return out
}
