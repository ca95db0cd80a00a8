package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// PairRow is the default mode against the lmdb mode at one rank count and
// cache state of a group, at every rank count measured (the study shows
// one): the ratio of the medians, and the ratio paired by round.
type PairRow struct {
	Group
	Cache  string
	Ranks  int
	Nodes  int
	Ratio  float64 // default median over lmdb median; 0 if unknown
	Paired stats.Paired
}

// buildPairs makes g's rows, cold before warm, fewer ranks first.
func buildPairs(g Group, rs []Result) []PairRow {
	def := defaultModeOf(rs)
	mbps := func(r Result) float64 { return r.MBPerS }
	var out []PairRow
	for _, cache := range cachesOf(rs) {
		for _, n := range sortedInts(rs, func(r Result) int { return r.Ranks }) {
			at := func(mode string) []Result {
				return filter(rs, func(r Result) bool { return r.Cache == cache && r.Ranks == n && r.Mode == mode })
			}
			mine, base := at(def), at(BaselineMode)
			if len(mine) == 0 || len(base) == 0 {
				continue
			}
			out = append(out, PairRow{
				Group: g, Cache: cache, Ranks: n,
				Nodes:  slices.Max(distinct(mine, func(r Result) int { return r.Nodes })),
				Ratio:  ratio(medianOf(mine, mbps).Median, medianOf(base, mbps).Median),
				Paired: stats.PairedByKey(byRound(mine), byRound(base)),
			})
		}
	}
	return out
}

// writePairedInputs writes storage a's results over storage b's, per
// consumer, paired by round number across the two: for series of one-round
// runs taken in turns, whose round numbers say which two belong together
// (bench/run.sh's hdf5 part). The medians stand beside the ratio.
func writePairedInputs(w io.Writer, rs []Result, a, b string) {
	of := func(storage, consumer string) map[int]float64 {
		m := map[int]float64{}
		for _, r := range rs {
			if r.Storage == storage && r.Consumer == consumer {
				m[r.Round] = r.MBPerS
			}
		}
		return m
	}
	median := func(m map[int]float64) string {
		return fmtMedian(Summarize(slices.Collect(maps.Values(m))))
	}
	t := table{
		header: []string{"consumer", "pairs", a + " MB/s", b + " MB/s", a + " ÷ " + b + " paired"},
		right:  []bool{false, true, true, true, true},
	}
	for _, c := range distinct(rs, func(r Result) string { return r.Consumer }) {
		x, y := of(a, c), of(b, c)
		p := stats.PairedByKey(x, y)
		t.rows = append(t.rows, []string{c, fmt.Sprint(p.N), median(x), median(y), fmtPaired(p)})
	}
	t.write(w)
}
