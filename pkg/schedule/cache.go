package schedule

import (
	"github.com/lmdbio/lmdbio/pkg/planner"
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
	c := &Cache{At: make([]int64, blocks)}
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
				return c
			}
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
			c.Bytes += room
		}
	}
	return c
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
