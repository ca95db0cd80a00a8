package loader

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// arena hands out regions of the shared-memory buffer to windows: a
// window's region is freed once every batch placed in it has been released
// by its learner and the window's own hold is released. Alloc blocks while
// no gap is large enough; that is the backpressure that keeps the reader a
// bounded distance ahead.
//
// A region goes at the lowest offset where it fits, so the windows in
// flight keep to pages the node reader and the learners have touched
// rather than sweeping the buffer as a ring would: a first touch is dear
// (docs/decisions/0008-arena-placement.md).
type arena struct {
	size int64
	// reserve, when set, allocates the buffer's pages [off, off+n) before
	// their first use: the buffer is made without its pages, so that a
	// run that uses little of it (learners that view the file place only
	// keys and received records there) does not pay up front for all of
	// it, and a shortage of shared memory is still an error, not a SIGBUS.
	reserve func(off, n int64) error
	// reserved has a bit per page of the buffer, set once the page is
	// reserved: reserving a page again costs more than the first time
	// (docs/decisions/0008-arena-placement.md).
	resMu    sync.Mutex
	reserved []uint64

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever space is freed
	regions []*region     // handed out, by offset
	byBatch map[uint64]*region
}

type region struct {
	start, end int64 // offsets in the buffer
	pending    int   // batches placed in it and not yet released
}

func newArena(size int64) *arena {
	return &arena{size: size, changed: make(chan struct{}), byBatch: map[uint64]*region{}}
}

// alloc reserves n bytes aligned to alignment for the batches listed, and
// returns their offset in the buffer. It waits for releases while the arena
// has no gap of n bytes. The region's first loaded bytes are filled by
// loads that reserve their own pages (ensure) just before they read into
// them: a window's first read then goes out at once instead of after all
// of the window's pages are reserved (docs/decisions/0008-arena-placement.md).
func (a *arena) alloc(ctx context.Context, n, loaded int64, batches []uint64) (int64, error) {
	n = roundUp(n, alignment)
	if n > a.size {
		return 0, fmt.Errorf("a window needs %d bytes but the arena has %d", n, a.size)
	}
	if len(batches) == 0 {
		return 0, fmt.Errorf("a region of the arena for no batch would never be freed")
	}
	for {
		a.mu.Lock()
		if i, at, ok := a.gap(n); ok {
			if err := a.ensure(at+loaded, n-loaded); err != nil {
				a.mu.Unlock()
				return 0, err
			}
			r := &region{start: at, end: at + n, pending: len(batches)}
			a.regions = slices.Insert(a.regions, i, r)
			for _, id := range batches {
				a.byBatch[id] = r
			}
			a.mu.Unlock()
			return at, nil
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

// ensure reserves the pages of bytes [off, off+n) of the buffer that are
// not reserved yet. Regions go as low as they fit, so the reserved part
// stays as small as the windows in flight allow.
func (a *arena) ensure(off, n int64) error {
	if a.reserve == nil || n <= 0 {
		return nil
	}
	a.resMu.Lock()
	defer a.resMu.Unlock()
	if a.reserved == nil {
		a.reserved = make([]uint64, (a.size/alignment+63)/64+1)
	}
	isSet := func(p int64) bool { return a.reserved[p/64]&(1<<(p%64)) != 0 }
	end := (off + n + alignment - 1) / alignment
	for p := off / alignment; p < end; {
		if isSet(p) {
			p++
			continue
		}
		q := p + 1
		for q < end && !isSet(q) {
			q++
		}
		if err := a.reserve(p*alignment, (q-p)*alignment); err != nil {
			return err
		}
		for ; p < q; p++ {
			a.reserved[p/64] |= 1 << (p % 64)
		}
	}
	return nil
}

// gap finds the lowest offset with n free bytes, and the index in regions
// a region there takes.
func (a *arena) gap(n int64) (i int, at int64, ok bool) {
	for i, r := range a.regions {
		if r.start-at >= n {
			return i, at, true
		}
		at = r.end
	}
	return len(a.regions), at, a.size-at >= n
}

// release marks batch id as done with; the last batch of a region frees it.
func (a *arena) release(id uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.byBatch[id]
	if !ok {
		return fmt.Errorf("release of unknown batch %d", id)
	}
	delete(a.byBatch, id)
	if r.pending--; r.pending > 0 {
		return nil
	}
	a.regions = slices.DeleteFunc(a.regions, func(x *region) bool { return x == r })
	close(a.changed)
	a.changed = make(chan struct{})
	return nil
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }
