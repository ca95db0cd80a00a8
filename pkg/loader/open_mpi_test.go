package loader_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/gen"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// openCase is one option set of TestMPIOpenCollectives.
type openCase struct {
	name    string
	hdf5    bool // open the HDF5 fixture instead of the LMDB one
	perNode int  // ranks per node; 0 for the job's own nodes
	opt     loader.Options
	resume  bool // open again from the State after one batch
	failing bool // Open fails on every rank (with vary, where there are two)
	// vary makes the options of this rank differ from rank 0's, failOn
	// makes one node fail after its learners attached (-1 for none).
	vary   func(*loader.Options)
	failOn int
	// fault, when set, gives a node a fault of its own for the case and
	// returns what restores it.
	fault func(node int) (restore func())
}

// openCases are option sets that take every path through Open's steps:
// every mode, every shuffle, cache on and off, views on, off and auto, a
// resumed run, LMDB and HDF5, one rank per node (so that records cross
// nodes wherever there are two ranks), a node whose learners cannot view
// the file where the others' can, and Opens that fail at the options, at
// the dataset, on one node reader and after the learners attached.
func openCases() []openCase {
	base := loader.Options{Batch: 5, Epochs: 2, Seed: 3, ChunkBytes: 64 << 10}
	with := func(f func(*loader.Options)) loader.Options {
		o := base
		f(&o)
		return o
	}
	var cases []openCase
	for _, name := range loader.ModeNames() {
		m, _ := loader.ParseMode(name)
		cases = append(cases, openCase{name: "mode " + name, opt: with(func(o *loader.Options) { o.Mode = m }), failOn: -1})
	}
	for _, sh := range []sampler.Shuffle{sampler.None, sampler.Chunk, sampler.Global, sampler.Local} {
		for _, per := range []int{0, 1} {
			cases = append(cases, openCase{name: fmt.Sprintf("shuffle %v per node %d", sh, per), perNode: per,
				opt: with(func(o *loader.Options) { o.Shuffle = sh }), failOn: -1})
		}
	}
	for _, v := range []loader.Views{loader.ViewsAuto, loader.ViewsOn, loader.ViewsOff} {
		for _, epochs := range []int{1, 2} {
			cases = append(cases, openCase{name: fmt.Sprintf("views %v epochs %d", v, epochs), perNode: 1,
				opt: with(func(o *loader.Options) { o.Views, o.Epochs, o.Shuffle = v, epochs, sampler.Global }), failOn: -1})
		}
	}
	cases = append(cases,
		openCase{name: "cache off", perNode: 1, opt: with(func(o *loader.Options) { o.Cache, o.Shuffle = loader.CacheOff, sampler.Global }), failOn: -1},
		openCase{name: "small cache", perNode: 1, opt: with(func(o *loader.Options) { o.Cache, o.Shuffle = 256<<10, sampler.Chunk }), failOn: -1},
		openCase{name: "direct", opt: with(func(o *loader.Options) { o.Direct = true }), failOn: -1},
		openCase{name: "resume", perNode: 1, resume: true, opt: with(func(o *loader.Options) { o.Shuffle = sampler.Global }), failOn: -1},
		openCase{name: "hdf5", hdf5: true, opt: base, failOn: -1},
		openCase{name: "hdf5 global per node 1", hdf5: true, perNode: 1, opt: with(func(o *loader.Options) { o.Shuffle = sampler.Global }), failOn: -1},
		openCase{name: "hdf5 resume", hdf5: true, resume: true, opt: with(func(o *loader.Options) { o.Shuffle = sampler.Chunk }), failOn: -1},
		openCase{name: "settings differ", failing: true, opt: base, failOn: -1,
			vary: func(o *loader.Options) { o.Seed = uint64(job.Rank) }},
		openCase{name: "bad option on one rank", failing: true, opt: base, failOn: -1,
			vary: func(o *loader.Options) { o.Batch = -job.Rank }},
		openCase{name: "lmdb mode of an hdf5 file", failing: true, hdf5: true, opt: with(func(o *loader.Options) { o.Mode = loader.Mode{LMDB: true} }), failOn: -1},
		openCase{name: "fails after attach", failing: true, perNode: 1, opt: with(func(o *loader.Options) { o.Shuffle = sampler.Global }), failOn: 0},
		openCase{name: "one node cannot view", perNode: 1, opt: with(func(o *loader.Options) { o.Views, o.Shuffle = loader.ViewsOn, sampler.Global }),
			failOn: -1, fault: loader.LoseSnapshot},
		openCase{name: "one node's source damaged", failing: true, perNode: 1, opt: with(func(o *loader.Options) { o.Shuffle = sampler.Chunk }),
			failOn: -1, fault: loader.DamageSource},
		openCase{name: "one node's hdf5 layout damaged", failing: true, hdf5: true, opt: base, failOn: -1, fault: loader.DamageSource},
	)
	return cases
}

