package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{1.75, 3.1, 2.2}, 2.2},
		{[]float64{5, 5, 1, 5}, 5},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.in...)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("Median reordered its input: %v", in)
			}
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

func TestSpread(t *testing.T) {
	cases := []struct {
		in       []float64
		want     Spread
		relative float64
	}{
		{[]float64{1000, 800, 1200}, Spread{N: 3, Median: 1000, Min: 800, Max: 1200}, 0.4},
		{[]float64{7}, Spread{N: 1, Median: 7, Min: 7, Max: 7}, 0},
		{[]float64{0, 0}, Spread{N: 2}, math.NaN()},
	}
	for _, c := range cases {
		got := SpreadOf(c.in)
		if got != c.want {
			t.Errorf("SpreadOf(%v) = %+v, want %+v", c.in, got, c.want)
		}
		rel := got.Relative()
		if math.IsNaN(c.relative) != math.IsNaN(rel) || (!math.IsNaN(rel) && math.Abs(rel-c.relative) > 1e-12) {
			t.Errorf("Relative(%v) = %v, want %v", c.in, rel, c.relative)
		}
	}
	if s := SpreadOf(nil); s.N != 0 || !math.IsNaN(s.Median) || !math.IsNaN(s.Relative()) {
		t.Errorf("SpreadOf(nil) = %+v", s)
	}
}

func TestAboveLimit(t *testing.T) {
	cases := []struct {
		name             string
		contender, limit []float64
		band             float64
		above            bool
	}{
		{name: "within the minimum band", contender: []float64{1090}, limit: []float64{1000}, band: 0.10},
		{name: "above it", contender: []float64{1150}, limit: []float64{1000}, band: 0.10, above: true},
		{name: "a wide limit spread widens the band", contender: []float64{1250, 1250, 1250}, limit: []float64{700, 1000, 1300}, band: 0.6},
		{name: "a wide contender spread too", contender: []float64{1000, 1800, 2600}, limit: []float64{1000, 1000}, band: 1600.0 / 1800, above: false},
		{name: "far above despite the spread", contender: []float64{3000, 3100, 3200}, limit: []float64{900, 1000, 1100}, band: 0.2, above: true},
		{name: "below", contender: []float64{500}, limit: []float64{1000}, band: 0.10},
		{name: "no limit", contender: []float64{500}, band: 0.10},
	}
	for _, c := range cases {
		band, above := AboveLimit(SpreadOf(c.contender), SpreadOf(c.limit))
		if math.Abs(band-c.band) > 1e-12 || above != c.above {
			t.Errorf("%s: band %v above %v; want %v %v", c.name, band, above, c.band, c.above)
		}
	}
}
