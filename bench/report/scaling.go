package main

import (
	"slices"
	"sort"
)

// Series is one line of a vs-ranks table: a mode, or a peer measured on the
// same storage with the same consumer. Cells line up with the table's
// Ranks; N == 0 means not measured at that rank count. Above marks the
// cells above the storage's limit by more than the noise band.
type Series struct {
	Name  string
	Peer  bool
	Cells []Summary
	Above []bool
}

// ScalingTable is throughput against rank count for one group and cache
// state, with the storage's limit for reference.
type ScalingTable struct {
	Group
	Cache      string
	Ranks      []int
	Series     []Series
	Limit      float64 // median of each round's fastest probe, MB/s; 0 if none
	LimitProbe string  // the probe fastest most often
}

// flagCells marks the cells of s above the limit.
func (s *Series) flagCells(ranks []int, limitAt func(ranks int) LimitRow) {
	s.Above = make([]bool, len(s.Cells))
	for i, c := range s.Cells {
		s.Above[i] = aboveLimit(c, limitAt(ranks[i]))
	}
}

// cachesWith returns the cache states results or peers were measured in.
func cachesWith(rs []Result, ps []Peer) []string {
	return sortKnown(cacheOrder, append(distinct(rs, func(r Result) string { return r.Cache }),
		distinct(ps, func(p Peer) string { return p.Cache })...))
}

func buildScaling(g Group, rs []Result, peers []Peer, lim []LimitRow) []ScalingTable {
	var out []ScalingTable
	for _, cache := range cachesWith(rs, peers) {
		in := filter(rs, func(r Result) bool { return r.Cache == cache })
		pin := filter(peers, func(p Peer) bool { return p.Cache == cache })
		// Each rank count against the limit of its own hosts; the table's
		// own is that of the most ranks.
		limitAt := func(ranks int) LimitRow { return limitFor(lim, g.Storage, cache, nodesAt(in, ranks)) }
		ranks := ranksOf(in, pin)
		l := limitAt(slices.Max(ranks))
		t := ScalingTable{Group: g, Cache: cache, Ranks: ranks, Limit: l.Best.Median, LimitProbe: l.BestProbe}
		for _, mode := range modesOf(in) {
			s := Series{Name: mode}
			for _, n := range t.Ranks {
				s.Cells = append(s.Cells, medianOf(filter(in, func(r Result) bool { return r.Mode == mode && r.Ranks == n }),
					func(r Result) float64 { return r.MBPerS }))
			}
			s.flagCells(t.Ranks, limitAt)
			t.Series = append(t.Series, s)
		}
		for _, name := range peerNames(pin) {
			s := Series{Name: name, Peer: true}
			for _, n := range t.Ranks {
				s.Cells = append(s.Cells, medianOf(filter(pin, func(p Peer) bool { return p.Peer == name && p.Ranks == n }),
					func(p Peer) float64 { return p.MBPerS }))
			}
			s.flagCells(t.Ranks, limitAt)
			t.Series = append(t.Series, s)
		}
		out = append(out, t)
	}
	return out
}

// nodesAt returns the nodes the results of ranks ranks ran on, 0 if none
// did.
func nodesAt(rs []Result, ranks int) int {
	n := 0
	for _, r := range rs {
		if r.Ranks == ranks {
			n = max(n, r.Nodes)
		}
	}
	return n
}

// ranksOf returns every rank count measured by results or peers, ascending.
func ranksOf(rs []Result, ps []Peer) []int {
	n := append(distinct(rs, func(r Result) int { return r.Ranks }), distinct(ps, func(p Peer) int { return p.Ranks })...)
	slices.Sort(n)
	return slices.Compact(n)
}

// peerNames returns the peers in ps, sorted.
func peerNames(ps []Peer) []string {
	names := distinct(ps, func(p Peer) string { return p.Peer })
	sort.Strings(names)
	return names
}

// FirstBatchCell is the time to first batch at one rank count: medians over
// rounds of the slowest, the median and the fastest rank.
type FirstBatchCell struct {
	Max, Median, Min Summary
}

// FirstBatchSeries is one mode or peer of a FirstBatchTable. Peers report
// only the slowest rank.
type FirstBatchSeries struct {
	Name  string
	Peer  bool
	Cells []FirstBatchCell
}

// FirstBatchTable is time to first batch against rank count for one group
// and cache state.
type FirstBatchTable struct {
	Group
	Cache  string
	Ranks  []int
	Series []FirstBatchSeries
}

func buildFirstBatch(g Group, rs []Result, peers []Peer) []FirstBatchTable {
	var out []FirstBatchTable
	for _, cache := range cachesWith(rs, peers) {
		in := filter(rs, func(r Result) bool { return r.Cache == cache })
		pin := filter(peers, func(p Peer) bool { return p.Cache == cache })
		t := FirstBatchTable{Group: g, Cache: cache, Ranks: ranksOf(in, pin)}
		for _, mode := range modesOf(in) {
			s := FirstBatchSeries{Name: mode}
			for _, n := range t.Ranks {
				c := filter(in, func(r Result) bool { return r.Mode == mode && r.Ranks == n })
				s.Cells = append(s.Cells, FirstBatchCell{
					Max:    medianOf(c, func(r Result) float64 { return r.FirstBatchMax }),
					Median: medianOf(c, func(r Result) float64 { return r.FirstBatchMedian }),
					Min:    medianOf(c, func(r Result) float64 { return r.FirstBatchMin }),
				})
			}
			t.Series = append(t.Series, s)
		}
		for _, name := range peerNames(pin) {
			s := FirstBatchSeries{Name: name, Peer: true}
			for _, n := range t.Ranks {
				c := filter(pin, func(p Peer) bool { return p.Peer == name && p.Ranks == n })
				s.Cells = append(s.Cells, FirstBatchCell{Max: medianOf(c, func(p Peer) float64 { return p.FirstBatchMax })})
			}
			t.Series = append(t.Series, s)
		}
		out = append(out, t)
	}
	return out
}
