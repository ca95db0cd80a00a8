package loader

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// runPlan is what a node reader knows of the whole run: where every
// record lies, which node owns which block, what every node caches, and
// how to build an epoch's assignment. It is the same on every node reader
// (only the own node's cache detail differs) and never changes after Open.
type runPlan struct {
	opt      Options
	batching assign.Layout // how batches are cut: their size, the learners of every node, the remainder
	src      source.Source
	node     int

	n         int     // records
	posRecord []int32 // record at each position (file order)
	keyPos    []int32 // position of each record (key order), for shuffle none
	fileOrder []int32 // blocks by file offset
	pieces    *schedule.Pieces
	pieceOf   []int32          // block of each piece, for decoded sources
	blockOff  []int64          // each record's offset in its decoded block
	cuts      []int32          // chunk boundaries, for the Chunk shuffle
	layout    *schedule.Layout // every position's block and bytes, every block's owner and cost
	cache     *schedule.Cache  // this node's
	cacheUsed []int64          // every node's cache bytes
	resume    *State
	ahead     []*assign.Epoch // the epochs after the first that the early exchange built at Open
	first     struct {        // the first epoch of the run, built once
		ep   *assign.Epoch
		from int
	}
}

// newRunPlan lays the records out and assigns blocks to nodes; caches come
// later (setCaches), once every node's capacity is known.
func newRunPlan(src source.Source, opt Options, sizes []int, node int) (*runPlan, error) {
	n := src.Len()
	if n > math.MaxInt32 || src.Blocks() > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d records in %d blocks; lmdbio handles up to 2^31-1", ErrBadInput, n, src.Blocks())
	}
	p := &runPlan{opt: opt, src: src, node: node, n: n, resume: opt.Resume,
		batching: assign.Layout{Batch: opt.Batch, NodeSizes: sizes, Remainder: opt.Remainder}}
	p.layOut()
	if opt.Shuffle == sampler.Chunk {
		p.cuts = sampler.Cut(n, opt.ChunkBytes, opt.ChunkWindow,
			func(q int) int64 { return p.layout.PosBytes[q] },
			func(q int) bool { return q == 0 || p.layout.PosBlock[q] != p.layout.PosBlock[q-1] })
	}
	if err := p.own(); err != nil {
		return nil, err
	}
	return p, nil
}

