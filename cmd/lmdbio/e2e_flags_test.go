package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// TestLoaderFlagDefaults: the command line's defaults are the Go API's.
func TestLoaderFlagDefaults(t *testing.T) {
	var f loaderFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.register(fs, assign.Keep.String())
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.options(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := loader.Options{Mode: loader.DefaultMode, Batch: loader.DefaultBatch, Epochs: loader.DefaultEpochs, Remainder: assign.Keep,
		Stagger: loader.DefaultStagger, Window: loader.DefaultWindow, Prefetch: loader.DefaultPrefetch,
		MaxSpan: loader.DefaultMaxSpan, MaxGap: loader.DefaultMaxGap, IODepth: loader.DefaultIODepth,
		ChunkBytes: loader.DefaultChunkBytes, ChunkWindow: loader.DefaultChunkWindow}
	if got != want {
		t.Errorf("flag defaults %+v\nGo API        %+v", got, want)
	}
	if loader.DefaultStagger != 4 {
		t.Errorf("default stagger %d, want 4 (readers on storage at once)", loader.DefaultStagger)
	}
}

// TestE2EBenchRemainder: --remainder decides what bench's learners get of
// records that do not fill a round; the peers read every record, so they
// go only with keep.
func TestE2EBenchRemainder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	if r := lmdbio(t, nil, "gen", "--records", "200", "--size", "2KiB,512", "--out", dir); r.code != 0 {
		t.Fatalf("gen:\n%s", r)
	}
	for remainder, samples := range map[string]float64{"": 200, "keep": 200, "drop-last": 192, "pad": 256} {
		args := []string{"bench", "--rounds", "1", "--page-cache", "warm", "--modes", "default", "--consumer", "none", "--batch", "64", "--json"}
		if remainder != "" {
			args = append(args, "--remainder", remainder)
		}
		r := lmdbio(t, nil, append(args, dir)...)
		if r.code != 0 {
			t.Fatalf("bench --remainder %q:\n%s", remainder, r)
		}
		results := 0
		for _, l := range lines(r.stdout) {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) != nil || m["type"] != "result" {
				continue
			}
			results++
			if m["samples"] != samples {
				t.Errorf("--remainder %q: %v samples, want %v: %s", remainder, m["samples"], samples, l)
			}
		}
		if results != 1 {
			t.Errorf("--remainder %q: %d result lines, want 1:\n%s", remainder, results, r)
		}
	}
	r := lmdbio(t, nil, "bench", "--remainder", "pad", "--peers", "caffe", dir)
	checkOneLineError(t, r, 2, "lmdbio bench: --remainder pad: ")
	r = lmdbio(t, nil, "bench", "--remainder", "sideways", dir)
	checkOneLineError(t, r, 2, "lmdbio bench: ")
}
