package stats

import (
	"math"
	"slices"
)

// Paired summarises the ratio a/b of two contenders measured side by side
// in the same rounds: the geometric mean of the per-round ratios and its
// 95% confidence interval (Student's t on the logarithms). Interleaving
// puts both contenders under the same drift of the machine within a round,
// so the per-round ratio cancels what swings between rounds, such as a
// disk's speed; a ratio of medians over rounds keeps that swing
// (docs/decisions/0014-bench-order-and-paired-ratios.md).
type Paired struct {
	N                  int
	GeoMean, Low, High float64
}

// PairedRatio pairs a[i] with b[i] (one round each); pairs where either is
// not positive are left out. With fewer than two pairs there is no
// interval: Low and High are the ratio itself, or NaN for none.
func PairedRatio(a, b []float64) Paired {
	var logs []float64
	for i := range min(len(a), len(b)) {
		if a[i] > 0 && b[i] > 0 {
			logs = append(logs, math.Log(a[i]/b[i]))
		}
	}
	slices.Sort(logs) // sums in one order, whatever order the pairs came in
	p := Paired{N: len(logs), GeoMean: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if p.N == 0 {
		return p
	}
	mean := 0.0
	for _, l := range logs {
		mean += l
	}
	mean /= float64(p.N)
	p.GeoMean, p.Low, p.High = math.Exp(mean), math.Exp(mean), math.Exp(mean)
	if p.N < 2 {
		return p
	}
	ss := 0.0
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	half := t975(p.N-1) * math.Sqrt(ss/float64(p.N-1)/float64(p.N))
	p.Low, p.High = math.Exp(mean-half), math.Exp(mean+half)
	return p
}

// PairedByKey is PairedRatio over the keys (rounds) that both a and b
// measured.
func PairedByKey[K comparable](a, b map[K]float64) Paired {
	var x, y []float64
	for k, v := range a {
		if w, ok := b[k]; ok {
			x, y = append(x, v), append(y, w)
		}
	}
	return PairedRatio(x, y)
}

// Excludes reports whether the interval lies wholly on one side of v:
// the contenders differ from v beyond the noise of the pairs.
func (p Paired) Excludes(v float64) bool { return p.N >= 2 && (p.High < v || p.Low > v) }

// t975 is the 97.5th percentile of Student's t with df degrees of freedom
// (the half-width of a two-sided 95% interval in standard errors).
func t975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(table):
		return table[df-1]
	case df <= 60:
		return 2.000 + 0.042*(60-float64(df))/30 // 2.042 at 30, 2.000 at 60
	case df <= 120:
		return 1.980 + 0.020*(120-float64(df))/60
	}
	return 1.960
}
