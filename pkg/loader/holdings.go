package loader

import (
	"fmt"
	"sync"
)

// holdings tracks which batches each learner of the node holds (sent, not
// yet released) and which learners have closed. When a learner closes
// before the end, the batches it still held and every batch meant for it
// later go back to the arena at once, so the node's other learners are not
// starved of arena room.
type holdings struct {
	mu     sync.Mutex
	held   []map[uint64]struct{}
	closed []bool
}

func newHoldings(learners int) *holdings {
	h := &holdings{held: make([]map[uint64]struct{}, learners), closed: make([]bool, learners)}
	for i := range h.held {
		h.held[i] = map[uint64]struct{}{}
	}
	return h
}

// give records that batch id goes to learner local. It returns false when
// that learner has closed: the batch is not to be sent, and the caller
// returns its room to the arena.
func (h *holdings) give(local int, id uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed[local] {
		return false
	}
	h.held[local][id] = struct{}{}
	return true
}

// take records that learner local released batch id, and reports whether
// its room is now to be returned. A batch of a closed learner was returned
// already (its Release and its Bye travel on different channels, so they
// may come in either order); one the learner never held is an error.
func (h *holdings) take(local int, id uint64) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.held[local][id]; ok {
		delete(h.held[local], id)
		return true, nil
	}
	if h.closed[local] {
		return false, nil
	}
	return false, fmt.Errorf("learner %d released batch %d, which it does not hold", local, id)
}

// close marks learner local closed and returns the batches it still held.
func (h *holdings) close(local int) []uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed[local] = true
	var ids []uint64
	for id := range h.held[local] {
		ids = append(ids, id)
	}
	clear(h.held[local])
	return ids
}
