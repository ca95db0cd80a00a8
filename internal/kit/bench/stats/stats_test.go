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

func TestPairedRatio(t *testing.T) {
	// Rounds that swing twofold, with a the same 0.9 of b in each: the
	// ratio of medians would mix the swing in, the paired ratio does not.
	p := PairedRatio([]float64{900, 1800, 990, 1350}, []float64{1000, 2000, 1100, 1500})
	if p.N != 4 || math.Abs(p.GeoMean-0.9) > 1e-12 || math.Abs(p.Low-0.9) > 1e-12 || math.Abs(p.High-0.9) > 1e-12 {
		t.Errorf("constant 0.9: %+v", p)
	}
	if !p.Excludes(1) || p.Excludes(0.9) {
		t.Errorf("constant 0.9: Excludes(1) %v, Excludes(0.9) %v", p.Excludes(1), p.Excludes(0.9))
	}
	// Log ratios ±l: geometric mean 1, standard error l, half-width t(1)·l.
	l := math.Log(1.1)
	p = PairedRatio([]float64{110, 100}, []float64{100, 110})
	half := 12.706 * l
	if math.Abs(p.GeoMean-1) > 1e-12 || math.Abs(math.Log(p.High)-half) > 1e-9 || math.Abs(math.Log(p.Low)+half) > 1e-9 {
		t.Errorf("±10%%: %+v, want half-width %v", p, half)
	}
	if p.Excludes(1) {
		t.Error("±10% in two rounds excludes 1")
	}
	// Pairs with a missing side are left out; one pair has no interval.
	p = PairedRatio([]float64{0, 50, 7}, []float64{100, 100})
	if p.N != 1 || p.GeoMean != 0.5 || p.Low != 0.5 || p.High != 0.5 || p.Excludes(1) {
		t.Errorf("one pair: %+v", p)
	}
	if p = PairedRatio(nil, nil); p.N != 0 || !math.IsNaN(p.GeoMean) {
		t.Errorf("no pairs: %+v", p)
	}
}

func TestT975(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 9: 2.262, 30: 2.042, 45: 2.021, 60: 2.000, 1000: 1.960} {
		if got := t975(df); math.Abs(got-want) > 1e-9 {
			t.Errorf("t975(%d) = %v, want %v", df, got, want)
		}
	}
	if !math.IsNaN(t975(0)) {
		t.Error("t975(0) is not NaN")
	}
}

func TestPairedByKey(t *testing.T) {
	a := map[int]float64{1: 900, 2: 1800, 3: 500}
	b := map[int]float64{1: 1000, 2: 2000, 4: 700} // rounds 3 and 4 have one side only
	if p := PairedByKey(a, b); p.N != 2 || math.Abs(p.GeoMean-0.9) > 1e-12 {
		t.Errorf("PairedByKey = %+v, want 2 pairs of 0.9", p)
	}
}
