package loader

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// where says where one block's decoded bytes are in shared memory, and what
// brings them there.
type where struct {
	seg  uint32
	off  int64
	done completion
}

// queues are the work the producer hands to the leader's workers.
type queues struct {
	io     chan<- storageRead
	decode chan<- *decode
	xchg   chan<- *exchangeOp
}

// produceScheduled produces the windows of every epoch of a PROV mode from
// the run plan: it lays a window out in the arena, starts the reads and the
// exchange it needs and queues it for the sender.
func (ld *leader) produceScheduled(ctx context.Context, q queues, pending chan<- *window) error {
	p := ld.plan
	no := 0
	for e := p.firstEpoch(); e < ld.opt.Epochs; e++ {
		ep, from, err := p.epoch(e)
		if err != nil {
			return err
		}
		for k, sw := range p.windows(e, ep, from, ld.slot) {
			if ld.stopAgreed() {
				return nil
			}
			w, err := ld.produceWindow(ctx, ep, sw, e, k, no, q)
			if err != nil {
				return err
			}
			no++
			if err := sendCtx(ctx, pending, w); err != nil {
				return err
			}
			if err := ld.waitTurnPassed(ctx, w); err != nil {
				return err
			}
		}
		if err := sendCtx(ctx, pending, &window{epoch: e, endOfEpoch: true}); err != nil {
			return err
		}
	}
	return nil
}

