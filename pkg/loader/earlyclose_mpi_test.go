package loader_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/loader"
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

// TestMPIFailAfterConnect: the last node fails at the end of Open, when the
// node readers of the others, their learners attached, are already reading
// (with staggering on, one waits for the failed node's turn). Every rank
// gets an error, none hangs, and nothing is left in /dev/shm.
func TestMPIFailAfterConnect(t *testing.T) {
	if job.Nodes < 2 {
		t.Skip("needs 2 nodes")
	}
	fx := makeFixture(t, "fewkb", fewKBDB)
	for _, name := range modes(t, true) {
		for _, stagger := range []int{1, loader.DefaultStagger} {
			t.Run(fmt.Sprintf("%s/stagger=%d", name, stagger), func(t *testing.T) {
				restore := loader.FailConnected(job.Nodes - 1)
				defer restore()
				opt := smallArena(mustMode(t, name), false)
				opt.Topology, opt.Stagger = job, stagger
				stop := watchdog(t.Name(), time.Minute)
				ld, err := loader.Open(fx.Dir, opt)
				stop()
				if ld != nil {
					t.Errorf("Open returned a Loader (error %v)", err)
					_ = ld.Close()
				}
				agree(t, err != nil, "Open with a node failing")
				checkNoSegments(t)
			})
		}
	}
}
