package main

import "testing"

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{5}, Summary{N: 1, Median: 5, Min: 5, Max: 5}},
		{"odd unsorted", []float64{3, 1, 2}, Summary{N: 3, Median: 2, Min: 1, Max: 3}},
		{"even takes mean of middle two", []float64{4, 1, 3, 2}, Summary{N: 4, Median: 2.5, Min: 1, Max: 4}},
		{"duplicates", []float64{7, 7, 1}, Summary{N: 3, Median: 7, Min: 1, Max: 7}},
		{"large values do not overflow", []float64{1.5e308, 1.5e308}, Summary{N: 2, Median: 1.5e308, Min: 1.5e308, Max: 1.5e308}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			if got := Summarize(tc.in); got != tc.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
			for i := range in {
				if in[i] != tc.in[i] {
					t.Fatalf("input modified: %v", tc.in)
				}
			}
		})
	}
}

func TestRatio(t *testing.T) {
	tests := []struct{ a, b, want float64 }{
		{10, 4, 2.5},
		{1, 0, 0},  // no baseline: unknown, not infinite
		{0, 10, 0}, // not measured
		{-1, 2, 0},
	}
	for _, tc := range tests {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%g, %g) = %g, want %g", tc.a, tc.b, got, tc.want)
		}
	}
}
