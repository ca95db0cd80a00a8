package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestRankBinaryDeps: bin/lmdbio, which every rank and agent runs, links
// nothing of the benchmark kit: not its plots (gonum/plot's init parses a
// dozen fonts in every process), not the FUSE file system of its storage
// emulator, not the model or the bench packages. They belong to
// lmdbio-bench.
func TestRankBinaryDeps(t *testing.T) {
	out, err := exec.Command(goTool(), "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/lmdbio/lmdbio/pkg/loader") {
		t.Fatalf("go list -deps gave %d packages, without the loader: %q", len(deps), deps)
	}
	for _, p := range deps {
		for _, banned := range []string{"gonum.org/v1/plot", "github.com/hanwen/go-fuse", "github.com/lmdbio/lmdbio/internal/kit/",
			"github.com/lmdbio/lmdbio/bench/"} {
			if p == strings.TrimSuffix(banned, "/") || strings.HasPrefix(p, strings.TrimSuffix(banned, "/")+"/") {
				t.Errorf("bin/lmdbio links %s (from %s): it belongs to lmdbio-bench", p, banned)
			}
		}
	}
}
