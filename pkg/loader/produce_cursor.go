package loader

import (
	"context"
	"os"

	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/pkg/assign"
)

// cursorWindows cuts a node's epoch into windows of a fixed number of
// rounds, for the cursor modes: without an index the records' sizes are
// unknown, so windows are sized from the mean record. Every node has the
// same number of windows, so staggered readers pass their tokens in step.
type cursorWindows struct {
	plan            *assign.Epoch
	node, learners  int
	roundsPerWindow int
	err             error
}

func newCursorWindows(ds *dataset, opt Options, sizes []int, node int) cursorWindows {
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
	return cursorWindows{plan: plan, node: node, learners: sizes[node], roundsPerWindow: perWindow, err: err}
}

// windows is the number of windows per epoch.
func (s cursorWindows) windows() int {
	return (s.plan.Rounds() + s.roundsPerWindow - 1) / s.roundsPerWindow
}

// window lists the batches of window w, round by round, learner by learner:
// the order the learners consume them. The epoch does not change the
// database's order.
func (s cursorWindows) window(w int) []batchRef {
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
func (s cursorWindows) arenaBytes(f *cursorFetcher, ds *dataset, opt Options) int64 {
	need := int64(0)
	for w := 0; w < s.windows(); w++ {
		need = max(need, f.windowBytes(s.window(w)))
	}
	if need == 0 { // unknown sizes (no index): estimate from the plan's records
		for _, r := range s.window(0) {
			need += int64(len(r.records)) * cursorRecordRoom(ds, opt)
		}
	}
	need = roundUp(need+alignment, alignment)
	return int64(opt.Prefetch+1) * need
}

// cursorRecordRoom is the arena room one record of a cursor window is given
// when sizes are unknown: twice the mean record, for records larger than the
// mean. With DIO, a window whose batches span too many bytes falls back to
// reading each record on its own (fetchDirect), and every such read starts
// at an aligned place, so each record may also take up to a page of
// alignment: on a small dataset of small records, that page is most of the
// room.
func cursorRecordRoom(ds *dataset, opt Options) int64 {
	room := ds.meanRecord() * 2
	if opt.Mode.DIO {
		room += alignment
	}
	return room
}

// cursorProducer makes the windows of the cursor modes (lmm, lmm+dio):
// without an index, a cursor walk finds the records, window by window, in
// the database's order; there is no node cache and no exchange.
type cursorProducer struct {
	*nodeParts
	wins   cursorWindows
	fetch  *cursorFetcher
	nextID uint64
}

func newCursorProducer(parts *nodeParts, sizes []int) (*cursorProducer, error) {
	wins := newCursorWindows(parts.ds, parts.opt, sizes, parts.node)
	if wins.err != nil {
		return nil, wins.err
	}
	f, err := openCursorFetcher(parts.ds, parts.opt)
	if err != nil {
		return nil, err
	}
	return &cursorProducer{nodeParts: parts, wins: wins, fetch: f}, nil
}

// memory: windows are sized from the mean record, and there is no cache.
func (p *cursorProducer) memory() (capacity, spare int64, err error) { return 0, 0, nil }

// join: nothing crosses between nodes.
func (p *cursorProducer) join([]int64, []int64, func() error) error { return nil }

func (p *cursorProducer) arenaBytes() int64 { return p.wins.arenaBytes(p.fetch, p.ds, p.opt) }

func (p *cursorProducer) attach(string) error {
	p.fetch.attach(p.arena, p.buf)
	return nil
}

func (p *cursorProducer) segments() []*os.File { return nil }

func (p *cursorProducer) configure(c *runConfig) {
	c.Direct = p.rd != nil && p.rd.Direct() || p.opt.Mode.DIO && p.opt.Direct
	c.Rounds = p.wins.plan.Rounds()
	c.FirstRounds = c.Rounds
}

// firstEpoch: a cursor run does not resume.
func (p *cursorProducer) firstEpoch() int { return 0 }

func (p *cursorProducer) epochWindows(int) (int, error) { return p.wins.windows(), nil }

// window fetches window k of epoch: the epoch does not change the
// database's order.
func (p *cursorProducer) window(ctx context.Context, epoch, k, no int, acquire func() error, q queues) (*window, error) {
	w := newWindow(epoch, no, p.wins.window(k), &p.nextID)
	if err := p.fetch.fetch(ctx, w, acquire); err != nil {
		return nil, err
	}
	for _, l := range w.loads {
		if err := sendCtx(ctx, q.io, l); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (p *cursorProducer) turns() int { return p.opt.Epochs * p.wins.windows() }

func (p *cursorProducer) readStats() reader.Stats { return p.fetch.stats() }

func (p *cursorProducer) close(bool) error { return p.fetch.close() }
