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
		cuts := Cut(n, 3, func(int) int64 { return 1 }, func(int) bool { return true })
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
	cuts := Cut(n, 10, func(int) int64 { return 1 }, func(int) bool { return true })
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
	cuts := Cut(n, 40, sizes, func(p int) bool { return p%2 == 0 })
	o := Options{Shuffle: Chunk, Seed: 99, ChunkWindow: window}
	order := Order(o, 4, n, cuts)
	seq := ChunkSequence(o, 4, len(cuts)-1)
	at := 0
	for first := 0; first < len(seq); first += window {
		var want []int32
		for _, c := range seq[first:min(first+window, len(seq))] {
			for q := cuts[c]; q < cuts[c+1]; q++ {
				want = append(want, q)
			}
		}
		slices.Sort(want)
		got := slices.Clone(order[at : at+len(want)])
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("window at chunk %d: positions differ", first)
		}
		at += len(want)
	}
}

func TestCut(t *testing.T) {
	bytes := func(int) int64 { return 10 }
	every := func(int) bool { return true }
	odd := func(p int) bool { return p%2 == 0 } // blocks of two positions
	for _, c := range []struct {
		n      int
		target int64
		start  func(int) bool
		want   []int32
	}{
		{0, 30, every, []int32{0, 0}},
		{5, 30, every, []int32{0, 3, 5}},
		{6, 30, odd, []int32{0, 4, 6}},
		{4, 0, odd, []int32{0, 2, 4}},
		{3, 1000, every, []int32{0, 3}},
	} {
		if got := Cut(c.n, c.target, bytes, c.start); !slices.Equal(got, c.want) {
			t.Errorf("Cut(%d, %d) = %v, want %v", c.n, c.target, got, c.want)
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
	cuts := Cut(20, 4, func(int) int64 { return 1 }, func(int) bool { return true })
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
