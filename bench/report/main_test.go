package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInputFlag(t *testing.T) {
	tests := []struct {
		arg         string
		path, label string
	}{
		{"results.jsonl", "results.jsonl", ""},
		{"local.jsonl:local", "local.jsonl", "local"},
		{"runs/pfs.jsonl:pfsemu", "runs/pfs.jsonl", "pfsemu"},
		{"odd:dir/x.jsonl", "odd:dir/x.jsonl", ""}, // what follows ':' is not a label
		{"-:local", "-", "local"},
	}
	for _, tc := range tests {
		var in inputs
		if err := in.Set(tc.arg); err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if in[0].path != tc.path || in[0].label != tc.label {
			t.Errorf("%s: got %+v, want %s, %s", tc.arg, in[0], tc.path, tc.label)
		}
	}
	var in inputs
	if err := in.Set(""); err == nil {
		t.Error("empty -in accepted")
	}
}

func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"limit","cache":"cold","mb_per_s":1}`+"\n\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join("testdata", "small.jsonl")
	out := filepath.Join(dir, "out")
	tests := []struct {
		name   string
		args   []string
		stdin  string
		status int
		stderr string
	}{
		{"ok", []string{"-in", small + ":local", "-out", out}, "", exitOK, ""},
		{"stdin", []string{"-in", "-", "-out", out, "-no-plots"}, `{"type":"limit","cache":"cold","mb_per_s":1}`, exitOK, ""},
		{"bad line names file and line", []string{"-in", bad, "-out", out}, "", exitUsage, "bad.jsonl:3: bad JSON"},
		{"missing file", []string{"-in", filepath.Join(dir, "none.jsonl"), "-out", out}, "", exitUsage, "none.jsonl"},
		{"no input", []string{"-out", out}, "", exitUsage, "usage:"},
		{"no output", []string{"-in", small}, "", exitUsage, "usage:"},
		{"stray argument", []string{"-in", small, "-out", out, "extra"}, "", exitUsage, "usage:"},
		{"unknown flag", []string{"-bogus"}, "", exitUsage, "bogus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if got != tc.status {
				t.Errorf("status %d, want %d; stderr %q", got, tc.status, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.stderr)
			}
		})
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(md, []byte("# lmdbio benchmark results")) {
		t.Errorf("results.md starts %q", md[:min(len(md), 40)])
	}
}

func TestRunMachineOverride(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-in", filepath.Join("testdata", "small.jsonl"), "-out", out, "-no-plots", "-machine", "2 cores, 8 GiB, Debian 12"}
	if got := run(args, nil, &stdout, &stderr); got != exitOK {
		t.Fatalf("status %d: %s", got, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("Machine: 2 cores, 8 GiB, Debian 12")) || bytes.Contains(md, []byte("kernel")) {
		t.Errorf("machine override not used:\n%s", md[:300])
	}
}

// TestRunPaired: -paired pairs two inputs' results by round number, per
// consumer, and prints one table; it wants two inputs with distinct labels
// and no -out.
func TestRunPaired(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mbps map[int]float64) string {
		var b strings.Builder
		for round := 1; round <= len(mbps); round++ {
			fmt.Fprintf(&b, `{"type":"result","round":%d,"mode":"default","ranks":8,"nodes":1,"cache":"cold","consumer":"touch",`+
				`"workload":"none","batch":64,"samples":100,"bytes":1000000,"seconds":1,"mb_per_s":%g}`+"\n", round, mbps[round])
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A is twice B in every round while both drift: paired exactly 2×.
	a := write("a.jsonl", map[int]float64{1: 200, 2: 400, 3: 300})
	b := write("b.jsonl", map[int]float64{1: 100, 2: 200, 3: 150})
	var stdout, stderr bytes.Buffer
	if got := run([]string{"-paired", "-in", a + ":A", "-in", b + ":B"}, nil, &stdout, &stderr); got != exitOK {
		t.Fatalf("status %d: %s", got, stderr.String())
	}
	want := "| touch    |     3 |    300 |    150 | 2.00× [2.00, 2.00] |"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("table:\n%s\nwant a row %q", stdout.String(), want)
	}
	for _, args := range [][]string{
		{"-paired", "-in", a + ":A"},
		{"-paired", "-in", a, "-in", b + ":B"},
		{"-paired", "-in", a + ":A", "-in", b + ":A"},
		{"-paired", "-in", a + ":A", "-in", b + ":B", "-out", dir},
	} {
		if got := run(args, nil, &stdout, &stderr); got != exitUsage {
			t.Errorf("%v: status %d, want %d", args, got, exitUsage)
		}
	}
}
