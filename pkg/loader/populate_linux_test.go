//go:build linux

package loader

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPopulate: populate brings a span that starts inside a page into the
// page cache.
func TestPopulate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	const size = 1 << 20
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	v, err := openView(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.resident(4096, size-4096) {
		t.Skip("the file system keeps the file in memory (tmpfs?): nothing to bring in")
	}
	if !populate(v.mem, 4096+100, size) {
		t.Fatal("populate failed")
	}
	if !v.resident(4096, size-4096) {
		t.Error("populate returned, but the span is not in the page cache")
	}
}
