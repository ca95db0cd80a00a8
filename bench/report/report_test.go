package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
)

// res is a compact constructor for test results.
func res(storage, consumer, cache, mode string, ranks int, mb float64) Result {
	return Result{Storage: storage, resultLine: schema.Result{Consumer: consumer, Cache: cache, Mode: mode, Ranks: ranks, Nodes: 1, MBPerS: mb, SamplesPerS: mb * 10}}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestGroupsSplitStorageAndConsumer(t *testing.T) {
	rs := []Result{
		res("pfsemu", "touch", "cold", "lmdb", 4, 1),
		res("local", "touch", "cold", "lmdb", 4, 1),
		res("local", "sha256", "cold", "lmdb", 4, 1),
		res("local", "touch", "warm", "lmdb", 4, 1),
	}
	keys, m := groups(rs, []Peer{{Storage: "pfsemu", peerLine: schema.Peer{Consumer: "sha256"}}, {Storage: "local", peerLine: schema.Peer{Consumer: "touch"}}})
	want := []Group{{"local", "sha256"}, {"local", "touch"}, {"pfsemu", "sha256"}, {"pfsemu", "touch"}}
	if !slices.Equal(keys, want) {
		t.Fatalf("groups = %v, want %v", keys, want)
	}
	if n := len(m[Group{"local", "touch"}]); n != 2 {
		t.Errorf("local/touch has %d results, want 2", n)
	}
	if n := len(m[Group{"pfsemu", "sha256"}]); n != 0 {
		t.Errorf("a group of peers only has %d results", n)
	}
}

func TestSortKnownOrdersModesByStacking(t *testing.T) {
	got := sortKnown(ModeOrder, []string{"default", "zz", "lmm+dio", "lmdb", "aa", "lmm+dio"})
	want := []string{"lmdb", "lmm+dio", "default", "aa", "zz"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestStudyRanks(t *testing.T) {
	rs := []Result{
		res("", "", "cold", "lmdb", 1, 1), res("", "", "cold", "default", 1, 1),
		res("", "", "cold", "lmdb", 4, 1), res("", "", "cold", "default", 4, 1),
		res("", "", "cold", "lmdb", 2, 1),
	}
	tests := []struct {
		name string
		want int
		got  int
	}{
		{"tie goes to more ranks", 4, studyRanks(rs, 0)},
		{"asked and measured", 2, studyRanks(rs, 2)},
		{"asked but not measured", 4, studyRanks(rs, 8)},
		{"most cells wins", 1, studyRanks(append(rs, res("", "", "warm", "lmdb", 1, 1)), 0)},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestStudyRatios(t *testing.T) {
	ds := &Dataset{
		Results: []Result{
			res("local", "touch", "cold", "default", 4, 1300),
			res("local", "touch", "cold", "lmdb", 4, 800),
			res("local", "touch", "cold", "lmdb", 4, 1000),
			res("local", "touch", "cold", "lmm", 4, 700),
			res("local", "touch", "cold", "default", 4, 1500),
			// an accelerator workload never enters the study
			{Storage: "local", resultLine: schema.Result{Consumer: "touch", Cache: "cold", Mode: "default", Ranks: 4, Workload: "resnet50", MBPerS: 1}},
			// warm has no limit line: × limit falls back to the bench's own fraction
			{Storage: "local", resultLine: schema.Result{Consumer: "touch", Cache: "warm", Mode: "default", Ranks: 4, MBPerS: 5000, FractionOfLimit: 0.4}},
		},
		Limits: []Limit{
			// the limit of a round is its fastest probe: 1500, 1700, 1600
			{Storage: "local", limitLine: schema.Limit{Cache: "cold", Round: 1, Probe: "buffered:1x1:16MiB", MBPerS: 1500}},
			{Storage: "local", limitLine: schema.Limit{Cache: "cold", Round: 1, Probe: "direct:1x1:16MiB", Direct: true, MBPerS: 100}},
			{Storage: "local", limitLine: schema.Limit{Cache: "cold", Round: 2, Probe: "direct:4x2:16MiB", Direct: true, MBPerS: 1700}},
			{Storage: "local", limitLine: schema.Limit{Cache: "cold", Round: 2, Probe: "buffered:1x1:16MiB", MBPerS: 900}},
			{Storage: "local", limitLine: schema.Limit{Cache: "cold", Round: 3, Probe: "buffered:1x1:16MiB", MBPerS: 1600}},
			{Storage: "pfsemu", limitLine: schema.Limit{Cache: "cold", Round: 1, MBPerS: 1}}, // another storage's limit
		},
	}
	rep := Build(ds, Options{})
	if len(rep.Studies) != 2 {
		t.Fatalf("%d studies, want 2 (cold, warm)", len(rep.Studies))
	}
	cold := rep.Studies[0]
	if cold.Cache != "cold" || cold.Ranks != 4 || cold.Limit != 1600 || cold.LimitProbe != "buffered:1x1:16MiB" {
		t.Fatalf("cold study = %+v", cold)
	}
	if l := rep.Limits[0]; l.Buffered.Median != 1500 || l.Direct.Median != 100 || l.Best.N != 3 {
		t.Errorf("limit row = %+v", l)
	}
	want := []struct {
		mode               string
		median, lo, hi     float64
		n                  int
		vsBaseline, vsLimt float64
	}{
		{"lmdb", 900, 800, 1000, 2, 1, 900.0 / 1600},
		{"lmm", 700, 700, 700, 1, 700.0 / 900, 700.0 / 1600},
		{"default", 1400, 1300, 1500, 2, 1400.0 / 900, 1400.0 / 1600},
	}
	if len(cold.Rows) != len(want) {
		t.Fatalf("rows %+v", cold.Rows)
	}
	for i, w := range want {
		r := cold.Rows[i]
		if r.Mode != w.mode || r.MBPerS.N != w.n || !near(r.MBPerS.Median, w.median) ||
			r.MBPerS.Min != w.lo || r.MBPerS.Max != w.hi || !near(r.VsBaseline, w.vsBaseline) || !near(r.VsLimit, w.vsLimt) {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}
	warm := rep.Studies[1]
	if warm.Limit != 0 || warm.Rows[0].VsLimit != 0.4 || warm.Rows[0].VsBaseline != 0 {
		t.Errorf("warm study = %+v", warm)
	}
	if len(rep.AU) != 1 || rep.AU[0].Workload != "resnet50" {
		t.Errorf("AU rows = %+v", rep.AU)
	}
}

// TestPeersComparedOnlyWithTheSameConsumer: a peer is compared with the
// default mode that ran its consumer at its rank count, never with another
// consumer's results.
func TestPeersComparedOnlyWithTheSameConsumer(t *testing.T) {
	ds := &Dataset{
		Results: []Result{
			res("local", "touch", "cold", "default", 4, 1000),
			res("local", "sha256", "cold", "default", 4, 900),
			res("local", "sha256", "cold", "default", 8, 1800),
			res("local", "sha256", "cold", "lmdb", 4, 10),
			res("pfsemu", "sha256", "cold", "default", 4, 500),
		},
		Peers: []Peer{
			{Storage: "local", peerLine: schema.Peer{Consumer: "sha256", Peer: "torch-readahead", Cache: "cold", Ranks: 4, MBPerS: 400}},
			{Storage: "local", peerLine: schema.Peer{Consumer: "sha256", Peer: "torch-readahead", Cache: "cold", Ranks: 4, MBPerS: 200}},
			{Storage: "local", peerLine: schema.Peer{Consumer: "sha256", Peer: "caffe", Cache: "cold", Ranks: 8, MBPerS: 600}},
			{Storage: "local", peerLine: schema.Peer{Consumer: "sha256", Peer: "caffe", Cache: "warm", Ranks: 2, MBPerS: 600}}, // no default to compare
			{Storage: "local", peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "cold", Ranks: 4, MBPerS: 250}},
			{Storage: "pfsemu", peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "cold", Ranks: 4, MBPerS: 50}}, // lmdbio ran sha256 only
		},
	}
	rep := Build(ds, Options{})
	type row struct {
		cache, peer string
		ranks       int
		peerMB, def float64
		ratio       float64
	}
	want := map[Group][]row{
		{"local", "sha256"}: {
			{"cold", "caffe", 8, 600, 1800, 3},
			{"cold", "torch-readahead", 4, 300, 900, 3},
			{"warm", "caffe", 2, 600, 0, 0},
		},
		{"local", "touch"}:  {{"cold", "caffe", 4, 250, 1000, 4}},
		{"pfsemu", "touch"}: {{"cold", "caffe", 4, 50, 0, 0}},
	}
	if len(rep.Peers) != len(want) {
		t.Fatalf("%d peer tables, want %d: %+v", len(rep.Peers), len(want), rep.Peers)
	}
	for _, p := range rep.Peers {
		var got []row
		for _, r := range p.Rows {
			got = append(got, row{r.Cache, r.Peer, r.Ranks, r.PeerMB.Median, r.Default.Median, r.Ratio})
		}
		if !slices.Equal(got, want[p.Group]) {
			t.Errorf("%v rows\n got %+v\nwant %+v", p.Group, got, want[p.Group])
		}
		if p.HasDefault != (p.Group != Group{"pfsemu", "touch"}) {
			t.Errorf("%v: HasDefault %v", p.Group, p.HasDefault)
		}
	}
}

// TestAboveLimitFlagged: a contender above the storage's limit by more than
// the noise band is flagged wherever it is shown; within the band it is not.
func TestAboveLimitFlagged(t *testing.T) {
	ds := &Dataset{
		Results: []Result{
			res("local", "touch", "warm", "lmdb", 4, 3000),    // mmap in place: above
			res("local", "touch", "warm", "default", 4, 1050), // within 10 %
		},
		Peers:  []Peer{{Storage: "local", peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "warm", Ranks: 4, MBPerS: 2000}}},
		Limits: []Limit{{Storage: "local", limitLine: schema.Limit{Cache: "warm", Round: 1, Probe: "buffered:1x1:16MiB", MBPerS: 1000}}},
	}
	rep := Build(ds, Options{})
	rows := rep.Studies[0].Rows
	if !rows[0].AboveLimit || rows[1].AboveLimit {
		t.Errorf("study rows %+v", rows)
	}
	if r := rep.Peers[0].Rows[0]; !r.PeerAbove || r.DefaultAbove {
		t.Errorf("peer row %+v", r)
	}
	md := string(Markdown(rep))
	if !strings.Contains(md, "3000 †") || strings.Contains(md, "1050 †") || !strings.Contains(md, "2000 †") {
		t.Errorf("report flags the wrong figures:\n%s", md)
	}
}

// TestLimitPerHosts: a storage probed on several counts of hosts has a
// limit for each, and every figure is held against the limit of the hosts
// it ran on: 2 hosts' 1,500 MB/s is above their limit of 1,000, 8 hosts'
// 1,500 below theirs of 3,000.
func TestLimitPerHosts(t *testing.T) {
	on := func(hosts int, mb float64) Result {
		r := res("hosts", "touch", "cold", "default", 4*hosts, mb)
		r.Nodes = hosts
		return r
	}
	ds := &Dataset{
		Results: []Result{on(2, 1500), on(8, 1500)},
		Peers: []Peer{{Storage: "hosts", peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "cold", Ranks: 8, MBPerS: 100}},
			{Storage: "hosts", peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "cold", Ranks: 32, MBPerS: 100}}},
		Limits: []Limit{{Storage: "hosts", limitLine: schema.Limit{Cache: "cold", Round: 1, Probe: "direct:4x2:16MiB", Hosts: 2, MBPerS: 1000}},
			{Storage: "hosts", limitLine: schema.Limit{Cache: "cold", Round: 1, Probe: "direct:4x2:16MiB", Hosts: 8, MBPerS: 3000}}},
	}
	rep := Build(ds, Options{})
	if len(rep.Limits) != 2 || rep.Limits[0].Hosts != 2 || rep.Limits[1].Hosts != 8 {
		t.Fatalf("limits %+v, want one for 2 hosts and one for 8", rep.Limits)
	}
	if st := rep.Studies[0]; st.Ranks != 32 || st.Limit != 3000 || st.Rows[0].AboveLimit {
		t.Errorf("study at %d ranks against a limit of %v, above %v; want 32, 3000, false", st.Ranks, st.Limit, st.Rows[0].AboveLimit)
	}
	rows := rep.Peers[0].Rows
	if len(rows) != 2 || !rows[0].DefaultAbove || rows[1].DefaultAbove {
		t.Errorf("peer rows %+v: want 2 hosts above their limit, 8 not", rows)
	}
	sc := rep.Scaling[0].Series[0]
	if !slices.Equal(sc.Above, []bool{true, false}) {
		t.Errorf("scaling flags %v, want [true false]", sc.Above)
	}
}

func TestScalingAndFirstBatch(t *testing.T) {
	r := func(mode string, ranks int, mb, fmax, fmed, fmin float64) Result {
		x := res("", "touch", "cold", mode, ranks, mb)
		x.FirstBatchMax, x.FirstBatchMedian, x.FirstBatchMin = fmax, fmed, fmin
		return x
	}
	ds := &Dataset{
		Results: []Result{
			r("lmdb", 1, 100, 0.1, 0.1, 0.1), r("lmdb", 4, 200, 0.8, 0.4, 0.2), r("lmdb", 4, 400, 1.0, 0.5, 0.2),
			r("default", 2, 900, 0.05, 0.04, 0.03),
		},
		Peers: []Peer{{peerLine: schema.Peer{Consumer: "touch", Peer: "caffe", Cache: "cold", Ranks: 8, MBPerS: 50, FirstBatchMax: 2}},
			{peerLine: schema.Peer{Consumer: "sha256", Peer: "caffe", Cache: "cold", Ranks: 2, MBPerS: 50}}}, // another table
		Limits: []Limit{{limitLine: schema.Limit{Cache: "cold", MBPerS: 1000}}, {limitLine: schema.Limit{Cache: "cold", Direct: true, MBPerS: 800}}},
	}
	rep := Build(ds, Options{})
	if len(rep.Scaling) != 2 || len(rep.FirstBatch) != 2 {
		t.Fatalf("scaling %d, first batch %d tables", len(rep.Scaling), len(rep.FirstBatch))
	}
	s := rep.Scaling[1] // consumer touch; [0] is sha256, the peer alone
	if s.Consumer != "touch" || !slices.Equal(s.Ranks, []int{1, 2, 4, 8}) || s.Limit != 1000 {
		t.Fatalf("scaling = %+v", s)
	}
	if only := rep.Scaling[0]; only.Consumer != "sha256" || len(only.Series) != 1 || !only.Series[0].Peer {
		t.Errorf("sha256 table = %+v", only)
	}
	medians := map[string][]float64{}
	for _, se := range s.Series {
		for _, c := range se.Cells {
			medians[se.Name] = append(medians[se.Name], c.Median)
		}
	}
	wantMed := map[string][]float64{"lmdb": {100, 0, 300, 0}, "default": {0, 900, 0, 0}, "caffe": {0, 0, 0, 50}}
	for k, w := range wantMed {
		if !slices.Equal(medians[k], w) {
			t.Errorf("%s medians %v, want %v", k, medians[k], w)
		}
	}
	if s.Series[2].Name != "caffe" || !s.Series[2].Peer {
		t.Errorf("peer series = %+v", s.Series[2])
	}
	fb := rep.FirstBatch[1].Series[0] // touch, lmdb
	c4 := fb.Cells[2]
	if fb.Name != "lmdb" || !near(c4.Max.Median, 0.9) || !near(c4.Median.Median, 0.45) || !near(c4.Min.Median, 0.2) {
		t.Errorf("lmdb first batch at 4 ranks = %+v", c4)
	}
}

func TestMachineLines(t *testing.T) {
	ms := []Machine{
		{Fields: map[string]any{"date": "2025-01-15", "cores": 2.0, "memory_bytes": 8589934592.0, "kernel": "6.1", "zeta": true}},
		{Fields: map[string]any{"date": "2025-01-15", "cores": 2.0, "memory_bytes": 8589934592.0, "kernel": "6.1", "zeta": true}},
		{Storage: "pfsemu", Fields: map[string]any{"cores": 2.0}},
	}
	got := machineLines(ms, "")
	want := []string{"cores 2 · memory 8.0 GiB · kernel 6.1 · date 2025-01-15 · zeta true", "emulated PFS: cores 2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := machineLines(ms, "my laptop"); !slices.Equal(got, []string{"my laptop"}) {
		t.Errorf("override: %q", got)
	}
}

func TestPeersUseFullStackWhenNoDefault(t *testing.T) {
	ds := &Dataset{
		Results: []Result{res("", "", "cold", FullStackMode, 4, 800), res("", "", "cold", "lmdb", 4, 100)},
		Peers:   []Peer{{peerLine: schema.Peer{Peer: "caffe", Cache: "cold", Ranks: 4, MBPerS: 200}}},
	}
	p := Build(ds, Options{}).Peers[0]
	if p.Default != FullStackMode || p.Rows[0].Ratio != 4 {
		t.Errorf("peers = %+v", p)
	}
}

// TestStudyPairedByRunAndRound: the paired ratio matches a mode with the
// baseline of the same round of the same run, never across runs (two runs
// both have a round 1), and leaves out rounds without the baseline.
func TestStudyPairedByRunAndRound(t *testing.T) {
	at := func(run string, round int, mode string, mbps float64) Result {
		r := res("local", "touch", "cold", mode, 8, mbps)
		r.Run, r.Round = run, round
		return r
	}
	ds := &Dataset{Results: []Result{
		at("a", 1, "lmdb", 1000), at("a", 1, "default", 900),
		at("a", 2, "lmdb", 2000), at("a", 2, "default", 1800),
		at("b", 1, "lmdb", 1500), at("b", 1, "default", 1350),
		at("b", 2, "default", 100), // no lmdb in this round: unpaired
	}}
	rep := Build(ds, Options{})
	if len(rep.Studies) != 1 {
		t.Fatalf("studies %+v", rep.Studies)
	}
	for _, r := range rep.Studies[0].Rows {
		if r.Mode != "default" {
			continue
		}
		if p := r.VsBaselinePaired; p.N != 3 || !near(p.GeoMean, 0.9) || !near(p.Low, 0.9) || !near(p.High, 0.9) {
			t.Errorf("default paired with lmdb: %+v, want 3 pairs of 0.9", p)
		}
		return
	}
	t.Fatal("no default row")
}

// TestLimitPairedByRunAndRound: × limit paired divides each round's result
// by the fastest probe of that round of that run; two runs numbering their
// rounds alike stay apart.
func TestLimitPairedByRunAndRound(t *testing.T) {
	lim := func(run string, round int, probe string, mbps float64) Limit {
		return Limit{Storage: "local", Run: run, limitLine: schema.Limit{Cache: "cold", Round: round, Probe: probe, MBPerS: mbps}}
	}
	def := func(run string, round int, mbps float64) Result {
		r := res("local", "touch", "cold", "default", 8, mbps)
		r.Run, r.Round = run, round
		return r
	}
	ds := &Dataset{
		Results: []Result{def("a", 1, 800), def("a", 2, 1600), def("b", 1, 400), def("b", 3, 999)},
		Limits: []Limit{
			lim("a", 1, "direct:4x2:16MiB", 1000), lim("a", 1, "buffered:4x2:4MiB", 500),
			lim("a", 2, "direct:4x2:16MiB", 2000),
			lim("b", 1, "buffered:4x2:4MiB", 500), lim("b", 1, "direct:4x2:16MiB", 100),
		},
	}
	rep := Build(ds, Options{})
	if l := rep.Limits[0]; l.Best.N != 3 || l.BestProbe != "direct:4x2:16MiB" {
		t.Errorf("limit row %+v: want 3 rounds, mostly direct:4x2:16MiB", l)
	}
	r := rep.Studies[0].Rows[0]
	if p := r.VsLimitPaired; p.N != 3 || !near(p.GeoMean, 0.8) || !near(p.Low, 0.8) || !near(p.High, 0.8) {
		t.Errorf("default paired with the limit: %+v, want 3 pairs of 0.8 (b's round 3 has no limit)", p)
	}
}

// TestPairsAtEveryRankCount: the default ÷ lmdb rows cover every rank count
// and cache state that measured both, cold first, fewer ranks first, each
// paired within its own rounds; a rank count without lmdb has no row.
func TestPairsAtEveryRankCount(t *testing.T) {
	at := func(cache string, ranks, round int, mode string, mbps float64) Result {
		r := res("local", "touch", cache, mode, ranks, mbps)
		r.Run, r.Round = "local.jsonl", round
		return r
	}
	ds := &Dataset{Results: []Result{
		at("warm", 4, 1, "lmdb", 5000), at("warm", 4, 1, "default", 4000),
		at("cold", 8, 1, "lmdb", 1000), at("cold", 8, 1, "default", 1100),
		at("cold", 8, 2, "lmdb", 2000), at("cold", 8, 2, "default", 2200),
		at("cold", 4, 1, "lmdb", 1000), at("cold", 4, 1, "default", 900),
		at("cold", 2, 1, "default", 900), // no lmdb at 2 ranks
	}}
	rows := Build(ds, Options{}).Pairs
	want := []struct {
		cache        string
		ranks, pairs int
		ratio        float64
	}{{"cold", 4, 1, 0.9}, {"cold", 8, 2, 1.1}, {"warm", 4, 1, 0.8}}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Cache != w.cache || r.Ranks != w.ranks || r.Paired.N != w.pairs || !near(r.Ratio, w.ratio) || !near(r.Paired.GeoMean, w.ratio) {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}
}
