package main

import (
	"cmp"
	"maps"
	"slices"
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
	Notes      []string
	Limits     []LimitRow
	Studies    []StudyTable
	Pairs      []PairRow
	Peers      []PeerTable
	Slower     []SlowerRow
	Scaling    []ScalingTable
	FirstBatch []FirstBatchTable
	AU         []AURow
	AUSearches []AUSearch
	Epochs     []EpochTable
	ReadAmp    []ReadAmpTable
	Decode     []DecodeRow
	Quality    []Quality
	Fits       []Fit
	Residuals  []Residual
	Predict    PredictionTable
}

// Build computes every table from ds. It is a pure function of its inputs.
func Build(ds *Dataset, opt Options) *Report {
	lim := buildLimits(ds.Limits)
	loading := loaderResults(ds.Results)
	// Runs of several epochs have tables of their own (buildEpochTables):
	// their MB/s cover every epoch, warm ones included.
	onePeers := filter(ds.Peers, func(p Peer) bool { return p.Epochs <= 1 })
	keys, byGroup := groups(loading, onePeers)
	rep := &Report{
		Machine:    machineLines(ds.Machines, opt.Machine),
		Inputs:     ds.Inputs,
		Notes:      ds.Notes,
		Limits:     lim,
		Peers:      buildPeers(onePeers, byGroup, lim),
		AU:         buildAU(ds.Results),
		AUSearches: sortedAUSearches(ds.AUSearches),
		Epochs:     buildEpochTables(ds.Epochs),
		ReadAmp:    buildReadAmp(ds.Epochs),
		Decode:     buildDecode(ds.Epochs, lim),
		Quality:    ds.Qualities,
		Fits:       ds.Fits,
		Residuals:  ds.Residuals,
		Predict:    buildPredictions(ds.Predictions),
	}
	for _, g := range keys {
		rs := byGroup[g]
		peers := filter(onePeers, func(p Peer) bool { return p.Storage == g.Storage && p.Consumer == g.Consumer })
		if len(rs) > 0 {
			rep.Studies = append(rep.Studies, buildStudies(g, rs, lim, opt.StudyRanks)...)
			rep.Pairs = append(rep.Pairs, buildPairs(g, rs)...)
		}
		rep.Scaling = append(rep.Scaling, buildScaling(g, rs, peers, lim)...)
		rep.FirstBatch = append(rep.FirstBatch, buildFirstBatch(g, rs, peers)...)
	}
	rep.Slower = buildSlower(rep.Pairs, rep.Peers)
	return rep
}

// LimitRow is the limit of one storage in one cache state: per round the
// fastest of its probes, and the single-stream probes beside it (what one
// synchronous reader gets, as dd shows it).
type LimitRow struct {
	Storage string
	Cache   string
	Hosts   int // the hosts whose clients read a share each at once (1 for one)
	// Best is the fastest probe of each round, over the rounds.
	Best Summary
	// Rounds is the fastest probe's MB/s in each round, for ratios paired
	// by round with what was measured beside it.
	Rounds map[runRound]float64
	// BestProbe is the probe that was fastest in most rounds.
	BestProbe string
	Buffered  Summary // buffered:1x1:16MiB
	Direct    Summary // direct:1x1:16MiB
}

// singleStream are the probes of one stream and one request in flight.
var singleStream = map[bool]string{false: legacyProbe(false), true: legacyProbe(true)}

func buildLimits(ls []Limit) []LimitRow {
	type key struct {
		storage, cache string
		hosts          int
	}
	keys := distinct(ls, func(l Limit) key { return key{l.Storage, l.Cache, hostsOf(l)} })
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.storage != b.storage {
			return a.storage < b.storage
		}
		if ca, cb := rankOf(cacheOrder, a.cache), rankOf(cacheOrder, b.cache); ca != cb || a.cache != b.cache {
			return ca < cb || ca == cb && a.cache < b.cache
		}
		return a.hosts < b.hosts
	})
	var out []LimitRow
	for _, k := range keys {
		in := filter(ls, func(l Limit) bool { return l.Storage == k.storage && l.Cache == k.cache && hostsOf(l) == k.hosts })
		mb := func(l Limit) float64 { return l.MBPerS }
		best, probe := fastestPerRound(in)
		out = append(out, LimitRow{
			Storage:   k.storage,
			Cache:     k.cache,
			Hosts:     k.hosts,
			Best:      Summarize(slices.Collect(maps.Values(best))),
			Rounds:    best,
			BestProbe: probe,
			Buffered:  medianOf(filter(in, func(l Limit) bool { return l.Probe == singleStream[false] }), mb),
			Direct:    medianOf(filter(in, func(l Limit) bool { return l.Probe == singleStream[true] }), mb),
		})
	}
	return out
}

// hostsOf is the number of hosts a limit was probed on; older runs say none
// and probed through one.
func hostsOf(l Limit) int { return max(l.Hosts, 1) }

// fastestPerRound returns the fastest probe's MB/s in every round of every
// run, and the probe that was fastest most often (the first on a tie, in
// the order of runs and rounds).
func fastestPerRound(ls []Limit) (map[runRound]float64, string) {
	top := map[runRound]Limit{}
	for _, l := range ls {
		k := runRound{l.Run, l.Round}
		if t, seen := top[k]; !seen || l.MBPerS > t.MBPerS {
			top[k] = l
		}
	}
	keys := slices.SortedFunc(maps.Keys(top), func(a, b runRound) int {
		return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.round, b.round))
	})
	best := make(map[runRound]float64, len(keys))
	wins := map[string]int{}
	probe := ""
	for _, k := range keys {
		t := top[k]
		best[k] = t.MBPerS
		wins[t.Probe]++
	}
	for _, k := range keys { // the most wins; the first to reach it on a tie
		if p := top[k].Probe; probe == "" || wins[p] > wins[probe] {
			probe = p
		}
	}
	return best, probe
}

// limitFor returns the limit row of storage and cache probed on hosts hosts
// (a storage measured on several counts of hosts has a limit for each:
// several clients together read faster than one); hosts 0, or a storage
// probed on one count only, takes the first. Zero if none.
func limitFor(ls []LimitRow, storage, cache string, hosts int) LimitRow {
	var rows []LimitRow
	for _, l := range ls {
		if l.Storage == storage && l.Cache == cache {
			if l.Hosts == max(hosts, 1) {
				return l
			}
			rows = append(rows, l)
		}
	}
	if len(rows) == 1 || len(rows) > 0 && hosts <= 0 {
		return rows[0]
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
