package loader_test

import (
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// digitsDB is a small dataset of small records (about the size of the 8x8
// handwritten digits as Datums), inserted in random order: a batch's byte
// range spans much of the file.
var digitsDB = lmdbtest.Gen{Seed: 33, Records: 1797, KeyLen: 16, SmallMax: 120, Txns: 3}

// TestMPICursorArenaTinyDB reads a tiny dataset in mode lmm+dio with the
// default window, gaps and prefetch. Without an index the arena is sized
// before any record's place is known; a batch that spans too much of the
// file is then read record by record, each read at an aligned place, and
// the arena must have room for that ("a window needs 266240 bytes but the
// arena has 61440" was the failure).
func TestMPICursorArenaTinyDB(t *testing.T) {
	fx := makeFixture(t, "digits", digitsDB)
	for _, batch := range []int{64, 16, 3} {
		opt := loader.Options{Mode: mustMode(t, "lmm+dio"), Batch: batch, Remainder: assign.Keep}
		d, ok := readAll(t, fx, opt, reading{})
		if !ok {
			return
		}
		checkCoverage(t, d, fx, opt)
	}
}
