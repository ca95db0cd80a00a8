package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestE2EJSONFields: the JSON lines of every command that reports carry a
// type, and a name means one thing everywhere: "bytes" is the sum of the
// value lengths of the records a line is about, in gen, info, index and
// digest alike.
func TestE2EJSONFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	runs := [][]string{
		{"gen", "--records", "150", "--size", "3KiB,1KiB", "--json", "--out", dir},
		{"info", "--json", dir},
		{"index", "--json", dir},
		{"digest", "--json", dir},
		{"topology", "--json"},
		{"version", "--json"},
		{"doctor", "--json"},
	}
	bytes := map[string]float64{}
	for _, args := range runs {
		r := lmdbio(t, nil, args...)
		if r.code != 0 && args[0] != "doctor" {
			t.Fatalf("exit %d:\n%s", r.code, r)
		}
		for _, l := range lines(r.stdout) {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: not a JSON object: %q", args[0], l)
			}
			if typ, _ := m["type"].(string); typ == "" {
				t.Errorf("%s: a line without its type: %s", args[0], l)
			}
			for name := range m {
				if name == "value_bytes" || name == "advice" || name == "from" {
					t.Errorf("%s: field %q (want bytes, or data without prose): %s", args[0], name, l)
				}
			}
			if b, ok := m["bytes"].(float64); ok {
				bytes[args[0]] = b
			}
		}
	}
	for _, cmd := range []string{"info", "index", "digest"} {
		if bytes[cmd] != bytes["gen"] || bytes[cmd] == 0 {
			t.Errorf("bytes disagree between commands: %v", bytes)
			break
		}
	}
}
