package main

import "github.com/lmdbio/lmdbio/internal/kit/bench/stats"

// Summary describes the values measured for one cell over its rounds: the
// median and the min–max spread, as lmdbio-bench bench computes them. The zero
// Summary (N == 0) means "not measured".
type Summary = stats.Spread

// Summarize returns the median and the min–max spread of vs, or the zero
// Summary for none. vs is not modified.
func Summarize(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{}
	}
	return stats.SpreadOf(vs)
}

// ratio returns a/b, or 0 (rendered "–") when either side is missing.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// runRound is one round of one run: what was measured side by side.
type runRound struct {
	run   string
	round int
}

// measuredInRound is a result or a peer line: MB/s measured in one round.
type measuredInRound interface {
	measured() (runRound, float64)
}

func (r Result) measured() (runRound, float64) { return runRound{r.Run, r.Round}, r.MBPerS }
func (p Peer) measured() (runRound, float64)   { return runRound{p.Run, p.Round}, p.MBPerS }

// byRound keys the MB/s of xs by their round.
func byRound[T measuredInRound](xs []T) map[runRound]float64 {
	m := make(map[runRound]float64, len(xs))
	for _, x := range xs {
		k, v := x.measured()
		m[k] = v
	}
	return m
}

// medianOf summarises f over rs.
func medianOf[T any](rs []T, f func(T) float64) Summary {
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	return Summarize(vs)
}

// aboveLimit reports whether a contender's cell exceeds the storage's limit
// by more than the noise band of the two (lmdbio-bench bench's rule).
func aboveLimit(cell Summary, lim LimitRow) bool {
	if cell.N == 0 || lim.Best.N == 0 {
		return false
	}
	_, above := stats.AboveLimit(cell, lim.Best)
	return above
}
