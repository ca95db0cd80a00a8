package loader

import (
	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// sortBlocks splits the node's blocks a window needs into those to fill
// into the cache now (cached, never loaded; with Global and Local the
// whole cache at the first window) and those to read into the arena.
func (ix *indexProducer) sortBlocks(blocks []int32) (fills, reads []int32) {
	p := ix.plan
	if !ix.filledAll && fillsAtOnce(ix.opt.Shuffle) {
		ix.filledAll = true
		for b, at := range p.cache.At {
			if at >= 0 && ix.cache.loaded(int32(b)) == nil {
				fills = append(fills, int32(b))
			}
		}
	}
	for _, b := range blocks {
		switch {
		case !p.cache.Cached(b):
			reads = append(reads, b)
		case ix.cache.loaded(b) == nil && !ix.filledAll:
			fills = append(fills, b)
		}
	}
	return fills, reads
}

// fillsAtOnce reports whether an order fills the whole cache at its first
// window: Global and Local take records from all of a node's share in
// every window, and one pass over the share reads it sequentially.
func fillsAtOnce(s sampler.Shuffle) bool { return s == sampler.Global || s == sampler.Local }

// readOptions plan the reads into the arena; the first window's reads are
// small, so the first batch does not wait for a large read.
func (ix *indexProducer) readOptions(first bool) planner.Options {
	o := ix.plan.fillOptions()
	if first {
		o.MaxSpan = min(o.MaxSpan, firstSpan)
	}
	return o
}

// firstSpan bounds the reads of the very first window: with a few large
// reads in flight the first batch would wait for all of them, since storage
// serves them side by side, while many small ones finish one after another.
const firstSpan = 2 << 20

// addLoads counts loads to the window (its storage turn waits for them)
// and to the epoch's storage bytes, and sets up their checks: the blocks'
// own bytes where the source can check them (each kind of read checks
// what it can: decoded blocks are checked once decoded), then the
// snapshot.
func addLoads[R storageRead](ix *indexProducer, w *window, loads []R, st *epochCounters) {
	v, _ := ix.plan.src.(source.Verifier)
	for _, l := range loads {
		r := l.common()
		r.bytes, r.reads = &st.storageBytes, &st.storageReads
		r.snapshot, r.blocks = ix.pin.check, v
		w.loads = append(w.loads, l)
	}
}
