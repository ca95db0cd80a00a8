package bench

import (
	"fmt"
	"math"
	"strconv"
)

// The "type" of the lines lmdbio-bench stall prints besides result lines.
const (
	TypeStall  = "stall"   // the differential analysis of one workload
	TypeWhatIf = "what-if" // the epoch time at one cache fraction
)

// StallRuns are the three runs of DS-Analyzer's differential method, each
// the slowest learner's time for one epoch of the same batches:
// Synthetic (run 1: batches from memory, no loading and no consumer, only
// the emulated compute: the accelerators' maximum ingestion rate); Cold
// (run 2: the real data from storage, page cache dropped: fetch, prep and
// compute); Warm (run 3: the real data fully cached: prep and compute).
type StallRuns struct {
	Synthetic, Cold, Warm float64

	Samples int64   // records delivered in one epoch, all learners
	Bytes   int64   // their value bytes
	Batches int     // batches of the learner with the most
	Compute float64 // emulated compute per batch, seconds
	Nodes   int     // nodes of the job
	// Limit is the storage's measured limit in MB/s (0: not measured).
	Limit float64
	// Threshold is the AU a workload must keep (0.9 for ResNet-50).
	Threshold float64
}

// Stall is the analysis of StallRuns: "stall" line of lmdbio-bench stall.
type Stall struct {
	Type       string  `json:"type"`
	Synthetic  float64 `json:"synthetic_s"` // T1
	Cold       float64 `json:"cold_s"`      // T2
	Warm       float64 `json:"warm_s"`      // T3
	PrepStall  float64 `json:"prep_stall_s"`
	FetchStall float64 `json:"fetch_stall_s"`
	// PrepPerBatch is the prep stall per batch: CPU work (loading from the
	// page cache, copying, the consumer) the accelerator waited for.
	PrepPerBatch float64 `json:"prep_stall_per_batch_s"`
	// IngestRate is samples/s the accelerators could take (run 1); PrepRate
	// what prep delivers (run 3); FetchRate is DS-Analyzer's fetch rate,
	// samples over the fetch stall (every stalled second spent fetching).
	IngestRate   float64 `json:"ingest_samples_per_s"`
	PrepRate     float64 `json:"prep_samples_per_s"`
	FetchRate    float64 `json:"fetch_samples_per_s"`
	FetchMBPerS  float64 `json:"fetch_mb_per_s"`
	ColdMBPerS   float64 `json:"cold_mb_per_s"` // what the cold run delivered
	AUCold       float64 `json:"au_cold"`       // T1 / T2
	AUWarm       float64 `json:"au_warm"`       // T1 / T3
	Threshold    float64 `json:"threshold"`
	LimitMBPerS  float64 `json:"limit_mb_per_s"`
	Nodes        int     `json:"nodes"`
	Batches      int     `json:"batches"`
	ComputeBatch float64 `json:"compute_s_per_batch"`

	// What removes the stalls. CacheFraction: the fraction of the dataset
	// that must be cached in memory for AU to reach the threshold (-1:
	// none does, prep alone keeps it below). NeededMBPerS: the storage rate
	// that would hide the fetch behind prep and compute (the epoch's bytes
	// within T3). NodesNeeded: nodes that would deliver that rate if each
	// node's client were the bound (-1: the storage's limit is below the
	// rate, so no node count helps). PrepCores: cores per learner that
	// would hide the prep behind the compute if prep overlapped it.
	CacheFraction float64 `json:"cache_fraction_needed"`
	NeededMBPerS  float64 `json:"needed_mb_per_s"`
	NodesNeeded   int     `json:"nodes_needed"`
	PrepCores     int     `json:"prep_cores_per_learner"`
}

// WhatIf is a "what-if" line: the predicted epoch time and AU with a
// fraction of the dataset cached in memory.
type WhatIf struct {
	Type          string  `json:"type"`
	CacheFraction float64 `json:"cache_fraction"`
	Seconds       float64 `json:"seconds"`
	AU            float64 `json:"au"`
}

// Analyze applies DS-Analyzer's differential method: prep stall = T3 − T1,
// fetch stall = T2 − T3, fetch rate = samples / (T2 − T3). Stalls below
// zero (noise: a warm run slower than a cold one) count as none.
func (r StallRuns) Analyze() Stall {
	s := Stall{Type: TypeStall, Synthetic: r.Synthetic, Cold: r.Cold, Warm: r.Warm, Threshold: r.Threshold,
		LimitMBPerS: r.Limit, Nodes: r.Nodes, Batches: r.Batches, ComputeBatch: r.Compute}
	s.PrepStall = math.Max(0, r.Warm-r.Synthetic)
	s.FetchStall = math.Max(0, r.Cold-r.Warm)
	samples, bytes := float64(r.Samples), float64(r.Bytes)
	s.IngestRate, s.PrepRate = Rate(samples, r.Synthetic), Rate(samples, r.Warm)
	s.FetchRate, s.FetchMBPerS = Rate(samples, s.FetchStall), Rate(bytes, s.FetchStall)/1e6
	s.ColdMBPerS = Rate(bytes, r.Cold) / 1e6
	s.AUCold, s.AUWarm = AU(r.Synthetic, r.Cold), AU(r.Synthetic, r.Warm)
	if r.Batches > 0 {
		s.PrepPerBatch = s.PrepStall / float64(r.Batches)
	}
	s.CacheFraction = r.cacheFractionFor(r.Threshold)
	s.NeededMBPerS = Rate(bytes, r.Warm) / 1e6
	s.NodesNeeded = -1
	if s.FetchStall == 0 {
		s.NodesNeeded = r.Nodes
	} else if r.Limit == 0 || s.NeededMBPerS <= r.Limit {
		s.NodesNeeded = int(math.Ceil(float64(r.Nodes) * s.NeededMBPerS / s.ColdMBPerS))
	}
	s.PrepCores = 1
	if r.Compute > 0 && s.PrepPerBatch > 0 {
		s.PrepCores = int(math.Ceil(s.PrepPerBatch / r.Compute))
	}
	return s
}

// WhatIf predicts the epoch with a fraction of the dataset cached, as
// DS-Analyzer does: cached samples cost what the warm run pays, uncached
// ones add their share of the fetch stall: T3 + (1 − f)·(T2 − T3).
func (r StallRuns) WhatIf(fraction float64) WhatIf {
	t := r.Warm + (1-fraction)*math.Max(0, r.Cold-r.Warm)
	return WhatIf{Type: TypeWhatIf, CacheFraction: fraction, Seconds: t, AU: AU(r.Synthetic, t)}
}

// cacheFractionFor is the least cached fraction at which AU reaches
// threshold: 0 if the cold run already does, -1 if even a fully cached
// epoch does not (the prep stall alone is too large).
func (r StallRuns) cacheFractionFor(threshold float64) float64 {
	if threshold <= 0 || r.Synthetic <= 0 {
		return 0
	}
	target := r.Synthetic / threshold // the longest epoch that keeps AU
	switch {
	case r.Warm > target:
		return -1
	case r.Cold <= target:
		return 0
	}
	return 1 - (target-r.Warm)/(r.Cold-r.Warm)
}

// ParseFractions reads a list of cache fractions in [0, 1].
func ParseFractions(list []string) ([]float64, error) {
	out := make([]float64, 0, len(list))
	for _, s := range list {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
			return nil, fmt.Errorf("cache fraction %q: want a number from 0 to 1", s)
		}
		out = append(out, f)
	}
	return out, nil
}
