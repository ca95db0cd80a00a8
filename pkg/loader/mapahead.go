package loader

// mapAhead maps a learner's view of the node cache in the background.
// When the order changes every epoch, a learner gets other records of its
// node's cache each epoch and would fault the pages of each in as it first
// touches them. Mapped while the cache fills (an epoch that waits for
// storage), the pages are there when a later epoch needs them. The cost is
// a learner's page table for the whole cache (1/512 of its size) at once
// rather than over the epochs (bounded: see mapsAhead), and pages not yet
// filled are allocated a little earlier than the node reader would (it
// reserves the cache's memory up front anyway). It runs at the lowest
// priority, on what the cores leave over, so that it slows the filling
// epoch little (docs/decisions/0012-map-cache-ahead.md).
type mapAhead struct {
	stop, done chan struct{}
}

// mapStep is how much mapAhead maps at a time: small enough that Close
// stops it promptly, and that the learner's own threads never wait long
// for the lock on its memory map that populating holds.
const mapStep = 1 << 20

// startMapAhead maps mem in the background until all of it is mapped, the
// kernel cannot (populate fails: then faults do it as before), or stop.
func startMapAhead(mem []byte) *mapAhead {
	m := &mapAhead{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		idle()
		for off := int64(0); off < int64(len(mem)); off += mapStep {
			select {
			case <-m.stop:
				return
			default:
			}
			if !populate(mem, off, min(off+mapStep, int64(len(mem)))) {
				return
			}
		}
	}()
	return m
}

// close stops the mapping and waits for it: the memory may be unmapped
// after.
func (m *mapAhead) close() {
	if m == nil {
		return
	}
	close(m.stop)
	<-m.done
}