// layOut numbers the records by position: blocks in file order, records
// inside a block by their place in it.
func (p *runPlan) layOut() {
	src := p.src
	blocks := src.Blocks()
	p.pieces = &schedule.Pieces{}
	var buf []source.Extent
	if src.Decoder() != nil {
		p.pieces.First = make([]int32, 1, blocks+1)
	}
	for b := range blocks {
		buf = src.Pieces(b, buf[:0])
		p.pieces.Ext = append(p.pieces.Ext, buf...)
		if p.pieces.First != nil {
			p.pieces.First = append(p.pieces.First, int32(len(p.pieces.Ext)))
			for range buf {
				p.pieceOf = append(p.pieceOf, int32(b))
			}
		}
	}
	p.fileOrder = make([]int32, blocks)
	for b := range p.fileOrder {
		p.fileOrder[b] = int32(b)
	}
	firstOff := func(b int32) int64 {
		f, end := p.pieces.Of(b)
		if f == end {
			return -1 // read through a library, not by offset: keep the source's order
		}
		return p.pieces.Ext[f].Off
	}
	slices.SortStableFunc(p.fileOrder, func(a, b int32) int { return cmp.Compare(firstOff(a), firstOff(b)) })

	// Records grouped by block (a counting sort), then blocks in file order.
	p.blockOff = make([]int64, p.n)
	count := make([]int32, blocks+1)
	blockOf := make([]int32, p.n)
	for r := range p.n {
		b, off := src.BlockOf(r)
		blockOf[r], p.blockOff[r] = int32(b), off
		count[b+1]++
	}
	rank := make([]int32, blocks) // place of each block in file order
	for i, b := range p.fileOrder {
		rank[b] = int32(i)
	}
	start := make([]int32, blocks+1)
	for i, b := range p.fileOrder {
		start[i+1] = start[i] + count[b+1]
	}
	p.posRecord = make([]int32, p.n)
	fill := slices.Clone(start[:blocks])
	for r := range p.n {
		i := rank[blockOf[r]]
		p.posRecord[fill[i]] = int32(r)
		fill[i]++
	}
	for i := range blocks { // records of a block by their place in it
		recs := p.posRecord[start[i]:start[i+1]]
		slices.SortFunc(recs, func(a, b int32) int { return cmp.Compare(p.blockOff[a], p.blockOff[b]) })
	}

	s := &schedule.Layout{PosBlock: make([]int32, p.n), PosBytes: make([]int64, p.n), PosMeta: make([]int64, p.n),
		BlockCost: make([]int64, blocks), BlockOwner: make([]int32, blocks), BlockCached: make([]bool, blocks),
		Nodes: len(p.batching.NodeSizes), Local: !p.opt.Shuffle.WorldIndependent()}
	for q, r := range p.posRecord {
		s.PosBlock[q] = blockOf[r]
		s.PosBytes[q] = src.ValueLen(int(r))
		s.PosMeta[q] = int64(len(src.Key(int(r))) + len(src.Label(int(r))))
	}
	for b := range blocks {
		s.BlockCost[b] = p.readRoom(int32(b))
	}
	p.layout = s
	if p.opt.Shuffle == sampler.None {
		p.keyPos = make([]int32, p.n)
		for q, r := range p.posRecord {
			p.keyPos[r] = int32(q)
		}
	}
}

// readRoom is the arena room block b takes when read into the arena: its
// decoded bytes, or for a stored block the aligned span a read of it alone
// could need.
func (p *runPlan) readRoom(b int32) int64 {
	if p.src.Decoder() != nil {
		return roundUp(p.src.DecodedLen(int(b)), alignment)
	}
	return roundUp(p.pieces.Ext[b].Len, alignment) + alignment
}

// own gives every block to a node: contiguous ranges of the population
// (see population), which for every shuffle but none are contiguous ranges
// of the file. With None, File and Local a node owns the share its learners
// read (Sequential shares), with Chunk and Global a share proportional to
// its learners. A block belongs to the node whose share holds the first of
// its records in the population.
func (p *runPlan) own() error {
	cut, err := assign.Cut(p.n, p.batching, p.opt.Shuffle)
	if err != nil {
		return err
	}
	owned := make([]bool, len(p.layout.BlockOwner))
	node := 0
	for i, q := range p.population() {
		for node+1 < len(cut)-1 && i >= cut[node+1] {
			node++
		}
		if b := p.layout.PosBlock[q]; !owned[b] {
			owned[b] = true
			p.layout.BlockOwner[b] = int32(node)
		}
	}
	return nil
}

