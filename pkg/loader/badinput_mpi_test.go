package loader_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// tinyDB has fewer records than one learner's batch.
var tinyDB = lmdbtest.Gen{Seed: 3, Records: 3, KeyLen: 8, SmallMax: 100}

// TestMPIBadInput opens what is not a usable dataset, or with options that
// cannot work, in several modes: every rank gets an error that IsBadInput
// recognises and that carries rank 0's message, and no rank hangs.
func TestMPIBadInput(t *testing.T) {
	garbage := make([]byte, 3*4096)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	garbageFile := shareFile(t, "garbage.mdb", garbage)
	emptyFile := shareFile(t, "empty.mdb", nil)
	var emptyDir string
	if job.Rank == 0 {
		emptyDir = filepath.Join(scratch, "emptydir")
		if err := os.MkdirAll(emptyDir, 0o755); err != nil {
			emptyDir = "" // the case then checks a missing path instead
		}
	}
	emptyDir = string(share([]byte(emptyDir)))
	tiny := makeFixture(t, "tiny", tinyDB)
	// The page size in meta page 0 (the free tree's md_pad, bytes 40-43)
	// made absurd: every mode refuses the file, as liblmdb does, rather
	// than read the snapshot of meta page 1.
	img, err := os.ReadFile(filepath.Join(tiny.Dir, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	img[43] = 0x6b
	badMeta := shareFile(t, "badmeta.mdb", img)

	cases := []struct {
		name string
		path string
		opt  loader.Options
	}{
		{"missing", filepath.Join(filepath.Dir(garbageFile), "no-such-db"), loader.Options{}},
		{"not-lmdb", garbageFile, loader.Options{}},
		{"empty-file", emptyFile, loader.Options{}},
		{"dir-without-data.mdb", emptyDir, loader.Options{}},
		{"too-few-for-drop-last", tiny.Dir, loader.Options{Batch: 7, Remainder: assign.DropLast}},
		{"negative-batch", tiny.Dir, loader.Options{Batch: -1}},
		{"zero-window", tiny.Dir, loader.Options{Window: -1}},
		{"meta-page-size", badMeta, loader.Options{Batch: 1, Remainder: assign.Keep}},
	}
	for _, c := range cases {
		for _, name := range []string{"lmdb", "lmm", "lmm+dio", "default"} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				opt := c.opt
				opt.Topology, opt.Mode = job, mustMode(t, name)
				opt.Index = index.LoadOptions{NoCache: true}
				stop := watchdog(t.Name(), time.Minute)
				ld, err := loader.Open(c.path, opt)
				stop()
				if ld != nil {
					t.Errorf("Open returned a Loader (error %v)", err)
					_ = ld.Close()
				}
				var msg string
				if err != nil {
					msg = err.Error()
				}
				rank0 := string(share([]byte(msg)))
				ok := err != nil && loader.IsBadInput(err) && strings.Contains(msg, rank0)
				if !ok {
					t.Errorf("Open: %v (IsBadInput %v), want a bad-input error carrying rank 0's %q",
						err, loader.IsBadInput(err), rank0)
				}
				agree(t, ok, "bad input")
				checkNoSegments(t)
			})
		}
	}
}
