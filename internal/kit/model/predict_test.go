package model

import (
	"math"
	"testing"
)

// scale predicts a contender on the Lustre-like parameters and the
// CIFAR-like workload at 36 learners per node.
func scale(c Contender, nodes int) Prediction {
	w, _ := CIFARWorkload()
	return Predict(Lustre().Params, Config{Contender: c, Nodes: nodes, RanksPerNode: 36, Workload: w, Loader: DefaultLoader})
}

// TestLustreShape: with the Lustre-like parameters the Caffe baseline
// flattens and then falls with scale while lmdbio's default mode keeps
// rising, the shape of LMDBIO's published curve.
func TestLustreShape(t *testing.T) {
	nodes := []int{1, 2, 4, 8, 16, 32, 64, 128, 256}
	var caffe, def []float64
	for _, n := range nodes {
		caffe = append(caffe, scale(Caffe, n).MBPerS)
		def = append(def, scale(STAG, n).MBPerS)
	}
	peak := 0
	for i := range caffe {
		if caffe[i] > caffe[peak] {
			peak = i
		}
	}
	if peak == len(nodes)-1 || caffe[len(caffe)-1] > 0.5*caffe[peak] {
		t.Errorf("baseline does not fall with scale: %v MB/s", caffe)
	}
	for i := 1; i < len(def); i++ {
		if def[i] < def[i-1] {
			t.Errorf("default falls from %d to %d nodes: %v MB/s", nodes[i-1], nodes[i], def)
		}
	}
	if r := def[len(def)-1] / caffe[len(caffe)-1]; r < 10 {
		t.Errorf("default / baseline at 256 nodes = %.1f, want the order of LMDBIO's 65×", r)
	}
}

// TestRequestsAndStreams: each contender meets storage as its mechanism
// says.
func TestRequestsAndStreams(t *testing.T) {
	p := Lustre().Params
	w := Workload{Bytes: 64e9, Records: 1e6, Batch: 64, Epochs: 1, Consumer: "touch", WalkFraction: 0.01}
	batch := 64 * 64e3
	cases := []struct {
		c       Contender
		direct  bool
		streams float64
		request float64
	}{
		{Caffe, false, 8 * 36, p.Readahead},
		{LMM, false, 8, p.Readahead},
		{DIO, false, 8, math.Min(batch, p.Readahead)},
		{PROV, true, 8, math.Min(batch, p.MaxRequest)},
		{COAL, false, 8, p.Readahead},
		{STAG, false, 4, p.Readahead},
		{Exchange, false, 4, p.Readahead},
	}
	for _, tc := range cases {
		l := DefaultLoader
		l.Direct = tc.direct
		pr := Predict(p, Config{Contender: tc.c, Nodes: 8, RanksPerNode: 36, Workload: w, Loader: l})
		if pr.Streams != tc.streams || pr.RequestBytes != tc.request {
			t.Errorf("%s: %v streams of %v-byte requests, want %v of %v", tc.c, pr.Streams, pr.RequestBytes, tc.streams, tc.request)
		}
		// Without an index the cursor walk reads leaf pages of other nodes' records.
		wantBytes := w.Bytes
		if tc.c.stage() < PROV.stage() {
			wantBytes = w.Bytes * (1 + w.WalkFraction*7)
		}
		if math.Abs(pr.StorageBytes-wantBytes) > 1 {
			t.Errorf("%s reads %v bytes, want %v", tc.c, pr.StorageBytes, wantBytes)
		}
	}
}

// TestExchangeLaterEpochs: the shuffling cache reads storage once; later
// epochs only exchange, and less with more locality.
func TestExchangeLaterEpochs(t *testing.T) {
	p := Lustre().Params
	w, _ := CIFARWorkload()
	w.Epochs = 3
	cfg := Config{Contender: Exchange, Nodes: 16, RanksPerNode: 36, Workload: w, Loader: DefaultLoader}
	pr := Predict(p, cfg)
	if !(pr.LaterEpoch < pr.FirstEpoch) {
		t.Errorf("later epoch %v s not faster than the first %v s", pr.LaterEpoch, pr.FirstEpoch)
	}
	if got, want := pr.Seconds, p.Startup+p.ProcessCPU+pr.FirstEpoch+2*pr.LaterEpoch; math.Abs(got-want) > 1e-9 {
		t.Errorf("total %v, want %v", got, want)
	}
	p.Locality = 0.9
	local := exchangeTime(p, cfg)
	p.Locality = 0
	if !(local < exchangeTime(p, cfg)) {
		t.Error("locality does not shrink the exchange")
	}
	cfg.Nodes = 1
	if exchangeTime(p, cfg) != 0 {
		t.Error("one node exchanges")
	}
}

// TestSharedCores: nodes emulated on one machine compete for its cores.
func TestSharedCores(t *testing.T) {
	p := Lustre().Params
	p.TouchRate, p.Cores = 1e8, 2 // CPU-bound
	w, _ := CIFARWorkload()
	w.Compute = 0
	cfg := Config{Contender: PROV, Nodes: 8, RanksPerNode: 2, Workload: w, Loader: DefaultLoader}
	own := Predict(p, cfg)
	p.SharedCores = 2
	shared := Predict(p, cfg)
	if !(shared.Seconds > 3*own.Seconds) || shared.Bottleneck != "cores" {
		t.Errorf("8 nodes on 2 shared cores: %v s (%s), on their own cores %v s", shared.Seconds, shared.Bottleneck, own.Seconds)
	}
}

func TestSmoothMinAndCombine(t *testing.T) {
	if got := smoothMin(1, 1e9); math.Abs(got-1) > 1e-9 {
		t.Errorf("smoothMin(1, 1e9) = %v", got)
	}
	if got := smoothMin(2, 2); math.Abs(got-2/math.Pow(2, 0.25)) > 1e-12 {
		t.Errorf("smoothMin(2, 2) = %v", got)
	}
	got, neck := combine([]stage{{"a", 1}, {"b", 3}, {"c", 0}})
	if neck != "b" || got < 3 || got > 3.01 {
		t.Errorf("combine = %v, %s", got, neck)
	}
}

// TestStartupSharedCores: each process's start-up CPU costs a node the
// processes per core; only nodes that share one machine's cores start
// slower the more nodes there are.
func TestStartupSharedCores(t *testing.T) {
	p := Params{Startup: 0.1, ProcessCPU: 0.02, Cores: 2}
	if got, want := startupTime(p, 8, 4), 0.1+4*0.02/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("real nodes: start-up %v, want %v whatever the node count", got, want)
	}
	if got, want := startupTime(p, 1, 1), 0.1+0.02; math.Abs(got-want) > 1e-12 {
		t.Errorf("one process: start-up %v, want %v (at most one core each)", got, want)
	}
	p.SharedCores = 2
	if got, want := startupTime(p, 8, 4), 0.1+32*0.02/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("8 emulated nodes: start-up %v, want %v", got, want)
	}
	if !(startupTime(p, 4, 4) < startupTime(p, 8, 4)) {
		t.Error("emulated nodes: start-up does not grow with the nodes sharing the cores")
	}
}
