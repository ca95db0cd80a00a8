package main

import "sort"

// AURow is an accelerator workload at one rank count and cache state:
// medians over rounds.
type AURow struct {
	Storage     string
	Workload    string
	Mode        string
	Consumer    string
	Cache       string
	Ranks       int
	Nodes       int
	Rounds      int
	SamplesPerS float64
	AUMean      float64
	AUMin       float64
}

func buildAU(rs []Result) []AURow {
	type key struct {
		storage, workload, mode, consumer, cache string
		ranks, nodes                             int
	}
	work := filter(rs, Result.IsWorkload)
	keyOf := func(r Result) key { return key{r.Storage, r.Workload, r.Mode, r.Consumer, r.Cache, r.Ranks, r.Nodes} }
	keys := distinct(work, keyOf)
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.storage != b.storage:
			return a.storage < b.storage
		case a.workload != b.workload:
			return a.workload < b.workload
		case a.mode != b.mode:
			return rankOf(ModeOrder, a.mode) < rankOf(ModeOrder, b.mode) ||
				rankOf(ModeOrder, a.mode) == rankOf(ModeOrder, b.mode) && a.mode < b.mode
		case a.consumer != b.consumer:
			return a.consumer < b.consumer
		case a.cache != b.cache:
			return rankOf(cacheOrder, a.cache) < rankOf(cacheOrder, b.cache) ||
				rankOf(cacheOrder, a.cache) == rankOf(cacheOrder, b.cache) && a.cache < b.cache
		case a.nodes != b.nodes:
			return a.nodes < b.nodes
		}
		return a.ranks < b.ranks
	})
	var out []AURow
	for _, k := range keys {
		in := filter(work, func(r Result) bool { return keyOf(r) == k })
		out = append(out, AURow{
			Storage: k.storage, Workload: k.workload, Mode: k.mode, Consumer: k.consumer, Cache: k.cache, Ranks: k.ranks, Nodes: k.nodes,
			Rounds:      len(in),
			SamplesPerS: medianOf(in, func(r Result) float64 { return r.SamplesPerS }).Median,
			AUMean:      medianOf(in, func(r Result) float64 { return r.AUMean }).Median,
			AUMin:       medianOf(in, func(r Result) float64 { return r.AUMin }).Median,
		})
	}
	return out
}

// sortedAUSearches orders searches by storage, workload, cache and node count.
func sortedAUSearches(as []AUSearch) []AUSearch {
	out := append([]AUSearch(nil), as...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Storage != b.Storage {
			return a.Storage < b.Storage
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Cache != b.Cache {
			return rankOf(cacheOrder, a.Cache) < rankOf(cacheOrder, b.Cache) ||
				rankOf(cacheOrder, a.Cache) == rankOf(cacheOrder, b.Cache) && a.Cache < b.Cache
		}
		return a.Nodes < b.Nodes
	})
	return out
}
