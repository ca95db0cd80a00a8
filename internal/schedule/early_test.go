package schedule

import (
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
)

// TestEarly checks the early split on every node at once, for the two
// epochs after the fill: the two ends of every early exchange agree, in
// file order and each record once per receiver; only records that cross,
// are cached, loaded by the fill and occur once in their epoch go early,
// after the window following the one that first needs their block, within
// the receivers' room (a record a node gets early for both epochs takes
// room once); and every epoch's trimmed windows plus the early exchanges
// carry every crossing record exactly once.
func TestEarly(t *testing.T) {
	sizes := []int{2, 1, 2}
	for _, tc := range []struct {
		name     string
		cached   float64
		locality bool
		rem      assign.Remainder
		room     int64
	}{
		{"all cached, room for all", 1, true, assign.Keep, 1 << 40},
		{"locality off", 1, false, assign.Keep, 1 << 40},
		{"half cached", 0.5, true, assign.Keep, 1 << 40},
		{"little room", 1, false, assign.Keep, 3000},
		{"no room", 1, true, assign.Keep, 0},
		{"padded", 1, true, assign.Pad, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testLayout(2003, 4, 3, tc.cached)
			al := assign.Layout{Batch: 8, NodeSizes: sizes, Remainder: tc.rem}
			fill := epochOf(t, l, al, tc.locality, 0)
			nexts := []*assign.Epoch{epochOf(t, l, al, tc.locality, 1), epochOf(t, l, al, tc.locality, 2)}
			wins := l.Windows(fill, 0, 1<<40, every(10))
			room := []int64{tc.room, tc.room, tc.room}
			xs := make([]*Early, l.Nodes)
			for n := range xs {
				xs[n] = l.Early(fill, wins, nexts, room, n)
			}
			first := l.firstWindows(fill, wins)
			got := make([]int64, l.Nodes)
			sent := map[[2]int32]int{} // (receiver, position): early exchange
			for k := range wins {
				for s := range xs {
					if xs[s].Busy[k] != xs[0].Busy[k] {
						t.Fatalf("nodes 0 and %d disagree on whether early exchange %d runs", s, k)
					}
					for d := range xs {
						list := xs[s].Send[k][d]
						if !slices.Equal(list, xs[d].Recv[k][s]) {
							t.Fatalf("exchange %d: node %d sends %v to %d, which expects %v", k, s, list, d, xs[d].Recv[k][s])
						}
						if len(list) > 0 && !xs[0].Busy[k] {
							t.Fatalf("exchange %d carries records but is not busy", k)
						}
						if !slices.IsSorted(list) {
							t.Fatalf("exchange %d: node %d's records for %d are not in file order", k, s, d)
						}
						for _, p := range list {
							b, key := l.PosBlock[p], [2]int32{int32(d), p}
							if _, twice := sent[key]; twice {
								t.Fatalf("position %d goes early to node %d twice", p, d)
							}
							sent[key] = k
							switch {
							case l.Owner(p) != s || s == d:
								t.Fatalf("position %d of node %d sent early by %d to %d", p, l.Owner(p), s, d)
							case !l.BlockCached[b]:
								t.Fatalf("position %d of an uncached block went early", p)
							case k != min(first[b]+1, len(wins)-1):
								t.Fatalf("position %d, first needed in window %d, went after window %d", p, first[b], k)
							}
							got[d] += l.PosBytes[p]
						}
					}
				}
			}
			for d, n := range got {
				if n > tc.room {
					t.Fatalf("node %d receives %d bytes early, room %d", d, n, tc.room)
				}
			}
			early := 0
			for i, next := range nexts {
				repeated, dest := repeats(next, len(l.PosBlock)), destinations(next, len(l.PosBlock))
				went := 0
				for p := range l.PosBlock {
					if !xs[0].Went(i, int32(p)) {
						continue
					}
					went++
					if _, ok := sent[[2]int32{int32(dest[p]), int32(p)}]; !ok || repeated[p] {
						t.Fatalf("epoch %d: position %d marked early, but not sent to node %d (repeated %v)", i, p, dest[p], repeated[p])
					}
				}
				late := 0
				for _, w := range l.Windows(next, 0, 1<<40, every(7)) {
					for s := range xs {
						whole, trimmed := l.Work(next, w, s), xs[s].Trim(i, l.Work(next, w, s))
						for d := range xs {
							for _, p := range whole.Send[d] {
								if xs[0].Went(i, p) == slices.Contains(trimmed.Send[d], p) {
									t.Fatalf("epoch %d, position %d: went early %v, still in the trimmed window", i, p, xs[0].Went(i, p))
								}
							}
							if !slices.Equal(trimmed.Send[d], xs[d].Trim(i, l.Work(next, w, d)).Recv[s]) {
								t.Fatalf("epoch %d: trimmed windows disagree between %d and %d", i, s, d)
							}
							late += len(trimmed.Send[d])
						}
					}
				}
				crossing := 0
				for r := range next.Rounds() {
					for d := range next.Nodes() {
						for local := range next.NodeSize(d) {
							for _, p := range next.Batch(d, local, r) {
								if l.Owner(p) != d {
									crossing++
								}
							}
						}
					}
				}
				if went+late != crossing {
					t.Fatalf("epoch %d: %d early and %d late of %d crossing records", i, went, late, crossing)
				}
				if tc.cached == 1 && tc.room == 1<<40 && tc.rem == assign.Keep && late != 0 {
					t.Fatalf("epoch %d: %d records crossed late with room for all", i, late)
				}
				early += went
			}
			switch {
			case tc.room == 0 && early != 0:
				t.Fatalf("%d records went early without room", early)
			case tc.room > 0 && early == 0:
				t.Fatal("nothing went early")
			}
		})
	}
}

// destinations maps every position to the node whose learner gets it in e
// (the last one, for repeats).
func destinations(e *assign.Epoch, n int) []int {
	dest := make([]int, n)
	for r := range e.Rounds() {
		for d := range e.Nodes() {
			for local := range e.NodeSize(d) {
				for _, p := range e.Batch(d, local, r) {
					dest[p] = d
				}
			}
		}
	}
	return dest
}
