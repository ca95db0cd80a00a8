package bench

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/reader"
)

func TestSequentialRead(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4096, 3*4096 + 17, 100_000} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, direct := range []bool{false, true} {
			// A buffer smaller than the file exercises the loop.
			s, err := SequentialRead(path, direct, 8192)
			if direct && errors.Is(err, reader.ErrDirectUnsupported) {
				t.Logf("size %d: O_DIRECT not supported here: %v", size, err)
				continue
			}
			if err != nil {
				t.Fatalf("size %d direct %v: %v", size, direct, err)
			}
			if s.Bytes != int64(size) || s.Direct != direct || s.Seconds < 0 {
				t.Errorf("size %d direct %v: got %+v", size, direct, s)
			}
		}
	}
	if _, err := SequentialRead(filepath.Join(dir, "missing"), false, LimitBuffer); err == nil {
		t.Error("reading a missing file succeeded")
	}
}
