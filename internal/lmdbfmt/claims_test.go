package lmdbfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHugeClaims: a 1 TiB sparse file whose meta claims 10^12 records is
// walked (and found corrupt) with memory that follows the pages read, not
// the pages the file could hold.
func TestHugeClaims(t *testing.T) {
	for _, ps := range []int{512, 4096, 65536} {
		for _, root := range []uint64{2, 1 << 20} {
			path := filepath.Join(t.TempDir(), "huge.mdb")
			lmdbtest.Claim(t, path, 1<<40, lmdbtest.Claims{PageSize: ps, Entries: 1e12, Depth: 1, Root: root})
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var walkErr error
			n := allocated(func() {
				f, err := Open(fh, 1<<40)
				if err != nil {
					walkErr = err
					return
				}
				walkErr = f.Walk(func(Record) error { return nil })
			})
			fh.Close()
			if !errors.Is(walkErr, ErrCorrupt) {
				t.Errorf("page size %d, root %d: Walk = %v, want ErrCorrupt", ps, root, walkErr)
			}
			if n > 4<<20 {
				t.Errorf("page size %d, root %d: walking 3 pages allocated %d bytes", ps, root, n)
			}
		}
	}
}

// sparseFile is a file of size bytes whose first bytes are data and the
// rest zeros, as a sparse file reads.
type sparseFile struct {
	data []byte
	size int64
}

func (s sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= s.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.size-off))
	clear(p[:n])
	if off < int64(len(s.data)) {
		copy(p[:n], s.data[off:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// FuzzSparseClaims: arbitrary pages at the start of a 1 TiB file of zeros.
// Whatever the meta pages claim, Open and Walk fail with a sentinel or
// report records inside the file, and the memory they take follows the
// pages they read (a few page buffers), never the claims.
func FuzzSparseClaims(f *testing.F) {
	f.Add(handMadeImage())
	claim := filepath.Join(f.TempDir(), "claim.mdb")
	lmdbtest.Claim(f, claim, 3*512, lmdbtest.Claims{PageSize: 512, Entries: 1e12, Depth: 1, Root: 2})
	img, err := os.ReadFile(claim)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(img)
	const size = 1 << 40
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fuzzer's pages are small; say the last page is near the end
		// of the terabyte, as the claims of a sparse file would.
		if len(data) >= pageHeaderSize+metaSize {
			binary.LittleEndian.PutUint64(data[offTxnID-8:], uint64(size)/uint64(max(512, len(data)))-1)
		}
		var walkErr error
		var recs int
		n := allocated(func() {
			file, err := Open(sparseFile{data, size}, size)
			if err != nil {
				walkErr = err
				return
			}
			walkErr = file.Walk(func(r Record) error {
				recs++
				if r.Offset < 0 || r.Length < 0 || r.Offset+r.Length > size {
					return fmt.Errorf("record extent %d+%d outside the file", r.Offset, r.Length)
				}
				return nil
			})
		})
		if walkErr != nil && !errors.Is(walkErr, ErrCorrupt) && !errors.Is(walkErr, ErrNotLMDB) && !errors.Is(walkErr, ErrUnsupported) {
			t.Fatalf("error wraps no sentinel: %v", walkErr)
		}
		// Page buffers for a tree of the deepest kind, the visited-page
		// chunks of the pages read, and the keys of the records found.
		if limit := uint64(maxDepth*maxPageSize) + uint64(recs+len(data))*1024 + 1<<20; n > limit {
			t.Fatalf("allocated %d bytes (limit %d) for %d bytes of data", n, limit, len(data))
		}
	})
}
