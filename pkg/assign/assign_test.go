package assign

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/sampler"
)

var update = flag.Bool("update", false, "rewrite testdata/epochs.golden")

func identity(n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	return p
}

// ownedBy gives positions to nodes in contiguous ranges proportional to
// their learners: a stand-in for the loader's storage shares.
func ownedBy(n int, sizes []int) Owners {
	learners := 0
	for _, s := range sizes {
		learners += s
	}
	return func(p int32) int {
		at := int(p) * learners / max(n, 1)
		for node, s := range sizes {
			if at < s {
				return node
			}
			at -= s
		}
		return len(sizes) - 1
	}
}

// builders are every way to make an Epoch, for the invariant tests.
var builders = map[string]func(order []int32, l Layout) (*Epoch, error){
	"sequential": Sequential,
	"local":      func(o []int32, l Layout) (*Epoch, error) { return Local(o, l, 9, 2) },
	"ordered":    func(o []int32, l Layout) (*Epoch, error) { return Ordered(o, l, nil) },
	"locality": func(o []int32, l Layout) (*Epoch, error) {
		return Ordered(o, l, ownedBy(len(o), l.NodeSizes))
	},
}

func TestInvariants(t *testing.T) {
	for name, build := range builders {
		for _, n := range []int{0, 1, 7, 64, 100, 1001} {
			for _, batch := range []int{1, 3, 8} {
				for _, nodes := range [][]int{{1}, {4}, {2, 2}, {3, 1, 2}} {
					for _, rem := range []Remainder{DropLast, Pad, Keep} {
						l := Layout{Batch: batch, NodeSizes: nodes, Remainder: rem}
						order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 1}, 0, n, nil)
						checkEpoch(t, name, order, l, build)
					}
				}
			}
		}
	}
}

func checkEpoch(t *testing.T, name string, order []int32, l Layout, build func([]int32, Layout) (*Epoch, error)) {
	t.Helper()
	n := len(order)
	e, err := build(order, l)
	what := fmt.Sprintf("%s n=%d %+v", name, n, l)
	if err != nil {
		if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: %v", what, err)
		}
		if l.Remainder == Keep || l.Remainder == Pad && n >= l.GlobalBatch() || l.Remainder == DropLast && n >= l.GlobalBatch() {
			t.Fatalf("%s: unexpected %v", what, err)
		}
		return
	}
	// Sequential and Local cut the records into nodes' shares first, so
	// short batches come last within each node; Ordered cuts the world's.
	perNode := name == "sequential" || name == "local"
	seen := make([]int, n)
	for round := range e.Rounds() {
		size := -1
		total := 0
		for node, learners := range l.NodeSizes {
			if perNode {
				size = -1
			}
			for local := range learners {
				b := e.Batch(node, local, round)
				total += len(b)
				if l.Remainder != Keep && len(b) != l.Batch {
					t.Fatalf("%s: batch of %d, want %d", what, len(b), l.Batch)
				}
				if size >= 0 && len(b) > size && l.Remainder == Keep {
					t.Fatalf("%s: a later learner got a larger short batch", what)
				}
				size = len(b)
				for _, p := range b {
					seen[p]++
				}
			}
		}
		if l.Remainder == Keep {
			checkEven(t, what, e, round)
		}
		if len(e.Global(round)) != total {
			t.Fatalf("%s: Global(%d) has %d positions, batches %d", what, round, len(e.Global(round)), total)
		}
	}
	dropped := 0
	for p, c := range seen {
		switch {
		case c == 0:
			dropped++
			if l.Remainder != DropLast {
				t.Fatalf("%s: position %d never delivered", what, p)
			}
		case c > 1 && l.Remainder != Pad:
			t.Fatalf("%s: position %d delivered %d times", what, p, c)
		case c > 2:
			t.Fatalf("%s: position %d padded more than once", what, p)
		}
	}
	if dropped >= l.GlobalBatch() {
		t.Fatalf("%s: dropped %d, a whole round", what, dropped)
	}
}

// TestLocalityKeepsGlobalBatches checks that locality changes who gets a
// position, never which positions form a global batch, and that it moves
// exactly the positions no assignment could keep local.
func TestLocalityKeepsGlobalBatches(t *testing.T) {
	const n = 1000
	for _, nodes := range [][]int{{2, 2}, {1, 3}, {4}, {1, 1, 1, 1, 1}} {
		l := Layout{Batch: 7, NodeSizes: nodes, Remainder: Keep}
		order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 3}, 1, n, nil)
		owners := ownedBy(n, nodes)
		plain, _ := Ordered(order, l, nil)
		local, err := Ordered(order, l, owners)
		if err != nil {
			t.Fatal(err)
		}
		movedPlain, movedLocal := 0, 0
		for round := range plain.Rounds() {
			a, b := slices.Clone(plain.Global(round)), slices.Clone(local.Global(round))
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("%v round %d: locality changed the global batch", nodes, round)
			}
			movedPlain += crossing(plain, round, owners)
			moved := crossing(local, round, owners)
			movedLocal += moved
			if want := shortfall(plain, round, owners); moved != want {
				t.Fatalf("%v round %d: locality moved %d positions, the least possible is %d", nodes, round, moved, want)
			}
		}
		if len(nodes) > 1 && movedLocal*5 > movedPlain {
			t.Errorf("%v: locality moved %d positions, without it %d", nodes, movedLocal, movedPlain)
		}
	}
}

