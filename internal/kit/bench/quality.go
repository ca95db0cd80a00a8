package bench

import (
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/internal/kit/schema"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// TypeShuffleQuality is the "type" of a Quality line.
const TypeShuffleQuality = schema.TypeShuffleQuality

// Quality is a "shuffle-quality" line (schema.ShuffleQuality).
type Quality = schema.ShuffleQuality

// QualityOptions describe the run whose shuffles are measured: the dataset
// (records of equal size, one record per block as in an LMDB whose values
// are on their own pages), the learners and the shuffle's options.
type QualityOptions struct {
	Records     int
	RecordBytes int64
	NodeSizes   []int // learners per node
	Batch       int
	ChunkBytes  int64 // shuffle chunk
	ChunkWindow int
	Seed        uint64
	Epochs      int
}

// ShuffleQuality measures shuffle s (with or without locality) on the run
// o describes.
func ShuffleQuality(o QualityOptions, s sampler.Shuffle, locality bool) (Quality, error) {
	if o.Records < 2 || o.RecordBytes < 1 || o.Epochs < 1 || o.ChunkBytes < 1 || o.ChunkWindow < 1 {
		return Quality{}, fmt.Errorf("shuffle quality: %d records of %d bytes, %d epochs, chunk %d, window %d: want at least 2, 1, 1, 1 and 1",
			o.Records, o.RecordBytes, o.Epochs, o.ChunkBytes, o.ChunkWindow)
	}
	l := assign.Layout{Batch: o.Batch, NodeSizes: o.NodeSizes, Remainder: assign.Keep}
	if _, err := l.Rounds(o.Records); err != nil {
		return Quality{}, err
	}
	n := o.Records
	q := Quality{Type: TypeShuffleQuality, Shuffle: s.String(), Locality: "on", Records: n, RecordBytes: o.RecordBytes,
		Nodes: len(o.NodeSizes), Learners: l.Learners(), Batch: o.Batch, GlobalBatch: l.GlobalBatch(),
		ChunkBytes: o.ChunkBytes, ChunkWindow: o.ChunkWindow, Seed: o.Seed, Epochs: o.Epochs}
	if !locality {
		q.Locality = "off"
	}
	owner, err := owners(o, s, l)
	if err != nil {
		return q, err
	}
	cuts := sampler.Cut(n, o.ChunkBytes, o.ChunkWindow, func(int) int64 { return o.RecordBytes }, func(int) bool { return true })
	var prev []int32 // the global batch of every record in the epoch before
	var sameSum, dispSum, crossSum, againSum, idealSum float64
	for e := range o.Epochs {
		var own assign.Owners
		if locality {
			own = owner
		}
		ep, err := epochAssignment(o, s, l, e, cuts, own)
		if err != nil {
			return q, err
		}
		batchOf, place, cross := walkEpoch(ep, owner, n)
		same := 0
		for p := 0; p+1 < n; p++ {
			if batchOf[p] == batchOf[p+1] {
				same++
			}
		}
		sameSum += float64(same) / float64(n-1)
		var disp float64
		for p, at := range place {
			disp += math.Abs(float64(at - int32(p)))
		}
		dispSum += disp / float64(n) / float64(n)
		crossSum += float64(cross) / float64(n)
		idealSum += pairsInBatches(ep) / (float64(n) * float64(n-1))
		if prev != nil {
			againSum += sameAgain(prev, batchOf)
		}
		prev = batchOf
	}
	epochs := float64(o.Epochs)
	q.SameBatch, q.SameBatchIdeal = sameSum/epochs, idealSum/epochs
	q.Displacement = dispSum / epochs
	q.DisplacementIdeal = (float64(n)*float64(n) - 1) / (3 * float64(n) * float64(n))
	q.CrossNode = crossSum / epochs
	if o.Epochs > 1 {
		q.SameBatchNextEpoch = againSum / (epochs - 1)
	}
	return q, nil
}

// owners says which node reads and caches each position, as the loader
// shares the file out: contiguous ranges, for None and Local the nodes'
// Sequential shares, for Chunk and Global shares proportional to the
// nodes' learners.
func owners(o QualityOptions, s sampler.Shuffle, l assign.Layout) (assign.Owners, error) {
	cut, err := assign.Cut(o.Records, l, s)
	if err != nil {
		return nil, err
	}
	node := make([]int, o.Records)
	k := 0
	for p := range node {
		for k+1 < len(cut)-1 && p >= cut[k+1] {
			k++
		}
		node[p] = k
	}
	return func(p int32) int { return node[p] }, nil
}

// epochAssignment builds epoch e as the loader does.
func epochAssignment(o QualityOptions, s sampler.Shuffle, l assign.Layout, e int, cuts []int32, own assign.Owners) (*assign.Epoch, error) {
	all := make([]int32, o.Records)
	for p := range all {
		all[p] = int32(p)
	}
	switch s {
	case sampler.None, sampler.File:
		return assign.Sequential(all, l)
	case sampler.Local:
		return assign.Local(all, l, o.Seed, e)
	}
	order := sampler.Order(sampler.Options{Shuffle: s, Seed: o.Seed, ChunkWindow: o.ChunkWindow}, e, o.Records, cuts)
	return assign.Ordered(order, l, own)
}

// walkEpoch returns every position's global batch and place in the epoch's
// order, and how many positions went to a learner on a node that does not
// own them.
func walkEpoch(ep *assign.Epoch, owner assign.Owners, n int) (batchOf, place []int32, cross int) {
	batchOf, place = make([]int32, n), make([]int32, n)
	at := int32(0)
	for round := range ep.Rounds() {
		for node := range ep.Nodes() {
			for local := range ep.NodeSize(node) {
				for _, p := range ep.Batch(node, local, round) {
					batchOf[p], place[p] = int32(round), at
					at++
					if owner(p) != node {
						cross++
					}
				}
			}
		}
	}
	return batchOf, place, cross
}

// pairsInBatches counts the ordered pairs of distinct positions that share
// a global batch: sum over batches of s(s-1).
func pairsInBatches(ep *assign.Epoch) float64 {
	var pairs float64
	for round := range ep.Rounds() {
		s := float64(len(ep.Global(round)))
		pairs += s * (s - 1)
	}
	return pairs
}

// sameAgain is the fraction of pairs sharing a global batch in prev that
// share one in next as well.
func sameAgain(prev, next []int32) float64 {
	groups := map[int32][]int32{}
	for p, b := range prev {
		groups[b] = append(groups[b], int32(p))
	}
	var pairs, again float64
	for _, g := range groups {
		count := map[int32]float64{}
		for _, p := range g {
			count[next[p]]++
		}
		s := float64(len(g))
		pairs += s * (s - 1)
		for _, c := range count {
			again += c * (c - 1)
		}
	}
	if pairs == 0 {
		return 0
	}
	return again / pairs
}
