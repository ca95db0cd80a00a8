package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/model"
)

func TestParseCounts(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		{"1..256", []int{1, 2, 4, 8, 16, 32, 64, 128, 256}},
		{"1,2,4", []int{1, 2, 4}},
		{"3..20", []int{3, 6, 12}},
		{"5", []int{5}},
	}
	for _, c := range cases {
		got, err := parseCounts("nodes", c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseCounts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "4..2", "a..b", "1..x", "-1"} {
		if _, err := parseCounts("nodes", bad); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("parseCounts(%q): %v, want a usage error", bad, err)
		}
	}
}

func TestParamsFlags(t *testing.T) {
	f := paramsFlags{set: []string{"servers=4", "readahead=128KiB"}}
	pf, err := f.load()
	if err != nil {
		t.Fatal(err)
	}
	if pf.Servers != 4 || pf.Readahead != 128<<10 || len(pf.Assumptions) < 2 {
		t.Errorf("set: %+v", pf.Params)
	}
	for _, bad := range []paramsFlags{
		{set: []string{"servers"}},
		{set: []string{"warp=1"}},
		{set: []string{"servers=fast"}},
		{set: []string{"servers=-1"}},
		{file: filepath.Join(t.TempDir(), "none.json")},
	} {
		if _, err := bad.load(); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}

// modelRun runs the lmdbio binary and returns its standard output, failing
// the test on a non-zero exit.
func modelRun(t *testing.T, bin string, stdin string, args ...string) string {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("lmdbio-bench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// jsonLines decodes every line of out, by type.
func jsonLines(t *testing.T, out string) map[string][]map[string]any {
	t.Helper()
	by := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		typ, _ := m["type"].(string)
		by[typ] = append(by[typ], m)
	}
	return by
}

// TestE2EModel: the parameter set reads back, predict shows the baseline
// falling and lmdbio rising with scale, synth | fit recovers what synth
// was given and predicts held-out hosts, and bad input exits 2.
func TestE2EModel(t *testing.T) {
	bin := kitBin
	dir := t.TempDir()
	params := filepath.Join(dir, "lustre.json")
	if err := os.WriteFile(params, []byte(modelRun(t, bin, "", "model", "params", "--json")), 0o644); err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(dir, "plots")
	pred := jsonLines(t, modelRun(t, bin, "", "model", "predict", "--params", params, "--nodes", "1..256",
		"--ranks-per-node", "36", "--contenders", "caffe,default", "--out", plots, "--json"))
	if len(pred["params"]) != 1 || len(pred["assumption"]) == 0 || len(pred["prediction"]) != 18 {
		t.Fatalf("predict lines: %d params, %d assumptions, %d predictions", len(pred["params"]), len(pred["assumption"]), len(pred["prediction"]))
	}
	mbps := map[string][]float64{}
	for _, p := range pred["prediction"] {
		mbps[p["contender"].(string)] = append(mbps[p["contender"].(string)], p["mb_per_s"].(float64))
	}
	caffe, def := mbps["caffe"], mbps["default"]
	if caffe[8] >= caffe[4] || def[8] < def[4] || def[8] < 10*caffe[8] {
		t.Errorf("at 16 and 256 nodes: caffe %v → %v MB/s, default %v → %v MB/s", caffe[4], caffe[8], def[4], def[8])
	}
	for _, name := range []string{"model_mb_per_s.svg", "model_mb_per_s.png", "model_seconds.svg"} {
		if _, err := os.Stat(filepath.Join(plots, name)); err != nil {
			t.Error(err)
		}
	}
	two := jsonLines(t, modelRun(t, bin, "", "model", "predict", "--nodes", "1,2", "--ranks-per-node", "4,36",
		"--contenders", "default", "--out", plots, "--json"))
	if len(two["prediction"]) != 4 || two["prediction"][3]["ranks_per_node"].(float64) != 36 {
		t.Errorf("two learner counts: %v", two["prediction"])
	}
	if _, err := os.Stat(filepath.Join(plots, "model_seconds_rpn4.svg")); err != nil {
		t.Error(err)
	}

	emu := `{"servers":8,"server_bandwidth":1e9,"server_overhead_s":0.0002,"contention":0.1,"latency_s":0.0005,` +
		`"readahead":131072,"max_request":1048576,"in_flight":2,"node_read":2e9,"cores":4,"shared_cores":8,"mem_copy":2e9,` +
		`"cursor_step_s":2e-6,"touch_rate":3e9,"sha256_rate":4e8,"startup_s":0.2,"process_cpu_s":0.03,"net_bandwidth":1e9,"net_latency_s":5e-5,"locality":0}`
	emuFile := filepath.Join(dir, "emu.json")
	if err := os.WriteFile(emuFile, []byte(emu), 0o644); err != nil {
		t.Fatal(err)
	}
	synth := modelRun(t, bin, "", "model", "synth", "--params", emuFile, "--nodes", "1,2,4,8", "--ranks-per-node", "1,2,4,8",
		"--records", "20000", "--record-size", "110000", "--walk-fraction", "0.05", "--compute", "0", "--stagger", "2", "--noise", "0.01")
	fit := jsonLines(t, modelRun(t, bin, synth, "model", "fit", "--params", emuFile, "--set", "latency_s=0.002",
		"--set", "sha256_rate=1e9", "--set", "process_cpu_s=0.06", "--free", "latency_s,sha256_rate,startup_s,process_cpu_s,node_read",
		"--walk-fraction", "0.05", "--hold-out", "nodes>=8", "--json", "-"))
	if len(fit["fit"]) != 1 || len(fit["params"]) != 1 {
		t.Fatalf("fit lines %v", fit)
	}
	sum := fit["fit"][0]
	if sum["held_out"].(float64) != 48 || sum["held_out_within_15_percent"].(float64) != 48 || sum["synthetic"] != true ||
		sum["held_out_configurations"].(float64) != 48 || sum["held_out_configurations_within_15_percent"].(float64) != 48 {
		t.Errorf("fit summary %v", sum)
	}
	got := fit["params"][0]
	for name, want := range map[string]float64{"latency_s": 0.0005, "sha256_rate": 4e8, "startup_s": 0.2, "process_cpu_s": 0.03, "node_read": 2e9} {
		if v := got[name].(float64); math.Abs(v/want-1) > 0.05 {
			t.Errorf("fitted %s = %v, want %v within 5%%", name, v, want)
		}
	}

	// Fixed parameters in the wrong units (node_read in MB/s) cannot fit:
	// the fit is written out, and the command says so and fails.
	misfit := exec.Command(bin, "model", "fit", "--params", emuFile, "--set", "node_read=2000",
		"--free", "latency_s", "--walk-fraction", "0.05", "-")
	misfit.Stdin = strings.NewReader(synth)
	var misfitErr strings.Builder
	misfit.Stderr = &misfitErr
	if out, _ := misfit.Output(); misfit.ProcessState.ExitCode() != cli.ExitUsage || len(out) == 0 ||
		!strings.Contains(misfitErr.String(), "units") || strings.Count(strings.TrimSpace(misfitErr.String()), "\n") > 0 {
		t.Errorf("fit with node_read in MB/s: exit %d, stderr %q; want the fit printed, one line on units, exit 2",
			misfit.ProcessState.ExitCode(), misfitErr.String())
	}

	for _, args := range [][]string{
		{"model", "predict", "--nodes", "0"},
		{"model", "predict", "--contenders", "fast"},
		{"model", "predict", "--ranks-per-node", "0"},
		{"model", "predict", "--set", "servers=0"},
		{"model", "fit", filepath.Join(dir, "none.jsonl")},
		{"model", "fit", params}, // no result lines
		{"model", "fit", "--hold-out", "colour=red", params},
		{"model", "synth", "--noise", "2"},
		{"model", "bogus"},
	} {
		c := exec.Command(bin, args...)
		out, err := c.CombinedOutput()
		if code := c.ProcessState.ExitCode(); code != cli.ExitUsage || strings.Count(strings.TrimSpace(string(out)), "\n") > 0 {
			t.Errorf("lmdbio-bench %s: exit %d (%v), output %q; want one line and exit 2", strings.Join(args, " "), code, err, out)
		}
	}
}

// TestConfigsWithin: held-out runs group by configuration, and a
// configuration counts as predicted when its median run is.
func TestConfigsWithin(t *testing.T) {
	a := model.Config{Contender: "default", Nodes: 8, RanksPerNode: 4}
	b, c := a, a
	b.Stagger = 2
	c.Contender = "caffe"
	var rs []model.Residual
	for _, x := range []struct {
		cfg model.Config
		err float64
	}{{a, 0.10}, {a, 0.30}, {a, -0.05}, {b, 0.20}, {b, 0.12}, {c, 0.14}, {c, 0.18}} {
		rs = append(rs, model.Residual{Observation: model.Observation{Config: x.cfg}, Error: x.err})
	}
	if n, within := configsWithin(rs); n != 3 || within != 1 {
		t.Errorf("configsWithin: %d configurations, %d within; want 3, 1 (medians 0.10, 0.16, 0.16)", n, within)
	}
}
