package loader

import (
	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/schedule"
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

// planReads plans the reads of blocks into the arena. Stored-as-is blocks
// are read where the learners see them, so gaps read through take arena
// room: if they would take more than the window was cut for, the gaps are
// not read.
func (ix *indexProducer) planReads(blocks []int32, first bool) []planner.Span {
	if len(blocks) == 0 {
		return nil
	}
	p := ix.plan
	opt := ix.readOptions(first)
	ids := p.pieces.Append(nil, blocks...)
	spans := planner.Plan(p.pieces, ids, opt)
	if p.src.Decoder() != nil {
		return spans
	}
	var budget int64
	for _, b := range blocks {
		budget += p.layout.BlockCost[b]
	}
	if spansBytes(spans) > budget {
		opt.MaxGap = 0
		spans = planner.Plan(p.pieces, ids, opt)
	}
	return spans
}

// readRoom is the arena room the window's reads take: the spans as read,
// or the decoded blocks.
func (ix *indexProducer) readRoom(blocks []int32, spans []planner.Span) int64 {
	if ix.plan.src.Decoder() == nil {
		return spansBytes(spans)
	}
	var n int64
	for _, b := range blocks {
		n += roundUp(ix.plan.src.DecodedLen(int(b)), alignment)
	}
	return n
}

// fill starts loading blocks into the cache, reserving the cache's pages
// as it goes (a shortage is then an error, not a SIGBUS).
func (ix *indexProducer) fill(blocks []int32, w *window, st *epochCounters) error {
	if len(blocks) == 0 {
		return nil
	}
	p, c := ix.plan, ix.cache
	if p.src.Decoder() != nil {
		for _, b := range blocks {
			if err := c.seg.Reserve(p.cache.At[b], roundUp(p.src.DecodedLen(int(b)), alignment)); err != nil {
				return err
			}
		}
		spans := planner.Plan(p.pieces, p.pieces.Append(nil, blocks...), p.fillOptions())
		loads := stagingLoads(ix.rd, spans)
		ix.decodeInto(blocks, loads, c.buf, func(b int32) int64 { return p.cache.At[b] }, func(b int32, d *decode) {
			c.block[b] = d
		}, st)
		addLoads(ix, w, loads, st)
		return nil
	}
	for _, b := range blocks {
		k := p.cache.SpanOf[b]
		if c.span[k] != nil {
			continue
		}
		cs := p.cache.Spans[k]
		n := roundUp(cs.Length, alignment)
		if err := c.seg.Reserve(cs.CacheOff, n); err != nil {
			return err
		}
		l := &memRead{spanRead: spanRead{signal: newSignal(), rd: ix.rd, span: cs.Span}, dst: c.buf[cs.CacheOff : cs.CacheOff+n], at: cs.CacheOff}
		if !ix.rd.Direct() {
			l.dst = l.dst[:cs.Length]
		}
		c.span[k] = l
		addLoads(ix, w, []*memRead{l}, st)
	}
	return nil
}

// read starts reading blocks into the arena from base and records where
// they land.
func (ix *indexProducer) read(blocks []int32, spans []planner.Span, base int64, loc map[int32]where, w *window, q queues, st *epochCounters) {
	if len(blocks) == 0 {
		return
	}
	p := ix.plan
	if p.src.Decoder() != nil {
		loads := stagingLoads(ix.rd, spans)
		at := make(map[int32]int64, len(blocks))
		next := base
		for _, b := range blocks {
			at[b] = next
			next += roundUp(p.src.DecodedLen(int(b)), alignment)
		}
		ix.decodeInto(blocks, loads, ix.buf, func(b int32) int64 { return at[b] }, func(b int32, d *decode) {
			loc[b] = where{seg: segArena, off: at[b], done: d}
		}, st)
		addLoads(ix, w, loads, st)
		return
	}
	loads, _ := layoutLoads(ix.rd, ix.arena, ix.buf, base, spans)
	for piece, pl := range placements(loads) {
		loc[int32(piece)] = where{seg: segArena, off: pl.offset, done: pl.load}
	}
	addLoads(ix, w, loads, st)
}

// makeResident starts the loads that bring spans into the page cache for
// learners that view the file, and records where their blocks are: in the
// file, at their own offsets. The learners check the blocks they are
// handed where they can (see heads); the node reader checks those that x
// sends to other nodes.
func (ix *indexProducer) makeResident(spans []planner.Span, loc map[int32]where, w *window, st *epochCounters, x schedule.Work) {
	seg := ix.viewSegment()
	var byLearners func(int) bool
	if ix.heads() != nil {
		sent := map[int32]bool{}
		for _, list := range x.Send {
			for _, pos := range list {
				sent[ix.plan.layout.PosBlock[pos]] = true
			}
		}
		byLearners = func(piece int) bool { return !sent[int32(piece)] } // stored as is: a piece is its block
	}
	var loads []*residentRead
	for _, s := range spans {
		l := &residentRead{spanRead: spanRead{signal: newSignal(), rd: ix.rd, span: s}, view: ix.view, hits: &st.cacheHits, byLearners: byLearners}
		for _, pl := range s.Records {
			loc[int32(pl.Record)] = where{seg: seg, off: s.Offset + pl.Offset, done: l}
		}
		loads = append(loads, l)
	}
	addLoads(ix, w, loads, st)
}

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

// decodeInto makes the decoding of every block from the staging loads that
// read its pieces, into dst at offset(b); each is handed to set and queued
// after the window's loads.
func (ix *indexProducer) decodeInto(blocks []int32, loads []*stagedRead, dst []byte, offset func(int32) int64, set func(int32, *decode), st *epochCounters) {
	p := ix.plan
	parts := make(map[int32][]piecePart, len(blocks))
	for _, l := range loads {
		for _, pl := range l.span.Records {
			b := p.pieceOf[pl.Record]
			parts[b] = append(parts[b], piecePart{from: l, at: pl})
		}
	}
	verify, _ := p.src.(source.Verifier)
	for _, b := range blocks {
		n := p.src.DecodedLen(int(b))
		off := offset(b)
		d := &decode{signal: newSignal(), block: b, dec: p.src.Decoder(), verify: verify, parts: parts[b], dst: dst[off : off+n : off+n], st: st}
		set(b, d)
		ix.pendingDecodes = append(ix.pendingDecodes, d)
	}
}
