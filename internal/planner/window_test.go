package planner

import (
	"math/rand/v2"
	"testing"
)

func TestWindowsCoverEveryBatchOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		batches := make([]int64, rng.IntN(40))
		for j := range batches {
			batches[j] = rng.Int64N(1 << 20)
		}
		target := rng.Int64N(4<<20) - 1000
		wins := Windows(batches, target)
		next := 0
		for k, w := range wins {
			if w[0] != next || w[1] <= w[0] {
				t.Fatalf("window %d is %v after %d", k, w, next)
			}
			var sum int64
			for _, b := range batches[w[0]:w[1]] {
				sum += b
			}
			last := k == len(wins)-1
			if !last && sum < target {
				t.Fatalf("window %d holds %d bytes, below target %d", k, sum, target)
			}
			if w[1]-w[0] > 1 && sum-batches[w[1]-1] >= target {
				t.Fatalf("window %d reached target %d before its last batch", k, target)
			}
			next = w[1]
		}
		if next != len(batches) {
			t.Fatalf("windows end at %d of %d batches", next, len(batches))
		}
	}
}

func TestWindowsPanicsOnNegativeBatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a negative batch size")
		}
	}()
	Windows([]int64{1, -1}, 10)
}
