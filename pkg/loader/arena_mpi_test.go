package loader_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// fewKBDB has values of a few KB, inline and in overflow pages (about 2.6 MB),
// for reading through an arena much smaller than the dataset.
var fewKBDB = lmdbtest.Gen{Seed: 2, Records: 1000, KeyLen: 24, SmallMax: 1800,
	BigEvery: 2, BigMin: 2100, BigMax: 6000, Txns: 5}

// smallArena makes the node reader cycle through a small arena many times
// per epoch and wait for learners to release batches (backpressure).
func smallArena(mode loader.Mode, direct bool) loader.Options {
	return loader.Options{Mode: mode, Batch: 5, Remainder: assign.Keep, Epochs: 2,
		Window: 64 << 10, Prefetch: 1, MaxSpan: 64 << 10, Direct: direct,
		// Records lie in random order in the file (random inserts), so a
		// batch's byte range spans most of it: read through small gaps only.
		MaxGap: 8 << 10}
}

// directSupported reports, the same on every rank, whether O_DIRECT works
// on the file system that holds fx.
func directSupported(t *testing.T, fx *fixture) bool {
	verdict := []byte{1}
	if job.Rank == 0 {
		rd, err := reader.Open(fx.Dir+"/data.mdb", true)
		switch {
		case errors.Is(err, reader.ErrDirectUnsupported):
			verdict[0] = 0
		case err != nil:
			t.Errorf("opening with O_DIRECT: %v", err)
			verdict[0] = 0
		default:
			rd.Close()
		}
	}
	must(job.World.Bcast(verdict, 0))
	return verdict[0] == 1
}

// TestMPISmallArena reads through a 64 KiB window with one window of
// prefetch in every shared-memory mode, with and without O_DIRECT: still
// every record exactly once, and the arena really was reused.
func TestMPISmallArena(t *testing.T) {
	fx := makeFixture(t, "fewkb", fewKBDB)
	direct := directSupported(t, fx)
	for _, name := range modes(t, true) {
		mode := mustMode(t, name)
		for _, dio := range []bool{false, true} {
			if dio && !mode.DIO {
				continue
			}
			t.Run(fmt.Sprintf("%s/direct=%v", name, dio), func(t *testing.T) {
				if dio && !direct {
					t.Skip("the file system refuses O_DIRECT")
				}
				opt := smallArena(mode, dio)
				d, ok := readAll(t, fx, opt, reading{})
				if !ok {
					return
				}
				checkCoverage(t, d, fx, opt)
				checkArenaReused(t, d)
			})
		}
	}
}

// checkArenaReused checks that each node received more bytes than its arena
// holds, so its arena wrapped around at least once and the node reader had
// to wait for releases. Collective.
func checkArenaReused(t *testing.T, d *delivery) {
	t.Helper()
	rows := allgatherInts([]int64{int64(job.Node), d.bytes, d.arena})
	received := map[int64]int64{}
	arena := map[int64]int64{}
	for _, row := range rows {
		received[row[0]] += row[1]
		arena[row[0]] = max(arena[row[0]], row[2])
	}
	bad := false
	for node, n := range received {
		if arena[node] == 0 || n <= arena[node] {
			bad = true
			if job.Rank == 0 {
				t.Errorf("node %d received %d bytes through an arena of %d: want more than the arena holds", node, n, arena[node])
			}
		}
	}
	if bad && job.Rank != 0 {
		t.Error("an arena was not reused (details on rank 0)")
	}
}

// TestMPISlowLearner: one learner keeps every batch for a while before it
// asks for the next. The node reader must not reuse that batch's arena
// bytes in the meantime, and the other learners' views stay intact too
// (readAll checks every batch again right before the next Next).
func TestMPISlowLearner(t *testing.T) {
	fx := makeFixture(t, "fewkb", fewKBDB)
	slowRanks := []int{0} // a node reader
	if job.Size > 1 {
		slowRanks = append(slowRanks, job.Size-1) // a learner only, unless every node has one rank
	}
	for _, name := range []string{"lmm", "lmm+dio+prov", "default"} {
		for _, slow := range slowRanks {
			t.Run(fmt.Sprintf("%s/slow-rank=%d", name, slow), func(t *testing.T) {
				opt := smallArena(mustMode(t, name), false)
				opt.Epochs = 1 // the holder sleeps at every batch
				how := reading{hold: job.Rank == slow, wait: 2 * time.Millisecond}
				if d, ok := readAll(t, fx, opt, how); ok {
					checkCoverage(t, d, fx, opt)
				}
			})
		}
	}
}
