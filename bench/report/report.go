package main

import (
	"sort"
)

// Options are the choices the tables leave to the user. The zero value
// chooses everything from the data.
type Options struct {
	// StudyRanks is the rank count of the stacked-optimisation study; 0
	// picks, per group, the rank count where most modes were measured
	// (the larger on a tie).
	StudyRanks int
	// Machine, when set, replaces the description taken from "machine" lines.
	Machine string
}

// Report holds every table, as numbers; rendering is separate.
type Report struct {
	Machine    []string
	Inputs     []string
	Limits     []LimitRow
	Studies    []StudyTable
	Peers      []PeerTable
	Scaling    []ScalingTable
	FirstBatch []FirstBatchTable
	AU         []AURow
	AUSearches []AUSearch
}

// Build computes every table from ds. It is a pure function of its inputs.
func Build(ds *Dataset, opt Options) *Report {
	lim := buildLimits(ds.Limits)
	loading := loaderResults(ds.Results)
	keys, byGroup := groups(loading)
	rep := &Report{
		Machine:    machineLines(ds.Machines, opt.Machine),
		Inputs:     ds.Inputs,
		Limits:     lim,
		Peers:      buildPeers(ds.Peers, keys, byGroup),
		AU:         buildAU(ds.Results),
		AUSearches: sortedAUSearches(ds.AUSearches),
	}
	for _, g := range keys {
		rs := byGroup[g]
		peers := filter(ds.Peers, func(p Peer) bool { return p.Storage == g.Storage })
		rep.Studies = append(rep.Studies, buildStudies(g, rs, lim, opt.StudyRanks)...)
		rep.Scaling = append(rep.Scaling, buildScaling(g, rs, peers, lim)...)
		rep.FirstBatch = append(rep.FirstBatch, buildFirstBatch(g, rs, peers)...)
	}
	return rep
}

// LimitRow is the physical limit of one storage in one cache state.
type LimitRow struct {
	Storage  string
	Cache    string
	Buffered Summary
	Direct   Summary
}

func buildLimits(ls []Limit) []LimitRow {
	type key struct{ storage, cache string }
	keys := distinct(ls, func(l Limit) key { return key{l.Storage, l.Cache} })
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].storage != keys[j].storage {
			return keys[i].storage < keys[j].storage
		}
		return rankOf(cacheOrder, keys[i].cache) < rankOf(cacheOrder, keys[j].cache) ||
			rankOf(cacheOrder, keys[i].cache) == rankOf(cacheOrder, keys[j].cache) && keys[i].cache < keys[j].cache
	})
	var out []LimitRow
	for _, k := range keys {
		in := filter(ls, func(l Limit) bool { return l.Storage == k.storage && l.Cache == k.cache })
		mb := func(l Limit) float64 { return l.MBPerS }
		out = append(out, LimitRow{
			Storage:  k.storage,
			Cache:    k.cache,
			Buffered: medianOf(filter(in, func(l Limit) bool { return !l.Direct }), mb),
			Direct:   medianOf(filter(in, func(l Limit) bool { return l.Direct }), mb),
		})
	}
	return out
}

// limitFor returns the limit row of storage and cache, zero if none.
func limitFor(ls []LimitRow, storage, cache string) LimitRow {
	for _, l := range ls {
		if l.Storage == storage && l.Cache == cache {
			return l
		}
	}
	return LimitRow{Storage: storage, Cache: cache}
}

// cachesOf returns the cache states in rs, cold first.
func cachesOf(rs []Result) []string {
	return sortKnown(cacheOrder, distinct(rs, func(r Result) string { return r.Cache }))
}

// modesOf returns the modes in rs, in stacking order.
func modesOf(rs []Result) []string {
	return sortKnown(ModeOrder, distinct(rs, func(r Result) string { return r.Mode }))
}
