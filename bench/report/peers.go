package main

import (
	"slices"
	"sort"
)

// PeerTable puts the peers measured on one storage beside lmdbio's default
// mode at the same rank count and cache state.
type PeerTable struct {
	Storage string
	// Consumer is the consumer of the default-mode results compared with:
	// "sha256" when measured (the work the peers do), else the first.
	Consumer string
	// Default is the mode name compared with: "default", or the full
	// stack when the run measured it under that name.
	Default string
	Rows    []PeerRow
}

// PeerRow is one peer at one rank count and cache state.
type PeerRow struct {
	Cache   string
	Peer    string
	Ranks   int
	PeerMB  Summary
	Default Summary
	Ratio   float64 // default median over peer median; 0 if unknown
}

func buildPeers(ps []Peer, keys []Group, byGroup map[Group][]Result) []PeerTable {
	storages := distinct(ps, func(p Peer) string { return p.Storage })
	slices.Sort(storages)
	var out []PeerTable
	for _, s := range storages {
		t := PeerTable{Storage: s, Consumer: peerConsumer(keys, s)}
		grp := byGroup[Group{Storage: s, Consumer: t.Consumer}]
		t.Default = defaultModeOf(grp)
		def := filter(grp, func(r Result) bool { return r.Mode == t.Default })
		in := filter(ps, func(p Peer) bool { return p.Storage == s })
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
			row := PeerRow{
				Cache: k.cache, Peer: k.peer, Ranks: k.ranks,
				PeerMB: medianOf(filter(in, func(p Peer) bool { return p.Cache == k.cache && p.Peer == k.peer && p.Ranks == k.ranks }),
					func(p Peer) float64 { return p.MBPerS }),
				Default: medianOf(filter(def, func(r Result) bool { return r.Cache == k.cache && r.Ranks == k.ranks }),
					func(r Result) float64 { return r.MBPerS }),
			}
			row.Ratio = ratio(row.Default.Median, row.PeerMB.Median)
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// peerConsumer chooses which consumer's default-mode results a storage's
// peers are compared with.
func peerConsumer(keys []Group, storage string) string {
	var first string
	found := false
	for _, g := range keys {
		if g.Storage != storage {
			continue
		}
		if g.Consumer == "sha256" {
			return g.Consumer
		}
		if !found {
			first, found = g.Consumer, true
		}
	}
	return first
}
