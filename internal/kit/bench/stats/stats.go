// Package stats summarises repeated measurements: medians, spreads over
// rounds, and whether two medians differ by more than their noise. It has
// no dependencies beyond the standard library, so every tool that reads
// benchmark output (lmdbio-bench bench, the report, the model) applies the same
// rules.
package stats

import (
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), or NaN for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1]/2 + s[n/2]/2 // halves first: no overflow near the largest floats
}

// Spread summarises repeated measurements of one thing: how far they range
// and how far that is relative to the median.
type Spread struct {
	N                int
	Median, Min, Max float64
}

// SpreadOf summarises xs; the zero Spread (N 0, NaN median) for none.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	return Spread{N: len(xs), Median: Median(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
}

// Relative is (max - min) / median: 0.1 means the runs ranged over 10% of
// their median. NaN when the median is 0 or unknown.
func (s Spread) Relative() float64 {
	if s.N == 0 || s.Median == 0 {
		return math.NaN()
	}
	return (s.Max - s.Min) / s.Median
}

// MinNoiseBand is the least relative difference between two medians over
// rounds that counts as a difference: timings on shared machines swing by
// several percent from run to run even when the spread of a few rounds
// happens to be small, and one round has no spread at all.
const MinNoiseBand = 0.10

// NoiseBand is the relative band within which the medians of a and b
// cannot be told apart: the larger of their relative spreads
// ((max-min)/median) and MinNoiseBand.
func NoiseBand(a, b Spread) float64 {
	band := MinNoiseBand
	for _, s := range []Spread{a, b} {
		if r := s.Relative(); !math.IsNaN(r) {
			band = max(band, r)
		}
	}
	return band
}

// AboveLimit reports whether a contender's median throughput exceeds the
// storage's limit by more than the noise band of the two, and the band. A
// contender cannot read faster than the storage gives: above the limit,
// either the limit was not measured the way the contender reads (a probe is
// missing), or the contender did not read what it delivered from storage
// (a warm cache, data read in place through mmap with a consumer that does
// not copy). False when either is unknown.
func AboveLimit(contender, limit Spread) (band float64, above bool) {
	band = NoiseBand(contender, limit)
	if contender.N == 0 || limit.N == 0 || limit.Median <= 0 {
		return band, false
	}
	return band, contender.Median > limit.Median*(1+band)
}
