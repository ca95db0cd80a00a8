package main

import (
	"sort"
)

// EpochTable shows the epochs of the multi-epoch runs of one group (storage
// and consumer) at one cache state and rank count: every contender's every
// epoch, medians over the rounds.
type EpochTable struct {
	Group
	Cache  string
	Ranks  int
	Nodes  int
	Epochs int
	Rows   []EpochRow
}

// EpochRow is one contender's epoch.
type EpochRow struct {
	Contender string
	Peer      bool
	Epoch     int
	Seconds   Summary
	Storage   Summary // GB (10^9 bytes)
	ReadAmp   Summary // storage bytes / data file bytes
	Exchange  Summary // GB
	CacheHits Summary // fraction of the records
	Stall     Summary // seconds, the most any learner waited
	// VsNone is the epoch's median time over the unshuffled default
	// mode's in the same epoch (0 when there is none).
	VsNone float64
	// Kernel says the storage bytes are the kernel's count for the
	// processes, not the loader's own.
	Kernel bool
}

// EpochKey identifies one epoch table.
type epochKey struct {
	Group
	cache string
	ranks int
}

// buildEpochTables makes a table for every group, cache state and rank
// count with runs of several epochs.
func buildEpochTables(es []Epoch) []EpochTable {
	multi := filter(es, func(e Epoch) bool { return e.Epochs > 1 })
	keys := distinct(multi, func(e Epoch) epochKey {
		return epochKey{Group{e.Storage, e.Consumer}, e.Cache, e.Ranks}
	})
	sort.Slice(keys, func(i, j int) bool { return lessEpochKey(keys[i], keys[j]) })
	var out []EpochTable
	for _, k := range keys {
		in := filter(multi, func(e Epoch) bool {
			return e.Storage == k.Storage && e.Consumer == k.Consumer && e.Cache == k.cache && e.Ranks == k.ranks
		})
		t := EpochTable{Group: k.Group, Cache: k.cache, Ranks: k.ranks}
		for _, e := range in {
			t.Nodes, t.Epochs = max(t.Nodes, e.Nodes), max(t.Epochs, e.Epochs)
		}
		type cell struct {
			contender string
			peer      bool
			epoch     int
		}
		cells := distinct(in, func(e Epoch) cell { return cell{e.Contender, e.Kind == "peer", e.Epoch} })
		sort.SliceStable(cells, func(i, j int) bool {
			a, b := cells[i], cells[j]
			if a.contender != b.contender {
				return contenderLess(a.contender, a.peer, b.contender, b.peer)
			}
			return a.epoch < b.epoch
		})
		none := map[int]float64{}
		for _, c := range cells {
			es := filter(in, func(e Epoch) bool {
				return e.Contender == c.contender && (e.Kind == "peer") == c.peer && e.Epoch == c.epoch
			})
			row := EpochRow{Contender: c.contender, Peer: c.peer, Epoch: c.epoch,
				Seconds:   medianOf(es, func(e Epoch) float64 { return e.Seconds }),
				Storage:   medianOf(es, func(e Epoch) float64 { return float64(e.StorageBytes) / 1e9 }),
				ReadAmp:   medianOf(es, func(e Epoch) float64 { return e.ReadAmplification }),
				Exchange:  medianOf(es, func(e Epoch) float64 { return float64(e.ExchangeBytes) / 1e9 }),
				CacheHits: medianOf(es, func(e Epoch) float64 { return e.CacheHitRate }),
				Stall:     medianOf(es, func(e Epoch) float64 { return e.StallS }),
				Kernel:    es[0].StorageCountedBy == "kernel"}
			if !c.peer && (c.contender == DefaultMode || c.contender == FullStackMode) {
				none[c.epoch] = row.Seconds.Median
			}
			t.Rows = append(t.Rows, row)
		}
		for i := range t.Rows {
			t.Rows[i].VsNone = ratio(t.Rows[i].Seconds.Median, none[t.Rows[i].Epoch])
		}
		out = append(out, t)
	}
	return out
}

func lessEpochKey(a, b epochKey) bool {
	if a.Storage != b.Storage {
		return a.Storage < b.Storage
	}
	if a.Consumer != b.Consumer {
		return a.Consumer < b.Consumer
	}
	if ca, cb := rankOf(cacheOrder, a.cache), rankOf(cacheOrder, b.cache); ca != cb {
		return ca < cb
	}
	return a.ranks < b.ranks
}

// contenderLess orders modes before peers, modes in stacking order, then by
// name (the shuffles after their mode).
func contenderLess(a string, aPeer bool, b string, bPeer bool) bool {
	if aPeer != bPeer {
		return !aPeer
	}
	ma, mb := rankOf(ModeOrder, baseMode(a)), rankOf(ModeOrder, baseMode(b))
	if ma != mb {
		return ma < mb
	}
	return a < b
}

