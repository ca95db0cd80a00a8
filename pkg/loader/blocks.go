package loader

import (
	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/internal/source"
)

// blockLoader brings the blocks of the index producer's windows into
// memory. There is one implementation per way a block gets there, chosen
// once when the node readers have agreed how learners read the file (see
// indexProducer.join):
//
//   - storedBlocks: blocks stored as is are read into the arena or the
//     cache, where the learners see them (memRead);
//   - decodedBlocks: blocks the source must decode (compressed HDF5
//     chunks) are read into staging buffers and decoded into the arena or
//     the cache (stagedRead, then decode);
//   - viewedBlocks: blocks stored as is are only brought into the page
//     cache, for learners that view the data file (residentRead).
type blockLoader interface {
	// planReads plans the reads of blocks into the arena; the first
	// window's reads are small (see firstSpan).
	planReads(blocks []int32, first bool) []planner.Span
	// room is the arena room the reads of blocks as spans take, and the
	// part of it that the reads reserve page by page themselves.
	room(blocks []int32, spans []planner.Span) (read, loaded int64)
	// fill starts loading blocks into the cache, reserving the cache's
	// pages as it goes (a shortage is then an error, not a SIGBUS).
	fill(blocks []int32, w *window, st *epochCounters) error
	// read starts the reads of blocks, planned as spans, into the arena
	// from base, and records in loc where each block lies. x is the
	// window's exchange: what it sends to other nodes.
	read(blocks []int32, spans []planner.Span, base int64, loc map[int32]where, w *window, st *epochCounters, x schedule.Work)
}

// newBlockLoader chooses how the producer's blocks reach memory.
func newBlockLoader(ix *indexProducer) blockLoader {
	switch {
	case ix.plan.src.Decoder() != nil:
		return decodedBlocks{ix}
	case ix.view != nil:
		return viewedBlocks{storedBlocks{ix}}
	}
	return storedBlocks{ix}
}

// planSpans plans the reads of blocks with the window's read options.
func (ix *indexProducer) planSpans(blocks []int32, first bool) ([]planner.Span, []int, planner.Options) {
	p := ix.plan
	opt := ix.readOptions(first)
	ids := p.pieces.Append(nil, blocks...)
	return planner.Plan(p.pieces, ids, opt), ids, opt
}

// storedBlocks reads blocks stored as is where the learners see them.
type storedBlocks struct{ ix *indexProducer }

// planReads: blocks are read where the learners see them, so gaps read
// through take arena room; if they would take more than the window was
// cut for, the gaps are not read.
func (s storedBlocks) planReads(blocks []int32, first bool) []planner.Span {
	if len(blocks) == 0 {
		return nil
	}
	p := s.ix.plan
	spans, ids, opt := s.ix.planSpans(blocks, first)
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

// room: the spans as read, each reserving its own pages.
func (s storedBlocks) room(_ []int32, spans []planner.Span) (read, loaded int64) {
	n := spansBytes(spans)
	return n, n
}

// fill reads each cache span holding blocks once.
func (s storedBlocks) fill(blocks []int32, w *window, st *epochCounters) error {
	ix := s.ix
	p, c := ix.plan, ix.cache
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

func (s storedBlocks) read(blocks []int32, spans []planner.Span, base int64, loc map[int32]where, w *window, st *epochCounters, _ schedule.Work) {
	if len(blocks) == 0 {
		return
	}
	ix := s.ix
	loads, _ := layoutLoads(ix.rd, ix.arena, ix.buf, base, spans)
	for piece, pl := range placements(loads) {
		loc[int32(piece)] = where{seg: segArena, off: pl.offset, done: pl.load}
	}
	addLoads(ix, w, loads, st)
}

// viewedBlocks brings blocks stored as is into the page cache for learners
// that view the file. The node keeps no cache of its own then (see
// cacheCapacity): fills, if any, are those of storedBlocks.
type viewedBlocks struct{ storedBlocks }

// room: reads land in the page cache, not in the arena.
func (viewedBlocks) room([]int32, []planner.Span) (read, loaded int64) { return 0, 0 }

// read starts the loads that bring spans into the page cache, and records
// where their blocks are: in the file, at their own offsets. The learners
// check the blocks they are handed where they can (see heads); the node
// reader checks those that x sends to other nodes.
func (s viewedBlocks) read(blocks []int32, spans []planner.Span, _ int64, loc map[int32]where, w *window, st *epochCounters, x schedule.Work) {
	ix := s.ix
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

// decodedBlocks reads the pieces of blocks the source decodes into staging
// buffers, and decodes each block into the arena or the cache.
type decodedBlocks struct{ ix *indexProducer }

// planReads: the staging buffers take no arena room, so gaps are read
// through as the options allow.
func (d decodedBlocks) planReads(blocks []int32, first bool) []planner.Span {
	if len(blocks) == 0 {
		return nil
	}
	spans, _, _ := d.ix.planSpans(blocks, first)
	return spans
}

// room: the decoded blocks, which the decodes write from memory.
func (d decodedBlocks) room(blocks []int32, _ []planner.Span) (read, loaded int64) {
	for _, b := range blocks {
		read += roundUp(d.ix.plan.src.DecodedLen(int(b)), alignment)
	}
	return read, 0
}

func (d decodedBlocks) fill(blocks []int32, w *window, st *epochCounters) error {
	if len(blocks) == 0 {
		return nil
	}
	ix := d.ix
	p, c := ix.plan, ix.cache
	for _, b := range blocks {
		if err := c.seg.Reserve(p.cache.At[b], roundUp(p.src.DecodedLen(int(b)), alignment)); err != nil {
			return err
		}
	}
	spans := planner.Plan(p.pieces, p.pieces.Append(nil, blocks...), p.fillOptions())
	loads := stagingLoads(ix.rd, spans)
	d.decodeInto(blocks, loads, c.buf, func(b int32) int64 { return p.cache.At[b] }, func(b int32, dec *decode) {
		c.block[b] = dec
	}, st)
	addLoads(ix, w, loads, st)
	return nil
}

func (d decodedBlocks) read(blocks []int32, spans []planner.Span, base int64, loc map[int32]where, w *window, st *epochCounters, _ schedule.Work) {
	if len(blocks) == 0 {
		return
	}
	ix := d.ix
	loads := stagingLoads(ix.rd, spans)
	at := make(map[int32]int64, len(blocks))
	next := base
	for _, b := range blocks {
		at[b] = next
		next += roundUp(ix.plan.src.DecodedLen(int(b)), alignment)
	}
	d.decodeInto(blocks, loads, ix.buf, func(b int32) int64 { return at[b] }, func(b int32, dec *decode) {
		loc[b] = where{seg: segArena, off: at[b], done: dec}
	}, st)
	addLoads(ix, w, loads, st)
}

// decodeInto makes the decoding of every block from the staging loads that
// read its pieces, into dst at offset(b); each is handed to set and queued
// after the window's loads.
func (d decodedBlocks) decodeInto(blocks []int32, loads []*stagedRead, dst []byte, offset func(int32) int64, set func(int32, *decode), st *epochCounters) {
	ix := d.ix
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
		dec := &decode{signal: newSignal(), block: b, dec: p.src.Decoder(), verify: verify, parts: parts[b], dst: dst[off : off+n : off+n], st: st}
		set(b, dec)
		ix.pendingDecodes = append(ix.pendingDecodes, dec)
	}
}
