package loader

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/pkg/assign"
)

// mark is a completion for layout tests: a name to compare.
type mark string

func (mark) wait(context.Context) error { return nil }

// testRecords is a run of 6 positions in 3 blocks of 2 on 2 nodes: blocks
// 0 and 1 on node 0, block 2 on node 1. Position p holds record
// posRecord[p]; record r has key "k<r>" and, when r is odd, label "L".
func testRecords(node int, local bool) recordLayout {
	s := &schedule.Layout{Nodes: 2, Local: local,
		PosBlock:   []int32{0, 0, 1, 1, 2, 2},
		PosBytes:   []int64{10, 11, 12, 13, 14, 15},
		BlockOwner: []int32{0, 0, 1},
	}
	rl := recordLayout{layout: s, node: node,
		posRecord: []int32{3, 0, 1, 2, 5, 4},
		blockOff:  []int64{100, 200, 300, 400, 500, 600}, // by record
		key:       func(r int) []byte { return fmt.Appendf(nil, "k%d", r) },
		label:     func(r int) []byte { return []byte(strings.Repeat("L", r%2)) },
	}
	for _, r := range rl.posRecord {
		s.PosMeta = append(s.PosMeta, int64(len(rl.key(int(r)))+len(rl.label(int(r)))))
	}
	return rl
}

func TestPlaceItems(t *testing.T) {
	arenaA := where{seg: segArena, off: 1000, done: mark("read A")}
	cacheB := where{seg: segCache, off: 64, done: mark("fill B")}
	arenaC := where{seg: segArena, off: 3000, done: mark("read C")}
	item := func(rec, seg, off, n, keyAt, labelLen int) handoff.Item {
		return handoff.Item{Record: int64(rec), Segment: uint32(seg), Offset: int64(off), Length: int64(n),
			KeyOffset: int64(keyAt), KeyLength: 2, LabelOffset: int64(keyAt + 2), LabelLength: int64(labelLen)}
	}
	for _, tc := range []struct {
		name      string
		local     bool
		loc       map[int32]where
		early     map[int32]int64 // positions that came early, at their offsets in the cache segment
		recv      [][]int32
		wantItems []handoff.Item
		wantNeeds []completion
		wantHits  int64
	}{{
		name: "own blocks where loaded, the rest in the receive region in send order",
		loc:  map[int32]where{0: arenaA, 1: cacheB},
		recv: [][]int32{nil, {4, 5}},
		// The receive region is at 5000: node 0's control word, then node
		// 1's and its values.
		wantItems: []handoff.Item{item(5, segArena, 5016, 14, 7000, 1), item(3, segArena, 1000+400, 10, 7003, 1),
			item(4, segArena, 5030, 15, 7006, 0), item(1, segCache, 64+200, 12, 7008, 1)},
		wantNeeds: []completion{mark("exchange"), mark("read A"), mark("exchange"), mark("fill B")},
		wantHits:  1,
	}, {
		name:  "a record that came early lies in the cache segment",
		loc:   map[int32]where{0: arenaA, 1: cacheB},
		early: map[int32]int64{5: 9000},
		recv:  [][]int32{nil, {4}},
		wantItems: []handoff.Item{item(5, segArena, 5016, 14, 7000, 1), item(3, segArena, 1000+400, 10, 7003, 1),
			item(4, segCache, 9000, 15, 7006, 0), item(1, segCache, 64+200, 12, 7008, 1)},
		wantNeeds: []completion{mark("exchange"), mark("read A"), mark("early"), mark("fill B")},
		wantHits:  1,
	}, {
		name:  "in a local layout the node produces every record itself",
		local: true,
		loc:   map[int32]where{0: arenaA, 1: cacheB, 2: arenaC},
		wantItems: []handoff.Item{item(5, segArena, 3000+600, 14, 7000, 1), item(3, segArena, 1000+400, 10, 7003, 1),
			item(4, segArena, 3000+500, 15, 7006, 0), item(1, segCache, 64+200, 12, 7008, 1)},
		wantNeeds: []completion{mark("read C"), mark("read A"), mark("read C"), mark("fill B")},
		wantHits:  1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rl := testRecords(0, tc.local)
			var id uint64
			w := newWindow(0, 0, []batchRef{{local: 0, pos: []int32{4, 0, 5, 2}}}, &id)
			ws := windowSources{loc: tc.loc, recv: tc.recv, recvAt: 5000, xchg: mark("exchange"), metaAt: 7000,
				cachedBefore: map[int32]bool{1: true}}
			if tc.early != nil {
				ws.early = func(pos int32) (int64, completion, bool) {
					off, ok := tc.early[pos]
					return off, mark("early"), ok
				}
			}
			hits := placeItems(rl, w, ws)
			if !slices.Equal(w.items[0], tc.wantItems) {
				t.Errorf("items\n %+v\nwant\n %+v", w.items[0], tc.wantItems)
			}
			if !slices.Equal(w.needs[0], tc.wantNeeds) {
				t.Errorf("needs %v, want %v", w.needs[0], tc.wantNeeds)
			}
			if hits != tc.wantHits {
				t.Errorf("hits %d, want %d", hits, tc.wantHits)
			}
			buf := make([]byte, 7011)
			copyMeta(rl, w, buf)
			if got := string(buf[7000:]); got != "k5Lk3Lk4k1L" {
				t.Errorf("keys and labels %q, want %q", got, "k5Lk3Lk4k1L")
			}
		})
	}
}

