package emu

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestSizeBin(t *testing.T) {
	tests := []struct {
		size int64
		bin  int
	}{
		{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3},
		{4096, 12}, {4097, 13}, {128 << 10, 17}, {128<<10 + 1, 18}, {1 << 20, 20},
		{math.MaxInt64, 63},
	}
	for _, tt := range tests {
		if got := sizeBin(tt.size); got != tt.bin {
			t.Errorf("sizeBin(%d) = %d, want %d", tt.size, got, tt.bin)
		}
	}
}

func TestCountersSnapshot(t *testing.T) {
	var c counters
	for _, r := range []struct{ size, n int64 }{
		{4096, 4096}, {4096, 100}, {128 << 10, 128 << 10}, {100 << 10, 100 << 10}, {1 << 20, 1 << 20}, {3000, 3000},
	} {
		c.record(r.size, r.n)
	}
	c.opens.Add(2)
	c.throttledNs.Add(int64(1500 * time.Millisecond))
	t0 := time.Unix(0, 0)
	s := c.snapshot(t0, t0.Add(2*time.Second))
	want := Stats{
		Type: "pfsemu", Requests: 6, Bytes: 4096 + 100 + 128<<10 + 100<<10 + 1<<20 + 3000,
		Largest: 1 << 20, Opens: 2, ThrottledS: 1.5, ElapsedS: 2,
		Sizes: []SizeBin{{4096, 3}, {128 << 10, 2}, {1 << 20, 1}}, PerServer: []int64{},
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("snapshot:\n got %+v\nwant %+v", s, want)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["type"] != "pfsemu" || back["requests"] != 6.0 {
		t.Fatalf("JSON %s: want type pfsemu and requests 6", b)
	}
}

func TestSnapshotEmptyHistogramIsList(t *testing.T) {
	var c counters
	b, _ := json.Marshal(c.snapshot(time.Unix(0, 0), time.Unix(0, 0)))
	var back struct{ Sizes []SizeBin }
	if err := json.Unmarshal(b, &back); err != nil || back.Sizes == nil {
		t.Fatalf("JSON %s: want \"sizes\":[]", b)
	}
}

func TestSnapshotTopBin(t *testing.T) {
	var c counters
	c.record(math.MaxInt64, 0)
	s := c.snapshot(time.Unix(0, 0), time.Unix(0, 0))
	if len(s.Sizes) != 1 || s.Sizes[0].Max != math.MaxInt64 {
		t.Fatalf("sizes %v, want one bin up to MaxInt64", s.Sizes)
	}
}
