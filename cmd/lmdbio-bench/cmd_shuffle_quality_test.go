package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
)

func TestShuffleQualityCommand(t *testing.T) {
	opt := shuffleQualityOptions{records: 3000, recordBytes: 100 << 10, nodes: 2, ranksPerNode: 2, batch: 16,
		chunk: 8 << 20, chunkWindow: 2, epochs: 2, shuffles: "none,global,chunk", localities: "on,off", json: true}
	var out strings.Builder
	if err := runShuffleQuality(&out, opt); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var q bench.Quality
		if err := json.Unmarshal([]byte(line), &q); err != nil || q.Type != bench.TypeShuffleQuality {
			t.Fatalf("line %q: %v", line, err)
		}
		if q.Records != 3000 || q.GlobalBatch != 64 || q.Epochs != 2 || q.Nodes != 2 {
			t.Errorf("line does not say what was measured: %s", line)
		}
		got = append(got, q.Shuffle+"/"+q.Locality)
	}
	if want := "none/on global/on global/off chunk/on chunk/off"; strings.Join(got, " ") != want {
		t.Errorf("lines for %v, want %s", got, want)
	}

	opt.json = false
	out.Reset()
	if err := runShuffleQuality(&out, opt); err != nil || !strings.Contains(out.String(), "ideal (a uniform permutation)") {
		t.Errorf("table: %v\n%s", err, out.String())
	}
	for _, bad := range []shuffleQualityOptions{
		{records: 1, recordBytes: 1, nodes: 1, ranksPerNode: 1, batch: 1, chunk: 1, chunkWindow: 1, epochs: 1, shuffles: "global", localities: "on"},
		{records: 100, recordBytes: 1, nodes: 0, ranksPerNode: 1, batch: 1, chunk: 1, chunkWindow: 1, epochs: 1, shuffles: "global", localities: "on"},
		{records: 100, recordBytes: 1, nodes: 1, ranksPerNode: 1, batch: 1, chunk: 1, chunkWindow: 1, epochs: 1, shuffles: "random", localities: "on"},
	} {
		if err := runShuffleQuality(&out, bad); cli.ExitCode(err) != cli.ExitUsage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}
