package assign

import (
	"errors"
	"testing"
)

func TestSequentialInvariants(t *testing.T) {
	for _, records := range []int{0, 1, 7, 64, 100, 1001} {
		for _, batch := range []int{1, 3, 8} {
			for _, nodes := range [][]int{{1}, {4}, {2, 2}, {3, 1, 2}} {
				for _, rem := range []Remainder{DropLast, Pad, Keep} {
					checkLayout(t, Layout{Records: records, Batch: batch, NodeSizes: nodes, Remainder: rem})
				}
			}
		}
	}
}

func checkLayout(t *testing.T, l Layout) {
	t.Helper()
	s, err := NewSequential(l)
	learners := 0
	for _, n := range l.NodeSizes {
		learners += n
	}
	if err != nil {
		if !errors.Is(err, ErrEmpty) {
			t.Fatalf("%+v: %v", l, err)
		}
		if l.Remainder == Keep || l.Remainder == Pad && l.Records > 0 || l.Records >= l.Batch*learners {
			t.Fatalf("%+v: unexpected ErrEmpty", l)
		}
		return
	}
	seen := make([]int, l.Records)
	for node, size := range l.NodeSizes {
		for local := 0; local < size; local++ {
			for round := 0; round < s.Rounds(); round++ {
				b := s.Batch(0, node, local, round)
				if l.Remainder != Keep && len(b) != l.Batch {
					t.Fatalf("%+v: batch of %d records, want %d", l, len(b), l.Batch)
				}
				for _, r := range b {
					if r < 0 || r >= l.Records {
						t.Fatalf("%+v: record %d out of range", l, r)
					}
					seen[r]++
				}
			}
		}
	}
	dropped := 0
	for r, n := range seen {
		switch {
		case n == 0:
			dropped++
			if l.Remainder != DropLast {
				t.Fatalf("%+v: record %d never delivered", l, r)
			}
		case n > 1 && l.Remainder != Pad:
			t.Fatalf("%+v: record %d delivered %d times", l, r, n)
		}
	}
	if dropped >= l.Batch*learners {
		t.Fatalf("%+v: dropped %d records, a whole round", l, dropped)
	}
}

// TestSequentialContiguous checks that a node's share is one contiguous range
// and that a node's learners take its batches round-robin.
func TestSequentialContiguous(t *testing.T) {
	s, err := NewSequential(Layout{Records: 100, Batch: 5, NodeSizes: []int{2, 2}, Remainder: Keep})
	if err != nil {
		t.Fatal(err)
	}
	want := map[[3]int]int{ // (node, local, round) -> first record
		{0, 0, 0}: 0, {0, 1, 0}: 5, {0, 0, 1}: 10, {1, 0, 0}: 50, {1, 1, 4}: 95,
	}
	for k, first := range want {
		if got := s.Batch(0, k[0], k[1], k[2]); got[0] != first {
			t.Errorf("node %d local %d round %d starts at %d, want %d", k[0], k[1], k[2], got[0], first)
		}
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
}
