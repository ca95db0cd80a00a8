package assign

// Epoch is one epoch's assignment: in every round, every learner's batch.
// Learners are numbered node by node: node n's local rank l is learner
// First(n)+l. An Epoch is immutable once built and safe for concurrent use.
type Epoch struct {
	rounds   int
	first    []int   // first learner of each node; len nodes+1
	pos      []int32 // all batches, round by round, learner by learner
	start    []int32 // batch k is pos[start[k]:start[k+1]], k = round*learners+learner
	learners int
}

// Rounds is the number of batches every learner gets.
func (e *Epoch) Rounds() int { return e.rounds }

// Learners is the number of learners.
func (e *Epoch) Learners() int { return e.learners }

// Nodes is the number of nodes.
func (e *Epoch) Nodes() int { return len(e.first) - 1 }

// NodeSize is the number of learners of node n.
func (e *Epoch) NodeSize(n int) int { return e.first[n+1] - e.first[n] }

// First is the learner number of node n's local rank 0.
func (e *Epoch) First(n int) int { return e.first[n] }

// Batch returns the positions learner local of node gets in round, in the
// order it gets them. The slice aliases the Epoch: do not modify it.
func (e *Epoch) Batch(node, local, round int) []int32 {
	return e.batch(round*e.learners + e.first[node] + local)
}

// Learner returns learner j's batch of round.
func (e *Epoch) Learner(j, round int) []int32 { return e.batch(round*e.learners + j) }

// Global returns the positions of round's global batch, learner by learner.
func (e *Epoch) Global(round int) []int32 {
	return e.pos[e.start[round*e.learners]:e.start[(round+1)*e.learners]]
}

func (e *Epoch) batch(k int) []int32 {
	a, b := e.start[k], e.start[k+1]
	return e.pos[a:b:b]
}

// builder appends batches in round-major, learner order.
type builder struct{ e *Epoch }

func newBuilder(l Layout, rounds, capacity int) builder {
	e := &Epoch{rounds: rounds, learners: l.Learners(), first: make([]int, len(l.NodeSizes)+1)}
	for n, s := range l.NodeSizes {
		e.first[n+1] = e.first[n] + s
	}
	e.pos = make([]int32, 0, capacity)
	e.start = make([]int32, 1, rounds*e.learners+1)
	return builder{e}
}

// add appends the next learner's batch.
func (b builder) add(batch ...int32) {
	b.e.pos = append(b.e.pos, batch...)
	b.e.start = append(b.e.start, int32(len(b.e.pos)))
}
