package schedule

import (
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// testLayout makes n positions in blocks of perBlock, owned in contiguous
// ranges by nodes, the first cachedShare of every node's blocks cached.
func testLayout(n, perBlock, nodes int, cached float64) *Layout {
	blocks := (n + perBlock - 1) / perBlock
	l := &Layout{Nodes: nodes, PosBlock: make([]int32, n), PosBytes: make([]int64, n), PosMeta: make([]int64, n),
		BlockCost: make([]int64, blocks), BlockOwner: make([]int32, blocks), BlockCached: make([]bool, blocks)}
	for p := range n {
		l.PosBlock[p] = int32(p / perBlock)
		l.PosBytes[p] = int64(100 + p%37)
		l.PosMeta[p] = 8
	}
	for b := range blocks {
		l.BlockCost[b] = int64(perBlock) * 200
		l.BlockOwner[b] = int32(b * nodes / blocks)
		share := blocks / nodes
		l.BlockCached[b] = float64(b%max(share, 1)) < cached*float64(share)
	}
	return l
}

func epochFor(t *testing.T, l *Layout, sizes []int, batch int, locality bool) *assign.Epoch {
	t.Helper()
	return epochOf(t, l, assign.Layout{Batch: batch, NodeSizes: sizes, Remainder: assign.Keep}, locality, 0)
}

// epochOf is epoch number epoch of a global shuffle on layout al.
func epochOf(t *testing.T, l *Layout, al assign.Layout, locality bool, epoch int) *assign.Epoch {
	t.Helper()
	order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 4}, epoch, len(l.PosBlock), nil)
	var owners assign.Owners
	if locality {
		owners = l.Owners()
	}
	e, err := assign.Ordered(order, al, owners)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestWindowsCoverAndFit(t *testing.T) {
	for _, cached := range []float64{0, 0.5, 1} {
		l := testLayout(2000, 4, 3, cached)
		e := epochFor(t, l, []int{2, 1, 2}, 8, true)
		for _, slot := range []int64{1, 5000, 40000, 1 << 40} {
			for _, first := range []int{0, 7} {
				ws := l.Windows(e, first, slot, nil)
				next := first
				for _, w := range ws {
					if w.First != next || w.Rounds() < 1 {
						t.Fatalf("cached %v slot %d: window %+v after round %d", cached, slot, w, next)
					}
					next = w.End
					if w.Rounds() > 1 {
						for n, b := range l.Need(e, w) {
							if b > slot {
								t.Fatalf("slot %d: window %+v needs %d bytes on node %d", slot, w, b, n)
							}
						}
					}
				}
				if next != e.Rounds() {
					t.Fatalf("windows end at round %d of %d", next, e.Rounds())
				}
				if slot == 1<<40 && len(ws) != 1 {
					t.Errorf("an unlimited slot gave %d windows", len(ws))
				}
			}
		}
	}
}

// TestWorkSymmetric checks that every pair of nodes agrees on what crosses
// between them, and that every learner's position is produced by its owner.
func TestWorkSymmetric(t *testing.T) {
	l := testLayout(1500, 3, 4, 0.5)
	for _, locality := range []bool{false, true} {
		e := epochFor(t, l, []int{1, 2, 2, 1}, 5, locality)
		for _, w := range l.Windows(e, 0, 30000, nil) {
			work := make([]Work, l.Nodes)
			for n := range work {
				work[n] = l.Work(e, w, n)
			}
			crossed := false
			for s := range work {
				for d := range work {
					if !slices.Equal(work[s].Send[d], work[d].Recv[s]) {
						t.Fatalf("window %+v: %d sends %d positions to %d, which expects %d", w, s, len(work[s].Send[d]), d, len(work[d].Recv[s]))
					}
					if s != d && len(work[s].Send[d]) > 0 {
						crossed = true
					}
				}
				for _, b := range work[s].Blocks {
					if int(l.BlockOwner[b]) != s {
						t.Fatalf("node %d lists block %d of node %d", s, b, l.BlockOwner[b])
					}
				}
			}
			if crossed != l.Crosses(e, w) {
				t.Fatalf("Crosses says %v, the work says %v", l.Crosses(e, w), crossed)
			}
		}
	}
}

