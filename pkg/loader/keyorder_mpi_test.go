package loader_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// Key order fixtures: records numbered in liblmdb's cursor order, which is
// key order. In both, many values share a leaf page, where liblmdb stores
// them from the page's end down (the file's order reverses them).
var (
	// sortedKeysDB is shaped as Caffe's convert_imageset writes: keys put in
	// their order, so leaf pages lie in key order in the file.
	sortedKeysDB = lmdbtest.Gen{Seed: 41, Records: 900, KeyLen: 20, SmallMax: 150, Txns: 1, Sorted: true}
	// randomKeysDB puts its keys in a random order over several
	// transactions: pages lie far from key order.
	randomKeysDB = lmdbtest.Gen{Seed: 42, Records: 900, KeyLen: 20, SmallMax: 150, Txns: 4, Churn: 30}
)

// TestMPIKeyOrder: with shuffle none every learner gets its records in key
// order, as liblmdb's cursor walks them (the fixture's record numbers, whose
// keys and values readAll checks against liblmdb's), in the batches that
// Sequential cuts from the keys: what a reader walking the cursor gives,
// in every mode and at any world size. shuffle file gives the file's order,
// which differs. Both deliver every record exactly once.
func TestMPIKeyOrder(t *testing.T) {
	for _, db := range []struct {
		name string
		gen  lmdbtest.Gen
	}{{"sorted-keys", sortedKeysDB}, {"random-keys", randomKeysDB}} { // a slice: every rank runs the same order
		name := db.name
		fx := makeFixture(t, name, db.gen)
		for _, mode := range []string{"default", "lmm+dio+prov", "lmm"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				opt := loader.Options{Mode: mustMode(t, mode), Batch: 5, Remainder: assign.Keep, Epochs: 2}
				d, ok := readAll(t, fx, opt, reading{})
				if !ok {
					return
				}
				checkCoverage(t, d, fx, opt)
				want := keyOrderShare(t, fx, opt)
				for e, got := range d.epochs {
					if !slices.Equal(got, want) {
						t.Errorf("epoch %d: records %s, key order gives %s", e, head64(got), head64(want))
					}
				}
				agree(t, !t.Failed(), "key order")
			})
		}
		t.Run(name+"/file", func(t *testing.T) {
			opt := loader.Options{Batch: 5, Remainder: assign.Keep, Shuffle: sampler.File}
			d, ok := readAll(t, fx, opt, reading{})
			if !ok {
				return
			}
			checkCoverage(t, d, fx, opt)
			inOrder := agree(t, slices.Equal(d.epochs[0], keyOrderShare(t, fx, opt)), "file order")
			if inOrder {
				t.Errorf("shuffle file delivered key order: the fixture's pages hold no reversed run")
			}
		})
	}
}

// keyOrderShare is what this rank receives in an epoch of key order: its
// batches of Sequential over the records 0..n-1, round by round. Collective.
func keyOrderShare(t *testing.T, fx *fixture, opt loader.Options) []int64 {
	t.Helper()
	sizes := make([]int, job.Nodes)
	for _, nl := range allgatherInts([]int64{int64(job.Node), int64(job.LocalSize)}) {
		sizes[nl[0]] = int(nl[1])
	}
	records := make([]int32, fx.Records())
	for i := range records {
		records[i] = int32(i)
	}
	ep, err := assign.Sequential(records, assign.Layout{Batch: opt.Batch, NodeSizes: sizes, Remainder: opt.Remainder})
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for round := range ep.Rounds() {
		for _, r := range ep.Batch(job.Node, job.LocalRank, round) {
			want = append(want, int64(r))
		}
	}
	return want
}

func head64(v []int64) string {
	if len(v) > 12 {
		return fmt.Sprintf("%v... (%d)", v[:12], len(v))
	}
	return fmt.Sprint(v)
}