// owned lists a node's blocks in fill order, in groups read together: the
// chunks of epoch 0's chunk order for Chunk, else the node's whole share in
// file order.
func (p *runPlan) owned(node int) [][]int32 {
	s := p.layout
	mine := func(from, to int) []int32 { // node's blocks among positions [from, to)
		var out []int32
		for q := from; q < to; q++ {
			b := s.PosBlock[q]
			if int(s.BlockOwner[b]) == node && (q == from || b != s.PosBlock[q-1]) {
				out = append(out, b)
			}
		}
		return out
	}
	if p.opt.Shuffle != sampler.Chunk {
		return [][]int32{mine(0, p.n)}
	}
	var groups [][]int32
	for _, c := range sampler.ChunkSequence(p.samplerOptions(), 0, len(p.cuts)-1) {
		if g := mine(int(p.cuts[c]), int(p.cuts[c+1])); len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// setCaches lays out every node's cache from the capacities, so that every
// node knows which blocks every other node keeps.
func (p *runPlan) setCaches(capacity []int64) {
	var decoded func(b int32) int64
	if p.src.Decoder() != nil {
		decoded = func(b int32) int64 { return p.src.DecodedLen(int(b)) }
	}
	p.cacheUsed = make([]int64, len(capacity))
	p.layout.BlockRead = make([]int32, p.src.Blocks())
	for b := range p.layout.BlockRead {
		p.layout.BlockRead[b] = -1
	}
	reads := int32(0)
	for node, c := range capacity {
		cache := schedule.PlanCache(p.src.Blocks(), p.owned(node), p.pieces, decoded, p.fillOptions(), alignment, c)
		p.cacheUsed[node] = cache.Bytes
		reads = p.markCached(cache, reads)
		if node == p.node {
			p.cache = cache
		}
	}
}

// markCached tells the schedule which blocks a node's cache keeps and
// which of its fill reads loads each, numbering the reads from first on;
// it returns the next number.
func (p *runPlan) markCached(cache *schedule.Cache, first int32) int32 {
	for b, at := range cache.At {
		if at >= 0 {
			p.layout.BlockCached[b] = true
		}
	}
	for k, sp := range cache.Spans {
		for _, b := range sp.Blocks {
			p.layout.BlockRead[b] = first + int32(k)
		}
	}
	return first + int32(len(cache.Spans))
}

// cacheNeed is the cache room this node would use to keep every block it
// owns.
func (p *runPlan) cacheNeed() int64 {
	var decoded func(b int32) int64
	if p.src.Decoder() != nil {
		decoded = func(b int32) int64 { return p.src.DecodedLen(int(b)) }
	}
	return schedule.PlanCache(p.src.Blocks(), p.owned(p.node), p.pieces, decoded, p.fillOptions(), alignment, math.MaxInt64).Bytes
}

// fillOptions plan the reads that fill the cache.
func (p *runPlan) fillOptions() planner.Options {
	o := planner.Options{MaxSpan: p.opt.MaxSpan, MaxGap: p.opt.MaxGap}
	if p.opt.Direct {
		o.Align = alignment
	}
	return o
}

func (p *runPlan) samplerOptions() sampler.Options {
	return sampler.Options{Shuffle: p.opt.Shuffle, Seed: p.opt.Seed, ChunkWindow: p.opt.ChunkWindow}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// turns counts the windows of the whole run, from where it starts: the
// storage turns every node reader takes.
func (p *runPlan) turns(slot int64) int {
	n := 0
	for e := p.firstEpoch(); e < p.opt.Epochs; e++ {
		ep, from, err := p.epoch(e)
		if err != nil {
			return n
		}
		n += len(p.windows(e, ep, from, slot))
	}
	return n
}

// windows cuts epoch e's rounds from round from on (see Layout.Windows). In
// the epoch that fills the caches of an order whose records cross between
// nodes, windows also follow the reads (see Layout.ReadyCut): a window's
// batches wait for its whole exchange, which waits for every node's reads
// of it. Later epochs' windows are bounded by the arena alone: cached
// records take none, so such an epoch is one exchange, made while the
// epoch before it is consumed.
func (p *runPlan) windows(e int, ep *assign.Epoch, from int, slot int64) []schedule.Window {
	var cut func(start, r int) bool
	if e == p.firstEpoch() && p.opt.Shuffle.WorldIndependent() && p.layout.Nodes > 1 {
		cut = p.layout.ReadyCut(ep, from, fillsAtOnce(p.opt.Shuffle), fillSteps)
	}
	return p.layout.Windows(ep, from, slot, cut)
}

// fillSteps is how many windows at most an epoch that fills the caches, and
// whose rounds become ready evenly as it is read, is cut into.
const fillSteps = 16

// records is what laying out a window's items needs of the plan.
func (p *runPlan) records() recordLayout {
	return recordLayout{layout: p.layout, node: p.node, posRecord: p.posRecord, blockOff: p.blockOff, key: p.src.Key, label: p.src.Label}
}
