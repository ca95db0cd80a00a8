package schedule

import (
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
)

// TestEarly checks the early split on every node at once: the two ends of
// every early exchange agree, only records that cross, are cached, loaded
// by the fill and occur once go early, after the window following the one
// that first needs their block, within the receivers' room, and the next
// epoch's trimmed windows plus the early exchanges carry every crossing
// record exactly once.
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
			fill, next := epochOf(t, l, al, tc.locality, 0), epochOf(t, l, al, tc.locality, 1)
			wins := l.Windows(fill, 0, 1<<40, every(10))
			room := []int64{tc.room, tc.room, tc.room}
			xs := make([]*Early, l.Nodes)
			for n := range xs {
				xs[n] = l.Early(fill, wins, next, room, n)
			}
			first := l.firstWindows(fill, wins)
			repeated := repeats(next, len(l.PosBlock))
			dest := destinations(next, len(l.PosBlock))
			got := make([]int64, l.Nodes)
			early := 0
			for k := range wins {
				for s := range xs {
					if xs[s].Busy[k] != xs[0].Busy[k] {
						t.Fatalf("nodes 0 and %d disagree on whether early exchange %d runs", s, k)
					}
					for d := range xs {
						if !slices.Equal(xs[s].Send[k][d], xs[d].Recv[k][s]) {
							t.Fatalf("exchange %d: node %d sends %v to %d, which expects %v", k, s, xs[s].Send[k][d], d, xs[d].Recv[k][s])
						}
						if len(xs[s].Send[k][d]) > 0 && !xs[0].Busy[k] {
							t.Fatalf("exchange %d carries records but is not busy", k)
						}
						for _, p := range xs[s].Send[k][d] {
							b := l.PosBlock[p]
							switch {
							case l.Owner(p) != s || dest[p] != d || s == d:
								t.Fatalf("position %d of node %d, for node %d, sent early by %d to %d", p, l.Owner(p), dest[p], s, d)
							case !l.BlockCached[b] || repeated[p]:
								t.Fatalf("position %d went early: cached %v, repeated %v", p, l.BlockCached[b], repeated[p])
							case k != min(first[b]+1, len(wins)-1):
								t.Fatalf("position %d, first needed in window %d, went after window %d", p, first[b], k)
							}
							got[d] += l.PosBytes[p]
							early++
						}
					}
				}
			}
			for d, n := range got {
				if n > tc.room {
					t.Fatalf("node %d receives %d bytes early, room %d", d, n, tc.room)
				}
			}
			late := 0
			for _, w := range l.Windows(next, 0, 1<<40, every(7)) {
				for s := range xs {
					whole, trimmed := l.Work(next, w, s), xs[s].Trim(l.Work(next, w, s))
					for d := range xs {
						for _, p := range whole.Send[d] {
							if xs[0].Went(p) == slices.Contains(trimmed.Send[d], p) {
								t.Fatalf("position %d: went early %v, still in the trimmed window", p, xs[0].Went(p))
							}
						}
						if !slices.Equal(trimmed.Send[d], xs[d].Trim(l.Work(next, w, d)).Recv[s]) {
							t.Fatalf("trimmed windows disagree between %d and %d", s, d)
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
			if early+late != crossing {
				t.Fatalf("%d early and %d late of %d crossing records", early, late, crossing)
			}
			wantAll := tc.cached == 1 && tc.room == 1<<40 && tc.rem == assign.Keep
			switch {
			case wantAll && late != 0:
				t.Fatalf("%d records crossed late with room for all", late)
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
