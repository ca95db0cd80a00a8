package model

import (
	"errors"
	"math"
	"testing"
)

// emulated are parameters of the kind the PFS emulator on one machine
// shows: few servers, milliseconds per request, a small readahead.
func emulated() Params {
	return Params{
		Servers: 8, ServerBandwidth: 1e9, ServerOverhead: 0.2e-3, Contention: 0.1, Latency: 0.5e-3,
		Readahead: 128 << 10, MaxRequest: 1 << 20, InFlight: 2, NodeRead: 2e9, Cores: 4, SharedCores: 8,
		MemCopy: 2e9, CursorStep: 2e-6, TouchRate: 3e9, SHA256Rate: 400e6, Startup: 0.2, ProcessCPU: 0.03,
		NetBandwidth: 1e9, NetLatency: 50e-6, Locality: 0,
	}
}

// testDesign is a benchmark campaign on emulated hosts: every stacked
// mode and both consumers at 1 to 8 learners per host, on a dataset of
// large records (values on overflow pages) and one of small records
// (inline in the leaf pages, which a cursor walk reads).
func testDesign(nodes []int) []Config {
	g := Grid{
		Nodes: nodes, RanksPerNode: []int{1, 2, 4, 8},
		Contenders: []Contender{Caffe, LMM, DIO, PROV, COAL, STAG},
		Consumers:  []string{"touch", "sha256"},
		Workload:   Workload{Bytes: 2.2e9, Records: 20000, Batch: 64, Epochs: 1, WalkFraction: 0.05},
		Loader:     Loader{Stagger: 2, IODepth: 4, Window: 64 << 20, MaxSpan: 16 << 20},
	}
	cfgs := g.Configs()
	g.Loader.Direct = true
	cfgs = append(cfgs, g.Configs()...)
	g.Loader.Direct = false
	g.Workload = Workload{Bytes: 1e9, Records: 250000, Batch: 64, Epochs: 1, WalkFraction: 1}
	return append(cfgs, g.Configs()...)
}

// TestFitRecoversParameters: observations synthesised from known
// parameters with 1 % noise; the fit, started from parameters off by up to
// a factor of two, recovers every free parameter within 5 %.
func TestFitRecoversParameters(t *testing.T) {
	truth := emulated()
	obs := Synthesize(truth, testDesign([]int{1, 2, 4, 8}), 0.01, 1)
	start := truth
	for i, name := range DefaultFree {
		f, _ := lookup(name)
		*f.get(&start) *= []float64{0.5, 2, 0.7, 1.6, 1.4}[i%5]
	}
	res, err := Fit(obs, start, FitOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range res.Free {
		want, _ := truth.Get(name)
		got, _ := res.Params.Get(name)
		t.Logf("%-18s want %-10.4g got %-10.4g (%+.2f%%, stderr %.2f%%)", name, want, got, 100*(got/want-1), 100*res.StdErr[name])
		if math.Abs(got/want-1) > 0.05 {
			t.Errorf("%s = %v, want %v within 5%%", name, got, want)
		}
	}
	if res.RMS > 0.02 {
		t.Errorf("rms %.3f: the fit does not explain 1 %% noise", res.RMS)
	}
}

// TestFitPredictsHeldOut: fitted on 1, 2 and 4 hosts, the model predicts
// 8 hosts within 15 %, the validation the benchmark campaign runs.
func TestFitPredictsHeldOut(t *testing.T) {
	truth := emulated()
	obs := Synthesize(truth, testDesign([]int{1, 2, 4, 8}), 0.02, 3)
	eight, err := ParseSelector("nodes>=8")
	if err != nil {
		t.Fatal(err)
	}
	train, held := HoldOut(obs, []Selector{eight})
	if len(held) == 0 || len(train) == 0 {
		t.Fatalf("split %d/%d", len(train), len(held))
	}
	start := truth
	start.ServerBandwidth *= 2
	start.Latency /= 2
	res, err := Fit(train, start, FitOptions{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, r := range Residuals(res.Params, held) {
		worst = math.Max(worst, math.Abs(r.Error))
	}
	if worst > 0.15 {
		t.Errorf("worst held-out error %.1f %%, want within 15 %%", 100*worst)
	}
}

// TestFitFlagsWhatTheDataDoNotSay: a parameter no observation depends on
// much comes back with a large standard error, and one no observation
// depends on at all is left out of the fit.
func TestFitFlagsWhatTheDataDoNotSay(t *testing.T) {
	truth := emulated()
	truth.TouchRate = 1e12 // touch costs nothing measurable
	cfgs := testDesign([]int{1, 2})
	var touchOnly []Config
	for _, c := range cfgs {
		if c.Consumer == "touch" {
			touchOnly = append(touchOnly, c)
		}
	}
	obs := Synthesize(truth, touchOnly, 0.01, 5)
	res, err := Fit(obs, truth, FitOptions{Free: []string{"server_bandwidth", "touch_rate", "sha256_rate"}, Restarts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Free) != 2 || res.Free[1] != "touch_rate" {
		t.Errorf("free %v: sha256_rate has no observation", res.Free)
	}
	if res.StdErr["touch_rate"] < 1 || res.StdErr["server_bandwidth"] > 0.05 {
		t.Errorf("standard errors %v", res.StdErr)
	}
}

func TestFitErrors(t *testing.T) {
	obs := Synthesize(emulated(), testDesign([]int{1})[:3], 0, 1)
	cases := []struct {
		name string
		obs  []Observation
		opt  FitOptions
	}{
		{"nothing to fit", nil, FitOptions{}},
		{"unknown parameter", obs, FitOptions{Free: []string{"warp_speed"}}},
		{"layout is not fitted", obs, FitOptions{Free: []string{"servers"}}},
		{"more parameters than observations", obs[:1], FitOptions{Free: []string{"server_bandwidth", "latency_s"}}},
	}
	for _, c := range cases {
		if _, err := Fit(c.obs, emulated(), c.opt); !errors.Is(err, ErrFit) {
			t.Errorf("%s: err = %v, want ErrFit", c.name, err)
		}
	}
	bad := emulated()
	bad.ServerBandwidth = -1
	if _, err := Fit(obs, bad, FitOptions{}); !errors.Is(err, ErrParams) {
		t.Errorf("bad start: err = %v, want ErrParams", err)
	}
}
