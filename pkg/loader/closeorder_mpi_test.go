package loader_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// TestMPICloseOrder: every rank opens two loaders; the node leaders close
// the first while their learners close the second and then wait for the
// leaders (as a training loop's barrier would). The leaders' Close gives
// up after its timeout with an error that names the loader and the
// learners it waited for, and says how to close; nothing is left in
// /dev/shm.
func TestMPICloseOrder(t *testing.T) {
	small := int64(0)
	if job.LocalSize < 2 {
		small = 1
	}
	for _, f := range allgatherInts([]int64{small}) { // every rank skips, or none
		if f[0] != 0 {
			t.Skip("needs 2 ranks on every node")
		}
	}
	fx := makeFixture(t, "fewkb", fewKBDB)
	defer loader.SetCloseTimeout(2 * time.Second)()
	defer watchdog(t.Name(), time.Minute)()
	opt := loader.Options{Batch: 5, Remainder: assign.Keep, Topology: job, Index: index.LoadOptions{NoCache: true}}
	a, err := loader.Open(fx.Dir, opt)
	if !agree(t, err == nil, "open the first loader") {
		t.Fatal(err)
	}
	b, err := loader.Open(fx.Dir, opt)
	if !agree(t, err == nil, "open the second loader") {
		_ = a.Close()
		t.Fatal(err)
	}
	ok := true
	if job.Leader() {
		err := a.Close()
		for _, want := range []string{"closing loader ", "still connected: local rank 1 (pid ", "in the same order"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("the leader's Close of the first loader while its learners close the second: %v, want an error saying %q", err, want)
				ok = false
			}
		}
		must(job.World.Barrier())
		if err := b.Close(); err != nil {
			t.Errorf("the leader's Close of the second loader: %v", err)
			ok = false
		}
	} else {
		if err := b.Close(); err != nil {
			t.Errorf("a learner's Close of the second loader: %v", err)
			ok = false
		}
		must(job.World.Barrier())
		_ = a.Close() // its node reader has gone: an error or none
	}
	agree(t, ok, "close in another order")
	checkNoSegments(t)
}
