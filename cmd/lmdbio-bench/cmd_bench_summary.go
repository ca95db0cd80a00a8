package main

import (
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// summarize turns one series into its summary line, with the limit check.
func (o *benchOutput) summarize(s *benchSeries) bench.Summary {
	sp := stats.SpreadOf(s.mbps)
	sum := bench.Summary{Type: bench.TypeSummary, Name: s.name, Kind: s.kind, Ranks: s.ranks, Cache: s.cache, Consumer: s.consumer,
		MedianMBPerS: sp.Median, MinMBPerS: sp.Min, MaxMBPerS: sp.Max, Rounds: sp.N,
		MedianSamplesPerS: median0(s.sps), MedianFractionOfLimit: median0(s.frac),
		MedianFirstBatchMax: median0(s.first), MedianStartup: median0(s.startup), MedianStall: median0(s.stall)}
	if s.kind != "limit" {
		lim := stats.SpreadOf(o.bestLimits(s.cache))
		sum.LimitMBPerS = median0(o.bestLimits(s.cache))
		sum.NoiseBand, sum.AboveLimit = stats.AboveLimit(sp, lim)
	}
	return sum
}

// ratios compares the full stack with the baseline mode, the peers and the
// limit at every rank count, cache state and consumer (medians over rounds).
// Only contenders that did the same work are compared: the same consumer,
// timed over the same window.
func (o *benchOutput) ratios(series []*benchSeries) {
	best := ""
	for _, m := range o.cfg.modes {
		if m.mode == loader.DefaultMode && m.label == m.name {
			best = m.name // the default mode, unshuffled, with the default stagger
		}
	}
	var baseline string
	for _, m := range o.cfg.modes {
		if m.mode.LMDB {
			baseline = m.label
		}
	}
	if best == "" {
		return
	}
	var lines []bench.Ratio
	for _, s := range series {
		if s.kind != "mode" || s.name != best {
			continue
		}
		top := stats.Median(s.mbps)
		for _, other := range series {
			if other.cache != s.cache || other.consumer != s.consumer {
				continue
			}
			switch {
			case other.kind == "mode" && other.name == baseline && other.ranks == s.ranks,
				other.kind == "peer" && (other.ranks == s.ranks || !benchPeerPerRank(other.name)):
				pr := stats.PairedByKey(s.byRound(), other.byRound())
				lines = append(lines, bench.Ratio{Type: bench.TypeRatio, Name: best + "/" + other.name, Of: best,
					To: other.name, Ranks: s.ranks, Cache: s.cache, Consumer: s.consumer,
					Ratio: bench.Quotient(top, stats.Median(other.mbps)),
					Pairs: pr.N, Paired: nan0(pr.GeoMean), PairedLow: nan0(pr.Low), PairedHigh: nan0(pr.High)})
			}
		}
		if f := median0(s.frac); f > 0 {
			lines = append(lines, bench.Ratio{Type: bench.TypeRatio, Name: best + "/limit", Of: best, To: "limit",
				Ranks: s.ranks, Cache: s.cache, Consumer: s.consumer, Ratio: f})
		}
	}
	if !o.json && len(lines) > 0 {
		fmt.Fprintln(o.w, "\nratios of medians (same consumer, same window):")
	}
	for _, l := range lines {
		if math.IsNaN(l.Ratio) || math.IsInf(l.Ratio, 0) {
			continue
		}
		if o.json {
			o.emit(l)
			continue
		}
		fmt.Fprintf(o.w, "  %-40s %-6s %3d ranks %-4s %7.2f×", l.Of+" / "+l.To, l.Consumer, l.Ranks, l.Cache, l.Ratio)
		if l.Pairs >= 2 {
			fmt.Fprintf(o.w, "  paired %.2f× [%.2f, %.2f] over %d rounds", l.Paired, l.PairedLow, l.PairedHigh, l.Pairs)
		}
		fmt.Fprintln(o.w)
	}
}

// byRound keys a series' MB/s by round.
func (s *benchSeries) byRound() map[int]float64 {
	m := make(map[int]float64, len(s.rounds))
	for i, r := range s.rounds {
		m[r] = s.mbps[i]
	}
	return m
}

// auSearch reports, per mode and cache state, the most emulated
// accelerators per node whose median AU over rounds met the threshold.
func (o *benchOutput) auSearch(series []*benchSeries) {
	w := o.cfg.workload
	if !w.Enabled() {
		return
	}
	type key struct{ mode, consumer, cache string }
	var order []key
	points := map[key][]bench.AUPoint{}
	ranksOf := map[key]map[bench.AUPoint]int{}
	for _, s := range series {
		if s.kind != "mode" {
			continue
		}
		k := key{s.name, s.consumer, s.cache}
		if _, ok := points[k]; !ok {
			order = append(order, k)
			ranksOf[k] = map[bench.AUPoint]int{}
		}
		nodes := max(s.nodes, 1)
		p := bench.AUPoint{PerNode: (s.ranks + nodes - 1) / nodes, Nodes: nodes, AUMin: stats.Median(s.au)}
		points[k] = append(points[k], p)
		ranksOf[k][p] = s.ranks
	}
	if !o.json && len(order) > 0 {
		fmt.Fprintf(o.w, "\naccelerators kept at AU >= %.2f (%s, median AU of the least busy learner):\n", w.Threshold, w.Name)
	}
	for _, k := range order {
		best, ok := bench.MaxAccelerators(points[k], w.Threshold)
		line := bench.AUSearch{Type: bench.TypeAUSearch, Workload: w.Name, Threshold: w.Threshold, Mode: k.mode,
			Consumer: k.consumer, Cache: k.cache, Nodes: 1}
		if ok {
			line.MaxAcceleratorsPerNode, line.Nodes, line.Ranks, line.AUMin = best.PerNode, best.Nodes, ranksOf[k][best], best.AUMin
		}
		if o.json {
			o.emit(line)
			continue
		}
		fmt.Fprintf(o.w, "  %-24s %-6s %-4s %d per node", k.mode, k.consumer, k.cache, line.MaxAcceleratorsPerNode)
		if ok {
			fmt.Fprintf(o.w, " (%d ranks on %d nodes, AU %.3f)", line.Ranks, line.Nodes, line.AUMin)
		}
		fmt.Fprintln(o.w)
	}
}

// median0 is the median, or 0 for nothing (JSON has no NaN).
func median0(xs []float64) float64 { return nan0(stats.Median(xs)) }

func nan0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
