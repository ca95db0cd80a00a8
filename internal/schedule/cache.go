package schedule

import (
	"github.com/lmdbio/lmdbio/internal/planner"
)

// Cache is one node's cache layout: which of its blocks it keeps and where
// they lie in its cache segment. It is a pure function of the node's blocks
// in fill order, their pieces, the planner's options and the capacity, so
// every node can compute it for every other node.
type Cache struct {
	// Spans are the fill reads of a cache of blocks stored as is, in fill
	// order; nil for decoded blocks, which are planned when filled.
	Spans []CacheSpan
	// At maps a block to its offset in the cache, -1 when it is not cached:
	// for stored-as-is blocks, where its first piece's bytes land; for
	// decoded blocks, where its decoded bytes start.
	At []int64
	// SpanOf maps a cached stored-as-is block to its fill span.
	SpanOf []int32
	// Bytes is the room the cache uses, at most the capacity.
	Bytes int64
	align int64
}

// Cached reports whether block b is in the cache.
func (c *Cache) Cached(b int32) bool { return c.At[b] >= 0 }

// CacheSpan is one fill read: a planned span of pieces landing at CacheOff.
type CacheSpan struct {
	planner.Span
	CacheOff int64
	Blocks   []int32
}

// PlanCache lays out a node's cache. groups are the node's blocks in fill
// order, in groups read together (a shuffle chunk, or the whole share);
// inside a group the reads go in file order. decoded gives a block's
// decoded length, or is nil when blocks are stored as is: then the cache
// holds the spans' bytes as read (with the gaps the planner reads through),
// else the decoded blocks. Whole spans (stored) or blocks (decoded) are kept
// while they fit in capacity; align is the alignment of every piece of room.
// blocks is the number of blocks of the source.
func PlanCache(blocks int, groups [][]int32, pc *Pieces, decoded func(b int32) int64, opt planner.Options, align, capacity int64) *Cache {
	c := &Cache{At: make([]int64, blocks), align: align}
	for i := range c.At {
		c.At[i] = -1
	}
	if decoded == nil {
		c.SpanOf = make([]int32, blocks)
	}
	if capacity <= 0 {
		return c
	}
	if decoded != nil {
		for _, g := range groups {
			for _, b := range g {
				room := roundUp(decoded(b), align)
				if c.Bytes+room > capacity {
					return c
				}
				c.At[b] = c.Bytes
				c.Bytes += room
			}
		}
		return c
	}
	var ids []int
	for _, g := range groups {
		ids = pc.Append(ids[:0], g...)
		for _, s := range planner.Plan(pc, ids, opt) {
			room := roundUp(s.Length, align)
			if c.Bytes+room > capacity {
				// Keep the leading pieces of the span that still fit.
				if s, ok := prefix(s, capacity-c.Bytes, opt.Align, align); ok {
					c.addSpan(pc, s)
				}
				return c
			}
			c.addSpan(pc, s)
		}
	}
	return c
}

// addSpan adds a fill span at the end of the cache.
func (c *Cache) addSpan(pc *Pieces, s planner.Span) {
	cs := CacheSpan{Span: s, CacheOff: c.Bytes}
	for _, pl := range s.Records {
		b := pieceBlock(pc, int32(pl.Record))
		if c.At[b] < 0 {
			cs.Blocks = append(cs.Blocks, b)
			c.At[b] = c.Bytes + pl.Offset
			c.SpanOf[b] = int32(len(c.Spans))
		}
	}
	c.Spans = append(c.Spans, cs)
	c.Bytes += roundUp(s.Length, c.align)
}

// prefix cuts span s after the last piece that ends within room bytes (the
// span's end rounded up to the read's alignment, and its room to the
// cache's); false if not even the first piece fits.
func prefix(s planner.Span, room, align, roomAlign int64) (planner.Span, bool) {
	end := 0
	for i, pl := range s.Records {
		if roundUp(roundUp(pl.Offset+pl.Length, max(align, 1)), roomAlign) > room {
			break
		}
		end = i + 1
	}
	if end == 0 {
		return s, false
	}
	// Pieces that overlap the kept ones (a record inside another's bytes)
	// stay with them: the span keeps everything up to its new end.
	last := int64(0)
	for _, pl := range s.Records[:end] {
		last = max(last, pl.Offset+pl.Length)
	}
	s.Records = s.Records[:end]
	s.Length = roundUp(last, max(align, 1))
	return s, true
}

// pieceBlock is the block of piece i, for stored-as-is blocks (one piece
// each).
func pieceBlock(pc *Pieces, i int32) int32 {
	if pc.First != nil {
		panic("schedule: stored-as-is cache with multi-piece blocks")
	}
	return i
}

func roundUp(n, to int64) int64 {
	if to <= 1 {
		return n
	}
	return (n + to - 1) / to * to
}