// TestLocalityHomes: with locality, every learner takes as many positions
// of its home range as its node's share of the global batch holds and its
// batch has room for, in every round: no other split of the same node
// shares gives it more. Over an epoch, most positions reach their home
// learner (without the homes a node's learners split its share in order,
// and a learner got about 1/size of its positions from its home range).
func TestLocalityHomes(t *testing.T) {
	const n = 2000
	for _, nodes := range [][]int{{4}, {2, 2}, {3, 1, 2}, {4, 4}} {
		for _, rem := range []Remainder{Keep, Pad} {
			l := Layout{Batch: 16, NodeSizes: nodes, Remainder: rem}
			order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 5}, 2, n, nil)
			owners := ownedBy(n, nodes)
			e, err := Ordered(order, l, owners)
			if err != nil {
				t.Fatal(err)
			}
			first := []int{0}
			for _, size := range nodes {
				first = append(first, first[len(first)-1]+size)
			}
			h := newHomes(order, owners, first)
			home, all := 0, 0
			for round := range e.Rounds() {
				for node := range e.Nodes() {
					homed := map[int]int{} // the node's positions of the round, by home learner
					for local := range e.NodeSize(node) {
						for _, p := range e.Batch(node, local, round) {
							if owners(p) == node {
								homed[h.learner(p, node)]++
							}
						}
					}
					for local := range e.NodeSize(node) {
						j, got := first[node]+local, 0
						batch := e.Batch(node, local, round)
						for _, p := range batch {
							if owners(p) == node && h.learner(p, node) == j {
								got++
							}
						}
						if want := min(len(batch), homed[j]); got != want {
							t.Fatalf("%v %v round %d: learner %d got %d positions of its home range, could have %d", nodes, rem, round, j, got, want)
						}
						home += got
						all += len(batch)
					}
				}
			}
			if home*10 < all*8 {
				t.Errorf("%v %v: %d of %d positions reached their home learner", nodes, rem, home, all)
			}
		}
	}
}

// crossing counts the positions of round that go to a node other than
// their owner.
func crossing(e *Epoch, round int, owners Owners) int {
	c := 0
	for node := range e.Nodes() {
		for local := range e.NodeSize(node) {
			for _, p := range e.Batch(node, local, round) {
				if owners(p) != node {
					c++
				}
			}
		}
	}
	return c
}

// shortfall is the least number of positions that must cross: the sum over
// nodes of what they need beyond what they own.
func shortfall(e *Epoch, round int, owners Owners) int {
	own := make([]int, e.Nodes())
	for _, p := range e.Global(round) {
		own[owners(p)]++
	}
	s := 0
	for node := range e.Nodes() {
		need := 0
		for local := range e.NodeSize(node) {
			need += len(e.Batch(node, local, round))
		}
		s += max(0, need-own[node])
	}
	return s
}

func TestSequentialShares(t *testing.T) {
	l := Layout{Batch: 5, NodeSizes: []int{2, 2}, Remainder: Keep}
	e, err := Sequential(identity(100), l)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[3]int]int32{ // (node, local, round) -> first position
		{0, 0, 0}: 0, {0, 1, 0}: 5, {0, 0, 1}: 10, {1, 0, 0}: 50, {1, 1, 4}: 95,
	}
	for k, first := range want {
		if got := e.Batch(k[0], k[1], k[2]); got[0] != first {
			t.Errorf("node %d local %d round %d starts at %d, want %d", k[0], k[1], k[2], got[0], first)
		}
	}
	s, _ := Shares(100, l)
	if !slices.Equal(s, []int{0, 50, 100}) {
		t.Errorf("shares %v", s)
	}
}

