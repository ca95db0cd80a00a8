package main

import "sort"

// Summary describes the values measured for one cell over its rounds. The
// zero Summary (N == 0) means "not measured".
type Summary struct {
	N                int
	Median, Min, Max float64
}

// Summarize returns the median and the min–max spread of vs. The median of
// an even count is the mean of the two middle values. vs is not modified.
func Summarize(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = s[n/2-1]/2 + s[n/2]/2
	}
	return Summary{N: n, Median: med, Min: s[0], Max: s[n-1]}
}

// ratio returns a/b, or 0 (rendered "–") when either side is missing.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// medianOf summarises f over rs.
func medianOf[T any](rs []T, f func(T) float64) Summary {
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	return Summarize(vs)
}
