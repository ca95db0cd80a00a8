package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"golang.org/x/term"
)

// benchOutput prints bench's lines as they are measured (rank 0) and keeps
// them for the summary: JSON lines with --json, else a table.
type benchOutput struct {
	w        io.Writer
	json     bool
	cfg      benchConfig
	progress *benchProgress
	header   bool

	results []bench.Result
	peers   []bench.Peer
	limits  []bench.Limit
}

func newBenchOutput(w io.Writer, cfg benchConfig) *benchOutput {
	return &benchOutput{w: w, json: cfg.json, cfg: cfg}
}

func (o *benchOutput) emit(v any) {
	o.progress.clear()
	b, err := json.Marshal(v)
	if err != nil { // a NaN or infinity slipped through: a bug, but not worth losing the run
		fmt.Fprintf(os.Stderr, "lmdbio bench: cannot print %T: %v\n", v, err)
		return
	}
	fmt.Fprintln(o.w, string(b))
}

func (o *benchOutput) row(round int, cache string, ranks, nodes string, name, consumer string, sps, mbps, frac, startup, first, stall float64) {
	o.progress.clear()
	if !o.header {
		fmt.Fprintf(o.w, "%-5s %-6s %5s %5s  %-28s %-8s %10s %9s %7s %9s %8s %8s\n",
			"round", "cache", "ranks", "nodes", "contender", "consumer", "samples/s", "MB/s", "×limit", "startup/s", "first/s", "stall/s")
		o.header = true
	}
	fmt.Fprintf(o.w, "%-5d %-6s %5s %5s  %-28s %-8s %10s %9s %7s %9s %8s %8s\n", round, cache, ranks, nodes, name, consumer,
		num(sps, 0), num(mbps, 1), num(frac, 2), num(startup, 3), num(first, 3), num(stall, 3))
}

// num formats v with prec decimals; negative means "not measured".
func num(v float64, prec int) string {
	if v < 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func (o *benchOutput) limit(l bench.Limit) {
	o.limits = append(o.limits, l)
	if o.json {
		o.emit(l)
		return
	}
	o.row(l.Round, l.Cache, "1", "1", "limit "+l.Probe, "-", -1, l.MBPerS, -1, -1, -1, -1)
}

func (o *benchOutput) result(r bench.Result) {
	o.results = append(o.results, r)
	if o.json {
		o.emit(r)
		return
	}
	frac := r.FractionOfLimit
	if frac == 0 {
		frac = -1
	}
	name := r.Contender
	if r.Workload != "none" {
		name = fmt.Sprintf("%s AU %.2f", r.Contender, r.AUMin)
	}
	o.row(r.Round, r.Cache, fmt.Sprint(r.Ranks), fmt.Sprint(r.Nodes), name, r.Consumer, r.SamplesPerS, r.MBPerS, frac,
		r.StartupS, r.FirstBatchMax, r.StallS)
}

// epoch prints one epoch of the contender on the line before: a JSON line,
// or an indented row under it.
func (o *benchOutput) epoch(e bench.Epoch) {
	if o.json {
		o.emit(e)
		return
	}
	o.progress.clear()
	fmt.Fprintf(o.w, "      epoch %-3d %8.3f s %9.1f MB/s  storage %s (%s× file)  exchange %s  cache hits %3.0f%%  stall %.3f s",
		e.Epoch, e.Seconds, e.MBPerS, gigabytes(e.StorageBytes), num(e.ReadAmplification, 2), gigabytes(e.ExchangeBytes),
		100*e.CacheHitRate, e.StallS)
	if e.DecodedBytes > 0 {
		fmt.Fprintf(o.w, "  decoded %s at %.0f MB/s per core", gigabytes(e.DecodedBytes), e.DecodeMBPerS)
	}
	fmt.Fprintln(o.w)
}

// gigabytes formats a byte count in GB (10^9 bytes).
func gigabytes(n int64) string { return fmt.Sprintf("%.3f GB", float64(n)/1e9) }

func (o *benchOutput) peer(p bench.Peer) {
	o.peers = append(o.peers, p)
	if o.json {
		o.emit(p)
		return
	}
	frac := p.FractionOfLimit
	if frac == 0 {
		frac = -1
	}
	o.row(p.Round, p.Cache, fmt.Sprint(p.Ranks), fmt.Sprint(p.Nodes), "peer "+p.Peer, p.Consumer, p.SamplesPerS, p.MBPerS, frac,
		p.StartupMax, p.FirstBatchMax, -1)
}

// benchSeries is one contender's measurements over the rounds: a mode or
// peer with one consumer, or a limit probe ("limit" is the fastest probe of
// each round).
type benchSeries struct {
	kind, name  string
	consumer    string
	ranks       int
	cache       string
	nodes       int
	rounds      []int // the round of each measurement
	mbps, sps   []float64
	frac, first []float64
	stall, au   []float64
	startup     []float64
}

// series groups the lines by contender, consumer, rank count and cache
// state, in the order they first appeared.
func (o *benchOutput) series() []*benchSeries {
	var out []*benchSeries
	find := func(kind, name, consumer string, ranks int, cache string) *benchSeries {
		for _, s := range out {
			if s.kind == kind && s.name == name && s.consumer == consumer && s.ranks == ranks && s.cache == cache {
				return s
			}
		}
		s := &benchSeries{kind: kind, name: name, consumer: consumer, ranks: ranks, cache: cache}
		out = append(out, s)
		return s
	}
	for _, l := range o.limits {
		s := find("limit", l.Probe, "", 1, l.Cache)
		s.nodes = 1
		s.mbps = append(s.mbps, l.MBPerS)
	}
	for _, cache := range o.cfg.caches {
		if best := o.bestLimits(cache); len(best) > 0 {
			s := find("limit", "limit", "", 1, cache)
			s.nodes, s.mbps = 1, best
		}
	}
	for _, r := range o.results {
		s := find("mode", r.Contender, r.Consumer, r.Ranks, r.Cache)
		s.nodes, s.rounds = r.Nodes, append(s.rounds, r.Round)
		s.mbps, s.sps, s.frac = append(s.mbps, r.MBPerS), append(s.sps, r.SamplesPerS), append(s.frac, r.FractionOfLimit)
		s.first, s.stall, s.au = append(s.first, r.FirstBatchMax), append(s.stall, r.StallS), append(s.au, r.AUMin)
		s.startup = append(s.startup, r.StartupS)
	}
	for _, p := range o.peers {
		s := find("peer", p.Peer, p.Consumer, p.Ranks, p.Cache)
		s.nodes, s.rounds = p.Nodes, append(s.rounds, p.Round)
		s.mbps, s.sps, s.frac = append(s.mbps, p.MBPerS), append(s.sps, p.SamplesPerS), append(s.frac, p.FractionOfLimit)
		s.first, s.startup = append(s.first, p.FirstBatchMax), append(s.startup, p.StartupMax)
	}
	return out
}

// bestLimits is the limit of every round in a cache state: its fastest
// probe.
func (o *benchOutput) bestLimits(cache string) []float64 {
	best := map[int]float64{}
	var rounds []int
	for _, l := range o.limits {
		if l.Cache != cache {
			continue
		}
		if _, ok := best[l.Round]; !ok {
			rounds = append(rounds, l.Round)
		}
		best[l.Round] = max(best[l.Round], l.MBPerS)
	}
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		out[i] = best[r]
	}
	return out
}

