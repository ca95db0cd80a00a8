package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// parseBenchModes reads --modes; a mode listed twice under two names (the
// full stack and "default") is measured once, under the first name.
func parseBenchModes(s string) ([]benchMode, error) {
	var out []benchMode
	for _, name := range splitList(s) {
		m, err := loader.ParseMode(name)
		if err != nil {
			return nil, cli.UsageError(err)
		}
		dup := false
		for _, have := range out {
			dup = dup || have.mode == m
		}
		if !dup {
			out = append(out, benchMode{name: name, mode: m})
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--modes: name at least one mode")
	}
	return out, nil
}

// parseConsumers reads --consumer: distinct consumer names, kept in order.
func parseConsumers(s string) ([]bench.ConsumerKind, error) {
	var out []bench.ConsumerKind
	for _, f := range splitList(s) {
		k, err := bench.ParseConsumer(f)
		if err != nil {
			return nil, cli.UsageError(err)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--consumer: name at least one of touch, sha256, none")
	}
	return out, nil
}

// parseProbes reads --limit-probes; "none" measures no limit.
func parseProbes(s string) ([]bench.Probe, error) {
	if strings.TrimSpace(s) == "none" {
		return nil, nil
	}
	var out []bench.Probe
	for _, f := range splitList(s) {
		p, err := bench.ParseProbe(f)
		if err != nil {
			return nil, cli.UsageError(err)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--limit-probes: name at least one probe, or none")
	}
	return out, nil
}

// benchProbesDefault is --limit-probes' default: bench.LimitProbes.
func benchProbesDefault() string {
	names := make([]string, len(bench.LimitProbes))
	for i, p := range bench.LimitProbes {
		names[i] = p.String()
	}
	return strings.Join(names, ",")
}

// parseRankList reads --ranks: distinct whole numbers >= 1, kept in order.
func parseRankList(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, cli.Usagef("--ranks %q: want rank counts >= 1, comma-separated", s)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--ranks: name at least one rank count")
	}
	return out, nil
}

// parseChoices reads a comma list of distinct names out of allowed.
func parseChoices(flag, s string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range splitList(s) {
		ok := false
		for _, a := range allowed {
			ok = ok || a == f
		}
		if !ok {
			return nil, cli.Usagef("--%s %q: want %s", flag, f, strings.Join(allowed, ", "))
		}
		dup := false
		for _, have := range out {
			dup = dup || have == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--%s: name at least one of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// findPeersDir picks the directory of the peer scripts and checks that the
// scripts the peers need are there.
func findPeersDir(flag string, peers []string) (string, error) {
	dir := flag
	if dir == "" {
		dir = filepath.Join("bench", "peers")
		if exe, err := os.Executable(); err == nil {
			beside := filepath.Join(filepath.Dir(exe), "..", "bench", "peers")
			if st, err := os.Stat(beside); err == nil && st.IsDir() {
				dir = beside
			}
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", cli.UsageError(err)
	}
	for _, p := range peers {
		script := filepath.Join(abs, benchPeerScript(p))
		if _, err := os.Stat(script); err != nil {
			return "", cli.Usagef("--peers %s: %s not found (set --peers-dir)", p, script)
		}
	}
	return abs, nil
}
