package loader

import (
	"context"
	"os"
	"sync/atomic"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/pkg/assign"
)

// where says where one block's decoded bytes are in shared memory, and what
// brings them there.
type where struct {
	seg  uint32
	off  int64
	done completion
}

// indexProducer makes the windows of the index modes (lmm+dio+prov and
// later): the index says where every record lies, so a window's reads are
// planned ahead and coalesced, blocks the node owns are kept in its cache
// for later epochs, and records cross between nodes in exchanges.
type indexProducer struct {
	*nodeParts
	plan     *runPlan
	learners int   // this node's
	readers  int   // node readers on this host, who share its memory
	slot     int64 // arena bytes per window
	cache    *nodeCache
	blocks   blockLoader // how blocks reach memory; chosen in join
	early    *early      // nil without an early exchange
	nextID   uint64

	filledAll      bool // the whole cache was filled at the first window
	pendingDecodes []*decode
	// the epoch production is in (epochWindows): its assignment and its
	// windows
	ep   *assign.Epoch
	wins []schedule.Window
}

func newIndexProducer(parts *nodeParts, plan *runPlan, learners, readers int) *indexProducer {
	return &indexProducer{nodeParts: parts, plan: plan, learners: learners, readers: readers}
}

// join lays out every node's cache from the agreed capacities; where
// records cross between nodes it opens the exchange and plans the early
// exchanges from the nodes' spare memory.
func (ix *indexProducer) join(capacities, spare []int64, openExchange func() error) error {
	ix.blocks = newBlockLoader(ix)
	ix.plan.setCaches(capacities)
	ix.cache = newNodeCache(ix.plan.cache, ix.ds.src.Blocks(), ix.ds.src.Decoder() != nil)
	if !ix.exchanges() {
		return nil
	}
	if err := openExchange(); err != nil {
		return err
	}
	return ix.planEarly(spare)
}

// exchanges reports whether records may cross between nodes: with the
// world-independent shuffles on more than one node.
func (ix *indexProducer) exchanges() bool {
	return ix.plan.layout.Nodes > 1 && !ix.plan.layout.Local
}

// arenaBytes is the shared memory of the arena: Prefetch windows being read
// ahead plus the one the learners consume.
func (ix *indexProducer) arenaBytes() int64 {
	return int64(ix.opt.Prefetch+1)*roundUp(ix.slot+alignment, alignment) + alignment
}

// attach makes the cache's segment, with room after it for the records
// received early.
func (ix *indexProducer) attach(job string) error { return ix.cache.open(job, ix.early.room()) }

func (ix *indexProducer) segments() []*os.File {
	if ix.cache != nil && ix.cache.seg != nil {
		return []*os.File{ix.cache.seg.File()}
	}
	return nil
}

// viewSegment is the segment number of the data file for the learners:
// after the arena and the producer's segments.
func (ix *indexProducer) viewSegment() uint32 { return uint32(1 + len(ix.segments())) }

func (ix *indexProducer) configure(c *runConfig) {
	p := ix.plan
	c.Direct = ix.rd != nil && ix.rd.Direct()
	c.MapCache = ix.mapsAhead()
	c.FirstRounds = p.first.ep.Rounds() - p.first.from
	c.Rounds, _ = p.batching.Rounds(p.n) // it built the first epoch: no error
	if r := p.resume; r != nil {
		c.FirstEpoch, c.FirstDone = r.Epoch, r.GlobalBatches
	}
}

func (ix *indexProducer) firstEpoch() int { return ix.plan.firstEpoch() }

func (ix *indexProducer) epochWindows(e int) (int, error) {
	ep, from, err := ix.plan.epoch(e)
	if err != nil {
		return 0, err
	}
	ix.ep, ix.wins = ep, ix.plan.windows(e, ep, from, ix.slot)
	return len(ix.wins), nil
}

func (ix *indexProducer) window(ctx context.Context, e, k, no int, acquire func() error, q queues) (*window, error) {
	return ix.produceWindow(ctx, ix.ep, ix.wins[k], e, k, no, acquire, q)
}

func (ix *indexProducer) turns() int { return ix.plan.turns(ix.slot) }

func (ix *indexProducer) readStats() reader.Stats { return ix.rd.Stats() }

func (ix *indexProducer) close(keepMemory bool) error {
	if keepMemory || ix.cache == nil {
		return nil
	}
	return ix.cache.close()
}

