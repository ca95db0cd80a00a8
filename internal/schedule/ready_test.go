package schedule

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
)

// every cuts windows of n rounds.
func every(n int) func(start, r int) bool {
	return func(start, r int) bool { return r-start >= n }
}

// orderedEpoch is an epoch delivering order, batch 8 to learners 2, 1, 2.
func orderedEpoch(t *testing.T, l *Layout, order []int32) *assign.Epoch {
	t.Helper()
	e, err := assign.Ordered(order, assign.Layout{Batch: 8, NodeSizes: []int{2, 1, 2}, Remainder: assign.Keep}, l.Owners())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// chunked is an order of n positions owned by 3 nodes in equal
// contiguous shares, in groups that each take the next tenth of every
// node's share, shuffled inside the group: a chunk shuffle's windows.
func chunked(n int) []int32 {
	rng := rand.New(rand.NewPCG(1, 2))
	share, part := n/3, n/30
	var order []int32
	for g := range 10 {
		var group []int32
		for node := range 3 {
			for i := range part {
				group = append(group, int32(node*share+g*part+i))
			}
		}
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		order = append(order, group...)
	}
	return order
}

// shuffled is a random order of n positions.
func shuffled(n int) []int32 {
	order := make([]int32, n)
	for i, p := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
		order[i] = int32(p)
	}
	return order
}

func starts(ws []Window) []int {
	var out []int
	for _, w := range ws {
		out = append(out, w.First)
	}
	return out
}

// TestReadyCut checks the windows that follow the reads: one for a
// shuffle of the whole file filled in file order, one per group for
// groups that take from every node's share in turn (chunk windows), and
// never more than steps+1.
func TestReadyCut(t *testing.T) {
	const n = 4800 // 120 rounds of 40, 120 blocks of 40 records, 40 a node
	l := testLayout(n, 40, 3, 1)
	groups := []int{0, 12, 24, 36, 48, 60, 72, 84, 96, 108}
	for _, tc := range []struct {
		name   string
		order  []int32 // the epoch's positions
		atOnce bool    // the caches are filled at once, in file order
		want   []int   // the windows' first rounds, nil: any, at most 17
	}{
		{"whole file, filled at once", shuffled(n), true, []int{0}},
		{"whole file, filled as needed", shuffled(n), false, nil},
		{"groups, filled as needed", chunked(n), false, groups},
		{"groups, filled at once", chunked(n), true, groups},
		{"file order, filled as needed", identity(n), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := orderedEpoch(t, l, tc.order)
			got := starts(l.Windows(e, 0, 1<<40, l.ReadyCut(e, 0, tc.atOnce, 16)))
			if tc.want == nil && len(got) > 17 || tc.want != nil && !slices.Equal(got, tc.want) {
				t.Fatalf("windows start at rounds %v, want %v (nil: at most 17)", got, tc.want)
			}
		})
	}
}

func identity(n int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	return order
}

// TestReadyCutFromRound checks a cut that starts at a later round, as a
// resumed epoch does, and that the slot still bounds the windows.
func TestReadyCutFromRound(t *testing.T) {
	l := testLayout(4800, 40, 3, 1)
	e := orderedEpoch(t, l, chunked(4800))
	if got := starts(l.Windows(e, 30, 1<<40, l.ReadyCut(e, 30, false, 16))); !slices.Equal(got, []int{30, 36, 48, 60, 72, 84, 96, 108}) {
		t.Fatalf("windows from round 30 start at %v", got)
	}
	slot := l.MaxRoundNeed(e, 30) * 3
	for _, w := range l.Windows(e, 30, slot, l.ReadyCut(e, 30, false, 16)) {
		for node, need := range l.Need(e, w) {
			if w.Rounds() > 1 && need > slot {
				t.Fatalf("window %v needs %d bytes on node %d, slot %d", w, need, node, slot)
			}
		}
	}
}

// TestReadyCutReads checks that the cut follows the cache's fill reads,
// not its blocks: with blocks of 4 records, a group's first round needs
// only some of its blocks but every one of its reads of 10 blocks.
func TestReadyCutReads(t *testing.T) {
	const n = 4800
	l := testLayout(n, 4, 3, 1)
	l.BlockRead = make([]int32, len(l.BlockOwner))
	for b := range l.BlockRead {
		l.BlockRead[b] = int32(b / 10)
	}
	e := orderedEpoch(t, l, chunked(n))
	want := []int{0, 12, 24, 36, 48, 60, 72, 84, 96, 108}
	if got := starts(l.Windows(e, 0, 1<<40, l.ReadyCut(e, 0, false, 16))); !slices.Equal(got, want) {
		t.Fatalf("windows start at rounds %v, want %v", got, want)
	}
	l.BlockRead[7] = -1 // a block read alone
	if got := starts(l.Windows(e, 0, 1<<40, l.ReadyCut(e, 0, false, 16))); !slices.Equal(got, want) {
		t.Fatalf("with a block read alone, windows start at rounds %v, want %v", got, want)
	}
	l.BlockRead = nil
	if got := starts(l.Windows(e, 0, 1<<40, l.ReadyCut(e, 0, false, 16))); slices.Equal(got, want) || len(got) > 17 {
		t.Fatalf("block by block, windows start at rounds %v", got)
	}
}
