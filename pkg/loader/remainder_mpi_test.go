package loader_test

import (
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// TestMPIRemainder reads with DropLast and Pad in every mode: full batches,
// the same count on every learner; DropLast leaves out less than a round and
// never repeats a record, Pad delivers every record.
func TestMPIRemainder(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	batch := 5 // one that leaves records over, whatever the number of learners
	for fx.Records()%batch == 0 {
		batch++
	}
	for _, rem := range []assign.Remainder{assign.DropLast, assign.Pad} {
		for _, name := range modes(t, false) {
			t.Run(rem.String()+"/"+name, func(t *testing.T) {
				opt := loader.Options{Mode: mustMode(t, name), Batch: batch, Remainder: rem, Epochs: 1}
				if d, ok := readAll(t, fx, opt, reading{}); ok {
					checkCoverage(t, d, fx, opt)
				}
			})
		}
	}
}