// produceWindow prepares window sw, the k-th of epoch, for this node: it
// takes the window's arena room, starts its loads (cache fills, reads into
// the arena, or reads that make the file resident where learners view
// it), lays out its exchange and its batches' items (placeItems), and
// queues the loads, the decodes and the exchanges.
func (ix *indexProducer) produceWindow(ctx context.Context, ep *assign.Epoch, sw schedule.Window, epoch, k, no int, acquire func() error, q queues) (*window, error) {
	p, s := ix.plan, ix.plan.layout
	work := s.Work(ep, sw, ix.node)
	w := newWindow(epoch, no, windowBatches(ep, sw, ix.node), &ix.nextID)
	st := ix.stats.epoch(epoch)

	fills, reads := ix.sortBlocks(work.Blocks)
	spans := ix.blocks.planReads(reads, no == 0)
	read, loaded := ix.blocks.room(reads, spans)
	crosses := s.Crosses(ep, sw)
	xwork := ix.early.trim(epoch, work) // what crosses now
	room := windowRooms(s, w.batches, xwork.Recv, crosses, read, loaded)
	base, err := ix.arena.alloc(ctx, room.total(), room.loaded, w.roomIDs())
	if err != nil {
		return nil, err
	}
	if err := acquire(); err != nil {
		return nil, err
	}
	loc, cachedBefore, err := ix.startLoads(work.Blocks, fills, reads, spans, base, w, st, xwork)
	if err != nil {
		return nil, err
	}
	st.cacheHits.Add(sentHits(s, work.Send, cachedBefore))
	var op *exchangeOp
	if crosses {
		op = ix.exchangeOp(xwork, loc, segArena, room.recvAt(base), room.recv, no, st)
	}
	ws := windowSources{loc: loc, recvAt: room.recvAt(base), metaAt: room.metaAt(base), cachedBefore: cachedBefore,
		early: ix.earlyPlaces(epoch)}
	if crosses {
		ws.recv, ws.xchg = xwork.Recv, exchanged{op}
	}
	st.cacheHits.Add(placeItems(p.records(), w, ws))
	copyMeta(p.records(), w, ix.buf)
	if err := ix.queueWork(ctx, w, q); err != nil {
		return nil, err
	}
	if err := ix.sendEarly(ctx, epoch, k, no, q.xchg); err != nil {
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
func (ix *indexProducer) startLoads(blocks, fills, reads []int32, spans []planner.Span, base int64, w *window,
	st *epochCounters, xwork schedule.Work) (map[int32]where, map[int32]bool, error) {
	p := ix.plan
	loc := make(map[int32]where, len(blocks))
	cachedBefore := make(map[int32]bool)
	for _, b := range blocks {
		if p.cache.Cached(b) && ix.cache.loaded(b) != nil {
			cachedBefore[b] = true
		}
	}
	if err := ix.blocks.fill(fills, w, st); err != nil {
		return nil, nil, err
	}
	for _, b := range blocks {
		if p.cache.Cached(b) {
			loc[b] = ix.cached(b)
		}
	}
	ix.blocks.read(reads, spans, base, loc, w, st, xwork)
	return loc, cachedBefore, nil
}

// queueWork hands the window's loads to the I/O workers and the decodes
// made since the last window to the decoders.
func (ix *indexProducer) queueWork(ctx context.Context, w *window, q queues) error {
	for _, l := range w.loads {
		if err := sendCtx(ctx, q.io, l); err != nil {
			return err
		}
	}
	for _, d := range ix.pendingDecodes {
		if err := sendCtx(ctx, q.decode, d); err != nil {
			return err
		}
	}
	ix.pendingDecodes = ix.pendingDecodes[:0]
	return nil
}

// cached says where cached block b lies in the cache segment and what
// loads it there (nil if nothing was asked to).
func (ix *indexProducer) cached(b int32) where {
	return where{seg: segCache, off: ix.plan.cache.At[b], done: ix.cache.loaded(b)}
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

// earlyPlaces says where a record of epoch that came in an early exchange
// lies, and the exchange that brought it as a completion.
func (ix *indexProducer) earlyPlaces(epoch int) func(pos int32) (int64, completion, bool) {
	return func(pos int32) (int64, completion, bool) {
		off, op, ok := ix.early.received(epoch, pos)
		if !ok {
			return 0, nil, false
		}
		return off, exchanged{op}, true
	}
}
