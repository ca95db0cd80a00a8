package main

// Bad input to the kit's commands: refused in one line with status 2,
// before anything is measured or written.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadUsage: a mistake on the command line is one line naming the
// command, with status 2 and no usage dump.
func TestBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"mpibench", "--bogus"},
		{"mpibench", "--iters", "0"},
		{"no-such-command"},
	} {
		r := kit(t, args...)
		prefix := "lmdbio-bench " + args[0] + ": "
		if args[0] == "no-such-command" {
			prefix = "lmdbio-bench: "
		}
		checkRefused(t, r, prefix)
		if strings.Contains(r.stdout+r.stderr, "Usage:") {
			t.Errorf("usage dumped:\n%s", r)
		}
	}
}

// TestBadInputToolsModel: model refuses a directory as runs, an --out it
// cannot write to and NaN in a float flag, before printing anything.
func TestBadInputToolsModel(t *testing.T) {
	dir := t.TempDir()
	r := kit(t, "model", "synth", "--nodes", "1,2", "--ranks-per-node", "1,2", "--contenders", "default,caffe")
	if r.code != 0 {
		t.Fatalf("synth:\n%s", r)
	}
	runs := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(runs, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	underFile := filepath.Join(runs, "plots")

	checkRefused(t, kit(t, "model", "fit", dir), "lmdbio-bench model fit: "+dir+": is a directory")
	for _, args := range [][]string{
		{"model", "fit", "--restarts", "0", "--out", underFile, runs},
		{"model", "predict", "--nodes", "1,2", "--out", underFile},
	} {
		checkRefused(t, kit(t, args...), "lmdbio-bench "+strings.Join(args[:2], " ")+": --out "+underFile+": ")
	}
	if _, err := os.Lstat(underFile); err == nil {
		t.Errorf("%s was left behind", underFile)
	}
	for _, args := range [][]string{
		{"model", "predict", "--nodes", "1,2", "--walk-fraction", "NaN"},
		{"model", "predict", "--nodes", "1,2", "--walk-fraction", "NaN", "--json"},
		{"model", "synth", "--nodes", "1", "--walk-fraction", "nan"},
		{"model", "synth", "--nodes", "1", "--noise", "NaN"},
		{"model", "fit", "--walk-fraction", "NaN", runs},
	} {
		checkRefused(t, kit(t, args...), "lmdbio-bench "+strings.Join(args[:2], " ")+": --")
	}
}

// TestBadInputToolsStall: stall refuses NaN and a negative compute time
// before it starts the job.
func TestBadInputToolsStall(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gen")
	if r := runBin(t, productBin, "gen", "--out", db, "--records", "50", "--size", "1KiB"); r.code != 0 {
		t.Fatalf("gen failed:\n%s", r)
	}
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"--compute", "1ms", "--threshold", "NaN"}, "lmdbio-bench stall: --threshold NaN: "},
		{[]string{"--threshold", "NaN"}, "lmdbio-bench stall: --threshold NaN: "},
		{[]string{"--compute", "-1s"}, "lmdbio-bench stall: --compute -1s: "},
	} {
		r := kit(t, append(append([]string{"stall", "--limit-probes", "none"}, c.args...), db)...)
		checkRefused(t, r, c.prefix)
	}
}

// TestBadInputToolsMPIBench: a --size the ranks on a machine cannot hold
// is refused in one line, not by Go's out-of-memory trace.
func TestBadInputToolsMPIBench(t *testing.T) {
	checkRefused(t, kit(t, "mpibench", "--size", "100TiB"), "lmdbio-bench mpibench: --size ")
	if mpirunPath == "" {
		return
	}
	// Two virtual nodes on this machine share its memory.
	r := kitOnRanks(t, 2, []string{"LMDBIO_RANKS_PER_NODE=1"}, "mpibench", "--size", "100TiB")
	if r.code == 0 || r.timedOut || r.took > 10*time.Second {
		t.Errorf("exit status %d after %v, want non-zero within 10 s:\n%s", r.code, r.took, r)
	}
	ours := ourLines(r.stderr)
	if len(ours) != 1 || !strings.HasPrefix(ours[0], "lmdbio-bench mpibench: --size 100.0 TiB: at most ") {
		t.Errorf("want exactly one lmdbio-bench line on stderr, got %q:\n%s", ours, r)
	}
	if !strings.Contains(r.stderr, "with 2 rank(s)") {
		t.Errorf("the bound should count both ranks on this machine:\n%s", r)
	}
}