// finish prints the summary: per contender the median and spread over
// rounds, whether it stayed within the storage's limit, the ratios between
// contenders that did the same work, and the accelerator search.
func (o *benchOutput) finish(ranks []int) {
	series := o.series()
	if !o.json && len(series) > 0 {
		fmt.Fprintf(o.w, "\nsummary over %d round(s): median MB/s, [min, max], spread = (max-min)/median\n", o.cfg.rounds)
	}
	var above []bench.Summary
	for _, s := range series {
		sum := o.summarize(s)
		if sum.AboveLimit {
			above = append(above, sum)
		}
		if o.json {
			o.emit(sum)
			continue
		}
		label := s.name
		switch s.kind {
		case "peer":
			label = "peer " + s.name
		case "limit":
			if s.name != "limit" {
				label = "limit " + s.name
			}
		}
		fmt.Fprintf(o.w, "  %-30s %-6s %3d ranks %-4s %9.1f MB/s [%.1f, %.1f] spread %4.0f%%", label, s.consumer, s.ranks, s.cache,
			sum.MedianMBPerS, sum.MinMBPerS, sum.MaxMBPerS, 100*nan0(stats.SpreadOf(s.mbps).Relative()))
		if sum.MedianFractionOfLimit > 0 {
			fmt.Fprintf(o.w, "  %.2f× limit", sum.MedianFractionOfLimit)
		}
		if s.kind != "limit" {
			fmt.Fprintf(o.w, "  start-up %.3f s  first batch %.3f s", sum.MedianStartup, sum.MedianFirstBatchMax)
		}
		if sum.AboveLimit {
			fmt.Fprintf(o.w, "  ABOVE THE LIMIT (%.0f MB/s, noise band %.0f%%)", sum.LimitMBPerS, 100*sum.NoiseBand)
		}
		fmt.Fprintln(o.w)
	}
	for _, a := range above {
		fmt.Fprintf(os.Stderr, "lmdbio bench: %s (%s, %d ranks, %s) delivered %.0f MB/s, above the storage's limit of %.0f MB/s by more than the noise band (%.0f%%): the limit probes missed how it reads, or it did not read what it delivered from storage\n",
			a.Name, a.Consumer, a.Ranks, a.Cache, a.MedianMBPerS, a.LimitMBPerS, 100*a.NoiseBand)
	}
	o.ratios(series)
	o.auSearch(series)
}

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

// benchProgress shows one line on a terminal: which measurement is running.
// It stays silent when standard error is not a terminal (batch job logs).
// A nil benchProgress does nothing.
type benchProgress struct {
	on          bool
	total, done int
	shown       bool
}

func newBenchProgress(total int) *benchProgress {
	return &benchProgress{on: term.IsTerminal(int(os.Stderr.Fd())), total: total}
}

func (p *benchProgress) step(s benchStep) {
	if p == nil {
		return
	}
	p.done++
	if p.on {
		fmt.Fprintf(os.Stderr, "\r\x1b[K[%d/%d] %s", p.done, p.total, s)
		p.shown = true
	}
}

func (p *benchProgress) clear() {
	if p != nil && p.shown {
		fmt.Fprint(os.Stderr, "\r\x1b[K")
		p.shown = false
	}
}