func TestPlanCacheStored(t *testing.T) {
	// 20 blocks of 1000 bytes with 24-byte gaps: the planner reads through
	// the gaps, so the cache holds spans of the file, not bare blocks.
	pc := &Pieces{}
	for b := range 20 {
		pc.Ext = append(pc.Ext, source.Extent{Off: int64(b) * 1024, Len: 1000})
	}
	groups := [][]int32{{10, 11, 12, 13, 14}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	opt := planner.Options{MaxSpan: 4096, MaxGap: 100}
	c := PlanCache(20, groups, pc, nil, opt, 512, 7000)
	if c.Bytes > 7000 {
		t.Fatalf("cache uses %d of 7000", c.Bytes)
	}
	// Group 1 first: blocks 10-13 in one span (4096 - 24 bytes), 14 alone;
	// then blocks 0..3 would need another 4096 and do not fit: the span is
	// cut after block 0, the last that fits.
	for b := range int32(20) {
		want := b >= 10 && b <= 14 || b == 0
		if c.Cached(b) != want {
			t.Errorf("block %d cached %v, want %v", b, c.Cached(b), want)
		}
	}
	if c.At[11] != 1024 || c.At[14] != 4096 {
		t.Errorf("block 11 at %d, 14 at %d", c.At[11], c.At[14])
	}
	if len(c.Spans) != 3 || c.SpanOf[14] != 1 || c.At[0] != 5120 || c.Spans[2].Length != 1000 {
		t.Errorf("spans %d, block 14 in span %d", len(c.Spans), c.SpanOf[14])
	}
}

func TestPlanCacheDecoded(t *testing.T) {
	pc := &Pieces{Ext: make([]source.Extent, 6), First: []int32{0, 2, 4, 6}}
	c := PlanCache(3, [][]int32{{2, 0, 1}}, pc, func(int32) int64 { return 3000 }, planner.Options{}, 4096, 10000)
	if !c.Cached(2) || !c.Cached(0) || c.Cached(1) || c.At[2] != 0 || c.At[0] != 4096 || c.Bytes != 8192 {
		t.Errorf("cache %+v", c)
	}
	if zero := PlanCache(3, [][]int32{{0}}, pc, nil, planner.Options{}, 1, 0); zero.Cached(0) || zero.Bytes != 0 {
		t.Error("a cache of capacity 0 holds a block")
	}
}

// TestLocalLayout: with Local, nothing crosses between nodes; a node
// produces every block its learners need, its own or not.
func TestLocalLayout(t *testing.T) {
	l := testLayout(1000, 3, 2, 0.5)
	l.Local = true
	order := make([]int32, 1000)
	for i := range order {
		order[i] = int32(i)
	}
	e, err := assign.Sequential(order, assign.Layout{Batch: 7, NodeSizes: []int{2, 3}, Remainder: assign.Pad})
	if err != nil {
		t.Fatal(err)
	}
	foreign := 0
	for _, w := range l.Windows(e, 0, 20000, nil) {
		if l.Crosses(e, w) {
			t.Fatalf("window %+v crosses in a Local layout", w)
		}
		for n := range l.Nodes {
			wk := l.Work(e, w, n)
			for d := range l.Nodes {
				if len(wk.Send[d])+len(wk.Recv[d]) > 0 {
					t.Fatalf("node %d exchanges with %d", n, d)
				}
			}
			for _, b := range wk.Blocks {
				if int(l.BlockOwner[b]) != n {
					foreign++
				}
			}
		}
	}
	if foreign == 0 {
		t.Error("no node read a block of another: the share edges and padding should")
	}
}
