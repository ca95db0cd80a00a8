package emu

import (
	"sync"
	"testing"
	"time"
)

func TestBucketReserve(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type step struct {
		at   time.Time
		n    int64
		wait time.Duration
	}
	// 1000 bytes per second, burst 100 bytes: one byte per millisecond.
	tests := []struct {
		name  string
		steps []step
	}{
		{"burst is free", []step{{at(0), 100, 0}}},
		{"beyond the burst waits", []step{{at(0), 100, 0}, {at(0), 100, 100 * time.Millisecond}}},
		{"waits queue up first come first served", []step{
			{at(0), 100, 0}, {at(0), 50, 50 * time.Millisecond}, {at(0), 50, 100 * time.Millisecond}}},
		{"refill over time", []step{{at(0), 100, 0}, {at(60), 100, 40 * time.Millisecond}}},
		{"refill stops at the burst", []step{{at(0), 100, 0}, {at(10_000), 150, 50 * time.Millisecond}}},
		{"large request larger than burst", []step{{at(0), 1100, time.Second}}},
		{"debt is repaid before new grants", []step{{at(0), 300, 200 * time.Millisecond}, {at(100), 10, 110 * time.Millisecond}}},
		{"clock going backwards is the last time", []step{{at(50), 100, 0}, {at(10), 10, 10 * time.Millisecond}}},
		{"zero bytes", []step{{at(0), 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBucket(1000, 100, t0)
			for i, s := range tt.steps {
				got := b.Reserve(s.at, s.n)
				if d := got - s.wait; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("step %d: Reserve(%v, %d) = %v, want %v", i, s.at.Sub(t0), s.n, got, s.wait)
				}
			}
		})
	}
}

// TestBucketLongRunRate checks the rate a saturated bucket grants over a long
// fake time span, whatever the request sizes: every grant is paid for.
func TestBucketLongRunRate(t *testing.T) {
	const rate = 1e6
	t0 := time.Unix(0, 0)
	b := NewBucket(rate, 64<<10, t0)
	now := t0
	var sent int64
	for i := 0; i < 1000; i++ {
		n := int64(4096 * (1 + i%32))
		now = now.Add(b.Reserve(now, n)) // the caller waits, then asks again
		sent += n
	}
	// The burst is free, everything after it is paid at the rate.
	want := time.Duration(float64(sent-64<<10) / rate * float64(time.Second))
	if d := now.Sub(t0) - want; d < -time.Millisecond || d > time.Millisecond {
		t.Fatalf("sent %d bytes in %v of fake time, want %v", sent, now.Sub(t0), want)
	}
}

// TestBucketConcurrent checks that concurrent reservations at one instant
// are charged in some order with no grant lost: the waits are the multiples
// of one request's cost.
func TestBucketConcurrent(t *testing.T) {
	t0 := time.Unix(0, 0)
	b := NewBucket(1000, 10, t0)
	const n = 50
	waits := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); waits[i] = b.Reserve(t0, 10) }()
	}
	wg.Wait()
	seen := map[time.Duration]bool{}
	for _, w := range waits {
		ms := (w + 500*time.Microsecond) / time.Millisecond * time.Millisecond
		seen[ms] = true
	}
	for i := range n {
		if w := time.Duration(i*10) * time.Millisecond; !seen[w] {
			t.Fatalf("no request waits %v; waits %v", w, waits)
		}
	}
}

func TestNewBucketPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewBucket(0, 1) did not panic")
		}
	}()
	NewBucket(0, 1, time.Now())
}
