package loader

import (
	"context"

	"github.com/lmdbio/lmdbio/pkg/assign"
)

// fixedSchedule cuts a node's epoch into windows of a fixed number of
// rounds, for the cursor modes: without an index the records' sizes are
// unknown, so windows are sized from the mean record. Every node has the
// same number of windows, so staggered readers pass their tokens in step.
type fixedSchedule struct {
	plan            *assign.Epoch
	node, learners  int
	roundsPerWindow int
	err             error
}

func newFixedSchedule(ds *dataset, opt Options, sizes []int, node int) fixedSchedule {
	records := make([]int32, ds.Records)
	for i := range records {
		records[i] = int32(i)
	}
	plan, err := assign.Sequential(records, assign.Layout{Batch: opt.Batch, NodeSizes: sizes, Remainder: opt.Remainder})
	perWindow := 1
	if opt.Mode.COAL {
		roundBytes := int64(opt.Batch) * int64(sum(sizes)) * ds.meanRecord() / int64(len(sizes))
		perWindow = int(max(opt.Window/max(roundBytes, 1), 1))
	}
	return fixedSchedule{plan: plan, node: node, learners: sizes[node], roundsPerWindow: perWindow, err: err}
}

// windows is the number of windows per epoch.
func (s fixedSchedule) windows() int {
	return (s.plan.Rounds() + s.roundsPerWindow - 1) / s.roundsPerWindow
}

// window lists the batches of window w, round by round, learner by learner:
// the order the learners consume them. The epoch does not change the
// database's order.
func (s fixedSchedule) window(w int) []batchRef {
	first := w * s.roundsPerWindow
	last := min(first+s.roundsPerWindow, s.plan.Rounds())
	var refs []batchRef
	for round := first; round < last; round++ {
		for local := 0; local < s.learners; local++ {
			pos := s.plan.Batch(s.node, local, round)
			recs := make([]int, len(pos))
			for i, p := range pos {
				recs[i] = int(p)
			}
			refs = append(refs, batchRef{local: local, round: round, records: recs})
		}
	}
	return refs
}

// arenaBytes is the shared memory a node needs: Prefetch windows being read
// ahead plus the one the learners consume.
func (s fixedSchedule) arenaBytes(f fetcher, ds *dataset, opt Options) int64 {
	need := int64(0)
	for w := 0; w < s.windows(); w++ {
		need = max(need, f.windowBytes(s.window(w)))
	}
	if need == 0 { // unknown sizes (no index): estimate from the mean record
		for _, r := range s.window(0) {
			need += int64(len(r.records)) * ds.meanRecord() * 2
		}
	}
	need = roundUp(need+alignment, alignment)
	return int64(opt.Prefetch+1) * need
}

// produceCursor fetches the windows of every epoch in order, for the
// cursor modes, and queues their reads and their hand-out.
func (ld *leader) produceCursor(ctx context.Context, ioq chan<- storageRead, pending chan<- *window) error {
	no := 0
	for epoch := 0; epoch < ld.opt.Epochs; epoch++ {
		for i := 0; i < ld.sched.windows(); i++ {
			w := newWindow(epoch, no, ld.sched.window(i), &ld.nextID)
			no++
			if err := ld.fetch.fetch(ctx, w, ld.acquire(w.no)); err != nil {
				return err
			}
			for _, l := range w.loads {
				if err := sendCtx(ctx, ioq, l); err != nil {
					return err
				}
			}
			if err := sendCtx(ctx, pending, w); err != nil {
				return err
			}
			if err := ld.waitTurnPassed(ctx, w); err != nil {
				return err
			}
		}
		if err := sendCtx(ctx, pending, &window{epoch: epoch, endOfEpoch: true}); err != nil {
			return err
		}
	}
	return nil
}
