package bench

import (
	"math"
	"testing"
)

func TestStallAnalyze(t *testing.T) {
	// 100 batches of 0.1 s compute: T1 = 10 s; prep adds 2 s, fetch 8 s.
	r := StallRuns{Synthetic: 10, Warm: 12, Cold: 20, Samples: 6400, Bytes: 640e6, Batches: 100, Compute: 0.1,
		Nodes: 2, Limit: 1000, Threshold: 0.8}
	s := r.Analyze()
	checks := []struct {
		name      string
		got, want float64
	}{
		{"prep stall", s.PrepStall, 2},
		{"fetch stall", s.FetchStall, 8},
		{"prep per batch", s.PrepPerBatch, 0.02},
		{"ingest rate", s.IngestRate, 640},
		{"prep rate", s.PrepRate, 6400.0 / 12},
		{"fetch rate (samples over the fetch stall)", s.FetchRate, 800},
		{"fetch MB/s", s.FetchMBPerS, 80},
		{"cold MB/s", s.ColdMBPerS, 32},
		{"AU cold", s.AUCold, 0.5},
		{"AU warm", s.AUWarm, 10.0 / 12},
		// AU 0.8 needs an epoch of 12.5 s: 12 + (1-f)·8 <= 12.5, f >= 15/16.
		{"cache fraction", s.CacheFraction, 15.0 / 16},
		{"needed MB/s (bytes within T3)", s.NeededMBPerS, 640.0 / 12},
		// 32 MB/s on 2 nodes; 53.3 MB/s needs ceil(3.33) = 4 nodes.
		{"nodes", float64(s.NodesNeeded), 4},
		// 0.02 s of prep per 0.1 s batch: one core hides it.
		{"prep cores", float64(s.PrepCores), 1},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, w := range []struct{ f, secs float64 }{{0, 20}, {0.5, 16}, {1, 12}} {
		got := r.WhatIf(w.f)
		if got.Seconds != w.secs || math.Abs(got.AU-10/w.secs) > 1e-12 || got.Type != TypeWhatIf {
			t.Errorf("WhatIf(%v) = %+v, want %v s", w.f, got, w.secs)
		}
	}
}

func TestStallBoundaries(t *testing.T) {
	base := StallRuns{Synthetic: 10, Warm: 12, Cold: 20, Samples: 100, Bytes: 1e9, Batches: 10, Compute: 1, Nodes: 1, Threshold: 0.9}
	// Prep alone keeps AU below 0.9 (10/12): no cache fraction helps.
	if f := base.Analyze().CacheFraction; f != -1 {
		t.Errorf("cache fraction %v, want -1", f)
	}
	// A cold run that already meets the threshold needs no cache.
	ok := base
	ok.Warm, ok.Cold = 10.5, 11
	if f := ok.Analyze().CacheFraction; f != 0 {
		t.Errorf("cache fraction %v, want 0", f)
	}
	// Storage whose limit is below the needed rate: no node count helps.
	slow := base
	slow.Limit = 50
	if n := slow.Analyze().NodesNeeded; n != -1 {
		t.Errorf("nodes %d, want -1", n)
	}
	// Noise: a cold run faster than the warm one is no fetch stall.
	noisy := base
	noisy.Cold = 11.9
	if s := noisy.Analyze(); s.FetchStall != 0 || s.FetchRate != 0 || s.NodesNeeded != 1 {
		t.Errorf("noisy: %+v", s)
	}
	// Prep of 3 s per 1 s batch needs 3 cores to hide behind compute.
	heavy := base
	heavy.Warm = 40
	if c := heavy.Analyze().PrepCores; c != 3 {
		t.Errorf("prep cores %d, want 3", c)
	}
}

func TestParseFractions(t *testing.T) {
	got, err := ParseFractions([]string{"0", "0.25", "1"})
	if err != nil || len(got) != 3 || got[1] != 0.25 {
		t.Errorf("ParseFractions = %v, %v", got, err)
	}
	for _, bad := range []string{"-0.1", "1.5", "x", "0.5x", "NaN"} {
		if _, err := ParseFractions([]string{bad}); err == nil {
			t.Errorf("ParseFractions(%q) accepted", bad)
		}
	}
}