// TestKeepSharesBalanced: with Keep every node's share is proportional to
// its learners, within one record, so no node reads a round's worth more
// than another; with Pad and DropLast the shares are whole rounds but the
// last's.
func TestKeepSharesBalanced(t *testing.T) {
	for _, c := range []struct {
		n, batch int
		nodes    []int
	}{
		{20000, 64, []int{4, 4, 4, 4, 4, 4, 4, 4}}, // 10 rounds: 7 x 2560 + 2080 before
		{9*2048 + 1, 64, []int{4, 4, 4, 4, 4, 4, 4, 4}},
		{1001, 3, []int{3, 1, 2}},
		{5, 8, []int{2, 2}},
	} {
		l := Layout{Batch: c.batch, NodeSizes: c.nodes, Remainder: Keep}
		s, err := Shares(c.n, l)
		if err != nil {
			t.Fatal(err)
		}
		learners := l.Learners()
		for k, size := range c.nodes {
			got, ideal := s[k+1]-s[k], float64(c.n*size)/float64(learners)
			if math.Abs(float64(got)-ideal) >= 1 {
				t.Errorf("n=%d %v: node %d has %d records, want %.1f", c.n, c.nodes, k, got, ideal)
			}
		}
		e, err := Sequential(identity(c.n), l)
		if err != nil {
			t.Fatal(err)
		}
		for k := range c.nodes { // each node hands out exactly its share
			got := 0
			for local := range e.NodeSize(k) {
				for round := range e.Rounds() {
					got += len(e.Batch(k, local, round))
				}
			}
			if got != s[k+1]-s[k] {
				t.Errorf("n=%d %v: node %d delivers %d records, its share is %d", c.n, c.nodes, k, got, s[k+1]-s[k])
			}
		}
	}
	for _, rem := range []Remainder{Pad, DropLast} {
		s, _ := Shares(1000, Layout{Batch: 10, NodeSizes: []int{3, 3, 3}, Remainder: rem})
		if s[1] != s[2]-s[1] || s[1]%30 != 0 {
			t.Errorf("%v: shares %v, want whole rounds of 30 records but the last", rem, s)
		}
	}
}

// TestEdgeNumbers: numbers from users must give errors, never a panic, an
// overflow or an allocation out of proportion to the dataset.
func TestEdgeNumbers(t *testing.T) {
	order := identity(1000)
	for _, c := range []struct {
		batch int
		nodes []int
		rem   Remainder
	}{
		{4611686018427387904, []int{4}, Keep},
		{math.MaxInt64, []int{2, 2}, Pad},
		{99999999999, []int{4}, Pad},
		{99999999999, []int{4}, DropLast},
		{0, []int{4}, Keep},
		{-1, []int{4}, Keep},
		{1, []int{0}, Keep},
		{1, nil, Keep},
	} {
		l := Layout{Batch: c.batch, NodeSizes: c.nodes, Remainder: c.rem}
		for name, build := range builders {
			if _, err := build(order, l); err == nil {
				t.Errorf("%s %+v: no error", name, l)
			}
		}
	}
	// A batch larger than the dataset with Keep is one short round, spread
	// over the learners.
	e, err := Ordered(order, Layout{Batch: 99999999999, NodeSizes: []int{1}, Remainder: Keep}, nil)
	if err == nil {
		t.Errorf("batch beyond 2^31 accepted: %d rounds", e.Rounds())
	}
	e, err = Ordered(order, Layout{Batch: 5000, NodeSizes: []int{2}, Remainder: Keep}, nil)
	if err != nil || e.Rounds() != 1 || len(e.Learner(0, 0)) != 500 || len(e.Learner(1, 0)) != 500 {
		t.Errorf("keep with a batch larger than the dataset: %v", err)
	}
}

func TestParseRemainder(t *testing.T) {
	for _, s := range []string{"drop-last", "pad", "keep"} {
		r, err := ParseRemainder(s)
		if err != nil || r.String() != s {
			t.Errorf("%q -> %v, %v", s, r, err)
		}
	}
	if _, err := ParseRemainder("x"); err == nil {
		t.Error("want error")
	}
	var zero Remainder
	if zero != Pad {
		t.Error("the zero Remainder must be Pad: the default never drops records")
	}
}

// TestGolden pins small assignments of every builder in an expected-output
// file, so a change in who gets what is seen in review.
func TestGolden(t *testing.T) {
	var out strings.Builder
	order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 5}, 0, 23, nil)
	for _, name := range []string{"sequential", "local", "ordered", "locality"} {
		for _, l := range []Layout{{Batch: 3, NodeSizes: []int{2, 1}, Remainder: Keep},
			{Batch: 2, NodeSizes: []int{1, 1, 2}, Remainder: Pad}} {
			in := order
			if name == "sequential" || name == "local" {
				in = identity(23)
			}
			e, err := builders[name](in, l)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s batch=%d nodes=%v %v:\n", name, l.Batch, l.NodeSizes, l.Remainder)
			for round := range e.Rounds() {
				fmt.Fprintf(&out, "  round %d:", round)
				for j := range e.Learners() {
					fmt.Fprintf(&out, " %v", e.Learner(j, round))
				}
				out.WriteString("\n")
			}
		}
	}
	const path = "testdata/epochs.golden"
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("assignments changed:\n%s\nwant:\n%s", out.String(), want)
	}
}
