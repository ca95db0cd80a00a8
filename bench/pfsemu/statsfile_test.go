package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/bench/pfsemu/emu"
)

func TestWriteStats(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	for _, n := range []int64{1, 2} { // the second write replaces the first
		if err := writeStats(path, emu.Stats{Type: "pfsemu", Requests: n, Sizes: []emu.SizeBin{}}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var st emu.Stats
		if err := json.Unmarshal(b, &st); err != nil || st.Requests != n || !strings.HasSuffix(string(b), "}\n") {
			t.Fatalf("stats file %q: %v; want one JSON line with requests %d", b, err, n)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %d files, want only the stats file (no temporaries left)", len(ents))
	}
	if err := writeStats(filepath.Join(dir, "missing", "s.json"), emu.Stats{}); err == nil {
		t.Fatal("writeStats into a missing directory: no error")
	}
}

func TestStatsLine(t *testing.T) {
	line := statsLine(emu.Stats{Type: "pfsemu", Requests: 3, Sizes: []emu.SizeBin{{Max: 4096, Count: 3}}})
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, `{"type":"pfsemu","requests":3,`) {
		t.Fatalf("statsLine = %s", line)
	}
}
