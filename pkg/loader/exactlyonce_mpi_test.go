package loader_test

import (
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// mixedDB is a database liblmdb built the hard way: random key order over
// many transactions with deletes and rewrites in between, inline values and
// values in overflow pages, and keys long enough for a tree of depth 3
// (about 2 MB).
var mixedDB = lmdbtest.Gen{Seed: 1, Records: 2000, KeyLen: 48, SmallMax: 700,
	BigEvery: 9, BigMin: 2500, BigMax: 9000, Txns: 12, Churn: 40}

// TestMPIExactlyOnce reads the mixed database in every mode for two epochs
// with Remainder Keep: every record exactly once per epoch over all ranks,
// bytes equal to liblmdb's, the same number of batches on every learner,
// io.EOF at each epoch's end and after the last.
func TestMPIExactlyOnce(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	if fx.Depth < 3 {
		t.Errorf("fixture has a tree of depth %d, want at least 3", fx.Depth)
	}
	overflow := 0
	for _, e := range fx.Entries {
		if e.Len > 4096 {
			overflow++
		}
	}
	if overflow == 0 {
		t.Error("fixture has no value in overflow pages")
	}
	for _, name := range modes(t, false) {
		t.Run(name, func(t *testing.T) {
			opt := loader.Options{Mode: mustMode(t, name), Batch: 7, Remainder: assign.Keep, Epochs: 2}
			if d, ok := readAll(t, fx, opt, reading{}); ok {
				checkCoverage(t, d, fx, opt)
			}
		})
	}
}

// TestMPIDefaultMode: the zero Options read the full stack, once.
func TestMPIDefaultMode(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	opt := loader.Options{Remainder: assign.Keep}
	if d, ok := readAll(t, fx, opt, reading{}); ok {
		opt.Batch, opt.Epochs = 64, 1 // the documented defaults
		checkCoverage(t, d, fx, opt)
	}
}
