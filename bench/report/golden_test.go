package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// syntheticInputs are the hand-written runs of testdata: one on local disk
// labelled from the command line, one on the emulated PFS that names its
// storage itself, and multi-epoch, HDF5, shuffle-quality and model lines.
var syntheticInputs = inputs{
	{path: filepath.Join("testdata", "small.jsonl"), label: "local"},
	{path: filepath.Join("testdata", "pfsemu.jsonl")},
	{path: filepath.Join("testdata", "epochs.jsonl"), label: "shuffle"},
}

func TestGoldenMarkdown(t *testing.T) {
	ds, err := readInputs(syntheticInputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := append(Markdown(Build(ds, Options{})), '\n')
	golden := filepath.Join("testdata", "results.golden.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Markdown differs from %s (run go test -update and review the diff):\n%s", golden, got)
	}
}