// TestPlaceItemsSkipsRepeatedNeeds: a batch whose records share a read
// waits for it once.
func TestPlaceItemsSkipsRepeatedNeeds(t *testing.T) {
	rl := testRecords(0, false)
	var id uint64
	w := newWindow(0, 0, []batchRef{{pos: []int32{0, 1, 2}}, {pos: []int32{3}}}, &id)
	placeItems(rl, w, windowSources{loc: map[int32]where{0: {done: mark("A")}, 1: {done: mark("B")}}})
	want := [][]completion{{mark("A"), mark("B")}, {mark("B")}}
	for i := range want {
		if !slices.Equal(w.needs[i], want[i]) {
			t.Errorf("batch %d needs %v, want %v", i, w.needs[i], want[i])
		}
	}
}

func TestWindowRooms(t *testing.T) {
	s := testRecords(0, false).layout
	refs := []batchRef{{pos: []int32{4, 0}}, {pos: []int32{5, 2}}}
	meta := int64(3 + 3 + 2 + 3) // k5L k3L k4 k1L
	for _, tc := range []struct {
		name    string
		crosses bool
		loaded  int64
		want    rooms
	}{
		{"stored as is, records cross", true, 4096, rooms{read: 4096, recv: 2*ctlBytes + 14 + 15, meta: meta, loaded: 4096}},
		{"nothing crosses: no receive region", false, 4096, rooms{read: 4096, meta: meta, loaded: 4096}},
		{"decoded: the room is filled from memory", true, 0, rooms{read: 4096, recv: 2*ctlBytes + 14 + 15, meta: meta}},
	} {
		got := windowRooms(s, refs, [][]int32{nil, {4, 5}}, tc.crosses, 4096, tc.loaded)
		if got != tc.want {
			t.Errorf("%s: rooms %+v, want %+v", tc.name, got, tc.want)
		}
		if base := int64(1 << 20); got.recvAt(base) != base+4096 || got.metaAt(base) != base+4096+got.recv ||
			got.total() != 4096+got.recv+meta {
			t.Errorf("%s: parts of the room overlap or leave gaps: %+v", tc.name, got)
		}
	}
}

func TestRecvDispls(t *testing.T) {
	s := &schedule.Layout{Nodes: 3, PosBytes: []int64{10, 20, 30, 40}}
	for _, tc := range []struct {
		recv       [][]int32
		wantDispls []int
		wantSize   int64
	}{
		{[][]int32{nil, nil, nil}, []int{0, 8, 16}, 24},
		{[][]int32{{0}, nil, {1, 3}}, []int{0, 18, 26}, 26 + 8 + 60},
		{nil, []int{0, 8, 16}, 24},
	} {
		displs, size := recvDispls(s, tc.recv)
		if !slices.Equal(displs, tc.wantDispls) || size != tc.wantSize {
			t.Errorf("recvDispls(%v) = %v, %d; want %v, %d", tc.recv, displs, size, tc.wantDispls, tc.wantSize)
		}
	}
}

// TestWindowBatches: a window's batches go round by round, learner by
// learner, as the learners consume them.
func TestWindowBatches(t *testing.T) {
	ep, err := assign.Sequential(identityPositions(24), assign.Layout{Batch: 2, NodeSizes: []int{2, 1}, Remainder: assign.Keep})
	if err != nil {
		t.Fatal(err)
	}
	refs := windowBatches(ep, schedule.Window{First: 1, End: 3}, 0)
	var got []string
	for _, r := range refs {
		got = append(got, fmt.Sprintf("r%d l%d %v", r.round, r.local, r.pos))
	}
	var want []string
	for r := 1; r < 3; r++ {
		for l := range 2 {
			want = append(want, fmt.Sprintf("r%d l%d %v", r, l, ep.Batch(0, l, r)))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("batches %v, want %v", got, want)
	}
}