// baseMode is the mode of a contender's name: "default/global" is
// "default"; the model's "caffe" stands where the lmdb mode does.
func baseMode(contender string) string {
	if contender == "caffe" {
		return BaselineMode
	}
	for i := 0; i < len(contender); i++ {
		if contender[i] == '/' {
			return contender[:i]
		}
	}
	return contender
}

// ReadAmpTable is the read amplification of every contender in the first
// epoch of single-epoch cold runs on one storage: bytes read from storage
// over the data file's size, per rank count.
type ReadAmpTable struct {
	Storage string
	Ranks   []int
	Rows    []ReadAmpRow
}

// ReadAmpRow is one contender's read amplification per rank count.
type ReadAmpRow struct {
	Contender string
	Peer      bool
	Kernel    bool
	Cells     []Summary // one per rank count
}

func buildReadAmp(es []Epoch) []ReadAmpTable {
	first := filter(es, func(e Epoch) bool { return e.Epochs <= 1 && e.Cache == "cold" && e.Epoch == 0 })
	storages := distinct(first, func(e Epoch) string { return e.Storage })
	sort.Strings(storages)
	var out []ReadAmpTable
	for _, s := range storages {
		in := filter(first, func(e Epoch) bool { return e.Storage == s })
		t := ReadAmpTable{Storage: s, Ranks: sortedInts(in, func(e Epoch) int { return e.Ranks })}
		type who struct {
			name string
			peer bool
		}
		names := distinct(in, func(e Epoch) who { return who{e.Contender, e.Kind == "peer"} })
		sort.SliceStable(names, func(i, j int) bool {
			return contenderLess(names[i].name, names[i].peer, names[j].name, names[j].peer)
		})
		for _, n := range names {
			row := ReadAmpRow{Contender: n.name, Peer: n.peer}
			for _, r := range t.Ranks {
				cell := filter(in, func(e Epoch) bool { return e.Contender == n.name && (e.Kind == "peer") == n.peer && e.Ranks == r })
				row.Cells = append(row.Cells, medianOf(cell, func(e Epoch) float64 { return e.ReadAmplification }))
				for _, e := range cell {
					row.Kernel = row.Kernel || e.StorageCountedBy == "kernel"
				}
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// DecodeRow says, for one contender that decoded HDF5 chunks in cold runs,
// whether the storage or the decoders bound it: the delivered rate the
// storage allows (its limit times the bytes delivered per byte read) against
// the one the decoders allow (their rate per core times the cores).
type DecodeRow struct {
	Storage, Contender, Consumer string
	Ranks                        int
	Delivered                    Summary // MB/s of the epoch
	DecodePerCore                Summary // MB/s per decoder-second
	Cores                        int
	Expansion                    float64 // decoded bytes per byte read from storage
	StorageBound                 float64 // limit MB/s × expansion; 0 without a limit
	DecodeBound                  float64 // per-core rate × cores
	DecodeShare                  float64 // decoder time / (epoch time × cores)
	Bound                        string  // "storage", "decode" or "" when unknown
}

func buildDecode(es []Epoch, lim []LimitRow) []DecodeRow {
	dec := filter(es, func(e Epoch) bool { return e.DecodedBytes > 0 && e.Cache == "cold" && e.Epoch == 0 })
	type key struct {
		storage, contender, consumer string
		ranks                        int
	}
	keys := distinct(dec, func(e Epoch) key { return key{e.Storage, e.Contender, e.Consumer, e.Ranks} })
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].storage != keys[j].storage {
			return keys[i].storage < keys[j].storage
		}
		return contenderLess(keys[i].contender, false, keys[j].contender, false)
	})
	var out []DecodeRow
	for _, k := range keys {
		in := filter(dec, func(e Epoch) bool {
			return e.Storage == k.storage && e.Contender == k.contender && e.Consumer == k.consumer && e.Ranks == k.ranks
		})
		r := DecodeRow{Storage: k.storage, Contender: k.contender, Consumer: k.consumer, Ranks: k.ranks,
			Delivered:     medianOf(in, func(e Epoch) float64 { return e.MBPerS }),
			DecodePerCore: medianOf(in, func(e Epoch) float64 { return e.DecodeMBPerS })}
		var decoded, stored, busy, capacity float64
		for _, e := range in {
			r.Cores = max(r.Cores, e.Cores)
			decoded += float64(e.DecodedBytes)
			stored += float64(e.StorageBytes)
			busy += e.DecodeSeconds
			capacity += e.Seconds * float64(max(e.Cores, 1))
		}
		r.Expansion = ratio(decoded, stored)
		r.DecodeShare = ratio(busy, capacity)
		r.DecodeBound = r.DecodePerCore.Median * float64(max(r.Cores, 1))
		if l := limitFor(lim, k.storage, "cold", 0); l.Best.N > 0 {
			r.StorageBound = l.Best.Median * r.Expansion
		}
		switch {
		case r.StorageBound <= 0 || r.DecodeBound <= 0:
		case r.StorageBound < r.DecodeBound:
			r.Bound = "storage"
		default:
			r.Bound = "decode"
		}
		out = append(out, r)
	}
	return out
}
