package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
)

// Grid is a set of configurations: every contender and consumer at every
// node count and ranks per node, on one workload and loader.
type Grid struct {
	Nodes        []int
	RanksPerNode []int
	Contenders   []Contender
	Consumers    []string
	Workload     Workload
	Loader       Loader
}

// Configs lists the grid's configurations, contenders innermost.
func (g Grid) Configs() []Config {
	consumers := g.Consumers
	if len(consumers) == 0 {
		consumers = []string{g.Workload.Consumer}
	}
	var out []Config
	for _, n := range g.Nodes {
		for _, r := range g.RanksPerNode {
			for _, cons := range consumers {
				for _, c := range g.Contenders {
					w := g.Workload
					w.Consumer = cons
					out = append(out, Config{Contender: c, Nodes: n, RanksPerNode: r, Workload: w, Loader: g.Loader})
				}
			}
		}
	}
	return out
}

// Synthesize makes observations of the configurations from known
// parameters: the predicted time, times a log-normal noise of relative
// size noise (0.02: about 2 %). They are marked synthetic. For testing the
// fit, which must recover the parameters.
func Synthesize(p Params, cfgs []Config, noise float64, seed uint64) []Observation {
	rng := rand.New(rand.NewPCG(seed, 0x73796e7468))
	out := make([]Observation, len(cfgs))
	for i, c := range cfgs {
		t := Predict(p, c).Seconds * math.Exp(noise*rng.NormFloat64())
		out[i] = Observation{Config: c, Seconds: t, Synthetic: true, Source: "synthetic"}
	}
	return out
}

// BenchLine writes an observation as an lmdbio-bench bench "result" line, with
// "synthetic": true when it was not measured, so the bench report refuses
// it and ReadObservations reads it back.
func BenchLine(o Observation) []byte {
	ranks := o.Nodes * o.RanksPerNode
	epochs := float64(o.Epochs)
	samples := int64(math.Round(o.Records * epochs))
	bytes := int64(math.Round(o.Bytes * epochs))
	line := map[string]any{
		"type": "result", "round": 1, "mode": o.Contender.BenchMode(), "ranks": ranks, "nodes": o.Nodes,
		"ranks_per_node": o.RanksPerNode, "cache": "cold", "consumer": o.Consumer, "workload": "none",
		"batch": o.Batch, "epochs": o.Epochs, "compute_s_per_batch": o.Compute,
		"direct": o.Direct, "stagger": o.Stagger, "io_depth": o.IODepth, "window_bytes": o.Window, "max_span_bytes": o.MaxSpan,
		"samples": samples, "bytes": bytes, "seconds": o.Seconds,
		"samples_per_s": float64(samples) / o.Seconds, "mb_per_s": float64(bytes) / o.Seconds / 1e6,
		"synthetic": o.Synthetic,
	}
	if o.Compute > 0 {
		line["workload"] = "emulated"
	}
	b, _ := json.Marshal(line) // plain numbers and strings: cannot fail
	return b
}
