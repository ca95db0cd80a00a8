package loader_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// TestMPIMisplacedRecord reads a database whose saved index has a valid
// checksum but puts one record 2 bytes after its value, as a damaged or
// foreign sidecar can (the record is not among those Load spot-checks).
// With learners viewing the file (they check the bytes in front of each
// value they are handed) and without (the node reader checks them): no rank
// is handed other bytes as that record, the job fails with an error that
// says the file does not match its index, and no rank hangs.
func TestMPIMisplacedRecord(t *testing.T) {
	fx := makeFixture(t, "misplaced", fewKBDB)
	load := index.LoadOptions{NoCache: true, NoWriteBeside: true}
	var moved int
	var err error
	if job.Rank == 0 {
		moved, err = misplaceOne(filepath.Join(fx.Dir, "data.mdb"), load)
	}
	if !agree(t, err == nil, "writing the sidecar") {
		t.Fatalf("writing the sidecar: %v", err)
	}
	moved = int(binary.LittleEndian.Uint64(share(binary.LittleEndian.AppendUint64(nil, uint64(moved)))))
	for _, views := range []loader.Views{loader.ViewsOn, loader.ViewsOff} {
		t.Run(fmt.Sprintf("views=%v", views), func(t *testing.T) {
			defer watchdog(t.Name(), readTimeout)()
			opt := loader.Options{Topology: job, Batch: 5, Epochs: 3, Views: views, Index: load}
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
				t.Errorf("no rank was told that record %d does not match the index", moved)
			}
			checkNoSegments(t)
		})
	}
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

// misplaceOne saves an index of dataPath beside it in which one record's
// value starts 2 bytes later, with its checksum made to match, and returns
// that record: the first that Load, with opt, then takes as it is.
func misplaceOne(dataPath string, opt index.LoadOptions) (int, error) {
	x, err := index.Build(dataPath)
	if err != nil {
		return 0, err
	}
	good, err := x.MarshalBinary()
	if err != nil {
		return 0, err
	}
	for r := range x.Len() {
		b := bytes.Clone(good)
		// The value offsets follow the 56-byte header and the key offsets.
		at := 56 + 4*(uint64(x.Len())+1) + 8*uint64(r)
		binary.LittleEndian.PutUint64(b[at:], binary.LittleEndian.Uint64(b[at:])+2)
		body := b[:len(b)-4]
		binary.LittleEndian.PutUint32(b[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		if err := os.WriteFile(index.SidecarPath(dataPath), b, 0o644); err != nil {
			return 0, err
		}
		if _, from, err := index.Load(dataPath, opt); err == nil && strings.HasPrefix(from, "sidecar") {
			return r, nil
		}
	}
	return 0, fmt.Errorf("Load found out every misplaced record of %s", dataPath)
}
