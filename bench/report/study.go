package main

import (
	"slices"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// StudyTable is LMDBIO's stacked-optimisation study for one group and cache
// state at one rank count: each row adds one optimisation.
type StudyTable struct {
	Group
	Cache string
	Ranks int
	Nodes int
	// Limit is the storage's limit the ×-limit column divides by (the
	// median of each round's fastest probe); 0 when the run measured none
	// for this cache state.
	Limit float64
	// LimitProbe is the probe that was fastest most often.
	LimitProbe string
	Rows       []StudyRow
}

// StudyRow is one mode of a study.
type StudyRow struct {
	Mode        string
	MBPerS      Summary
	SamplesPerS float64 // median over rounds
	VsBaseline  float64 // median MB/s over the lmdb mode's; 0 if unknown
	// VsBaselinePaired is the same, paired by round (stats.Paired).
	VsBaselinePaired stats.Paired
	VsLimit          float64 // median MB/s over the limit; 0 if unknown
	// VsLimitPaired is the same, paired by round with the limit probed in
	// it: the machine's drift between rounds cancels.
	VsLimitPaired stats.Paired
	Startup       float64 // median over rounds of the slowest learner's start-up
	// AboveLimit: the median exceeds the limit by more than the noise band.
	AboveLimit bool
}

// studyRanks picks the rank count of a group's study: want if measured,
// else the one where most (cache, mode) cells were measured, the larger
// on a tie because the study is about scale.
func studyRanks(rs []Result, want int) int {
	cells := map[int]map[[2]string]bool{}
	for _, r := range rs {
		if cells[r.Ranks] == nil {
			cells[r.Ranks] = map[[2]string]bool{}
		}
		cells[r.Ranks][[2]string{r.Cache, r.Mode}] = true
	}
	if _, ok := cells[want]; ok {
		return want
	}
	best := 0
	for n, c := range cells {
		if best == 0 || len(c) > len(cells[best]) || len(c) == len(cells[best]) && n > best {
			best = n
		}
	}
	return best
}

func buildStudies(g Group, rs []Result, lim []LimitRow, want int) []StudyTable {
	n := studyRanks(rs, want)
	at := filter(rs, func(r Result) bool { return r.Ranks == n })
	var out []StudyTable
	for _, cache := range cachesOf(at) {
		in := filter(at, func(r Result) bool { return r.Cache == cache })
		nodes := slices.Max(distinct(in, func(r Result) int { return r.Nodes }))
		l := limitFor(lim, g.Storage, cache, nodes)
		t := StudyTable{
			Group: g, Cache: cache, Ranks: n, Nodes: nodes,
			Limit: l.Best.Median, LimitProbe: l.BestProbe,
		}
		var base float64
		baseRounds := byRound(filter(in, func(r Result) bool { return r.Mode == BaselineMode }))
		for _, mode := range modesOf(in) {
			m := filter(in, func(r Result) bool { return r.Mode == mode })
			row := StudyRow{
				Mode:        mode,
				MBPerS:      medianOf(m, func(r Result) float64 { return r.MBPerS }),
				SamplesPerS: medianOf(m, func(r Result) float64 { return r.SamplesPerS }).Median,
				Startup:     medianOf(m, func(r Result) float64 { return r.StartupS }).Median,
			}
			row.AboveLimit = aboveLimit(row.MBPerS, l)
			if mode != BaselineMode {
				row.VsBaselinePaired = stats.PairedByKey(byRound(m), baseRounds)
			}
			if mode == BaselineMode {
				base = row.MBPerS.Median
			}
			row.VsLimit = ratio(row.MBPerS.Median, t.Limit)
			row.VsLimitPaired = stats.PairedByKey(byRound(m), l.Rounds)
			if t.Limit == 0 {
				// No limit line for this cache state: fall back to the
				// fraction the benchmark computed against its own limit.
				row.VsLimit = medianOf(filter(m, func(r Result) bool { return r.FractionOfLimit > 0 }),
					func(r Result) float64 { return r.FractionOfLimit }).Median
			}
			t.Rows = append(t.Rows, row)
		}
		for i := range t.Rows {
			t.Rows[i].VsBaseline = ratio(t.Rows[i].MBPerS.Median, base)
		}
		out = append(out, t)
	}
	return out
}
