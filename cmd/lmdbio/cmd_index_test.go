package main

import (
	"fmt"
	"testing"
)

func TestNewIndexReport(t *testing.T) {
	for from, want := range map[string]string{
		"sidecar /d/lmdbio.idx":                 "false sidecar /d/lmdbio.idx []",
		"cache /c/ab12.idx":                     "false cache /c/ab12.idx []",
		"built, saved to sidecar /d/lmdbio.idx": "true sidecar /d/lmdbio.idx []",
		"built, saved to cache /c/a b.idx":      "true cache /c/a b.idx []",
		"built, kept in memory":                 "true memory  []",
		"built, saved to cache /c/x (ignored stale sidecar, corrupt cache)": "true cache /c/x [stale-sidecar corrupt-cache]",
	} {
		r := newIndexReport(3, 30, 0.5, from)
		if got := fmt.Sprint(r.Built, " ", r.Location, " ", r.Path, " ", r.Ignored); got != want {
			t.Errorf("%q: got %q, want %q", from, got, want)
		}
	}
}
