package sampler

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/orders.golden")

func isPermutation(p []int32, n int) bool {
	seen := make([]bool, n)
	for _, q := range p {
		if q < 0 || int(q) >= n || seen[q] {
			return false
		}
		seen[q] = true
	}
	return len(p) == n
}

func TestOrderIsPermutation(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		cuts := Cut(n, 3, 1, func(int) int64 { return 1 }, func(int) bool { return true })
		for _, sh := range []Shuffle{None, Chunk, Global} {
			for epoch := range 3 {
				o := Options{Shuffle: sh, Seed: 42, ChunkWindow: 2}
				if p := Order(o, epoch, n, cuts); !isPermutation(p, n) {
					t.Fatalf("%v n=%d epoch %d: not a permutation: %v", sh, n, epoch, p)
				}
			}
		}
	}
}

func TestOrderDeterministicAndVaried(t *testing.T) {
	const n = 500
	cuts := Cut(n, 10, 1, func(int) int64 { return 1 }, func(int) bool { return true })
	for _, sh := range []Shuffle{Chunk, Global} {
		o := Options{Shuffle: sh, Seed: 7, ChunkWindow: 3}
		a, b := Order(o, 1, n, cuts), Order(o, 1, n, cuts)
		if !slices.Equal(a, b) {
			t.Fatalf("%v: same arguments, different orders", sh)
		}
		if slices.Equal(a, Order(o, 2, n, cuts)) {
			t.Errorf("%v: epochs 1 and 2 have the same order", sh)
		}
		o2 := o
		o2.Seed = 8
		if slices.Equal(a, Order(o2, 1, n, cuts)) {
			t.Errorf("%v: seeds 7 and 8 give the same order", sh)
		}
	}
	if p := Order(Options{}, 3, 5, nil); !slices.Equal(p, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("None: %v", p)
	}
}

// TestChunkWindows checks DIESEL's structure: every window of ChunkWindow
// chunks in the chunk sequence occupies one contiguous stretch of the order,
// holding exactly those chunks' positions.
func TestChunkWindows(t *testing.T) {
	const n, window = 1000, 3
	sizes := func(p int) int64 { return int64(1 + p%7) }
	cuts := Cut(n, 40, 1, sizes, func(p int) bool { return p%2 == 0 })
	o := Options{Shuffle: Chunk, Seed: 99, ChunkWindow: window}
	order := Order(o, 4, n, cuts)
	at := 0
	for i, w := range ChunkWindows(o, 4, len(cuts)-1) {
		var want []int32
		for _, c := range w {
			for q := cuts[c]; q < cuts[c+1]; q++ {
				want = append(want, q)
			}
		}
		slices.Sort(want)
		got := slices.Clone(order[at : at+len(want)])
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("window %d: positions differ", i)
		}
		at += len(want)
	}
	if at != n {
		t.Fatalf("windows cover %d of %d positions", at, n)
	}
}

// Every window takes one chunk from each of ChunkWindow equal stretches of
// the file (strata), so nodes owning contiguous shares own equal parts of
// it: all windows are full but at most one longer than half a window, or
// some take one stratum's extra chunk; every chunk is dealt once.
func TestChunkWindowsStratified(t *testing.T) {
	for _, tc := range []struct{ chunks, window int }{
		{0, 8}, {1, 8}, {5, 8}, {8, 8}, {9, 8}, {12, 8}, {13, 8}, {33, 8}, {64, 8}, {35, 4}, {10, 1}, {100, 7}, {11, 10},
	} {
		o := Options{Shuffle: Chunk, Seed: uint64(tc.chunks), ChunkWindow: tc.window}
		strata := min(tc.window, max(tc.chunks, 1))
		stratum := func(c int32) int { // the s with s*chunks/strata <= c < (s+1)*chunks/strata
			s := 0
			for int(c) >= (s+1)*tc.chunks/strata {
				s++
			}
			return s
		}
		seen := make([]bool, tc.chunks)
		short, long := 0, 0
		for _, w := range ChunkWindows(o, 2, tc.chunks) {
			switch {
			case len(w) < strata:
				short++
				if 2*len(w) <= strata && len(w) <= tc.chunks/strata { // could have joined the full windows
					t.Errorf("%+v: window %v of at most half the strata", tc, w)
				}
			case len(w) > strata:
				long++
			}
			took := map[int]int{}
			for _, c := range w {
				if seen[c] {
					t.Fatalf("%+v: chunk %d dealt twice", tc, c)
				}
				seen[c] = true
				took[stratum(c)]++
			}
			if len(took) != min(len(w), strata) {
				t.Errorf("%+v: window %v takes strata %v", tc, w, took)
			}
		}
		if short > 1 || short > 0 && long > 0 || slices.Contains(seen, false) {
			t.Fatalf("%+v: %d short and %d long windows, dealt %v", tc, short, long, seen)
		}
		if tc.chunks >= 16 && slices.Equal(ChunkSequence(o, 2, tc.chunks), ChunkSequence(o, 3, tc.chunks)) {
			t.Fatalf("%+v: epochs 2 and 3 visit the chunks alike", tc)
		}
	}
}

