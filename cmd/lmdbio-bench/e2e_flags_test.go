package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EBenchRemainder: --remainder decides what bench's learners get of
// records that do not fill a round; the peers read every record, so they
// go only with keep.
func TestE2EBenchRemainder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	if r := runBin(t, productBin, "gen", "--records", "200", "--size", "2KiB,512", "--out", dir); r.code != 0 {
		t.Fatalf("gen:\n%s", r)
	}
	for remainder, samples := range map[string]float64{"": 200, "keep": 200, "drop-last": 192, "pad": 256} {
		args := []string{"bench", "--rounds", "1", "--page-cache", "warm", "--modes", "default", "--consumer", "none", "--batch", "64", "--json"}
		if remainder != "" {
			args = append(args, "--remainder", remainder)
		}
		r := kit(t, append(args, dir)...)
		if r.code != 0 {
			t.Fatalf("bench --remainder %q:\n%s", remainder, r)
		}
		results := 0
		for _, l := range strings.Split(r.stdout, "\n") {
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
	checkRefused(t, kit(t, "bench", "--remainder", "pad", "--peers", "caffe", dir), "lmdbio-bench bench: --remainder pad: ")
	checkRefused(t, kit(t, "bench", "--remainder", "sideways", dir), "lmdbio-bench bench: ")
}
