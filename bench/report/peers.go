package main

import (
	"sort"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// PeerTable puts the peers measured on one storage with one consumer beside
// lmdbio's default mode with the same consumer, at the same rank count and
// cache state: the same work over the same window, so their ratio is fair.
// A consumer lmdbio did not run gets no ratio, never another consumer's.
type PeerTable struct {
	Group
	// Default is the mode name compared with: "default", or the full
	// stack when the run measured it under that name.
	Default string
	// HasDefault is false when no default-mode result has this consumer.
	HasDefault bool
	Rows       []PeerRow
}

// PeerRow is one peer at one rank count and cache state.
type PeerRow struct {
	Cache          string
	Peer           string
	Ranks          int
	PeerMB         Summary
	Default        Summary
	PeerStartup    float64 // medians over rounds, seconds from the start of the window
	DefaultStartup float64
	Ratio          float64      // default median over peer median; 0 if unknown
	RatioPaired    stats.Paired // the same, paired by round
	PeerAbove      bool         // above the storage's limit by more than the noise band
	DefaultAbove   bool
}

func buildPeers(ps []Peer, byGroup map[Group][]Result, lim []LimitRow) []PeerTable {
	keys := distinct(ps, func(p Peer) Group { return Group{Storage: p.Storage, Consumer: p.Consumer} })
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Storage != keys[j].Storage {
			return keys[i].Storage < keys[j].Storage
		}
		return keys[i].Consumer < keys[j].Consumer
	})
	var out []PeerTable
	for _, g := range keys {
		grp := byGroup[g]
		t := PeerTable{Group: g, Default: defaultModeOf(grp)}
		def := filter(grp, func(r Result) bool { return r.Mode == t.Default })
		t.HasDefault = len(def) > 0
		in := filter(ps, func(p Peer) bool { return p.Storage == g.Storage && p.Consumer == g.Consumer })
		type key struct {
			cache, peer string
			ranks       int
		}
		cells := distinct(in, func(p Peer) key { return key{p.Cache, p.Peer, p.Ranks} })
		sort.Slice(cells, func(i, j int) bool {
			a, b := cells[i], cells[j]
			if ca, cb := rankOf(cacheOrder, a.cache), rankOf(cacheOrder, b.cache); ca != cb || a.cache != b.cache {
				return ca < cb || ca == cb && a.cache < b.cache
			}
			if a.peer != b.peer {
				return a.peer < b.peer
			}
			return a.ranks < b.ranks
		})
		for _, k := range cells {
			mine := filter(in, func(p Peer) bool { return p.Cache == k.cache && p.Peer == k.peer && p.Ranks == k.ranks })
			theirs := filter(def, func(r Result) bool { return r.Cache == k.cache && r.Ranks == k.ranks })
			l := limitFor(lim, g.Storage, k.cache, nodesAt(theirs, k.ranks))
			row := PeerRow{
				Cache: k.cache, Peer: k.peer, Ranks: k.ranks,
				PeerMB:         medianOf(mine, func(p Peer) float64 { return p.MBPerS }),
				Default:        medianOf(theirs, func(r Result) float64 { return r.MBPerS }),
				PeerStartup:    medianOf(mine, func(p Peer) float64 { return p.StartupMax }).Median,
				DefaultStartup: medianOf(theirs, func(r Result) float64 { return r.StartupS }).Median,
			}
			row.Ratio = ratio(row.Default.Median, row.PeerMB.Median)
			row.RatioPaired = stats.PairedByKey(byRound(theirs), byRound(mine))
			row.PeerAbove, row.DefaultAbove = aboveLimit(row.PeerMB, l), aboveLimit(row.Default, l)
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}