// TestMPIOpenCollectives: for every option set, every rank makes the same
// collectives in Open, in the same order, on each communicator (the
// world, the node readers', each node's), also where Open fails. The
// recorder checks each collective before it is made, so one made on some
// ranks only fails here at any number of ranks above one.
func TestMPIOpenCollectives(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	h5 := h5Fixture(t)
	rec, restore := loader.RecordOpen()
	defer restore()
	for _, c := range openCases() {
		t.Run(c.name, func(t *testing.T) {
			defer watchdog(t.Name(), 2*time.Minute)()
			topo := job
			if c.perNode > 0 {
				topo = virtual(t, c.perNode)
			}
			opt := c.opt
			opt.Topology, opt.Index = topo, index.LoadOptions{NoCache: true}
			path := fx.Dir
			if c.hdf5 {
				path = h5
			}
			if c.resume {
				st, ok := stateAfterOneBatch(t, path, opt)
				if _, err := rec.Check(topo); !agree(t, ok && err == nil, "the run to resume") {
					t.Fatalf("the run to resume: %v", err)
				}
				opt.Resume = &st
			}
			if c.vary != nil && job.Rank > 0 {
				c.vary(&opt)
			}
			if c.failOn >= 0 {
				defer loader.FailConnected(c.failOn)()
			}
			if c.fault != nil {
				defer c.fault(topo.Nodes - 1)()
			}
			// A rank alone has no other rank's options to differ from.
			failing := c.failing && (c.vary == nil || job.Size > 1)
			ld, err := loader.Open(path, opt)
			if ld != nil {
				if e := ld.Close(); e != nil {
					t.Errorf("Close: %v", e)
				}
			}
			if (err != nil) != failing {
				t.Errorf("Open: %v, want failing %v", err, failing)
			}
			counts, cerr := rec.Check(topo)
			if cerr != nil {
				t.Error(cerr)
			}
			// Open always agrees on the options and on its outcome over
			// the world, and a node reader's node hears of its socket.
			if counts["world"] < 3 || !failing && !opt.Mode.LMDB && counts["local"] < 1 {
				t.Errorf("collectives recorded %v: fewer than Open makes", counts)
				cerr = errors.New("too few")
			}
			t.Logf("collectives: %v", counts)
			agree(t, cerr == nil && (err != nil) == failing, c.name)
		})
	}
}

// stateAfterOneBatch opens path with opt, takes one batch on every
// learner, and returns where the run is. Collective.
func stateAfterOneBatch(t *testing.T, path string, opt loader.Options) (loader.State, bool) {
	ld, err := loader.Open(path, opt)
	if !agree(t, err == nil, "Open of the run to resume") {
		t.Fatalf("Open: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	_, err = ld.Next(ctx)
	if err != nil {
		t.Errorf("one batch: %v", err)
	}
	st := ld.State()
	// Every learner has its batch before any closes: a node reader stops
	// the exchange once one node's learners closed.
	ok := agree(t, err == nil, "one batch")
	if err := ld.Close(); err != nil {
		t.Errorf("Close: %v", err)
		ok = false
	}
	return st, ok
}

// h5Fixture writes a small HDF5 file on rank 0 and returns its path on
// every rank. Collective.
func h5Fixture(t *testing.T) string {
	t.Helper()
	var path string
	var err error
	if job.Rank == 0 {
		path = filepath.Join(scratch, "open-collectives.h5")
		_, err = gen.WriteHDF5(path, gen.HDF5Options{Records: 240, Shape: []int{3, 16, 16}, Seed: 5, Overwrite: true})
	}
	if !agree(t, err == nil, "writing the HDF5 fixture") {
		t.Fatalf("writing the HDF5 fixture: %v", err)
	}
	return string(share([]byte(path)))
}
