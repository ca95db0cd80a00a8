package loader

import (
	"github.com/lmdbio/lmdbio/internal/handoff"
)

// batchRef is one learner's batch inside a window.
type batchRef struct {
	local   int     // learner's local rank
	round   int     // step of the epoch
	records []int   // record numbers, in delivery order (cursor modes)
	pos     []int32 // positions, in delivery order (PROV modes)
}

// window is a group of consecutive rounds that the node reader fetches
// together, and what it takes to hand them out: each batch's descriptor
// items, and what must finish before the batch may go.
type window struct {
	epoch, no  int // no counts windows across epochs (the stagger token's number)
	batches    []batchRef
	ids        []uint64 // batch ids, as in the descriptors
	items      [][]handoff.Item
	needs      [][]completion // per batch, the reads, decodes and exchanges it waits for
	loads      []storageRead  // the window's reads from storage
	xchg       *exchangeOp    // the window's exchange, nil for none
	hold       uint64         // holds the window's arena room until its reads and exchange are done
	endOfEpoch bool           // a marker: tell the learners the epoch is over
	released   chan struct{}  // closed once the stagger token was passed on
}

// need records, for batch i, something it waits for, skipping repeats of
// the previous one (records of a batch mostly share reads).
func (w *window) need(i int, c completion) {
	if c == nil {
		return
	}
	if n := len(w.needs[i]); n > 0 && w.needs[i][n-1] == c {
		return
	}
	w.needs[i] = append(w.needs[i], c)
}

// newWindow prepares the bookkeeping of a window of batches.
func newWindow(epoch, no int, batches []batchRef, nextID *uint64) *window {
	w := &window{epoch: epoch, no: no, batches: batches, released: make(chan struct{})}
	w.ids = make([]uint64, len(batches))
	for j := range w.ids {
		*nextID++
		w.ids[j] = *nextID
	}
	w.items, w.needs = make([][]handoff.Item, len(batches)), make([][]completion, len(batches))
	*nextID++
	w.hold = *nextID
	return w
}

// roomIDs are the ids that hold the window's arena room: every batch's,
// released by its learner, and the window's own, released once nothing
// writes to the room or reads from it for other nodes any more (a batch
// may be released before a read of bytes it does not use is done).
func (w *window) roomIDs() []uint64 { return append(w.ids[:len(w.ids):len(w.ids)], w.hold) }
