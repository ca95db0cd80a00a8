package main

import (
	"fmt"
	"io"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// ownPeer is lmdbio's Python binding run as a peer: lmdbio itself, not a
// loader it replaces.
const ownPeer = "torch-lmdbio"

// SlowerRow is a comparison where lmdbio's default mode delivered less than
// a loader it replaces (the `lmdb` mode, which reads as Caffe-MPI does, or
// a peer), over the same work and window: the ratio of medians is below 1.
type SlowerRow struct {
	Group
	Cache  string
	Ranks  int
	Than   string // "`lmdb`" or the peer's name
	Ratio  float64
	Paired stats.Paired
}

// buildSlower collects the comparisons of pairs and peers that lmdbio lost.
func buildSlower(pairs []PairRow, peers []PeerTable) []SlowerRow {
	var out []SlowerRow
	for _, p := range pairs {
		if p.Ratio > 0 && p.Ratio < 1 {
			out = append(out, SlowerRow{p.Group, p.Cache, p.Ranks, "`lmdb`", p.Ratio, p.Paired})
		}
	}
	for _, t := range peers {
		for _, r := range t.Rows {
			if r.Peer != ownPeer && r.Ratio > 0 && r.Ratio < 1 {
				out = append(out, SlowerRow{t.Group, r.Cache, r.Ranks, r.Peer, r.Ratio, r.RatioPaired})
			}
		}
	}
	return out
}

// writeSlower lists them first, so that no table hides one; it says so
// when there is none among the comparisons of the report.
func writeSlower(w io.Writer, rows []SlowerRow, compared bool) {
	if !compared {
		return
	}
	section(w, "Slower than what it replaces",
		"Every comparison below in which lmdbio's default mode delivered less than the `lmdb` mode (which reads",
		"as Caffe-MPI does) or a peer: the ratio of medians below 1. lmdbio should never be slower than what it",
		"replaces; with a warm page cache the goal is 0.8× `lmdb`, where its readers use the cache in place.")
	if len(rows) == 0 {
		fmt.Fprintln(w, "None in these runs.")
		fmt.Fprintln(w)
		return
	}
	t := table{
		header: []string{"storage", "consumer", "cache", "ranks", "than", "default / it", "paired"},
		right:  []bool{false, false, false, true, false, true, true},
	}
	for _, r := range rows {
		t.rows = append(t.rows, []string{StorageName(r.Storage), orUnknown(r.Consumer), r.Cache, fmt.Sprint(r.Ranks),
			r.Than, fmtRatio(r.Ratio), fmtPaired(r.Paired)})
	}
	t.write(w)
}
