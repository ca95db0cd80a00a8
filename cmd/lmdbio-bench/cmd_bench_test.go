package main

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
)

func TestParseBenchModes(t *testing.T) {
	cases := []struct {
		in      string
		want    string // names, comma-separated
		wantErr bool
	}{
		{in: benchModesDefault, want: "lmdb,lmm,lmm+dio,lmm+dio+prov,lmm+dio+prov+coal,default"},
		{in: "default,lmm+dio+prov+coal+stag,lmdb", want: "default,lmdb"}, // the full stack once
		{in: " lmm , lmm ", want: "lmm"},
		{in: "lmm,fast", wantErr: true},
		{in: ",", wantErr: true},
	}
	for _, c := range cases {
		got, err := parseBenchModes(c.in)
		if (err != nil) != c.wantErr {
			t.Fatalf("parseBenchModes(%q) err = %v", c.in, err)
		}
		if c.wantErr {
			if cli.ExitCode(err) != cli.ExitUsage {
				t.Errorf("parseBenchModes(%q): exit %d, want %d", c.in, cli.ExitCode(err), cli.ExitUsage)
			}
			continue
		}
		var names []string
		for _, m := range got {
			names = append(names, m.name)
		}
		if strings.Join(names, ",") != c.want {
			t.Errorf("parseBenchModes(%q) = %v, want %s", c.in, names, c.want)
		}
	}
}

