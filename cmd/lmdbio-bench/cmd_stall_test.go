package main

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/spf13/pflag"
)

func TestStallSchedule(t *testing.T) {
	cfg := benchConfig{rounds: 2, modes: []benchMode{{name: "default"}}, consumers: []bench.ConsumerKind{bench.TouchPages},
		probes: bench.LimitProbes[:1]}
	var got []string
	for _, s := range stallSchedule(cfg, 4) {
		got = append(got, s.String())
	}
	want := []string{
		"round 1 cold: storage limit", "round 1 cold: default on 4 ranks (touch)", "round 1: warming the page cache",
		"round 1 warm: default on 4 ranks (touch)", "round 1: synthetic data in memory on 4 ranks",
		"round 2 cold: storage limit", "round 2 cold: default on 4 ranks (touch)", "round 2: warming the page cache",
		"round 2 warm: default on 4 ranks (touch)", "round 2: synthetic data in memory on 4 ranks",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("schedule\n got %q\nwant %q", got, want)
	}
}

func TestStallConfig(t *testing.T) {
	opt := stallOptions{workload: "resnet50", consumer: "touch", rounds: 1, probes: "none", fractions: "0,1", threshold: 0.9}
	fs := pflag.NewFlagSet("stall", pflag.ContinueOnError)
	opt.loader.Register(fs, "")
	if err := fs.Parse([]string{"--batch", "16", "--io-depth", "4"}); err != nil { // the rest at the defaults
		t.Fatal(err)
	}
	cfg, fr, err := opt.config("db")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.lopt.Batch != 64 || cfg.workload.Name != "resnet50" || !cfg.wholeJob || len(fr) != 2 || cfg.probes != nil {
		t.Errorf("config %+v, fractions %v", cfg, fr)
	}
	custom := opt
	custom.compute = 50e6
	if cfg, _, err := custom.config("db"); err != nil || cfg.workload.Batch != 16 || cfg.workload.Compute != 50e6 {
		t.Errorf("custom workload: %+v, %v", cfg.workload, err)
	}
	for _, bad := range []func(o *stallOptions){
		func(o *stallOptions) { o.workload = "none" },
		func(o *stallOptions) { o.workload = "bert" },
		func(o *stallOptions) { o.fractions = "2" },
		func(o *stallOptions) { o.rounds = 0 },
		func(o *stallOptions) { o.consumer = "md5" },
		func(o *stallOptions) { o.compute, o.threshold = 1e6, 2 },
		func(o *stallOptions) { o.compute, o.threshold = 1e6, math.NaN() },
		func(o *stallOptions) { o.compute = -1e9 },
	} {
		o := opt
		bad(&o)
		if _, _, err := o.config("db"); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

// TestE2EStall: a small stall analysis under mpirun prints the three runs,
// the analysis and the what-if lines, with stalls that add up.
func TestE2EStall(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH")
	}
	if !bench.CanDropCaches() {
		t.Skip("cannot drop the page cache here (not root)")
	}
	dir := t.TempDir()
	env := benchEnv(filepath.Join(dir, "cache"))
	db := filepath.Join(dir, "db")
	benchExec(t, env, productBin, "gen", "--records", "200", "--size", "20KiB,4KiB", "--datum", "--out", db)
	out := benchExec(t, env, mpirun, "-np", "2", "--oversubscribe", kitBin, "stall", "--compute", "5ms", "--batch", "16",
		"--limit-probes", "buffered:1x1:1MiB", "--cache-fractions", "0,0.5,1", "--json", db)
	count := map[string]int{}
	var stall bench.Stall
	runs := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		typ := m["type"].(string)
		count[typ]++
		switch typ {
		case "stall":
			if err := json.Unmarshal([]byte(line), &stall); err != nil {
				t.Fatal(err)
			}
		case "result":
			runs[m["cache"].(string)] = m["seconds"].(float64)
			if m["samples"].(float64) != 200 {
				t.Errorf("a run delivered %v records, want 200: %s", m["samples"], line)
			}
		}
	}
	if count["result"] != 3 || count["limit"] != 1 || count["stall"] != 1 || count["what-if"] != 3 {
		t.Fatalf("line counts %v", count)
	}
	if runs["memory"] != stall.Synthetic || runs["cold"] != stall.Cold || runs["warm"] != stall.Warm {
		t.Errorf("stall %+v does not use the runs %v", stall, runs)
	}
	// 7 batches of 16 records on each of 2 learners at 5 ms: T1 >= 35 ms.
	if stall.Batches != 7 || stall.Synthetic < 0.035 {
		t.Errorf("synthetic run: %d batches in %v s", stall.Batches, stall.Synthetic)
	}
	if math.Abs(stall.PrepStall-math.Max(0, stall.Warm-stall.Synthetic)) > 1e-12 ||
		math.Abs(stall.FetchStall-math.Max(0, stall.Cold-stall.Warm)) > 1e-12 {
		t.Errorf("stalls do not add up: %+v", stall)
	}
}
