package loader

import (
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/ring"
)

// batchRef is one learner's batch inside a window.
type batchRef struct {
	local   int   // learner's local rank
	round   int   // step of the epoch
	records []int // record indices, in delivery order
}

// window is a group of consecutive rounds that the node reader fetches
// together, and what it takes to hand them out: each batch's descriptor
// items, and the reads that must finish before the batch may go.
type window struct {
	epoch, no  int // no counts windows across epochs (the stagger token's number)
	batches    []batchRef
	ids        []uint64 // batch ids, as in the descriptors
	items      [][]ring.Item
	needs      [][]*spanRead // per batch, the reads that bring its records
	reads      []*spanRead
	endOfEpoch bool          // a marker: tell the learners the epoch is over
	released   chan struct{} // closed once the stagger token was passed on
}

// need records, for batch i, the read that brings a record, skipping
// repeats of the previous one (records of a batch mostly share reads).
func (w *window) need(i int, r *spanRead) {
	if r == nil {
		return
	}
	if n := len(w.needs[i]); n > 0 && w.needs[i][n-1] == r {
		return
	}
	w.needs[i] = append(w.needs[i], r)
}

// schedule cuts a node's epoch into windows. Every node has the same number
// of windows, so staggered readers pass their tokens in step.
type schedule struct {
	plan            *assign.Sequential
	node, learners  int
	roundsPerWindow int
}

func newSchedule(plan *assign.Sequential, node, learners int, ds *dataset, opt Options, maxLearners int) schedule {
	perWindow := 1
	if opt.Mode.COAL {
		roundBytes := int64(opt.Batch*maxLearners) * ds.meanRecord()
		perWindow = int(max(opt.Window/max(roundBytes, 1), 1))
	}
	return schedule{plan: plan, node: node, learners: learners, roundsPerWindow: perWindow}
}

// windows is the number of windows per epoch.
func (s schedule) windows() int {
	return (s.plan.Rounds() + s.roundsPerWindow - 1) / s.roundsPerWindow
}

// window lists the batches of window w of epoch, round by round, learner by
// learner: the order the learners consume them.
func (s schedule) window(epoch, w int) []batchRef {
	first := w * s.roundsPerWindow
	last := min(first+s.roundsPerWindow, s.plan.Rounds())
	var refs []batchRef
	for round := first; round < last; round++ {
		for local := 0; local < s.learners; local++ {
			refs = append(refs, batchRef{local: local, round: round,
				records: s.plan.Batch(epoch, s.node, local, round)})
		}
	}
	return refs
}
