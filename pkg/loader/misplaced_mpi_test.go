package loader_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// TestMPIMisplacedRecord reads a database whose saved index has a valid
// checksum but puts some records 2 bytes after their values, as a damaged
// or foreign sidecar can (none among the records Load spot-checks; see
// misplace). With learners viewing the file (they check the bytes in front
// of each value they are handed, the node reader those it sends to other
// nodes) and without (the node reader checks them all), in the file's order
// and shuffled over all nodes (records cross between nodes, and a node
// reader that fails must not leave the others waiting for it in an
// exchange): no rank is handed other bytes as that record, the job fails
// with an error that says the file does not match its index, and no rank
// hangs.
func TestMPIMisplacedRecord(t *testing.T) {
	fx := makeFixture(t, "misplaced", fewKBDB)
	load := index.LoadOptions{NoCache: true, NoWriteBeside: true}
	var moved int
	var err error
	if job.Rank == 0 {
		moved, err = misplace(filepath.Join(fx.Dir, "data.mdb"), load)
		t.Logf("%d records misplaced", moved)
	}
	if !agree(t, err == nil, "writing the sidecar") {
		t.Fatalf("writing the sidecar: %v", err)
	}
	for _, views := range []loader.Views{loader.ViewsOn, loader.ViewsOff} {
		for _, shuffle := range []sampler.Shuffle{sampler.None, sampler.Global} {
			t.Run(fmt.Sprintf("views=%v/shuffle=%v", views, shuffle), func(t *testing.T) {
				readMisplaced(t, fx, loader.Options{Topology: job, Batch: 5, Epochs: 3, Views: views, Shuffle: shuffle, Seed: 3, Index: load})
			})
		}
	}
}

// readMisplaced reads fx with opt on every rank and checks what
// TestMPIMisplacedRecord expects. Collective.
func readMisplaced(t *testing.T, fx *fixture, opt loader.Options) {
	defer watchdog(t.Name(), readTimeout)()
	ld, err := loader.Open(fx.Dir, opt)
	if !agree(t, err == nil, "Open") {
		t.Fatalf("Open: %v", err)
	}
	d, corrupt := readUntilError(ld, fx, opt)
	if err := ld.Close(); err != nil && !saysMismatch(err) {
		d.problem("Close: %v", err)
	}
	for _, p := range d.problems {
		t.Error(p)
	}
	agree(t, len(d.problems) == 0, "reading")
	if !anyRank(corrupt) {
		t.Errorf("no rank was told that the file does not match its index")
	}
	checkNoSegments(t)
}

// readUntilError reads every epoch until the last ends or Next fails. It
// reports problems with what was handed out, and whether Next said the file
// does not match its index (then again on the next call).
func readUntilError(ld *loader.Loader, fx *fixture, opt loader.Options) (*delivery, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	d := &delivery{}
	for n := 0; ; n++ {
		b, err := ld.Next(ctx)
		switch {
		case err == io.EOF:
			if ld.Epoch() < opt.Epochs {
				continue
			}
			return d, false
		case saysMismatch(err):
			if _, again := ld.Next(ctx); again != err {
				d.problem("Next after %v: %v, want the same error", err, again)
			}
			return d, true
		case err != nil:
			// The job ended for this learner because of a failure
			// elsewhere: its node reader's, or another node's.
			return d, false
		}
		d.check(b, fx, opt.Batch, false, fmt.Sprintf("batch %d", n))
	}
}

// saysMismatch reports whether err says that the file does not match its
// index: index.ErrCorrupt where a learner found it, the same words where
// its node reader did and sent them.
func saysMismatch(err error) bool {
	return errors.Is(err, index.ErrCorrupt) || err != nil && strings.Contains(err.Error(), "does not match its index")
}

// anyRank reports whether ok holds on some rank. Collective.
func anyRank(ok bool) bool {
	mine := int64(0)
	if ok {
		mine = 1
	}
	out := make([]int64, 1)
	must(job.World.AllreduceInt64([]int64{mine}, out, mpi.Max))
	return out[0] == 1
}

// misplace saves an index of dataPath beside it in which the records of
// the first tenth of the file have their values start 2 bytes later, but
// for those that Load, with opt, would find out; its checksum made to
// match. It returns how many records it moved.
func misplace(dataPath string, opt index.LoadOptions) (int, error) {
	x, err := index.Build(dataPath)
	if err != nil {
		return 0, err
	}
	b, err := x.MarshalBinary()
	if err != nil {
		return 0, err
	}
	byOffset := make([]int, x.Len())
	for r := range byOffset {
		byOffset[r] = r
	}
	slices.SortFunc(byOffset, func(r, s int) int {
		a, _ := x.Extent(r)
		b, _ := x.Extent(s)
		return cmp.Compare(a, b)
	})
	moved := 0
	for _, r := range byOffset[:x.Len()/10] {
		// The value offsets follow the 56-byte header and the key offsets.
		at := 56 + 4*(uint64(x.Len())+1) + 8*uint64(r)
		off := binary.LittleEndian.Uint64(b[at:])
		if ok, err := savedWith(dataPath, b, at, off+2, opt); err != nil {
			return 0, err
		} else if ok {
			moved++
			continue
		}
		if _, err := savedWith(dataPath, b, at, off, opt); err != nil {
			return 0, err
		}
	}
	if moved == 0 {
		return 0, fmt.Errorf("Load found out every misplaced record of %s", dataPath)
	}
	return moved, nil
}

// savedWith sets the offset at byte at of the index b to off, saves it
// beside dataPath with its checksum made to match, and reports whether
// Load, with opt, takes it.
func savedWith(dataPath string, b []byte, at, off uint64, opt index.LoadOptions) (bool, error) {
	binary.LittleEndian.PutUint64(b[at:], off)
	body := b[:len(b)-4]
	binary.LittleEndian.PutUint32(b[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(index.SidecarPath(dataPath), b, 0o644); err != nil {
		return false, err
	}
	_, from, err := index.Load(dataPath, opt)
	return err == nil && strings.HasPrefix(from, "sidecar"), nil
}