// produceWindow prepares window sw, the k-th of epoch, for this node: it
// takes the window's arena room, starts its loads (cache fills, reads into
// the arena, or reads that make the file resident where learners view
// it), lays out its exchange and its batches' items (placeItems), and
// queues the loads, the decodes and the exchanges.
func (ld *leader) produceWindow(ctx context.Context, ep *assign.Epoch, sw schedule.Window, epoch, k, no int, q queues) (*window, error) {
	p, s := ld.plan, ld.plan.sched
	work := s.Work(ep, sw, ld.node)
	w := newWindow(epoch, no, windowBatches(ep, sw, ld.node), &ld.nextID)
	st := ld.stats.epoch(epoch)

	fills, reads := ld.sortBlocks(work.Blocks)
	spans := ld.planReads(reads, no == 0)
	readRoom := ld.readRoom(reads, spans)
	if ld.view != nil {
		readRoom = 0 // learners view the file: reads land in the page cache
	}
	crosses := s.Crosses(ep, sw)
	xwork := ld.early.trim(epoch, work) // what crosses now
	room := windowRooms(s, w.batches, xwork.Recv, crosses, p.src.Decoder() != nil, readRoom)
	base, err := ld.arena.alloc(ctx, room.total(), room.loaded, w.roomIDs())
	if err != nil {
		return nil, err
	}
	if err := ld.acquire(no)(); err != nil {
		return nil, err
	}
	loc, cachedBefore, err := ld.startLoads(work.Blocks, fills, reads, spans, base, w, q, st, xwork)
	if err != nil {
		return nil, err
	}
	st.cacheHits.Add(sentHits(s, work.Send, cachedBefore))
	var op *exchangeOp
	if crosses {
		op = ld.exchangeOp(xwork, loc, segArena, room.recvAt(base), room.recv, no, st)
	}
	ws := windowSources{loc: loc, recvAt: room.recvAt(base), metaAt: room.metaAt(base), cachedBefore: cachedBefore,
		early: func(pos int32) (int64, completion, bool) { return ld.early.received(epoch, pos) }}
	if crosses {
		ws.recv, ws.xchg = xwork.Recv, op
	}
	st.cacheHits.Add(placeItems(p.records(), w, ws))
	copyMeta(p.records(), w, ld.buf)
	if err := ld.queueWork(ctx, w, q); err != nil {
		return nil, err
	}
	if err := ld.sendEarly(ctx, epoch, k, no, q.xchg); err != nil {
		return nil, err
	}
	if op != nil {
		w.xchg = op
		if err := sendCtx(ctx, q.xchg, op); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// startLoads starts what brings the window's blocks into memory: fills of
// the cache, then reads into the arena from base, or reads that make the
// file resident where learners view it. It returns where every block lies
// and which blocks the cache held before the window.
func (ld *leader) startLoads(blocks, fills, reads []int32, spans []planner.Span, base int64, w *window, q queues,
	st *epochCounters, xwork schedule.Work) (map[int32]where, map[int32]bool, error) {
	p := ld.plan
	loc := make(map[int32]where, len(blocks))
	cachedBefore := make(map[int32]bool)
	for _, b := range blocks {
		if p.cache.Cached(b) && ld.cache.loaded(b) != nil {
			cachedBefore[b] = true
		}
	}
	if err := ld.fill(fills, w, st); err != nil {
		return nil, nil, err
	}
	for _, b := range blocks {
		if p.cache.Cached(b) {
			loc[b] = ld.cached(b)
		}
	}
	if ld.view != nil {
		ld.makeResident(spans, loc, w, st, xwork)
	} else {
		ld.read(reads, spans, base, loc, w, q, st)
	}
	return loc, cachedBefore, nil
}

// queueWork hands the window's loads to the I/O workers and the decodes
// made since the last window to the decoders.
func (ld *leader) queueWork(ctx context.Context, w *window, q queues) error {
	for _, l := range w.loads {
		if err := sendCtx(ctx, q.io, l); err != nil {
			return err
		}
	}
	for _, d := range ld.pendingDecodes {
		if err := sendCtx(ctx, q.decode, d); err != nil {
			return err
		}
	}
	ld.pendingDecodes = ld.pendingDecodes[:0]
	return nil
}

// cached says where cached block b lies in the cache segment and what
// loads it there (nil if nothing was asked to).
func (ld *leader) cached(b int32) where {
	return where{seg: segCache, off: ld.plan.cache.At[b], done: ld.cache.loaded(b)}
}

// sortBlocks splits the node's blocks a window needs into those to fill
// into the cache now (cached, never loaded; with Global and Local the
// whole cache at the first window) and those to read into the arena.
func (ld *leader) sortBlocks(blocks []int32) (fills, reads []int32) {
	p := ld.plan
	if !ld.filledAll && fillsAtOnce(ld.opt.Shuffle) {
		ld.filledAll = true
		for b, at := range p.cache.At {
			if at >= 0 && ld.cache.loaded(int32(b)) == nil {
				fills = append(fills, int32(b))
			}
		}
	}
	for _, b := range blocks {
		switch {
		case !p.cache.Cached(b):
			reads = append(reads, b)
		case ld.cache.loaded(b) == nil && !ld.filledAll:
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
func (ld *leader) readOptions(first bool) planner.Options {
	o := ld.plan.fillOptions()
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
func (ld *leader) planReads(blocks []int32, first bool) []planner.Span {
	if len(blocks) == 0 {
		return nil
	}
	p := ld.plan
	opt := ld.readOptions(first)
	ids := p.pieces.Append(nil, blocks...)
	spans := planner.Plan(p.pieces, ids, opt)
	if p.src.Decoder() != nil {
		return spans
	}
	var budget int64
	for _, b := range blocks {
		budget += p.sched.BlockCost[b]
	}
	if spansBytes(spans) > budget {
		opt.MaxGap = 0
		spans = planner.Plan(p.pieces, ids, opt)
	}
	return spans
}

// readRoom is the arena room the window's reads take: the spans as read,
// or the decoded blocks.
func (ld *leader) readRoom(blocks []int32, spans []planner.Span) int64 {
	if ld.plan.src.Decoder() == nil {
		return spansBytes(spans)
	}
	var n int64
	for _, b := range blocks {
		n += roundUp(ld.plan.src.DecodedLen(int(b)), alignment)
	}
	return n
}

// fill starts loading blocks into the cache, reserving the cache's pages
// as it goes (a shortage is then an error, not a SIGBUS).
func (ld *leader) fill(blocks []int32, w *window, st *epochCounters) error {
	if len(blocks) == 0 {
		return nil
	}
	p, c := ld.plan, ld.cache
	if p.src.Decoder() != nil {
		for _, b := range blocks {
			if err := c.seg.Reserve(p.cache.At[b], roundUp(p.src.DecodedLen(int(b)), alignment)); err != nil {
				return err
			}
		}
		spans := planner.Plan(p.pieces, p.pieces.Append(nil, blocks...), p.fillOptions())
		loads := stagingLoads(ld.rd, spans)
		ld.decodeInto(blocks, loads, c.buf, func(b int32) int64 { return p.cache.At[b] }, func(b int32, d *decode) {
			c.block[b] = d
		}, st)
		addLoads(ld, w, loads, st)
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
		l := &memRead{spanRead: spanRead{signal: newSignal(), rd: ld.rd, span: cs.Span}, dst: c.buf[cs.CacheOff : cs.CacheOff+n], at: cs.CacheOff}
		if !ld.rd.Direct() {
			l.dst = l.dst[:cs.Length]
		}
		c.span[k] = l
		addLoads(ld, w, []*memRead{l}, st)
	}
	return nil
}

// read starts reading blocks into the arena from base and records where
// they land.
func (ld *leader) read(blocks []int32, spans []planner.Span, base int64, loc map[int32]where, w *window, q queues, st *epochCounters) {
	if len(blocks) == 0 {
		return
	}
	p := ld.plan
	if p.src.Decoder() != nil {
		loads := stagingLoads(ld.rd, spans)
		at := make(map[int32]int64, len(blocks))
		next := base
		for _, b := range blocks {
			at[b] = next
			next += roundUp(p.src.DecodedLen(int(b)), alignment)
		}
		ld.decodeInto(blocks, loads, ld.buf, func(b int32) int64 { return at[b] }, func(b int32, d *decode) {
			loc[b] = where{seg: segArena, off: at[b], done: d}
		}, st)
		addLoads(ld, w, loads, st)
		return
	}
	loads, _ := layoutLoads(ld.rd, ld.arena, ld.buf, base, spans)
	for piece, pl := range placements(loads) {
		loc[int32(piece)] = where{seg: segArena, off: pl.offset, done: pl.load}
	}
	addLoads(ld, w, loads, st)
}

// makeResident starts the loads that bring spans into the page cache for
// learners that view the file, and records where their blocks are: in the
// file, at their own offsets. The learners check the blocks they are
// handed where they can (see heads); the node reader checks those that x
// sends to other nodes.
func (ld *leader) makeResident(spans []planner.Span, loc map[int32]where, w *window, st *epochCounters, x schedule.Work) {
	seg := ld.viewSegment()
	var byLearners func(int) bool
	if ld.heads() != nil {
		sent := map[int32]bool{}
		for _, list := range x.Send {
			for _, pos := range list {
				sent[ld.plan.sched.PosBlock[pos]] = true
			}
		}
		byLearners = func(piece int) bool { return !sent[int32(piece)] } // stored as is: a piece is its block
	}
	var loads []*residentRead
	for _, s := range spans {
		l := &residentRead{spanRead: spanRead{signal: newSignal(), rd: ld.rd, span: s}, view: ld.view, hits: &st.cacheHits, byLearners: byLearners}
		for _, pl := range s.Records {
			loc[int32(pl.Record)] = where{seg: seg, off: s.Offset + pl.Offset, done: l}
		}
		loads = append(loads, l)
	}
	addLoads(ld, w, loads, st)
}

// segBytes returns the bytes of a segment as the node reader maps it and,
// for the arena and the cache, the segment to pwrite into (see inbox).
func (ld *leader) segBytes(seg uint32) ([]byte, io.WriterAt) {
	switch {
	case seg == segArena:
		return ld.buf, ld.seg
	case ld.view != nil && seg == ld.viewSegment():
		return ld.view.mem, nil
	case ld.cache.seg == nil:
		return ld.cache.buf, nil
	}
	return ld.cache.buf, ld.cache.seg
}

// addLoads counts loads to the window (its storage turn waits for them)
// and to the epoch's storage bytes, and sets up their checks: the blocks'
// own bytes where the source can check them (each kind of read checks
// what it can: decoded blocks are checked once decoded), then the
// snapshot.
func addLoads[R storageRead](ld *leader, w *window, loads []R, st *epochCounters) {
	v, _ := ld.plan.src.(source.Verifier)
	for _, l := range loads {
		r := l.common()
		r.bytes, r.reads = &st.storageBytes, &st.storageReads
		r.snapshot, r.blocks = ld.guard.check, v
		w.loads = append(w.loads, l)
	}
}

// decodeInto makes the decoding of every block from the staging loads that
// read its pieces, into dst at offset(b); each is handed to set and queued
// after the window's loads.
func (ld *leader) decodeInto(blocks []int32, loads []*stagedRead, dst []byte, offset func(int32) int64, set func(int32, *decode), st *epochCounters) {
	p := ld.plan
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
		ld.pendingDecodes = append(ld.pendingDecodes, d)
	}
}

// exchangeOp lays out an exchange: what this node sends from where, and
// the region it receives into, size bytes at at of segment seg. Its bytes
// count to st's exchange bytes now, as it is laid out, not as they are
// sent: an epoch's exchanges are all laid out before its end reaches the
// learners, and its figures are then complete, while the last sends (to
// other nodes, or early for the next epoch) may still be under way.
func (ld *leader) exchangeOp(work schedule.Work, loc map[int32]where, seg uint32, at, size int64, no int, st *epochCounters) *exchangeOp {
	p, s := ld.plan, ld.plan.sched
	nodes := s.Nodes
	mem, file := ld.segBytes(seg)
	recv := mem[at : at+size]
	op := &exchangeOp{signal: newSignal(), no: no,
		sendCounts: make([]int, nodes),
		recvCounts: make([]int, nodes), recvDispls: make([]int, nodes),
		parts: make([][]sendPart, nodes), recvLens: make([][]int, nodes),
		recv: recv}
	if file != nil {
		op.recvFile, op.recvAt = file, at
	}
	recvOff := 0
	for n := range nodes {
		op.recvDispls[n] = recvOff
		op.sendCounts[n], op.recvCounts[n] = ctlBytes, ctlBytes
		for _, pos := range work.Send[n] {
			rec := int(p.posRecord[pos])
			l := loc[s.PosBlock[pos]]
			seg, _ := ld.segBytes(l.seg)
			at := l.off + p.blockOff[rec]
			op.parts[n] = append(op.parts[n], sendPart{value: seg[at : at+s.PosBytes[pos]], need: l.done})
			op.sendCounts[n] += int(s.PosBytes[pos])
		}
		st.exchangeBytes.Add(int64(op.sendCounts[n] - ctlBytes)) // a node sends itself nothing
		for _, pos := range work.Recv[n] {
			op.recvLens[n] = append(op.recvLens[n], int(s.PosBytes[pos]))
			op.recvCounts[n] += int(s.PosBytes[pos])
		}
		recvOff += op.recvCounts[n]
	}
	if recvOff != len(recv) {
		panic(fmt.Sprintf("loader: exchange receives %d bytes in a region of %d", recvOff, len(recv)))
	}
	return op
}

// epochCounters are one epoch's figures on this node reader.
type epochCounters struct {
	storageBytes  atomic.Int64
	storageReads  atomic.Int64
	exchangeBytes atomic.Int64
	cacheHits     atomic.Int64
	decodedBytes  atomic.Int64
	decodeNanos   atomic.Int64
}
