package loader

import (
	"github.com/lmdbio/lmdbio/internal/schedule"
	"github.com/lmdbio/lmdbio/internal/shm"
)

// Segments the learners map, as Items name them.
const (
	segArena = 0
	segCache = 1
)

// nodeCache is the node's never-evicting cache: a shared-memory segment
// laid out by schedule.PlanCache, and what has been loaded into it. Blocks
// stay where they were first loaded for the life of the loader (CoorDL's
// MinIO policy): later epochs find them without reading storage. It is used
// by the producer goroutine only.
type nodeCache struct {
	seg    *shm.Segment // nil when the cache is off or empty
	buf    []byte
	layout *schedule.Cache
	span   []completion // stored-as-is blocks: the load of each fill span, once issued
	block  []completion // decoded blocks: the decoding of each block, once issued
}

func newNodeCache(layout *schedule.Cache, blocks int, decoded bool) *nodeCache {
	c := &nodeCache{layout: layout}
	if decoded {
		c.block = make([]completion, blocks)
	} else {
		c.span = make([]completion, len(layout.Spans))
	}
	return c
}

// open creates the segment, sized to the layout, with extra bytes after it
// (reserved now: the early exchange receives into them).
func (c *nodeCache) open(job string, extra int64) error {
	if c.layout.Bytes+extra == 0 {
		return nil
	}
	seg, err := shm.CreateUnnamed(job, c.layout.Bytes+extra, true)
	if err != nil {
		return err
	}
	c.seg, c.buf = seg, seg.Bytes()
	if extra > 0 {
		return seg.Reserve(c.layout.Bytes, extra)
	}
	return nil
}

// loaded returns the completion that brings block b into the cache, nil if
// it was never asked for.
func (c *nodeCache) loaded(b int32) completion {
	if c.block != nil {
		return c.block[b]
	}
	return c.span[c.layout.SpanOf[b]]
}

func (c *nodeCache) close() error {
	if c.seg == nil {
		return nil
	}
	return c.seg.Close()
}
