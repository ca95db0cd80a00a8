package main

import (
	"slices"
	"sort"
	"strings"
)

// ModeOrder is the stacking order of LMDBIO's optimisations: each mode adds
// one to the one before, so the study's rows read as a story.
var ModeOrder = []string{"lmdb", "lmm", "lmm+dio", "lmm+dio+prov", "lmm+dio+prov+coal", "lmm+dio+prov+coal+stag", "default"}

// DefaultMode is the mode peers are compared with.
const DefaultMode = "default"

// FullStackMode is every optimisation on, which is what the default mode
// is; a run that measured it under this name instead is compared with peers
// under it.
const FullStackMode = "lmm+dio+prov+coal+stag"

// defaultModeOf returns the name under which rs measured the default mode:
// "default" if present, else the full stack; "default" if neither.
func defaultModeOf(rs []Result) string {
	full := false
	for _, r := range rs {
		if r.Mode == DefaultMode {
			return DefaultMode
		}
		full = full || r.Mode == FullStackMode
	}
	if full {
		return FullStackMode
	}
	return DefaultMode
}

// BaselineMode is what every mode's speed-up is measured against.
const BaselineMode = "lmdb"

// cacheOrder puts cold before warm: cold is what training's first epoch sees.
var cacheOrder = []string{"cold", "warm"}

// rankOf orders names by a known list first, then alphabetically.
func rankOf(known []string, name string) int {
	if i := slices.Index(known, name); i >= 0 {
		return i
	}
	return len(known)
}

// sortKnown sorts names by their place in known, unknown names last in
// alphabetical order, and removes duplicates.
func sortKnown(known, names []string) []string {
	out := slices.Clone(names)
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rankOf(known, out[i]), rankOf(known, out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return slices.Compact(out)
}

// Group is one line of measurement: a storage and the consumer work done on
// every sample. Results of different groups are never pooled or compared:
// only contenders that did the same work stand in one table.
type Group struct {
	Storage  string
	Consumer string
}

// StorageName is how a storage label reads in headings.
func StorageName(s string) string {
	switch s {
	case "":
		return ""
	case "local":
		return "local disk"
	case "local-pairs":
		return "local disk, paired rounds"
	case "pfsemu":
		return "emulated PFS"
	}
	return s
}

// Title is the group's heading text, empty parts left out.
func (g Group) Title() string {
	var parts []string
	if s := StorageName(g.Storage); s != "" {
		parts = append(parts, s)
	}
	parts = append(parts, "consumer "+orUnknown(g.Consumer))
	return strings.Join(parts, " · ")
}

// orUnknown names a consumer a line did not state.
func orUnknown(consumer string) string {
	if consumer == "" {
		return "not stated"
	}
	return consumer
}

// loaderResults returns the results that measure loading, not a workload,
// over one epoch.
func loaderResults(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.IsWorkload() && r.Epochs <= 1 {
			out = append(out, r)
		}
	}
	return out
}

// groups splits rs into groups, sorted by storage then consumer. A group
// measured only by peers is listed too, with no results.
func groups(rs []Result, ps []Peer) ([]Group, map[Group][]Result) {
	m := map[Group][]Result{}
	var keys []Group
	for _, r := range rs {
		g := Group{Storage: r.Storage, Consumer: r.Consumer}
		if _, ok := m[g]; !ok {
			keys = append(keys, g)
		}
		m[g] = append(m[g], r)
	}
	for _, p := range ps {
		g := Group{Storage: p.Storage, Consumer: p.Consumer}
		if _, ok := m[g]; !ok {
			keys = append(keys, g)
			m[g] = nil
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Storage != keys[j].Storage {
			return keys[i].Storage < keys[j].Storage
		}
		return keys[i].Consumer < keys[j].Consumer
	})
	return keys, m
}

// distinct returns the distinct values of f over xs, in first-seen order.
func distinct[T any, K comparable](xs []T, f func(T) K) []K {
	seen := map[K]bool{}
	var out []K
	for _, x := range xs {
		k := f(x)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// filter returns the elements of xs for which keep is true.
func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// sortedInts returns the distinct values of f over xs, ascending.
func sortedInts[T any](xs []T, f func(T) int) []int {
	out := distinct(xs, f)
	slices.Sort(out)
	return out
}
