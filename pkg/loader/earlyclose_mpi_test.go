package loader_test

import (
	"fmt"
	"testing"
)

// TestMPIEarlyClose: every learner stops after a few batches of the first
// epoch, as training that reaches its last iteration mid-epoch does, and
// closes. Close must return on every rank, with no error and nothing left
// in /dev/shm, while node readers are still ahead of the learners, blocked
// on a full arena or waiting for their turn on storage.
func TestMPIEarlyClose(t *testing.T) {
	fx := makeFixture(t, "fewkb", fewKBDB)
	for _, name := range modes(t, false) {
		mode := mustMode(t, name)
		for _, stop := range []int{1, 7} {
			t.Run(fmt.Sprintf("%s/after=%d", name, stop), func(t *testing.T) {
				opt := smallArena(mode, false)
				opt.Stagger = 1 // on several nodes, readers take turns and must wind down
				readAll(t, fx, opt, reading{stop: stop})
			})
		}
	}
}
