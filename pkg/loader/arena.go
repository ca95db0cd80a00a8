package loader

import (
	"context"
	"fmt"
	"sync"
)

// arena hands out regions of the shared-memory buffer to windows, first in
// first out, like a ring: a window's region is freed once every batch placed
// in it has been released by its learner, and regions are reclaimed in the
// order they were handed out. Alloc blocks while the arena is full; that is
// the backpressure that keeps the reader a bounded distance ahead.
//
// Positions are monotonic byte counts; a region's offset in the buffer is its
// position modulo size, and no region wraps around the end.
type arena struct {
	size int64

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever space is freed
	head    int64         // position where the next region starts
	tail    int64         // everything before it is free
	regions []*region     // handed out, oldest first
	byBatch map[uint64]*region
}

type region struct {
	start, end int64 // monotonic positions
	pending    int   // batches placed in it and not yet released
}

func newArena(size int64) *arena {
	return &arena{size: size, changed: make(chan struct{}), byBatch: map[uint64]*region{}}
}

// alloc reserves n bytes aligned to alignment for the batches listed, and
// returns their offset in the buffer. It waits for releases while the arena
// is full.
func (a *arena) alloc(ctx context.Context, n int64, batches []uint64) (int64, error) {
	n = roundUp(n, alignment)
	if n > a.size {
		return 0, fmt.Errorf("a window needs %d bytes but the arena has %d", n, a.size)
	}
	for {
		a.mu.Lock()
		start := roundUp(a.head, alignment)
		if start%a.size+n > a.size { // would wrap: skip to the buffer's start
			start = roundUp(start, a.size)
		}
		if len(a.regions) == 0 {
			a.tail = start // nothing lives in the arena: the skipped bytes are free too
		}
		if start+n-a.tail <= a.size {
			r := &region{start: start, end: start + n, pending: len(batches)}
			a.head = r.end
			for _, id := range batches {
				a.byBatch[id] = r
			}
			if len(batches) == 0 {
				r.pending = 0
			}
			a.regions = append(a.regions, r)
			a.reclaim()
			a.mu.Unlock()
			return start % a.size, nil
		}
		wait := a.changed
		a.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// release marks batch id as done with; it frees its region when that was the
// region's last batch and every older region is free too.
func (a *arena) release(id uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.byBatch[id]
	if !ok {
		return fmt.Errorf("release of unknown batch %d", id)
	}
	delete(a.byBatch, id)
	r.pending--
	a.reclaim()
	return nil
}

// reclaim frees regions from the oldest while they have no pending batch.
func (a *arena) reclaim() {
	freed := false
	for len(a.regions) > 0 && a.regions[0].pending == 0 {
		a.tail = a.regions[0].end
		a.regions = a.regions[1:]
		freed = true
	}
	if freed {
		close(a.changed)
		a.changed = make(chan struct{})
	}
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }
