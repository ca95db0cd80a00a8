package main

import "sort"

// PredictionTable is lmdbio-bench model predict's MB/s per contender at a few
// node counts (powers of four and the largest), one learner count.
type PredictionTable struct {
	RanksPerNode int
	Nodes        []int
	Contenders   []string
	MBPerS       map[string][]float64 // per contender, one per node count
	Bottleneck   map[string]string    // per contender, at the largest node count
}

func buildPredictions(ps []Prediction) PredictionTable {
	t := PredictionTable{MBPerS: map[string][]float64{}, Bottleneck: map[string]string{}}
	if len(ps) == 0 {
		return t
	}
	t.RanksPerNode = ps[0].RanksPerNode
	in := filter(ps, func(p Prediction) bool { return p.RanksPerNode == t.RanksPerNode })
	all := sortedInts(in, func(p Prediction) int { return p.Nodes })
	last := all[len(all)-1]
	for _, n := range all {
		if n == last || isPowerOf4(n) {
			t.Nodes = append(t.Nodes, n)
		}
	}
	t.Contenders = distinct(in, func(p Prediction) string { return p.Contender })
	for _, c := range t.Contenders {
		row := make([]float64, len(t.Nodes))
		for _, p := range in {
			if p.Contender != c {
				continue
			}
			if i := sort.SearchInts(t.Nodes, p.Nodes); i < len(t.Nodes) && t.Nodes[i] == p.Nodes {
				row[i] = p.MBPerS
			}
			if p.Nodes == last {
				t.Bottleneck[c] = p.Bottleneck
			}
		}
		t.MBPerS[c] = row
	}
	return t
}

func isPowerOf4(n int) bool {
	for n > 1 && n%4 == 0 {
		n /= 4
	}
	return n == 1
}