func TestCut(t *testing.T) {
	bytes := func(int) int64 { return 10 }
	every := func(int) bool { return true }
	odd := func(p int) bool { return p%2 == 0 } // blocks of two positions
	for _, c := range []struct {
		n, window int
		target    int64
		start     func(int) bool
		want      []int32
	}{
		{0, 1, 30, every, []int32{0, 0}},
		{5, 1, 30, every, []int32{0, 3, 5}},
		{6, 1, 30, odd, []int32{0, 4, 6}},
		{4, 1, 0, odd, []int32{0, 2, 4}},
		{3, 1, 1000, every, []int32{0, 3}},
		{10, 4, 30, every, []int32{0, 4, 7, 10}},                                     // 3 chunks, fewer than a window
		{40, 4, 30, every, []int32{0, 4, 7, 10, 14, 17, 20, 24, 27, 30, 34, 37, 40}}, // 13 chunks -> 12
		{40, 4, 60, every, []int32{0, 5, 10, 15, 20, 25, 30, 35, 40}},                // 7 chunks -> 8
	} {
		if got := Cut(c.n, c.target, c.window, bytes, c.start); !slices.Equal(got, c.want) {
			t.Errorf("Cut(%d, %d, %d) = %v, want %v", c.n, c.target, c.window, got, c.want)
		}
	}
}

// TestGlobalUniform is a loose check that every position is equally likely
// at every place: over many epochs, position 0 lands in each tenth of the
// order about equally often.
func TestGlobalUniform(t *testing.T) {
	const n, epochs = 100, 20000
	var hist [10]int
	for e := range epochs {
		p := Order(Options{Shuffle: Global, Seed: 1}, e, n, nil)
		hist[slices.Index(p, 0)/10]++
	}
	for i, h := range hist {
		if h < epochs/10*85/100 || h > epochs/10*115/100 {
			t.Errorf("tenth %d holds position 0 %d times of %d, want about %d", i, h, epochs, epochs/10)
		}
	}
}

func TestPermuteLocal(t *testing.T) {
	share := []int32{10, 11, 12, 13, 14, 15}
	a := Permute(3, 1, 0, share)
	if !slices.Equal(share, []int32{10, 11, 12, 13, 14, 15}) {
		t.Fatal("Permute changed its input")
	}
	b := Permute(3, 1, 1, share)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, share) || !slices.Equal(b, share) {
		t.Fatal("not a permutation of the share")
	}
}

func TestParseShuffle(t *testing.T) {
	for _, name := range ShuffleNames() {
		s, err := ParseShuffle(name)
		if err != nil || s.String() != name {
			t.Errorf("%q: %v %v", name, s, err)
		}
	}
	if _, err := ParseShuffle("random"); err == nil || !strings.Contains(err.Error(), "none, chunk, global, local") {
		t.Errorf("bad name: %v", err)
	}
}

// TestOrdersGolden pins the generator: a saved resume state names an epoch
// and a count of batches done, which is only meaningful if the order of that
// epoch never changes between releases.
func TestOrdersGolden(t *testing.T) {
	var b strings.Builder
	cuts := Cut(20, 4, 1, func(int) int64 { return 1 }, func(int) bool { return true })
	for _, o := range []Options{{Shuffle: Global, Seed: 0}, {Shuffle: Global, Seed: 12345},
		{Shuffle: Chunk, Seed: 7, ChunkWindow: 2}} {
		for epoch := range 2 {
			fmt.Fprintf(&b, "%v seed=%d epoch=%d: %v\n", o.Shuffle, o.Seed, epoch, Order(o, epoch, 20, cuts))
		}
	}
	fmt.Fprintf(&b, "local seed=5 epoch=1 node=2: %v\n", Permute(5, 1, 2, identity(0, 12)))
	const path = "testdata/orders.golden"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("orders changed:\n%s\nwant:\n%s", b.String(), want)
	}
}