func TestParseRankList(t *testing.T) {
	cases := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "1,2,4", want: []int{1, 2, 4}},
		{in: "4,1,4", want: []int{4, 1}},
		{in: "0", wantErr: true},
		{in: "two", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, c := range cases {
		got, err := parseRankList(c.in)
		if (err != nil) != c.wantErr || (!c.wantErr && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("parseRankList(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

func TestBenchRanks(t *testing.T) {
	cases := []struct {
		name    string
		cfg     benchConfig
		world   int
		want    []int
		wantErr bool
	}{
		{name: "default: the job", world: 4, want: []int{4}},
		{name: "asked", cfg: benchConfig{ranks: []int{1, 2}}, world: 4, want: []int{1, 2}},
		{name: "more than the job", cfg: benchConfig{ranks: []int{8}}, world: 4, wantErr: true},
		{name: "workload searches", cfg: benchConfig{workload: bench.Workloads["resnet50"]}, world: 3, want: []int{1, 2, 3}},
	}
	for _, c := range cases {
		got, err := benchRanks(c.cfg, c.world)
		if (err != nil) != c.wantErr || (!c.wantErr && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestBenchSchedule: every contender once per round, cache state and
// consumer, the limit first, the contenders compared with each other
// together, their order rotating between rounds.
func TestBenchSchedule(t *testing.T) {
	modes, err := parseBenchModes("lmdb,default")
	if err != nil {
		t.Fatal(err)
	}
	cfg := benchConfig{modes: modes, caches: []string{"cold", "warm"}, rounds: 2, peers: []string{"caffe", "torch-readahead"},
		consumers: []bench.ConsumerKind{bench.TouchPages, bench.SHA256}}
	var got []string
	for _, s := range benchSchedule(cfg, []int{1, 2}, 2) {
		got = append(got, fmt.Sprintf("%d%s:%s", s.round, s.cache[:1], stepName(s)))
	}
	round1 := "limit lmdb@1/touch lmdb@1/sha256 default@1/touch default@1/sha256 caffe@1/touch caffe@1/sha256 " +
		"lmdb@2/touch lmdb@2/sha256 default@2/touch default@2/sha256 caffe@2/touch caffe@2/sha256 " +
		"torch-readahead@1/touch torch-readahead@1/sha256"
	round2 := "limit lmdb@1/sha256 default@1/touch default@1/sha256 caffe@1/touch caffe@1/sha256 lmdb@1/touch " +
		"lmdb@2/sha256 default@2/touch default@2/sha256 caffe@2/touch caffe@2/sha256 lmdb@2/touch " +
		"torch-readahead@1/sha256 torch-readahead@1/touch"
	var want []string
	for _, r := range []struct {
		round int
		order string
	}{{1, round1}, {2, round2}} {
		for _, c := range []string{"c", "w"} {
			for _, w := range strings.Fields(r.order) {
				want = append(want, fmt.Sprintf("%d%s:%s", r.round, c, w))
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schedule\n got %v\nwant %v", got, want)
	}
}

// TestBenchScheduleBalanced: over twice as many rounds as a rank count has
// contenders, each of two contenders of that rank count runs before the
// other as often as after it; with two contenders, in every two rounds.
func TestBenchScheduleBalanced(t *testing.T) {
	for _, c := range []struct {
		modes  string
		peers  []string
		rounds int
	}{{"lmdb,default", nil, 2}, {"lmdb,default", nil, 20}, {"lmdb,default", []string{"caffe"}, 6}, {"lmdb,lmm,lmm+dio,default", nil, 8},
		{"default", []string{"torch-lmdbio", "torch-readahead"}, 4}} {
		modes, err := parseBenchModes(c.modes)
		if err != nil {
			t.Fatal(err)
		}
		cfg := benchConfig{modes: modes, caches: []string{"cold"}, rounds: c.rounds, peers: c.peers,
			consumers: []bench.ConsumerKind{bench.TouchPages}}
		before := map[[2]string]int{} // how often a ran before b at one rank count
		for round := 1; round <= c.rounds; round++ {
			var seen []benchStep
			for _, s := range benchSchedule(cfg, []int{4, 8}, 8) {
				if s.round != round || s.kind == stepLimit {
					continue
				}
				for _, e := range seen {
					if e.ranks == s.ranks {
						before[[2]string{stepName(e), stepName(s)}]++
					}
				}
				seen = append(seen, s)
			}
		}
		for pair, n := range before {
			if back := before[[2]string{pair[1], pair[0]}]; back != n {
				t.Errorf("%s, %d rounds: %s ran before %s in %d rounds, after it in %d", c.modes, c.rounds, pair[0], pair[1], n, back)
			}
		}
	}
}

// TestBenchScheduleBinding: torch-lmdbio runs with the modes at the job's
// size, whose default mode it is compared with, in balanced order; where
// that count is not measured, with the other single-process peers.
func TestBenchScheduleBinding(t *testing.T) {
	modes, err := parseBenchModes("default")
	if err != nil {
		t.Fatal(err)
	}
	cfg := benchConfig{modes: modes, caches: []string{"cold"}, rounds: 2, peers: []string{"torch-lmdbio", "torch-readahead"},
		consumers: []bench.ConsumerKind{bench.TouchPages}}
	for _, c := range []struct {
		ranks []int
		want  string
	}{
		{[]int{4, 8}, "limit default@4/touch default@8/touch torch-lmdbio@8/touch torch-readahead@1/touch " +
			"limit default@4/touch torch-lmdbio@8/touch default@8/touch torch-readahead@1/touch"},
		{[]int{4}, "limit default@4/touch torch-lmdbio@1/touch torch-readahead@1/touch " +
			"limit default@4/touch torch-readahead@1/touch torch-lmdbio@1/touch"},
	} {
		var got []string
		for _, s := range benchSchedule(cfg, c.ranks, 8) {
			got = append(got, stepName(s))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("ranks %v of 8:\n got %s\nwant %s", c.ranks, g, c.want)
		}
	}
}

// stepName names a contender step, such as default@8/touch.
func stepName(s benchStep) string {
	switch s.kind {
	case stepLimit:
		return "limit"
	case stepPeer:
		return fmt.Sprintf("%s@%d/%s", s.peer, s.ranks, s.consumer)
	}
	return fmt.Sprintf("%s@%d/%s", s.mode.name, s.ranks, s.consumer)
}

func TestParseConsumersAndProbes(t *testing.T) {
	got, err := parseConsumers("sha256, touch,sha256")
	if err != nil || !reflect.DeepEqual(got, []bench.ConsumerKind{bench.SHA256, bench.TouchPages}) {
		t.Errorf("parseConsumers = %v, %v", got, err)
	}
	for _, bad := range []string{"", "md5", "touch,md5"} {
		if _, err := parseConsumers(bad); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("parseConsumers(%q): %v, want a usage error", bad, err)
		}
	}
	probes, err := parseProbes(benchProbesDefault())
	if err != nil || !reflect.DeepEqual(probes, bench.LimitProbes) {
		t.Errorf("parseProbes(default) = %v, %v", probes, err)
	}
	if probes, err := parseProbes("none"); err != nil || probes != nil {
		t.Errorf("parseProbes(none) = %v, %v", probes, err)
	}
	for _, bad := range []string{"", "direct:1x1", "direct:1x1:1MiB,fast"} {
		if _, err := parseProbes(bad); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("parseProbes(%q): %v, want a usage error", bad, err)
		}
	}
}

// TestBenchRatiosPaired: a ratio line carries, beside the ratio of medians,
// the per-round ratios' geometric mean and interval, paired by round: the
// storage swings twofold between rounds and the default mode reads 0.9 of
// lmdb's rate in each, which only the paired figure shows; a peer missing
// from a round pairs over the others.
func TestBenchRatiosPaired(t *testing.T) {
	modes, err := parseBenchModes("lmdb,default")
	if err != nil {
		t.Fatal(err)
	}
	for i := range modes {
		modes[i].label = modes[i].name
	}
	var out strings.Builder
	o := newBenchOutput(&out, benchConfig{modes: modes, json: true})
	rate := []float64{1000, 2000, 1300}
	for round, r := range rate {
		for _, c := range []struct {
			name string
			mbps float64
		}{{"lmdb", r}, {"default", 0.9 * r}} {
			o.results = append(o.results, bench.Result{Round: round + 1, Contender: c.name, Ranks: 4, Cache: "cold", Consumer: "touch", MBPerS: c.mbps})
		}
		if round != 1 {
			o.peers = append(o.peers, bench.Peer{Round: round + 1, Peer: "caffe", Ranks: 4, Cache: "cold", Consumer: "touch", MBPerS: r / 2})
		}
	}
	o.ratios(o.series())
	got := map[string]bench.Ratio{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r bench.Ratio
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[r.Name] = r
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if r := got["default/lmdb"]; r.Pairs != 3 || !near(r.Paired, 0.9) || !near(r.PairedLow, 0.9) || !near(r.PairedHigh, 0.9) || !near(r.Ratio, 1170.0/1300) {
		t.Errorf("default/lmdb: %+v", r)
	}
	if r := got["default/caffe"]; r.Pairs != 2 || !near(r.Paired, 1.8) || !near(r.Ratio, 1170.0/575) {
		t.Errorf("default/caffe: %+v", r)
	}
}
